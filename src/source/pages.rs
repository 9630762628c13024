//! Giving back the pages of a memory-mapped target once a pass has read
//! them. A mapped file's pages count in the process's resident set while
//! they stay mapped in, so a pass over a whole 1 GiB file (counting its
//! lines, searching it, checksumming what is copied of it) would leave the
//! process holding 1 GiB. After each piece of such a pass its pages are
//! dropped from the mapping (`MADV_DONTNEED`): the kernel's page cache
//! keeps them, and a later read maps them in again from there (a minor
//! fault, no disk read while the cache holds them). The bytes read are
//! always the file's: the mapping is read-only and shared.

/// Pieces smaller than this are not worth a system call.
const RELEASE_MIN: usize = 256 * 1024;

/// Drops the whole pages that `bytes` covers from the process, when
/// `bytes` lies inside a mapped target that is still held; else nothing.
pub(crate) fn release(bytes: &[u8]) {
    if bytes.len() < RELEASE_MIN || !crate::sigbus::is_mapped(bytes) {
        return;
    }
    // SAFETY: `sysconf` has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
    if page == 0 {
        return;
    }
    let start = (bytes.as_ptr() as usize).next_multiple_of(page);
    let end = (bytes.as_ptr() as usize + bytes.len()) / page * page;
    if end <= start {
        return;
    }
    // SAFETY: `start..end` lies inside a registered mapping, a read-only
    // shared mapping of a file (`Content::Mapped`) that nothing writes
    // through and that outlives this call (it is registered while held).
    // After MADV_DONTNEED a read of such a page maps the file's page in
    // again: the same bytes, never zeros (a page the SIGBUS handler
    // replaced by zeros, the file having lost it, reads zeros again). A
    // failure only leaves the pages where they were.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn released_pages_of_a_mapped_file_read_the_same_and_heap_bytes_are_untouched() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let bytes: Vec<u8> = (0..8 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        file.write_all(&bytes).unwrap();
        let content = super::super::Content::load(file.path()).unwrap();
        assert!(content.mapped_path().is_some());
        release(&content[..]);
        release(&content[1000..1000 + 2 * RELEASE_MIN]);
        assert!(content[..] == bytes[..]);
        // Heap bytes are not a mapping: left as they are.
        let heap = bytes.clone();
        release(&heap);
        assert!(heap == bytes);
    }
}
