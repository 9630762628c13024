#!/usr/bin/env bash
# Instruction counts of git-fuzzy-apply's hot path: valgrind callgrind on the
# target-1 input (exact three-hunk diff near the end of a large file), then the
# top functions by self cost and by inclusive cost.
#
# Usage: benches/callgrind.sh [BINARY] [MIB]
#   BINARY  default: $CARGO_TARGET_DIR or target, /release/git-fuzzy-apply
#   MIB     file size in mebibytes (default 64)
# Keeps <target>/perf-inputs/valgrind/<MIB>/callgrind.out for kcachegrind.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/big-input.sh"
target=${CARGO_TARGET_DIR:-$here/../target}
bin=${1:-$target/release/git-fuzzy-apply}
mib=${2:-64}
[ -x "$bin" ] || { echo "error: $bin missing (cargo build --release)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
dir=$target/perf-inputs/valgrind/$mib
big_input "$dir" "$mib"
out=$dir/callgrind.out
status=0
(cd "$dir/repo" && valgrind -q --tool=callgrind --callgrind-out-file="$out" \
    "$bin" -q ../exact.patch) || status=$?
echo "exit status of the run: $status"
echo "== by self cost =="
callgrind_annotate "$out" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 25
echo "== by inclusive cost =="
callgrind_annotate --inclusive=yes "$out" 2>/dev/null | sed -n '/^Ir/,$p' | head -n 25
