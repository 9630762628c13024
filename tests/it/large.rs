//! Files above the dense-key limit take the prefilter path: the same tiers
//! and the same safety rules must hold there.

use git_fuzzy_apply::{ApplyOptions, TextApplyError, apply_to_text};

const LINES: usize = 250_000;

fn big_file() -> Vec<String> {
    (0..LINES)
        .map(|i| match i % 7 {
            0 => format!("fn handler_{i}(request: Request) -> Response {{"),
            1..=5 => format!("    let value_{i} = compute(\"item {i}\", {i});"),
            _ => "}".to_string(),
        })
        .collect()
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn apply(patch: &str, file: &str) -> Result<String, TextApplyError> {
    apply_to_text(patch.as_bytes(), file.as_bytes(), &ApplyOptions::default())
        .map(|b| String::from_utf8(b).expect("utf-8"))
}

#[test]
fn drifted_whitespace_and_case_apply_in_a_large_file() {
    let lines = big_file();
    let file = join(&lines);
    let at = LINES - 300;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n-{}\n+    let changed = 1;\n {}\n",
        lines[at].to_uppercase().replace("    ", "\t"),
        lines[at + 1],
        lines[at + 2].replace("  ", "   ")
    );
    let mut want = lines.clone();
    want[at + 1] = "    let changed = 1;".to_string();
    assert_eq!(apply(&patch, &file).expect("applies"), join(&want));
}

#[test]
fn a_dropped_context_line_applies_in_a_large_file() {
    let lines = big_file();
    let file = join(&lines);
    let at = LINES - 1000;
    let patch = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n {}\n-{}\n+    let gone = 0;\n {}\n",
        lines[at],
        lines[at + 2],
        lines[at + 3],
        lines[at + 4]
    );
    let mut want = lines.clone();
    want[at + 3] = "    let gone = 0;".to_string();
    assert_eq!(apply(&patch, &file).expect("applies"), join(&want));
}

#[test]
fn duplicates_stay_ambiguous_and_stale_stays_refused_in_a_large_file() {
    let mut lines = big_file();
    lines.extend([
        "// twin".to_string(),
        "twin_a();".to_string(),
        "twin_b();".to_string(),
    ]);
    lines.splice(
        10..10,
        [
            "// twin".to_string(),
            "twin_a();".to_string(),
            "twin_b();".to_string(),
        ],
    );
    let file = join(&lines);
    let patch = "--- a/f.rs\n+++ b/f.rs\n@@\n // twin\n-twin_a();\n+twin_c();\n twin_b();\n";
    match apply(patch, &file) {
        Err(TextApplyError::Hunk { code, .. }) => assert_eq!(code, "ambiguous"),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    let at = LINES / 2;
    let stale = format!(
        "--- a/f.rs\n+++ b/f.rs\n@@\n {}\n-    let value_{} = compute(\"something else\", 0);\n+    x();\n {}\n",
        lines[at],
        at + 1,
        lines[at + 2]
    );
    match apply(&stale, &file) {
        Err(TextApplyError::Hunk { code, .. }) => assert_eq!(code, "stale_removed_line"),
        other => panic!("expected a stale refusal, got {other:?}"),
    }
}

/// Added files are written line by line from the patch text they share:
/// their bytes must be exactly those of the patch, final newline or not,
/// in a plain folder and in a git repository (where `.gitattributes` may
/// convert line ends; here it does for one file).
#[test]
fn added_files_are_written_from_the_shared_patch_text() {
    use git_fuzzy_apply::{Invocation, NoProgress, PatchText, run_patch_text};
    let body: String = (0..2_000).map(|i| format!("+line {i}\n")).collect();
    let patch = format!(
        "--- /dev/null\n+++ b/plain.txt\n@@ -0,0 +1,2000 @@\n{body}\
         --- /dev/null\n+++ b/open.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n\
         --- /dev/null\n+++ b/blank.txt\n@@ -0,0 +1 @@\n+\n\\ No newline at end of file\n\
         --- /dev/null\n+++ b/dos.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    );
    let plain: String = (0..2_000).map(|i| format!("line {i}\n")).collect();
    for git in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        if git {
            let ok = std::process::Command::new("git")
                .args(["init", "-q"])
                .current_dir(dir.path())
                .status()
                .unwrap()
                .success();
            assert!(ok);
            std::fs::write(dir.path().join(".gitattributes"), "dos.txt eol=crlf\n").unwrap();
        }
        let text = PatchText::from(patch.clone().into_bytes());
        let outcome =
            run_patch_text(dir.path(), &text, &Invocation::default(), &NoProgress).expect("runs");
        assert!(outcome.written, "git: {git}");
        let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
        assert_eq!(read("plain.txt"), plain.as_bytes());
        assert_eq!(read("open.txt"), b"x\ny");
        assert_eq!(read("blank.txt"), b"");
        let dos: &[u8] = if git { b"a\r\nb\r\n" } else { b"a\nb\n" };
        assert_eq!(read("dos.txt"), dos, "git: {git}");
    }
}
