//! The Codex / OpenCode envelope: `*** Begin Patch` … `*** End Patch` with
//! `*** Add File:`, `*** Delete File:`, `*** Update File:` (+ `*** Move to:`)
//! sections; Update chunks start with `@@` or `@@ <anchor>`.

use super::cleanup::{Src, is_fence};
use super::malformed;
use super::numbering::strip_numbered_hunk;
use super::paths;
use crate::error::ParseError;
use crate::model::{FileOp, FilePatch, Hunk, HunkLine, LineKind, PatchFormat};

/// The words of a `*** Words ***` marker line, or `None` if it is not one.
fn marker_words(line: &str) -> Option<&str> {
    let t = line.trim();
    let inner = t.strip_prefix("***")?;
    Some(inner.trim_matches(|c: char| c == '*' || c.is_whitespace()))
}

/// True for `*** Begin Patch` (tolerating whitespace and `***` decorations).
pub(crate) fn is_begin(line: &str) -> bool {
    marker_words(line).is_some_and(|w| w.eq_ignore_ascii_case("begin patch"))
}

fn is_end(line: &str) -> bool {
    marker_words(line).is_some_and(|w| w.eq_ignore_ascii_case("end patch"))
}

/// `*** Label: value` → value, matching the label case-insensitively.
fn labelled<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let t = line.trim().strip_prefix("***")?.trim_start();
    let head = t.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = t.get(label.len()..)?.trim_start().strip_prefix(':')?;
    Some(rest.trim().trim_end_matches('*').trim())
}

fn file_path(value: &str, line: usize) -> Result<String, ParseError> {
    let p = paths::clean(value);
    if p.is_empty() {
        return Err(malformed(line, "file operation names no path"));
    }
    Ok(p)
}

/// True for a file operation line (`*** Update File: P`, `*** Add File: P`,
/// `*** Delete File: P`) starting a line: outside an envelope it opens
/// bare sections (see [`parse_bare`]).
pub(crate) fn is_section(line: &str) -> bool {
    line.starts_with("***")
        && ["Update File", "Add File", "Delete File"]
            .iter()
            .any(|label| labelled(line, label).is_some())
}

/// Parses the envelope whose `*** Begin Patch` is at line `i`; returns the file
/// patches and the index after `*** End Patch`.
pub(crate) fn parse(src: &Src, i: usize) -> Result<(Vec<FilePatch>, usize), ParseError> {
    let begin = src.orig(i);
    let mut files = Vec::new();
    let mut j = i + 1;
    loop {
        let Some(l) = src.line(j) else {
            return Err(malformed(
                begin,
                "`*** Begin Patch` has no `*** End Patch` (was the reply cut off?)",
            ));
        };
        if is_end(l) {
            return Ok((files, j + 1));
        }
        if l.trim().is_empty() {
            j += 1;
        } else {
            j = section(src, j, false, &mut files)?;
        }
    }
}

/// Parses file operation sections written without the `*** Begin Patch` /
/// `*** End Patch` lines around them, from line `i` (a section line).
/// Sections follow one another (blank lines between them allowed); they
/// end at the first line that is no section line and no body line (prose,
/// a fence, another notation) or at the end of the text. A stray
/// `*** End Patch` after them is taken with them. Returns the file patches
/// and the index after them.
pub(crate) fn parse_bare(src: &Src, i: usize) -> Result<(Vec<FilePatch>, usize), ParseError> {
    let mut files = Vec::new();
    let mut j = i;
    loop {
        j = section(src, j, true, &mut files)?;
        let Some(k) = src.next_non_empty(j) else {
            return Ok((files, j));
        };
        match src.line(k) {
            Some(l) if is_section(l) => j = k,
            Some(l) if is_end(l) => return Ok((files, k + 1)),
            _ => return Ok((files, j)),
        }
    }
}

/// Reads the file operation at line `j` (and its body) into `files`;
/// returns the index after it. `bare`: outside an envelope, so a line that
/// is no body line ends the body instead of being an error.
fn section(
    src: &Src,
    mut j: usize,
    bare: bool,
    files: &mut Vec<FilePatch>,
) -> Result<usize, ParseError> {
    let l = src.line(j).unwrap_or("");
    let at = src.orig(j);
    if let Some(p) = labelled(l, "Add File") {
        let mut fp = FilePatch::new(
            file_path(p, at)?,
            FileOp::Add,
            PatchFormat::CodexEnvelope,
            at,
        );
        let (hunk, next) = add_body(src, j + 1, at);
        fp.hunks.push(hunk);
        files.push(fp);
        Ok(next)
    } else if let Some(p) = labelled(l, "Delete File") {
        files.push(FilePatch::new(
            file_path(p, at)?,
            FileOp::Delete,
            PatchFormat::CodexEnvelope,
            at,
        ));
        Ok(j + 1)
    } else if let Some(p) = labelled(l, "Update File") {
        let mut fp = FilePatch::new(
            file_path(p, at)?,
            FileOp::Update,
            PatchFormat::CodexEnvelope,
            at,
        );
        j += 1;
        if let Some(q) = src.line(j).and_then(|l| labelled(l, "Move to")) {
            fp.move_to = Some(file_path(q, src.orig(j))?);
            j += 1;
        }
        let body = j;
        j = update_body(src, j, &mut fp, bare)?;
        if bare {
            refuse_list_lines(src, body..j, &fp.path)?;
        }
        if fp.hunks.is_empty() {
            return Err(malformed(
                at,
                format!("`*** Update File: {}` has no changes", fp.path),
            ));
        }
        files.push(fp);
        Ok(j)
    } else if l.trim_start().starts_with("***") {
        Err(malformed(
            at,
            format!("unknown envelope line `{}`", l.trim()),
        ))
    } else {
        Err(malformed(
            at,
            format!(
                "expected `*** Add File:`, `*** Update File:`, `*** Delete File:` or `*** End Patch`, found `{}`",
                l.trim()
            ),
        ))
    }
}

/// A line written like a Markdown list item: `- ` or `+ ` and then a
/// character that is no space and no `-`, `+`, `*` (`- item`, not
/// `+ * doc` or `- - x`).
fn list_shaped(l: &str) -> bool {
    l.strip_prefix(['-', '+'])
        .and_then(|r| r.strip_prefix(' '))
        .and_then(|r| r.chars().next())
        .is_some_and(|c| !c.is_whitespace() && !matches!(c, '-' | '+' | '*'))
}

/// Outside an envelope nothing says where a section ends, and a Markdown
/// list written under it (`- Renamed x`, `+ faster`) reads as removed or
/// added lines with one space of indentation. A list-shaped line that
/// follows a blank line of the body, or that starts the body's last run of
/// lines (all list-shaped), is therefore refused: the added lines of a
/// `+ item` list would be written with no line of the file to check them.
fn refuse_list_lines(
    src: &Src,
    body: std::ops::Range<usize>,
    path: &str,
) -> Result<(), ParseError> {
    let blank = |k: usize| src.line(k).is_some_and(|l| l.trim().is_empty());
    for k in body.clone() {
        let Some(l) = src.line(k).filter(|l| list_shaped(l)) else {
            continue;
        };
        let after_blank = k > body.start && blank(k - 1);
        let trailing = (k..body.end).all(|m| blank(m) || src.line(m).is_some_and(list_shaped));
        if after_blank || trailing {
            return Err(malformed(
                src.orig(k),
                format!(
                    "`{}` under `*** Update File: {path}` without `*** Begin Patch` may be a Markdown list after the edit or a line of it with one space of indentation; write the sections inside `*** Begin Patch` / `*** End Patch`, or prose between them and the list",
                    l.trim_end()
                ),
            ));
        }
    }
    Ok(())
}

/// Outside an envelope, true when line `j` ends an Update body: a line
/// that is no body line (prose, a fence), a `--- `/`+++ ` file header
/// pair, or blank lines not followed by a body line.
fn ends_bare_body(src: &Src, j: usize) -> bool {
    let body = |k: usize| {
        src.line(k).is_some_and(|l| {
            (l.starts_with([' ', '-', '+', '\t']) || l.starts_with("@@") || l.starts_with("***"))
                && !paths::is_file_header(src, k)
        })
    };
    match src.line(j) {
        None => true,
        Some(l) if l.trim().is_empty() => !src.next_non_empty(j).is_some_and(body),
        Some(_) => !body(j),
    }
}

/// A `***` line that ends or splits an Update body at line `j`. In a body a
/// line starting with a space is a context line whatever it holds (as in
/// Codex's own grammar), so ` *** End Patch` or ` *** Update File: x` is
/// content; an indented `*** End Patch` ends the envelope only when no other
/// `*** End Patch` follows (it is then the envelope's only end).
fn is_marker_line(src: &Src, j: usize, bare: bool) -> bool {
    let Some(l) = src.line(j) else { return false };
    if l.starts_with("***") {
        return true;
    }
    // Outside an envelope there is no end to miss: an indented one is content.
    !bare && is_end(l) && !(j + 1..src.len()).any(|k| src.line(k).is_some_and(is_end))
}

/// Reads the `+` lines of an Add File body.
fn add_body(src: &Src, mut j: usize, at: usize) -> (Hunk, usize) {
    let mut hunk = Hunk {
        patch_line: at,
        ..Hunk::default()
    };
    while let Some(l) = src.line(j) {
        if let Some(rest) = l.strip_prefix('+') {
            hunk.lines.push(HunkLine::new(LineKind::Add, rest));
        } else if l.trim().is_empty() || is_fence(l) {
            // Blank and fence lines are content only when more `+` lines follow.
            let k = (j..src.len())
                .find(|&k| {
                    src.line(k)
                        .is_some_and(|t| !(t.trim().is_empty() || is_fence(t)))
                })
                .unwrap_or(src.len());
            if !src.line(k).is_some_and(|t| t.starts_with('+')) {
                break;
            }
            for t in src.lines.get(j..k).unwrap_or(&[]) {
                hunk.lines.push(HunkLine::new(LineKind::Add, t.as_ref()));
            }
            j = k;
            continue;
        } else {
            break;
        }
        j += 1;
    }
    (hunk, j)
}

/// Reads the chunks of an Update File section into `fp`; returns the index of
/// the first line after them (a `***` line; outside an envelope, `bare`,
/// also the line [`ends_bare_body`] stops at).
fn update_body(
    src: &Src,
    mut j: usize,
    fp: &mut FilePatch,
    bare: bool,
) -> Result<usize, ParseError> {
    let mut cur: Option<Hunk> = None;
    // Whether the current chunk has had a body line since its last `@@` line.
    let mut has_body = false;
    // How many of the chunk's last lines are bare blank lines (no ' ').
    let mut bare_tail = 0;
    // The chunk's context lines that are elision lines (`# ... existing
    // code ...`): their index in the chunk and patch line.
    let mut elided: Vec<(usize, usize)> = Vec::new();
    while let Some(l) = src.line(j) {
        let at = src.orig(j);
        if bare && ends_bare_body(src, j) {
            break;
        }
        if is_marker_line(src, j, bare) {
            let words = marker_words(l).unwrap_or("");
            if words.eq_ignore_ascii_case("end of file") {
                match cur.as_mut() {
                    Some(h) if has_body => h.at_eof = true,
                    _ => return Err(malformed(at, "`*** End of File` does not follow a chunk")),
                }
                finish(&mut cur, fp, std::mem::take(&mut bare_tail), &mut elided)?;
                has_body = false;
                j += 1;
                continue;
            }
            break;
        }
        if let Some(rest) = l.strip_prefix("@@") {
            if has_body {
                finish(&mut cur, fp, std::mem::take(&mut bare_tail), &mut elided)?;
                has_body = false;
            }
            let h = cur.get_or_insert_with(|| Hunk {
                patch_line: at,
                ..Hunk::default()
            });
            read_at_line(rest, h);
        } else {
            let (kind, text) = body_line(l, at, &fp.path)?;
            let h = cur.get_or_insert_with(|| Hunk {
                patch_line: at,
                ..Hunk::default()
            });
            if kind == LineKind::Context && super::elision::is_elision(text) {
                elided.push((h.lines.len(), at));
            }
            h.lines.push(HunkLine::new(kind, text));
            has_body = true;
            bare_tail = if l.trim().is_empty() && !l.starts_with(' ') {
                bare_tail + 1
            } else {
                0
            };
        }
        j += 1;
    }
    finish(&mut cur, fp, std::mem::take(&mut bare_tail), &mut elided)?;
    Ok(j)
}

/// Reads what follows a chunk's `@@` (`rest`) into `h`: a numbered header
/// gives a line hint, any other text is an anchor line.
fn read_at_line(rest: &str, h: &mut Hunk) {
    let text = rest.trim();
    if let Some(hint) = numbered_header(text) {
        h.line_hint = Some(hint);
    } else if !text.is_empty() && text != "@@" {
        h.anchors
            .push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
    }
}

/// The kind and text of a chunk's body line `l` (patch line `at`) in the
/// section of `path`.
fn body_line<'l>(l: &'l str, at: usize, path: &str) -> Result<(LineKind, &'l str), ParseError> {
    Ok(if let Some(r) = l.strip_prefix(' ') {
        (LineKind::Context, r)
    } else if let Some(r) = l.strip_prefix('-') {
        (LineKind::Remove, r)
    } else if let Some(r) = l.strip_prefix('+') {
        (LineKind::Add, r)
    } else if l.trim().is_empty() {
        (LineKind::Context, "")
    } else if l.starts_with('\t') {
        // A tab-indented line lost its ' ' marker: models drop it.
        // Matching is whitespace tolerant and context keeps the
        // file's own text, so it is read as context.
        (LineKind::Context, l)
    } else {
        return Err(malformed(
            at,
            format!(
                "expected a line starting with ' ', '-', '+' or `@@` in `*** Update File: {path}`, found `{l}`"
            ),
        ));
    })
}

/// `-12,3 +12,4 @@` → `Some(12)`.
fn numbered_header(text: &str) -> Option<usize> {
    let mut toks = text.split_whitespace();
    let old = toks.next()?.strip_prefix('-')?;
    let start = old.split(',').next()?.parse().ok()?;
    toks.next()?.strip_prefix('+')?;
    Some(start)
}

/// Closes the current chunk: drops its last `bare_tail` lines when they are
/// bare blank lines (models leave them between chunks; a blank context line
/// written with its ' ' marker is kept), unless they are all that places the
/// chunk; strips line numbers; notes how it reads around the context lines
/// of `elided` that are elision lines (then empties `elided`).
fn finish(
    cur: &mut Option<Hunk>,
    fp: &mut FilePatch,
    mut bare_tail: usize,
    elided: &mut Vec<(usize, usize)>,
) -> Result<(), ParseError> {
    let elided = std::mem::take(elided);
    let Some(mut h) = cur.take() else {
        return Ok(());
    };
    let anchoring = |lines: &[HunkLine]| lines.iter().filter(|l| l.kind != LineKind::Add).count();
    while h
        .lines
        .last()
        .is_some_and(|l| l.kind == LineKind::Context && l.text.trim().is_empty())
        && !h.at_eof
        && bare_tail > 0
        && anchoring(&h.lines) > 1
    {
        h.lines.pop();
        bare_tail -= 1;
    }
    if h.lines.is_empty() {
        return Err(malformed(h.patch_line, "chunk has no lines"));
    }
    let written = h.lines.clone();
    if let Some(n) = strip_numbered_hunk(&mut h.lines) {
        h.as_written = Some(written);
        if h.line_hint.is_none() {
            h.line_hint = Some(n);
        }
    }
    // Read around its elision lines only when the chunk as written stands
    // nowhere (`plan::elision`), as unified and numberless hunks are.
    h.elision = super::elision::read_context(&h, &elided).map(Box::new);
    fp.hunks.push(h);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn indented_markers_in_an_update_body_are_context() {
        let text = "*** Begin Patch\n*** Update File: a.md\n@@\n  *** End Patch\n  *** Update File: b.md\n-x\n+y\n*** End Patch\n";
        let p = parse(text).unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(
            show(&p.files[0].hunks[0]),
            ["  *** End Patch", "  *** Update File: b.md", "-x", "+y"]
        );
        // The envelope's only end may be indented.
        let p =
            parse("*** Begin Patch\n*** Update File: a.md\n@@\n-x\n+y\n  *** End Patch\n").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), ["-x", "+y"]);
    }
    use crate::model::{FileOp, PatchFormat};

    #[test]
    fn full_envelope() {
        let text = "Here you go:\n*** Begin Patch\n*** Add File: docs/new.md\n+# Title\n+\n+body\n*** Delete File: old.txt\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ class App:\n@@     def run(self):\n-        return 1\n+        return 2\n@@\n tail\n-x\n+y\n*** End of File\n*** End Patch\nThanks!\n";
        let p = parse(text).unwrap();
        assert_eq!(p.files.len(), 3);
        let add = &p.files[0];
        assert_eq!(
            (add.op, add.path.as_str(), add.format),
            (FileOp::Add, "docs/new.md", PatchFormat::CodexEnvelope)
        );
        assert_eq!(show(&add.hunks[0]), ["+# Title", "+", "+body"]);
        assert_eq!(p.files[1].op, FileOp::Delete);
        let up = &p.files[2];
        assert_eq!(up.move_to.as_deref(), Some("src/main.py"));
        assert_eq!(up.hunks.len(), 2);
        assert_eq!(up.hunks[0].anchors, ["class App:", "    def run(self):"]);
        assert_eq!(up.hunks[0].patch_line, 10);
        assert_eq!(
            show(&up.hunks[0]),
            ["-        return 1", "+        return 2"]
        );
        assert!(up.hunks[1].anchors.is_empty());
        assert!(up.hunks[1].at_eof && !up.hunks[0].at_eof);
    }

    #[test]
    fn decorated_markers_and_first_chunk_without_header() {
        let p = parse("  *** Begin Patch ***  \n*** Update File: a.rs\n fn a() {\n-    1\n+    2\n\n }\n   *** End Patch ***\n").unwrap();
        let h = &p.files[0].hunks[0];
        assert_eq!(show(h), [" fn a() {", "-    1", "+    2", " ", " }"]);
    }

    #[test]
    fn numbered_header_is_a_hint() {
        let p = parse(
            "*** Begin Patch\n*** Update File: a.rs\n@@ -12,3 +12,4 @@\n-a\n+b\n*** End Patch\n",
        )
        .unwrap();
        let h = &p.files[0].hunks[0];
        assert_eq!(h.line_hint, Some(12));
        assert!(h.anchors.is_empty());
    }

    #[test]
    fn add_body_empty_lines_and_fences() {
        let p = parse("*** Begin Patch\n*** Add File: README.md\n+intro\n\n```sh\n+make\n```\n+end\n\n*** End Patch\n").unwrap();
        assert_eq!(
            show(&p.files[0].hunks[0]),
            ["+intro", "+", "+```sh", "+make", "+```", "+end"]
        );
    }

    #[test]
    fn missing_end_points_at_begin() {
        let (line, msg) = malformed(parse(
            "intro\n*** Begin Patch\n*** Update File: a\n-x\n+y\n",
        ));
        assert_eq!(line, 2);
        assert!(msg.contains("End Patch"), "{msg}");
    }

    #[test]
    fn update_without_chunks_is_malformed() {
        let (line, _) = malformed(parse(
            "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
        ));
        assert_eq!(line, 2);
    }

    #[test]
    fn unknown_marker_is_malformed() {
        let (line, msg) = malformed(parse(
            "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** Rename File: b\n*** End Patch\n",
        ));
        assert_eq!(line, 5);
        assert!(msg.contains("*** Rename File: b"), "{msg}");
        let (line, _) = malformed(parse(
            "*** Begin Patch\n*** Update File: a\n-x\nnot a diff line\n*** End Patch\n",
        ));
        assert_eq!(line, 4);
    }

    #[test]
    fn sections_without_envelope_end_at_prose() {
        let text = "Edits:\n*** Update File: a.py\n@@\n a\n-b\n+c\n\n*** Delete File: d.py\n\nDone.\n- a note\n";
        let p = parse(text).unwrap();
        let got: Vec<_> = p.files.iter().map(|f| (f.path.as_str(), f.op)).collect();
        assert_eq!(got, [("a.py", FileOp::Update), ("d.py", FileOp::Delete)]);
        assert_eq!(show(&p.files[0].hunks[0]), [" a", "-b", "+c"]);
        // Blank context followed by more body lines stays in; a fence ends it.
        let p = parse("*** Update File: a.py\n a\n\n-b\n```\n").unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), [" a", " ", "-b"]);
        // A file header pair ends it too.
        let p = parse("*** Update File: a.py\n-a\n+b\n--- a/c.py\n+++ b/c.py\n@@\n-x\n").unwrap();
        assert_eq!(p.files.len(), 2);
        // No changes at all is malformed, as in an envelope.
        let (line, _) = malformed(parse("*** Update File: a.py\nprose\n"));
        assert_eq!(line, 1);
    }

    #[test]
    fn indented_stars_are_context() {
        let p = parse(
            "*** Begin Patch\n*** Update File: a.c\n *** banner ***\n-x\n+y\n  *** End Patch\n",
        )
        .unwrap();
        assert_eq!(show(&p.files[0].hunks[0]), [" *** banner ***", "-x", "+y"]);
    }
}
