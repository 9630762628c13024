#!/usr/bin/env bash
# Issue 14's proof item: on a large file (the target-1 input of the
# performance benchmark, 530 MiB = 555,745,246 bytes by default), the check
# that a patch is already applied takes at most twice the time of applying
# it, and its heap does not grow with the file.
#
# Usage: benches/already_applied.sh [--runs N] [--no-massif] [BINARY] [MIB...]
#   --runs N     timed runs of each command, alternated (default 3); the best
#                of each is compared (the machine may be shared)
#   --no-massif  skip the heap measurement (valgrind massif, slow)
#   BINARY       default: $CARGO_TARGET_DIR or target, /release/git-fuzzy-apply
#   MIB          file sizes in mebibytes (default: 530); two sizes show
#                whether the heap grows with the file
# Needs about 2.2 times the size in free disk per size (the pristine copy,
# the file, and its new version while it is written). Inputs go to
# <target>/perf-inputs/already-applied/<MIB>/ and are reused.
#
# Prints, per size: the best (and every) wall time of applying the
# three-hunk patch and of running it again on the result (every hunk
# already applied, the file left as it is), their ratio against the goal
# of 2.0, the peak RSS of each (a mapped file's pages count there, they
# are not allocated), and the already-applied run's peak heap (massif:
# useful bytes plus allocator overhead). Exits 1 when a run fails, the
# result differs from the first run's, or the ratio is above 2.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/big-input.sh"
target=${CARGO_TARGET_DIR:-$here/../target}
runs=3
massif=1
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$2; shift 2 ;;
        --no-massif) massif=0; shift ;;
        *) break ;;
    esac
done
bin=${1:-$target/release/git-fuzzy-apply}
shift || true
sizes=${*:-530}
[ -x "$bin" ] || { echo "error: $bin missing (cargo build --release)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time missing (Debian package time)" >&2; exit 2; }
if [ "$massif" = 1 ] && ! command -v valgrind >/dev/null; then
    echo "note: valgrind not installed, no heap measured" >&2
    massif=0
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# One timed run in $repo: prints "seconds peak-RSS-KiB", fails on a non-zero exit.
timed() {
    local out
    out=$(cd "$repo" && /usr/bin/time -f '%e %M' "$bin" -q ../exact.patch 2>&1 >/dev/null) || {
        echo "error: run failed in $repo: $out" >&2
        return 1
    }
    echo "$out" | tail -1
}

best() { printf '%s\n' "$@" | sort -g | head -1; }

failed=0
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, binary $bin"
printf '%-7s %-34s %-34s %-6s %-17s %s\n' size "apply: best (all) s" "already applied: best (all) s" ratio "peak RSS (MiB)" "peak heap, already applied"
for mib in $sizes; do
    dir=$target/perf-inputs/already-applied/$mib
    big_input "$dir" "$mib"
    repo=$dir/repo
    apply=() again=() rss_apply=0 rss_again=0 want=""
    for ((i = 0; i < runs; i++)); do
        cp "$dir/pristine.txt" "$repo/big.txt"
        read -r t m < <(timed) || { failed=1; continue 2; }
        apply+=("$t"); rss_apply=$((m > rss_apply ? m : rss_apply))
        if [ -z "$want" ]; then
            # The applied file, once: every later run must give the same.
            want=$(sha1sum < "$repo/big.txt")
        fi
        read -r t m < <(timed) || { failed=1; continue 2; }
        again+=("$t"); rss_again=$((m > rss_again ? m : rss_again))
    done
    if [ "$(sha1sum < "$repo/big.txt")" != "$want" ]; then
        echo "error: the already-applied run changed $repo/big.txt" >&2
        failed=1
    fi
    a=$(best "${apply[@]}") b=$(best "${again[@]}")
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", (a > 0 ? b / a : 0)}')
    awk -v r="$ratio" 'BEGIN {exit !(r > 2)}' && failed=1
    heap="-"
    if [ "$massif" = 1 ]; then
        out=$dir/massif.out
        (cd "$repo" && valgrind -q --tool=massif --massif-out-file="$out" "$bin" -q ../exact.patch) ||
            { echo "error: the massif run failed" >&2; failed=1; }
        peak=$(awk -F= '/^mem_heap_B=/ {h = $2} /^mem_heap_extra_B=/ {t = h + $2; if (t > m) m = t} END {print m + 0}' "$out")
        heap=$(awk -v p="$peak" 'BEGIN {printf "%.2f MiB", p / 1048576}')
    fi
    printf '%-7s %-34s %-34s %-6s %-17s %s\n' "${mib}MiB" "$a (${apply[*]})" "$b (${again[*]})" "$ratio" \
        "$((rss_apply / 1024)) / $((rss_again / 1024))" "$heap"
done
exit $failed
