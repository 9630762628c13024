//! One run of the command: the options turned into the library's, the
//! patch read, the run made, its report printed.

use super::exit::{Failure, color_flag, stderr_stream};
use super::terminal::{Terminal, TerminalProgress};
use super::{Action, Cli, FormatArg, HookArgs, TierArg};
use anstream::{AutoStream, ColorChoice};
use clap::ArgMatches;
use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::report::color;
use git_fuzzy_apply::report::human::{self, ErrorStyle, shell_word};
use git_fuzzy_apply::report::{ProblemCode, feedback, stat, unified};
use git_fuzzy_apply::{
    ApplyOptions, Destination, HookMode, Invocation, MatchOptions, Outcome, ParseOptions,
    PatchText, PathRule, Pin, Tier, recover, run_hook, run_patch_text,
};
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;

/// `git-fuzzy-apply hook`: runs the hook and prints what it did.
fn hook(args: &HookArgs) -> Result<u8, Failure> {
    let mode = if args.check {
        HookMode::Check
    } else {
        HookMode::Apply
    };
    let cwd = std::env::current_dir()?;
    let run = run_hook(&cwd, &args.dir, mode)?;
    let mut stdout = AutoStream::new(io::stdout(), color::choice(color_flag(args.color), &cwd));
    let colored = stdout.current_choice() != ColorChoice::Never;
    stdout.write_all(run.render(colored).as_bytes())?;
    Ok(run.exit_code())
}

/// Runs what the command line asks for; the exit code, or why the run
/// could not be made.
pub(crate) fn execute(cli: &Cli, matches: &ArgMatches) -> Result<u8, Failure> {
    match &cli.action {
        Some(Action::Man) => {
            super::docs::render_man(&mut io::stdout().lock())?;
            return Ok(0);
        }
        Some(Action::Completions { shell }) => {
            super::docs::render_completions(*shell, &mut io::stdout().lock())?;
            return Ok(0);
        }
        Some(Action::Hook(args)) => return hook(args),
        None => {}
    }
    let invocation = invocation(cli, matches).map_err(|message| Failure {
        code: ProblemCode::UsageError,
        message,
    })?;
    if cli.recover {
        match recover(&std::env::current_dir()?)? {
            Some(done) => eprintln!("git-fuzzy-apply: {done}"),
            None if !cli.quiet => eprintln!("git-fuzzy-apply: no interrupted run to recover"),
            None => {}
        }
        return Ok(0);
    }
    let Some(text) = read_patches(&cli.patches)? else {
        if !cli.quiet {
            eprintln!("no patches to apply in the given folders");
        }
        return Ok(0);
    };
    let progress = TerminalProgress::new(Terminal {
        stderr_is_tty: io::stderr().is_terminal(),
        quiet: cli.quiet,
        json: cli.json || cli.feedback,
    });
    // The parsed hunks share the patch text rather than copy it.
    let text = PatchText::from(text);
    let outcome = run_patch_text(&std::env::current_dir()?, &text, &invocation, &progress);
    progress.clear();
    let outcome = outcome?;
    if let Some(done) = &outcome.recovered {
        eprintln!("git-fuzzy-apply: {done}");
    }
    print(cli, &outcome, text.as_bytes())?;
    Ok(outcome.report.exit_code() as u8)
}

/// This run's arguments as they would be typed again (shell-quoted), ending
/// in `< PATCH` when the patch is read from standard input: what the `--at`
/// commands of an ambiguous hunk repeat.
fn rerun(patches: &[PathBuf]) -> String {
    let mut words: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| shell_word(&a.to_string_lossy()))
        .collect();
    if patches.is_empty() || patches.iter().any(|p| p.as_os_str() == "-") {
        words.push("< PATCH".into());
    }
    words.join(" ")
}

/// The library's run options from the command line.
fn invocation(cli: &Cli, matches: &ArgMatches) -> Result<Invocation, String> {
    if !(0.5..=1.0).contains(&cli.threshold) {
        return Err("--threshold must be between 0.5 and 1.0".into());
    }
    if let Some(refusal) = cli.git_apply.refusal() {
        return Err(refusal);
    }
    let mut apply = ApplyOptions::default()
        .with_parse(parse_options(cli))
        .with_matching(match_options(cli))
        .with_reverse(cli.reverse)
        .with_partial(cli.partial);
    for at in &cli.at {
        let (file, line) = at
            .rsplit_once(':')
            .and_then(|(f, l)| Some((f, l.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("--at {at}: expected FILE:LINE"))?;
        apply = apply.with_pin(Pin::new(file, line));
    }
    if let Some(directory) = &cli.directory {
        apply = apply.with_directory(directory);
    }
    // The rules in the order given, includes and excludes interleaved.
    let mut rules: Vec<(usize, PathRule)> = Vec::new();
    for (id, rule) in [
        ("include", PathRule::Include as fn(String) -> PathRule),
        ("exclude", PathRule::Exclude),
    ] {
        if let (Some(values), Some(indices)) =
            (matches.get_many::<String>(id), matches.indices_of(id))
        {
            rules.extend(indices.zip(values).map(|(i, v)| (i, rule(v.clone()))));
        }
    }
    rules.sort_by_key(|r| r.0);
    for (_, rule) in rules {
        apply = apply.with_path_rule(rule);
    }
    let mut invocation = Invocation::default()
        .with_apply(apply)
        .with_destination(if cli.index {
            Destination::Index
        } else if cli.cached {
            Destination::Cached
        } else {
            Destination::Worktree
        })
        .with_dry_run(cli.check || cli.emit_unified || cli.stat || cli.numstat || cli.summary)
        .with_reject(cli.reject)
        .with_allow_empty(cli.git_apply.allow_empty)
        .with_rerun(rerun(&cli.patches));
    if let Some(report) = &cli.report {
        invocation = invocation.with_report_path(report);
    }
    Ok(invocation)
}

/// `--format`, `-p` and `--target`.
fn parse_options(cli: &Cli) -> ParseOptions {
    let parse = ParseOptions::default()
        .with_format(match cli.format {
            FormatArg::Auto => None,
            FormatArg::Unified => Some(PatchFormat::UnifiedDiff),
            FormatArg::Numberless => Some(PatchFormat::NumberlessDiff),
            FormatArg::Codex => Some(PatchFormat::CodexEnvelope),
            FormatArg::SearchReplace => Some(PatchFormat::SearchReplace),
        })
        .with_strip(cli.strip);
    match &cli.target {
        Some(target) => parse.with_target(target),
        None => parse,
    }
}

/// `--threshold`, `--max-tier` (`--ignore-whitespace`) and `--scan-limit`.
fn match_options(cli: &Cli) -> MatchOptions {
    let defaults = MatchOptions::default();
    let scan_limit = cli.scan_limit.unwrap_or(defaults.similarity_scan_limit());
    defaults
        .with_similarity_threshold(cli.threshold)
        .with_max_tier(match cli.max_tier {
            // --ignore-whitespace asks for the resilient tier.
            TierArg::Exact if cli.git_apply.ignore_whitespace => Tier::Resilient,
            TierArg::Exact => Tier::Exact,
            TierArg::Resilient => Tier::Resilient,
            TierArg::Fuzzy => Tier::Fuzzy,
            TierArg::Structural => Tier::Structural,
            TierArg::Similarity => Tier::Similarity,
        })
        .with_similarity_scan_limit(scan_limit)
}

/// Prints the run's report as the options ask: JSON, feedback, stat,
/// unified diff or the human summary on standard output, the errors and
/// the files written beside the tree on standard error.
fn print(cli: &Cli, outcome: &Outcome, patch: &[u8]) -> io::Result<()> {
    let report = &outcome.report;
    let mut stdout = io::stdout().lock();
    if cli.json {
        let text = cli.feedback.then(|| feedback::render(report, patch));
        serde_json::to_writer_pretty(&mut stdout, &report.json(text))?;
        writeln!(stdout)?;
        return Ok(());
    }
    if cli.feedback {
        return stdout.write_all(feedback::render(report, patch).as_bytes());
    }
    if cli.stat || cli.numstat || cli.summary {
        for (on, text) in [
            (cli.stat, stat::stat(report)),
            (cli.numstat, stat::numstat(report)),
            (cli.summary, stat::summary(report, outcome.plan.results())),
        ] {
            if on {
                stdout.write_all(text.as_bytes())?;
            }
        }
    } else if cli.emit_unified && report.ok {
        stdout.write_all(unified::unified_diff(outcome.plan.results()).as_bytes())?;
    } else if !cli.quiet {
        stdout.write_all(human::summary(report, cli.verbose).as_bytes())?;
    }
    // Styled here; the stream drops the styles when colour is off.
    let style = ErrorStyle::default()
        .with_color(true)
        .with_rerun(rerun(&cli.patches));
    let errors = human::errors_with(report, &style);
    if errors.is_empty() && outcome.rejects.is_empty() && outcome.conflict_report.is_none() {
        return Ok(());
    }
    let mut stderr = stderr_stream(cli.color);
    stderr.write_all(errors.as_bytes())?;
    for path in &outcome.rejects {
        writeln!(stderr, "rejected hunks written to {}", path.display())?;
    }
    if let Some(report) = &outcome.conflict_report {
        writeln!(
            stderr,
            "conflict report: {} ({})",
            report.markdown.display(),
            report.json.display()
        )?;
    }
    Ok(())
}

/// Reads the patch text; `None` when only folders were given and they hold
/// no patch files (a pre-commit hook with nothing to do).
fn read_patches(paths: &[PathBuf]) -> io::Result<Option<Vec<u8>>> {
    let mut text = Vec::new();
    if paths.is_empty() {
        io::stdin().read_to_end(&mut text)?;
        // Reading grows the buffer by doubling: give back what is unused.
        text.shrink_to_fit();
        return Ok(Some(text));
    }
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && !p
                            .file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                })
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Ok(None);
    }
    for path in files {
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        if path.as_os_str() == "-" {
            io::stdin().read_to_end(&mut text)?;
        } else {
            let bytes = std::fs::read(&path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            text.extend_from_slice(&bytes);
        }
    }
    text.shrink_to_fit();
    Ok(Some(text))
}
