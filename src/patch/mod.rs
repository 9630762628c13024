//! Patch parsing: every format a model writes, read into one [`Patch`].
//!
//! A whole model reply is a valid patch: prose and Markdown fences are skipped,
//! and unified diffs (numbered or numberless), Codex `*** Begin Patch`
//! envelopes, SEARCH/REPLACE blocks and Roo `<apply_diff>` envelopes may be
//! mixed in one reply. JSON edit requests (`{"path", "patch_lines"}`) are
//! unwrapped first.

mod cleanup;
mod codex;
mod detect;
mod paths;
mod search_replace;
mod unified;

use crate::error::ParseError;
use crate::model::{Patch, PatchFormat};

/// Options that steer parsing.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Force one format instead of detecting it.
    pub format: Option<PatchFormat>,
    /// `-pN`: leading path components to strip; `None` strips `a/` and `b/` prefixes.
    pub strip: Option<usize>,
    /// Path for edits that name no file.
    pub target: Option<String>,
}

/// Parses a patch text (a whole model reply) into a [`Patch`].
///
/// Errors: [`ParseError::InvalidUtf8`] for non-UTF-8 input,
/// [`ParseError::Malformed`] for an edit that is started but cannot be read,
/// [`ParseError::NoTargetPath`] for an edit naming no file without a target,
/// and [`ParseError::NoEdits`] when the text holds no edit at all.
pub fn parse_patch(text: &[u8], options: &ParseOptions) -> Result<Patch, ParseError> {
    let segments = cleanup::prepare(text)?;
    let mut files = Vec::new();
    for segment in segments {
        let ctx = detect::Ctx {
            format: options.format,
            strip: options.strip,
            target: segment.path.or_else(|| options.target.clone()),
        };
        detect::scan(&segment.src, &ctx, &mut files)?;
    }
    if files.is_empty() {
        return Err(ParseError::NoEdits);
    }
    Ok(Patch { files })
}
