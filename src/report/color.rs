//! Colour: when to use it ([`choice`]) and the styles of the labels the
//! human report colours. Styles are put in where a label is written, never by
//! rewriting finished text, so a file's own line that says `error:` is shown
//! as it is. The command writes through an [`anstream::AutoStream`], which
//! strips the styles when colour is off.
//!
//! ```
//! use git_fuzzy_apply::report::color::{self, ERROR};
//!
//! assert_eq!(color::label("error:", ERROR, false), "error:");
//! assert_eq!(color::label("error:", ERROR, true), "\x1b[1m\x1b[31merror:\x1b[0m");
//! ```

use anstream::ColorChoice;
use anstyle::{AnsiColor, Style};
use std::path::Path;

/// The `error:` label: bold red.
///
/// ```
/// use git_fuzzy_apply::report::color::ERROR;
///
/// assert!(ERROR.get_effects().contains(anstyle::Effects::BOLD));
/// ```
pub const ERROR: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red)));
/// A hint, such as a command to run: cyan.
///
/// ```
/// use git_fuzzy_apply::report::color::{label, HINT};
///
/// assert_eq!(label("git add", HINT, true), "\x1b[36mgit add\x1b[0m");
/// ```
pub const HINT: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Cyan)));

/// `text` in `style` when `on`, plain otherwise.
///
/// ```
/// use git_fuzzy_apply::report::color::{label, HINT};
///
/// assert!(label("git add", HINT, true).contains("git add"));
/// ```
pub fn label(text: &str, style: Style, on: bool) -> String {
    if on {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// When to colour, from `--color` (as `flag`: `Auto` unless forced), the
/// environment and git's configuration: a forced `flag` decides; otherwise `NO_COLOR` (set and not empty)
/// turns colour off, `CLICOLOR_FORCE` (set and not empty, as `anstream`
/// reads it) on, then
/// `color.ui` of the repository containing `cwd` (`never`/`false` off,
/// `always` on); whatever is left is decided by the stream (a terminal, and
/// `TERM` not `dumb`).
///
/// ```
/// use anstream::ColorChoice;
/// use git_fuzzy_apply::report::color::choice;
///
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(choice(ColorChoice::Never, dir.path()), ColorChoice::Never);
/// assert_eq!(choice(ColorChoice::Always, dir.path()), ColorChoice::Always);
/// ```
pub fn choice(flag: ColorChoice, cwd: &Path) -> ColorChoice {
    if flag != ColorChoice::Auto {
        return flag;
    }
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if set("NO_COLOR").is_some() {
        return ColorChoice::Never;
    }
    if set("CLICOLOR_FORCE").is_some() {
        return ColorChoice::Always;
    }
    match git_color_ui(cwd).as_deref() {
        Some("never" | "false" | "no" | "off" | "0") => ColorChoice::Never,
        Some("always") => ColorChoice::Always,
        _ => ColorChoice::Auto,
    }
}

/// The value of `color.ui` in the repository containing `cwd`, lowercased;
/// `None` outside a repository or when it is not set.
fn git_color_ui(cwd: &Path) -> Option<String> {
    let repo = gix::discover(cwd).ok()?;
    let config = repo.config_snapshot();
    let value = config.string("color.ui")?;
    Some(value.to_string().to_ascii_lowercase())
}
