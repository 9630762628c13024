//! The `git-fuzzy-apply` command: argument parsing and printing (`cli/`);
//! the library does the work.

#![warn(unreachable_pub)]

use clap::FromArgMatches;
use cli::Cli;
use std::ffi::OsString;
use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    // Before any thread starts: a signal then removes the locks held.
    if let Err(e) = git_fuzzy_apply::clean_up_on_signals() {
        eprintln!("warning: cannot handle interruptions: {e}");
    }
    let args: Vec<OsString> = std::env::args_os().collect();
    // Known before parsing, so that a usage error is reported as JSON too.
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let matches = match cli::command().try_get_matches_from(&args) {
        Ok(matches) => matches,
        Err(e) => return cli::exit::usage_error(e, json),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return cli::exit::usage_error(e, json),
    };
    match cli::run::execute(&cli, &matches) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => cli::exit::fail(&failure, &cli),
    }
}
