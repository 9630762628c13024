#!/usr/bin/env bash
# Shared by heap.sh and callgrind.sh: generate the target-1 input of the
# performance benchmark at a chosen size, with awk (no build needed).
#
# Usage: big_input DIR MIB
#   DIR/repo/big.txt    MIB mebibytes of fixed-length, distinct, source-like lines
#                       (a fresh git repository, as in benches/perf.rs)
#   DIR/pristine.txt    a copy to restore big.txt from
#   DIR/exact.patch     a three-hunk unified diff at 97 %, 98 % and 99 % of the file
# Reuses DIR when it already holds that size.

big_input() {
    local dir=$1 mib=$2
    if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$mib" ]; then
        cp "$dir/pristine.txt" "$dir/repo/big.txt"
        return
    fi
    rm -rf "$dir"
    mkdir -p "$dir/repo"
    git -C "$dir/repo" init -q
    awk -v mib="$mib" -v out="$dir/pristine.txt" -v patch="$dir/exact.patch" '
        function line(i) {
            return sprintf("    let v%010d = %s_%02d(&input[%08d], 0x%08x);", i, w[i % 8], i % 97, (i * 7919) % 100000000, (i * 40503) % 65536)
        }
        BEGIN {
            split("parse merge apply index fetch store round align", ws, " ")
            for (k = 1; k <= 8; k++) w[k - 1] = ws[k]
            n = int(mib * 1048576 / (length(line(1)) + 1))
            for (i = 1; i <= n; i++) print line(i) > out
            h[0] = int(n * 97 / 100); h[1] = int(n * 98 / 100); h[2] = int(n * 99 / 100)
            print "--- a/big.txt\n+++ b/big.txt" > patch
            for (j = 0; j < 3; j++) {
                s = h[j] - 3
                printf "@@ -%d,7 +%d,8 @@\n", s, s + j > patch
                for (i = s; i < h[j]; i++) print " " line(i) > patch
                old = line(h[j])
                print "-" old > patch
                sub(/let /, "let mut ", old)
                print "+" old > patch
                printf "+    trace!(\"v%010d patched\");\n", h[j] > patch
                for (i = h[j] + 1; i <= h[j] + 3; i++) print " " line(i) > patch
            }
        }'
    cp "$dir/pristine.txt" "$dir/repo/big.txt"
    echo "$mib" > "$dir/stamp"
}
