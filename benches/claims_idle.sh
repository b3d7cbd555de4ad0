#!/usr/bin/env bash
# An idle sync with CLAIMS claims held on the remote, against the same sync with none
# (issue 39: at most twice as long). One clone of a local bare remote imports 1 000
# beads, claims the first CLAIMS of them in one change, syncs, and gives each claimed
# bead its claim ref on the remote (as `update --claim --remote` leaves it: a commit
# holding the claim); then syncs with nothing to do are timed, for CLAIMS and for 0,
# alternating, so both see the same load. Twice: with the remote's claim refs loose,
# as the pushes left them, and packed, as the remote's own `git gc` leaves them (a
# clone packs its own tracking refs in its housekeeping).
#
#   benches/claims_idle.sh BIN DIR [CLAIMS] [RUNS]     # default 1 000 claims, 15 runs
set -euo pipefail
bin=$(realpath "${1:?usage: claims_idle.sh BIN DIR [CLAIMS] [RUNS]}")
dir=${2:?usage: claims_idle.sh BIN DIR [CLAIMS] [RUNS]}
claims=${3:-1000}
runs=${4:-15}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 TZ=UTC
rm -rf "$dir" && mkdir -p "$dir" && dir=$(realpath "$dir")
beads=$(seq -f 'bd-c%g' 0 999)
for n in 0 "$claims"; do
    w="$dir/$n"
    mkdir -p "$w"
    git init -q --bare -b main "$w/remote.git"
    git clone -q "$w/remote.git" "$w/c" 2>/dev/null
    cd "$w/c"
    git config user.name agent && git config user.email agent@example.com
    echo code >README && git add README && git commit -q -m code
    git push -q origin HEAD:main
    "$bin" init --prefix bd -q >/dev/null 2>&1
    for id in $beads; do
        printf '{"id":"%s","title":"job %s","status":"open","priority":2,"issue_type":"task","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"}\n' "$id" "$id"
    done >"$w/beads.jsonl"
    "$bin" import "$w/beads.jsonl" -q
    held=$(echo "$beads" | head -n "$n")
    [ "$n" -gt 0 ] && "$bin" update $held --claim -q
    "$bin" sync -q
    [ "$n" -gt 0 ] && git push -q origin $(for id in $held; do echo "refs/beads/main:refs/beads/claims/$id"; done)
    "$bin" sync -q && "$bin" sync -q
done
time_syncs() {
    for n in 0 "$claims"; do : >"$dir/$n.times"; done
    for _ in $(seq "$runs"); do
        for n in 0 "$claims"; do
            cd "$dir/$n/c"
            start=$EPOCHREALTIME
            "$bin" sync -q
            echo "$start $EPOCHREALTIME" | awk '{printf "%.1f\n", ($2 - $1) * 1000}' >>"$dir/$n.times"
        done
    done
    for n in 0 "$claims"; do
        wall=$(sort -n "$dir/$n.times" | sed -n "$(((runs + 1) / 2))p")
        echo "$n claims held, $1: idle sync median $wall ms, $runs runs"
    done
}
time_syncs "the remote's refs loose"
for n in 0 "$claims"; do git -C "$dir/$n/remote.git" pack-refs --all; done
time_syncs "the remote's refs packed"
