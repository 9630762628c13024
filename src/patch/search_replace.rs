//! SEARCH/REPLACE blocks (Aider, Roo-Code) and the Roo `<apply_diff>` XML envelope.
//!
//! A block is `<<<<<<< SEARCH`, optional `:start_line:N`, optional `-------`,
//! search lines, `=======`, replace lines, `>>>>>>> REPLACE`. Each block becomes
//! one hunk: a line diff of the search lines against the replace lines.

use super::cleanup::Src;
use super::elision;
use super::malformed;
use super::numbering::{strip_following, strip_numbered_after_first, strip_numbered_section};
use crate::error::ParseError;
use crate::model::{FileOp, FilePatch, Hunk, HunkLine, LineKind, PatchFormat};
use similar::{Algorithm, DiffOp, capture_diff_slices};

pub(crate) use super::sr_block::{
    Block, is_divider, is_replace, is_search, parse_block, parse_openerless, stray_divider_habit,
};

/// Turns a block into one hunk (line diff of search vs replace). Returns the
/// hunk and whether the search section was empty (create or append).
pub(crate) fn block_hunk(
    src: &Src,
    block: Block,
    default_hint: Option<usize>,
) -> Result<(Hunk, bool), ParseError> {
    let at = src.orig(block.open);
    let content = block.content_reading();
    let mut block = block;
    if let Some(lines) = content.clone().filter(|_| block.search.is_empty()) {
        // Nothing left to find once the line markers are taken out: they
        // are content.
        block.search = lines;
        block.start_line = None;
        block.end_line = None;
        block.at.0 = block.open + 1;
    }
    let (search_at, replace_at) = block.at;
    let (raw_search, raw_replace) = (block.search.clone(), block.replace.clone());
    let Unnumbered {
        search,
        replace,
        hint,
    } = unnumbered(block.search, block.replace, block.start_line);
    let stripped = hint.is_some();
    // Blank search lines under a `:start_line:` are lines to find (Roo);
    // otherwise a blank SEARCH creates or appends, as in Aider.
    let empty_search = search.iter().all(|l| l.trim().is_empty())
        && (block.start_line.is_none() || search.is_empty());
    if empty_search && replace.is_empty() {
        return Err(malformed(at, "SEARCH and REPLACE sections are both empty"));
    }
    let mut hunk = Hunk {
        patch_line: at,
        line_hint: block.start_line.or(default_hint).or(hint),
        end_hint: block.start_line.and(block.end_line),
        stray_divider: block.stray_divider,
        ..Hunk::default()
    };
    if empty_search {
        hunk.lines = replace
            .into_iter()
            .map(|t| HunkLine::new(LineKind::Add, t))
            .collect();
        return Ok((hunk, true));
    }
    hunk.lines = diff_lines(&search, &replace);
    let line_of =
        |in_replace: bool, k: usize| src.orig(if in_replace { replace_at } else { search_at } + k);
    let removes = elision::removes(&hunk.lines);
    hunk.elision = elision::read(&search, &replace, &line_of, diff_lines, removes).map(|mut e| {
        // The block's line hint is the first piece's, when it starts the block.
        if let Ok(pieces) = &mut e.pieces
            && let Some(first) = pieces.first_mut()
            && first.patch_line == line_of(false, 0)
        {
            first.line_hint = hunk.line_hint;
        }
        Box::new(e)
    });
    let blank = |l: Option<&String>| l.is_some_and(|l| l.trim().is_empty());
    hunk.trailing_blank_search = blank(search.last())
        && search.len() > 1
        && !blank(search.get(search.len() - 2))
        && hunk.elision.is_none();
    if stripped && !raw_search.iter().all(|l| l.trim().is_empty()) {
        hunk.as_written = Some(diff_lines(&raw_search, &raw_replace));
    } else if let Some(lines) = content.filter(|_| block.start_line.is_some()) {
        hunk.as_written = Some(diff_lines(&lines, &raw_replace));
    }
    Ok((hunk, false))
}

/// A block's sections with Roo's line-number prefixes (`12 | `) taken off.
struct Unnumbered {
    search: Vec<String>,
    replace: Vec<String>,
    /// The first SEARCH line's number, when SEARCH was numbered.
    hint: Option<usize>,
}

/// Takes the line-number prefixes off a block's sections: SEARCH numbered
/// throughout, or on every line but the first under `:start_line:` (and
/// REPLACE as SEARCH was), or only REPLACE when SEARCH is blank.
fn unnumbered(search: Vec<String>, replace: Vec<String>, start: Option<usize>) -> Unnumbered {
    let numbered = strip_numbered_section(&search, true)
        .or_else(|| start.and_then(|n| strip_numbered_after_first(&search, n)));
    if let Some((search, numbering)) = numbered {
        return Unnumbered {
            replace: strip_following(&replace, numbering),
            search,
            hint: Some(numbering.first),
        };
    }
    let blank_search = search.iter().all(|l| l.trim().is_empty());
    let replace = match blank_search.then(|| strip_numbered_section(&replace, true)) {
        Some(Some((r, _))) => r,
        _ => replace,
    };
    Unnumbered {
        search,
        replace,
        hint: None,
    }
}

/// The hunk lines of a SEARCH/REPLACE pair: a line diff of the two sections,
/// compacted.
pub(crate) fn diff_lines(search: &[String], replace: &[String]) -> Vec<HunkLine> {
    let mut lines = Vec::new();
    let old: Vec<&str> = search.iter().map(String::as_str).collect();
    let new: Vec<&str> = replace.iter().map(String::as_str).collect();
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        let (o, n) = match op {
            DiffOp::Equal { old_index, len, .. } => {
                let same = old.get(old_index..old_index + len).unwrap_or(&[]);
                lines.extend(same.iter().map(|t| HunkLine::new(LineKind::Context, *t)));
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let removed = old.get(o).unwrap_or(&[]);
        lines.extend(removed.iter().map(|t| HunkLine::new(LineKind::Remove, *t)));
        let added = new.get(n).unwrap_or(&[]);
        lines.extend(added.iter().map(|t| HunkLine::new(LineKind::Add, *t)));
    }
    compact_changes(&mut lines);
    lines
}

/// Slides a run of only removed (or only added) lines through identical
/// context lines until it touches another change, as git's diff does: of
/// several identical blank lines, the one removed is the one next to the
/// rest of the edit, which is what the author meant.
fn compact_changes(lines: &mut [HunkLine]) {
    let is_change = |l: &HunkLine| l.kind != LineKind::Context;
    let mut a = 0;
    while a < lines.len() {
        if !is_change(&lines[a]) {
            a += 1;
            continue;
        }
        let kind = lines[a].kind;
        let mut b = a;
        while b < lines.len() && lines[b].kind == kind {
            b += 1;
        }
        let pure = b == lines.len() || !is_change(&lines[b]);
        let isolated = pure && (a == 0 || !is_change(&lines[a - 1]));
        if isolated {
            // How far can the run move up, and does it then touch a change?
            let mut up = 0;
            while a > up
                && lines[a - up - 1].kind == LineKind::Context
                && lines[a - up - 1].text == lines[b - up - 1].text
            {
                up += 1;
            }
            let touches_above = a > up && is_change(&lines[a - up - 1]);
            if up > 0 && touches_above {
                for k in 0..up {
                    lines[a - k - 1].kind = kind;
                    lines[b - k - 1].kind = LineKind::Context;
                }
            }
        }
        a = b;
    }
}

/// Adds a block's hunk for `path` to `files`, merging into the last file patch
/// when it is the same path's SEARCH/REPLACE edits, named the same way
/// (`bare`: the bare word that named it, see `model::BareName`).
pub(crate) fn push_hunk(
    files: &mut Vec<FilePatch>,
    path: String,
    hunk: Hunk,
    create: bool,
    bare: Option<crate::model::BareName>,
) {
    if let Some(last) = files.last_mut()
        && last.format == PatchFormat::SearchReplace
        && last.path == path
        && last.bare_name == bare
    {
        last.create_if_missing |= create;
        last.hunks.push(hunk);
        return;
    }
    let mut fp = FilePatch::new(
        path,
        FileOp::Update,
        PatchFormat::SearchReplace,
        hunk.patch_line,
    );
    fp.create_if_missing = create;
    fp.bare_name = bare;
    fp.hunks.push(hunk);
    files.push(fp);
}

#[cfg(test)]
mod tests {
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
        let p = parse(
            "x.rs\n<<<<<<< SEARCH\n:start_line:42\n-------\na\n=======\nb\n>>>>>>> REPLACE\n",
        )
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
        let text = "x.rs\n<<<<<<< SEARCH\n:start_line:1\n-------\na\n=======\n-------\na\n>>>>>>> REPLACE\n";
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
        let p = parse("x.rs\n<<<<<<< SEARCH\n:start_line:5\nfoo\n=======\nbar\n>>>>>>> REPLACE\n")
            .unwrap();
        let h = &p.files[0].hunks[0];
        assert_eq!(
            (show(h), h.line_hint),
            (vec!["-foo".to_string(), "+bar".to_string()], Some(5))
        );
        let written = h.as_written.as_ref().map(|w| w.len());
        assert_eq!(written, Some(3), "{:?}", h.as_written);
        // Nothing left to find without them: they are content.
        let p =
            parse("x.rs\n<<<<<<< SEARCH\n:start_line:5\n=======\nbar\n>>>>>>> REPLACE\n").unwrap();
        assert!(!p.files[0].create_if_missing);
        assert_eq!(show(&p.files[0].hunks[0]), ["-:start_line:5", "+bar"]);
    }

    #[test]
    fn blank_search_under_start_line_is_searched() {
        let p =
            parse("x.sh\n<<<<<<< SEARCH\n:start_line:1\n\n=======\n#!/bin/sh\n>>>>>>> REPLACE\n")
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
}
