//! Writes the man page and the shell completions of `git-fuzzy-apply`.
//!
//! ```sh
//! cargo run --example gen-docs -- target/assets
//! ```
//!
//! writes `git-fuzzy-apply.1` (man page), `git-fuzzy-apply.bash`,
//! `_git-fuzzy-apply` (zsh) and `git-fuzzy-apply.fish` into the folder given
//! (default `target/assets`), creating it if needed: for packagers. Users of
//! an installed binary get the same files from it (`git-fuzzy-apply man`,
//! `git-fuzzy-apply completions SHELL`); the README's install section says
//! where to put them.

// The command line belongs to the binary; the generator reads the same
// definition from its source.
#[allow(dead_code)]
#[path = "../src/cli/mod.rs"]
mod cli;

use cli::docs::{self, SHELLS};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use cli::docs::roff_text;

/// Writes the man page and the completions into `out` and returns their paths.
pub fn generate(out: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(out)?;
    let man_path = out.join("git-fuzzy-apply.1");
    let mut page = Vec::new();
    docs::render_man(&mut page)?;
    fs::write(&man_path, page)?;
    let mut written = vec![man_path];
    for shell in SHELLS {
        let path = out.join(docs::completion_file_name(shell));
        let mut script = Vec::new();
        docs::render_completions(shell, &mut script)?;
        fs::write(&path, script)?;
        written.push(path);
    }
    Ok(written)
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
