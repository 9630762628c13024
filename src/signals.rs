//! Interruptions: on SIGINT, SIGTERM or SIGHUP the process removes the lock
//! files it holds before it ends, so that neither git nor the next run
//! finds a lock nobody holds. A signal that arrives while files are being
//! replaced waits until the commit is finished or undone (a fraction of a
//! second), so the tree is never left half-written by an interruption; the
//! process then ends by the signal, whatever the commit's outcome.
//!
//! [`clean_up_on_signals`] is called once by the command before any thread
//! starts: it blocks the signals in every thread and lets one thread of its
//! own wait for them (`sigwait`), where ordinary code may run. Without it
//! (the library used by another program) signals act as they otherwise do;
//! registering files and entering critical sections then cost a lock each.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Files to remove on a signal: the id of the registration, the path, and
/// the file's device and inode when registered (only that very file is
/// removed, never one made at the path since).
static FILES: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

/// A registration's id, path, and the device and inode registered.
type Registered = (u64, PathBuf, Option<(u64, u64)>);

/// The device and inode of the file at `path` (not followed).
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Held while files are being replaced; the signal thread takes it before
/// it acts.
static CRITICAL: Mutex<()> = Mutex::new(());

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

fn locked<T>(mutex: &'static Mutex<T>) -> std::sync::MutexGuard<'static, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file removed if the process is interrupted, until this is dropped.
#[derive(Debug)]
#[must_use = "the file is forgotten when this is dropped"]
pub(crate) struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        locked(&FILES).retain(|(id, _, _)| *id != self.0);
    }
}

/// Removes `path` if a signal ends the process while the registration lives
/// (and the file there is still the one there now).
pub(crate) fn register(path: &Path) -> Registration {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    locked(&FILES).push((id, path.to_path_buf(), identity(path)));
    Registration(id)
}

/// Set by the signal thread as soon as a signal arrives, before it waits
/// for a commit in progress.
static ARRIVED: AtomicBool = AtomicBool::new(false);

/// While this lives, a signal waits before ending the process.
#[must_use = "the section ends when this is dropped"]
pub(crate) struct Critical {
    guard: Option<std::sync::MutexGuard<'static, ()>>,
}

impl Drop for Critical {
    /// Ends the section; if a signal arrived meanwhile, this thread waits
    /// for the signal thread to end the process, so that a run interrupted
    /// during its commit always ends by the signal once the commit is
    /// finished or undone (never exit 0 or the signal, by a race).
    fn drop(&mut self) {
        drop(self.guard.take());
        if ARRIVED.load(Ordering::SeqCst) {
            loop {
                std::thread::park();
            }
        }
    }
}

impl std::fmt::Debug for Critical {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Critical")
    }
}

/// Enters a section that a signal must not cut (replacing files).
pub(crate) fn critical() -> Critical {
    Critical {
        guard: Some(locked(&CRITICAL)),
    }
}

/// The set of signals handled here.
fn signal_set() -> libc::sigset_t {
    // SAFETY: `sigemptyset` initialises the set before `sigaddset` uses it;
    // both only write the set given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        set
    }
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and so in every
/// thread started after it) and starts the thread that handles them:
/// it waits for a commit in progress, removes the registered files, and
/// ends the process by the signal. Call once, before starting threads.
///
/// ```
/// // What the command does first.
/// git_fuzzy_apply::clean_up_on_signals().expect("signals handled");
/// ```
pub fn clean_up_on_signals() -> io::Result<()> {
    let set = signal_set();
    // SAFETY: `set` is an initialised signal set; the old mask is not asked for.
    let blocked = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if blocked != 0 {
        return Err(io::Error::from_raw_os_error(blocked));
    }
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            loop {
                let mut signal = 0;
                // SAFETY: `set` and `signal` are valid for the call.
                if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
                    end_by(signal);
                }
            }
        })?;
    Ok(())
}

/// Removes the registered files once no commit is in progress, then ends
/// the process as the signal would have.
fn end_by(signal: libc::c_int) -> ! {
    ARRIVED.store(true, Ordering::SeqCst);
    let _critical = locked(&CRITICAL);
    for (_, path, registered) in locked(&FILES).iter() {
        if registered.is_some() && identity(path) == *registered {
            let _ = std::fs::remove_file(path);
        }
    }
    // SAFETY: restoring the default action and raising the signal in this
    // thread (where it is then unblocked) ends the process with it;
    // `_exit` is the fallback should it not.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
        libc::_exit(128 + signal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_is_forgotten_when_dropped() {
        let path = Path::new("/nonexistent/registered-for-a-test");
        let registration = register(path);
        assert!(locked(&FILES).iter().any(|(_, p, _)| p == path));
        drop(registration);
        assert!(!locked(&FILES).iter().any(|(_, p, _)| p == path));
    }

    #[test]
    fn a_registered_file_stays_while_no_signal_comes() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("work.lock");
        std::fs::write(&lock, "").unwrap();
        // Removed should SIGINT, SIGTERM or SIGHUP arrive while this lives;
        // not interrupted, the file stays until its owner removes it.
        let registration = register(&lock);
        assert!(lock.exists());
        drop(registration);
        assert!(lock.exists());
    }

    #[test]
    fn critical_sections_follow_one_another() {
        {
            let _section = critical();
            // every file of a commit is replaced here
        }
        // Sections do not nest across threads: one ends before the next starts.
        drop(critical());
    }
}
