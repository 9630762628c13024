//! The integration tests, one binary (issue #16): each area is a module
//! here, all sharing [`support`]. One binary is built and linked once
//! instead of once per area, which was most of the test build time.
//!
//! Run one area with `cargo test --test it <area>::` (for example
//! `cargo test --test it fixtures::`), one test with its full path.
//!
//! A new area is a file `tests/it/<area>.rs` with a `mod <area>;` line
//! below; it reaches the shared helpers with `use crate::support;`.
//!
//! Every test of every area runs in threads of this one process, at the
//! same time as the others. So a test never changes process state: no
//! `std::env::set_var`, no `set_current_dir`, no umask or signal
//! disposition of its own. It passes environment variables, the working
//! directory and the umask to the child `Command`s it runs, and works in
//! its own temporary directory (mounts included). No area needs to run
//! alone today; one that does takes a lock shared with the tests it
//! conflicts with, with a comment saying why.
//!
//! Where the tests keep their data:
//! - insta snapshots: `tests/it/snapshots/it__<module>__<name>.snap` (insta
//!   names them by module path, beside the asserting source file);
//! - proptest regressions: `tests/proptest-regressions/<area>.txt` (proptest's
//!   default `SourceParallel` persistence: the folder beside the one holding
//!   the crate's `main.rs`, named after the source file).

mod accuracy_floor;
mod binary;
mod cli;
mod differential;
mod doc_examples;
mod faults;
mod feedback;
mod fixture_oracles;
mod fixtures;
mod gen_docs;
mod git;
mod grammar;
mod grammar_tool_calls;
mod hook;
mod hostile;
mod in_order;
mod install;
mod json_contract;
mod large;
mod layers;
mod long_lines;
mod mapped;
mod memory;
mod notations;
mod output;
mod paths;
mod pin_suggestions;
mod placement;
mod prefilter_equivalence;
mod progress;
mod properties;
mod recovery;
mod regressions;
mod reruns;
mod roundtrip;
mod snapshots;
mod support;
mod symlinks;
