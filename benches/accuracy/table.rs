//! Tallies outcomes per tool, format and noise kind, and prints them as
//! Markdown tables.

use super::cases::{Format, Noise};
use super::tools::{Outcome, Tool};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Counts of each outcome.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Runs.
    pub n: usize,
    /// Applied exactly.
    pub exact: usize,
    /// Refused (non-zero exit, file unchanged).
    pub refused: usize,
    /// Exit 0, file unchanged.
    pub noop: usize,
    /// Wrong result.
    pub wrong: usize,
    /// Timeout, signal or panic.
    pub crash: usize,
    /// Intended outcomes (see `tools::good`).
    pub ok: usize,
}

impl Tally {
    /// Counts one outcome (`Unsupported` is not counted); `good` when it
    /// was an intended one.
    pub fn add(&mut self, o: Outcome, good: bool) {
        if o == Outcome::Unsupported {
            return;
        }
        self.n += 1;
        self.ok += usize::from(good);
        match o {
            Outcome::Exact => self.exact += 1,
            Outcome::Refused => self.refused += 1,
            Outcome::NoOp => self.noop += 1,
            Outcome::Wrong => self.wrong += 1,
            Outcome::Crash => self.crash += 1,
            Outcome::Unsupported => {}
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.n += o.n;
        self.exact += o.exact;
        self.refused += o.refused;
        self.noop += o.noop;
        self.wrong += o.wrong;
        self.crash += o.crash;
        self.ok += o.ok;
    }
}

/// Outcomes by (tool, noise, format).
#[derive(Debug, Default)]
pub struct Results {
    /// The tallies.
    pub cells: BTreeMap<(Tool, Noise, Format), Tally>,
}

impl Results {
    /// Records one run.
    pub fn add(&mut self, tool: Tool, noise: Noise, format: Format, o: Outcome, good: bool) {
        if o != Outcome::Unsupported {
            self.cells
                .entry((tool, noise, format))
                .or_default()
                .add(o, good);
        }
    }

    /// (must-apply, must-refuse) totals for `tool` over the classic kinds
    /// (the adversarial kinds have their own table).
    pub fn totals(&self, tool: Tool) -> (Tally, Tally) {
        let (mut apply, mut refuse) = (Tally::default(), Tally::default());
        for ((t, noise, _), tally) in &self.cells {
            if *t == tool && !noise.is_adversarial() {
                if noise.must_refuse() {
                    refuse.merge(tally);
                } else {
                    apply.merge(tally);
                }
            }
        }
        (apply, refuse)
    }
}

/// `part` of `whole` as a percentage with one decimal.
pub fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".to_string()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// The summary table: one row per tool.
pub fn summary(results: &Results) -> String {
    let mut out = String::from(
        "| tool | must-apply | applied exactly | refused | no-op | wrong | crash | must-refuse | refused | no-op | wrong | crash |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for tool in Tool::ALL {
        let (a, r) = results.totals(tool);
        if a.n + r.n == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} ({}) | {} | {} | {} |",
            tool.name(),
            a.n,
            a.exact,
            pct(a.exact, a.n),
            a.refused,
            a.noop,
            a.wrong,
            a.crash,
            r.n,
            r.refused,
            pct(r.refused, r.n),
            r.noop,
            r.wrong,
            r.crash
        );
    }
    out
}

/// One tool's table: noise kinds (of `kinds`) down, formats across; each
/// cell is `ok/n` (ok = the intended outcome: applied exactly, refused for
/// must-refuse rows, either for apply-or-refuse rows), with wrong, no-op and
/// crash counts when there are any.
pub fn per_format(results: &Results, tool: Tool, kinds: &[Noise]) -> String {
    let formats: Vec<Format> = Format::ALL.into_iter().filter(|f| tool.reads(*f)).collect();
    let mut out = String::from("| noise |");
    for f in &formats {
        let _ = write!(out, " {} |", f.name());
    }
    out.push_str("\n| --- |");
    for _ in &formats {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for &noise in kinds {
        let cells: Vec<Option<&Tally>> = formats
            .iter()
            .map(|f| results.cells.get(&(tool, noise, *f)))
            .collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        let _ = write!(out, "| {} |", noise.name());
        for c in cells {
            match c {
                None => out.push_str(" |"),
                Some(t) => {
                    let mut cell = format!("{}/{}", t.ok, t.n);
                    for (k, label) in [(t.wrong, "wrong"), (t.noop, "no-op"), (t.crash, "crash")] {
                        if k > 0 {
                            let _ = write!(cell, ", **{k} {label}**");
                        }
                    }
                    let _ = write!(out, " {cell} |");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Our outcomes on the adversarial cases, one row per label (kind, and for
/// the large kind the padded kind): `(label, expectation, tally)`.
pub fn adversarial(rows: &[(String, &'static str, Tally)]) -> String {
    let mut out = String::from(
        "| kind | expected | cases | ok | applied exactly | refused | no-op | wrong | crash |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut total = Tally::default();
    for (label, expect, t) in rows {
        total.merge(t);
        let wrong = if t.wrong > 0 {
            format!("**{}**", t.wrong)
        } else {
            "0".to_string()
        };
        let _ = writeln!(
            out,
            "| {label} | {expect} | {} | {} ({}) | {} | {} | {} | {wrong} | {} |",
            t.n,
            t.ok,
            pct(t.ok, t.n),
            t.exact,
            t.refused,
            t.noop,
            t.crash
        );
    }
    let _ = writeln!(
        out,
        "| all | | {} | {} ({}) | {} | {} | {} | {} | {} |",
        total.n,
        total.ok,
        pct(total.ok, total.n),
        total.exact,
        total.refused,
        total.noop,
        total.wrong,
        total.crash
    );
    out
}
