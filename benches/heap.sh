#!/usr/bin/env bash
# Peak heap of git-fuzzy-apply on the target-1 input at two sizes, measured
# with valgrind massif (heap only: memory-mapped files are not heap). A heap
# independent of the file size shows as (nearly) equal peaks.
#
# Usage: benches/heap.sh [BINARY] [MIB...]
#   BINARY  default: $CARGO_TARGET_DIR or target, /release/git-fuzzy-apply
#   MIB     sizes in mebibytes (default: 64 256)
# Inputs go to <target>/perf-inputs/valgrind/; massif files beside them.
# Prints one line per size: size, peak heap (useful + allocator overhead),
# peak heap / file size, and the exit status of the run.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/big-input.sh"
target=${CARGO_TARGET_DIR:-$here/../target}
bin=${1:-$target/release/git-fuzzy-apply}
shift || true
sizes=${*:-64 256}
[ -x "$bin" ] || { echo "error: $bin missing (cargo build --release)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "error: valgrind not installed" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

printf '%-8s %-14s %-12s %s\n' size peak-heap heap/file exit
for mib in $sizes; do
    dir=$target/perf-inputs/valgrind/$mib
    big_input "$dir" "$mib"
    out=$dir/massif.out
    status=0
    (cd "$dir/repo" && valgrind -q --tool=massif --massif-out-file="$out" \
        "$bin" -q ../exact.patch) || status=$?
    peak=$(awk -F= '/^mem_heap_B=/ {h = $2} /^mem_heap_extra_B=/ {t = h + $2; if (t > m) m = t} END {print m + 0}' "$out")
    bytes=$(stat -c %s "$dir/pristine.txt")
    printf '%-8s %-14s %-12s %s\n' "${mib}MiB" "$((peak / 1048576)) MiB" \
        "$(awk -v p="$peak" -v b="$bytes" 'BEGIN {printf "%.2f", p / b}')" "$status"
done
