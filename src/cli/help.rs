//! The help texts of the command line: option headings, the long about,
//! and the examples and exit statuses `--help` and the man page show.

/// Help heading of the options that say what the patch is and how to read it.
pub(super) const HEADING_INPUT: &str = "Patch input";
/// Help heading of the options that choose which files change, and where.
pub(super) const HEADING_WHERE: &str = "Where to apply";
/// Help heading of the options that steer how hunks are matched.
pub(super) const HEADING_MATCHING: &str = "Matching";
/// Help heading of the options that choose what is printed or written.
pub(super) const HEADING_OUTPUT: &str = "Output";
/// Help heading of the `git apply` options accepted for aliases and habits.
pub(super) const HEADING_GIT_APPLY: &str = "git apply options";

pub(super) const LONG_ABOUT: &str = "\
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
current directory outside a repository).

A patch file named like a subcommand (`hook`, `man`, `completions`) is given \
as `./hook`.";

pub(super) const AFTER_HELP: &str = "\
Examples:
  git fuzzy-apply reply.md                  apply a model's reply
  git fuzzy-apply --check -v reply.md       show where each hunk would go
  git fuzzy-apply --emit-unified reply.md   print a diff git apply accepts
  some-agent | git fuzzy-apply --json       read stdin, report as JSON";

/// Worked examples: a command line and what it does. Shown by `--help` and in
/// the man page's EXAMPLES section.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
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
    (
        "git fuzzy-apply hook",
        "Apply the patches waiting in .agent-patches/ (the pre-commit hook).",
    ),
    (
        "git-fuzzy-apply man > ~/.local/share/man/man1/git-fuzzy-apply.1",
        "Install the man page that `git fuzzy-apply --help` opens.",
    ),
];

/// Exit statuses and their meaning. Shown by `--help` and in the man page's
/// EXIT STATUS section.
pub(crate) const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "everything applied (or was already applied)"),
    (
        "1",
        "not applied: a hunk failed or was ambiguous, or the patch is malformed",
    ),
    ("2", "usage or I/O error"),
];

/// The text after the options in `--help`: [`EXAMPLES`] and [`EXIT_STATUS`].
pub(super) fn after_long_help() -> String {
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

/// The examples of this module's items, run as unit tests (the command
/// line is part of the binary, whose doc examples do not run).
#[cfg(test)]
mod examples {
    #[test]
    fn examples_1() {
        use super::super::{EXAMPLES, command};

        let help = command().render_long_help().to_string();
        assert!(
            EXAMPLES
                .iter()
                .all(|(line, what)| help.contains(line) && help.contains(what))
        );
    }

    #[test]
    fn exit_status_2() {
        use super::super::EXIT_STATUS;

        let codes: Vec<&str> = EXIT_STATUS.iter().map(|(code, _)| *code).collect();
        assert_eq!(codes, ["0", "1", "2"]);
    }
}
