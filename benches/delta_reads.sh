#!/usr/bin/env bash
# Reads over the index's delta against the same store freshly folded (issue 39: within
# 1.5×). Copies STORE (a store the harness kept with `--keep`, e.g.
# $TMPDIR/git-beads-bench/n1000000/store) to DIR, sets CHANGES beads spread over the
# store to in_progress in one write (so the changes reach the beads that wait on them
# and their children), and lets one read take the change into the delta. A second copy
# of that, whose index is rebuilt, is the same store (the same packs too) freshly
# folded. Then each read runs RUNS times in both copies, alternating; prints the
# medians in ms.
#
#   benches/delta_reads.sh BIN STORE DIR [CHANGES] [RUNS]     # default 2 000, 15 runs
set -euo pipefail
usage="usage: delta_reads.sh BIN STORE DIR [CHANGES] [RUNS]"
# shellcheck source=kept_store.sh
. "$(dirname "$0")/kept_store.sh"
changes=${4:-2000}
runs=${5:-15}
cp -a "$store" "$dir/delta"
gb() { (cd "$1" && "$bin" "${@:2}"); }
# Every 1/CHANGES-th bead of the listing, in its order.
gb "$dir/delta" list --all --json |
  python3 -c 'import json, sys; ids = [b["id"] for b in json.load(sys.stdin)]
step = max(1, len(ids) // int(sys.argv[1]))
print("\n".join(ids[::step][: int(sys.argv[1])]))' "$changes" >"$dir/ids"
(cd "$dir/delta" && xargs -a ../ids "$bin" update --status in_progress -q)
gb "$dir/delta" ready --json >/dev/null
cp -a "$dir/delta" "$dir/folded"
rm "$dir"/folded/.git/beads/index-v*
gb "$dir/folded" ready --json >/dev/null

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# Microseconds of one run, timed by the shell itself (no process but the read's).
time_us() {
  cd "$1"
  local start=${EPOCHREALTIME/./}
  "$bin" "${@:2}" >/dev/null
  echo $((${EPOCHREALTIME/./} - start))
  cd "$dir"
}
printf '%-14s %10s %10s %7s\n' read folded delta ratio
for read in "ready --json" "list --json" "count --json" "stats --json"; do
  read -r -a args <<<"$read"
  : >"$dir/folded.t" && : >"$dir/delta.t"
  for _ in $(seq "$runs"); do
    time_us "$dir/folded" "${args[@]}" >>"$dir/folded.t"
    time_us "$dir/delta" "${args[@]}" >>"$dir/delta.t"
  done
  f=$(median <"$dir/folded.t") && d=$(median <"$dir/delta.t")
  awk -v r="$read" -v f="$f" -v d="$d" \
    'BEGIN { printf "%-14s %10.1f %10.1f %6.2fx\n", r, f / 1000, d / 1000, d / f }'
done
