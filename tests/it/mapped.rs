//! Files large enough to be memory-mapped (at least 4 MiB) take the sparse
//! line index and the shared prefilter searches, end to end through the
//! binary: the same tiers, the same safety rules, byte-exact output.

use std::fs;
use std::path::Path;

use crate::support;
use support::run_bin;

/// About 11 MiB: well above the mapping threshold and the dense-key limit.
const LINES: usize = 260_000;

fn line(i: usize) -> String {
    match i % 7 {
        0 => format!("fn handler_{i}(request: Request) -> Response {{"),
        1..=5 => format!("    let value_{i} = compute(\"item {i}\", {i});"),
        _ => "}".to_string(),
    }
}

fn lines() -> Vec<String> {
    (0..LINES).map(line).collect()
}

fn join(lines: &[String], eol: &str) -> String {
    lines.iter().map(|l| format!("{l}{eol}")).collect()
}

/// Writes `f.rs` and the patch into a fresh directory, runs the binary on
/// the patch and returns the directory, the exit code and the stdout+stderr.
fn run(file: &[u8], patch: &str) -> (tempfile::TempDir, i32, String) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.rs"), file).unwrap();
    let out = run_bin(dir.path(), &["-v", "-"], Some(patch.as_bytes()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, out.status.code().unwrap_or(-1), text)
}

fn read(dir: &Path) -> Vec<u8> {
    fs::read(dir.join("f.rs")).unwrap()
}

#[test]
fn exact_and_drifted_hunks_apply_near_the_start_and_the_end() {
    let mut lines = lines();
    let near = 9;
    let far = LINES - 500;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@ -{},3 +{},3 @@\n {}\n-{}\n+    let first = 1;\n {}\n@@\n {}\n-{}\n+    let last = 2;\n {}\n",
        near,
        near,
        lines[near - 1],
        lines[near],
        lines[near + 1],
        // Case and whitespace drift: only the lenient tiers place this hunk.
        lines[far].to_uppercase().replace("    ", "\t"),
        lines[far + 1],
        lines[far + 2].replace(" = ", "  =  ") + "  "
    );
    let before = join(&lines, "\n");
    let (dir, code, out) = run(before.as_bytes(), &patch);
    assert_eq!(code, 0, "{out}");
    lines[near] = "    let first = 1;".into();
    lines[far + 1] = "    let last = 2;".into();
    assert_eq!(read(dir.path()), join(&lines, "\n").into_bytes());
    assert!(out.contains(&format!("L{}", far + 1)), "{out}");
}

#[test]
fn crlf_bom_and_a_last_line_without_newline_are_kept() {
    let lines = lines();
    let mut before = b"\xEF\xBB\xBF".to_vec();
    before.extend_from_slice(join(&lines, "\r\n").as_bytes());
    before.extend_from_slice(b"// end");
    let at = LINES / 2;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n+    let added = 3;\n {}\n",
        lines[at],
        lines[at + 1]
    );
    let (dir, code, out) = run(&before, &patch);
    assert_eq!(code, 0, "{out}");
    let mut want = lines.clone();
    want.insert(at + 1, "    let added = 3;".into());
    let mut expected = b"\xEF\xBB\xBF".to_vec();
    expected.extend_from_slice(join(&want, "\r\n").as_bytes());
    expected.extend_from_slice(b"// end");
    assert_eq!(read(dir.path()), expected);
}

#[test]
fn a_hunk_whose_lines_repeat_is_refused_and_the_file_kept() {
    let mut lines = lines();
    // The same three lines at two places far apart, and no line number.
    let block = ["fn twin() {", "    let twin = 1;", "}"];
    for start in [1_000, LINES - 1_000] {
        for (k, text) in block.iter().enumerate() {
            lines[start + k] = (*text).into();
        }
    }
    let before = join(&lines, "\n");
    let patch =
        "--- a/f.rs\n+++ b/f.rs\n@@\n fn twin() {\n-    let twin = 1;\n+    let twin = 2;\n }\n";
    let (dir, code, out) = run(before.as_bytes(), patch);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("ambiguous"), "{out}");
    assert!(
        out.contains(&format!("lines 1001, {}", LINES - 999)),
        "{out}"
    );
    assert_eq!(read(dir.path()), before.into_bytes());
}

#[test]
fn a_stale_removed_line_is_refused_in_a_mapped_file() {
    let lines = lines();
    let at = LINES - 2_000;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n-    let value_{} = compute(\"item\", 0);\n+    let x = 0;\n {}\n",
        lines[at],
        at + 1,
        lines[at + 2]
    );
    let before = join(&lines, "\n");
    let (dir, code, out) = run(before.as_bytes(), &patch);
    assert_eq!(code, 1, "{out}");
    assert_eq!(read(dir.path()), before.into_bytes());
}

#[test]
fn a_backtick_inside_a_line_does_not_hide_the_better_match() {
    // Fuzzy folding drops backticks: to the fuzzy tier `a_123`4567` is
    // `a_1234567`. The first block matches the hunk with its context exact;
    // the second only with case folded everywhere. A prefilter that searched
    // the file for `_1234567` would see only the second and edit it.
    let mut lines = lines();
    let blocks = [
        (1_000, ["FN ALPHA() {", "    let v = a_123`4567;", "}"]),
        (
            LINES - 1_000,
            ["fn alpha() {", "    LET V = A_1234567;", "}"],
        ),
    ];
    for (start, block) in blocks {
        for (k, text) in block.into_iter().enumerate() {
            lines[start + k] = text.to_string();
        }
    }
    let before = join(&lines, "\n");
    let patch =
        "--- a/f.rs\n+++ b/f.rs\n@@\n FN ALPHA() {\n-    let v = a_1234567;\n+    let v = 0;\n }\n";
    let (dir, code, out) = run(before.as_bytes(), patch);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("L1001-L1003"), "{out}");
    lines[1_001] = "    let v = 0;".to_string();
    assert_eq!(read(dir.path()), join(&lines, "\n").into_bytes());
}

#[test]
fn a_kelvin_sign_does_not_hide_a_fuzzy_match() {
    // U+212A KELVIN SIGN lower-cases to ASCII `k`: to the fuzzy tier both
    // lines read `ok_limit = 5`, though a case-insensitive search of the
    // raw bytes for `ok_limit` finds only the second. Both are as good: the
    // hunk is ambiguous, not the second's.
    let mut lines = lines();
    lines[2_000] = "o\u{212A}_limit = 5".to_string();
    lines[LINES - 2_000] = "ok_limit = 5".to_string();
    let before = join(&lines, "\n");
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@\n-OK_LIMIT = 5\n+OK_LIMIT = 6\n";
    let (dir, code, out) = run(before.as_bytes(), patch);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("ambiguous"), "{out}");
    assert_eq!(read(dir.path()), before.into_bytes());
}

#[test]
fn a_patch_line_with_a_backtick_is_found_by_the_exact_tier() {
    // The first search of a file chooses its needles before it knows that
    // the file holds characters fuzzy folding drops: here the run `_1234567`,
    // which the backtick splits in the raw line. Once the search has seen
    // the backtick, the needles are chosen again (the whole line), so the
    // exact tier still finds its line rather than leaving it to a lenient
    // tier.
    let mut lines = lines();
    lines[1_000] = "    let v = a_123`4567;".to_string();
    let before = join(&lines, "\n");
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@\n-    let v = a_123`4567;\n+    let v = 0;\n";
    let (dir, code, out) = run(before.as_bytes(), patch);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("L1001-L1001 via exact"), "{out}");
    lines[1_000] = "    let v = 0;".to_string();
    assert_eq!(read(dir.path()), join(&lines, "\n").into_bytes());
}

#[test]
fn with_index_a_mapped_file_is_staged_byte_for_byte_streamed_or_converted() {
    // The blob of a file the run wrote is streamed from it into the object
    // database when no filter converts it (`src/git/blob.rs`), and converted
    // in memory when one does (`text eol=crlf`): either way the index holds
    // exactly what `git add` of the written file would.
    use support::git;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut lines = lines();
    let before = join(&lines, "\n");
    fs::write(root.join("f.rs"), &before).unwrap();
    fs::write(root.join("g.txt"), join(&lines, "\r\n")).unwrap();
    fs::write(root.join(".gitattributes"), "*.txt text eol=crlf\n").unwrap();
    support::scene::commit_all(root, &[]);
    let far = LINES - 500;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n-{}\n+    let last = 2;\n {}\n\
         --- a/g.txt\n+++ b/g.txt\n@@\n {}\n-{}\n+    let last = 2;\n {}\n",
        lines[far - 1],
        lines[far],
        lines[far + 1],
        lines[far - 1],
        lines[far],
        lines[far + 1],
    );
    let out = run_bin(root, &["--index", "-"], Some(patch.as_bytes()));
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    lines[far] = "    let last = 2;".to_string();
    assert_eq!(read(root), join(&lines, "\n").into_bytes());
    assert_eq!(
        fs::read(root.join("g.txt")).unwrap(),
        join(&lines, "\r\n").into_bytes()
    );
    // Nothing unstaged, both staged, the blobs as git makes them.
    assert_eq!(git(root, &["diff", "--name-only"]), "");
    assert_eq!(
        git(root, &["diff", "--cached", "--name-only"]),
        "f.rs\ng.txt\n"
    );
    for (path, stored) in [("f.rs", "\n"), ("g.txt", "\n")] {
        let staged = git(root, &["rev-parse", &format!(":{path}")]);
        let hashed = git(root, &["hash-object", path]);
        assert_eq!(staged, hashed, "{path}");
        assert_eq!(
            git(root, &["cat-file", "-p", staged.trim()]),
            join(&lines, stored),
            "{path}"
        );
    }
    git(root, &["fsck", "--no-progress"]);
}
