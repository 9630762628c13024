//! The dependency rule of `docs/architecture.md`, checked on the sources:
//! nothing below the run orchestration imports the report, only the
//! planner imports the outcome's types, no import cycle between top-level
//! modules appears beyond the ones the document names (none today), and
//! none between files. The edges are the `crate::X` (and, between files,
//! `super::X`) paths in each file's code (comments and doc examples left
//! out).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The modules below the run orchestration (`run/`, `hook.rs`,
/// `main.rs`): the core and the edges it hands its outcome to.
const BELOW_THE_RUN: &[&str] = &[
    "error",
    "git",
    "journal",
    "locate",
    "lock",
    "model",
    "outcome",
    "patch",
    "plan",
    "sigbus",
    "signals",
    "source",
    "test_hooks",
    "write",
];

/// The cycles `docs/architecture.md` names as remaining, each sorted:
/// none today. A new one fails the test until the document names it (and
/// says why it stays) or the modules are untangled.
const KNOWN_CYCLES: &[&[&str]] = &[];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module of a file under `src/` (`locate` for
/// `src/locate/search.rs`, `cli` for `src/cli/help.rs`).
fn top(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The names `code` reaches as `crate::NAME`, also inside `use crate::{…}`.
fn reached(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let word = |s: &str| {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect::<String>()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                names.insert(word(part.trim()));
            }
        } else {
            names.insert(word(rest));
        }
    }
    names
}

/// The text of `file` with its `//` comments cut off each line.
fn code_of(file: &Path) -> String {
    fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::X` edge between the top-level modules of `src/`.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| top(&src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top(&src, file);
        let code = code_of(file);
        for to in reached(&code) {
            if to != from && modules.contains(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module, each sorted.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut found = BTreeSet::new();
    for (m, from_m) in &reaches {
        let mut component: Vec<String> = from_m
            .iter()
            .filter(|o| *o != *m && reaches.get(o).is_some_and(|r| r.contains(*m)))
            .cloned()
            .collect();
        if !component.is_empty() {
            component.push((*m).clone());
            component.sort();
            found.insert(component);
        }
    }
    found
}

#[test]
fn nothing_below_the_run_imports_the_report() {
    let edges = edges();
    let offenders: Vec<&String> = edges
        .iter()
        .filter(|(from, to)| BELOW_THE_RUN.contains(&from.as_str()) && to.contains("report"))
        .map(|(from, _)| from)
        .collect();
    assert!(
        offenders.is_empty(),
        "these modules import crate::report, which is built from their outcome: {offenders:?}"
    );
}

/// Below the run, the modules that may import `outcome` (its `Problem`, the
/// report's data): the planner, which makes the outcome. The parser, the
/// ladder, the edit planner and the edges (targets, git, writing, the
/// journal) fail with errors of their own (docs/architecture.md, "Errors").
const MAKE_THE_OUTCOME: &[&str] = &["plan", "outcome"];

#[test]
fn below_the_run_only_the_planner_imports_the_outcome() {
    let edges = edges();
    let offenders: Vec<&String> = edges
        .iter()
        .filter(|(from, to)| {
            BELOW_THE_RUN.contains(&from.as_str())
                && !MAKE_THE_OUTCOME.contains(&from.as_str())
                && to.contains("outcome")
        })
        .map(|(from, _)| from)
        .collect();
    assert!(
        offenders.is_empty(),
        "these modules import crate::outcome instead of failing with errors of their own: {offenders:?}"
    );
}

/// Inside the planner, the edits of a file (`plan/edits.rs`, once
/// `src/plan.rs`, a module of its own below the planner) still import
/// neither the outcome nor the report: they are neutral data the planner
/// turns into its outcome.
#[test]
fn the_edits_of_a_file_import_neither_the_outcome_nor_the_report() {
    let edits = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/plan/edits.rs");
    let reached = reached(&code_of(&edits));
    assert!(
        reached.contains("model"),
        "the check sees its imports: {reached:?}"
    );
    for not in ["outcome", "report"] {
        assert!(
            !reached.contains(not),
            "src/plan/edits.rs imports crate::{not}"
        );
    }
}

#[test]
fn no_import_cycle_beyond_the_ones_named() {
    let found = cycles(&edges());
    let known: BTreeSet<Vec<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.difference(&known).collect();
    assert!(
        new.is_empty(),
        "import cycles between top-level modules that docs/architecture.md does not name: {new:?}"
    );
}

/// The module path of a file under `src/` (`locate/keys` for
/// `src/locate/keys.rs`, `locate` for `src/locate/mod.rs`).
fn module_path(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let rel = rel.to_string_lossy().replace('\\', "/");
    rel.strip_suffix("/mod").unwrap_or(&rel).to_string()
}

/// The paths of the use tree (or plain path) at the start of `s`, each as
/// its words: `a::{b, c::{d, e as f}}` gives `a b`, `a c d` and `a c e`;
/// `a::B::new(x)` gives `a B new`. Returns where the tree ends.
fn use_paths(s: &[u8], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let skip_space = |i: &mut usize| {
        while s.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    skip_space(&mut i);
    if s.get(i) == Some(&b'{') {
        i += 1;
        let mut all = Vec::new();
        loop {
            let (paths, j) = use_paths(s, i);
            all.extend(paths);
            i = j;
            // Past what follows the item (`as name`) to its `,` or the `}`.
            let mut depth = 0;
            while let Some(&c) = s.get(i) {
                match c {
                    b'{' => depth += 1,
                    b'}' if depth == 0 => break,
                    b'}' => depth -= 1,
                    b',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            match s.get(i) {
                Some(b',') => i += 1,
                Some(_) => return (all, i + 1),
                None => return (all, i),
            }
        }
    }
    let start = i;
    while s
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        i += 1;
    }
    if i == start {
        return (Vec::new(), i);
    }
    let word = String::from_utf8_lossy(&s[start..i]).to_string();
    if !s[i..].starts_with(b"::") {
        return (vec![vec![word]], i);
    }
    let (rest, end) = use_paths(s, i + 2);
    if rest.is_empty() {
        return (vec![vec![word]], end);
    }
    let paths = rest
        .into_iter()
        .map(|mut p| {
            p.insert(0, word.clone());
            p
        })
        .collect();
    (paths, end)
}

/// For each line of `code`, how many inline modules (`mod tests { … }`,
/// as rustfmt lays them out) it is inside: `super::` there first leaves
/// those.
fn inline_depths(code: &str) -> Vec<usize> {
    let mut open: Vec<String> = Vec::new();
    let mut depths = Vec::new();
    for line in code.lines() {
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        let rest = line.trim();
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        let rest = rest.strip_prefix("pub(super) ").unwrap_or(rest);
        let opens = rest.strip_prefix("mod ").is_some_and(|r| {
            r.strip_suffix(" {")
                .is_some_and(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        });
        if open.last().is_some_and(|o| *o == indent) && rest == "}" {
            open.pop();
        }
        depths.push(open.len());
        if opens {
            open.push(indent);
        }
    }
    depths
}

/// The file module `words` name from `base` (the module the path starts
/// at): the longest run of them that is a file's module, if any.
fn resolve(modules: &BTreeSet<String>, base: &str, words: &[String]) -> String {
    let mut best = base.to_string();
    let mut at = base.to_string();
    for word in words {
        at = if at.is_empty() {
            word.clone()
        } else {
            format!("{at}/{word}")
        };
        if !modules.contains(&at) {
            break;
        }
        best = at.clone();
    }
    best
}

/// The files' modules that `code`, the code of the file of module `from`,
/// names: every `crate::` path, and every `super::` path, which starts
/// at the module as many levels up as it has `super`s (less the inline
/// modules it stands in).
fn named_files(modules: &BTreeSet<String>, from: &str, code: &str) -> BTreeSet<String> {
    let depths = inline_depths(code);
    let mut line_starts = vec![0];
    line_starts.extend(code.match_indices('\n').map(|(i, _)| i + 1));
    let bytes = code.as_bytes();
    let mut named = BTreeSet::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in code.match_indices(prefix) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let line = line_starts.partition_point(|&s| s <= i) - 1;
            let start = if prefix == "crate::" {
                i + prefix.len()
            } else {
                i
            };
            for path in use_paths(bytes, start).0 {
                let (base, words) = if prefix == "crate::" {
                    (Some(String::new()), &path[..])
                } else {
                    let supers = path.iter().take_while(|w| *w == "super").count();
                    let up = supers.saturating_sub(depths[line]);
                    let mut base = (up > 0).then(|| from.to_string());
                    for _ in 0..up {
                        base = base.and_then(|b| {
                            (!b.is_empty())
                                .then(|| b.rsplit_once('/').map_or("", |(p, _)| p).to_string())
                        });
                    }
                    (base, &path[supers..])
                };
                if let Some(base) = base {
                    named.insert(resolve(modules, &base, words));
                }
            }
        }
    }
    named
}

/// Every edge between two files' modules below the top level, given each
/// file's module and code: the `super::` and `crate::` paths to another
/// file's module, leaving out a file's own ancestors (a child uses its
/// parent's types by design).
fn file_edges_in(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, code) in files {
        for to in named_files(&modules, from, code) {
            let ancestor = from.starts_with(&format!("{to}/"));
            if to != *from && !ancestor && to.contains('/') {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// Every edge between two files of `src/` (see [`file_edges_in`]).
fn file_edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let files: Vec<(String, String)> = files
        .iter()
        .map(|f| (module_path(&src, f), code_of(f)))
        .collect();
    file_edges_in(&files)
}

#[test]
fn no_import_cycle_between_files() {
    let edges = file_edges();
    // The check sees the edges it must: these are there today (a sibling
    // named through `super::`, a cousin through `super::super::`).
    let sees = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    assert!(sees("plan/file", "plan/hunks"), "{edges:?}");
    assert!(sees("locate/prefilter/scan", "locate/keys"), "{edges:?}");
    let found = cycles(&edges);
    assert!(
        found.is_empty(),
        "import cycles between files (docs/architecture.md, dependency rule 3): {found:?}"
    );
}

/// The file check finds a cycle however its edges are written: `super::`
/// to a sibling, `super::super::` to a cousin, `crate::` paths, nested
/// `use` groups, and not a test module's own `super::`.
#[test]
fn the_file_check_finds_a_cycle_when_there_is_one() {
    let file = |m: &str, code: &str| (m.to_string(), code.to_string());
    let base = vec![
        file("m", "mod a;\nmod b;\nmod p;\n"),
        file("m/a", "use super::b::B;\n"),
        file("m/p", "mod q;\n"),
        file(
            "m/p/q",
            "use super::super::a::A;\n#[cfg(test)]\nmod tests {\n    use super::super::b;\n}\n",
        ),
    ];
    assert!(cycles(&file_edges_in(&base)).is_empty());
    let edges = file_edges_in(&base);
    assert_eq!(edges["m/p/q"], BTreeSet::from(["m/a".to_string()]));
    for back in [
        "use super::a::A;\n",
        "fn f() { super::a::A::new() }\n",
        "use crate::m::a;\n",
        "use crate::{m::{a::A, p}, x};\n",
        "use super::p::q::Q;\n",
    ] {
        let mut files = base.clone();
        files.push(file("m/b", back));
        let found = cycles(&file_edges_in(&files));
        assert!(!found.is_empty(), "no cycle found with m/b: {back}");
    }
}

/// The command's crates (clap, its man page and completions, the progress
/// bar) are the binary's: a program that uses only the library
/// (`default-features = false`) does not build them; the command does.
#[test]
fn the_library_alone_does_not_depend_on_the_command_s_crates() {
    let tree = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO"))
            .args([
                "tree",
                "--locked",
                "--offline",
                "-e",
                "normal",
                "--prefix",
                "none",
            ])
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo tree runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let names: BTreeSet<String> = text
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect();
        names
    };
    let command = ["clap", "clap_complete", "clap_mangen", "indicatif"];
    let library = tree(&["--no-default-features"]);
    assert!(
        library.contains("gix"),
        "the check sees the library's crates: {library:?}"
    );
    for name in command {
        assert!(
            !library.contains(name),
            "the library alone depends on {name}"
        );
    }
    let with_command = tree(&[]);
    for name in command {
        assert!(with_command.contains(name), "the command lacks {name}");
    }
}
