//! Whole-process performance benchmarks for "Fast at monorepo scale".
//!
//! Every benchmark spawns a command once per iteration and times only that
//! command (criterion's `iter_custom`); putting the inputs back between
//! iterations happens outside the timed span. Each target is measured next to
//! its baseline in the same run. When criterion has finished, the medians it
//! wrote to `<criterion home>/<group>/<function>/new/estimates.json` are read
//! back and printed as ratios (ours / baseline) against the goals of the issue.
//!
//! Environment:
//! - `PERF_SCALE=tiny|small|full` sizes the generated inputs (default `full`:
//!   a 1 GiB file, 10,000 files, 100,000 repeated contexts);
//! - `PERF_INPUTS=<dir>` generates the inputs under `<dir>/<scale>/` instead
//!   of `<target dir>/perf-inputs/<scale>/` (to measure another file system);
//! - `PERF_WRITE_DOCS=1` also writes the results into `docs/performance.md`
//!   (between the `perf:begin` and `perf:end` markers).
//!
//! Inputs are generated under `<target dir>/perf-inputs/<scale>/` (or
//! `PERF_INPUTS`) and reused
//! while their parameters are unchanged. The smoke run used by CI is
//! `PERF_SCALE=tiny cargo bench --bench perf -- --test`: each command runs once
//! and its output is checked, nothing is timed.
//!
//! Positional arguments are criterion's name filters; inputs are generated only
//! for the groups a filter can select.

use criterion::{Criterion, SamplingMode};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test, built by cargo for this benchmark.
const OURS: &str = env!("CARGO_BIN_EXE_git-fuzzy-apply");

/// Bumped whenever a generator changes, so cached inputs are rebuilt.
const GENERATOR_VERSION: u32 = 1;

/// How big the generated inputs are.
#[derive(Clone, Copy, Debug)]
struct Scale {
    /// Name used in paths and reports (`tiny`, `small`, `full`).
    name: &'static str,
    /// Size of the big text file of targets 1, 2 and 4, in bytes.
    big_bytes: u64,
    /// Number of files of the synthetic monorepo (target 3).
    mono_files: usize,
    /// Occurrences of the repeated context at size 1× (target 5).
    repeat_blocks: usize,
}

impl Scale {
    /// Reads `PERF_SCALE`; unknown values are an error.
    fn from_env() -> Scale {
        let name = std::env::var("PERF_SCALE").unwrap_or_else(|_| "full".into());
        match name.as_str() {
            "tiny" => Scale {
                name: "tiny",
                big_bytes: 1 << 20,
                mono_files: 200,
                repeat_blocks: 1_000,
            },
            "small" => Scale {
                name: "small",
                big_bytes: 64 << 20,
                mono_files: 1_000,
                repeat_blocks: 10_000,
            },
            "full" => Scale {
                name: "full",
                big_bytes: 1 << 30,
                mono_files: 10_000,
                repeat_blocks: 100_000,
            },
            other => panic!("PERF_SCALE={other}: expected tiny, small or full"),
        }
    }
}

/// Sizes of the worst-case target, as multiples of `Scale::repeat_blocks`.
const REPEAT_FACTORS: [usize; 3] = [1, 4, 16];

/// What one probe run (one untimed run before timing) showed.
#[derive(Clone, Debug)]
enum Outcome {
    /// Exit 0 and the result is exactly the expected one.
    Applied,
    /// Exit 0 but the result differs from the expected one.
    Wrong(String),
    /// Non-zero exit: refused or failed.
    Refused(i32),
}

impl Outcome {
    fn describe(&self) -> String {
        match self {
            Outcome::Applied => "applied, output verified".into(),
            Outcome::Wrong(why) => format!("exit 0 but WRONG output ({why})"),
            Outcome::Refused(code) => format!("refused (exit {code})"),
        }
    }
}

/// One command measured as one criterion function.
struct Case {
    group: &'static str,
    function: String,
    /// Human label, e.g. `git apply --index`.
    label: String,
    program: OsString,
    args: Vec<OsString>,
    cwd: PathBuf,
    /// Puts the inputs back before each run (not timed).
    reset: Box<dyn Fn()>,
    /// Checks the result of a successful probe run.
    verify: Box<dyn Fn() -> Result<(), String>>,
    /// Checked after every run: a pristine input that must stay untouched.
    pristine: Option<PathBuf>,
    /// Time the command even when the probe saw it refuse.
    time_refusals: bool,
}

impl Case {
    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for var in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_CEILING_DIRECTORIES",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs the command once, untimed, and classifies the result.
    fn probe(&self) -> Outcome {
        (self.reset)();
        let status = self
            .command()
            .status()
            .unwrap_or_else(|e| panic!("{}: cannot run: {e}", self.label));
        self.check_pristine(status.success());
        match status.code() {
            Some(0) => match (self.verify)() {
                Ok(()) => Outcome::Applied,
                Err(why) => Outcome::Wrong(why),
            },
            code => Outcome::Refused(code.unwrap_or(-1)),
        }
    }

    /// Runs the command `iters` times and returns the time spent in it only.
    fn timed(&self, iters: u64, expected: Option<i32>) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            (self.reset)();
            let mut cmd = self.command();
            let start = Instant::now();
            let status = cmd.status().expect("spawn");
            total += start.elapsed();
            self.check_pristine(status.success());
            assert_eq!(
                status.code(),
                expected,
                "{}: exit status changed between runs",
                self.label
            );
        }
        total
    }

    /// Panics when a successful command wrote through the hard link to a
    /// pristine input instead of replacing the file (a refusal leaves the
    /// link in place, which is fine).
    fn check_pristine(&self, succeeded: bool) {
        if let (true, Some(p)) = (succeeded, &self.pristine) {
            let links = fs::metadata(p).expect("pristine input").nlink();
            assert_eq!(
                links,
                1,
                "{} wrote into its input in place, so the pristine copy {} is damaged: \
                 delete the perf-inputs folder and run again",
                self.label,
                p.display()
            );
        }
    }
}

/// The target directory: `CARGO_TARGET_DIR`, or the one holding this executable.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().expect("current_exe");
    // <target>/<profile>/deps/perf-<hash>
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Where the generated inputs live: `PERF_INPUTS`, or `<target>/perf-inputs`.
/// Pointing it at another mount measures another file system.
fn inputs_dir() -> PathBuf {
    std::env::var_os("PERF_INPUTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("perf-inputs"))
}

/// Where criterion writes its estimates (the same rule criterion uses).
fn criterion_home() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("criterion"))
}

/// Runs a setup command and panics with its stderr when it fails.
fn run(cmd: &mut Command) -> Vec<u8> {
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"] {
        cmd.env_remove(var);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A `git` command with a fixed identity and no signing, run in `dir`.
fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).args([
        "-c",
        "user.name=perf",
        "-c",
        "user.email=perf@localhost",
        "-c",
        "commit.gpgsign=false",
    ]);
    cmd
}

/// The first line a command prints, or `?` when it cannot run.
fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// True when two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    if fs::metadata(a)?.len() != fs::metadata(b)?.len() {
        return Ok(false);
    }
    let (mut fa, mut fb) = (File::open(a)?, File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let n = read_full(&mut fa, &mut ba)?;
        if n != read_full(&mut fb, &mut bb)? || ba[..n] != bb[..n] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Fills `buf` as far as the reader allows; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// A verifier comparing `out` with `expected` byte for byte.
fn verify_same(out: PathBuf, expected: PathBuf) -> Box<dyn Fn() -> Result<(), String>> {
    Box::new(move || match same_bytes(&out, &expected) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!(
            "{} differs from {}",
            out.display(),
            expected.display()
        )),
        Err(e) => Err(format!("{}: {e}", out.display())),
    })
}

/// A reset that replaces `work` by a hard link to `pristine` (every tool
/// measured here writes a new file and renames it, so the link is broken by
/// the run and the pristine copy stays intact; `Case::check_pristine` makes sure).
fn relink(pristine: PathBuf, work: PathBuf) -> Box<dyn Fn()> {
    Box::new(move || {
        let _ = fs::remove_file(&work);
        fs::hard_link(&pristine, &work).expect("hard link");
    })
}

/// Prepares `dir` for a generator: returns false when the inputs described by
/// `stamp` are already there, else empties the folder.
fn fresh(dir: &Path, stamp: &str) -> bool {
    let file = dir.join("stamp");
    let stamp = format!("v{GENERATOR_VERSION} {stamp}\n");
    if fs::read_to_string(&file).is_ok_and(|s| s == stamp) {
        return false;
    }
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).expect("create input folder");
    // Written last by `seal`; written here only as the intent.
    fs::write(dir.join("stamp.pending"), stamp).expect("stamp");
    true
}

/// Marks the inputs of `dir` complete.
fn seal(dir: &Path) {
    fs::rename(dir.join("stamp.pending"), dir.join("stamp")).expect("stamp");
}

// ---------------------------------------------------------------- target 1, 2

/// Identifiers that make the big file's lines look like code (all 5 letters,
/// so every line has the same length).
const WORDS: [&str; 8] = [
    "parse", "merge", "apply", "index", "fetch", "store", "round", "align",
];

/// Line `i` (1-based) of the big file: fixed length, unique, source-like.
fn big_line(out: &mut String, i: u64) {
    let word = WORDS[(i % 8) as usize];
    let m = i % 97;
    let j = i.wrapping_mul(7919) % 100_000_000;
    let h = (i as u32).wrapping_mul(2_654_435_761);
    let _ = writeln!(
        out,
        "    let v{i:010} = {word}_{m:02}(&input[{j:08}], 0x{h:08x});"
    );
}

/// The big file's generated inputs.
struct Big {
    dir: PathBuf,
    lines: u64,
    bytes: u64,
}

impl Big {
    fn repo(&self) -> PathBuf {
        self.dir.join("repo")
    }
    fn pristine(&self) -> PathBuf {
        self.dir.join("pristine.txt")
    }
    fn expected(&self) -> PathBuf {
        self.dir.join("expected.txt")
    }
    fn work(&self) -> PathBuf {
        self.repo().join("big.txt")
    }
}

/// The lines a hunk puts in place of line `i`.
fn big_replacement(i: u64) -> String {
    let mut old = String::new();
    big_line(&mut old, i);
    format!(
        "{}    trace!(\"v{i:010} patched\");\n",
        old.replacen("let ", "let mut ", 1)
    )
}

/// Generates the big file (and its expected result) and both patches.
fn gen_big(root: &Path, scale: Scale) -> Big {
    let dir = root.join("big");
    let mut probe = String::new();
    big_line(&mut probe, 1);
    let line_len = probe.len() as u64;
    let lines = scale.big_bytes / line_len;
    let hunks = [lines * 97 / 100, lines * 98 / 100, lines * 99 / 100];
    let big = Big {
        bytes: lines * line_len,
        dir,
        lines,
    };
    if !fresh(&big.dir, &format!("big {}", scale.big_bytes)) {
        return big;
    }
    let mut pristine = BufWriter::with_capacity(4 << 20, File::create(big.pristine()).unwrap());
    let mut expected = BufWriter::with_capacity(4 << 20, File::create(big.expected()).unwrap());
    let mut buf = String::with_capacity(1 << 20);
    let mut ebuf = String::new();
    for i in 1..=lines {
        if hunks.contains(&i) {
            ebuf.push_str(&buf);
            ebuf.push_str(&big_replacement(i));
            pristine.write_all(buf.as_bytes()).unwrap();
            expected.write_all(ebuf.as_bytes()).unwrap();
            buf.clear();
            ebuf.clear();
            big_line(&mut buf, i);
            pristine.write_all(buf.as_bytes()).unwrap();
            buf.clear();
            continue;
        }
        big_line(&mut buf, i);
        if buf.len() >= 1 << 20 {
            pristine.write_all(buf.as_bytes()).unwrap();
            expected.write_all(buf.as_bytes()).unwrap();
            buf.clear();
        }
    }
    pristine.write_all(buf.as_bytes()).unwrap();
    expected.write_all(buf.as_bytes()).unwrap();
    pristine.flush().unwrap();
    expected.flush().unwrap();
    drop((pristine, expected));
    fs::write(big.dir.join("exact.patch"), big_patch(&hunks, false)).unwrap();
    fs::write(big.dir.join("drift.patch"), big_patch(&hunks, true)).unwrap();
    fs::create_dir_all(big.repo()).unwrap();
    run(git(&big.repo()).args(["init", "-q"]));
    seal(&big.dir);
    big
}

/// A context line of hunk `h` at position `k` (0..6, three before and three
/// after the changed line), drifted the way models drift when `drift` is set:
/// one line per hunk changes case, others gain trailing or doubled blanks.
fn big_context(h: usize, k: usize, line: u64, drift: bool) -> String {
    let mut text = String::new();
    big_line(&mut text, line);
    text.pop();
    if drift {
        if [(0, 0), (1, 1), (2, 5)].contains(&(h, k)) {
            text = text.replacen("let v", "LET V", 1);
        } else if k == 2 {
            text.push_str(" \t ");
        } else if k == 4 {
            text = text.replace(" = ", "  =  ");
        } else if k == 3 {
            text.push_str("  ");
        }
    }
    text
}

/// The three-hunk unified diff of targets 1 (`drift` false) and 2.
fn big_patch(hunks: &[u64; 3], drift: bool) -> String {
    let mut p = String::from("diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n");
    for (h, &at) in hunks.iter().enumerate() {
        let start = at - 3;
        let _ = writeln!(p, "@@ -{start},7 +{},8 @@", start + h as u64);
        for k in 0..3 {
            let _ = writeln!(p, " {}", big_context(h, k, start + k as u64, drift));
        }
        let mut old = String::new();
        big_line(&mut old, at);
        p.push('-');
        p.push_str(&old);
        for added in big_replacement(at).lines() {
            let _ = writeln!(p, "+{added}");
        }
        for k in 3..6 {
            let _ = writeln!(p, " {}", big_context(h, k, at + k as u64 - 2, drift));
        }
    }
    p
}

/// The cases of targets 1 (`drift` false) and 2.
fn big_cases(big: &Big, group: &'static str, drift: bool) -> Vec<Case> {
    let patch = if drift { "drift.patch" } else { "exact.patch" };
    let patch_arg = OsString::from(format!("../{patch}"));
    let tool = |function: &str, label: &str, program: &str, args: Vec<OsString>| Case {
        group,
        function: function.into(),
        label: label.into(),
        program: program.into(),
        args,
        cwd: big.repo(),
        reset: relink(big.pristine(), big.work()),
        verify: verify_same(big.work(), big.expected()),
        pristine: Some(big.pristine()),
        time_refusals: false,
    };
    let work = big.work();
    let mut cases = vec![Case {
        group,
        function: "cp".into(),
        label: "cp".into(),
        program: "cp".into(),
        args: vec!["../pristine.txt".into(), "big.txt".into()],
        cwd: big.repo(),
        reset: Box::new(move || {
            let _ = fs::remove_file(&work);
        }),
        verify: verify_same(big.work(), big.pristine()),
        pristine: None,
        time_refusals: false,
    }];
    // The same safe replacement we make, done by the shell: a full copy under
    // a temporary name, renamed over the file. On ext4 the rename over an
    // existing file first starts the writeback of the new one
    // (`auto_da_alloc`), which plain `cp` to a new name leaves for later.
    let work = big.work();
    cases.push(Case {
        group,
        function: "cp_mv".into(),
        label: "cp + mv over the file".into(),
        program: "sh".into(),
        args: vec![
            "-c".into(),
            "cp ../pristine.txt .big.txt.tmp && mv .big.txt.tmp big.txt".into(),
        ],
        cwd: big.repo(),
        reset: relink(big.pristine(), big.work()),
        verify: verify_same(work, big.pristine()),
        pristine: None,
        time_refusals: false,
    });
    cases.push(tool(
        "ours",
        "git-fuzzy-apply",
        OURS,
        vec![patch_arg.clone()],
    ));
    cases.push(tool(
        "git_apply",
        "git apply",
        "git",
        vec!["apply".into(), patch_arg.clone()],
    ));
    let patch_flags: &[&str] = if drift {
        &[
            "-p1",
            "-s",
            "--no-backup-if-mismatch",
            "-r",
            "-",
            "-F3",
            "-l",
        ]
    } else {
        &["-p1", "-s", "--no-backup-if-mismatch", "-r", "-"]
    };
    let mut args: Vec<OsString> = patch_flags.iter().map(OsString::from).collect();
    args.extend(["-i".into(), patch_arg]);
    let (function, label) = if drift {
        ("gnu_patch_f3_l", "GNU patch -F3 -l")
    } else {
        ("gnu_patch", "GNU patch")
    };
    cases.push(tool(function, label, "patch", args));
    cases
}

// ---------------------------------------------------------------- target 3

/// The synthetic monorepo's generated inputs.
struct Mono {
    repo: PathBuf,
    files: usize,
    patch_bytes: u64,
    tree_bytes: u64,
}

/// Path of file `f` of the monorepo: ten services, ten packages each, a
/// hundred modules per package.
fn mono_path(f: usize) -> String {
    format!(
        "svc{:02}/pkg{:02}/mod{:02}/m{:03}.rs",
        f / 1000,
        (f / 100) % 10,
        (f / 10) % 10,
        f
    )
}

/// Line `k` (1-based) of monorepo file `f`.
fn mono_line(f: usize, k: usize) -> String {
    format!(
        "pub fn item_{f}_{k}(x: u64) -> u64 {{ x.wrapping_mul({}) ^ {k} }}\n",
        f * 40 + k
    )
}

/// Lines per monorepo file, and the line each hunk replaces.
const MONO_LINES: usize = 40;
const MONO_EDITED: usize = 20;

/// Writes every monorepo file, `edited` or not.
fn write_mono(repo: &Path, files: usize, edited: bool) -> u64 {
    let mut bytes = 0;
    for f in 0..files {
        let path = repo.join(mono_path(f));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = String::new();
        for k in 1..=MONO_LINES {
            if edited && k == MONO_EDITED {
                text.push_str(&mono_line(f, k).replace("wrapping_mul", "wrapping_add"));
            } else {
                text.push_str(&mono_line(f, k));
            }
        }
        bytes += text.len() as u64;
        fs::write(path, text).unwrap();
    }
    bytes
}

/// Generates the monorepo: `main` holds the files, the branch `expected` the
/// result of the patch (which touches every file once).
fn gen_mono(root: &Path, scale: Scale) -> Mono {
    let dir = root.join("mono");
    let repo = dir.join("repo");
    let patch = dir.join("mono.patch");
    let files = scale.mono_files;
    let stamp = format!("mono {files}");
    if fresh(&dir, &stamp) {
        fs::create_dir_all(&repo).unwrap();
        run(git(&repo).args(["init", "-q", "-b", "main"]));
        write_mono(&repo, files, true);
        run(git(&repo).args(["add", "-A"]));
        run(git(&repo).args(["commit", "-q", "-m", "expected"]));
        run(git(&repo).args(["branch", "expected"]));
        write_mono(&repo, files, false);
        run(git(&repo).args(["commit", "-q", "-a", "--amend", "-m", "main"]));
        let mut p = String::new();
        for f in 0..files {
            let path = mono_path(f);
            let _ = write!(
                p,
                "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{},7 +{},7 @@\n",
                MONO_EDITED - 3,
                MONO_EDITED - 3
            );
            for k in MONO_EDITED - 3..=MONO_EDITED + 3 {
                let line = mono_line(f, k);
                if k == MONO_EDITED {
                    p.push('-');
                    p.push_str(&line);
                    p.push('+');
                    p.push_str(&line.replace("wrapping_mul", "wrapping_add"));
                } else {
                    p.push(' ');
                    p.push_str(&line);
                }
            }
        }
        fs::write(&patch, p).unwrap();
        seal(&dir);
    }
    let tree_bytes = (0..files)
        .map(|f| {
            (1..=MONO_LINES)
                .map(|k| mono_line(f, k).len() as u64)
                .sum::<u64>()
        })
        .sum();
    Mono {
        patch_bytes: fs::metadata(&patch).map(|m| m.len()).unwrap_or(0),
        repo,
        files,
        tree_bytes,
    }
}

/// The cases of target 3.
fn mono_cases(mono: &Mono) -> Vec<Case> {
    let group = "t3_monorepo";
    let mut cases = Vec::new();
    for index in [false, true] {
        for ours in [true, false] {
            let repo = mono.repo.clone();
            let reset: Box<dyn Fn()> = Box::new(move || {
                run(git(&repo).args(["reset", "-q", "--hard", "main"]));
                if index {
                    // Entries written in the same second as the index are
                    // "racily clean" and would be re-hashed by every reader;
                    // a real repository is not in that state.
                    std::thread::sleep(Duration::from_millis(1100));
                    run(git(&repo).args(["update-index", "-q", "--refresh"]));
                }
            });
            let repo = mono.repo.clone();
            let verify: Box<dyn Fn() -> Result<(), String>> = Box::new(move || {
                let mut worktree = git(&repo);
                worktree.args(["diff", "--quiet", "expected", "--"]);
                if !worktree.status().is_ok_and(|s| s.success()) {
                    return Err("working tree differs from the expected commit".into());
                }
                if index {
                    let mut staged = git(&repo);
                    staged.args(["diff", "--cached", "--quiet", "expected", "--"]);
                    if !staged.status().is_ok_and(|s| s.success()) {
                        return Err("index differs from the expected commit".into());
                    }
                }
                Ok(())
            });
            let mut args: Vec<OsString> = Vec::new();
            let (program, function, label): (OsString, String, String) = if ours {
                (
                    "git-fuzzy-apply".into(),
                    "ours".into(),
                    "git-fuzzy-apply".into(),
                )
            } else {
                args.push("apply".into());
                ("git".into(), "git_apply".into(), "git apply".into())
            };
            let program = if ours { OsString::from(OURS) } else { program };
            if index {
                args.push("--index".into());
            }
            args.push("../mono.patch".into());
            let suffix = if index { "_index" } else { "" };
            cases.push(Case {
                group,
                function: format!("{function}{suffix}"),
                label: format!("{label}{}", if index { " --index" } else { "" }),
                program,
                args,
                cwd: mono.repo.clone(),
                reset,
                verify,
                pristine: None,
                time_refusals: false,
            });
        }
    }
    cases
}

// ---------------------------------------------------------------- target 5

/// One size of the worst case: `blocks` copies of a block ending in `}` and a
/// blank line, so the hunk's context occurs `blocks` times.
struct Repeat {
    factor: usize,
    blocks: usize,
    bytes: u64,
}

/// Generates the worst-case files, their expected results and patches.
fn gen_repeat(root: &Path, scale: Scale) -> (PathBuf, Vec<Repeat>) {
    let dir = root.join("repeat");
    let repo = dir.join("repo");
    let generate = fresh(&dir, &format!("repeat {}", scale.repeat_blocks));
    if generate {
        fs::create_dir_all(&repo).unwrap();
        run(git(&repo).args(["init", "-q"]));
    }
    let mut sizes = Vec::new();
    for factor in REPEAT_FACTORS {
        let blocks = scale.repeat_blocks * factor;
        // The hunk's hint: the `}` of the block three quarters down.
        let target = blocks * 3 / 4;
        let hint = 4 * target + 3;
        let pristine = dir.join(format!("pristine-{factor}x.txt"));
        if generate {
            let mut text = String::new();
            let mut expected = String::new();
            for b in 0..blocks {
                let block = format!("fn f{b}() {{\n    work({b});\n}}\n\n");
                text.push_str(&block);
                if b == target {
                    expected.push_str(&block.replacen("}\n", "}\n// inserted here\n", 1));
                } else {
                    expected.push_str(&block);
                }
            }
            fs::write(&pristine, &text).unwrap();
            fs::write(dir.join(format!("expected-{factor}x.txt")), expected).unwrap();
            let name = format!("{factor}x.txt");
            fs::write(
                dir.join(format!("{factor}x.patch")),
                format!(
                    "--- a/{name}\n+++ b/{name}\n@@ -{hint},2 +{hint},3 @@\n }}\n+// inserted here\n \n"
                ),
            )
            .unwrap();
        }
        sizes.push(Repeat {
            factor,
            blocks,
            bytes: fs::metadata(&pristine).map(|m| m.len()).unwrap_or(0),
        });
    }
    if generate {
        seal(&dir);
    }
    (dir, sizes)
}

/// The cases of target 5.
fn repeat_cases(dir: &Path, sizes: &[Repeat]) -> Vec<Case> {
    let group = "t5_repeated_context";
    let repo = dir.join("repo");
    let mut cases = Vec::new();
    for r in sizes {
        let f = r.factor;
        let pristine = dir.join(format!("pristine-{f}x.txt"));
        let work = repo.join(format!("{f}x.txt"));
        let expected = dir.join(format!("expected-{f}x.txt"));
        let patch = OsString::from(format!("../{f}x.patch"));
        let w = work.clone();
        cases.push(Case {
            group,
            function: format!("cp_{f}x"),
            label: format!("cp {f}x"),
            program: "cp".into(),
            args: vec![
                format!("../pristine-{f}x.txt").into(),
                format!("{f}x.txt").into(),
            ],
            cwd: repo.clone(),
            reset: Box::new(move || {
                let _ = fs::remove_file(&w);
            }),
            verify: verify_same(work.clone(), pristine.clone()),
            pristine: None,
            time_refusals: false,
        });
        for (name, label, program, args) in [
            (
                "ours",
                "git-fuzzy-apply",
                OsString::from(OURS),
                vec![patch.clone()],
            ),
            (
                "git_apply",
                "git apply",
                "git".into(),
                vec!["apply".into(), patch.clone()],
            ),
        ] {
            cases.push(Case {
                group,
                function: format!("{name}_{f}x"),
                label: format!("{label} {f}x"),
                program,
                args,
                cwd: repo.clone(),
                reset: relink(pristine.clone(), work.clone()),
                verify: verify_same(work.clone(), expected.clone()),
                pristine: Some(pristine.clone()),
                // A refusal (e.g. "ambiguous") is still worth timing: the
                // search over every candidate is what this target measures.
                time_refusals: name == "ours",
            });
        }
    }
    cases
}

// ---------------------------------------------------------------- running

/// Criterion's name filters among the arguments (values of options skipped).
fn filters() -> Vec<String> {
    const WITH_VALUE: [&str; 18] = [
        "-c",
        "--color",
        "--colour",
        "-s",
        "--save-baseline",
        "-b",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--format",
    ];
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            out.push(a);
        }
    }
    out
}

/// True when a filter may select a function of `group`: a filter starting
/// with a target number (`t3`, `t5_repeated_context/ours_4x`) selects only that
/// target, any other filter may select anything. This only decides which
/// inputs are generated and probed; criterion applies the filters itself.
fn wanted(group: &str, filters: &[String]) -> bool {
    let names_target =
        |f: &str| f.len() >= 2 && f.starts_with('t') && f.as_bytes()[1].is_ascii_digit();
    filters.is_empty()
        || filters
            .iter()
            .any(|f| !names_target(f) || f.starts_with(&group[..2]))
}

/// Median of one benchmark in seconds, from criterion's estimates.
fn median(group: &str, function: &str) -> Option<f64> {
    let path = criterion_home()
        .join(group)
        .join(function)
        .join("new/estimates.json");
    let json: serde_json::Value = serde_json::from_slice(&fs::read(path).ok()?).ok()?;
    Some(json["median"]["point_estimate"].as_f64()? / 1e9)
}

/// Peak resident set size (KiB) of one run, measured with `/usr/bin/time`.
fn peak_rss(case: &Case) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    (case.reset)();
    let out = std::env::temp_dir().join(format!("perf-rss-{}", std::process::id()));
    let mut cmd = Command::new(time);
    cmd.args([
        OsString::from("-f"),
        "%M".into(),
        "-o".into(),
        out.clone().into(),
    ])
    .arg(&case.program)
    .args(&case.args)
    .current_dir(&case.cwd)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    let status = cmd.status().ok()?;
    case.check_pristine(status.success());
    let text = fs::read_to_string(&out).ok()?;
    let _ = fs::remove_file(&out);
    text.lines().last()?.trim().parse().ok()
}

/// Everything the report needs, gathered while running.
#[derive(Default)]
struct Results {
    /// (group, function, label, probe outcome, timed)
    cases: Vec<(String, String, String, Outcome, bool)>,
    /// (label, KiB)
    rss: Vec<(String, Option<u64>)>,
    big: Option<(u64, u64)>,
    mono: Option<(usize, u64, u64)>,
    repeat: Vec<(usize, usize, u64)>,
}

fn main() {
    let scale = Scale::from_env();
    let filters = filters();
    let test_mode = std::env::args().any(|a| a == "--test");
    let root = inputs_dir().join(scale.name);
    fs::create_dir_all(&root).expect("perf-inputs");
    let load_before = fs::read_to_string("/proc/loadavg").unwrap_or_default();

    let mut results = Results::default();
    let mut cases = Vec::new();
    let started = Instant::now();
    let mut big = None;
    if wanted("t1_exact", &filters) || wanted("t2_drift", &filters) {
        let b = gen_big(&root, scale);
        results.big = Some((b.bytes, b.lines));
        if wanted("t1_exact", &filters) {
            cases.extend(big_cases(&b, "t1_exact", false));
        }
        if wanted("t2_drift", &filters) {
            cases.extend(big_cases(&b, "t2_drift", true));
        }
        big = Some(b);
    }
    if wanted("t3_monorepo", &filters) {
        let m = gen_mono(&root, scale);
        results.mono = Some((m.files, m.tree_bytes, m.patch_bytes));
        cases.extend(mono_cases(&m));
    }
    if wanted("t5_repeated_context", &filters) {
        let (dir, sizes) = gen_repeat(&root, scale);
        results.repeat = sizes
            .iter()
            .map(|r| (r.factor, r.blocks, r.bytes))
            .collect();
        cases.extend(repeat_cases(&dir, &sizes));
    }
    eprintln!(
        "perf: inputs ready under {} in {:.1?}",
        root.display(),
        started.elapsed()
    );

    // Probe every case once: exit status and exact output.
    for case in &cases {
        let outcome = case.probe();
        eprintln!(
            "perf: probe {} / {}: {}",
            case.group,
            case.label,
            outcome.describe()
        );
        let timed = matches!(outcome, Outcome::Applied)
            || (case.time_refusals && matches!(outcome, Outcome::Refused(_)));
        results.cases.push((
            case.group.into(),
            case.function.clone(),
            case.label.clone(),
            outcome,
            timed,
        ));
    }

    let mut criterion = Criterion::default().configure_from_args();
    let timed: Vec<(&Case, Option<i32>)> = cases
        .iter()
        .zip(&results.cases)
        .filter(|(_, r)| r.4)
        .map(|(case, r)| match r.3 {
            Outcome::Refused(code) => (case, Some(code)),
            _ => (case, Some(0)),
        })
        .collect();
    for same_group in timed.chunk_by(|a, b| a.0.group == b.0.group) {
        let mut group = criterion.benchmark_group(same_group[0].0.group);
        // Whole processes on large inputs: few samples, one run per
        // iteration for the slow ones (criterion warns that it cannot
        // reach the target time; that is expected).
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        for &(case, expected) in same_group {
            group.bench_function(case.function.as_str(), |b| {
                b.iter_custom(|iters| case.timed(iters, expected));
            });
        }
        group.finish();
    }
    criterion.final_summary();

    if let Some(b) = &big
        && wanted("t1_exact", &filters)
    {
        for case in big_cases(b, "t1_exact", false) {
            let kib = peak_rss(&case);
            results.rss.push((case.label.clone(), kib));
        }
    }
    let load_after = fs::read_to_string("/proc/loadavg").unwrap_or_default();

    let report = report(&results, scale, test_mode, &load_before, &load_after);
    println!("\n{report}");
    if std::env::var_os("PERF_WRITE_DOCS").is_some_and(|v| v == "1") {
        if test_mode {
            eprintln!("perf: --test measures nothing; docs/performance.md left as it is");
        } else {
            write_docs(&report);
        }
    }
}

/// A ratio cell: `ours / baseline` and whether it meets `goal` (at most).
fn ratio_row(
    out: &mut String,
    what: &str,
    ours: Option<f64>,
    base: Option<f64>,
    goal: Option<f64>,
    goal_text: &str,
) {
    let (ratio, met) = match (ours, base) {
        (Some(o), Some(b)) if b > 0.0 => {
            let r = o / b;
            let met = match goal {
                Some(g) if r <= g => "yes",
                Some(_) => "**no**",
                None => "—",
            };
            (format!("{r:.2}×"), met)
        }
        _ => ("—".into(), "not measured"),
    };
    let _ = writeln!(
        out,
        "| {what} | {} | {} | {ratio} | {goal_text} | {met} |",
        secs(ours),
        secs(base)
    );
}

/// Seconds with three decimals, or `—`.
fn secs(s: Option<f64>) -> String {
    s.map_or("—".into(), |s| format!("{s:.3} s"))
}

/// Human size of a byte count.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

/// The Markdown report: inputs, ratios against the goals, the worst-case
/// table, peak RSS, every probe and median, the machine.
fn report(r: &Results, scale: Scale, test_mode: bool, load0: &str, load1: &str) -> String {
    let m = |g: &str, f: &str| {
        let timed = r.cases.iter().any(|c| c.0 == g && c.1 == f && c.4);
        if timed && !test_mode {
            median(g, f)
        } else {
            None
        }
    };
    // Marks a row whose command did not apply cleanly in its check run.
    let note = |g: &str, f: &str, what: &str| match r
        .cases
        .iter()
        .find(|c| c.0 == g && c.1 == f)
        .map(|c| &c.3)
    {
        Some(Outcome::Applied) | None => what.to_string(),
        Some(other) => format!("{what} — {}: {}", f.replace('_', " "), other.describe()),
    };
    let mut o = String::new();
    let _ = writeln!(o, "### Inputs (`PERF_SCALE={}`)\n", scale.name);
    if let Some((bytes, lines)) = r.big {
        let _ = writeln!(
            o,
            "- targets 1, 2, 4: one text file of {} ({lines} lines of {} bytes), three hunks at 97 %, 98 % and 99 % of it",
            size(bytes),
            bytes / lines.max(1)
        );
    }
    if let Some((files, tree, patch)) = r.mono {
        let _ = writeln!(
            o,
            "- target 3: {files} files of {MONO_LINES} lines ({}) in {} nested folders, committed; one patch of {files} hunks ({})",
            size(tree),
            (0..files).map(|f| f / 10).max().map_or(0, |d| d + 1),
            size(patch)
        );
    }
    for (factor, blocks, bytes) in &r.repeat {
        let _ = writeln!(
            o,
            "- target 5 at {factor}×: the context `}}` + blank line occurs {blocks} times ({})",
            size(*bytes)
        );
    }
    if test_mode {
        let _ = writeln!(
            o,
            "\n(`--test`: every command ran once and was checked; nothing was timed.)"
        );
    }

    let _ = writeln!(
        o,
        "\n### Ratios against the goals (medians; ours / baseline)\n"
    );
    let _ = writeln!(o, "| target | ours | baseline | ratio | goal | met |");
    let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- |");
    let ours1 = m("t1_exact", "ours");
    ratio_row(
        &mut o,
        &note("t1_exact", "ours", "1. exact, vs `cp`"),
        ours1,
        m("t1_exact", "cp"),
        Some(1.25),
        "≤ 1.25×",
    );
    ratio_row(
        &mut o,
        &note("t1_exact", "ours", "1. exact, vs `cp` + `mv` over the file"),
        ours1,
        m("t1_exact", "cp_mv"),
        None,
        "(same replacement)",
    );
    ratio_row(
        &mut o,
        &note("t1_exact", "ours", "1. exact, vs `git apply`"),
        ours1,
        m("t1_exact", "git_apply"),
        Some(0.2),
        "≤ 0.20× (5× faster)",
    );
    ratio_row(
        &mut o,
        &note("t1_exact", "ours", "1. exact, vs GNU `patch`"),
        ours1,
        m("t1_exact", "gnu_patch"),
        Some(1.0 / 3.0),
        "≤ 0.33× (3× faster)",
    );
    let ours2 = m("t2_drift", "ours");
    ratio_row(
        &mut o,
        &note("t2_drift", "ours", "2. drifted, vs `cp`"),
        ours2,
        m("t2_drift", "cp"),
        Some(1.5),
        "≤ 1.5×",
    );
    ratio_row(
        &mut o,
        &note(
            "t2_drift",
            "ours",
            "2. drifted, vs `cp` + `mv` over the file",
        ),
        ours2,
        m("t2_drift", "cp_mv"),
        None,
        "(same replacement)",
    );
    ratio_row(
        &mut o,
        &note(
            "t2_drift",
            "gnu_patch_f3_l",
            "2. drifted, vs GNU `patch -F3 -l`",
        ),
        ours2,
        m("t2_drift", "gnu_patch_f3_l"),
        None,
        "(peer)",
    );
    if let Some(outcome) = r
        .cases
        .iter()
        .find(|c| c.0 == "t2_drift" && c.1 == "git_apply")
        .map(|c| &c.3)
    {
        let _ = writeln!(
            o,
            "| 2. drifted, `git apply` | | | | (refuses) | {} |",
            outcome.describe()
        );
    }
    ratio_row(
        &mut o,
        &note("t3_monorepo", "ours", "3. many files, vs `git apply`"),
        m("t3_monorepo", "ours"),
        m("t3_monorepo", "git_apply"),
        Some(1.0 / 3.0),
        "≤ 0.33× (3× faster)",
    );
    ratio_row(
        &mut o,
        &note(
            "t3_monorepo",
            "ours_index",
            "3. many files `--index`, vs `git apply --index`",
        ),
        m("t3_monorepo", "ours_index"),
        m("t3_monorepo", "git_apply_index"),
        Some(1.5),
        "≤ 1.5×",
    );
    let rss = |label: &str| r.rss.iter().find(|x| x.0 == label).and_then(|x| x.1);
    let (ro, rg) = (rss("git-fuzzy-apply"), rss("git apply"));
    let rss_ratio = match (ro, rg) {
        (Some(a), Some(b)) if b > 0 => format!("{:.2}×", a as f64 / b as f64),
        _ => "—".into(),
    };
    let rss_met = match (ro, rg) {
        (Some(a), Some(b)) => {
            if a < b {
                "yes"
            } else {
                "**no**"
            }
        }
        _ => "not measured",
    };
    let kib = |k: Option<u64>| k.map_or("—".into(), |k| size(k * 1024));
    let _ = writeln!(
        o,
        "| 4. peak RSS on target 1, vs `git apply` | {} | {} | {rss_ratio} | < 1× | {rss_met} |",
        kib(ro),
        kib(rg)
    );
    for (factor, ..) in &r.repeat {
        let f = format!("{factor}x");
        ratio_row(
            &mut o,
            &note(
                "t5_repeated_context",
                &format!("ours_{f}"),
                &format!("5. repeated context {factor}×, vs `cp`"),
            ),
            m("t5_repeated_context", &format!("ours_{f}")),
            m("t5_repeated_context", &format!("cp_{f}")),
            None,
            "(see below)",
        );
    }

    if !r.repeat.is_empty() {
        let _ = writeln!(o, "\n### Target 5: time per size\n");
        let _ = writeln!(
            o,
            "| size | occurrences | file | ours | `git apply` | `cp` | ours growth vs previous size (size grew 4×) |"
        );
        let _ = writeln!(o, "| --- | --- | --- | --- | --- | --- | --- |");
        let mut prev: Option<f64> = None;
        for (factor, blocks, bytes) in &r.repeat {
            let f = format!("{factor}x");
            let ours = m("t5_repeated_context", &format!("ours_{f}"));
            let growth = match (prev, ours) {
                (Some(p), Some(o)) if p > 0.0 => format!("{:.2}×", o / p),
                _ => "—".into(),
            };
            let _ = writeln!(
                o,
                "| {factor}× | {blocks} | {} | {} | {} | {} | {growth} |",
                size(*bytes),
                secs(ours),
                secs(m("t5_repeated_context", &format!("git_apply_{f}"))),
                secs(m("t5_repeated_context", &format!("cp_{f}")))
            );
            prev = ours;
        }
        let _ = writeln!(
            o,
            "\nLinear time shows as a growth of about 4× per row; quadratic as about 16×."
        );
    }

    if !r.rss.is_empty() {
        let _ = writeln!(
            o,
            "\n### Target 4: peak resident set size on target 1 (`/usr/bin/time -f %M`)\n"
        );
        let _ = writeln!(o, "| command | peak RSS |");
        let _ = writeln!(o, "| --- | --- |");
        for (label, k) in &r.rss {
            let _ = writeln!(o, "| {label} | {} |", kib(*k));
        }
    }

    let _ = writeln!(
        o,
        "\n### Every command: outcome of the untimed check run, median time\n"
    );
    let _ = writeln!(o, "| group | command | outcome | median |");
    let _ = writeln!(o, "| --- | --- | --- | --- |");
    for (g, f, label, outcome, _) in &r.cases {
        let _ = writeln!(
            o,
            "| {g} | {label} | {} | {} |",
            outcome.describe(),
            secs(m(g, f))
        );
    }

    let mem = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or("?".into(), |k| size(k * 1024));
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let engine = String::from_utf8_lossy(
        &Command::new("git")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["log", "-1", "--format=%h %cs", "--", "src"])
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default(),
    )
    .trim()
    .to_string();
    let _ = writeln!(o, "\n### Machine and run\n");
    let _ = writeln!(
        o,
        "- date: {}",
        first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
    );
    let _ = writeln!(
        o,
        "- machine: {cpus} CPUs (nproc), {mem} memory, Linux {}, filesystem of the inputs: {}",
        first_line("uname", &["-r"]),
        inputs_file_system()
    );
    let _ = writeln!(
        o,
        "- load average before / after: {} / {}",
        load0.trim(),
        load1.trim()
    );
    let _ = writeln!(
        o,
        "- engine measured: the last commit touching `src/`: {engine}"
    );
    let _ = writeln!(
        o,
        "- peers: {}, {}, {}",
        first_line("git", &["--version"]),
        first_line("patch", &["--version"]),
        first_line("cp", &["--version"])
    );
    o
}

/// The file system holding the inputs, with its mount options and, for ext4,
/// whether it keeps a journal (without one, ext4 skips inodes freed in the
/// last minute when it allocates, which weighs on target 3).
fn inputs_file_system() -> String {
    let dir = inputs_dir();
    let dir = dir.to_string_lossy();
    let found = first_line(
        "findmnt",
        &["-n", "-o", "SOURCE,FSTYPE,OPTIONS", "-T", &dir],
    );
    let mut parts = found.split_whitespace();
    let (source, fstype, options) = (
        parts.next().unwrap_or("?"),
        parts.next().unwrap_or("?"),
        parts.next().unwrap_or(""),
    );
    let mut text = format!("{fstype} on {source} ({options})");
    if fstype == "ext4" {
        // `journal_task` names the jbd2 thread, or `<none>` without a journal.
        let device = Path::new(source).file_name().unwrap_or_default();
        let task = Path::new("/sys/fs/ext4").join(device).join("journal_task");
        if let Ok(task) = fs::read_to_string(task) {
            text.push_str(if task.trim() == "<none>" {
                ", without a journal"
            } else {
                ", with a journal"
            });
        }
    }
    text
}

/// Replaces the text between the markers of docs/performance.md by `report`.
fn write_docs(report: &str) {
    const BEGIN: &str =
        "<!-- perf:begin (written by `PERF_WRITE_DOCS=1 cargo bench --bench perf`) -->";
    const END: &str = "<!-- perf:end -->";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/performance.md");
    let doc =
        fs::read_to_string(&path).unwrap_or_else(|_| format!("# Performance\n\n{BEGIN}\n{END}\n"));
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        eprintln!(
            "perf: {} lacks the perf:begin/perf:end markers; not written",
            path.display()
        );
        return;
    };
    let new = format!("{}{BEGIN}\n{report}{}", &doc[..b], &doc[e..]);
    fs::write(&path, new).expect("write docs/performance.md");
    eprintln!("perf: wrote {}", path.display());
}
