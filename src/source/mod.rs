//! A target file's source: where it comes from, its bytes, and its lines.
//! The planner reads every target through this module and nothing else.
//!
//! - `targets.rs`: where target files come from, the working tree (a
//!   directory on disk, every path kept inside it) or, with `--cached`,
//!   the git index (`crate::git`'s `IndexTargets`), behind the
//!   [`Targets`] trait; a target's failure is a [`TargetError`];
//! - `content.rs`: a target's bytes ([`Content`]), read into memory when
//!   small and memory-mapped when large;
//! - `pages.rs`: giving back a mapped target's pages once a pass read them
//!   ([`release`]), so that the resident set does not grow with the file;
//! - `stamp.rs`: the [`Stamp`] (size, inode, times, permission bits) that
//!   tells whether a file changed since it was read;
//! - `text.rs`: the bytes as lines ([`SourceText`]) over a dense or sparse
//!   [`LineIndex`], with their terminators, a byte-order mark and the final
//!   newline; and git's binary test ([`looks_binary`]).
//!
//! Each file is private; the items the rest of the crate uses are named
//! here, once (`crate::source::Content`, `crate::source::SourceText`, …).

mod content;
mod pages;
mod stamp;
mod targets;
mod text;

pub(crate) use content::{Content, read_capped};
pub(crate) use pages::release;
pub(crate) use stamp::Stamp;
pub(crate) use targets::{
    NAMED_ELSEWHERE, Node, TargetError, Targets, WorktreeTargets, join_inside, windows_drive,
};
pub(crate) use text::{LineIndex, SPARSE_BLOCK, SourceText, looks_binary};
