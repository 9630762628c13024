//! The accuracy benchmark: generated cases from real source files, run
//! through git-fuzzy-apply and its peers, tallied per tool, format and kind
//! of damage.
//!
//! ```sh
//! cargo bench --bench accuracy -- [--cases N] [--adv-cases N] [--seq-cases N]
//!     [--seed S] [--write-docs] [--jobs J] [--ours-only] [--dump DIR] [--bin PATH]
//! ```
//!
//! `--cases` counts the classic damage kinds, `--adv-cases` (default: the
//! same number) the adversarial placement kinds of `adversary.rs`, which get
//! their own table, and `--seq-cases` (default: half of `--adv-cases`) the
//! in-order and elision kinds of `sequence.rs`, in the same table.
//!
//! `--write-docs` rewrites `docs/accuracy.md`; `--dump DIR` writes every case
//! our tool got wrong or failed to apply under DIR for inspection.

mod cases;
mod table;
mod tools;

use cases::{Case, Expect, Generated, Noise, corpus::Corpus};
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
    adv_cases: Option<usize>,
    seq_cases: Option<usize>,
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
        adv_cases: None,
        seq_cases: None,
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
            "--adv-cases" => {
                args.adv_cases = Some(value("--adv-cases")?.parse().map_err(|e| format!("{e}"))?)
            }
            "--seq-cases" => {
                args.seq_cases = Some(value("--seq-cases")?.parse().map_err(|e| format!("{e}"))?)
            }
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

/// Runs every case through every tool on `jobs` threads; also returns our
/// outcome on each case.
fn run_all(
    generated: &Generated,
    args: &Args,
    tools: &[Tool],
) -> (Results, Vec<Miss>, Vec<Outcome>, Vec<Outcome>) {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Results::default());
    let misses = Mutex::new(Vec::new());
    let ours = Mutex::new(vec![Outcome::Unsupported; generated.cases.len()]);
    let small = Mutex::new(vec![Outcome::Unsupported; generated.cases.len()]);
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
                        let good = tools::good(case, run.outcome);
                        results.lock().expect("lock").add(
                            tool,
                            case.noise,
                            case.format,
                            run.outcome,
                            good,
                        );
                        if tool == Tool::Ours {
                            ours.lock().expect("lock")[i] = run.outcome;
                            if case.pad > 0 {
                                // The same case without the padding.
                                let mut unpadded = case.clone();
                                unpadded.pad = 0;
                                unpadded.patch = case.unpadded_patch.clone();
                                let r = scratch
                                    .run(tool, &unpadded, &args.bin)
                                    .expect("scratch I/O");
                                small.lock().expect("lock")[i] = r.outcome;
                            }
                        }
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
    (
        results.into_inner().expect("lock"),
        misses,
        ours.into_inner().expect("lock"),
        small.into_inner().expect("lock"),
    )
}

/// Writes each miss as a folder: before/<path>, patch, expected, got, stderr.
fn dump(dir: &Path, generated: &Generated, misses: &[Miss]) -> std::io::Result<()> {
    for m in misses {
        let c: &Case = &generated.cases[m.case];
        let mut kind = match c.base {
            Some(b) => format!("{}-{}", c.noise.name(), b.name()),
            None => c.noise.name().split(' ').next().unwrap_or("x").to_string(),
        };
        if let Some(v) = c.variant {
            kind = format!("{kind}-{}", v.replace([' ', ',', '/'], "-"));
        }
        let name = format!("{:?}-{}-{:04}", m.run.outcome, kind, c.id).to_lowercase();
        let d = dir.join(format!("{}-{}", name, c.format.name().replace('/', "-")));
        let before = d.join("before").join(&c.path);
        std::fs::create_dir_all(before.parent().unwrap_or(&d))?;
        // Padded cases are written unpadded; `pad` says how many filler
        // lines the run put above the file (the patch's numbers count them).
        std::fs::write(&before, &c.original)?;
        if c.pad > 0 {
            std::fs::write(d.join("pad"), format!("{}\n", c.pad))?;
        }
        std::fs::write(d.join("patch"), &c.patch)?;
        let mut args = String::new();
        if c.reverse {
            args.push_str("-R\n");
        }
        if !args.is_empty() {
            std::fs::write(d.join("args"), args)?;
        }
        match &c.expect {
            Expect::Apply(want) => std::fs::write(d.join("expected"), want)?,
            Expect::Refuse => std::fs::write(d.join("expected"), "REFUSE\n")?,
        }
        std::fs::write(
            d.join("expectation"),
            format!("{}\n", c.expectation().label()),
        )?;
        if let Some(after) = &m.run.after {
            std::fs::write(d.join("got"), after)?;
        }
        std::fs::write(d.join("stderr"), &m.run.stderr)?;
        std::fs::write(d.join("path"), format!("{}\n", c.path))?;
    }
    Ok(())
}

/// Our misses on the classic kinds counted by noise kind: (noise,
/// refused/no-op, wrong, crash).
fn misses_by_noise(generated: &Generated, misses: &[Miss]) -> String {
    let mut counts: std::collections::BTreeMap<&str, [usize; 3]> = Default::default();
    for m in misses {
        let c = &generated.cases[m.case];
        if c.noise.is_adversarial() {
            continue;
        }
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

/// The adversarial table for our tool: one row per kind in table order,
/// and for the large kind one row per padded kind.
fn adversarial_rows(generated: &Generated, ours: &[Outcome], small: &[Outcome]) -> String {
    let mut rows: Vec<(String, &'static str, table::Tally)> = Vec::new();
    type Key = (usize, usize, String, &'static str);
    let (mut large, mut differs) = (0, Vec::new());
    for (c, (&o, &s)) in generated.cases.iter().zip(ours.iter().zip(small)) {
        if c.pad > 0 && o != Outcome::Unsupported {
            large += 1;
            if o != s {
                differs.push(format!(
                    "{} ({}): {o:?} padded, {s:?} unpadded",
                    c.id,
                    c.label()
                ));
            }
        }
    }
    let mut order: Vec<Key> = Vec::new();
    for (c, &o) in generated.cases.iter().zip(ours) {
        if !c.noise.is_adversarial() || o == Outcome::Unsupported {
            continue;
        }
        let label = c.label();
        let pos = |n: Noise| Noise::ADVERSARIAL.iter().position(|&k| k == n).unwrap_or(0);
        let expect = c.expectation().label();
        let key = (pos(c.noise), c.base.map_or(0, pos), label.clone(), expect);
        let k = match order.iter().position(|x| *x == key) {
            Some(k) => k,
            None => {
                order.push(key);
                rows.push((label, expect, table::Tally::default()));
                rows.len() - 1
            }
        };
        rows[k].2.add(o, tools::good(c, o));
    }
    let mut idx: Vec<usize> = (0..rows.len()).collect();
    idx.sort_by(|&a, &b| order[a].cmp(&order[b]));
    let sorted: Vec<_> = idx.into_iter().map(|i| rows[i].clone()).collect();
    let mut out = table::adversarial(&sorted);
    out.push_str(&format!(
        "\nLarge cases whose outcome differs from the same case unpadded: {} of {large}{}\n",
        differs.len(),
        if differs.is_empty() {
            String::new()
        } else {
            format!(" (case ids: {})", differs.join("; "))
        }
    ));
    out
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
    let mut generated = cases::generate(&corpus, args.seed, args.cases);
    let classic = generated.cases.len();
    let adv_count = args.adv_cases.unwrap_or(args.cases);
    cases::generate_adversarial(
        &corpus,
        args.seed,
        adv_count,
        args.cases,
        cases::Stream::Placement,
        &mut generated,
    );
    cases::generate_adversarial(
        &corpus,
        args.seed,
        args.seq_cases.unwrap_or(adv_count / 2),
        args.cases + adv_count,
        cases::Stream::Sequence,
        &mut generated,
    );
    let adversarial = generated.cases.len() - classic;
    let gen_time = started.elapsed();
    eprintln!(
        "accuracy: {} candidate files; {} cases + {} adversarial (skipped {} picks with duplicated context, {} other) in {:.1?}",
        corpus.files.len(),
        classic,
        adversarial,
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
    let (results, misses, ours, small) = run_all(&generated, &args, &tools);
    let elapsed = started.elapsed();
    let (apply, refuse) = results.totals(Tool::Ours);
    let mut tables = String::new();
    for &tool in &tools {
        tables.push_str(&format!(
            "### {}\n\n{}\n",
            tool.name(),
            table::per_format(&results, tool, &Noise::ALL)
        ));
    }
    let adv_summary = adversarial_rows(&generated, &ours, &small);
    let mut adv_tables = String::new();
    for &tool in &tools {
        adv_tables.push_str(&format!(
            "### {} (adversarial)\n\n{}\n",
            tool.name(),
            table::per_format(&results, tool, &Noise::ADVERSARIAL)
        ));
    }
    let summary = table::summary(&results);
    let target_list = targets(&apply, &refuse, classic);
    let by_noise = misses_by_noise(&generated, &misses);
    println!(
        "## Summary\n\n{summary}\n{target_list}\n## Our misses by noise kind\n\n{by_noise}\n## Per format and noise\n\n{tables}"
    );
    println!(
        "## Adversarial placement kinds (ours)\n\n{adv_summary}\n## Adversarial, per format\n\n{adv_tables}"
    );
    println!(
        "seed {}, {} cases + {} adversarial, {} jobs, {:.1?} in all",
        args.seed, classic, adversarial, args.jobs, elapsed
    );
    if let Some(dir) = &args.dump {
        dump(dir, &generated, &misses).expect("write --dump folder");
    }
    if args.write_docs {
        let doc = include_str!("doc_template.md")
            .replace("{{date}}", &today())
            .replace("{{seed}}", &args.seed.to_string())
            .replace("{{cases}}", &classic.to_string())
            .replace("{{adv_cases}}", &adversarial.to_string())
            .replace("{{adv_summary}}", &adv_summary)
            .replace("{{adv_tables}}", &adv_tables)
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
