#!/usr/bin/env bash
# Target 3 of the performance issue, outside criterion: 10,000 files of 40
# lines in 7,000 folders (one committed repository), one unified diff with
# one hunk per file. Times our release binary and `git apply` on fresh
# copies, alternating, and prints each wall, user and system time and the
# median ratio. The copy is synced before each run so that write-back of
# the copy is not charged to the command.
#
# Usage: benches/many-files.sh [RUNS] [BIN]   (defaults: 3, target/release/git-fuzzy-apply)
set -euo pipefail
runs=${1:-3}
bin=$(realpath "${2:-target/release/git-fuzzy-apply}")
work=${MANY_FILES_DIR:-${TMPDIR:-/tmp}/gfa-many-files}
if [ ! -f "$work/p.diff" ]; then
    rm -rf "$work" && mkdir -p "$work/base"
    python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
patch = []
for i in range(10000):
    rel = f"d{i // 10 % 1000:03d}/s{i % 7}/f{i}.rs"
    os.makedirs(os.path.dirname(f"{work}/base/{rel}"), exist_ok=True)
    lines = [f"// file {i} line {k}: some code here = {k * i}\n" for k in range(40)]
    with open(f"{work}/base/{rel}", "w") as f:
        f.write("".join(lines))
    patch.append(f"--- a/{rel}\n+++ b/{rel}\n@@ -19,3 +19,3 @@\n {lines[18]}-{lines[19]}+// changed {i}\n {lines[20]}")
with open(f"{work}/p.diff", "w") as f:
    f.write("".join(patch))
PY
    git -C "$work/base" init -q
    git -C "$work/base" add -A
    git -C "$work/base" -c user.name=bench -c user.email=bench@localhost commit -qm base
fi
one() { # LABEL CMD...
    rm -rf "$work/w" && cp -a "$work/base" "$work/w" && sync
    (cd "$work/w" && /usr/bin/time -f "$1 %e %U %S" "${@:2}" "$work/p.diff" >/dev/null) 2>&1 | tail -1
    test "$(git -C "$work/w" status --porcelain | wc -l)" = 10000
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tool wall_s user_s sys_s"
results=$(for _ in $(seq "$runs"); do one ours "$bin"; one git git apply; done)
echo "$results"
median() { echo "$results" | awk -v k="$1" '$1 == k { print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ours=$(median ours)
git=$(median git)
awk -v o="$ours" -v g="$git" 'BEGIN { printf "median: ours %.2f s, git apply %.2f s, ratio %.2f (goal <= 0.33)\n", o, g, o / g }'
