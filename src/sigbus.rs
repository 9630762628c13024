//! Mapped files cut short by another process. Reading a page of a mapping
//! beyond the end of a file that was truncated after it was mapped raises
//! SIGBUS, which would end the process at once. While a mapping is
//! registered here, a handler puts a page of zeros in place of the lost one
//! and counts the fault; the run, which reads zeros instead of the lost
//! bytes, then sees the count grow and writes nothing ([`faults`]). (The
//! file's stamp, checked before anything is written, has changed as well.)
//!
//! SIGBUS at any other address keeps its usual effect.

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Registered mappings: start and end addresses (0 when the slot is free).
/// Read by the signal handler, which may take no lock.
const SLOTS: usize = 256;
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

/// Per slot: set by the handler when a page of that mapping was lost.
static FAULTED: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

/// Faults replaced by zeros so far.
static FAULTS: AtomicUsize = AtomicUsize::new(0);

/// The files of mappings that lost pages and were dropped since.
static CUT_SHORT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The files whose mappings lost pages, among those no longer held.
pub(crate) fn cut_short_files() -> Vec<PathBuf> {
    CUT_SHORT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// How many reads of lost mapped pages were answered with zeros so far in
/// this process: a run compares the count before and after it reads.
pub(crate) fn faults() -> usize {
    FAULTS.load(Ordering::SeqCst)
}

/// A mapping registered for as long as this lives.
#[derive(Debug)]
pub(crate) struct Guard {
    slot: Option<usize>,
    path: PathBuf,
}

impl Guard {
    /// Registers the mapped memory `map` of the file `path` (installing the
    /// handler the first time). Without a free slot the mapping is simply
    /// not guarded.
    pub(crate) fn register(map: &[u8], path: &Path) -> Guard {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(install);
        let start = map.as_ptr() as usize;
        let end = start + map.len();
        if map.is_empty() {
            return Guard {
                slot: None,
                path: path.to_path_buf(),
            };
        }
        for slot in 0..SLOTS {
            if STARTS[slot]
                .compare_exchange(0, usize::MAX, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                ENDS[slot].store(end, Ordering::SeqCst);
                FAULTED[slot].store(0, Ordering::SeqCst);
                STARTS[slot].store(start, Ordering::SeqCst);
                return Guard {
                    slot: Some(slot),
                    path: path.to_path_buf(),
                };
            }
        }
        Guard {
            slot: None,
            path: path.to_path_buf(),
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            if FAULTED[slot].load(Ordering::SeqCst) != 0 {
                CUT_SHORT
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(self.path.clone());
            }
            STARTS[slot].store(usize::MAX, Ordering::SeqCst);
            ENDS[slot].store(0, Ordering::SeqCst);
            STARTS[slot].store(0, Ordering::SeqCst);
        }
    }
}

/// True when `bytes` lies wholly inside one registered mapping (a mapped
/// file still held).
pub(crate) fn is_mapped(bytes: &[u8]) -> bool {
    let start = bytes.as_ptr() as usize;
    match (guarded(start), bytes.len().checked_sub(1)) {
        (Some(slot), Some(last)) => guarded(start + last) == Some(slot),
        _ => false,
    }
}

/// The slot of the registered mapping `addr` lies in.
fn guarded(addr: usize) -> Option<usize> {
    (0..SLOTS).find(|&slot| {
        let start = STARTS[slot].load(Ordering::SeqCst);
        start != 0
            && start != usize::MAX
            && addr >= start
            && addr < ENDS[slot].load(Ordering::SeqCst)
    })
}

/// The SIGBUS action before ours, given back for faults that are not ours.
/// Written once, before the handler is installed.
static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::zeroed();

fn install() {
    // SAFETY: a zeroed `sigaction` is a valid starting point; the handler
    // has the three-argument form SA_SIGINFO asks for. `PREVIOUS` is
    // written here only, once (under `Once`), before the handler can run.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
        libc::sigemptyset(&mut action.sa_mask);
        let previous = (&raw mut PREVIOUS).cast::<libc::sigaction>();
        libc::sigaction(libc::SIGBUS, &action, previous);
    }
}

/// The handler: only atomics and system calls (`mmap`, `sigaction`,
/// `raise`), as a signal handler must.
extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    if let Some(slot) = guarded(addr) {
        // SAFETY: `sysconf` and an anonymous private mapping at the
        // faulting page (inside a mapping of ours, which is unmapped whole
        // when dropped) are plain system calls.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
            let at = addr & !(page - 1);
            let zeros = libc::mmap(
                at as *mut libc::c_void,
                page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            );
            if zeros != libc::MAP_FAILED {
                FAULTED[slot].store(1, Ordering::SeqCst);
                FAULTS.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
    }
    // Not ours: what SIGBUS did before (by default, end the process).
    // SAFETY: `PREVIOUS` was written before this handler was installed;
    // restoring it and raising the signal again hands the fault over.
    unsafe {
        libc::sigaction(
            signal,
            (&raw const PREVIOUS).cast::<libc::sigaction>(),
            std::ptr::null_mut(),
        );
        libc::raise(signal);
    }
}
