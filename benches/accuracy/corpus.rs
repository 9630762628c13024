//! The source files cases are cut from: dependency sources cargo unpacked
//! under `~/.cargo/registry/src/*/` (`*.rs`, `*.md`, `*.toml`) and, where a
//! `python3` is installed, CPython's standard library (`*.py`).
//!
//! Nobody on this project wrote them, and every machine that builds the
//! project has the former. Lists are sorted so a seed picks the same files on
//! the same machine every time.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Fewest lines a file may have to be used.
pub const MIN_LINES: usize = 40;
/// Most lines a file may have to be used.
pub const MAX_LINES: usize = 2000;
/// Longest line (in bytes) a usable file may contain; longer ones are data, not code.
const MAX_LINE_BYTES: usize = 400;

/// One candidate file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Where it is on this machine.
    pub path: PathBuf,
    /// The path a patch names it by (relative, `/`-separated, ASCII, no spaces).
    pub rel: String,
    /// A hash of `rel`, for picking files stably (see [`Corpus::pick`]).
    pub key: u64,
}

/// Every candidate file, sorted by `rel` then `path`.
#[derive(Clone, Debug, Default)]
pub struct Corpus {
    /// The files, in a stable order.
    pub files: Vec<SourceFile>,
}

impl Corpus {
    /// Finds the candidate files on this machine (no network, no writes).
    pub fn discover() -> Corpus {
        let mut files = Vec::new();
        if let Some(home) = cargo_home() {
            let registry = home.join("registry").join("src");
            for index in sorted_entries(&registry) {
                walk(&index, &index, "", &["rs", "md", "toml"], &mut files);
            }
        }
        if let Some(stdlib) = python_stdlib() {
            walk(&stdlib, &stdlib, "Lib/", &["py"], &mut files);
        }
        files.sort_by(|a, b| (&a.rel, &a.path).cmp(&(&b.rel, &b.path)));
        files.dedup_by(|a, b| a.rel == b.rel);
        Corpus { files }
    }

    /// The file a random `draw` picks: the one whose key mixed with `draw`
    /// is smallest (rendezvous hashing). Unlike an index into the list, the
    /// pick does not move when other files come or go, so a registry that
    /// gained a crate changes few cases of a seed, not all.
    pub fn pick(&self, draw: u64) -> usize {
        let mut best = (u64::MAX, 0);
        for (i, f) in self.files.iter().enumerate() {
            let score = mix(f.key ^ draw);
            if score < best.0 {
                best = (score, i);
            }
        }
        best.1
    }

    /// Reads file `i` if it is usable text: UTF-8, LF only, final newline,
    /// no control characters but tab and form feed, `MIN_LINES..=MAX_LINES`
    /// lines, none longer than `MAX_LINE_BYTES`.
    pub fn load(&self, i: usize) -> Option<String> {
        let bytes = std::fs::read(&self.files.get(i)?.path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        usable(&text).then_some(text)
    }
}

/// True when `text` is a file the generator can use (see [`Corpus::load`]).
pub fn usable(text: &str) -> bool {
    if !text.ends_with('\n') {
        return false;
    }
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\x0c'))
    {
        return false;
    }
    let lines = text.lines().count();
    (MIN_LINES..=MAX_LINES).contains(&lines) && text.lines().all(|l| l.len() <= MAX_LINE_BYTES)
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The splitmix64 finaliser: spreads every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn cargo_home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(h));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))
}

fn python_stdlib() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.is_dir().then_some(dir)
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Collects files under `dir` with one of `exts`, naming them relative to `root`.
fn walk(root: &Path, dir: &Path, prefix: &str, exts: &[&str], out: &mut Vec<SourceFile>) {
    for path in sorted_entries(dir) {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if meta.is_dir() {
            if !matches!(name, "site-packages" | "__pycache__" | "target" | ".git") {
                walk(root, &path, prefix, exts, out);
            }
            continue;
        }
        let ext_ok = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e));
        if !meta.is_file() || !ext_ok || !(200..=200_000).contains(&meta.len()) {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = format!("{prefix}{}", rel.to_string_lossy());
        let plain = rel
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c));
        if plain {
            let key = fnv1a(rel.as_bytes());
            out.push(SourceFile { path, rel, key });
        }
    }
}
