#!/usr/bin/env bash
# Makes the state of a fleet clone about to sync, without a race: a bare remote whose
# replica refs hold criss-cross histories (many merge bases), as a crowd of clones
# leaves it, and one clone with a local change. Counted with callgrind, the same
# state serves two builds: copy it, then sync the copy.
#
#   benches/fleet_state.sh BIN DIR [CLONES] [ROUNDS]     # default 12 clones, 3 rounds
#   cp -a DIR /tmp/a && git -C /tmp/a/c0 remote set-url origin /tmp/a/remote.git
#   (cd /tmp/a/c0 && valgrind --tool=callgrind BIN sync --json)
#
# Each round, each clone in turn pulls (merging `refs/beads/main` and every replica
# ref, as a sync does), creates a bead, retitles a shared one and publishes to its own
# replica ref, as a sync that lost the race for `refs/beads/main` does; so each clone
# merges a different set of the others' heads. Nothing pushes `refs/beads/main` after
# the seed.
set -euo pipefail
bin=$(realpath "${1:?usage: fleet_state.sh BIN DIR [CLONES] [ROUNDS]}")
dir=${2:?usage: fleet_state.sh BIN DIR [CLONES] [ROUNDS]}
clones=${3:-12}
rounds=${4:-3}
rm -rf "$dir" && mkdir -p "$dir" && dir=$(realpath "$dir")
export HOME=$dir GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 TZ=UTC
cd "$dir"
git init -q --bare -b main remote.git
for i in $(seq 0 "$clones"); do
    git clone -q "$dir/remote.git" "c$i" 2>/dev/null
    git -C "c$i" config user.name "agent$i"
    git -C "c$i" config user.email "agent$i@example.com"
    git -C "c$i" config beads.syncTimeout 10m
done
(cd c0 && echo code >README && git add README && git commit -q -m code &&
    git push -q origin HEAD:main && "$bin" init -q --prefix bd &&
    for s in $(seq 1 20); do "$bin" create -q "seed $s" >/dev/null; done &&
    "$bin" sync -q)
mapfile -t seeds < <(cd c0 && "$bin" list --json | grep -o '"id": *"bd-[^"]*"' | grep -o 'bd-[^"]*' | sort)
for r in $(seq 1 "$rounds"); do
    for i in $(seq 1 "$clones"); do
        (cd "c$i" && "$bin" pull -q &&
            "$bin" create -q "clone $i round $r" >/dev/null &&
            "$bin" update -q "${seeds[$(((i + r) % ${#seeds[@]}))]}" --title "clone $i round $r" &&
            git push -q -f origin "refs/beads/main:refs/beads/replicas/r-$(printf %010d "$i")")
    done
done
(cd c0 && "$bin" update -q "${seeds[0]}" --title "a local change")
echo "$dir: $(git -C remote.git for-each-ref refs/beads/replicas | wc -l) replica refs"
