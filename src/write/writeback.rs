//! Starting the disk writeback of a large staged file while it is still
//! being written.
//!
//! On ext4, renaming a file over an existing one first pushes the new file's
//! dirty pages towards the disk (its `auto_da_alloc` safeguard), so replacing
//! a 1 GiB file spent as long in `rename` as in copying it. Asking the kernel
//! to start that writeback, chunk by chunk, from a second thread while the
//! next chunk is copied overlaps the two; the rename then finds little left
//! to do. Nothing waits for the disk: this only starts what the kernel would
//! do anyway.

use std::fs::File;
use std::sync::mpsc;

/// Runs `write`, which calls the hook it is given after each chunk written
/// to `file`; every call starts the writeback of what is written so far, on
/// a second thread. Without a second thread (it could not be started, or
/// the system has no such call) the hook does nothing.
pub(super) fn overlapped<T>(file: &File, write: impl FnOnce(&dyn Fn()) -> T) -> T {
    if !cfg!(target_os = "linux") {
        return write(&|| {});
    }
    let (tx, rx) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let flusher = std::thread::Builder::new()
            .name("writeback".into())
            .spawn_scoped(scope, move || {
                while rx.recv().is_ok() {
                    // Calls that piled up while one ran are covered by one.
                    while rx.try_recv().is_ok() {}
                    start_writeback(file);
                }
            });
        if flusher.is_err() {
            return write(&|| {});
        }
        let hook = move || {
            // The flusher only ends when this sender is dropped.
            let _ = tx.send(());
        };
        let result = write(&hook);
        drop(hook);
        result
    })
}

/// Asks the kernel to start writing `file`'s dirty pages to disk, without
/// waiting for them. Advisory: a failure changes nothing but speed.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor stays open for the whole call (it is borrowed),
    // and the call reads no memory of this process.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &File) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_writer_runs_with_a_hook_and_its_result_comes_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        let file = File::create(&path).unwrap();
        let calls = AtomicUsize::new(0);
        let written = overlapped(&file, |chunk_copied| {
            for _ in 0..3 {
                (&file).write_all(&[b'x'; 4096]).unwrap();
                chunk_copied();
                calls.fetch_add(1, Ordering::Relaxed);
            }
            12288
        });
        assert_eq!(written, 12288);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        assert_eq!(std::fs::read(&path).unwrap(), vec![b'x'; 12288]);
    }
}
