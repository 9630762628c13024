//! Fuzz target `cli`: what the command does (`invocation::run`: path
//! normalisation and joining, multi-file planning, the journal, writing and
//! recovery) on a small tree in a scratch directory.
//!
//! The input is `flags, patch, (0xFF, selector, content)*`: each section
//! after the patch puts `content` at one of a few paths (`selector` picks
//! the path; bit 6 makes it a symbolic link to `../outside.txt` or to
//! another path of the tree, bit 7 makes it executable). Bit 0 of `flags`
//! is `-R`, bit 1 `--partial`, bit 2 `--reject`, bit 3 `--check`.
//!
//! Checked on every input:
//! - never a panic, never a write outside the tree (`outside.txt` and the
//!   conflict report's directory aside, nothing beside the tree changes);
//! - no half write: when the run did not succeed, the tree is as before
//!   (apart from `.rej` files under `--reject`), and no journal is left;
//! - idempotence: when the run wrote, running the same patch again
//!   changes nothing and reports every hunk already applied or a no-op
//!   (or, when a hunk needed more tolerance than whitespace the first time,
//!   is refused), unless the patch holds a hunk whose result the already-applied
//!   rule cannot recognise (added lines with no word in them, without a
//!   removed line framed by context: `docs/matching.md`, rule 7), a file
//!   operation other than an update, or a result that is binary (a patch
//!   line holding NUL).

#![no_main]

use git_fuzzy_apply::model::{FileOp, LineKind};
use git_fuzzy_apply::report::{FileStatus, HunkOutcome, Report};
use git_fuzzy_apply::{ApplyOptions, Invocation, ParseOptions, Tier, parse_patch, run};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The paths a section may fill.
const PATHS: [&str; 6] = ["a.txt", "b.txt", "sub/a.txt", "sub/deep/c.txt", "d", "x.py"];

/// What is at a path of the tree.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    File(Vec<u8>, u32),
    Dir,
    Link(PathBuf),
}

/// Every path under `root`, not following links.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let value = if meta.file_type().is_symlink() {
                Entry::Link(fs::read_link(&path).unwrap_or_default())
            } else if meta.is_dir() {
                stack.push(path.clone());
                Entry::Dir
            } else {
                let mode = meta.permissions().mode() & 0o111;
                Entry::File(fs::read(&path).unwrap_or_default(), mode)
            };
            out.insert(rel, value);
        }
    }
    out
}

/// The tree without the run lock (kept between runs by design) and `.rej`
/// files (written under `--reject`).
fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut all = snapshot(root);
    all.retain(|p, _| {
        let name = p.to_string_lossy();
        name != ".git-fuzzy-apply.lock" && !name.ends_with(".rej")
    });
    all
}

/// Builds the tree the sections describe under `root`.
fn build(root: &Path, sections: &[&[u8]]) {
    for section in sections.iter().take(6) {
        let Some((&selector, content)) = section.split_first() else {
            continue;
        };
        let path = root.join(PATHS[usize::from(selector & 0x3F) % PATHS.len()]);
        if let Some(parent) = path.parent() {
            let _ = fs::create_dir_all(parent);
        }
        if path.exists() || fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        if selector & 0x40 != 0 {
            let target = if content.first().is_some_and(|b| b % 2 == 0) {
                // From any depth, `outside.txt` beside the tree.
                let depth = path.strip_prefix(root).map_or(0, |p| p.components().count());
                PathBuf::from("../".repeat(depth)).join("outside.txt")
            } else {
                PathBuf::from(PATHS[usize::from(content.first().copied().unwrap_or(0)) % PATHS.len()])
            };
            let _ = std::os::unix::fs::symlink(target, &path);
        } else if fs::write(&path, content).is_ok() && selector & 0x80 != 0 {
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o755));
        }
    }
}

/// True when the already-applied rule can recognise every hunk of every
/// file the patch updates (and the patch only updates files).
fn recognisable(patch: &[u8], reverse: bool) -> bool {
    let Ok(parsed) = parse_patch(patch, &ParseOptions::default()) else {
        return false;
    };
    // Under -R the patch's added lines are the ones removed.
    let (add, remove) = if reverse {
        (LineKind::Remove, LineKind::Add)
    } else {
        (LineKind::Add, LineKind::Remove)
    };
    parsed.files.iter().all(|f| {
        f.op == FileOp::Update
            && f.move_to.is_none()
            && f.hunks.iter().all(|h| {
                let lines: Vec<git_fuzzy_apply::model::HunkLine> = h
                    .lines
                    .iter()
                    .map(|l| {
                        let mut l = l.clone();
                        if l.kind == add {
                            l.kind = LineKind::Add;
                        } else if l.kind == remove {
                            l.kind = LineKind::Remove;
                        }
                        l
                    })
                    .collect();
                let h = git_fuzzy_apply::model::Hunk { lines, ..h.clone() };
                let adds = h.lines.iter().any(|l| l.kind == LineKind::Add);
                let worded = h
                    .lines
                    .iter()
                    .any(|l| l.kind == LineKind::Add && l.text.chars().any(char::is_alphanumeric));
                let removes = h.lines.iter().any(|l| l.kind == LineKind::Remove);
                // A whitespace fix (every added line a removed line
                // respaced) is never taken for done (rule 7): re-applied,
                // it writes the same bytes again.
                let squeeze = |l: &&git_fuzzy_apply::model::HunkLine| {
                    l.text.split_whitespace().collect::<Vec<_>>().join(" ")
                };
                let added: Vec<String> =
                    h.lines.iter().filter(|l| l.kind == LineKind::Add).map(|l| squeeze(&l)).collect();
                let removed: Vec<String> =
                    h.lines.iter().filter(|l| l.kind == LineKind::Remove).map(|l| squeeze(&l)).collect();
                let respaced = adds && added == removed;
                !respaced
                    && ((!adds && !removes) || worded || (removes && !adds && framed(&h.lines)))
            })
    })
}

/// True when the new side of some hunk (its context and added lines, as
/// whole lines) stands more than once in the file it updates after the
/// first run: the applied state is then not located (rule 7), and the
/// second run may refuse the hunk as ambiguous instead of "already applied".
fn new_side_repeated(root: &Path, patch: &[u8], reverse: bool) -> bool {
    let Ok(parsed) = parse_patch(patch, &ParseOptions::default()) else {
        return false;
    };
    parsed.files.iter().any(|f| {
        let Ok(text) = fs::read(root.join(&f.path)) else {
            return false;
        };
        let text = String::from_utf8_lossy(&text);
        let file: Vec<&str> = text.lines().collect();
        let kept = if reverse { LineKind::Add } else { LineKind::Remove };
        f.hunks.iter().any(|h| {
            let new: Vec<&str> = h
                .lines
                .iter()
                .filter(|l| l.kind != kept)
                .map(|l| l.text.as_str())
                .collect();
            !new.is_empty() && file.windows(new.len()).filter(|w| *w == new.as_slice()).count() > 1
        })
    })
}

/// Non-blank context before the first removed line and after the last.
fn framed(lines: &[git_fuzzy_apply::model::HunkLine]) -> bool {
    let solid = |l: &git_fuzzy_apply::model::HunkLine| {
        l.kind == LineKind::Context && !l.text.trim().is_empty()
    };
    let first = lines.iter().position(|l| l.kind == LineKind::Remove);
    let last = lines.iter().rposition(|l| l.kind == LineKind::Remove);
    match (first, last) {
        (Some(f), Some(l)) => lines[..f].iter().any(solid) && lines[l + 1..].iter().any(solid),
        _ => false,
    }
}

fn done_already(report: &Report) -> bool {
    report.ok
        && report.files.iter().all(|f| {
            f.status == FileStatus::Unchanged
                && f.hunks
                    .iter()
                    .all(|h| matches!(h.status, HunkOutcome::AlreadyApplied | HunkOutcome::NoOp))
        })
}

fn invocation(flags: u8, report: PathBuf) -> Invocation {
    Invocation::default()
        .with_apply(
            ApplyOptions::default()
                .with_reverse(flags & 1 != 0)
                .with_partial(flags & 2 != 0),
        )
        .with_reject(flags & 4 != 0)
        .with_dry_run(flags & 8 != 0)
        .with_report_path(report)
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|&b| b == 0xFF);
    let patch = parts.next().unwrap_or_default();
    let sections: Vec<&[u8]> = parts.collect();
    let scratch = tempfile::tempdir().expect("scratch");
    let root = scratch.path().join("tree");
    fs::create_dir(&root).expect("tree");
    fs::write(scratch.path().join("outside.txt"), b"outside\n").expect("outside");
    build(&root, &sections);
    let inv = invocation(flags, scratch.path().join("report").join("last"));
    let before = tree(&root);
    let result = run(&root, patch, &inv);
    assert_eq!(
        fs::read(scratch.path().join("outside.txt")).ok().as_deref(),
        Some(&b"outside\n"[..]),
        "a file outside the tree was written"
    );
    assert!(
        !root.join(".git-fuzzy-apply.journal").exists(),
        "a journal was left: {result:?}"
    );
    let after = tree(&root);
    let wrote = matches!(&result, Ok(o) if o.written);
    if !wrote {
        assert_eq!(after, before, "nothing written, yet the tree changed: {result:?}");
        return;
    }
    let Ok(first) = result else { return };
    // A file the run made binary (a patch line holding NUL) is refused by
    // the next run, as every binary target is.
    let binary = after
        .values()
        .any(|e| matches!(e, Entry::File(bytes, _) if bytes.iter().take(8000).any(|&b| b == 0)));
    if inv.reject() || !first.report.ok || !recognisable(patch, inv.apply().reverse()) || binary {
        return;
    }
    let again = run(&root, patch, &inv).expect("the second run runs");
    assert_eq!(tree(&root), after, "the second run changed the tree: {:?}", again.report);
    // A hunk placed with more tolerance than whitespace (case, punctuation,
    // omitted lines, similarity) left a new side that does not stand exactly
    // but for whitespace, which rule 7 asks of the applied state: refusing
    // it again (nothing written) is its documented outcome.
    let lenient = first
        .report
        .files
        .iter()
        .flat_map(|f| &f.hunks)
        .any(|h| h.tier.is_some_and(|t| t > Tier::Resilient));
    // A new side standing twice after the first run is not a located
    // applied state: refusing it is the documented outcome too.
    let repeated = new_side_repeated(&root, patch, inv.apply().reverse());
    // The old side read with tolerance at another place than the new side
    // stands is two readings (rule 7): refused as ambiguous, nothing written.
    let ambiguous = again.report.files.iter().flat_map(|f| &f.hunks).any(|h| {
        h.failure
            .as_ref()
            .is_some_and(|f| f.code == git_fuzzy_apply::Reason::Ambiguous)
    });
    assert!(
        done_already(&again.report)
            || ((lenient || repeated || ambiguous) && !again.report.ok),
        "the second run did not find the patch applied: {:?}",
        again.report
    );
});
