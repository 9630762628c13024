//! Unit tests of the unified-diff parser.

use super::super::test_util::*;
use super::super::{ParseOptions, parse_patch};
use crate::error::ParseError;
use crate::model::{FileOp, PatchFormat};

const GIT: &str = "diff --git a/src/lib.rs b/src/lib.rs\nindex 83db48f..bf269f4 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -10,3 +10,3 @@ fn main() {\n fn a() {}\n-fn b() {}\n+fn c() {}\n fn d() {}\n";

#[test]
fn git_diff_numbered_hunk() {
    let p = parse(GIT).unwrap();
    let f = &p.files[0];
    assert_eq!(f.path, "src/lib.rs");
    assert_eq!(f.op, FileOp::Update);
    assert_eq!(f.format, PatchFormat::UnifiedDiff);
    assert_eq!(f.patch_line, 1);
    let h = &f.hunks[0];
    assert_eq!(h.line_hint, Some(10));
    assert_eq!(h.patch_line, 5);
    assert_eq!(
        show(h),
        [" fn a() {}", "-fn b() {}", "+fn c() {}", " fn d() {}"]
    );
}

#[test]
fn plain_headers_with_timestamps() {
    let p = parse(
        "--- a/x.txt\t2024-01-01 10:00:00\n+++ b/x.txt\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\n",
    )
    .unwrap();
    assert_eq!(p.files[0].path, "x.txt");
}

#[test]
fn dev_null_means_add_or_delete() {
    let p = parse("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n").unwrap();
    assert_eq!(p.files[0].op, FileOp::Add);
    assert_eq!(p.files[0].path, "new.txt");
    assert_eq!(p.files[0].hunks[0].line_hint, Some(0));
    assert_eq!(show(&p.files[0].hunks[0]), ["+one", "+two"]);
    assert_eq!(p.files[1].op, FileOp::Delete);
    assert_eq!(p.files[1].path, "old.txt");
}

#[test]
fn git_extended_headers() {
    let text = "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..e69de29\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo hi\ndiff --git a/dead.rs b/dead.rs\ndeleted file mode 100644\ndiff --git a/old name.rs b/new.rs\nsimilarity index 100%\nrename from old name.rs\nrename to new.rs\n";
    let p = parse(text).unwrap();
    assert_eq!(p.files.len(), 3);
    assert_eq!(
        (p.files[0].op, p.files[0].new_mode),
        (FileOp::Add, Some(0o100755))
    );
    assert_eq!(
        (p.files[1].op, p.files[1].path.as_str()),
        (FileOp::Delete, "dead.rs")
    );
    assert!(p.files[1].hunks.is_empty());
    assert_eq!(p.files[2].path, "old name.rs");
    assert_eq!(p.files[2].move_to.as_deref(), Some("new.rs"));
    assert_eq!(p.files[2].format, PatchFormat::UnifiedDiff);
}

#[test]
fn c_quoted_paths_are_decoded_as_git_does() {
    let text = "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"\n--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(parse(text).unwrap().files[0].path, "café.txt");
    for (quoted, plain) in [
        (r#""a/x\\y.txt""#, "x\\y.txt"),
        (r#""a/tab\there""#, "tab\there"),
        (r#""a/say \"hi\"""#, "say \"hi\""),
        (r#""a/new\nline""#, "new\nline"),
    ] {
        let b = quoted.replacen("a/", "b/", 1);
        let text = format!("diff --git {quoted} {b}\n--- {quoted}\n+++ {b}\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(parse(&text).unwrap().files[0].path, plain, "{quoted}");
    }
    // Renames quote their paths too.
    let text = "diff --git \"a/\\303\\251\" b/e\nsimilarity index 100%\nrename from \"\\303\\251\"\nrename to e\n";
    let f = &parse(text).unwrap().files[0];
    assert_eq!((f.path.as_str(), f.move_to.as_deref()), ("é", Some("e")));
}

#[test]
fn dot_dot_is_resolved_after_the_prefix_goes() {
    let p = parse("--- a/src/../main.rs\n+++ b/src/../main.rs\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
    assert_eq!(p.files[0].path, "main.rs");
    let p = parse("--- a/src/../../x\n+++ b/src/../../x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
    assert_eq!(p.files[0].path, "../x");
}

#[test]
fn copies_add_the_copy_and_name_the_source() {
    let text = "diff --git a/a.txt b/b.txt\nsimilarity index 90%\ncopy from a.txt\ncopy to b.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/a.txt b/c.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to c.txt\n";
    let p = parse(text).unwrap();
    let got: Vec<_> = p
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.op, f.copy_from.as_deref(), f.hunks.len()))
        .collect();
    assert_eq!(
        got,
        [
            ("b.txt", FileOp::Add, Some("a.txt"), 1),
            ("c.txt", FileOp::Add, Some("a.txt"), 0)
        ]
    );
}

#[test]
fn binary_files_differ_is_refused() {
    let (line, msg) = malformed(parse(
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
    ));
    assert_eq!(line, 3);
    assert!(
        msg.contains("regenerate it with `git diff --binary`"),
        "{msg}"
    );
}

#[test]
fn strip_components() {
    let text = "--- x/y/src/a.rs\n+++ x/y/src/a.rs\n@@ -1 +1 @@\n-a\n+b\n";
    let opts = |n| ParseOptions {
        strip: Some(n),
        ..ParseOptions::default()
    };
    let p = parse_patch(text.as_bytes(), &opts(2)).unwrap();
    assert_eq!(p.files[0].path, "src/a.rs");
    let p = parse_patch(text.as_bytes(), &opts(0)).unwrap();
    assert_eq!(p.files[0].path, "x/y/src/a.rs");
    let (line, msg) = malformed(parse_patch(text.as_bytes(), &opts(4)));
    assert_eq!(line, 1);
    assert!(msg.contains("-p4"), "{msg}");
    // Without -p only a/ and b/ go.
    assert_eq!(parse(text).unwrap().files[0].path, "x/y/src/a.rs");
}

#[test]
fn header_without_hunk_is_malformed() {
    let (line, _) = malformed(parse("--- a/f\n+++ b/f\nThat's all.\n"));
    assert_eq!(line, 1);
}

#[test]
fn several_files_and_hunks() {
    let p = parse("--- a/a\n+++ b/a\n@@ -1 +1 @@\n-1\n+2\n@@ -9 +9 @@\n-3\n+4\n--- a/b\n+++ b/b\n@@ -2,0 +3 @@\n+new\n").unwrap();
    assert_eq!(p.files.len(), 2);
    assert_eq!(p.files[0].hunks.len(), 2);
    assert_eq!(p.files[0].hunks[1].line_hint, Some(9));
    assert_eq!(p.files[1].hunks[0].line_hint, Some(2));
}

#[test]
fn filename_headers_and_numberless_hunks() {
    let p = parse("--- filename: src/x.py\n+++ filename: src/x.py\n@@ ... @@\n-a\n+b\n@@ @@\n c\n-d\n@@\n-e\n").unwrap();
    let f = &p.files[0];
    assert_eq!(f.path, "src/x.py");
    assert_eq!(f.format, PatchFormat::NumberlessDiff);
    assert_eq!(f.hunks.len(), 3);
    assert!(f.hunks.iter().all(|h| h.line_hint.is_none()));
    // Text after the second @@ is ignored.
    let p = parse("--- a/y\n+++ b/y\n@@ class Foo: @@ def bar\n-a\n+b\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+b"]);
}

#[test]
fn removed_and_added_lines_that_look_like_file_headers_open_a_numberless_hunk() {
    // `-- sql comment` removed and `++ x` added, written as the first
    // lines of a numberless hunk: an empty hunk is never meant.
    let p = parse("--- a/q.sql\n+++ b/q.sql\n@@\n--- sql comment\n+++ x\n a\n").unwrap();
    assert_eq!(p.files.len(), 1);
    assert_eq!(
        show(&p.files[0].hunks[0]),
        ["--- sql comment", "+++ x", " a"]
    );
    // A header pair followed by a hunk still starts the next file.
    let p = parse("--- a/x\n+++ b/x\n@@\n-a\n+b\n--- a/y\n+++ b/y\n@@\n-c\n").unwrap();
    assert_eq!(p.files.len(), 2);
}

#[test]
fn headers_that_lost_a_character_are_headers_only_before_a_hunk() {
    let p = parse("-- a/src/x.py\n++ b/src/x.py\n@@\n-a\n+b\n").unwrap();
    assert_eq!(p.files[0].path, "src/x.py");
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+b"]);
    // One line short is enough.
    let p = parse("--- a/x.py\n++ b/x.py\n@@ @@\n-a\n+b\n").unwrap();
    assert_eq!(p.files[0].path, "x.py");
    // Two files, a mail signature, a comment, or no hunk after: not a header.
    for text in [
        "-- a/x.py\n++ b/y.py\n@@\n-a\n+b\n",
        "-- \n++ x.py\n@@\n-a\n+b\n",
        "-- drop the index\n++ drop the index\n@@\n-a\n+b\n",
        "-- a/x.py\n++ b/x.py\n-a\n+b\n",
    ] {
        assert!(
            matches!(
                parse(text),
                Err(ParseError::NoTargetPath { .. } | ParseError::NoEdits)
            ),
            "{text:?}: {:?}",
            parse(text)
        );
    }
    // Inside a hunk body the pair is a removed and an added line.
    let p = parse("--- a/n.md\n+++ b/n.md\n@@\n x\n-- a/y.py\n++ b/y.py\n@@\n-c\n+d\n").unwrap();
    assert_eq!(p.files.len(), 1);
    assert_eq!(show(&p.files[0].hunks[0]), [" x", "-- a/y.py", "++ b/y.py"]);
}

#[test]
fn headerless_hunk_paths() {
    let text = "Change this:\n\n**src/foo.rs**\n```diff\n@@\n-a\n+b\n```\n";
    assert_eq!(parse(text).unwrap().files[0].path, "src/foo.rs");
    assert_eq!(parse_target(text, "t.rs").unwrap().files[0].path, "t.rs");
    for head in [
        "src/foo.rs",
        "`src/foo.rs`",
        "File: src/foo.rs",
        "# src/foo.rs",
    ] {
        let t = format!("{head}\n@@ @@\n-a\n+b\n");
        assert_eq!(parse(&t).unwrap().files[0].path, "src/foo.rs", "{head}");
    }
    assert_eq!(
        parse("Here is the fix:\n```diff\n@@\n-a\n+b\n```\n"),
        Err(ParseError::NoTargetPath { line: 3 })
    );
}

#[test]
fn target_does_not_override_headers_and_prose_at_signs_are_prose() {
    let text = "--- a/real.rs\n+++ b/real.rs\n@@\n-a\n+b\n";
    assert_eq!(parse_target(text, "t.rs").unwrap().files[0].path, "real.rs");
    assert_eq!(
        parse("@@ marks a decorator in some languages.\n"),
        Err(ParseError::NoEdits)
    );
}
