//! How a run that could not be made ends: the message on standard error
//! (and the JSON error object with `--json`), exit 2; and clap's usage
//! errors, with their own exit codes.

use super::Cli;
use anstream::{AutoStream, ColorChoice};
use clap::error::ErrorKind;
use git_fuzzy_apply::RunError;
use git_fuzzy_apply::report::color::{self, ERROR};
use git_fuzzy_apply::report::{Problem, ProblemCode, Report};
use std::io::{self, Write};
use std::process::ExitCode;

/// Why a run could not be made (exit 2), with its report code.
pub(crate) struct Failure {
    pub(crate) code: ProblemCode,
    pub(crate) message: String,
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Self {
        Failure {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure {
            code: ProblemCode::IoError,
            message: e.to_string(),
        }
    }
}

/// What `--color` forces: `Auto` leaves the choice to the environment,
/// git's `color.ui` and the stream.
pub(crate) fn color_flag(flag: super::ColorArg) -> anstream::ColorChoice {
    match flag {
        super::ColorArg::Always => anstream::ColorChoice::Always,
        super::ColorArg::Never => anstream::ColorChoice::Never,
        super::ColorArg::Auto => anstream::ColorChoice::Auto,
    }
}

/// Standard error, coloured as `--color`, the environment and git say.
/// Made only when there is something to print: finding git's `color.ui`
/// opens the repository.
pub(crate) fn stderr_stream(flag: super::ColorArg) -> AutoStream<io::Stderr> {
    let cwd = std::env::current_dir().unwrap_or_default();
    AutoStream::new(io::stderr(), color::choice(color_flag(flag), &cwd))
}

/// Prints clap's error (help and version go to standard output, exit 0);
/// with `--json`, the JSON error object too.
pub(crate) fn usage_error(e: clap::Error, json: bool) -> ExitCode {
    if json && !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        let message = first.strip_prefix("error: ").unwrap_or(first).to_string();
        let failure = Failure {
            code: ProblemCode::UsageError,
            message,
        };
        print_json_failure(&failure);
    }
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

/// Reports a run that could not be made, on standard error (and as JSON on
/// standard output with `--json`); exit 2.
pub(crate) fn fail(failure: &Failure, cli: &Cli) -> ExitCode {
    if cli.json {
        print_json_failure(failure);
    }
    let mut stderr = stderr_stream(cli.color);
    let label = color::label(
        "error:",
        ERROR,
        stderr.current_choice() != ColorChoice::Never,
    );
    let _ = writeln!(stderr, "{label} {}", failure.message);
    ExitCode::from(2)
}

/// The JSON error object of a run that could not be made, on standard
/// output.
fn print_json_failure(failure: &Failure) {
    let report = Report::failed(Problem::new(failure.code, failure.message.clone(), None));
    let mut stdout = io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut stdout, &report.json(None));
    let _ = writeln!(stdout);
}
