//! Writes hunks in every notation the engine reads: unified diff, numberless
//! diff, Codex envelope and SEARCH/REPLACE blocks.

use super::edit::{Hunk, Kind};

/// How unified hunk headers carry line numbers.
#[derive(Clone, Debug)]
pub enum Numbers {
    /// Correct `@@ -a,b +c,d @@` headers.
    Correct,
    /// Correct headers with each hunk's starts moved by its delta.
    Shifted(Vec<i64>),
    /// Bare `@@` (or `@@ @@`) headers.
    Bare {
        /// Write `@@ @@` rather than `@@`.
        pair: bool,
    },
}

/// The 1-based start lines (old, new) of each hunk in a correct unified diff.
pub fn starts(hunks: &[Hunk]) -> Vec<(usize, usize)> {
    let mut delta: i64 = 0;
    hunks
        .iter()
        .map(|h| {
            let old_len = h.old_lines().len();
            let new_len = h.new_lines().len();
            // A side with no lines names the line before the place (`-a,0`
            // inserts after line a); otherwise its first line.
            let old = if old_len == 0 {
                h.old_start
            } else {
                h.old_start + 1
            };
            let new0 = (h.old_start as i64 + delta).max(0) as usize;
            let new = if new_len == 0 { new0 } else { new0 + 1 };
            delta += new_len as i64 - old_len as i64;
            (old, new)
        })
        .collect()
}

fn body_text(h: &Hunk, out: &mut String) {
    for l in &h.body {
        let mark = match l.kind {
            Kind::Context => ' ',
            Kind::Remove => '-',
            Kind::Add => '+',
        };
        out.push(mark);
        out.push_str(&l.text);
        out.push('\n');
    }
}

/// A unified diff (`--- a/path`, `+++ b/path`, hunks) with headers per `numbers`.
pub fn unified(path: &str, hunks: &[Hunk], numbers: &Numbers) -> String {
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for (k, (h, (old, new))) in hunks.iter().zip(starts(hunks)).enumerate() {
        let (ol, nl) = (h.old_lines().len(), h.new_lines().len());
        match numbers {
            Numbers::Correct => out.push_str(&format!("@@ -{old},{ol} +{new},{nl} @@\n")),
            Numbers::Shifted(d) => {
                let shift = |n: usize| (n as i64 + d[k]).max(1);
                out.push_str(&format!(
                    "@@ -{},{ol} +{},{nl} @@\n",
                    shift(old),
                    shift(new)
                ));
            }
            Numbers::Bare { pair: true } => out.push_str("@@ @@\n"),
            Numbers::Bare { pair: false } => out.push_str("@@\n"),
        }
        body_text(h, &mut out);
    }
    out
}

/// A Codex `*** Begin Patch` envelope; `anchors[k]` is hunk k's `@@` anchor.
pub fn codex(path: &str, hunks: &[Hunk], anchors: &[Option<String>]) -> String {
    let mut out = format!("*** Begin Patch\n*** Update File: {path}\n");
    for (k, h) in hunks.iter().enumerate() {
        match anchors.get(k).and_then(|a| a.as_deref()) {
            Some(a) => out.push_str(&format!("@@ {a}\n")),
            None => out.push_str("@@\n"),
        }
        body_text(h, &mut out);
    }
    out.push_str("*** End Patch\n");
    out
}

/// A SEARCH/REPLACE block before it is written out.
#[derive(Clone, Debug)]
pub struct SrBlock {
    /// The SEARCH section's lines.
    pub search: Vec<String>,
    /// The REPLACE section's lines.
    pub replace: Vec<String>,
    /// 1-based file line of the first SEARCH line.
    pub start_line: usize,
}

/// One block per hunk: old lines to search for, new lines to put there.
pub fn sr_blocks(hunks: &[Hunk]) -> Vec<SrBlock> {
    hunks
        .iter()
        .map(|h| SrBlock {
            search: h.old_lines().into_iter().map(str::to_string).collect(),
            replace: h.new_lines().into_iter().map(str::to_string).collect(),
            start_line: h.old_start + 1,
        })
        .collect()
}

/// True when a line would be read as a SEARCH/REPLACE marker.
pub fn looks_like_marker(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<<<<<<<") || t.starts_with(">>>>>>>") || t.starts_with("=======")
}

/// Fence language for a file name's extension.
pub fn language(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("rs") => "rust",
        Some("py") => "python",
        Some("toml") => "toml",
        Some("md") => "markdown",
        _ => "",
    }
}

/// Aider-style blocks: each as the path line, a fence, the block, the closing
/// fence; with `start_line`, Roo's `:start_line:N` and `-------` lines too.
pub fn search_replace(path: &str, blocks: &[SrBlock], start_line: bool) -> String {
    let mut out = String::new();
    for (k, b) in blocks.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{path}\n```{}\n<<<<<<< SEARCH\n", language(path)));
        if start_line {
            out.push_str(&format!(":start_line:{}\n-------\n", b.start_line));
        }
        for l in &b.search {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("=======\n");
        for l in &b.replace {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(">>>>>>> REPLACE\n```\n");
    }
    out
}
