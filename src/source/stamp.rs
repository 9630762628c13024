//! A file's [`Stamp`]: what tells, before a file is overwritten, whether
//! someone changed it since it was read.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

/// Size, inode and times of a file when it was read, to notice a change
/// made by someone else before it is overwritten. Every write to a file sets
/// its change time (`ctime`), which no program can set back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Length in bytes.
    pub len: u64,
    /// Modification time.
    pub modified: Option<SystemTime>,
    /// Inode number.
    pub inode: u64,
    /// Status change time, seconds and nanoseconds.
    pub changed: (i64, i64),
    /// Permission bits (`0o7777` of the mode).
    pub permissions: u32,
}

impl Stamp {
    /// The stamp of `path` now, if it exists.
    pub(crate) fn of(path: &Path) -> Option<Stamp> {
        fs::metadata(path).ok().map(|m| Stamp::from_metadata(&m))
    }

    /// The stamp in `meta`.
    pub(crate) fn from_metadata(meta: &fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode: meta.ino(),
            changed: (meta.ctime(), meta.ctime_nsec()),
            permissions: meta.mode() & 0o7777,
        }
    }

    /// The mode git records for a file with these permissions.
    pub(crate) fn git_mode(&self) -> u32 {
        if self.permissions & 0o111 != 0 {
            0o100755
        } else {
            0o100644
        }
    }

    /// True when the file changed so recently before this stamp was taken
    /// (`at`) that a change within the same clock tick could leave the stamp
    /// as it is: such a file must be compared by content (git's "racy" rule).
    pub(crate) fn is_racy(&self, at: SystemTime) -> bool {
        let changed = SystemTime::UNIX_EPOCH
            .checked_add(std::time::Duration::new(
                self.changed.0.max(0) as u64,
                self.changed.1.clamp(0, 999_999_999) as u32,
            ))
            .unwrap_or(at);
        changed + RACY_WINDOW >= at
    }
}

/// How recent a change must be for [`Stamp::is_racy`]: well above the
/// coarse clock file systems take their times from.
const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

#[cfg(test)]
mod stamp_tests {
    use super::*;

    #[test]
    fn a_file_changed_just_now_is_racy_and_an_old_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, "x").unwrap();
        let stamp = Stamp::of(&path).unwrap();
        assert!(stamp.is_racy(SystemTime::now()));
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        assert!(!stamp.is_racy(later));
    }
}
