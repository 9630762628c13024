//! The `git-fuzzy-apply` command: argument parsing and printing; the library
//! does the work.

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};
use git_fuzzy_apply::apply::ApplyOptions;
use git_fuzzy_apply::invocation::{Destination, Invocation, Outcome, recover, run};
use git_fuzzy_apply::locate::{MatchOptions, Tier};
use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::patch::ParseOptions;
use git_fuzzy_apply::report::{feedback, human, stat, unified};
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Apply a patch written by a language model — unified diff, numberless diff,
/// Codex `*** Begin Patch` envelope or SEARCH/REPLACE blocks, even a whole
/// chat reply — exactly where it belongs, or refuse with the reason.
///
/// Paths are relative to the top of the working tree (or the current
/// directory outside a repository). Every hunk of every file must apply, or
/// nothing is written; a conflict report is left in .git/fuzzy-apply/.
#[derive(Parser, Debug)]
#[command(name = "git-fuzzy-apply", version, about, long_about = None)]
struct Cli {
    /// Patch files, or folders whose files are all read; none or `-` reads standard input.
    patches: Vec<PathBuf>,
    /// Read the patch in this notation instead of detecting it.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Remove N leading path components from diff paths (default: strip `a/` and `b/`).
    #[arg(short = 'p', value_name = "N")]
    strip: Option<usize>,
    /// File to edit for blocks and hunks that name none.
    #[arg(long, value_name = "PATH")]
    target: Option<String>,
    /// Prepend DIR to every path in the patch.
    #[arg(long, value_name = "DIR")]
    directory: Option<String>,
    /// Apply only to paths matching GLOB (with --exclude: the first match wins).
    #[arg(long, value_name = "GLOB")]
    include: Vec<String>,
    /// Do not apply to paths matching GLOB.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Apply to the working tree and stage the results.
    #[arg(long, conflicts_with = "cached")]
    index: bool,
    /// Apply to the index only; the working tree is untouched.
    #[arg(long)]
    cached: bool,
    /// Check that the patch applies; write nothing.
    #[arg(long)]
    check: bool,
    /// Apply the patch in reverse.
    #[arg(short = 'R', long)]
    reverse: bool,
    /// Apply the hunks that match and report the others.
    #[arg(long)]
    partial: bool,
    /// Like --partial, and write the failed hunks to <file>.rej.
    #[arg(long)]
    reject: bool,
    /// Pin an ambiguous hunk of FILE to the candidate starting at LINE.
    #[arg(long, value_name = "FILE:LINE")]
    at: Vec<String>,
    /// Write the conflict report to PATH.md and PATH.json.
    #[arg(long, value_name = "PATH")]
    report: Option<PathBuf>,
    /// Print a diffstat instead of applying.
    #[arg(long)]
    stat: bool,
    /// Print added and removed line counts per file instead of applying.
    #[arg(long)]
    numstat: bool,
    /// Print created, deleted and renamed files instead of applying.
    #[arg(long)]
    summary: bool,
    /// Print the completed standard unified diff (git apply-able); write nothing.
    #[arg(long)]
    emit_unified: bool,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    json: bool,
    /// Print what a language model needs to fix its patch (short text on standard output).
    #[arg(long, conflicts_with = "json")]
    feedback: bool,
    /// Minimum block similarity (0.5 to 1.0) for the similarity tier.
    #[arg(long, value_name = "RATIO", default_value_t = 0.9)]
    threshold: f64,
    /// The most lenient matching tier allowed.
    #[arg(long, value_enum, default_value_t = TierArg::Similarity)]
    max_tier: TierArg,
    /// Show every hunk with its tier and location.
    #[arg(short, long)]
    verbose: bool,
    /// Print nothing but errors.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Only put right a run that was killed while writing (every run also
    /// does this first), then exit.
    #[arg(long, conflicts_with_all = ["patches", "check", "cached", "index"])]
    recover: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Auto,
    Unified,
    Numberless,
    Codex,
    SearchReplace,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TierArg {
    Exact,
    Resilient,
    Fuzzy,
    Structural,
    Similarity,
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
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
    let outcome = run(&std::env::current_dir()?, &text, &invocation)?;
    if let Some(done) = &outcome.recovered {
        eprintln!("git-fuzzy-apply: {done}");
    }
    print(cli, &outcome, &text)?;
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
    Ok(Some(text))
}
