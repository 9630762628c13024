//! The accuracy benchmark: generated cases from real source files, run
//! through git-fuzzy-apply and its peers, tallied per tool, format and kind
//! of damage.
//!
//! ```sh
//! cargo bench --bench accuracy -- [--cases N] [--seed S] [--write-docs]
//!     [--jobs J] [--ours-only] [--dump DIR] [--bin PATH]
//! ```
//!
//! `--write-docs` rewrites `docs/accuracy.md`; `--dump DIR` writes every case
//! our tool got wrong or failed to apply under DIR for inspection.

mod cases;
mod table;
mod tools;

use cases::{Case, Expect, Generated, corpus::Corpus};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use table::{Results, Tally, pct};
use tools::{Outcome, Run, Scratch, Tool};

/// The command line.
struct Args {
    cases: usize,
    seed: u64,
    write_docs: bool,
    jobs: usize,
    ours_only: bool,
    dump: Option<PathBuf>,
    bin: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        cases: 2000,
        seed: 1,
        write_docs: false,
        jobs: nproc(),
        ours_only: false,
        dump: None,
        bin: PathBuf::from(env!("CARGO_BIN_EXE_git-fuzzy-apply")),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--cases" => args.cases = value("--cases")?.parse().map_err(|e| format!("{e}"))?,
            "--seed" => args.seed = value("--seed")?.parse().map_err(|e| format!("{e}"))?,
            "--jobs" => args.jobs = value("--jobs")?.parse().map_err(|e| format!("{e}"))?,
            "--dump" => args.dump = Some(PathBuf::from(value("--dump")?)),
            "--bin" => args.bin = PathBuf::from(value("--bin")?),
            "--write-docs" => args.write_docs = true,
            "--ours-only" => args.ours_only = true,
            // `cargo bench` passes --bench; filters are not used.
            _ => {}
        }
    }
    args.jobs = args.jobs.max(1);
    Ok(args)
}

fn nproc() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The first line a command prints, or "unavailable".
fn version(cmd: &str, arg: &str) -> String {
    Command::new(cmd)
        .arg(arg)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "unavailable".to_string())
}

/// Our run of one case, kept when it was not the intended outcome.
struct Miss {
    case: usize,
    run: Run,
}

/// Runs every case through every tool on `jobs` threads.
fn run_all(generated: &Generated, args: &Args, tools: &[Tool]) -> (Results, Vec<Miss>) {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Results::default());
    let misses = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..args.jobs {
            s.spawn(|| {
                let dir = tempfile::tempdir().expect("temporary directory");
                let scratch = Scratch::new(dir.path()).expect("git init in a scratch directory");
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = generated.cases.get(i) else {
                        break;
                    };
                    for &tool in tools {
                        let run = scratch.run(tool, case, &args.bin).expect("scratch I/O");
                        results.lock().expect("lock").add(
                            tool,
                            case.noise,
                            case.format,
                            run.outcome,
                        );
                        let good = match case.expect {
                            Expect::Apply(_) => run.outcome == Outcome::Exact,
                            Expect::Refuse => run.outcome == Outcome::Refused,
                        };
                        if tool == Tool::Ours && !good {
                            misses.lock().expect("lock").push(Miss { case: i, run });
                        }
                    }
                }
            });
        }
    });
    let mut misses = misses.into_inner().expect("lock");
    misses.sort_by_key(|m| m.case);
    (results.into_inner().expect("lock"), misses)
}

/// Writes each miss as a folder: before/<path>, patch, expected, got, stderr.
fn dump(dir: &Path, generated: &Generated, misses: &[Miss]) -> std::io::Result<()> {
    for m in misses {
        let c: &Case = &generated.cases[m.case];
        let name = format!(
            "{:?}-{}-{:04}",
            m.run.outcome,
            c.noise.name().split(' ').next().unwrap_or("x"),
            c.id
        )
        .to_lowercase();
        let d = dir.join(format!("{}-{}", name, c.format.name().replace('/', "-")));
        let before = d.join("before").join(&c.path);
        std::fs::create_dir_all(before.parent().unwrap_or(&d))?;
        std::fs::write(&before, &c.original)?;
        std::fs::write(d.join("patch"), &c.patch)?;
        match &c.expect {
            Expect::Apply(want) => std::fs::write(d.join("expected"), want)?,
            Expect::Refuse => std::fs::write(d.join("expected"), "REFUSE\n")?,
        }
        if let Some(after) = &m.run.after {
            std::fs::write(d.join("got"), after)?;
        }
        std::fs::write(d.join("stderr"), &m.run.stderr)?;
        std::fs::write(d.join("path"), format!("{}\n", c.path))?;
    }
    Ok(())
}

/// Our misses counted by noise kind: (noise, refused/no-op, wrong, crash).
fn misses_by_noise(generated: &Generated, misses: &[Miss]) -> String {
    let mut counts: std::collections::BTreeMap<&str, [usize; 3]> = Default::default();
    for m in misses {
        let c = &generated.cases[m.case];
        let e = counts.entry(c.noise.name()).or_default();
        match m.run.outcome {
            Outcome::Wrong => e[1] += 1,
            Outcome::Crash => e[2] += 1,
            _ => e[0] += 1,
        }
    }
    let mut out =
        String::from("| noise | not applied | wrong | crash |\n| --- | ---: | ---: | ---: |\n");
    for (k, [a, b, c]) in counts {
        out.push_str(&format!("| {k} | {a} | {b} | {c} |\n"));
    }
    out
}

/// Whether our totals meet the targets, as a Markdown list.
fn targets(apply: &Tally, refuse: &Tally, all: usize) -> String {
    let wrong = apply.wrong + refuse.wrong;
    let crash = apply.crash + refuse.crash;
    let mark = |ok: bool| if ok { "met" } else { "**missed**" };
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    format!(
        "- must-apply applied exactly: {} (target ≥ 98%): {}\n\
         - must-refuse refused: {} (target ≥ 99.5%): {}\n\
         - wrong outcomes: {wrong} of {all} cases, {} (target ≤ 0.2%): {}\n\
         - crashes: {crash} (target 0): {}\n",
        pct(apply.exact, apply.n),
        mark(ratio(apply.exact, apply.n) >= 0.98),
        pct(refuse.refused, refuse.n),
        mark(ratio(refuse.refused, refuse.n) >= 0.995),
        pct(wrong, all),
        mark(ratio(wrong, all) <= 0.002),
        mark(crash == 0),
    )
}

fn today() -> String {
    version("date", "-u")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("accuracy: {e}");
            std::process::exit(2);
        }
    };
    if !args.bin.is_file() {
        eprintln!(
            "accuracy: no binary at {} (cargo build --release)",
            args.bin.display()
        );
        std::process::exit(2);
    }
    let started = Instant::now();
    let corpus = Corpus::discover();
    let generated = cases::generate(&corpus, args.seed, args.cases);
    let gen_time = started.elapsed();
    eprintln!(
        "accuracy: {} candidate files; {} cases (skipped {} picks with duplicated context, {} other) in {:.1?}",
        corpus.files.len(),
        generated.cases.len(),
        generated.skipped_duplicate,
        generated.skipped_other,
        gen_time
    );
    if generated.cases.is_empty() {
        eprintln!("accuracy: no source files found; nothing to measure");
        return;
    }
    let tools: Vec<Tool> = if args.ours_only {
        vec![Tool::Ours]
    } else {
        Tool::ALL.to_vec()
    };
    let (results, misses) = run_all(&generated, &args, &tools);
    let elapsed = started.elapsed();
    let (apply, refuse) = results.totals(Tool::Ours);
    let mut tables = String::new();
    for &tool in &tools {
        tables.push_str(&format!(
            "### {}\n\n{}\n",
            tool.name(),
            table::per_format(&results, tool)
        ));
    }
    let summary = table::summary(&results);
    let target_list = targets(&apply, &refuse, generated.cases.len());
    let by_noise = misses_by_noise(&generated, &misses);
    println!(
        "## Summary\n\n{summary}\n{target_list}\n## Our misses by noise kind\n\n{by_noise}\n## Per format and noise\n\n{tables}"
    );
    println!(
        "seed {}, {} cases, {} jobs, {:.1?} in all",
        args.seed,
        generated.cases.len(),
        args.jobs,
        elapsed
    );
    if let Some(dir) = &args.dump {
        dump(dir, &generated, &misses).expect("write --dump folder");
    }
    if args.write_docs {
        let doc = include_str!("doc_template.md")
            .replace("{{date}}", &today())
            .replace("{{seed}}", &args.seed.to_string())
            .replace("{{cases}}", &generated.cases.len().to_string())
            .replace("{{nproc}}", &nproc().to_string())
            .replace("{{jobs}}", &args.jobs.to_string())
            .replace("{{elapsed}}", &format!("{:.0}", elapsed.as_secs_f64()))
            .replace("{{files}}", &corpus.files.len().to_string())
            .replace("{{skipped_dup}}", &generated.skipped_duplicate.to_string())
            .replace("{{skipped_other}}", &generated.skipped_other.to_string())
            .replace("{{git}}", &version("git", "--version"))
            .replace("{{patch}}", &version("patch", "--version"))
            .replace("{{summary}}", &summary)
            .replace("{{targets}}", &target_list)
            .replace("{{by_noise}}", &by_noise)
            .replace("{{tables}}", &tables);
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join("accuracy.md");
        std::fs::create_dir_all(path.parent().expect("docs dir")).expect("create docs/");
        std::fs::write(&path, doc).expect("write docs/accuracy.md");
        eprintln!("accuracy: wrote {}", path.display());
    }
}
