//! Properties over every notation (issue 14, "Properties over every
//! notation"): for random small files and random edits written as a unified
//! diff, a numberless diff, a Codex envelope and SEARCH/REPLACE blocks, each
//! also with typical damage (line numbers dropped or wrong, whitespace
//! drift on the old side),
//!
//! - applying twice equals applying once: the second plan is "already
//!   applied" (or a no-op) for every hunk and changes no byte (a hunk the
//!   already-applied rule cannot recognise, one that adds no line with a
//!   word and removes no line framed by context, or whose old side is blank
//!   lines only, may be refused instead, never applied again);
//! - a unified diff applied and then applied with `-R` gives the original;
//! - a file padded past the memory-mapping threshold and the prefilter's
//!   line threshold has the same outcome, through the command's own run
//!   (`invocation::run`, where mapping and the prefilter happen), as the
//!   small file.
//!
//! `tests/it/roundtrip.rs` checks that the undamaged notations give the new
//! text; here that is asserted only as a guard for the properties above
//! (an undamaged patch without numbered headers may be refused where it
//! adds a line indented with the other character than every indented line
//! of the file: `docs/matching.md`, rule 6).

use git_fuzzy_apply::report::{FileStatus, HunkOutcome, Report};
use git_fuzzy_apply::{ApplyOptions, Invocation, MatchOptions, plan_patch, run};
use proptest::prelude::*;
use std::fs;
use std::path::Path;
use support::diffs::{
    OTHER_CHAR, hunks, join, other_char_addition, splice_edits, unified, unified_zero,
    unique_enough,
};

/// Distinct-looking lines (so context is unique), some indented, some blank.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => ("[ \t]{0,2}", "[a-z][a-z0-9_(){}=;:,. ]{6,24}")
            .prop_map(|(i, s)| format!("{i}{}", s.trim_end())),
        1 => Just(String::new()),
    ]
}

/// An old text and a copy with up to three replace/insert/delete edits.
fn text_pair() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    prop::collection::vec(line(), 1..30).prop_flat_map(|lines| {
        let len = lines.len();
        let ops = prop::collection::vec(
            (0..=len, 0usize..3, prop::collection::vec(line(), 0..3)),
            1..4,
        );
        ops.prop_map(move |ops| {
            let new = splice_edits(&lines, ops);
            (lines.clone(), new)
        })
    })
}

/// Typical whitespace damage to a context or removed line (never to an
/// added line, which is what the file gets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drift {
    /// Copied exactly.
    None,
    /// Trailing spaces appended.
    Trailing,
    /// Indentation lost.
    Unindented,
    /// Leading tabs written as four spaces.
    TabsAsSpaces,
}

impl Drift {
    fn apply(self, line: &str) -> String {
        match self {
            Drift::None => line.to_string(),
            Drift::Trailing if !line.is_empty() => format!("{line}  "),
            Drift::Trailing => line.to_string(),
            Drift::Unindented => line.trim_start().to_string(),
            Drift::TabsAsSpaces => {
                let rest = line.trim_start_matches('\t');
                format!("{}{rest}", "    ".repeat(line.len() - rest.len()))
            }
        }
    }
}

/// A hunk body line with its old-side text drifted.
fn drifted(body: &str, drift: Drift) -> String {
    match body.split_at(1) {
        (" ", rest) => format!(" {}", drift.apply(rest)),
        ("-", rest) => format!("-{}", drift.apply(rest)),
        _ => body.to_string(),
    }
}

/// Every notation of the edit `old` → `new`, named, with `exact` true for
/// those that must give exactly `new`.
struct Variant {
    name: String,
    patch: String,
    exact: bool,
    /// Its hunks carry numbered headers (`@@ -a,b +c,d @@`).
    numbered: bool,
}

/// Whether `report` refuses `patch` (written without numbered headers)
/// from `old` to `new` for an added line indented with the other character
/// than the file, where the file is indented so (`docs/matching.md`,
/// rule 6): a documented refusal of an exact patch.
fn other_char_refusal(v: &Variant, report: &Report, old: &str, new: &str) -> bool {
    !v.numbered
        && !report.ok
        && other_char_addition(old, new)
        && format!("{:?}", report.files).contains(OTHER_CHAR)
}

fn numbered(diff: &str, drift: Drift, shuffle: Option<usize>) -> String {
    let mut k = shuffle.unwrap_or(0);
    diff.lines()
        .enumerate()
        .map(|(i, l)| {
            if i < 2 {
                format!("{l}\n")
            } else if l.starts_with("@@ ") {
                match shuffle {
                    Some(_) => {
                        k = k.wrapping_mul(2_654_435_761).wrapping_add(12_345) % 97;
                        format!("@@ -{},3 +{},4 @@\n", k + 1, k + 2)
                    }
                    None => format!("{l}\n"),
                }
            } else {
                format!("{}\n", drifted(l, drift))
            }
        })
        .collect()
}

fn numberless(diff: &str, drift: Drift) -> String {
    let mut out = String::from("--- a/f.txt\n+++ b/f.txt\n");
    for h in hunks(diff) {
        out.push_str("@@\n");
        for l in h {
            out.push_str(&drifted(&l, drift));
            out.push('\n');
        }
    }
    out
}

fn codex(diff: &str, drift: Drift) -> String {
    let mut out = String::from("*** Begin Patch\n*** Update File: f.txt\n");
    for h in hunks(diff) {
        out.push_str("@@\n");
        for l in h {
            out.push_str(&drifted(&l, drift));
            out.push('\n');
        }
    }
    out.push_str("*** End Patch\n");
    out
}

/// SEARCH/REPLACE blocks, or `None` when a block would search for blank
/// lines only (which no notation can place).
fn search_replace(diff: &str, drift: Drift) -> Option<String> {
    let mut out = String::new();
    for h in hunks(diff) {
        let search: Vec<String> = h
            .iter()
            .filter(|l| !l.starts_with('+'))
            .map(|l| drift.apply(&l[1..]))
            .collect();
        let replace: Vec<&str> = h
            .iter()
            .filter(|l| !l.starts_with('-'))
            .map(|l| &l[1..])
            .collect();
        if search.iter().all(|l| l.trim().is_empty()) {
            return None;
        }
        out.push_str("f.txt\n```\n<<<<<<< SEARCH\n");
        for l in search {
            out.push_str(&l);
            out.push('\n');
        }
        out.push_str("=======\n");
        for l in replace {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(">>>>>>> REPLACE\n```\n\n");
    }
    Some(out)
}

fn variants(old: &str, new: &str, drift: Drift, seed: usize) -> Vec<Variant> {
    let diff = unified(old, new);
    let exact = drift == Drift::None;
    let mut out = vec![
        Variant {
            name: format!("unified {drift:?}"),
            patch: numbered(&diff, drift, None),
            exact,
            numbered: true,
        },
        Variant {
            name: format!("unified with wrong numbers {drift:?}"),
            patch: numbered(&diff, drift, Some(seed)),
            exact,
            numbered: true,
        },
        Variant {
            name: format!("numberless {drift:?}"),
            patch: numberless(&diff, drift),
            exact,
            numbered: false,
        },
    ];
    if exact {
        // `git diff -U0`: pure insertions placed by their numbers alone.
        // Without context, an old side of blank lines or brackets is placed
        // only where it is unique, and added lines of that kind alone only
        // beside a hunk that applies afresh (docs/matching.md): such a
        // patch may be refused, never applied twice.
        let patch = unified_zero(old, new);
        out.push(Variant {
            name: "unified -U0".to_string(),
            exact: worded_without_context(&patch),
            patch,
            numbered: true,
        });
    }
    if !old.is_empty() {
        out.push(Variant {
            name: format!("codex {drift:?}"),
            patch: codex(&diff, drift),
            exact,
            numbered: false,
        });
        if let Some(patch) = search_replace(&diff, drift) {
            out.push(Variant {
                name: format!("search/replace {drift:?}"),
                patch,
                exact,
                numbered: false,
            });
        }
    }
    out
}

/// True when every hunk of a diff without context names its place by a
/// word: its old side has a line with a word, or it has no old side and
/// adds a line with a word.
fn worded_without_context(patch: &str) -> bool {
    let worded = |l: &&str| l[1..].chars().any(char::is_alphanumeric);
    hunks(patch).iter().all(|h| {
        let body: Vec<&str> = h.iter().map(String::as_str).collect();
        let old: Vec<&str> = body
            .iter()
            .copied()
            .filter(|l| l.starts_with('-'))
            .collect();
        if old.is_empty() {
            body.iter().filter(|l| l.starts_with('+')).any(worded)
        } else {
            old.iter().any(worded)
        }
    })
}

fn drift() -> impl Strategy<Value = Drift> {
    prop::sample::select(
        &[
            Drift::None,
            Drift::Trailing,
            Drift::Unindented,
            Drift::TabsAsSpaces,
        ][..],
    )
}

/// Plans `patch` against `f.txt` holding `content`; returns the report and
/// the planned new content of `f.txt` (its old content when unchanged).
fn plan(patch: &str, content: &[u8], options: &ApplyOptions) -> (Report, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), content).unwrap();
    let plan = plan_patch(patch.as_bytes(), dir.path(), options).unwrap();
    let bytes = plan
        .results()
        .find(|r| r.new_path.as_deref() == Some("f.txt"))
        .map_or_else(|| content.to_vec(), |r| r.new_bytes().into_owned());
    (plan.report(), bytes)
}

/// Fails unless every hunk of the report was placed as already applied
/// or as a no-op and no file changes.
fn all_already_applied(report: &Report) -> Result<(), String> {
    if !report.ok {
        return Err("the second run was refused".into());
    }
    for file in &report.files {
        if file.status != FileStatus::Unchanged {
            return Err(format!(
                "{}: {:?} on the second run",
                file.path, file.status
            ));
        }
        for h in &file.hunks {
            if !matches!(h.status, HunkOutcome::AlreadyApplied | HunkOutcome::NoOp) {
                return Err(format!(
                    "hunk {}: {:?} on the second run",
                    h.index, h.status
                ));
            }
        }
    }
    Ok(())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// True when the already-applied rule (`docs/matching.md`, "One placement
/// decision", rule 7) can recognise every hunk of `patch` once applied: it
/// adds a line with a word in it (not a removed line respaced), or it
/// removes lines framed by non-blank context on both sides; and its old
/// side has a non-blank line (blank lines alone stand anywhere).
fn recognisable(patch: &str) -> bool {
    let mut hunks: Vec<Vec<(char, &str)>> = Vec::new();
    let blocks = patch.contains("<<<<<<< SEARCH");
    // In SEARCH/REPLACE blocks: `-` while searching, `+` while replacing,
    // nothing outside a block.
    let mut side: Option<char> = None;
    for l in patch.lines() {
        match l {
            "<<<<<<< SEARCH" => {
                hunks.push(Vec::new());
                side = Some('-');
            }
            "=======" if blocks => side = Some('+'),
            ">>>>>>> REPLACE" => side = None,
            _ if blocks => {
                if let (Some(kind), Some(h)) = (side, hunks.last_mut()) {
                    h.push((kind, l));
                }
            }
            _ if l.starts_with("@@") => hunks.push(Vec::new()),
            "*** End Patch" => {}
            _ => {
                if let (Some(kind), Some(h)) = (l.chars().next(), hunks.last_mut()) {
                    h.push((kind, &l[kind.len_utf8()..]));
                }
            }
        }
    }
    hunks.iter().all(|h| {
        let solid = |(k, t): &&(char, &str)| *k == ' ' && !t.trim().is_empty();
        let ws = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let respaced = |t: &str| h.iter().any(|(k, r)| *k == '-' && ws(r) == ws(t));
        let worded = h
            .iter()
            .any(|(k, t)| *k == '+' && t.chars().any(char::is_alphanumeric) && !respaced(t));
        let first = h.iter().position(|(k, _)| *k == '-');
        let last = h.iter().rposition(|(k, _)| *k == '-');
        let framed = match (first, last) {
            (Some(f), Some(l)) => {
                h[..f].iter().any(|x| solid(&x)) && h[l + 1..].iter().any(|x| solid(&x))
            }
            _ => false,
        };
        let placeable = h.iter().any(|(k, t)| *k != '+' && !t.trim().is_empty());
        (worded || framed) && placeable
    })
}

/// Applies `v` twice (from `old`); see the module comment.
fn check_twice(v: &Variant, old: &str, new: &str) -> Result<(), TestCaseError> {
    let options = ApplyOptions::default();
    let (first, once) = plan(&v.patch, old.as_bytes(), &options);
    if !first.ok {
        prop_assert!(
            !v.exact || other_char_refusal(v, &first, old, new),
            "{}: refused\n{:?}\n--- old\n{old}--- patch\n{}",
            v.name,
            first.files,
            v.patch
        );
        return Ok(());
    }
    if v.exact {
        prop_assert_eq!(text(&once), new, "{}: patch\n{}", v.name, v.patch);
    }
    let (second, twice) = plan(&v.patch, &once, &options);
    let verdict = match all_already_applied(&second) {
        // The already-applied rule cannot see that such a hunk is done:
        // refusing it again is its documented outcome.
        Err(_) if !second.ok && !recognisable(&v.patch) => Ok(()),
        verdict => verdict,
    };
    prop_assert!(
        verdict.is_ok() && twice == once,
        "{}: {}\n{:?}\n--- old\n{old}--- once\n{}--- twice\n{}--- patch\n{}",
        v.name,
        verdict.err().unwrap_or_default(),
        second.files,
        text(&once),
        text(&twice),
        v.patch
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// (a) Applying twice equals applying once, in every notation, with and
    /// without damage.
    #[test]
    fn applying_twice_equals_applying_once(
        (old, new) in text_pair(),
        drift in drift(),
        seed in 0usize..1000,
    ) {
        prop_assume!(unique_enough(&old) && unique_enough(&new));
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        for v in variants(&old, &new, drift, seed) {
            check_twice(&v, &old, &new)?;
        }
    }

    /// (b) A unified diff (numbered, mis-numbered, numberless) applied and
    /// then applied with `-R` gives the original.
    #[test]
    fn applying_then_reversing_gives_the_original(
        (old, new) in text_pair(),
        seed in 0usize..1000,
    ) {
        prop_assume!(unique_enough(&old) && unique_enough(&new));
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let reverse = ApplyOptions::default().with_reverse(true);
        for v in variants(&old, &new, Drift::None, seed).into_iter().take(3) {
            let (first, once) = plan(&v.patch, old.as_bytes(), &ApplyOptions::default());
            if other_char_refusal(&v, &first, &old, &new) {
                continue;
            }
            prop_assert!(first.ok, "{}: refused\n{:?}\n{}", v.name, first.files, v.patch);
            prop_assert_eq!(text(&once), new.as_str(), "{}", v.name);
            let (back, undone) = plan(&v.patch, &once, &reverse);
            // A removed line ending in `...` may be a cut line: `-R`
            // refuses to write it back (docs/formats.md), and says so.
            let cut = old.lines().any(|l| l.trim_end().len() > 3 && l.trim_end().ends_with("..."));
            if other_char_refusal(&v, &back, &new, &old) {
                continue;
            }
            if cut && !back.ok {
                prop_assert!(format!("{:?}", back.error).contains("ends in an ellipsis"), "{} -R: {:?}", v.name, back.error);
                continue;
            }
            prop_assert!(back.ok, "{} -R: refused\n{:?}\n--- new\n{new}--- patch\n{}", v.name, back.files, v.patch);
            prop_assert_eq!(text(&undone), old.as_str(), "{} -R: patch\n{}", v.name, v.patch);
        }
    }
}

/// Lines put before the file by the padding property: more than the
/// prefilter's line threshold (`MatchOptions::prefilter_above_lines`), and
/// more bytes than the memory-mapping threshold (4 MiB, `src/source/content.rs`).
const PAD_LINES: usize = 210_000;

/// The padding: numbered lines no patch line resembles.
fn padding() -> String {
    (0..PAD_LINES)
        .map(|i| format!("~~ padding {i:09} qvxjw ~~\n"))
        .collect()
}

/// `patch` with every unified hunk header moved down by `by` lines.
fn shifted(patch: &str, by: usize) -> String {
    patch
        .split_inclusive('\n')
        .map(|l| match l.strip_prefix("@@ -") {
            Some(rest) => shift_header(rest, by).unwrap_or_else(|| l.to_string()),
            None => l.to_string(),
        })
        .collect()
}

/// `a,b +c,d @@…` → `@@ -(a+by),b +(c+by),d @@…`.
fn shift_header(rest: &str, by: usize) -> Option<String> {
    let (old, rest) = rest.split_once(" +")?;
    let (new, tail) = rest.split_once(" @@")?;
    let bump = |range: &str| -> Option<String> {
        let (start, count) = range.split_once(',').unwrap_or((range, ""));
        let start: usize = start.parse().ok()?;
        let count = if count.is_empty() {
            String::new()
        } else {
            format!(",{count}")
        };
        Some(format!("{}{count}", start + by))
    };
    Some(format!("@@ -{} +{} @@{tail}", bump(old)?, bump(new)?))
}

/// What must not differ between the small and the padded file: whether
/// the run succeeded, each hunk's status and failure code, and the file's
/// content after the run (with the padding removed).
#[derive(Debug, PartialEq)]
struct Seen {
    ok: bool,
    hunks: Vec<(HunkOutcome, Option<&'static str>)>,
    content: Vec<u8>,
}

fn run_on(dir: &Path, content: &[u8], patch: &str, pad: &[u8]) -> Seen {
    fs::write(dir.join("f.txt"), content).unwrap();
    let outcome = run(dir, patch.as_bytes(), &Invocation::default()).unwrap();
    let after = fs::read(dir.join("f.txt")).unwrap();
    let content = after
        .strip_prefix(pad)
        .map_or(after.clone(), <[u8]>::to_vec);
    Seen {
        ok: outcome.report.ok,
        hunks: outcome
            .report
            .files
            .iter()
            .flat_map(|f| &f.hunks)
            .map(|h| (h.status, h.failure.as_ref().map(|f| f.code.code())))
            .collect(),
        content,
    }
}

proptest! {
    // Each case runs every notation on a 5 MB file in a debug build.
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// (c) Padding the file past the mapping and prefilter thresholds
    /// changes no outcome.
    #[test]
    fn a_padded_file_has_the_small_files_outcome(
        (old, new) in text_pair(),
        drift in drift(),
        seed in 0usize..1000,
    ) {
        prop_assume!(unique_enough(&old) && unique_enough(&new));
        let (old, new) = (join(&old), join(&new));
        prop_assume!(old != new);
        let pad = padding();
        assert!(pad.len() as u64 > 4 * 1024 * 1024);
        assert!(PAD_LINES > MatchOptions::default().prefilter_above_lines());
        let small_dir = tempfile::tempdir().unwrap();
        let large_dir = tempfile::tempdir().unwrap();
        for v in variants(&old, &new, drift, seed) {
            let small = run_on(small_dir.path(), old.as_bytes(), &v.patch, b"");
            let padded_patch = shifted(&v.patch, PAD_LINES);
            let large = run_on(
                large_dir.path(),
                format!("{pad}{old}").as_bytes(),
                &padded_patch,
                pad.as_bytes(),
            );
            prop_assert_eq!(&large, &small, "{}: patch\n{}--- old\n{}", v.name, v.patch, old);
        }
    }
}

#[test]
fn headers_shift_by_the_padding() {
    let patch = "--- a/f\n+++ b/f\n@@ -3,2 +3 @@ fn x\n-a\n@@ -0,0 +1 @@\n+b\n";
    assert_eq!(
        shifted(patch, 10),
        "--- a/f\n+++ b/f\n@@ -13,2 +13 @@ fn x\n-a\n@@ -10,0 +11 @@\n+b\n"
    );
}

use crate::support;

/// (a) for whole-file operations, through the binary: a patch that adds,
/// deletes and moves files (in each notation that can) run a second time
/// exits 0, reports the operations already applied, and changes nothing.
#[test]
fn adding_deleting_and_moving_twice_equals_once() {
    let codex = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: del.txt\n*** Update File: mv.txt\n*** Move to: sub/moved.txt\n@@\n one\n-two\n+three\n*** End Patch\n";
    let git = "diff --git a/ren.txt b/ren2.txt\nsimilarity index 100%\nrename from ren.txt\nrename to ren2.txt\ndiff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\ndiff --git a/del.txt b/del.txt\ndeleted file mode 100644\n--- a/del.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\ndiff --git a/mv.txt b/sub/moved.txt\nsimilarity index 50%\nrename from mv.txt\nrename to sub/moved.txt\n--- a/mv.txt\n+++ b/sub/moved.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    let search_replace =
        "new.txt\n```\n<<<<<<< SEARCH\n=======\nhello\nworld\n>>>>>>> REPLACE\n```\n";
    for patch in [codex, git, search_replace] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("del.txt"), "gone\n").unwrap();
        fs::write(dir.path().join("mv.txt"), "one\ntwo\n").unwrap();
        fs::write(dir.path().join("ren.txt"), "same\n").unwrap();
        let first = support::run_bin(dir.path(), &["-v", "-"], Some(patch.as_bytes()));
        assert_eq!(first.status.code(), Some(0), "{first:?}\n{patch}");
        let once = support::snapshot(dir.path());
        assert!(once.contains_key(Path::new("new.txt")), "{once:?}");
        let second = support::run_bin(dir.path(), &["-v", "--json", "-"], Some(patch.as_bytes()));
        assert_eq!(second.status.code(), Some(0), "{second:?}\n{patch}");
        assert_eq!(support::snapshot(dir.path()), once, "{patch}");
        let report: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
        for file in report["files"].as_array().unwrap() {
            assert_eq!(file["status"], "unchanged", "{file}");
            for hunk in file["hunks"].as_array().unwrap() {
                assert_eq!(hunk["status"], "already_applied", "{hunk}");
            }
        }
    }
}

/// An added file that exists with other content, or a move whose source is
/// gone and whose destination does not hold the hunk, is still refused.
#[test]
fn a_different_file_in_the_way_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("new.txt"), "hello\n").unwrap();
    fs::write(dir.path().join("moved.txt"), "one\ntwo\n").unwrap();
    for patch in [
        "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: mv.txt\n*** Move to: moved.txt\n@@\n one\n-two\n+three\n*** End Patch\n",
    ] {
        let out = support::run_bin(dir.path(), &["-"], Some(patch.as_bytes()));
        assert_eq!(out.status.code(), Some(1), "{out:?}");
    }
    assert_eq!(fs::read(dir.path().join("new.txt")).unwrap(), b"hello\n");
    assert_eq!(
        fs::read(dir.path().join("moved.txt")).unwrap(),
        b"one\ntwo\n"
    );
}
