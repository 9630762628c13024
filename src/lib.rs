//! git-fuzzy-apply: apply the patches language models write, exactly, or refuse with a reason.

pub mod error;
pub mod model;
pub mod patch;
