//! The `git-fuzzy-apply` command: argument parsing and printing; the library
//! does the work.

use clap::{ArgMatches, FromArgMatches};
use git_fuzzy_apply::ApplyOptions;
use git_fuzzy_apply::cli::{self, Cli, FormatArg, TierArg};
use git_fuzzy_apply::invocation::{Destination, Invocation, Outcome, recover, run_patch_text};
use git_fuzzy_apply::locate::{MatchOptions, Tier};
use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::patch::{ParseOptions, PatchText};
use git_fuzzy_apply::progress::{Terminal, TerminalProgress};
use git_fuzzy_apply::report::{feedback, human, stat, unified};
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any thread starts: a signal then removes the locks held.
    if let Err(e) = git_fuzzy_apply::signals::clean_up_on_signals() {
        eprintln!("warning: cannot handle interruptions: {e}");
    }
    let matches = cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match execute(&cli, &matches) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn execute(cli: &Cli, matches: &ArgMatches) -> Result<u8, Box<dyn std::error::Error>> {
    let invocation = invocation(cli, matches)?;
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
    Ok(outcome.plan.report.exit_code() as u8)
}

fn invocation(cli: &Cli, matches: &ArgMatches) -> Result<Invocation, String> {
    if !(0.5..=1.0).contains(&cli.threshold) {
        return Err("--threshold must be between 0.5 and 1.0".into());
    }
    let mut pins = Vec::new();
    for at in &cli.at {
        let (file, line) = at
            .rsplit_once(':')
            .and_then(|(f, l)| Some((f.to_string(), l.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("--at {at}: expected FILE:LINE"))?;
        pins.push((file, line));
    }
    let mut rules: Vec<(usize, bool, String)> = Vec::new();
    for (id, include) in [("include", true), ("exclude", false)] {
        if let (Some(values), Some(indices)) =
            (matches.get_many::<String>(id), matches.indices_of(id))
        {
            rules.extend(indices.zip(values).map(|(i, v)| (i, include, v.clone())));
        }
    }
    rules.sort_by_key(|r| r.0);
    Ok(Invocation {
        apply: ApplyOptions {
            parse: ParseOptions {
                format: match cli.format {
                    FormatArg::Auto => None,
                    FormatArg::Unified => Some(PatchFormat::UnifiedDiff),
                    FormatArg::Numberless => Some(PatchFormat::NumberlessDiff),
                    FormatArg::Codex => Some(PatchFormat::CodexEnvelope),
                    FormatArg::SearchReplace => Some(PatchFormat::SearchReplace),
                },
                strip: cli.strip,
                target: cli.target.clone(),
            },
            matching: MatchOptions {
                similarity_threshold: cli.threshold,
                max_tier: match cli.max_tier {
                    TierArg::Exact => Tier::Exact,
                    TierArg::Resilient => Tier::Resilient,
                    TierArg::Fuzzy => Tier::Fuzzy,
                    TierArg::Structural => Tier::Structural,
                    TierArg::Similarity => Tier::Similarity,
                },
                similarity_scan_limit: cli
                    .scan_limit
                    .unwrap_or(MatchOptions::default().similarity_scan_limit),
                ..MatchOptions::default()
            },
            directory: cli.directory.clone(),
            path_rules: rules
                .into_iter()
                .map(|(_, inc, glob)| (inc, glob))
                .collect(),
            reverse: cli.reverse,
            partial: cli.partial,
            pins,
        },
        destination: if cli.index {
            Destination::Index
        } else if cli.cached {
            Destination::Cached
        } else {
            Destination::Worktree
        },
        dry_run: cli.check || cli.emit_unified || cli.stat || cli.numstat || cli.summary,
        reject: cli.reject,
        report_path: cli.report.clone(),
    })
}

fn print(cli: &Cli, outcome: &Outcome, patch: &[u8]) -> io::Result<()> {
    let report = &outcome.plan.report;
    let mut stdout = io::stdout().lock();
    if cli.json {
        serde_json::to_writer_pretty(&mut stdout, report)?;
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
            (cli.summary, stat::summary(report, &outcome.plan.results)),
        ] {
            if on {
                stdout.write_all(text.as_bytes())?;
            }
        }
    } else if cli.emit_unified && report.ok {
        stdout.write_all(unified::unified_diff(&outcome.plan.results).as_bytes())?;
    } else if !cli.quiet {
        stdout.write_all(human::summary(report, cli.verbose).as_bytes())?;
    }
    let color = io::stderr().is_terminal();
    let mut stderr = io::stderr().lock();
    stderr.write_all(human::errors(report, color).as_bytes())?;
    for path in &outcome.rejects {
        writeln!(stderr, "rejected hunks written to {}", path.display())?;
    }
    if let Some((md, json)) = &outcome.conflict_report {
        writeln!(
            stderr,
            "conflict report: {} ({})",
            md.display(),
            json.display()
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
