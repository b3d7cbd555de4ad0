#!/usr/bin/env bash
# What a push sends for one write (issue 39: at most 4 KB a write, as for `.git`'s
# growth). Copies STORE (a store the harness kept with `--keep`) to DIR and puts the
# whole store in a new bare remote served by `git daemon` on the loopback (a remote
# reached over the network; for a path on the same machine git-beads asks git for no
# deltas, as the objects only cross a pipe). Then WRITES times: changes one bead
# (`update --add-label`) and pushes `refs/beads/main` as a sync does, reading the
# bytes of the pack from git's own progress line. Prints each and their median.
#
#   benches/push_bytes.sh BIN STORE DIR [WRITES]     # default 20 writes
set -euo pipefail
usage="usage: push_bytes.sh BIN STORE DIR [WRITES]"
# shellcheck source=kept_store.sh
. "$(dirname "$0")/kept_store.sh"
writes=${4:-20}
cp -a "$store" "$dir/work"
git init -q --bare "$dir/remote.git"
cd "$dir/work"
# The whole store, over the file system without deltas (a search for deltas among a
# million objects would take minutes).
git -c pack.window=0 push -q "$dir/remote.git" 'refs/beads/*:refs/beads/*'
port=$((20000 + RANDOM % 20000))
git daemon --export-all --enable=receive-pack --base-path="$dir" --reuseaddr \
  --listen=127.0.0.1 --port="$port" --pid-file="$dir/daemon.pid" --detach
trap 'kill "$(cat "$dir/daemon.pid")"' EXIT
sleep 0.5
ids=$("$bin" ready --json --limit "$writes" | python3 -c \
  'import json, sys; print("\n".join(b["id"] for b in json.load(sys.stdin)))')
: >"$dir/bytes"
for id in $ids; do
  "$bin" update "$id" --add-label pushed -q
  git push --progress "git://127.0.0.1:$port/remote.git" refs/beads/main:refs/beads/main 2>&1 |
    tr '\r' '\n' | grep 'Writing objects: 100%' | tail -n 1 |
    sed -E 's/.*, ([0-9.]+) (bytes|KiB|MiB) .*/\1 \2/' |
    awk '{ print int($1 * ($2 == "KiB" ? 1024 : $2 == "MiB" ? 1048576 : 1)) }' >>"$dir/bytes"
done
echo "bytes a push: $(tr '\n' ' ' <"$dir/bytes")"
sort -n "$dir/bytes" | awk '{ a[NR] = $1 } END { printf "median of %d: %d B\n", NR, a[int((NR + 1) / 2)] }'
