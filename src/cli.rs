//! The command line of `git-fuzzy-apply`: its options, help texts and value
//! enums, as a [`clap`] definition.
//!
//! It lives in the library so that the binary (`src/main.rs`), the man page
//! and shell completion generator (`examples/gen-docs.rs`) and the tests all
//! read the same definition. Nothing here runs a patch; the binary turns a
//! parsed [`Cli`] into an [`Invocation`](crate::invocation::Invocation).
//!
//! ```
//! use clap::Parser;
//! use git_fuzzy_apply::cli::{Cli, FormatArg};
//!
//! let cli = Cli::try_parse_from(["git-fuzzy-apply", "--check", "--format", "codex", "reply.md"])
//!     .unwrap();
//! assert!(cli.check);
//! assert_eq!(cli.format, FormatArg::Codex);
//! assert_eq!(cli.patches, [std::path::PathBuf::from("reply.md")]);
//! ```

use clap::{CommandFactory, Parser, ValueEnum};
use std::path::PathBuf;

/// Help heading of the options that say what the patch is and how to read it.
const HEADING_INPUT: &str = "Patch input";
/// Help heading of the options that choose which files change, and where.
const HEADING_WHERE: &str = "Where to apply";
/// Help heading of the options that steer how hunks are matched.
const HEADING_MATCHING: &str = "Matching";
/// Help heading of the options that choose what is printed or written.
const HEADING_OUTPUT: &str = "Output";

const LONG_ABOUT: &str = "\
Reads a patch written by a language model and applies it to the working tree \
exactly where it belongs, or refuses it with the reason. The patch may be a \
unified diff (line numbers wrong or missing), a Codex `*** Begin Patch` \
envelope, Aider/Roo SEARCH/REPLACE blocks, or a whole chat reply mixing them \
with prose.

Each hunk is searched tier by tier, from exact to similar; a more lenient tier \
is tried only when the stricter ones found nothing, and equally good places \
are never guessed between. Every hunk of every file applies, or no file \
changes; when something does not apply, a conflict report is left in \
.git/fuzzy-apply/. Paths are relative to the top of the working tree (or the \
current directory outside a repository).";

const AFTER_HELP: &str = "\
Examples:
  git fuzzy-apply reply.md                  apply a model's reply
  git fuzzy-apply --check -v reply.md       show where each hunk would go
  git fuzzy-apply --emit-unified reply.md   print a diff git apply accepts
  some-agent | git fuzzy-apply --json       read stdin, report as JSON";

/// Worked examples: a command line and what it does. Shown by `--help` and in
/// the man page's EXAMPLES section.
///
/// ```
/// use git_fuzzy_apply::cli::{command, EXAMPLES};
///
/// let help = command().render_long_help().to_string();
/// assert!(EXAMPLES.iter().all(|(line, what)| help.contains(line) && help.contains(what)));
/// ```
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "git fuzzy-apply reply.md",
        "Apply a model's reply (prose and patches) to the working tree.",
    ),
    (
        "git fuzzy-apply --check -v reply.md",
        "Write nothing; show each hunk with the tier and lines it matched.",
    ),
    (
        "git fuzzy-apply --index --include 'src/**' reply.md",
        "Apply only the edits under src/, and stage them.",
    ),
    (
        "some-agent | git fuzzy-apply --json",
        "Read the patch from standard input and print the report as JSON.",
    ),
];

/// Exit statuses and their meaning. Shown by `--help` and in the man page's
/// EXIT STATUS section.
///
/// ```
/// use git_fuzzy_apply::cli::EXIT_STATUS;
///
/// let codes: Vec<&str> = EXIT_STATUS.iter().map(|(code, _)| *code).collect();
/// assert_eq!(codes, ["0", "1", "2"]);
/// ```
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "everything applied (or was already applied)"),
    (
        "1",
        "not applied: a hunk failed or was ambiguous, or the patch is malformed",
    ),
    ("2", "usage or I/O error"),
];

/// The text after the options in `--help`: [`EXAMPLES`] and [`EXIT_STATUS`].
fn after_long_help() -> String {
    let mut text = String::from("Examples:\n");
    for (command, what) in EXAMPLES {
        text.push_str(&format!("  {command}\n      {what}\n"));
    }
    text.push_str("\nExit status:\n");
    for (code, what) in EXIT_STATUS {
        text.push_str(&format!("  {code}  {what}\n"));
    }
    text.pop();
    text
}

/// The parsed command line of `git-fuzzy-apply`.
///
/// Field names follow the long option names (`emit_unified` is
/// `--emit-unified`); [`command`] gives the [`clap::Command`] itself.
///
/// ```
/// use clap::Parser;
/// use git_fuzzy_apply::cli::{Cli, TierArg};
///
/// let cli = Cli::try_parse_from(["git-fuzzy-apply", "-p2", "--max-tier", "fuzzy", "--json"]).unwrap();
/// assert_eq!((cli.strip, cli.max_tier, cli.json), (Some(2), TierArg::Fuzzy, true));
/// assert!(cli.patches.is_empty()); // read standard input
/// assert!(Cli::try_parse_from(["git-fuzzy-apply", "--index", "--cached"]).is_err());
/// ```
#[derive(Parser, Debug, Clone)]
#[command(
    name = "git-fuzzy-apply",
    version,
    about = "Apply a patch written by a language model exactly where it belongs, or refuse it with the reason",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    after_long_help = after_long_help(),
    max_term_width = 100
)]
pub struct Cli {
    /// Patch files, or folders whose files are all read; none or `-` reads standard input.
    #[arg(value_name = "PATCH")]
    pub patches: Vec<PathBuf>,

    /// Read the patch in this notation instead of detecting it.
    #[arg(
        long,
        value_enum,
        default_value_t = FormatArg::Auto,
        help_heading = HEADING_INPUT,
        long_help = "Read the patch in this notation instead of detecting it. With `auto`, \
                     every part of the input is detected on its own, so one reply may mix \
                     diffs, envelopes and SEARCH/REPLACE blocks."
    )]
    pub format: FormatArg,

    /// Strip N leading path components from diff paths (default: `a/` and `b/`).
    #[arg(short = 'p', value_name = "N", help_heading = HEADING_INPUT)]
    pub strip: Option<usize>,

    /// File to edit for blocks and hunks that name none.
    #[arg(
        long,
        value_name = "PATH",
        help_heading = HEADING_INPUT,
        long_help = "File to edit for blocks and hunks that name none, such as a bare \
                     SEARCH/REPLACE block or a diff without `---`/`+++` lines."
    )]
    pub target: Option<String>,

    /// Apply the patch in reverse.
    #[arg(short = 'R', long, help_heading = HEADING_INPUT)]
    pub reverse: bool,

    /// Prepend DIR to every path in the patch.
    #[arg(
        long,
        value_name = "DIR",
        help_heading = HEADING_WHERE,
        long_help = "Prepend DIR to every path in the patch (after -p), as \
                     `git apply --directory` does."
    )]
    pub directory: Option<String>,

    /// Apply only to paths matching GLOB (with --exclude: the first match wins).
    #[arg(
        long,
        value_name = "GLOB",
        help_heading = HEADING_WHERE,
        long_help = "Apply only to paths matching GLOB; may be repeated. With --exclude, \
                     the rules are tried in the order given and the first that matches a \
                     path decides; with any --include, a path no rule matches is skipped."
    )]
    pub include: Vec<String>,

    /// Do not apply to paths matching GLOB.
    #[arg(long, value_name = "GLOB", help_heading = HEADING_WHERE)]
    pub exclude: Vec<String>,

    /// Apply to the working tree and stage the results.
    #[arg(
        long,
        conflicts_with = "cached",
        help_heading = HEADING_WHERE,
        long_help = "Apply to the working tree and stage the results. Every file read \
                     must match the index, as with `git apply --index`."
    )]
    pub index: bool,

    /// Apply to the index only; the working tree is untouched.
    #[arg(
        long,
        help_heading = HEADING_WHERE,
        long_help = "Apply to the index only, reading the staged versions of the files; \
                     the working tree is untouched."
    )]
    pub cached: bool,

    /// The most lenient matching tier allowed.
    #[arg(
        long,
        value_enum,
        value_name = "TIER",
        default_value_t = TierArg::Similarity,
        help_heading = HEADING_MATCHING
    )]
    pub max_tier: TierArg,

    /// Minimum block similarity (0.5 to 1.0) for the similarity tier.
    #[arg(
        long,
        value_name = "RATIO",
        default_value_t = 0.9,
        help_heading = HEADING_MATCHING
    )]
    pub threshold: f64,

    /// Files longer than LINES are scanned by the similarity tier only near a line hint.
    #[arg(
        long,
        value_name = "LINES",
        help_heading = HEADING_MATCHING,
        long_help = "The similarity tier compares a hunk with every block of a file of at \
                     most LINES lines (default 20000); in longer files only the 100 lines \
                     around the hunk's line hint. This bounds the time a hopeless hunk can \
                     cost on a big file."
    )]
    pub scan_limit: Option<usize>,

    /// Pin an ambiguous hunk of FILE to the candidate starting at LINE.
    #[arg(
        long,
        value_name = "FILE:LINE",
        help_heading = HEADING_MATCHING,
        long_help = "Pin an ambiguous hunk of FILE to the candidate starting at LINE \
                     (1-based); may be repeated. The refusal of an ambiguous hunk lists \
                     its candidates' lines."
    )]
    pub at: Vec<String>,

    /// Apply the hunks that match and report the others.
    #[arg(
        long,
        help_heading = HEADING_MATCHING,
        long_help = "Apply the hunks that match and report the others, instead of \
                     writing nothing when one hunk fails."
    )]
    pub partial: bool,

    /// Like --partial, and write the failed hunks to `<file>.rej`.
    #[arg(
        long,
        help_heading = HEADING_MATCHING,
        help = "Like --partial, and write the failed hunks to <file>.rej"
    )]
    pub reject: bool,

    /// Check that the patch applies; write nothing.
    #[arg(long, help_heading = HEADING_OUTPUT)]
    pub check: bool,

    /// Print a diffstat instead of applying.
    #[arg(long, help_heading = HEADING_OUTPUT)]
    pub stat: bool,

    /// Print added and removed line counts per file instead of applying.
    #[arg(long, help_heading = HEADING_OUTPUT)]
    pub numstat: bool,

    /// Print created, deleted and renamed files instead of applying.
    #[arg(long, help_heading = HEADING_OUTPUT)]
    pub summary: bool,

    /// Print the completed standard unified diff (git apply-able); write nothing.
    #[arg(
        long,
        help_heading = HEADING_OUTPUT,
        long_help = "Print the completed standard unified diff, with real line numbers \
                     and the file's own context lines, which `git apply` accepts; write \
                     nothing."
    )]
    pub emit_unified: bool,

    /// Print the report as JSON on standard output.
    #[arg(long, help_heading = HEADING_OUTPUT)]
    pub json: bool,

    /// Print what a language model needs to fix its patch (short text on standard output).
    #[arg(
        long,
        conflicts_with = "json",
        help_heading = HEADING_OUTPUT,
        long_help = "Print what a language model needs to fix its patch: for each failed \
                     hunk the reason code, the first patch line that differs, the file's \
                     real lines around the closest place, numbered, and one instruction. \
                     Short enough to paste into a context window."
    )]
    pub feedback: bool,

    /// Write the conflict report to PATH.md and PATH.json.
    #[arg(
        long,
        value_name = "PATH",
        help_heading = HEADING_OUTPUT,
        long_help = "Write the conflict report of a run that did not apply to PATH.md \
                     and PATH.json (default: .git/fuzzy-apply/last-report in a \
                     repository, none outside one)."
    )]
    pub report: Option<PathBuf>,

    /// Show every hunk with its tier and location.
    #[arg(short, long, help_heading = HEADING_OUTPUT)]
    pub verbose: bool,

    /// Print nothing but errors.
    #[arg(short, long, conflicts_with = "verbose", help_heading = HEADING_OUTPUT)]
    pub quiet: bool,

    /// Only put right a run that was killed while writing, then exit.
    #[arg(
        long,
        conflicts_with_all = ["patches", "check", "cached", "index"],
        long_help = "Only put right a run that was killed while writing (from its journal \
                     in .git/fuzzy-apply/, or .git-fuzzy-apply.journal outside a \
                     repository): undo it, or finish it if it had already written the \
                     index. Every run does this first; this option does nothing else."
    )]
    pub recover: bool,
}

/// The notations `--format` accepts.
///
/// ```
/// use clap::Parser;
/// use git_fuzzy_apply::cli::{Cli, FormatArg};
///
/// let cli = Cli::try_parse_from(["git-fuzzy-apply", "--format", "search-replace"]).unwrap();
/// assert_eq!(cli.format, FormatArg::SearchReplace);
/// assert_eq!(Cli::try_parse_from(["git-fuzzy-apply"]).unwrap().format, FormatArg::Auto);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Detect every part of the input on its own.
    Auto,
    /// Unified diffs (`---`, `+++`, `@@ -l,n +l,n @@`).
    Unified,
    /// Unified diffs whose `@@` lines carry no line numbers.
    Numberless,
    /// Codex `*** Begin Patch` envelopes.
    Codex,
    /// Aider/Roo SEARCH/REPLACE blocks.
    SearchReplace,
}

/// The matching tiers `--max-tier` accepts, strictest first.
///
/// ```
/// use clap::Parser;
/// use git_fuzzy_apply::cli::{Cli, TierArg};
///
/// let cli = Cli::try_parse_from(["git-fuzzy-apply", "--max-tier", "exact"]).unwrap();
/// assert_eq!(cli.max_tier, TierArg::Exact);
/// assert!(Cli::try_parse_from(["git-fuzzy-apply", "--max-tier", "guess"]).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// Byte-for-byte context.
    Exact,
    /// Whitespace, headings and truncated lines may differ.
    Resilient,
    /// Case, punctuation and quotes may differ too.
    Fuzzy,
    /// A few blank, omitted or dropped lines may differ too.
    Structural,
    /// Similar enough blocks (see --threshold).
    Similarity,
}

/// The [`clap::Command`] of `git-fuzzy-apply`, for parsing with the option
/// order kept, and for rendering the man page and shell completions.
///
/// ```
/// use clap::{ArgMatches, FromArgMatches};
/// use git_fuzzy_apply::cli::{command, Cli};
///
/// let matches: ArgMatches = command()
///     .try_get_matches_from(["git-fuzzy-apply", "--include", "a/*", "--exclude", "a/b"])
///     .unwrap();
/// // The matches keep the order of repeated options; `Cli` keeps the values.
/// assert!(matches.index_of("include") < matches.index_of("exclude"));
/// let cli = Cli::from_arg_matches(&matches).unwrap();
/// assert_eq!(cli.include, ["a/*"]);
/// ```
pub fn command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn short_help_is_short_and_long_help_has_headings() {
        let short = command().render_help().to_string();
        let long = command().render_long_help().to_string();
        assert!(short.lines().count() < 60, "{short}");
        assert!(long.len() > short.len());
        for heading in [
            HEADING_INPUT,
            HEADING_WHERE,
            HEADING_MATCHING,
            HEADING_OUTPUT,
        ] {
            assert!(short.contains(heading), "{heading} missing from -h");
        }
        assert!(long.contains("Exit status"));
        assert!(!short.contains("Exit status"));
    }

    #[test]
    fn index_and_cached_conflict() {
        assert!(Cli::try_parse_from(["git-fuzzy-apply", "--index", "--cached"]).is_err());
    }
}
