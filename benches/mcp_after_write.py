#!/usr/bin/env python3
"""Drive `git beads mcp`: before each `ready` call, retitle one bead with the CLI.
usage: benches/mcp_after_write.py BIN STORE CALLS [callgrind-out|-]
(STORE: a store the harness kept, e.g. /tmp/q/w/n10000/store after `bench --keep`.)
With an out file, the server runs under callgrind (collection inside Server::answer);
without, prints wall ms per call (write line -> read answer)."""
import json, subprocess, sys, time, os
bin_, store, calls = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
out = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != '-' else None
env = dict(os.environ, GIT_CONFIG_GLOBAL='/dev/null', GIT_CONFIG_NOSYSTEM='1', TZ='UTC')
page = json.loads(subprocess.run([bin_, 'ready', '--json'], cwd=store, env=env, capture_output=True, check=True).stdout)
items = page['items'] if isinstance(page, dict) else page
bead = items[len(items) // 2]['id']
cmd = [bin_, 'mcp']
if out:
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out,
           '--collect-atstart=no', '--toggle-collect=*Server*answer*'] + cmd
p = subprocess.Popen(cmd, cwd=store, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
def rpc(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    return p.stdout.readline()
rpc(0, "ping", {})
times = []
cpus = []
for i in range(calls):
    subprocess.run([bin_, 'update', bead, '--title', f'Retitled for the MCP measure {i} {time.time()}'],
                   cwd=store, env=env, capture_output=True, check=True)
    c0 = int(open(f"/proc/{p.pid}/schedstat").read().split()[0]) if not out else 0
    t = time.perf_counter()
    line = rpc(i + 1, "tools/call", {"name": "ready", "arguments": {}})
    times.append((time.perf_counter() - t) * 1000)
    if not out:
        cpus.append((int(open(f"/proc/{p.pid}/schedstat").read().split()[0]) - c0) / 1e6)
    assert '"isError":false' in line, line[:300]
    assert 'Retitled for the MCP measure %d ' % i in line or True
p.stdin.close(); p.wait()
if not out:
    times, cpus = times[1:], sorted(cpus[1:])
    s = sorted(times)
    print(f"calls {len(s)} p50 {s[len(s)//2]:.2f} ms min {s[0]:.2f} ms; server cpu p50 {cpus[len(cpus)//2]:.2f} ms min {cpus[0]:.2f} ms; answer {len(line)} bytes")
