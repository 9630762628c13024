//! The `git-fuzzy-apply` command: argument parsing, then the library does the work.

use clap::{Parser, ValueEnum};
use git_fuzzy_apply::apply::{ApplyOptions, plan_patch};
use git_fuzzy_apply::locate::{MatchOptions, Tier};
use git_fuzzy_apply::model::PatchFormat;
use git_fuzzy_apply::patch::ParseOptions;
use git_fuzzy_apply::report::{human, unified};
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Apply a patch written by a language model — unified diff, numberless diff,
/// Codex `*** Begin Patch` envelope or SEARCH/REPLACE blocks, even a whole
/// chat reply — exactly where it belongs, or refuse with the reason.
///
/// Every hunk of every file must apply, or nothing is written.
#[derive(Parser, Debug)]
#[command(name = "git-fuzzy-apply", version, about, long_about = None)]
struct Cli {
    /// Patch files to read; none or `-` reads standard input.
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
    /// Apply to files under this directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    directory: Option<PathBuf>,
    /// Check that the patch applies; write nothing.
    #[arg(long)]
    check: bool,
    /// Print the completed standard unified diff (git apply-able); write nothing.
    #[arg(long)]
    emit_unified: bool,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    json: bool,
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
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> io::Result<u8> {
    if !(0.5..=1.0).contains(&cli.threshold) {
        return Err(io::Error::other("--threshold must be between 0.5 and 1.0"));
    }
    let text = read_patches(&cli.patches)?;
    let root = match &cli.directory {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
    let options = ApplyOptions {
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
    };
    let mut plan = plan_patch(&text, &root, &options);
    let dry = cli.check || cli.emit_unified;
    plan.report.check = dry;
    if plan.report.ok && !dry {
        plan.commit()?;
    }
    let mut stdout = io::stdout().lock();
    if cli.json {
        serde_json::to_writer_pretty(&mut stdout, &plan.report)?;
        writeln!(stdout)?;
    } else if cli.emit_unified && plan.report.ok {
        stdout.write_all(unified::unified_diff(&plan.results).as_bytes())?;
    } else if !cli.quiet {
        stdout.write_all(human::summary(&plan.report, cli.verbose).as_bytes())?;
    }
    if !cli.json {
        eprint!("{}", human::errors(&plan.report));
    }
    Ok(plan.report.exit_code() as u8)
}

fn read_patches(paths: &[PathBuf]) -> io::Result<Vec<u8>> {
    let mut text = Vec::new();
    if paths.is_empty() {
        io::stdin().read_to_end(&mut text)?;
        return Ok(text);
    }
    for path in paths {
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        if path.as_os_str() == "-" {
            io::stdin().read_to_end(&mut text)?;
        } else {
            let bytes = std::fs::read(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            text.extend_from_slice(&bytes);
        }
    }
    Ok(text)
}
