//! Shared by the integration tests: runs the binary with a watchdog, so a
//! regression that makes a run hang fails its test within minutes instead of
//! stalling the whole suite (and CI) until an outer time limit.

// Each test crate compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::Duration;
use wait_timeout::ChildExt;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_git-fuzzy-apply");

/// The longest one run of the binary may take in a debug build before the
/// test fails. The slowest hostile case takes a few seconds.
pub const WATCHDOG: Duration = Duration::from_secs(180);

/// Runs the binary in `dir` with `args`, feeding `stdin` (empty when `None`).
pub fn run_bin(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    output_within(&mut command, stdin.unwrap_or(b""), WATCHDOG)
}

/// Runs `command`, feeding it `stdin`, and collects its output; kills it and
/// panics if it has not finished within `limit`.
pub fn output_within(command: &mut Command, stdin: &[u8], limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    // A child that exits without reading its input closes the pipe: ignore
    // the write error, the exit status tells what happened.
    let feeder = thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let stdout = drain(child.stdout.take().expect("stdout"));
    let stderr = drain(child.stderr.take().expect("stderr"));
    let status = match child.wait_timeout(limit).expect("wait") {
        Some(status) => status,
        None => kill(&mut child, command, limit),
    };
    let _ = feeder.join();
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn kill(child: &mut Child, command: &Command, limit: Duration) -> ! {
    let _ = child.kill();
    let _ = child.wait();
    panic!("{command:?} still running after {limit:?}: killed (a hang or a quadratic path?)");
}
