use super::super::test_util::*;
use crate::error::ParseError;
use crate::model::PatchFormat;

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
}

#[test]
fn basic_block_is_a_line_diff() {
    let text = format!(
        "src/a.py\n```python\n{}```\n",
        block(
            "def f():\n    return 1\n# end\n",
            "def f():\n    return 2\n# end\n"
        )
    );
    let p = parse(&text).unwrap();
    let f = &p.files[0];
    assert_eq!(
        (f.path.as_str(), f.format),
        ("src/a.py", PatchFormat::SearchReplace)
    );
    assert_eq!(
        show(&f.hunks[0]),
        [" def f():", "-    return 1", "+    return 2", " # end"]
    );
    assert_eq!(f.hunks[0].patch_line, 3);
    assert!(!f.create_if_missing);
}

#[test]
fn path_line_variants() {
    for head in [
        "**src/a.py**",
        "`src/a.py`",
        "## src/a.py",
        "File: src/a.py",
        "src/a.py:",
        "Path: `src/a.py`",
    ] {
        let text = format!("{head}\n```\n{}```\n", block("a\n", "b\n"));
        assert_eq!(parse(&text).unwrap().files[0].path, "src/a.py", "{head}");
    }
    let text = format!("**My Docs/notes file.md**\n{}", block("a\n", "b\n"));
    assert_eq!(parse(&text).unwrap().files[0].path, "My Docs/notes file.md");
    // A Windows absolute path is read as one (the tree refuses it).
    let text = format!("C:\\Users\\dev\\a.rb\n{}", block("a\n", "b\n"));
    assert_eq!(parse(&text).unwrap().files[0].path, "C:/Users/dev/a.rb");
    let text = format!("C:\\\n{}", block("a\n", "b\n"));
    assert!(parse(&text).is_err());
}

#[test]
fn sentence_is_not_a_path() {
    let text = format!(
        "Here is the change:\n```python\n{}```\n",
        block("a\n", "b\n")
    );
    assert_eq!(parse(&text), Err(ParseError::NoTargetPath { line: 3 }));
    assert_eq!(parse_target(&text, "t.py").unwrap().files[0].path, "t.py");
    // A target does not override a named file.
    let named = format!("x.py\n{}", block("a\n", "b\n"));
    assert_eq!(parse_target(&named, "t.py").unwrap().files[0].path, "x.py");
}

#[test]
fn path_reuse_and_grouping() {
    let text = format!(
        "a.py\n```python\n{}\n{}```\n\n```python\n{}```\nb.py\n{}\nNow some prose about c.py.\n\n{}",
        block("1\n", "2\n"),
        block("3\n", "4\n"),
        block("5\n", "6\n"),
        block("7\n", "8\n"),
        block("9\n", "10\n"),
    );
    assert_eq!(parse(&text), Err(ParseError::NoTargetPath { line: 32 }));
    let p = parse_target(&text, "t.py").unwrap();
    let files: Vec<_> = p
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.hunks.len()))
        .collect();
    assert_eq!(files, [("a.py", 3), ("b.py", 1), ("t.py", 1)]);
    // Prose that names no file: the block is the previous file's (Aider),
    // after `--target`.
    let quiet = format!(
        "a.py\n{}\nAnd the second one:\n\n{}",
        block("1\n", "2\n"),
        block("3\n", "4\n")
    );
    let p = parse(&quiet).unwrap();
    assert_eq!((p.files.len(), p.files[0].hunks.len()), (1, 2));
    assert_eq!(parse_target(&quiet, "t.py").unwrap().files[1].path, "t.py");
}

#[test]
fn paths_in_fences() {
    let fenced = format!(
        "```\nsrc/a.py\n```\n\n```python\n{}```\n",
        block("a\n", "b\n")
    );
    assert_eq!(parse(&fenced).unwrap().files[0].path, "src/a.py");
    let info = format!("```python:src/a.py\n{}```\n", block("a\n", "b\n"));
    assert_eq!(parse(&info).unwrap().files[0].path, "src/a.py");
    let tag = format!(
        "src/a.py\n<source>python\n{}</source>\n",
        block("a\n", "b\n")
    );
    assert_eq!(parse(&tag).unwrap().files[0].path, "src/a.py");
    let both = format!("src/b.py\n```python:src/a.py\n{}```\n", block("a\n", "b\n"));
    assert_eq!(malformed(parse(&both)).0, 2);
    // A fence holding more than a path names nothing.
    let code = format!("```\nx.py\nmore\n```\n{}", block("a\n", "b\n"));
    assert!(matches!(parse(&code), Err(ParseError::NoTargetPath { .. })));
    for word in ["Done", "Here", "Result"] {
        let text = format!("{word}\n```\n{}```\n", block("a\n", "b\n"));
        assert!(
            matches!(parse(&text), Err(ParseError::NoTargetPath { .. })),
            "{word}"
        );
    }
}

#[test]
fn cline_markers() {
    let text = "x.md\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n";
    assert_eq!(show(&parse(text).unwrap().files[0].hunks[0]), ["-a", "+b"]);
    let (_, msg) = malformed(parse("x.md\n------- SEARCH\na\n=======\nb\n"));
    assert!(msg.contains("has no `+++++++ REPLACE`"), "{msg}");
    let text = format!("x.md\n{}", block("\\+++++++ REPLACE\n", "+++++++\n"));
    assert_eq!(
        show(&parse(&text).unwrap().files[0].hunks[0]),
        ["-+++++++ REPLACE", "++++++++"]
    );
}

#[test]
fn elision_readings() {
    let p = parse(&format!("x.py\n{}", block("a\n...\nz\n", "A\n...\nz\n"))).unwrap();
    let e = p.files[0].hunks[0].elision.as_ref().unwrap();
    let pieces = e.pieces.as_ref().unwrap();
    assert_eq!(
        pieces.iter().map(show).collect::<Vec<_>>(),
        [vec!["-a", "+A"], vec![" z"]]
    );
    assert_eq!((pieces[0].patch_line, pieces[1].patch_line), (3, 5));
    let p = parse(&format!("x.py\n{}", block("a\n...\n", "A\n"))).unwrap();
    let e = p.files[0].hunks[0].elision.as_ref().unwrap();
    assert!(
        e.pieces
            .as_ref()
            .is_err_and(|m| m.contains("SEARCH holds 1"))
    );
    let p = parse(&format!("x.py\n{}", block("...\nz\n", "new\n...\nz\n"))).unwrap();
    let e = p.files[0].hunks[0].elision.as_ref().unwrap();
    assert!(
        e.pieces
            .as_ref()
            .is_err_and(|m| m.contains("no SEARCH text")),
        "{e:?}"
    );
    let p = parse(&format!("x.py\n{}", block("a\nb\n", "a\n# ... rest ...\n"))).unwrap();
    assert!(p.files[0].hunks[0].elision.as_ref().unwrap().replace_only);
    // A bare `...` added where nothing is removed is content.
    let p = parse(&format!(
        "x.py\n{}",
        block("def f():\n", "def f():\n    ...\n")
    ))
    .unwrap();
    assert!(p.files[0].hunks[0].elision.is_none());
}

#[test]
fn start_line_and_dashes() {
    let p =
        parse("x.rs\n<<<<<<< SEARCH\n:start_line:42\n-------\na\n=======\nb\n>>>>>>> REPLACE\n")
            .unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(h.line_hint, Some(42));
    assert_eq!(show(h), ["-a", "+b"]);
    // `:start_line:` wins over a stripped `N | ` prefix.
    let p = parse("x.rs\n<<<<<<< SEARCH\n:start_line:9\n12 | a\n=======\nb\n>>>>>>> REPLACE\n")
        .unwrap();
    assert_eq!(p.files[0].hunks[0].line_hint, Some(9));
    assert_eq!(show(&p.files[0].hunks[0]), ["-a", "+b"]);
    let (line, msg) = malformed(parse(
        "x.rs\n<<<<<<< SEARCH\n:start_line:abc\na\n=======\nb\n>>>>>>> REPLACE\n",
    ));
    assert_eq!(line, 3);
    assert!(msg.contains("abc"), "{msg}");
}

#[test]
fn markers_stand_at_the_block_edge() {
    // Indented deeper than the SEARCH line: content.
    let text = "x.py\n  <<<<<<< SEARCH\n  a\n    =======\n  =======\n  b\n  >>>>>>> REPLACE\n";
    assert_eq!(
        show(&parse(text).unwrap().files[0].hunks[0]),
        ["-  a", "-    =======", "+  b"]
    );
    // `:start_line:` and `-------` only right after the SEARCH line.
    let text = "x.rs\n<<<<<<< SEARCH\na\n:start_line:3\n-------\n=======\nb\n>>>>>>> REPLACE\n";
    assert_eq!(
        show(&parse(text).unwrap().files[0].hunks[0]),
        ["-a", "-:start_line:3", "--------", "+b"]
    );
    // Under `:start_line:` the dashes are Roo's separator even when
    // REPLACE starts with them.
    let text =
        "x.rs\n<<<<<<< SEARCH\n:start_line:1\n-------\na\n=======\n-------\na\n>>>>>>> REPLACE\n";
    assert_eq!(
        show(&parse(text).unwrap().files[0].hunks[0]),
        ["+-------", " a"]
    );
    let (line, msg) = malformed(parse(
        "x.rs\n<<<<<<< SEARCH\na\n=======\nb\n:end_line:4\n>>>>>>> REPLACE\n",
    ));
    assert_eq!(line, 6);
    assert!(msg.contains("inside the REPLACE section"), "{msg}");
}

#[test]
fn start_line_without_dashes_may_be_content() {
    // Roo writes `-------` after its line markers; without it the lines
    // as content are tried first.
    let p =
        parse("x.rs\n<<<<<<< SEARCH\n:start_line:5\nfoo\n=======\nbar\n>>>>>>> REPLACE\n").unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(
        (show(h), h.line_hint),
        (vec!["-foo".to_string(), "+bar".to_string()], Some(5))
    );
    let written = h.as_written.as_ref().map(|w| w.len());
    assert_eq!(written, Some(3), "{:?}", h.as_written);
    // Nothing left to find without them: they are content.
    let p = parse("x.rs\n<<<<<<< SEARCH\n:start_line:5\n=======\nbar\n>>>>>>> REPLACE\n").unwrap();
    assert!(!p.files[0].create_if_missing);
    assert_eq!(show(&p.files[0].hunks[0]), ["-:start_line:5", "+bar"]);
}

#[test]
fn blank_search_under_start_line_is_searched() {
    let p = parse("x.sh\n<<<<<<< SEARCH\n:start_line:1\n\n=======\n#!/bin/sh\n>>>>>>> REPLACE\n")
        .unwrap();
    assert!(!p.files[0].create_if_missing);
    assert_eq!(show(&p.files[0].hunks[0]), ["-", "+#!/bin/sh"]);
    let p = parse("x.sh\n<<<<<<< SEARCH\n\n=======\nend\n>>>>>>> REPLACE\n").unwrap();
    assert!(p.files[0].create_if_missing);
}

#[test]
fn marker_variants() {
    let text = "x.rs\n  <<<<< SEARCH>\na\n =========  \nb\n>>>>>>>>>REPLACE \n";
    assert_eq!(show(&parse(text).unwrap().files[0].hunks[0]), ["-a", "+b"]);
}

#[test]
fn a_missing_search_marker_is_read_only_from_a_fence_holding_the_block_alone() {
    let fenced = "x.py\n```python\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n";
    let p = parse(fenced).unwrap();
    assert_eq!(p.files[0].path, "x.py");
    assert_eq!(show(&p.files[0].hunks[0]), ["-a = 1", "+a = 2"]);
    for text in [
        // More than the block in the fence.
        "x.py\n```python\na = 1\n=======\na = 2\n>>>>>>> REPLACE\nmore\n```\n",
        // A blank SEARCH, no fence, no file.
        "x.py\n```python\n\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
        "x.py\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n",
        "Now:\n```python\na = 1\n=======\na = 2\n>>>>>>> REPLACE\n```\n",
    ] {
        let (_, msg) = malformed(parse(text));
        assert!(
            msg.contains("`<<<<<<< SEARCH` line is missing"),
            "{text:?}: {msg}"
        );
    }
}

#[test]
fn marker_order_errors() {
    let (line, msg) = malformed(parse("x.rs\n=======\nfoo\n>>>>>>> REPLACE\n"));
    assert_eq!(line, 2);
    assert!(msg.contains("before `<<<<<<< SEARCH`"), "{msg}");
    let (line, msg) = malformed(parse(
        "x.rs\n<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n",
    ));
    assert_eq!(line, 4);
    assert!(
        msg.contains("expected `=======` (block opened at line 2)"),
        "{msg}"
    );
    let (line, msg) = malformed(parse("x.rs\n<<<<<<< SEARCH\na\n=======\nb\n"));
    assert_eq!(line, 2);
    assert!(
        msg.contains("block opened at line 2 has no `>>>>>>> REPLACE`"),
        "{msg}"
    );
    let (line, _) = malformed(parse("text\n>>>>>>> REPLACE\n"));
    assert_eq!(line, 2);
    let (line, msg) = malformed(parse(
        "x.rs\n<<<<<<< SEARCH\na\n=======\n:start_line:3\nb\n>>>>>>> REPLACE\n",
    ));
    assert_eq!(line, 5);
    assert!(msg.contains(":start_line:"), "{msg}");
}

#[test]
fn stray_divider_without_replace_is_prose() {
    let text = format!("Title\n=======\n\nx.rs\n{}", block("a\n", "b\n"));
    assert_eq!(parse(&text).unwrap().files.len(), 1);
}

#[test]
fn escaped_markers_are_content() {
    let p = parse(&format!(
        "x.txt\n{}",
        block(
            "\\<<<<<<< HEAD\n\\=======\n",
            "  \\>>>>>>> theirs\n\\-------\n\\:start_line:1\n"
        )
    ))
    .unwrap();
    assert_eq!(
        show(&p.files[0].hunks[0]),
        [
            "-<<<<<<< HEAD",
            "-=======",
            "+  >>>>>>> theirs",
            "+-------",
            "+:start_line:1"
        ]
    );
}

#[test]
fn fences_inside_sections_are_content() {
    let p = parse(&format!(
        "README.md\n````\n{}````\n",
        block("```sh\nmake\n```\n", "```sh\nmake all\n```\n")
    ))
    .unwrap();
    assert_eq!(
        show(&p.files[0].hunks[0]),
        [" ```sh", "-make", "+make all", " ```"]
    );
}

#[test]
fn a_removed_blank_line_slides_next_to_the_other_removal() {
    let text = block("a\nb\n\n\n\n", "a\n\n\n");
    let p = parse(&format!("x.py\n{text}")).unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), [" a", "-b", "-", " ", " "]);
}

#[test]
fn identical_and_empty_search() {
    let p = parse(&format!("x.rs\n{}", block("a\nb\n", "a\nb\n"))).unwrap();
    assert!(p.files[0].hunks[0].is_noop());
    let p = parse(&format!("new.rs\n{}", block("", "fn main() {}\n"))).unwrap();
    assert!(p.files[0].create_if_missing);
    assert_eq!(show(&p.files[0].hunks[0]), ["+fn main() {}"]);
    let (line, _) = malformed(parse(&format!("x.rs\n{}", block("", ""))));
    assert_eq!(line, 2);
}

#[test]
fn numbered_sections_are_stripped() {
    let p = parse(&format!(
        "x.rs\n{}",
        block(
            "10 | fn a() {\n11 |     1\n12 | }\n",
            "10 | fn a() {\n11 |     2\n12 | }\n"
        )
    ))
    .unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(show(h), [" fn a() {", "-    1", "+    2", " }"]);
    assert_eq!(h.line_hint, Some(10));
    // Not consecutive: YAML content survives.
    let p = parse(&format!(
        "c.yaml\n{}",
        block("10: a\n20: b\n", "10: a\n20: c\n")
    ))
    .unwrap();
    assert_eq!(show(&p.files[0].hunks[0]), [" 10: a", "-20: b", "+20: c"]);
    assert_eq!(p.files[0].hunks[0].line_hint, None);
}
