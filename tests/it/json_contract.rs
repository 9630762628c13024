//! The `--json` report is a contract (docs/json.md, docs/report.schema.json):
//! real runs of the binary over every kind of outcome are validated against
//! the schema, specific fields are checked, documents that break the contract
//! are rejected, and the documentation lists every reason code the code can
//! produce.

use git_fuzzy_apply::Reason;
use git_fuzzy_apply::report::{ProblemCode, all_codes};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::support;
use support::run_bin;

const GREET: &str = "def greet(name):\n    print('hello', name)\n    return name\n\n\ndef part():\n    print('bye')\n";
const DUP: &str = "x = 1\ny = 2\n\nz = 3\n\nx = 1\ny = 2\n";

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
    serde_json::from_str(&fs::read_to_string(path).expect("schema file")).expect("schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema compiles")
}

/// Errors of `report` against the schema, as text (empty when valid).
fn violations(validator: &jsonschema::Validator, report: &Value) -> Vec<String> {
    validator
        .iter_errors(report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join("greet.py"), GREET).expect("write");
    fs::write(dir.path().join("dup.py"), DUP).expect("write");
    dir
}

/// Runs `--json` with `patch` on stdin plus `args`, checks the exit code,
/// validates the output against the schema and returns it.
fn report(args: &[&str], patch: &str, exit: i32) -> Value {
    let dir = tree();
    report_in(dir.path(), args, patch, exit)
}

fn report_in(dir: &Path, args: &[&str], patch: &str, exit: i32) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = run_bin(dir, &all, Some(patch.as_bytes()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(exit), "{stdout}");
    let value: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    let errors = violations(&validator(), &value);
    assert!(errors.is_empty(), "{errors:#?}\n{stdout}");
    value
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    jsonschema::draft202012::meta::validate(&schema).expect("valid against the meta-schema");
}

#[test]
fn applied_exactly() {
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@ -6,2 +6,2 @@\n def part():\n-    print('bye')\n+    print('ciao')\n";
    let r = report(&["--check"], patch, 0);
    assert_eq!(r["version"], 1);
    assert_eq!(r["ok"], true);
    assert_eq!(r["check"], true);
    let file = &r["files"][0];
    assert_eq!(file["path"], "greet.py");
    assert_eq!(file["format"], "unified_diff");
    assert_eq!(file["status"], "patched");
    assert_eq!(
        (file["added"].clone(), file["removed"].clone()),
        (json!(1), json!(1))
    );
    let hunk = &file["hunks"][0];
    assert_eq!(hunk["status"], "applied");
    assert_eq!(hunk["tier"], "exact");
    assert_eq!(hunk["normalizations"], json!([]));
    assert_eq!(hunk["lines"], json!({"start": 6, "end": 7}));
    assert_eq!(hunk["new_lines"], json!({"start": 6, "end": 7}));
    assert_eq!(hunk["similarity"], 1.0);
    assert_eq!(hunk["failure"], Value::Null);
}

#[test]
fn applied_through_lenient_tiers() {
    let resilient = "--- a/greet.py\n+++ b/greet.py\n@@\n def   greet(name):\n-    print('hello', name)\n+    print('hi', name)\n";
    let r = report(&["--check"], resilient, 0);
    let hunk = &r["files"][0]["hunks"][0];
    assert_eq!(hunk["tier"], "resilient");
    assert_eq!(hunk["normalizations"], json!(["whitespace"]));
    assert_eq!(r["files"][0]["format"], "numberless_diff");

    let fuzzy = "--- a/greet.py\n+++ b/greet.py\n@@\n DEF GREET(name):\n-    print(\u{2018}hello\u{2019}, name)\n+    print('hi', name)\n";
    let r = report(&["--check"], fuzzy, 0);
    let hunk = &r["files"][0]["hunks"][0];
    assert_eq!(hunk["tier"], "fuzzy");
    assert_eq!(hunk["normalizations"], json!(["case_and_punctuation"]));
    assert_eq!(hunk["lines"], json!({"start": 1, "end": 2}));
}

#[test]
fn ambiguous_lists_every_candidate_with_its_lines() {
    let patch = "--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";
    let r = report(&[], patch, 1);
    assert_eq!(r["ok"], false);
    assert_eq!(r["check"], false);
    let file = &r["files"][0];
    assert_eq!(file["status"], "failed");
    let hunk = &file["hunks"][0];
    assert_eq!(hunk["status"], "failed");
    assert_eq!(hunk["tier"], Value::Null);
    // The candidates tie at an exact match: that is the hunk's score.
    assert_eq!(hunk["similarity"], 1.0);
    let failure = &hunk["failure"];
    assert_eq!(failure["code"], "ambiguous");
    assert_eq!(failure["expected"], json!(["x = 1", "y = 2"]));
    assert_eq!(failure["candidates"], json!([1, 6]));
    let views = failure["candidate_context"].as_array().expect("array");
    assert_eq!(views.len(), 2);
    assert_eq!(views[1]["line"], 6);
    assert_eq!(views[1]["tier"], "exact");
    assert_eq!(views[1]["score"], 1.0);
    assert!(
        views[1]["lines"]
            .as_array()
            .expect("lines")
            .contains(&json!([6, "x = 1"]))
    );
    assert_eq!(failure["hunk_text"], " x = 1\n-y = 2\n+y = 3\n");
}

#[test]
fn stale_names_the_missing_line_and_the_near_match() {
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@\n def greet(name):\n-    print('hullo', name)\n+    print('hi', name)\n     return name\n";
    let r = report(&[], patch, 1);
    let failure = &r["files"][0]["hunks"][0]["failure"];
    assert_eq!(failure["code"], "stale_removed_line");
    let near = &failure["near_match"];
    assert_eq!(near["start_line"], 1);
    assert_eq!(near["lines"][1], "    print('hello', name)");
    assert_eq!(
        near["first_difference"],
        json!(["    print('hullo', name)", 2])
    );
    assert!(near["similarity"].as_f64().expect("number") > 0.9);
    // A failed hunk's score is its near match's, not 0.
    assert_eq!(r["files"][0]["hunks"][0]["similarity"], near["similarity"]);
}

#[test]
fn context_not_found_gives_the_closest_block() {
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@\n def greeter(nm):\n-    print('hi there', nm)\n+    print('hi', nm)\n     return nm\n";
    let r = report(&[], patch, 1);
    let failure = &r["files"][0]["hunks"][0]["failure"];
    assert_eq!(failure["code"], "context_not_found");
    assert_eq!(failure["near_match"]["start_line"], 1);
    assert_eq!(failure["near_match"]["first_difference"][1], 1);
    assert_eq!(failure["candidates"], json!([]));
    let score = r["files"][0]["hunks"][0]["similarity"]
        .as_f64()
        .expect("number");
    assert!(score > 0.0 && score < 1.0, "{score}");
    assert_eq!(score, failure["near_match"]["similarity"]);
}

#[test]
fn malformed_patch_is_a_top_level_error_with_its_line() {
    let patch = "greet.py\n<<<<<<< SEARCH\n    return name\n>>>>>>> REPLACE\n";
    let r = report(&[], patch, 1);
    assert_eq!(r["files"], json!([]));
    assert_eq!(r["error"]["code"], "malformed_patch");
    assert_eq!(r["error"]["patch_line"], 4);
    let none = report(&[], "just prose, no edit\n", 1);
    assert_eq!(none["error"]["code"], "no_edits");
    assert_eq!(none["error"]["patch_line"], Value::Null);
}

#[test]
fn path_outside_the_tree_and_missing_files_are_file_errors() {
    let patch = "--- a/../evil.txt\n+++ b/../evil.txt\n@@\n-a\n+b\n--- a/gone.py\n+++ b/gone.py\n@@\n-a\n+b\n";
    let r = report(&[], patch, 1);
    let files = r["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["status"], "failed");
    assert_eq!(files[0]["error"]["code"], "path_outside_tree");
    assert_eq!(files[1]["error"]["code"], "file_not_found");
    assert_eq!(files[1]["error"]["patch_line"], 6);
}

#[test]
fn multi_file_patch_reports_every_file_and_result_lines() {
    let patch = "*** Begin Patch\n*** Update File: greet.py\n@@\n def greet(name):\n+    \"\"\"Greets.\"\"\"\n+    name = name.strip()\n     print('hello', name)\n@@\n def part():\n-    print('bye')\n+    print('ciao')\n*** Add File: notes.txt\n+one\n+two\n*** End Patch\n";
    let dir = tree();
    let r = report_in(dir.path(), &[], patch, 0);
    assert_eq!(r["check"], false);
    let files = r["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["format"], "codex_envelope");
    let hunks = files[0]["hunks"].as_array().expect("hunks");
    assert_eq!(hunks[0]["lines"], json!({"start": 1, "end": 2}));
    assert_eq!(hunks[0]["new_lines"], json!({"start": 1, "end": 4}));
    // The second hunk moved down by the two lines the first one added.
    assert_eq!(hunks[1]["lines"], json!({"start": 6, "end": 7}));
    assert_eq!(hunks[1]["new_lines"], json!({"start": 8, "end": 9}));
    let text = fs::read_to_string(dir.path().join("greet.py")).expect("read");
    assert_eq!(text.lines().nth(7), Some("def part():"));
    assert_eq!(files[1]["op"], "add");
    assert_eq!(files[1]["path"], "notes.txt");
    assert_eq!(files[1]["added"], 2);
}

#[test]
fn partial_run_and_the_conflict_report_file_follow_the_schema() {
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@\n def part():\n-    print('bye')\n+    print('ciao')\n--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";
    let dir = tree();
    let r = report_in(dir.path(), &["--partial", "--report", "rep"], patch, 1);
    assert_eq!(r["files"][0]["status"], "patched");
    assert_eq!(r["files"][1]["status"], "partial");
    let written: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("rep.json")).expect("report"))
            .expect("JSON");
    assert!(violations(&validator(), &written).is_empty());
    assert_eq!(
        written["files"][1]["hunks"][0]["failure"]["code"],
        "ambiguous"
    );
}

#[test]
fn documents_that_break_the_contract_are_rejected() {
    let patch = "--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";
    let good = report(&[], patch, 1);
    let v = validator();
    // (what is wrong, the object to change, its key, the value set there)
    let hunk = "/files/0/hunks/0";
    let failure = "/files/0/hunks/0/failure";
    let broken = [
        ("another version", "", "version", json!(2)),
        ("unknown reason code", failure, "code", json!("not_a_code")),
        (
            "failed hunk without a failure",
            hunk,
            "failure",
            Value::Null,
        ),
        (
            "ambiguous with one candidate",
            failure,
            "candidates",
            json!([1]),
        ),
        ("line zero", failure, "candidates", json!([0, 6])),
        (
            "numbered line as an object",
            "/files/0/hunks/0/failure/candidate_context/0",
            "lines",
            json!([{"line": 1, "text": "x = 1"}]),
        ),
        ("undocumented field", "/files/0", "extra", json!(true)),
        ("score above one", hunk, "similarity", json!(1.5)),
        ("unknown file status", "/files/0", "status", json!("done")),
    ];
    assert!(violations(&v, &good).is_empty());
    for (what, object, key, value) in broken {
        let mut doc = good.clone();
        let target = doc
            .pointer_mut(object)
            .and_then(Value::as_object_mut)
            .expect("object");
        target.insert(key.to_string(), value);
        assert!(
            !v.is_valid(&doc),
            "the schema accepted a report with {what}"
        );
    }
    let mut no_files = good.clone();
    no_files.as_object_mut().expect("object").remove("files");
    assert!(
        !v.is_valid(&no_files),
        "the schema accepted a report without files"
    );
}

/// The codes between backticks in the first column of the reason-code tables.
fn documented_codes() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md");
    let text = fs::read_to_string(path).expect("docs/json.md");
    text.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(code, _)| code.to_string()))
        .collect()
}

#[test]
fn the_docs_and_the_schema_list_every_reason_code() {
    let documented = documented_codes();
    for code in all_codes() {
        assert!(
            documented.contains(code),
            "docs/json.md does not list `{code}`"
        );
    }
    let schema = schema();
    let listed = |def: &str| -> BTreeSet<String> {
        schema["$defs"][def]["enum"]
            .as_array()
            .expect("enum")
            .iter()
            .filter_map(|c| c.as_str().map(String::from))
            .collect()
    };
    let problems: BTreeSet<String> = ProblemCode::ALL.iter().map(|c| c.as_str().into()).collect();
    let reasons: BTreeSet<String> = Reason::ALL.iter().map(|r| r.code().into()).collect();
    assert_eq!(listed("problem_code"), problems);
    assert_eq!(listed("reason_code"), reasons);
}

/// Runs `--json` with `args` in `dir`, expects exit 2 and a schema-valid
/// error object with `code`; returns its message.
fn exit_two(dir: &Path, args: &[&str], code: &str) -> String {
    let out = run_bin(dir, args, Some(b""));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    let value: Value = serde_json::from_str(&stdout).expect("stdout is one JSON document");
    let errors = violations(&validator(), &value);
    assert!(errors.is_empty(), "{errors:#?}\n{stdout}");
    assert_eq!(value["ok"], false);
    assert_eq!(value["files"], json!([]));
    assert_eq!(value["error"]["code"], code, "{stdout}");
    // The message is on standard error as well, as without --json.
    let message = value["error"]["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(stderr.contains(&message), "{stderr}");
    message
}

#[test]
fn exit_two_prints_a_json_error_object() {
    let dir = tree();
    let message = exit_two(dir.path(), &["--json", "nope.diff"], "io_error");
    assert!(message.contains("nope.diff"), "{message}");
    let message = exit_two(dir.path(), &["--json", "--no-such-option"], "usage_error");
    assert!(message.contains("--no-such-option"), "{message}");
    exit_two(dir.path(), &["--threshold", "3", "--json"], "usage_error");
    let message = exit_two(dir.path(), &["--json", "--3way", "x.diff"], "usage_error");
    assert!(message.contains("--reject"), "{message}");
}

#[test]
fn a_held_lock_is_a_json_error_object() {
    let dir = tree();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .expect("git runs");
    assert!(git.success());
    fs::write(dir.path().join(".git/index.lock"), "").expect("lock");
    fs::write(
        dir.path().join("fix.diff"),
        "--- a/greet.py\n+++ b/greet.py\n@@\n-    print('bye')\n+    print('ciao')\n",
    )
    .expect("write");
    // Only a run that stages takes git's index lock.
    let message = exit_two(dir.path(), &["--json", "--index", "fix.diff"], "locked");
    assert!(message.contains("index.lock"), "{message}");
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).expect("read"),
        GREET
    );
}

#[test]
fn a_tree_another_run_holds_is_a_json_error_object() {
    // Outside a repository the tree lock is a file lock: this test holds
    // it, as a running run does.
    let dir = tree();
    let held = fs::File::create(dir.path().join(".git-fuzzy-apply.lock")).expect("lock");
    // SAFETY: the descriptor stays open until the end of the test.
    let locked = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&held),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    assert_eq!(locked, 0);
    fs::write(
        dir.path().join("fix.diff"),
        "--- a/greet.py\n+++ b/greet.py\n@@\n-    print('bye')\n+    print('ciao')\n",
    )
    .expect("write");
    let message = exit_two(dir.path(), &["--json", "fix.diff"], "locked");
    assert!(message.contains("another git-fuzzy-apply"), "{message}");
    assert_eq!(
        fs::read_to_string(dir.path().join("greet.py")).expect("read"),
        GREET
    );
}

#[test]
fn json_with_feedback_holds_the_feedback_text() {
    let patch = "--- a/greet.py\n+++ b/greet.py\n@@\n-no such line\n+x\n";
    let r = report(&["--feedback"], patch, 1);
    let text = r["feedback"].as_str().expect("feedback is a string");
    assert!(text.contains("context_not_found"), "{text}");
    let plain = report(&[], patch, 1);
    assert!(plain.get("feedback").is_none());
    // The schema holds feedback to a string.
    let mut wrong = r.clone();
    wrong["feedback"] = json!(["not", "text"]);
    assert!(!validator().is_valid(&wrong));
}

#[test]
fn an_at_naming_no_candidate_is_refused() {
    let patch = "--- a/dup.py\n+++ b/dup.py\n@@\n x = 1\n-y = 2\n+y = 3\n";
    let r = report(&["--at", "dup.py:3"], patch, 1);
    assert_eq!(r["error"]["code"], "unmatched_pin");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(message.contains("line 1 or 6"), "{message}");
    let r = report(&["--at", "dup.py:6"], patch, 0);
    assert_eq!(r["files"][0]["hunks"][0]["lines"]["start"], 6);
}
