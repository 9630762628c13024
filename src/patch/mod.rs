//! Patch parsing (placeholder until the parsers land).
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

/// Parses a patch text.
pub fn parse_patch(_text: &[u8], _options: &ParseOptions) -> Result<Patch, ParseError> {
    Err(ParseError::NoEdits)
}
