//! The XML tool calls around SEARCH/REPLACE blocks: Roo-Code's
//! `<apply_diff>` (`<args><file><path>P</path><diff><content>…</content><start_line>N</start_line></diff></file></args>`
//! and the older `<path>P</path><diff>…</diff>` form) and Cline's
//! `<replace_in_file><path>P</path><diff>…</diff></replace_in_file>`.

use super::cleanup::Src;
use super::malformed;
use super::search_replace::{
    block_hunk, is_divider, is_replace, is_search, parse_block, push_hunk, stray_divider_habit,
};
use crate::error::ParseError;
use crate::model::{FilePatch, Hunk};

/// The tool calls read: Roo's `<apply_diff>` (both forms) and Cline's
/// `<replace_in_file>` (the one-file form only).
const CALLS: [&str; 2] = ["apply_diff", "replace_in_file"];

/// The name of the tool call a line opens (`<apply_diff>`,
/// `<replace_in_file>`), if it opens one.
fn call_name(line: &str) -> Option<&'static str> {
    let rest = line.trim_start().strip_prefix('<')?;
    CALLS.into_iter().find(|n| {
        rest.strip_prefix(n)
            .is_some_and(|after| after.starts_with('>'))
    })
}

/// True when a line opens a Roo `<apply_diff>` or a Cline
/// `<replace_in_file>` tool call.
pub(crate) fn is_tool_call(line: &str) -> bool {
    call_name(line).is_some()
}

/// True when the lines `block` (a SEARCH/REPLACE block, markers included)
/// stand again, byte for byte and in one run, inside a tool call that
/// starts after them: the block is a preview of the call's block. `calls`
/// keeps the line ranges of the reply's tool calls, found once.
pub(crate) fn sent_again_in_a_call(
    src: &Src,
    block: std::ops::Range<usize>,
    calls: &mut Option<Vec<std::ops::Range<usize>>>,
) -> bool {
    let calls = calls.get_or_insert_with(|| tool_calls(src));
    let lines = src.lines.get(block.clone()).unwrap_or(&[]);
    if lines.is_empty() {
        return false;
    }
    calls
        .iter()
        .filter(|c| c.start >= block.end)
        .filter_map(|c| src.lines.get(c.clone()))
        .any(|call| call.windows(lines.len()).any(|w| w == lines))
}

/// The line ranges of the complete tool calls of `src` (opening line to
/// closing line).
fn tool_calls(src: &Src) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(l) = src.line(i) {
        let Some(name) = call_name(l) else {
            i += 1;
            continue;
        };
        let close = format!("</{name}>");
        match (i..src.len()).find(|&k| src.line(k).is_some_and(|l| l.contains(&close))) {
            Some(end) => {
                out.push(i..end + 1);
                i = end + 1;
            }
            None => break,
        }
    }
    out
}

/// Finds `<name>…</name>` in `text[from..to]`; returns the inner range and the
/// index after the closing tag. A `<![CDATA[ … ]]>` inner is skipped whole, so a
/// closing tag inside it does not end the element.
fn element(text: &str, from: usize, to: usize, name: &str) -> Option<(usize, usize, usize)> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let hay = text.get(from..to)?;
    let inner_start = from + hay.find(&open)? + open.len();
    let rest = text.get(inner_start..to)?;
    let mut search_from = inner_start;
    let lead = rest.len() - rest.trim_start().len();
    if rest.trim_start().starts_with("<![CDATA[") {
        let cdata_end = rest.find("]]>")?;
        search_from = inner_start + cdata_end.max(lead) + 3;
    }
    let inner_end = search_from + text.get(search_from..to)?.find(&close)?;
    Some((inner_start, inner_end, inner_end + close.len()))
}

/// Strips a `<![CDATA[ … ]]>` wrapper, returning the byte range of the content.
/// XML entities (`&lt;`, `&amp;`) are deliberately NOT decoded: models write code
/// verbatim inside these tags, and decoding would damage code that contains them.
fn unwrap_cdata(text: &str, start: usize, end: usize) -> (usize, usize) {
    let Some(inner) = text.get(start..end) else {
        return (start, end);
    };
    let t = inner.trim();
    if let (Some(_), Some(_)) = (t.strip_prefix("<![CDATA["), t.strip_suffix("]]>")) {
        let s = start + inner.find("<![CDATA[").unwrap_or(0) + 9;
        let e = start + inner.rfind("]]>").unwrap_or(inner.len());
        if s <= e {
            return (s, e);
        }
    }
    (start, end)
}

/// The lines of `text[start..end]` as a [`Src`] mapped to original patch lines
/// (`text` is `src` joined from line `first`). The rest of the opening tag's line
/// and the closing tag's line are dropped when blank.
fn sub_src(src: &Src, first: usize, text: &str, start: usize, end: usize) -> Src<'static> {
    let mut out = Src::default();
    let Some(inner) = text.get(start..end) else {
        return out;
    };
    let base = text.get(..start).map_or(0, |t| t.matches('\n').count());
    let parts: Vec<&str> = inner.split('\n').collect();
    let count = parts.len();
    for (k, l) in parts.into_iter().enumerate() {
        if (k == 0 || k + 1 == count) && l.trim().is_empty() {
            continue;
        }
        out.lines.push(l.to_string().into());
        out.map.push(src.orig(first + base + k));
    }
    out
}

/// Parses the tool call starting at line `i`: a Roo `<apply_diff>`
/// (multi-file `<args>` form or the older `<path>` + `<diff>` form) or a
/// Cline `<replace_in_file>` (`<path>` + `<diff>`); returns the index after it.
pub(crate) fn parse_tool_call(
    src: &Src,
    i: usize,
    target: Option<&str>,
    files: &mut Vec<FilePatch>,
) -> Result<usize, ParseError> {
    let at = src.orig(i);
    let name = src.line(i).and_then(call_name).unwrap_or(CALLS[0]);
    let close = format!("</{name}>");
    let end = (i..src.len())
        .find(|&k| src.line(k).is_some_and(|l| l.contains(&close)))
        .ok_or_else(|| malformed(at, format!("`<{name}>` has no `{close}`")))?;
    let text = src.lines.get(i..=end).unwrap_or(&[]).join("\n");
    let element = ApplyDiff {
        src,
        i,
        text,
        target,
        name,
    };
    if name == "apply_diff" && element.text.contains("<file>") {
        element.read_files(files)?;
    } else {
        element.read_single(files)?;
    }
    Ok(end + 1)
}

/// One tool call element: its lines joined into one text, and where it
/// stands in the patch.
struct ApplyDiff<'s, 'a> {
    src: &'s Src<'a>,
    /// Index in `src` of its first line.
    i: usize,
    text: String,
    /// The path to use when it names none.
    target: Option<&'s str>,
    /// The call's tag name (`apply_diff`, `replace_in_file`).
    name: &'static str,
}

impl ApplyDiff<'_, '_> {
    /// The patch line of byte `off` of the text.
    fn line_at(&self, off: usize) -> usize {
        let text = &self.text;
        self.src
            .orig(self.i + text.get(..off).map_or(0, |t| t.matches('\n').count()))
    }

    /// The `<path>` between bytes `from` and `to`, else the target path.
    fn path_of(&self, from: usize, to: usize) -> Result<String, ParseError> {
        let text = &self.text;
        match element(text, from, to, "path") {
            Some((s, e, _)) => {
                let (s, e) = unwrap_cdata(text, s, e);
                let p = super::paths::clean(text.get(s..e).unwrap_or(""));
                if p.is_empty() {
                    Err(malformed(self.line_at(s), "empty `<path>`"))
                } else {
                    Ok(p)
                }
            }
            None => self
                .target
                .map(str::to_string)
                .ok_or(ParseError::NoTargetPath {
                    line: self.line_at(from),
                }),
        }
    }

    /// The `<start_line>` between bytes `from` and `to`, if any.
    fn hint_of(&self, from: usize, to: usize) -> Result<Option<usize>, ParseError> {
        let text = &self.text;
        match element(text, from, to, "start_line") {
            Some((s, e, _)) => {
                let v = text.get(s..e).unwrap_or("").trim();
                v.parse().map(Some).map_err(|_| {
                    malformed(self.line_at(s), format!("bad `<start_line>` value `{v}`"))
                })
            }
            None => Ok(None),
        }
    }

    /// Reads the blocks of the content `cs..ce` of a `<diff>` starting at
    /// byte `ds`.
    fn blocks(
        &self,
        (cs, ce): (usize, usize),
        (path, hint): (&str, Option<usize>),
        ds: usize,
        files: &mut Vec<FilePatch>,
    ) -> Result<(), ParseError> {
        let sub = sub_src(self.src, self.i, &self.text, cs, ce);
        blocks_in(&sub, path, hint, self.line_at(ds), files)
    }

    /// The multi-file form: `<file><path>…</path><diff>…</diff>…</file>`,
    /// each `<diff>` with its `<content>` and `<start_line>`.
    fn read_files(&self, files: &mut Vec<FilePatch>) -> Result<(), ParseError> {
        let text = &self.text;
        let mut pos = 0;
        while let Some((fs, fe, after)) = element(text, pos, text.len(), "file") {
            let path = self.path_of(fs, fe)?;
            let mut dpos = fs;
            let mut any = false;
            while let Some((ds, de, dafter)) = element(text, dpos, fe, "diff") {
                let content = match element(text, ds, de, "content") {
                    Some((cs, ce, _)) => unwrap_cdata(text, cs, ce),
                    None => unwrap_cdata(text, ds, de),
                };
                let hint = self.hint_of(ds, de)?;
                self.blocks(content, (&path, hint), ds, files)?;
                any = true;
                dpos = dafter;
            }
            if !any {
                return Err(malformed(
                    self.line_at(fs),
                    format!("`<file>` for `{path}` holds no `<diff>`"),
                ));
            }
            pos = after;
        }
        Ok(())
    }

    /// The one-file form: `<path>`, `<diff>` and `<start_line>` directly
    /// inside `<apply_diff>` or `<replace_in_file>`. The `<path>` is read
    /// outside the `<diff>` (before it, else after it): a `<path>` line of
    /// the code inside never names the file.
    fn read_single(&self, files: &mut Vec<FilePatch>) -> Result<(), ParseError> {
        let (text, len) = (&self.text, self.text.len());
        let (ds, de, after) = element(text, 0, len, "diff").ok_or_else(|| {
            let name = self.name;
            malformed(
                self.src.orig(self.i),
                format!("`<{name}>` holds no `<diff>`"),
            )
        })?;
        let open = ds.saturating_sub("<diff>".len());
        let path = if element(text, after, len, "path").is_some()
            && element(text, 0, open, "path").is_none()
        {
            self.path_of(after, len)?
        } else {
            self.path_of(0, open)?
        };
        let content = unwrap_cdata(text, ds, de);
        let hint = match element(text, 0, open, "start_line") {
            Some(_) => self.hint_of(0, open)?,
            None => self.hint_of(after, len)?,
        };
        self.blocks(content, (&path, hint), ds, files)
    }
}

/// Reads every SEARCH/REPLACE block of one `<diff>` into `files` for `path`.
fn blocks_in(
    sub: &Src,
    path: &str,
    hint: Option<usize>,
    at: usize,
    files: &mut Vec<FilePatch>,
) -> Result<(), ParseError> {
    let mut j = 0;
    let mut any = false;
    // Markers written XML-escaped: the blocks as written and decoded.
    let escaped = super::xml_escape::readings(sub);
    let (sub, decoded) = match &escaped {
        Some((written, decoded)) => (written, Some(decoded)),
        None => (sub, None),
    };
    let strays = stray_divider_habit(sub);
    while let Some(l) = sub.line(j) {
        if is_search(l) {
            let (block, next) = parse_block(sub, j, strays)?;
            let (mut hunk, create) = block_hunk(sub, block, hint)?;
            if let Some(decoded) = decoded {
                hunk.unescaped = decoded_reading(decoded, (j, next), hint, &hunk, strays)?;
            }
            push_hunk(files, path.to_string(), hunk, create, None);
            any = true;
            j = next;
        } else if is_replace(l) || is_divider(l) {
            return Err(malformed(
                sub.orig(j),
                format!("found `{}` before `<<<<<<< SEARCH`", l.trim()),
            ));
        } else {
            j += 1;
        }
    }
    if !any {
        return Err(malformed(at, "`<diff>` holds no `<<<<<<< SEARCH` block"));
    }
    Ok(())
}

/// The block at line `j` of a `<diff>` whose markers are XML-escaped, read
/// with its character references decoded (`decoded`: the `<diff>`'s lines
/// decoded): `None` when that is the block as written (`hunk`). The two
/// readings have the same markers on the same lines (every line that
/// decodes to a marker is one in both), so the block ends where it ends as
/// written (`next`).
fn decoded_reading(
    decoded: &Src,
    (j, next): (usize, usize),
    hint: Option<usize>,
    hunk: &Hunk,
    strays: bool,
) -> Result<Option<Box<Hunk>>, ParseError> {
    let (block, end) = parse_block(decoded, j, strays)?;
    if end != next {
        return Err(malformed(
            decoded.orig(j),
            "the XML-escaped block reads otherwise once `&lt;`, `&gt;` and `&amp;` are decoded",
        ));
    }
    let (plain, _) = block_hunk(decoded, block, hint)?;
    Ok((plain != *hunk).then(|| Box::new(plain)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

    #[test]
    fn roo_multi_file_xml() {
        let text = "<apply_diff>\n<args>\n<file>\n<path>src/a.ts</path>\n<diff>\n<content><![CDATA[\n<<<<<<< SEARCH\nif (a &lt; b) {}\n=======\nif (a <= b) {}\n>>>>>>> REPLACE\n]]></content>\n<start_line>7</start_line>\n</diff>\n<diff>\n<content>\n<<<<<<< SEARCH\n:start_line:30\n-------\nx\n=======\ny\n>>>>>>> REPLACE\n</content>\n</diff>\n</file>\n<file>\n<path>b.ts</path>\n<diff>\n<content>\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n</content>\n</diff>\n</file>\n</args>\n</apply_diff>\n";
        let p = parse(text).unwrap();
        assert_eq!(p.files.len(), 2);
        let a = &p.files[0];
        assert_eq!(a.path, "src/a.ts");
        assert_eq!(a.hunks.len(), 2);
        assert_eq!(show(&a.hunks[0]), ["-if (a &lt; b) {}", "+if (a <= b) {}"]);
        assert_eq!((a.hunks[0].line_hint, a.hunks[0].patch_line), (Some(7), 7));
        assert_eq!(
            (a.hunks[1].line_hint, a.hunks[1].patch_line),
            (Some(30), 17)
        );
        assert_eq!(p.files[1].path, "b.ts");
    }

    #[test]
    fn roo_single_form() {
        let text = "I'll fix it.\n<apply_diff>\n<path>main.py</path>\n<diff>\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n</diff>\n<start_line>5</start_line>\n</apply_diff>\n";
        let p = parse(text).unwrap();
        assert_eq!(p.files[0].path, "main.py");
        assert_eq!(p.files[0].hunks[0].line_hint, Some(5));
        assert_eq!(p.files[0].hunks[0].patch_line, 5);
        let (line, _) = malformed(parse(
            "<apply_diff>\n<path>a</path>\n<diff>\nnothing\n</diff>\n",
        ));
        assert_eq!(line, 1);
    }

    #[test]
    fn cline_replace_in_file() {
        let text = "Done.\n<replace_in_file>\n<path>app/x.py</path>\n<diff>\n------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE\n\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n";
        let p = parse(text).unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].path, "app/x.py");
        assert_eq!(p.files[0].hunks.len(), 2);
        assert_eq!(show(&p.files[0].hunks[1]), ["-q", "+r"]);
        // A `<path>` inside the diff is content, never the file.
        let inner = "<replace_in_file>\n<diff>\n<<<<<<< SEARCH\n<path>a.xml</path>\n=======\n<path>b.xml</path>\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n";
        assert!(matches!(
            parse(inner),
            Err(crate::error::ParseError::NoTargetPath { line: 1 })
        ));
        // `<file>` inside a Cline diff is content too.
        let file = "<replace_in_file>\n<path>p.xml</path>\n<diff>\n<<<<<<< SEARCH\n<file>\n=======\n<file/>\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n";
        assert_eq!(parse(file).unwrap().files[0].path, "p.xml");
        let (line, _) = malformed(parse("<replace_in_file>\n<path>a</path>\n<diff>\n"));
        assert_eq!(line, 1);
    }
}
