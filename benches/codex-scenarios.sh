#!/usr/bin/env bash
# Conformance check against the apply-patch scenario fixtures of OpenAI Codex.
#
# Usage: benches/codex-scenarios.sh SCENARIOS_DIR [BINARY]
#
#   SCENARIOS_DIR  an exported copy of codex-rs/apply-patch/tests/fixtures/scenarios
#                  (see docs/codex-compat.md; never commit it into this repository)
#   BINARY         git-fuzzy-apply to test (default: target/release/git-fuzzy-apply)
#
# Each scenario folder holds `input/` (optional: the starting tree), `patch.txt`
# and `expected/` (the tree Codex leaves behind). Codex's own runner ignores the
# exit status and compares the final trees, files and directories, byte for
# byte; this script does the same and additionally uses our exit status to name
# the kind of disagreement:
#
#   match                     our final tree equals the expected one
#   we refuse, codex applies  we exited non-zero, Codex changed the tree
#   we apply, codex refuses   we exited 0 and changed the tree, Codex left it as it was
#   differs                   both changed the tree, differently (or any other case)
#
# Set VERBOSE=1 to print our stderr and a diff of the trees for every mismatch.
# Exit status: 0 when every scenario matches, 1 otherwise, 2 on usage errors.

set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 SCENARIOS_DIR [BINARY]" >&2
    exit 2
fi

scenarios=$1
bin=${2:-target/release/git-fuzzy-apply}

if [ ! -d "$scenarios" ]; then
    echo "error: $scenarios is not a directory" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then
    echo "error: $bin is not an executable (build with cargo build --release)" >&2
    exit 2
fi
scenarios=$(cd "$scenarios" && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

work=$(mktemp -d "${TMPDIR:-/tmp}/codex-scenarios.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Print a canonical listing of a tree: one line per directory ("d path") and
# per file ("f path sha256"), sorted; an absent tree lists as empty.
snapshot() {
    local root=$1
    [ -d "$root" ] || return 0
    (
        cd "$root" || exit 1
        find . -mindepth 1 \( -type d -printf 'd %P\n' \) -o \
            \( -type f -printf '%P\n' \) |
            while IFS= read -r entry; do
                case $entry in
                    "d "*) printf '%s\n' "$entry" ;;
                    *) printf 'f %s %s\n' "$entry" "$(sha256sum <"$entry" | cut -d' ' -f1)" ;;
                esac
            done | LC_ALL=C sort
    )
}

total=0
matched=0
differs=0
we_refuse=0
we_apply=0

for dir in "$scenarios"/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/patch.txt" ] || continue
    total=$((total + 1))

    run="$work/$name"
    mkdir -p "$run"
    if [ -d "$dir/input" ]; then
        cp -a "$dir/input/." "$run/"
    fi

    input_snap=$(snapshot "$dir/input")
    expected_snap=$(snapshot "$dir/expected")

    (cd "$run" && "$bin" "$dir/patch.txt") >"$work/$name.out" 2>"$work/$name.err"
    status=$?

    actual_snap=$(snapshot "$run")

    if [ "$actual_snap" == "$expected_snap" ]; then
        verdict="match"
        matched=$((matched + 1))
    elif [ "$status" -ne 0 ] && [ "$expected_snap" != "$input_snap" ]; then
        verdict="we refuse, codex applies"
        we_refuse=$((we_refuse + 1))
    elif [ "$status" -eq 0 ] && [ "$expected_snap" == "$input_snap" ]; then
        verdict="we apply, codex refuses"
        we_apply=$((we_apply + 1))
    else
        verdict="differs"
        differs=$((differs + 1))
    fi

    if [ "$expected_snap" == "$input_snap" ]; then
        codex="codex: no change"
    else
        codex="codex: changes"
    fi
    printf '%-50s %-26s (exit %d, %s)\n' "$name" "$verdict" "$status" "$codex"

    if [ "${VERBOSE:-0}" = 1 ] && [ "$verdict" != match ]; then
        sed 's/^/    stderr: /' "$work/$name.err"
        diff -r "$dir/expected" "$run" 2>&1 | sed 's/^/    /'
    fi
done

echo "summary: $total scenarios, $matched match, $differs differ," \
    "$we_refuse we refuse where codex applies, $we_apply we apply where codex refuses"

[ "$matched" -eq "$total" ]
