//! Every public item of the library has an example that runs as a doctest.
//!
//! The public surface is read from the source, as `cargo fmt` lays it out:
//! the modules `src/lib.rs` declares `pub mod` (and their `pub mod`s), the
//! items re-exported with `pub use`, and, for each of those, every `pub`
//! function, method, associated constant, type, trait (with its methods) and
//! module. `pub(crate)` items, `#[cfg(test)]` modules and private inline
//! modules are skipped; fields and enum variants are covered by their type's
//! example. An item passes when the doc comment right above it (for a
//! module, its `//!` comment) holds a fenced code block that runs: no
//! `ignore`, `no_run`, `compile_fail` or non-Rust fence.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// One source file, split in lines.
struct Source {
    path: PathBuf,
    lines: Vec<String>,
}

impl Source {
    fn read(path: &Path) -> Source {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Source {
            path: path.to_path_buf(),
            lines: text.lines().map(str::to_string).collect(),
        }
    }

    fn name(&self, line: usize) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let rel = self.path.strip_prefix(root).unwrap_or(&self.path);
        format!("{}:{}", rel.display(), line + 1)
    }

    /// The line closing the block opened at `open` (same indentation, `}`).
    fn block_end(&self, open: usize) -> usize {
        let indent = indentation(&self.lines[open]);
        let close = format!("{}}}", " ".repeat(indent));
        (open + 1..self.lines.len())
            .find(|&i| self.lines[i].starts_with(&close) && indentation(&self.lines[i]) == indent)
            .unwrap_or(self.lines.len())
    }

    /// Line ranges whose items are not public: `#[cfg(test)]` blocks and
    /// inline modules that are not `pub`.
    fn hidden(&self) -> Vec<(usize, usize)> {
        let mut hidden = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            let t = line.trim_start();
            let test = t.starts_with("#[cfg(test)]")
                && self
                    .lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_end().ends_with('{'));
            let private_mod = (t.starts_with("mod ") || t.starts_with("pub(crate) mod "))
                && t.trim_end().ends_with('{');
            if test {
                hidden.push((i, self.block_end(i + 1)));
            } else if private_mod {
                hidden.push((i, self.block_end(i)));
            }
        }
        hidden
    }

    /// The doc comment lines right above `item` (attributes skipped).
    fn docs_above(&self, item: usize) -> Vec<&str> {
        let mut docs = Vec::new();
        for line in self.lines[..item].iter().rev() {
            let t = line.trim();
            if let Some(doc) = t.strip_prefix("///") {
                docs.push(doc.strip_prefix(' ').unwrap_or(doc));
            } else if t.is_empty() || t.ends_with(';') || t.ends_with('}') || t.ends_with('{') {
                break;
            }
            // Anything else is an attribute, or a line of a long one.
        }
        docs.reverse();
        docs
    }

    /// The `//!` comment of the file.
    fn inner_docs(&self) -> Vec<&str> {
        self.lines
            .iter()
            .map(|l| l.trim())
            .take_while(|t| t.starts_with("//!") || t.is_empty() || t.starts_with("#!["))
            .filter_map(|t| t.strip_prefix("//!"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect()
    }
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// True when `docs` hold a fenced block that rustdoc runs as a test.
fn has_example(docs: &[&str]) -> bool {
    let mut open = false;
    for line in docs {
        let Some(info) = line.trim().strip_prefix("```") else {
            continue;
        };
        if open {
            open = false;
            continue;
        }
        open = true;
        let runs = info
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .all(|w| w == "rust" || w.starts_with("edition"));
        if runs {
            return true;
        }
    }
    false
}

/// `pub <kind> <name>` (not `pub(…)`): the kind and the name.
fn public_item(line: &str) -> Option<(&'static str, String)> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
    let rest = rest
        .strip_prefix("const ")
        .filter(|r| r.starts_with("fn "))
        .unwrap_or(rest);
    for kind in [
        "fn", "struct", "enum", "trait", "const", "type", "mod", "static",
    ] {
        if let Some(after) = rest.strip_prefix(kind).and_then(|r| r.strip_prefix(' ')) {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return Some((kind, name));
        }
    }
    None
}

/// The type an inherent `impl` block at `line` is for (`None` for trait impls).
fn impl_target(line: &str) -> Option<String> {
    let t = line.trim_start().strip_prefix("impl")?;
    if !t.trim_end().ends_with('{') || t.contains(" for ") {
        return None;
    }
    let t = if t.starts_with('<') {
        let mut depth = 0;
        let end = t.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i + 1)
        })?;
        &t[end..]
    } else {
        t
    };
    let name: String = t
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    Some(name.rsplit("::").next()?.to_string())
}

/// The file of module `path` (`["report", "feedback"]`).
fn module_file(path: &[String]) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if path.is_empty() {
        return src.join("lib.rs");
    }
    let dir = path.iter().fold(src, |p, m| p.join(m));
    let flat = dir.with_extension("rs");
    if flat.exists() {
        flat
    } else {
        dir.join("mod.rs")
    }
}

#[derive(Default)]
struct Checker {
    checked: BTreeSet<String>,
    missing: Vec<String>,
    seen_modules: BTreeSet<Vec<String>>,
}

impl Checker {
    fn check(&mut self, ok: bool, what: String) {
        if self.checked.insert(what.clone()) && !ok {
            self.missing.push(what);
        }
    }

    /// A public module: its docs, its items, its public submodules and re-exports.
    fn module(&mut self, path: Vec<String>) {
        if !self.seen_modules.insert(path.clone()) {
            return;
        }
        let src = Source::read(&module_file(&path));
        let module_name = if path.is_empty() {
            "crate".to_string()
        } else {
            path.join("::")
        };
        self.check(
            has_example(&src.inner_docs()),
            format!("{} mod {module_name}", src.name(0)),
        );
        let hidden = src.hidden();
        let visible = |i: usize| !hidden.iter().any(|&(a, b)| a <= i && i <= b);
        for (i, line) in src.lines.iter().enumerate() {
            if !visible(i) || indentation(line) != 0 {
                continue;
            }
            if let Some((kind, name)) = public_item(line) {
                if kind == "mod" {
                    let mut sub = path.clone();
                    sub.push(name);
                    self.module(sub);
                } else {
                    self.item(&src, i);
                }
            } else if line.starts_with("pub use ") {
                self.reexports(&path, &use_statement(&src, i));
            }
        }
    }

    /// The `pub` members (or, in a trait, every `fn`) of the block opened at `open`.
    fn members(&mut self, src: &Source, open: usize) {
        let inner = indentation(&src.lines[open]) + 4;
        let trait_block = src.lines[open].contains("trait ");
        for j in open + 1..src.block_end(open) {
            let line = &src.lines[j];
            if indentation(line) != inner {
                continue;
            }
            let t = line.trim_start();
            let member = public_item(line).is_some()
                || (trait_block && (t.starts_with("fn ") || t.starts_with("const ")));
            if member {
                let t = t.strip_prefix("pub ").unwrap_or(t);
                let what = t
                    .split(['(', '<', ':', '=', '{'])
                    .next()
                    .unwrap_or(t)
                    .trim();
                self.check(
                    has_example(&src.docs_above(j)),
                    format!("{} {}", src.name(j), what),
                );
            }
        }
    }

    /// The item declared at line `i` of `src`, with its methods when it is a
    /// type or trait.
    fn item(&mut self, src: &Source, i: usize) {
        let (kind, name) = public_item(&src.lines[i]).expect("an item");
        self.check(
            has_example(&src.docs_above(i)),
            format!("{} {kind} {name}", src.name(i)),
        );
        if kind == "trait" {
            self.members(src, i);
        }
        if matches!(kind, "struct" | "enum" | "trait") {
            for (j, line) in src.lines.iter().enumerate() {
                if impl_target(line).as_deref() == Some(name.as_str()) {
                    self.members(src, j);
                }
            }
        }
    }

    /// `pub use a::b::{C, D};` in module `path`.
    fn reexports(&mut self, path: &[String], text: &str) {
        let (prefix, names) = use_parts(text).expect("a path");
        let mut module: Vec<String> = path.to_vec();
        for part in prefix.split("::") {
            match part {
                "crate" => module.clear(),
                "super" => {
                    module.pop();
                }
                "self" => {}
                m => module.push(m.to_string()),
            }
        }
        let src = Source::read(&module_file(&module));
        for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
            let name = name.split(" as ").next().unwrap_or(name).trim();
            let mut found = false;
            for (i, line) in src.lines.iter().enumerate() {
                if public_item(line).is_some_and(|(_, n)| n == name) {
                    found = true;
                    if public_item(line).is_some_and(|(k, _)| k == "mod") {
                        let mut sub = module.clone();
                        sub.push(name.to_string());
                        self.module(sub);
                    } else {
                        self.item(&src, i);
                    }
                    break;
                }
            }
            if !found && let Some(again) = reexport_of(&src, name) {
                // Re-exported there in turn (`pub use outcome::{Tier, …}`):
                // followed to where it is declared.
                found = true;
                self.reexports(&module, &again);
            }
            assert!(
                found,
                "`pub use {prefix}::{name}`: no `pub` item {name} in {}",
                src.path.display()
            );
        }
    }
}

/// The `use` statement starting at line `i` of `src`, on one line.
fn use_statement(src: &Source, i: usize) -> String {
    let mut text = src.lines[i].clone();
    let mut j = i;
    while !text.trim_end().ends_with(';') && j + 1 < src.lines.len() {
        j += 1;
        text.push_str(src.lines[j].trim());
    }
    text
}

/// The path and the names of `pub use PATH::{A, B};` (or `PATH::A`).
fn use_parts(text: &str) -> Option<(&str, Vec<&str>)> {
    let body = text
        .trim()
        .trim_start_matches("pub use ")
        .trim_end_matches(';');
    Some(match body.split_once('{') {
        Some((p, rest)) => (
            p.trim_end_matches("::"),
            rest.trim_end_matches('}').split(',').collect(),
        ),
        None => {
            let (p, n) = body.rsplit_once("::")?;
            (p, vec![n])
        }
    })
}

/// The `pub use` of `src` that re-exports `name`, as `pub use PATH::name;`.
fn reexport_of(src: &Source, name: &str) -> Option<String> {
    src.lines.iter().enumerate().find_map(|(i, line)| {
        if indentation(line) != 0 || !line.starts_with("pub use ") {
            return None;
        }
        let text = use_statement(src, i);
        let (prefix, names) = use_parts(&text)?;
        names
            .iter()
            .any(|n| n.trim() == name)
            .then(|| format!("pub use {prefix}::{name};"))
    })
}

#[test]
fn every_public_item_has_a_runnable_example() {
    let mut checker = Checker::default();
    checker.module(Vec::new());
    let total = checker.checked.len();
    assert!(
        total > 40,
        "only {total} public items found: is the parser broken?"
    );
    assert!(
        checker.missing.is_empty(),
        "{} of {total} public items have no example that runs as a doctest:\n  {}",
        checker.missing.len(),
        checker.missing.join("\n  ")
    );
    eprintln!("{total} public items, each with an example");
}

#[test]
fn the_checker_tells_examples_from_other_blocks() {
    assert!(has_example(&["Text.", "```", "assert!(true);", "```"]));
    assert!(has_example(&["```rust", "assert!(true);", "```"]));
    assert!(!has_example(&["```text", "output", "```"]));
    assert!(!has_example(&[
        "```ignore",
        "x",
        "```",
        "```no_run",
        "y",
        "```"
    ]));
    assert!(!has_example(&["No example here."]));
    assert_eq!(public_item("pub fn run(x: u8)"), Some(("fn", "run".into())));
    assert_eq!(
        public_item("    pub const ALL: [u8; 1]"),
        Some(("const", "ALL".into()))
    );
    assert_eq!(public_item("pub(crate) fn hidden()"), None);
    assert_eq!(public_item("    pub name: String,"), None);
    assert_eq!(impl_target("impl<'a> Foo<'a> {").as_deref(), Some("Foo"));
    assert_eq!(impl_target("impl Display for Foo {"), None);
}
