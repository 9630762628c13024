#!/usr/bin/env bash
# Memory of a large patch read from stdin: a patch of MB megabytes that
# creates files of 800 lines (the shape of vendored or generated code) and
# edits one existing file, applied to a fresh git repository. Prints the
# patch size, the peak resident set (`/usr/bin/time -f %M`) of
# git-fuzzy-apply and, as the baseline, of `git apply` on the same patch,
# and with `--massif` the peak heap (valgrind massif), each also as a
# multiple of the patch. The two trees are compared: they must be the same.
#
# Usage: benches/big-patch.sh [--massif] [BINARY] [MB...]
#   BINARY  default: $CARGO_TARGET_DIR or target, /release/git-fuzzy-apply
#   MB      patch sizes in megabytes (default: 100)
# Inputs go to <target>/perf-inputs/big-patch/<MB>/.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
massif=0
if [ "${1:-}" = --massif ]; then massif=1; shift; fi
target=${CARGO_TARGET_DIR:-$here/../target}
bin=${1:-$target/release/git-fuzzy-apply}
shift || true
sizes=${*:-100}
[ -x "$bin" ] || { echo "error: $bin missing (cargo build --release)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time missing (Debian package time)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# make_patch DIR MB: DIR/patch creates files until it holds MB megabytes.
make_patch() {
    local dir=$1 mb=$2
    [ -s "$dir/patch" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "v1 $mb" ] && return
    mkdir -p "$dir"
    awk -v limit=$((mb * 1000000)) 'BEGIN {
        printf "diff --git a/kept.txt b/kept.txt\n--- a/kept.txt\n+++ b/kept.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
        size = 0;
        for (f = 0; size < limit; f++) {
            head = sprintf("diff --git a/gen/m%05d.rs b/gen/m%05d.rs\nnew file mode 100644\n--- /dev/null\n+++ b/gen/m%05d.rs\n@@ -0,0 +1,800 @@\n", f, f, f);
            printf "%s", head; size += length(head);
            for (l = 0; l < 800; l++) {
                line = sprintf("+    let value_%05d_%03d = compute(\"item %d\", %d); // generated\n", f, l, l, f);
                printf "%s", line; size += length(line);
            }
        }
    }' > "$dir/patch"
    echo "v1 $mb" > "$dir/stamp"
}

printf '%-8s %-10s %-16s %-18s %-16s %s\n' patch bytes peak-rss git-apply-rss peak-heap exit
for mb in $sizes; do
    dir=$target/perf-inputs/big-patch/$mb
    make_patch "$dir" "$mb"
    bytes=$(stat -c %s "$dir/patch")
    ratio() { awk -v p="$1" -v b="$bytes" 'BEGIN {printf "%.2f", p / b}'; }
    fresh() {
        rm -rf "$dir/repo" && mkdir -p "$dir/repo" && cd "$dir/repo" &&
            git init -q && printf 'one\ntwo\nthree\n' > kept.txt
    }
    fresh
    status=0
    rss=$( { /usr/bin/time -f %M "$bin" -q < "$dir/patch" 2>&1 >/dev/null || status=$?; } | tail -1)
    rss=$((rss * 1024))
    mv "$dir/repo" "$dir/ours"
    fresh
    git_rss=$( { /usr/bin/time -f %M git apply < "$dir/patch" 2>&1 >/dev/null; } | tail -1)
    git_rss=$((git_rss * 1024))
    diff -r -x .git "$dir/ours" "$dir/repo" >/dev/null || { echo "error: the trees differ" >&2; status=3; }
    rm -rf "$dir/ours"
    heap=-
    if [ $massif = 1 ]; then
        command -v valgrind >/dev/null || { echo "error: valgrind not installed" >&2; exit 2; }
        fresh
        valgrind -q --tool=massif --massif-out-file="$dir/massif.out" "$bin" -q < "$dir/patch" || status=$?
        peak=$(awk -F= '/^mem_heap_B=/ {h = $2} /^mem_heap_extra_B=/ {t = h + $2; if (t > m) m = t} END {print m + 0}' "$dir/massif.out")
        heap="$((peak / 1048576)) MiB ($(ratio "$peak")x)"
    fi
    printf '%-8s %-10s %-16s %-18s %-16s %s\n' "${mb}MB" "$bytes" \
        "$((rss / 1048576)) MiB ($(ratio "$rss")x)" \
        "$((git_rss / 1048576)) MiB ($(ratio "$git_rss")x)" "$heap" "$status"
done
