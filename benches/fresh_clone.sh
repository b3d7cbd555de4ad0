#!/usr/bin/env bash
# The first read in a fresh clone (issue 39), with and without the travelling index:
#   benches/fresh_clone.sh BIN DIR [BEADS] [RUNS]
# builds a store of BEADS generated beads (default 100 000) under DIR, signed, pushes it
# to a bare remote (the sync publishes its index), then clones it RUNS times (default 3)
# and times the clone's first `ready --json` after its first sync: trusting the key
# (it starts from the travelling index), and not (it builds its own from the documents).
# Beside them: git printing every blob of the store once (`cat-file --batch`), the
# target's yardstick, and the sizes of the index and of the store. Prints medians in ms
# and peak memory in MiB.
set -euo pipefail
bin=$(realpath "$1")
dir=$2
beads=${3:-100000}
runs=${4:-3}
rm -rf "$dir"
mkdir -p "$dir/home/.ssh"
dir=$(realpath "$dir")
export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
git config --global user.name bench
git config --global user.email bench@example.com
git config --global maintenance.auto false
ssh-keygen -q -t ed25519 -N '' -C bench -f "$HOME/.ssh/id_ed25519"
echo "bench@example.com $(cat "$HOME/.ssh/id_ed25519.pub")" >"$HOME/.ssh/allowed_signers"
git config --global gpg.ssh.allowedSignersFile "$HOME/.ssh/allowed_signers"

git init -q --bare -b main "$dir/remote.git"
git init -q -b main "$dir/work"
cd "$dir/work"
git commit -q --allow-empty -m code
git remote add origin "$dir/remote.git"
git push -q origin main
git config gpg.format ssh
git config user.signingKey "$HOME/.ssh/id_ed25519"

python3 - "$beads" >"$dir/beads.jsonl" <<'EOF'
import json, sys
n = int(sys.argv[1])
words = "alpha beta gamma delta index table store merge clone fetch write read sync tree".split()
digits = "0123456789abcdefghijklmnopqrstuvwxyz"
def b36(i):
    s = ""
    for _ in range(7):
        s = digits[i % 36] + s
        i //= 36
    return s
ids = ["bd-" + b36(i * 7919 + 11) for i in range(n)]
for i, id in enumerate(ids):
    w = [words[(i * k * 31 + k) % len(words)] for k in range(1, 30)]
    rec = {
        "id": id,
        "title": "Bench %d: %s" % (i, " ".join(w[:4])),
        "description": " ".join(w),
        "status": (["open"] * 6 + ["in_progress", "blocked", "closed", "closed"])[i % 10],
        "priority": i % 5,
        "issue_type": ["task", "bug", "feature", "chore"][i % 4],
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": "2025-01-02T00:00:00Z",
    }
    if rec["status"] == "closed":
        rec["closed_at"] = "2025-01-03T00:00:00Z"
    if i % 3 == 0 and i > 10:
        rec["dependencies"] = [{"issue_id": id, "depends_on_id": ids[(i * 13) % i],
                                "type": "blocks", "created_at": "2025-01-01T00:00:00Z"}]
    print(json.dumps(rec))
EOF
"$bin" init --prefix bd -q >/dev/null
"$bin" import "$dir/beads.jsonl" >/dev/null
"$bin" ready --json >/dev/null
"$bin" sync >/dev/null
git -C "$dir/remote.git" rev-parse --verify -q refs/beads/index/files >/dev/null ||
  { echo "the sync published no index" >&2; exit 1; }

# Median of the numbers on stdin.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Runs a command, printing "ms peak-KiB".
timed() {
  local t0 t1
  t0=$EPOCHREALTIME
  /usr/bin/time -f %M -o "$dir/peak" "$@" >/dev/null 2>&1
  t1=$EPOCHREALTIME
  echo "$(echo "($t1 - $t0) * 1000" | bc) $(cat "$dir/peak")"
}

blobs=$(git ls-tree -r refs/beads/main | awk '$2 == "blob" {print $3}')
for _ in $(seq "$runs"); do
  t0=$EPOCHREALTIME
  echo "$blobs" | git cat-file --batch >/dev/null
  t1=$EPOCHREALTIME
  echo "($t1 - $t0) * 1000" | bc
done | median >"$dir/catfile"

# One fresh clone, synced; then its first `ready --json`, timed. With "untrusting",
# the clone trusts no key.
first_read() {
  rm -rf "$dir/clone"
  git clone -q "$dir/remote.git" "$dir/clone"
  cd "$dir/clone"
  if [ "$1" = untrusting ]; then git config gpg.ssh.allowedSignersFile /dev/null; fi
  "$bin" sync >/dev/null
  timed "$bin" ready --json
  cd "$dir"
}
for how in trusting untrusting; do
  for _ in $(seq "$runs"); do first_read "$how"; done >"$dir/$how"
done

# The store alone (its history, not the index or the code), packed as git gc packs it.
git init -q --bare "$dir/store.git"
git -C "$dir/store.git" fetch -q "$dir/remote.git" refs/beads/main:refs/beads/main
git -C "$dir/store.git" gc -q
packed=$(git -C "$dir/store.git" count-objects -v | awk '/size-pack/ {print $2 * 1024}')
index=$(git -C "$dir/remote.git" ls-tree -l refs/beads/index/files | awk '{s += $4} END {print s}')
mib() { echo "scale=1; $1 / 1048576" | bc; }
cat_ms=$(cat "$dir/catfile")
for how in trusting untrusting; do
  ms=$(awk '{print $1}' "$dir/$how" | median)
  kib=$(awk '{print $2}' "$dir/$how" | median)
  printf '%-10s first ready --json: %8.1f ms  %5.2fx cat-file  peak %s MiB\n' "$how" "$ms" \
    "$(echo "scale=3; $ms / $cat_ms" | bc)" "$(mib $((kib * 1024)))"
done
printf 'git cat-file --batch of every blob: %.1f ms (%s beads)\n' "$cat_ms" "$beads"
echo "travelling index: $(mib "$index") MiB (its two files); the store after git gc: $(mib "$packed") MiB"
