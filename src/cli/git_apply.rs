//! The `git apply` options the command accepts for compatibility: the
//! ones that change nothing, and the ones it refuses with the reason.

use super::help::HEADING_GIT_APPLY;
use clap::{Args, ValueEnum};

/// The options of `git apply` that people keep in aliases. Most change
/// nothing here, because what they ask for is already how this tool reads a
/// patch; a few are refused with what to use instead (see
/// [`GitApplyArgs::refusal`]).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct GitApplyArgs {
    /// Whitespace errors: nowarn and warn change nothing; fix, strip, error and error-all are refused.
    #[arg(
        long,
        value_enum,
        value_name = "ACTION",
        help_heading = HEADING_GIT_APPLY, hide_short_help = true,
        long_help = "What git apply does about whitespace errors in added lines. `nowarn` and \
                     `warn` are accepted and change nothing (added lines are written as the \
                     patch has them; whitespace errors are not reported). `fix`, `strip`, \
                     `error` and `error-all` are refused: pipe the completed diff into git, \
                     `git fuzzy-apply --emit-unified PATCH | git apply --whitespace=fix`."
    )]
    pub whitespace: Option<WhitespaceArg>,

    /// Refused: a hunk that does not apply is reported, never merged (see --reject).
    #[arg(short = '3', long = "3way", help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub three_way: bool,

    /// Accepted, changes nothing: hunks without context lines are always read.
    #[arg(long, help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub unidiff_zero: bool,

    /// A patch with no edits at all (empty, or prose only) succeeds instead of failing.
    #[arg(long, help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub allow_empty: bool,

    /// Accepted, changes nothing: context is matched by content, not by a count of lines.
    #[arg(short = 'C', value_name = "N", help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub context: Option<usize>,

    /// Accepted, changes nothing: the line counts of `@@` headers are always recounted.
    #[arg(long, help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub recount: bool,

    /// Already the default (the resilient tier); raises --max-tier exact to resilient.
    #[arg(
        long,
        visible_alias = "ignore-space-change",
        help_heading = HEADING_GIT_APPLY, hide_short_help = true,
        long_help = "Whitespace differences in context lines are ignored: already the \
                     default, from the resilient tier on. With --max-tier exact, the \
                     resilient tier is allowed too."
    )]
    pub ignore_whitespace: bool,

    /// Refused: paths outside the working tree are never written (see --directory).
    #[arg(long, help_heading = HEADING_GIT_APPLY, hide_short_help = true)]
    pub unsafe_paths: bool,
}

impl GitApplyArgs {
    /// Why the options given cannot be honoured, and what to use instead;
    /// `None` when all of them can.
    pub(crate) fn refusal(&self) -> Option<String> {
        if self.three_way {
            return Some(
                "--3way is not supported: a hunk that does not apply is refused with a conflict \
                 report (.git/fuzzy-apply/last-report.md), never merged; use --reject to apply the \
                 rest and keep the failed hunks in <file>.rej, or --at FILE:LINE to place an \
                 ambiguous hunk"
                    .into(),
            );
        }
        if self.unsafe_paths {
            return Some(
                "--unsafe-paths is not supported: paths outside the working tree are always \
                 refused; run from the tree the patch is for, or use --directory DIR to put its \
                 paths under DIR"
                    .into(),
            );
        }
        match self.whitespace {
            Some(
                action @ (WhitespaceArg::Fix
                | WhitespaceArg::Strip
                | WhitespaceArg::Error
                | WhitespaceArg::ErrorAll),
            ) => Some(format!(
                "--whitespace={} is not supported: added lines are written as the patch has \
                 them; let git do it on the completed diff: git fuzzy-apply --emit-unified PATCH \
                 | git apply --whitespace={}",
                action.name(),
                action.name()
            )),
            _ => None,
        }
    }
}

/// The actions `--whitespace` names, as in `git apply`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum WhitespaceArg {
    /// Do not warn.
    Nowarn,
    /// Warn (nothing is reported here).
    Warn,
    /// Fix whitespace errors (refused).
    Fix,
    /// Same as fix (refused).
    Strip,
    /// Fail on whitespace errors (refused).
    Error,
    /// Fail on all whitespace errors (refused).
    ErrorAll,
}

impl WhitespaceArg {
    /// The action as written on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            WhitespaceArg::Nowarn => "nowarn",
            WhitespaceArg::Warn => "warn",
            WhitespaceArg::Fix => "fix",
            WhitespaceArg::Strip => "strip",
            WhitespaceArg::Error => "error",
            WhitespaceArg::ErrorAll => "error-all",
        }
    }
}

/// The examples of this module's items, run as unit tests (the command
/// line is part of the binary, whose doc examples do not run).
#[cfg(test)]
mod examples {
    #[test]
    fn gitapplyargs_1() {
        use super::super::Cli;
        use clap::Parser;

        let cli = Cli::try_parse_from(["git-fuzzy-apply", "-C1", "--recount", "--3way", "x.diff"])
            .unwrap();
        assert_eq!(cli.git_apply.context, Some(1));
        assert!(cli.git_apply.refusal().unwrap().contains("--3way"));
    }

    #[test]
    fn refusal_2() {
        use super::{GitApplyArgs, WhitespaceArg};

        let warn = GitApplyArgs {
            whitespace: Some(WhitespaceArg::Warn),
            ..Default::default()
        };
        assert_eq!(warn.refusal(), None);
        let fix = GitApplyArgs {
            whitespace: Some(WhitespaceArg::Fix),
            ..Default::default()
        };
        assert!(fix.refusal().unwrap().contains("--emit-unified"));
    }

    #[test]
    fn whitespacearg_3() {
        use super::WhitespaceArg;

        assert_eq!(WhitespaceArg::ErrorAll.name(), "error-all");
    }

    #[test]
    fn name_4() {
        use super::WhitespaceArg;

        assert_eq!(WhitespaceArg::Nowarn.name(), "nowarn");
    }
}
