//! Running our binary and the peers (`git apply`, `git apply --recount -C1
//! --ignore-whitespace`, GNU `patch -p1 -F3 -l`) on a case in a scratch
//! directory, and classifying what they did.

use super::cases::adversary::Expectation;
use super::cases::{Case, Expect, Format};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a tool may run on one case; longer is counted as a crash.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A tool under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    /// git-fuzzy-apply.
    Ours,
    /// `git apply`.
    GitApply,
    /// `git apply --recount -C1 --ignore-whitespace`.
    GitApplyLenient,
    /// `patch -p1 -F3 -l --batch --forward` with the patch on stdin.
    GnuPatch,
}

impl Tool {
    /// Every tool, in table order.
    pub const ALL: [Tool; 4] = [
        Tool::Ours,
        Tool::GitApply,
        Tool::GitApplyLenient,
        Tool::GnuPatch,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ours => "git-fuzzy-apply",
            Tool::GitApply => "git apply",
            Tool::GitApplyLenient => "git apply --recount -C1 --ignore-whitespace",
            Tool::GnuPatch => "patch -p1 -F3 -l",
        }
    }

    /// Whether the tool reads `format` at all.
    pub fn reads(self, format: Format) -> bool {
        self == Tool::Ours || matches!(format, Format::Unified | Format::Numberless)
    }
}

/// How a run ended, judged against the case's intended outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Exit 0 and the file is exactly the intended result.
    Exact,
    /// Non-zero exit and the file unchanged.
    Refused,
    /// Exit 0 and the file unchanged ("refused silently"; flagged).
    NoOp,
    /// The file changed, but not to the intended result (or success on a
    /// must-refuse case, or a half-written file after a failure).
    Wrong,
    /// Timeout, signal, or panic.
    Crash,
    /// The tool does not read this notation.
    Unsupported,
}

/// A scratch `git init` repository one worker reuses for every run.
pub struct Scratch {
    /// Holds the patch file and the stderr log.
    root: PathBuf,
    /// The repository the file is written into.
    repo: PathBuf,
}

impl Scratch {
    /// Creates `dir/repo` and runs `git init` there.
    pub fn new(dir: &Path) -> std::io::Result<Scratch> {
        let repo = dir.join("repo");
        fs::create_dir_all(&repo)?;
        let ok = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()?
            .success();
        if !ok {
            return Err(std::io::Error::other("git init failed"));
        }
        Ok(Scratch {
            root: dir.to_path_buf(),
            repo,
        })
    }

    /// Empties the repository's work tree (keeps `.git`).
    fn clear(&self) -> std::io::Result<()> {
        for e in fs::read_dir(&self.repo)? {
            let p = e?.path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                fs::remove_dir_all(&p)?;
            } else {
                fs::remove_file(&p)?;
            }
        }
        Ok(())
    }

    /// Runs `tool` on `case`.
    pub fn run(&self, tool: Tool, case: &Case, ours: &Path) -> std::io::Result<Run> {
        if !tool.reads(case.format) {
            return Ok(Run {
                outcome: Outcome::Unsupported,
                stderr: String::new(),
                after: None,
            });
        }
        self.clear()?;
        let target = self.repo.join(&case.path);
        fs::create_dir_all(target.parent().unwrap_or(&self.repo))?;
        let padding = case.padding();
        if padding.is_empty() {
            fs::write(&target, &case.original)?;
        } else {
            let mut bytes = padding.clone();
            bytes.extend_from_slice(&case.original);
            fs::write(&target, bytes)?;
        }
        let patch = self.root.join("patch");
        fs::write(&patch, &case.patch)?;
        let log = self.root.join("stderr");
        let mut cmd = match tool {
            Tool::Ours => {
                let mut c = Command::new(ours);
                c.arg("-q");
                if case.reverse {
                    c.arg("-R");
                }
                c.arg(&patch);
                c
            }
            Tool::GitApply | Tool::GitApplyLenient => {
                let mut c = Command::new("git");
                c.arg("apply");
                if tool == Tool::GitApplyLenient {
                    c.args(["--recount", "-C1", "--ignore-whitespace"]);
                }
                if case.reverse {
                    c.arg("-R");
                }
                if case.unidiff_zero {
                    c.arg("--unidiff-zero");
                }
                c.arg(&patch);
                c
            }
            Tool::GnuPatch => {
                let mut c = Command::new("patch");
                // --forward would refuse every reversed hunk.
                if case.reverse {
                    c.arg("-R");
                } else {
                    c.arg("--forward");
                }
                c.args(["-p1", "-F3", "-l", "--batch"])
                    .args(["--no-backup-if-mismatch", "--reject-file=-"])
                    .stdin(fs::File::open(&patch)?);
                c
            }
        };
        if tool != Tool::GnuPatch {
            cmd.stdin(Stdio::null());
        }
        let mut child = cmd
            .current_dir(&self.repo)
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log)?)
            .spawn()?;
        let started = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait()? {
                break Some(s);
            }
            if started.elapsed() > TIMEOUT {
                child.kill()?;
                child.wait()?;
                break None;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let stderr = fs::read_to_string(&log).unwrap_or_default();
        let code = status.and_then(|s| s.code());
        let mut after = fs::read(&target).ok();
        // Judge (and keep) the file without its padding, when it is intact.
        if !padding.is_empty()
            && let Some(a) = &after
            && a.starts_with(&padding)
        {
            after = Some(a[padding.len()..].to_vec());
        } else if !padding.is_empty() {
            // Padding damaged or file gone: wrong whatever remains.
            after = after.map(|mut a| {
                a.insert(0, 0);
                a
            });
        }
        let outcome = match code {
            None => Outcome::Crash,
            Some(101) if tool == Tool::Ours => Outcome::Crash,
            Some(code) => classify(case, code, after.as_deref()),
        };
        Ok(Run {
            outcome,
            stderr,
            after,
        })
    }
}

/// What one run did.
#[derive(Debug)]
pub struct Run {
    /// Its classification.
    pub outcome: Outcome,
    /// The tool's standard error.
    pub stderr: String,
    /// The target file afterwards (`None` if it was gone).
    pub after: Option<Vec<u8>>,
}

/// Judges a finished run from its exit code and the file it left. For the
/// kinds where a claimed success that changed nothing hides a lost edit
/// ([`super::cases::Noise::noop_is_wrong`]), a no-op is wrong.
pub fn classify(case: &Case, code: i32, after: Option<&[u8]>) -> Outcome {
    let unchanged = after == Some(case.original.as_slice());
    match &case.expect {
        Expect::Apply(want) if code == 0 && after == Some(want.as_slice()) => Outcome::Exact,
        _ if unchanged && code == 0 && case.kind().noop_is_wrong() => Outcome::Wrong,
        _ if unchanged && code == 0 => Outcome::NoOp,
        _ if unchanged => Outcome::Refused,
        _ => Outcome::Wrong,
    }
}

/// Whether `o` is an intended outcome for `case`.
pub fn good(case: &Case, o: Outcome) -> bool {
    match case.expectation() {
        Expectation::Apply => o == Outcome::Exact,
        Expectation::Refuse => o == Outcome::Refused,
        Expectation::ApplyOrRefuse => matches!(o, Outcome::Exact | Outcome::Refused),
    }
}
