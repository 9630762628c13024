//! Paths in patches: the `--- `/`+++ ` file header and its paths, `-pN`
//! stripping, path clean-up, and path-like lines that name the file of the
//! edit below them.

use super::cleanup::Src;
use super::fence;
use crate::error::ParseError;

/// True when line `i` is `--- x` directly followed by `+++ y` (a file header).
pub(crate) fn is_file_header(src: &Src, i: usize) -> bool {
    src.line(i).is_some_and(|l| l.starts_with("--- "))
        && src.line(i + 1).is_some_and(|l| l.starts_with("+++ "))
}

/// Cleans a path as written: trims; a C-quoted path
/// (`"a/caf\303\251.txt"`, `"x\\y"`) is decoded as git writes it;
/// otherwise single or double quotes are dropped, `\` becomes `/` and a
/// leading `./` goes. `..` is resolved later, by [`normalize`], once `a/`
/// or `-pN` components are gone.
pub(crate) fn clean(path: &str) -> String {
    let p = path.trim();
    if let Some(decoded) = c_unquote(p) {
        return decoded;
    }
    let mut p = p;
    if p.len() >= 2
        && ((p.starts_with('"') && p.ends_with('"')) || (p.starts_with('\'') && p.ends_with('\'')))
    {
        p = p.get(1..p.len() - 1).unwrap_or(p);
    }
    let mut s = p.replace('\\', "/");
    while let Some(rest) = s.strip_prefix("./") {
        s = rest.to_string();
    }
    s
}

/// Decodes a whole C-quoted path as git writes one (`\t`, `\n`, `\"`,
/// `\\`, octal bytes); `None` when `p` is not one or does not decode to UTF-8.
pub(crate) fn c_unquote(p: &str) -> Option<String> {
    use gix::bstr::ByteSlice;
    if !p.starts_with('"') || !p.contains('\\') {
        return None;
    }
    let (decoded, used) = gix::quote::ansi_c::undo(p.as_bytes().as_bstr()).ok()?;
    (used == p.len())
        .then(|| String::from_utf8(decoded.to_vec()).ok())
        .flatten()
}

/// Resolves `.` and `..` components and repeated `/` lexically
/// (`src/../main.rs` is `main.rs`); a `..` with nothing before it to undo
/// is kept, for the tree check to refuse.
pub(crate) fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let mut joined = parts.join("/");
    // A directory stays one: `newdir/` is never made a file `newdir`.
    if path.ends_with('/') && !joined.is_empty() {
        joined.push('/');
    }
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Applies `-pN` to a header path already [`clean`]ed: `Some(n)` drops `n` leading components (error
/// when there are too few); `None` drops a leading `a/` or `b/` only.
pub(crate) fn strip(path: &str, strip: Option<usize>, line: usize) -> Result<String, ParseError> {
    let path = path.to_string();
    match strip {
        None => Ok(path
            .strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(&path)
            .to_string()),
        Some(0) => Ok(path),
        Some(n) => {
            let comps: Vec<&str> = path.split('/').collect();
            if comps.len() <= n {
                return Err(ParseError::Malformed {
                    line,
                    message: format!(
                        "cannot strip {n} leading path component(s) from `{path}` (-p{n}): it has only {}",
                        comps.len().saturating_sub(1)
                    ),
                });
            }
            Ok(comps.get(n..).unwrap_or(&[]).join("/"))
        }
    }
}

/// Reads a path from a header such as `--- a/x\t2024-01-01` or `+++ filename: x`.
/// Returns `None` for `/dev/null`.
pub(crate) fn header_path(
    rest: &str,
    strip_n: Option<usize>,
    line: usize,
) -> Result<Option<String>, ParseError> {
    let mut r = rest.trim();
    if r.len() >= 9
        && r.get(..9)
            .is_some_and(|p| p.eq_ignore_ascii_case("filename:"))
    {
        r = r.get(9..).unwrap_or("").trim();
    }
    let r = r.split('\t').next().unwrap_or("").trim();
    let cleaned = clean(without_spaced_timestamp(r));
    if cleaned == "/dev/null" || cleaned == "dev/null" {
        return Ok(None);
    }
    if cleaned.is_empty() {
        return Err(ParseError::Malformed {
            line,
            message: "file header names no path".into(),
        });
    }
    strip(&cleaned, strip_n, line).map(Some)
}

/// `path` without a timestamp written after spaces instead of the tab
/// `diff -u` puts there (`before.c 2023-04-15 16:00:00.000 -0700`, as models
/// write it): cut at the first run of spaces followed by a date and a time
/// (`YYYY-MM-DD HH:MM`, `T` allowed between them, then the end, `:`, `.` or
/// a space). `git diff` ends a path holding a space with a tab, so a space
/// before a date and a time is a model's separator, not part of a name.
fn without_spaced_timestamp(path: &str) -> &str {
    let b = path.as_bytes();
    let digits = |at: usize, n: usize| {
        b.get(at..at + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let stamp = |at: usize| {
        digits(at, 4)
            && b.get(at + 4) == Some(&b'-')
            && digits(at + 5, 2)
            && b.get(at + 7) == Some(&b'-')
            && digits(at + 8, 2)
            && matches!(b.get(at + 10), Some(b' ' | b'T'))
            && {
                let t = at + 11;
                let h = if digits(t, 2) {
                    2
                } else {
                    usize::from(digits(t, 1))
                };
                h > 0
                    && b.get(t + h) == Some(&b':')
                    && digits(t + h + 1, 2)
                    && b.get(t + h + 3)
                        .is_none_or(|c| matches!(c, b':' | b'.' | b' '))
            }
    };
    (1..b.len())
        .find(|&k| {
            b[k - 1] != b' ' && b[k] == b' ' && {
                let start = k + b[k..].iter().take_while(|&&c| c == b' ').count();
                stamp(start)
            }
        })
        .map_or(path, |k| &path[..k])
}

/// File names without extension that are read as paths on a line of their
/// own (any other path needs an extension or a `/`, so prose such as `Done`
/// or `Here` is never a path).
const BARE_NAMES: &[&str] = &[
    "Makefile",
    "GNUmakefile",
    "makefile",
    "Dockerfile",
    "Containerfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Justfile",
    "justfile",
    "Jenkinsfile",
    "Vagrantfile",
    "Brewfile",
    "Podfile",
    "Fastfile",
    "Pipfile",
    "Caddyfile",
    "Earthfile",
    "Tiltfile",
    "Snakefile",
    "Taskfile",
    "BUILD",
    "WORKSPACE",
    "CODEOWNERS",
    "OWNERS",
    "LICENSE",
    "COPYING",
    "NOTICE",
    "AUTHORS",
    "CONTRIBUTORS",
    "README",
    "CHANGELOG",
    "VERSION",
];

/// A line cleaned of the decoration around a path: `**`, `__`, backticks,
/// quotes, `#`, a `File:`/`Path:` label and a trailing `:`.
pub(super) struct Undecorated<'a> {
    /// What is left: the path, if the line is one.
    pub text: &'a str,
    /// A label, a heading mark or a wrapping was taken off.
    pub decorated: bool,
    /// A trailing `:` was taken off.
    pub colon: bool,
}

pub(super) fn undecorate(line: &str) -> Undecorated<'_> {
    let mut s = line.trim();
    let mut decorated = false;
    let mut colon = false;
    loop {
        let before = s;
        if let Some(r) = s.strip_prefix('#') {
            s = r.trim_start_matches('#').trim();
            decorated = true;
        }
        for label in ["file:", "path:", "filename:", "filepath:"] {
            if s.len() > label.len()
                && s.get(..label.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(label))
            {
                s = s.get(label.len()..).unwrap_or("").trim();
                decorated = true;
            }
        }
        for wrap in ["**", "__", "`", "\"", "'", "*"] {
            if s.len() >= 2 * wrap.len() && s.starts_with(wrap) && s.ends_with(wrap) {
                s = s.get(wrap.len()..s.len() - wrap.len()).unwrap_or("").trim();
                decorated = true;
            }
        }
        if let Some(r) = s.strip_suffix(':') {
            s = r.trim_end();
            colon = true;
        }
        if s == before {
            break;
        }
    }
    Undecorated {
        text: s,
        decorated,
        colon,
    }
}

/// The path an info string names: `python:src/x.py` (a language, a colon,
/// a path) or a lone `src/x.py` / `x.py` (with a `/` or an extension that
/// holds a letter, so `python3.11` is no path). `None` for `python`, `diff`.
pub(crate) fn info_path(info: &str) -> Option<String> {
    let info = info.trim();
    if info.is_empty() || info.contains(char::is_whitespace) {
        return None;
    }
    let candidate = match info.split_once(':') {
        Some((lang, rest))
            if !lang.is_empty()
                && lang
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c)) =>
        {
            rest
        }
        Some(_) => return None,
        None => info,
    };
    let last = candidate.rsplit('/').next().unwrap_or("");
    let ext_has_letter = last
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ext.chars().any(|c| c.is_ascii_alphabetic()));
    if !(candidate.contains('/') || ext_has_letter) {
        return None;
    }
    path_line(candidate)
}

/// Reads a line that only names a file: `src/foo.rs`, `**src/foo.rs**`,
/// `` `src/foo.rs` ``, `File: src/foo.rs`, `# src/foo.rs`, `src/foo.rs:`.
/// Sentences (`Here is the change:`) are not paths.
pub(crate) fn path_line(line: &str) -> Option<String> {
    let Undecorated {
        text: s, decorated, ..
    } = undecorate(line);
    if s.ends_with('/') {
        return None;
    }
    // `./run` names a file in the tree as surely as `bin/run` does.
    let dotted = s.starts_with("./") && !s.contains(' ');
    let p = clean(s);
    // `C:\Users\dev\x.rb`: a Windows absolute path (models copy the user's
    // own); it names a file, which the tree then refuses as outside it.
    let p = match crate::source::windows_drive(&p) {
        Some(rest) if !rest.is_empty() => return path_line(rest).map(|_| p),
        _ => p,
    };
    if p.is_empty()
        || p.contains("://")
        || p.ends_with('.')
        || p.ends_with('/')
        || p.starts_with(['-', '+', '@', '='])
    {
        return None;
    }
    if !p
        .chars()
        .all(|c| c.is_alphanumeric() || " ._-/~+@=,()[]{}$%".contains(c))
    {
        return None;
    }
    let last = p.rsplit('/').next().unwrap_or("");
    let has_ext = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        !ext.is_empty()
            && ext.len() <= 12
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && (!stem.is_empty() || last.starts_with('.'))
    });
    if p.contains(' ') {
        return (decorated && has_ext).then_some(p);
    }
    if has_ext || dotted || p.contains('/') || BARE_NAMES.contains(&last) {
        return Some(p);
    }
    None
}

/// The file named before the edit that starts at line `i`: the nearest
/// non-empty line before it, read by [`path_line`]; when that line opens a
/// fence (the block's own: ```` ```python ````, `<source>`, ```` ```` ````),
/// its info string (```` ```python:src/x.py ````, ```` ```src/x.py ````) and
/// the line before the fence. That line may also close a fence of its own
/// holding only the path (```` ``` ```` / `src/x.py` / ```` ``` ````).
/// A path in the info string and another on the line before are refused.
pub(crate) fn path_before(src: &Src, i: usize) -> Result<Option<String>, ParseError> {
    let Some(mut k) = src.prev_non_empty(i) else {
        return Ok(None);
    };
    let mut info = None;
    if let Some(open) = src.line(k).and_then(fence::opening) {
        info = info_path(open.info).map(|p| (p, k));
        match src.prev_non_empty(k) {
            Some(before) => k = before,
            None => return Ok(info.map(|(p, _)| p)),
        }
    }
    let line = src.line(k).unwrap_or("");
    let named = path_line(line).or_else(|| fenced_path(src, k));
    match (info, named) {
        (Some((a, at)), Some(b)) if a != b => Err(ParseError::Malformed {
            line: src.orig(at),
            message: format!(
                "the fence names `{a}` but the line before it names `{b}`: which file is edited?"
            ),
        }),
        (Some((a, _)), _) => Ok(Some(a)),
        (None, named) => Ok(named),
    }
}

/// The path held alone in a fence whose closing line is line `k`
/// (```` ``` ```` / `src/x.py` / ```` ``` ````): the nearest fence line before
/// `k` opens it, and exactly one non-empty line stands between them.
fn fenced_path(src: &Src, k: usize) -> Option<String> {
    let close = src.line(k)?;
    if fence::opening(close).is_some_and(|o| !o.info.is_empty()) || !fence::is_any_fence(close) {
        return None;
    }
    let inner = src.prev_non_empty(k)?;
    let open = src.prev_non_empty(inner)?;
    let fence = fence::opening(src.line(open)?)?;
    if !fence::closes(fence.fence, close)
        || (open + 1..k).any(|m| m != inner && !src.line(m).is_some_and(|l| l.trim().is_empty()))
    {
        return None;
    }
    path_line(src.line(inner)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_after_spaces_are_cut_from_header_paths() {
        use super::without_spaced_timestamp as cut;
        assert_eq!(
            cut("before.c 2023-04-15 16:00:00.0000000 -0700"),
            "before.c"
        );
        assert_eq!(cut("src/a.java    2019-03-27 15:04:00"), "src/a.java");
        assert_eq!(cut("a.ts  2023-04-07T9:30"), "a.ts");
        // No time, a time glued to more text, or nothing before: a name.
        assert_eq!(cut("notes 2023-04-15.txt"), "notes 2023-04-15.txt");
        assert_eq!(
            cut("log 2023-04-15 12:00x.txt"),
            "log 2023-04-15 12:00x.txt"
        );
        assert_eq!(cut("my file.txt"), "my file.txt");
    }

    use super::*;

    #[test]
    fn paths_in_info_strings() {
        assert_eq!(info_path("python:src/x.py").as_deref(), Some("src/x.py"));
        assert_eq!(info_path("src/x.py").as_deref(), Some("src/x.py"));
        assert_eq!(info_path("x.py").as_deref(), Some("x.py"));
        assert_eq!(info_path("sh:bin/run").as_deref(), Some("bin/run"));
        for none in ["python", "diff", "python3.11", "", "rust ignore", "c++"] {
            assert_eq!(info_path(none), None, "{none}");
        }
    }
}
