//! Unit tests of hunk headers and bodies.

use super::super::test_util::*;

#[test]
fn counts_do_not_delimit_the_body() {
    let p = parse("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n e\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), [" a", "-b", "+c", " d", " e"]);
}

#[test]
fn unmarked_line_within_counts_is_context() {
    let p = parse("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n+B\nc\n-d\n+D\n e\n").unwrap();
    assert_eq!(
        show(&p.files[0].hunks[0]),
        [" a", "-b", "+B", " c", "-d", "+D", " e"]
    );
    // So is one after a blank line (which lost its space too).
    let p = parse("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n\nc\n-d\n+D\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), [" a", " ", " c", "-d", "+D"]);
    // The last line completing the counts is context too.
    let p = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\nb\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+A", " b"]);
    // Counts used up: prose after the hunk ends it.
    let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\nThat is all.\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+A"]);
}

#[test]
fn unmarked_line_before_more_hunk_lines_is_an_error() {
    let (line, msg) = malformed(parse("--- a/f\n+++ b/f\n@@\n a\n-b\n+B\nc\n-d\n+D\n"));
    assert_eq!(line, 7);
    assert!(msg.contains("f: hunk 1 (patch line 3)"), "{msg}");
    // With counts used up the header says the hunk is complete: prose
    // and a list after it are prose.
    let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\nThis changes:\n- the flag\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+A"]);
    // A hunk header or a fence is no stray line.
    let p = parse("```diff\n--- a/f\n+++ b/f\n@@\n-a\n+A\n```\n- a list item\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+A"]);
}

#[test]
fn crlf_lines_among_lf_lines_keep_their_cr_only_for_whole_files() {
    // `git diff` of a CRLF file: headers end in LF, the body in CRLF.
    let edit = "--- a/f\n+++ b/f\n@@\n a\r\n\r\n-b\r\n+c\r\n";
    let p = parse(edit).unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), [" a", " ", "-b", "+c"]);
    let created = "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n";
    let p = parse(created).unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["+a\r", "+b\r"]);
    // A patch written with CRLF throughout: CRLF is its line end.
    let p = parse(&created.replace('\n', "\r\n").replace("\r\r", "\r")).unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["+a", "+b"]);
}

#[test]
fn format_patch_signature_is_not_a_removed_line() {
    let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+b"]);
    // Within the counts it is a removed line.
    let p = parse("--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-a\n-- \n+b\n").unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "-- ", "+b"]);
}

#[test]
fn no_newline_markers() {
    let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n").unwrap();
    let h = &p.files[0].hunks[0];
    assert!(h.old_missing_newline && !h.new_missing_newline);
    let p = parse("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n").unwrap();
    let h = &p.files[0].hunks[0];
    assert!(!h.old_missing_newline && h.new_missing_newline);
    let p = parse("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n")
        .unwrap();
    let h = &p.files[0].hunks[0];
    assert!(!h.old_missing_newline && !h.new_missing_newline);
}

#[test]
fn marker_after_context_that_one_side_follows_ends_the_other() {
    let marked = "--- a/f\n+++ b/f\n@@\n c\n\\ No newline at end of file\n";
    for (rest, old, new) in [
        ("+d\n", true, false),
        ("-d\n", false, true),
        ("-d\n+e\n", false, false),
    ] {
        let h = &parse(&format!("{marked}{rest}")).unwrap().files[0].hunks[0];
        assert_eq!(
            (h.old_missing_newline, h.new_missing_newline),
            (old, new),
            "{rest}"
        );
    }
}

#[test]
fn dashes_line_is_removed_unless_a_header_follows() {
    let p = parse("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1 @@\n--- old comment\n select 1;\n--- a/r.sql\n+++ b/r.sql\n@@ -1 +1 @@\n-x\n+y\n").unwrap();
    assert_eq!(p.files.len(), 2);
    assert_eq!(
        show(&p.files[0].hunks[0]),
        ["--- old comment", " select 1;"]
    );
    assert_eq!(p.files[1].path, "r.sql");
}

#[test]
fn empty_lines_inside_and_after_a_hunk() {
    let p = parse("```diff\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n\n\n@@ -10 +10 @@\n-x\n+y\n\n```\nDone.\n").unwrap();
    let f = &p.files[0];
    assert_eq!(f.hunks.len(), 2);
    assert_eq!(show(&f.hunks[0]), [" a", " ", "-b", "+c"]);
    assert_eq!(show(&f.hunks[1]), ["-x", "+y"]);
}

#[test]
fn empty_hunk_is_malformed() {
    let (line, msg) = malformed(parse(
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n@@ -5 +5 @@\n-a\n+b\n",
    ));
    assert_eq!(line, 3);
    assert!(msg.contains("no lines"), "{msg}");
}

#[test]
fn bad_hunk_header_is_malformed() {
    let (line, _) = malformed(parse("--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n+b\n"));
    assert_eq!(line, 3);
}

#[test]
fn numbered_view_prefixes_after_the_marker() {
    let p =
        parse("--- a/f\n+++ b/f\n@@ @@\n 41 | fn a() {\n-42 |     old();\n+    new();\n 43 | }\n")
            .unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(show(h), [" fn a() {", "-    old();", "+    new();", " }"]);
    assert_eq!(h.line_hint, Some(41));
}

#[test]
fn numbered_view_prefixes_before_the_marker() {
    let p = parse("--- a/f\n+++ b/f\n@@ -40,3 +40,3 @@\n41 |  fn a() {\n42 | -    old();\n42 | +    new();\n43 |  }\n").unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(show(h), [" fn a() {", "-    old();", "+    new();", " }"]);
    assert_eq!(h.line_hint, Some(40), "the header wins over the prefix");
    let p = parse("x.rs\n@@\n41 |  fn a() {\n42 | -    old();\n42 | +    new();\n").unwrap();
    assert_eq!(p.files[0].hunks[0].line_hint, Some(41));
    assert_eq!(
        show(&p.files[0].hunks[0]),
        [" fn a() {", "-    old();", "+    new();"]
    );
    let (line, _) = malformed(parse("--- a/f\n+++ b/f\n@@\n41 |  a\n47 | -b\n"));
    assert_eq!(line, 3);
}

#[test]
fn yaml_numbers_survive() {
    let p = parse("--- a/c.yaml\n+++ b/c.yaml\n@@ -1,2 +1,2 @@\n 10: foo\n-20: bar\n+20: baz\n")
        .unwrap();
    assert_eq!(
        show(&p.files[0].hunks[0]),
        [" 10: foo", "-20: bar", "+20: baz"]
    );
    assert_eq!(p.files[0].hunks[0].line_hint, Some(1));
}
