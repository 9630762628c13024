//! The command line of `git-fuzzy-apply` and the binary's glue around the
//! library. This file is the [`clap`] definition (options, help texts,
//! value enums); the man page and shell completion generator
//! (`examples/gen-docs.rs`) reads it too, so both share one definition.
//! `run.rs` turns a parsed [`Cli`] into a `git_fuzzy_apply::Invocation`,
//! runs it and prints its report; `exit.rs` ends a run that could not be
//! made; `terminal.rs` draws the progress bar. All of it is part of the
//! binary, not of the library: clap and indicatif are no part of the
//! library's API.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub(crate) mod docs;
pub(crate) mod exit;
mod git_apply;
mod help;
pub(crate) mod run;
mod terminal;

pub(crate) use git_apply::GitApplyArgs;
use help::{
    AFTER_HELP, HEADING_INPUT, HEADING_MATCHING, HEADING_OUTPUT, HEADING_WHERE, LONG_ABOUT,
    after_long_help,
};
pub(crate) use help::{EXAMPLES, EXIT_STATUS};

/// The parsed command line of `git-fuzzy-apply`.
///
/// Field names follow the long option names (`emit_unified` is
/// `--emit-unified`); [`command`] gives the [`clap::Command`] itself.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "git-fuzzy-apply",
    version,
    about = "Apply a patch written by a language model exactly where it belongs, or refuse it with the reason",
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    after_long_help = after_long_help(),
    max_term_width = 100,
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub(crate) struct Cli {
    /// A subcommand instead of applying a patch: `hook`, `man`, `completions`.
    #[command(subcommand)]
    pub action: Option<Action>,

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

    /// Minimum similarity (0.5-1.0) of the similarity tier.
    #[arg(
        long,
        value_name = "RATIO",
        default_value_t = 0.9,
        help_heading = HEADING_MATCHING
    )]
    pub threshold: f64,

    /// Similarity tier: in files over LINES lines, scan only near the line hint.
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

    /// Print what a language model needs to fix its patch.
    #[arg(
        long,
        help_heading = HEADING_OUTPUT,
        long_help = "Print what a language model needs to fix its patch: for each failed \
                     hunk the reason code, the first patch line that differs, the file's \
                     real lines around the closest place, numbered, and one instruction. \
                     Short enough to paste into a context window. With --json, the text is \
                     the report's `feedback` field."
    )]
    pub feedback: bool,

    /// Write the conflict report to PATH.md and PATH.json.
    #[arg(
        long,
        value_name = "PATH",
        help_heading = HEADING_OUTPUT,
        long_help = "Write the conflict report of a run that did not apply to PATH.md \
                     and PATH.json (default: .git/fuzzy-apply/last-report in a \
                     repository, none outside one). A later run that applies removes \
                     them, so that a report never describes an earlier run."
    )]
    pub report: Option<PathBuf>,

    /// Show every hunk with its tier and location.
    #[arg(
        short,
        long,
        help_heading = HEADING_OUTPUT,
        long_help = "Show every file and every hunk with its tier and location. Without it, \
                     one line per file is printed (with the hunks that were already applied \
                     or changed nothing counted on it), and a patch of more than 20 files \
                     prints one total line instead, as git apply prints nothing; problems are \
                     always printed in full."
    )]
    pub verbose: bool,

    /// Print nothing but errors.
    #[arg(short, long, conflicts_with = "verbose", help_heading = HEADING_OUTPUT)]
    pub quiet: bool,

    /// Colour the output: auto (the default), always or never.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value_t = ColorArg::Auto,
        hide_possible_values = true,
        hide_default_value = true,
        help_heading = HEADING_OUTPUT,
        long_help = "When to colour the output. With `auto`, colour is used when standard \
                     error is a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces it; \
                     in a repository, git's `color.ui` (never, always) is followed too."
    )]
    pub color: ColorArg,

    /// Options of `git apply`, accepted so that aliases keep working (listed
    /// by `--help`, not `-h`).
    #[command(flatten)]
    pub git_apply: GitApplyArgs,

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

/// What `--color` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ColorArg {
    /// Colour on a terminal, unless NO_COLOR or git's color.ui says otherwise.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands: things the binary does besides applying a patch.
#[derive(Subcommand, Debug, Clone)]
pub(crate) enum Action {
    /// Apply patches waiting in .agent-patches/ and fail once for review (pre-commit hook).
    #[command(
        long_about = "Apply the patches waiting in DIR (default .agent-patches) to the working \
                      tree, move each into DIR/applied/ with its JSON report, and exit 1 with a \
                      summary so that the commit stops once and the changes are reviewed and \
                      staged. Only files named *.patch or *.diff are patches; other files \
                      (a README) are left alone. A missing or empty folder exits 0. When a \
                      patch does not apply, its report is printed and nothing changes. See \
                      docs/pre-commit.md."
    )]
    Hook(HookArgs),
    /// Print the man page (roff) on standard output.
    Man,
    /// Print the completion script for SHELL on standard output.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The options of `git-fuzzy-apply hook`.
#[derive(Args, Debug, Clone)]
pub(crate) struct HookArgs {
    /// Apply nothing: exit 1 when a patch is waiting, saying whether it would apply (for CI).
    #[arg(long)]
    pub check: bool,

    /// The folder of waiting patches.
    #[arg(value_name = "DIR", default_value = ".agent-patches")]
    pub dir: PathBuf,

    /// When to colour the output: auto, always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
}

/// The notations `--format` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TierArg {
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
pub(crate) fn command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    use super::help::HEADING_GIT_APPLY;
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
        // The git apply options are for aliases: listed by --help only.
        assert!(long.contains(HEADING_GIT_APPLY) && !short.contains(HEADING_GIT_APPLY));
        assert!(long.contains("Exit status"));
        assert!(!short.contains("Exit status"));
    }

    #[test]
    fn index_and_cached_conflict() {
        assert!(Cli::try_parse_from(["git-fuzzy-apply", "--index", "--cached"]).is_err());
    }
}

/// The examples of this module's items, run as unit tests (the command
/// line is part of the binary, whose doc examples do not run).
#[cfg(test)]
mod examples {
    #[test]
    fn module_1() {
        use super::{Cli, FormatArg};
        use clap::Parser;

        let cli = Cli::try_parse_from([
            "git-fuzzy-apply",
            "--check",
            "--format",
            "codex",
            "reply.md",
        ])
        .unwrap();
        assert!(cli.check);
        assert_eq!(cli.format, FormatArg::Codex);
        assert_eq!(cli.patches, [std::path::PathBuf::from("reply.md")]);
    }

    #[test]
    fn item_2() {
        use super::{Cli, TierArg};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "-p2", "--max-tier", "fuzzy", "--json"])
            .unwrap();
        assert_eq!(
            (cli.strip, cli.max_tier, cli.json),
            (Some(2), TierArg::Fuzzy, true)
        );
        assert!(cli.patches.is_empty()); // read standard input
        assert!(Cli::try_parse_from(["git-fuzzy-apply", "--index", "--cached"]).is_err());
    }

    #[test]
    fn colorarg_3() {
        use super::{Cli, ColorArg};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "--color=never"]).unwrap();
        assert_eq!(cli.color, ColorArg::Never);
    }

    #[test]
    fn action_4() {
        use super::{Action, Cli};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "hook", "--check"]).unwrap();
        let Some(Action::Hook(hook)) = cli.action else {
            panic!()
        };
        assert!(hook.check);
        assert_eq!(hook.dir, std::path::PathBuf::from(".agent-patches"));
    }

    #[test]
    fn hookargs_5() {
        use super::{Action, Cli};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "hook", "patches"]).unwrap();
        let Some(Action::Hook(hook)) = cli.action else {
            panic!()
        };
        assert_eq!(
            (hook.check, hook.dir),
            (false, std::path::PathBuf::from("patches"))
        );
    }

    #[test]
    fn formatarg_6() {
        use super::{Cli, FormatArg};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "--format", "search-replace"]).unwrap();
        assert_eq!(cli.format, FormatArg::SearchReplace);
        assert_eq!(
            Cli::try_parse_from(["git-fuzzy-apply"]).unwrap().format,
            FormatArg::Auto
        );
    }

    #[test]
    fn tierarg_7() {
        use super::{Cli, TierArg};
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "--max-tier", "exact"]).unwrap();
        assert_eq!(cli.max_tier, TierArg::Exact);
        assert!(Cli::try_parse_from(["git-fuzzy-apply", "--max-tier", "guess"]).is_err());
    }

    #[test]
    fn command_8() {
        use super::{Cli, command};
        use clap::{ArgMatches, FromArgMatches};

        let matches: ArgMatches = command()
            .try_get_matches_from(["git-fuzzy-apply", "--include", "a/*", "--exclude", "a/b"])
            .unwrap();
        // The matches keep the order of repeated options; `Cli` keeps the values.
        assert!(matches.index_of("include") < matches.index_of("exclude"));
        let cli = Cli::from_arg_matches(&matches).unwrap();
        assert_eq!(cli.include, ["a/*"]);
    }
}
