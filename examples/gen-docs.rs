//! Writes the man page and the shell completions of `git-fuzzy-apply`.
//!
//! ```sh
//! cargo run --example gen-docs -- target/assets
//! ```
//!
//! writes `git-fuzzy-apply.1` (man page), `git-fuzzy-apply.bash`,
//! `_git-fuzzy-apply` (zsh) and `git-fuzzy-apply.fish` into the folder given
//! (default `target/assets`), creating it if needed. The README's install
//! section says where to put them. An example rather than a binary, so that
//! `cargo install` does not install it and the man page and completion crates
//! stay development dependencies.

use clap_complete::Shell;
use clap_mangen::Man;
use git_fuzzy_apply::cli::{self, EXAMPLES, EXIT_STATUS};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The shells completions are written for.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// Writes the man page and the completions into `out` and returns their paths.
pub fn generate(out: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(out)?;
    let mut cmd = cli::command();
    let name = cmd.get_name().to_string();
    let man_path = out.join(format!("{name}.1"));
    let mut page = Vec::new();
    render_man(cmd.clone(), &mut page)?;
    fs::write(&man_path, page)?;
    let mut written = vec![man_path];
    for shell in SHELLS {
        let path = clap_complete::generate_to(shell, &mut cmd, &name, out)?;
        if shell == Shell::Bash {
            fs::OpenOptions::new()
                .append(true)
                .open(&path)?
                .write_all(BASH_GIT_SUBCOMMAND.as_bytes())?;
        }
        written.push(path);
    }
    Ok(written)
}

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
pub fn render_man(cmd: clap::Command, w: &mut dyn Write) -> io::Result<()> {
    let man = Man::new(cmd).title("GIT-FUZZY-APPLY");
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    man.render_options_section(w)?;
    writeln!(w, ".SH EXAMPLES")?;
    for (command, what) in EXAMPLES {
        writeln!(w, ".TP\n.B {}\n{}", roff_text(command), roff_text(what))?;
    }
    writeln!(w, ".SH \"EXIT STATUS\"")?;
    for (code, what) in EXIT_STATUS {
        writeln!(w, ".TP\n.B {code}\n{}", roff_text(what))?;
    }
    writeln!(w, ".SH \"SEE ALSO\"\n.BR git-apply (1)")?;
    man.render_version_section(w)
}

/// Escapes text for a roff line: backslashes, hyphens (so `--check` stays
/// two ASCII hyphens) and a leading dot or quote.
pub fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[allow(dead_code)] // unused when the test suite includes this file as a module
fn main() -> io::Result<()> {
    let out = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("target/assets"), PathBuf::from);
    for path in generate(&out)? {
        println!("{}", path.display());
    }
    Ok(())
}
