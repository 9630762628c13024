//! The man page and the shell completions of `git-fuzzy-apply`, rendered
//! from [`command`](super::command()), the same definition `--help` shows.
//! The binary prints them (`git-fuzzy-apply man`, `git-fuzzy-apply
//! completions bash`), so an installed binary carries its own documentation;
//! `examples/gen-docs.rs` writes them all into a folder for packagers.

use super::{EXAMPLES, EXIT_STATUS, command};
use clap_complete::Shell;
use clap_mangen::Man;
use std::io::{self, Write};

/// The shells completions are written for by `examples/gen-docs.rs`.
#[allow(dead_code)] // the binary renders one shell at a time; examples/gen-docs.rs all
pub(crate) const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// Appended to the bash completion: git's own completion completes
/// `git fuzzy-apply …` by calling `_git_fuzzy_apply`, with the words of the
/// whole `git` command line. clap's function finds its command word by name,
/// so it is called with `fuzzy-apply` as that name. git registers its
/// completion with `-o nospace`, hence the space added after every word but
/// a folder's name.
const BASH_GIT_SUBCOMMAND: &str = r#"
# `git fuzzy-apply <TAB>`: git's completion calls _git_fuzzy_apply.
_git_fuzzy_apply() {
    _git__fuzzy__apply fuzzy-apply "$cur" "$prev"
    local i
    for i in "${!COMPREPLY[@]}"; do
        [[ -d ${COMPREPLY[i]} ]] || COMPREPLY[i]+=" "
    done
}
"#;

/// Renders the man page: clap's sections, then EXAMPLES and EXIT STATUS
/// from the same tables `--help` shows.
pub(crate) fn render_man(w: &mut dyn Write) -> io::Result<()> {
    let man = Man::new(command()).title("GIT-FUZZY-APPLY");
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    man.render_options_section(w)?;
    man.render_subcommands_section(w)?;
    writeln!(w, ".SH EXAMPLES")?;
    for (line, what) in EXAMPLES {
        writeln!(w, ".TP\n.B {}\n{}", roff_text(line), roff_text(what))?;
    }
    writeln!(w, ".SH \"EXIT STATUS\"")?;
    for (code, what) in EXIT_STATUS {
        writeln!(w, ".TP\n.B {code}\n{}", roff_text(what))?;
    }
    writeln!(w, ".SH \"SEE ALSO\"\n.BR git-apply (1)")?;
    man.render_version_section(w)
}

/// Renders the completion script for `shell`; the bash one also completes
/// `git fuzzy-apply …` through git's own completion.
pub(crate) fn render_completions(shell: Shell, w: &mut dyn Write) -> io::Result<()> {
    let mut cmd = command();
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    w.write_all(&script)?;
    if shell == Shell::Bash {
        w.write_all(BASH_GIT_SUBCOMMAND.as_bytes())?;
    }
    Ok(())
}

/// The file name a completion script for `shell` is installed under
/// (`git-fuzzy-apply.bash`, `_git-fuzzy-apply`, `git-fuzzy-apply.fish`).
#[allow(dead_code)] // used by examples/gen-docs.rs
pub(crate) fn completion_file_name(shell: Shell) -> String {
    use clap_complete::Generator;
    shell.file_name(command().get_name())
}

/// Escapes text for a roff line: backslashes, hyphens (so `--check` stays
/// two ASCII hyphens) and a leading dot or quote.
// Public: `examples/gen-docs.rs` includes this module and re-exports it for
// its tests.
#[allow(unreachable_pub)]
pub fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The examples of this module's items, run as unit tests (the command
/// line is part of the binary, whose doc examples do not run).
#[cfg(test)]
mod examples {
    #[test]
    fn module_1() {
        use super::super::docs;

        let mut page = Vec::new();
        docs::render_man(&mut page).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains(".SH EXAMPLES") && page.contains("\\-\\-check"));
    }

    #[test]
    fn shells_2() {
        use super::{SHELLS, completion_file_name};

        let names: Vec<String> = SHELLS.iter().map(|s| completion_file_name(*s)).collect();
        assert_eq!(
            names,
            [
                "git-fuzzy-apply.bash",
                "_git-fuzzy-apply",
                "git-fuzzy-apply.fish"
            ]
        );
    }

    #[test]
    fn render_man_3() {
        let mut page = Vec::new();
        super::render_man(&mut page).unwrap();
        assert!(
            String::from_utf8(page)
                .unwrap()
                .contains(".SH \"EXIT STATUS\"")
        );
    }

    #[test]
    fn render_completions_4() {
        use clap_complete::Shell;

        let mut script = Vec::new();
        super::render_completions(Shell::Bash, &mut script).unwrap();
        assert!(
            String::from_utf8(script)
                .unwrap()
                .contains("_git_fuzzy_apply()")
        );
    }

    #[test]
    fn completion_file_name_5() {
        use super::completion_file_name;
        use clap_complete::Shell;

        assert_eq!(completion_file_name(Shell::Zsh), "_git-fuzzy-apply");
    }

    #[test]
    fn roff_text_6() {
        use super::roff_text;

        assert_eq!(roff_text("a --b"), "a \\-\\-b");
    }
}
