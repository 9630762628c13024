#!/usr/bin/env python3
"""Planning cost against the size of the patch and of the file (issue 18,
"Costs that are not linear"): a time-vs-size table at 1x, 4x and 16x (hunks
and file lines grow together), fresh and re-applied, with `git apply` and
GNU `patch` timed in the same run on the same inputs.

Cases (H hunks, one changed line each, on a file of 8 H lines unless said):
  numbered    `diff -U3` hunks with their line numbers
  numberless  the same hunks with bare `@@` headers
  drifted     15 hunks on 4,750 lines at 1x (60 on 19,000 at 4x), whose
              context lines gained trailing blanks (peers ignore blanks:
              `git apply --ignore-whitespace`, `patch -l`)
  shared      numbered hunks on lines whose longest token (and longest word)
              stands in every line: `total += accumulate_measurement(s, N);`
  backticks   numbered hunks on lines holding backticks (`step N`), which
              the fuzzy keys drop
  codex       the hunks as one Codex envelope, each chunk under an `@@ fn`
              anchor line (the file has one `fn` line every 8 lines)
  codex-same-anchor  the same, every `@@` anchor the same line
              (`impl Worker {`, once every 8 lines)
  sr-drift    the hunks as SEARCH/REPLACE blocks whose SEARCH lines lost
              their indentation, and so did their REPLACE lines (peers cannot
              read them)
  long-lines  numbered hunks, H/8 of them, on a file of H lines of 2 KiB each
  lenient     numbered hunks whose context lines gained trailing blanks (as
              drifted, H of them on 8 H lines): every one is placed by the
              resilient tier, which then looks for a rival the closing-bracket
              rule turned away (`decide::bracket_rival`)
  similar     numbered hunks with one inner context line written differently
              (`// stage N` for `// step N`): placed by the similarity tier,
              which then looks for that line as written elsewhere in the file
              (`decide::paired_line_stands_elsewhere`); re-applied, it is
              refused (exit 1, file unchanged): its new side does not stand
  misnumbered numbered hunks whose line numbers are 6 lines off, alternately
              up and down (the offset carried from the hunk before never fits):
              each is placed away from its number, so whether its new side
              stands at the number is checked (`accept::not_done_where_numbered`)
  case-fix    numbered hunks that change the case of a word (`compute_` to
              `Compute_`) under an inner context line whose case drifted
              (`// STEP N` for `// step N`): placed by the fuzzy tier, which
              then reads the new side with its own tolerance
              (`applied::new_side_read_leniently`, `decide::lenient_done`);
              re-applied, that reading finds it, and every hunk is refused as
              ambiguous (exit 1, file unchanged: "already applied, or to be
              applied there?"), each refusal trying its `--at` suggestions
              (`plan/pin_check.rs`: one more location of the file, shared
              by every refusal; hunks squared before session 12's second
              pass)
  lenient-deletions  numbered hunks that only remove a line, every old line
              (context and removed) with trailing blanks added: each is a
              pure deletion read with tolerance (resilient tier), so the
              removal checks run (`locate/evidence.rs`: a deletion whose
              context stands exactly elsewhere, a removed line paired with
              tolerance while its exact twin is skipped, a removed copy
              beside a kept copy across an omitted line)
  ties        bare `@@` hunks, H of them on 16 H lines, on a file whose
              second half repeats its first: every hunk matches two places
              equally well and is refused (exit 1, file unchanged), each
              refusal trying its two `--at` suggestions (`plan/pin_check.rs`:
              every suggested line pinned, one hunk located again; hunks
              squared before session 13). Fresh only (nothing applies, so
              re-applied is the same run); the peers cannot read bare `@@`
Each case runs on the original file (fresh: every hunk applies) and on the
patched file (re-applied: every hunk already applied, the pre-commit case).

`cp` copying the file to a new name is timed beside them (the floor of a
run that reads and writes the file: process start and the copy), with
ours' ratio to it.

Every command runs in a fresh copy, `--runs` times (the best reported: the
machine may be shared, and the best run is the one least slowed), and
its result is checked: ours must give the expected file (fresh) or leave it
unchanged (re-applied). The peers' outcome is printed beside their time
(`git apply` refuses a re-applied patch; `patch -N` skips it).

Usage: benches/costs.py [--bin PATH] [--base N] [--scales 1,4,16] [--runs 3]
                        [--cases a,b] [--states fresh,re-applied] [--no-peers]
Inputs and scratch copies (each a git repository of its own) go to
<target>/perf-inputs/costs/.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))


def line(i, case="numbered"):
    if case == "shared":
        return f"    total += accumulate_measurement(sample, {i});\n"
    if case == "backticks":
        return f"    let value_{i} = compute_{i % 7}(input, {i}); // see `step {i % 13}`\n"
    if case == "codex" and i % 8 == 0:
        return f"fn block_{i}() {{\n"
    if case == "codex-same-anchor" and i % 8 == 0:
        return "impl Worker {\n"
    if case == "long-lines":
        return f"    let value_{i} = compute_{i % 7}(input, {i}); // " + f"word{i % 97} " * 300 + "\n"
    return f"    let value_{i} = compute_{i % 7}(input, {i}); // step {i % 13}\n"


def changed(i, case="numbered"):
    if case == "case-fix":
        return line(i, case).replace("compute_", "Compute_", 1)
    return line(i, case).replace(f", {i})", f", {i}) + 1", 1)


def make(case, k, base):
    """(before, after, patch) for `case` at scale k."""
    if case == "drifted":
        hunks, n = 15 * k * base // 1000 or 1, 4750 * k * base // 1000
    elif case == "long-lines":
        hunks, n = k * base // 4 or 1, 2 * k * base
    elif case == "ties":
        hunks, n = k * base, 16 * k * base
    else:
        hunks, n = 2 * k * base, 16 * k * base
    step = n // hunks
    if case == "ties":
        # The look-alikes: the second half of the file is the first again,
        # and the hunks edit the first half.
        step = n // 2 // hunks
    # Codex: the changed line is the 5th of its block of 8 (after `fn`).
    codex = case.startswith("codex")
    targets = [step * h + step // 2 + (1 if codex else 0) for h in range(hunks)]
    before = [line(i % (n // 2) if case == "ties" else i, case) for i in range(n)]
    after = list(before)
    for t in targets:
        after[t] = changed(t, case)
    if codex:
        out = ["*** Begin Patch\n", "*** Update File: f.rs\n"]
        for t in targets:
            out.append(f"@@ {before[t - t % 8].rstrip()}\n")
            out += [" " + before[j] for j in range(t - 2, t)]
            out += ["-" + before[t], "+" + after[t]]
            out += [" " + before[j] for j in range(t + 1, min(n, t + 3))]
        out.append("*** End Patch\n")
        return "".join(before), "".join(after), "".join(out), hunks, n
    if case == "sr-drift":
        out = []
        for t in targets:
            lo, hi = max(0, t - 2), min(n, t + 3)
            out.append("f.rs\n<<<<<<< SEARCH\n")
            out += [before[j].lstrip() for j in range(lo, hi)]
            out.append("=======\n")
            out += [after[j].lstrip() for j in range(lo, hi)]
            out.append(">>>>>>> REPLACE\n\n")
        return "".join(before), "".join(after), "".join(out), hunks, n
    out = ["--- a/f.rs\n", "+++ b/f.rs\n"]
    for h, t in enumerate(targets):
        lo, hi = max(0, t - 3), min(n, t + 4)
        if case in ("numberless", "ties"):
            out.append("@@\n")
        elif case == "misnumbered":
            at = lo + 1 + (6 if h % 2 else -6)
            out.append(f"@@ -{max(at, 1)},{hi - lo} +{max(at, 1)},{hi - lo} @@\n")
        elif case == "lenient-deletions":
            # The new side starts h lines up: each hunk before removed one.
            out.append(f"@@ -{lo + 1},{hi - lo} +{lo + 1 - h},{hi - lo - 1} @@\n")
        else:
            out.append(f"@@ -{lo + 1},{hi - lo} +{lo + 1},{hi - lo} @@\n")
        for j in range(lo, hi):
            if j == t and case == "lenient-deletions":
                out.append("-" + before[j][:-1] + "  \n")
            elif j == t:
                out.append("-" + before[j])
                out.append("+" + after[j])
            elif case in ("drifted", "lenient", "lenient-deletions"):
                out.append(" " + before[j][:-1] + "  \n")
            elif case == "similar" and j == t - 2:
                out.append(" " + before[j].replace("// step", "// stage"))
            elif case == "case-fix" and j == t - 2:
                out.append(" " + before[j].replace("// step", "// STEP"))
            else:
                out.append(" " + before[j])
    # Ties: every hunk is refused, the file stays as it was.
    want = before if case == "ties" else after
    if case == "lenient-deletions":
        gone = set(targets)
        want = [before[j] for j in range(n) if j not in gone]
    return "".join(before), "".join(want), "".join(out), hunks, n


def timed(cmd, cwd):
    """(seconds, exit code, peak RSS in KiB, CPU seconds) of one run."""
    stats = os.path.join(cwd, ".time")
    full = ["/usr/bin/time", "-o", stats, "-f", "%M %U %S"] + cmd
    start = time.perf_counter()
    proc = subprocess.run(full, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - start
    with open(stats) as f:
        rss, user, system = f.read().split()[-3:]
    return took, proc.returncode, int(rss), float(user) + float(system)


def measure(cmd, start_text, want, runs, scratch):
    """Best wall time, exit code, peak RSS, whether the result is `want`, and
    the best CPU time (user + system: less moved by other work on a shared
    machine than the wall time)."""
    samples = []
    for _ in range(runs):
        d = tempfile.mkdtemp(dir=scratch)
        # A repository of its own, so that both tools take paths from it.
        subprocess.run(["git", "init", "-q", d], check=True)
        with open(os.path.join(d, "f.rs"), "w") as f:
            f.write(start_text)
        took, code, rss, cpu = timed(cmd, d)
        with open(os.path.join(d, "f.rs")) as f:
            ok = f.read() == want
        samples.append((took, code, rss, ok, cpu))
        shutil.rmtree(d)
    took = min(s[0] for s in samples)
    cpu = min(s[4] for s in samples)
    return took, samples[0][1], max(s[2] for s in samples), all(s[3] for s in samples), cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(TARGET, "release", "git-fuzzy-apply"))
    ap.add_argument("--base", type=int, default=1000, help="hunks/2 at 1x (default 1000: 2,000 hunks)")
    ap.add_argument("--scales", default="1,4,16")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--states", default="fresh,re-applied",
                    help="which runs: fresh, re-applied, or both (default)")
    ap.add_argument("--no-peers", action="store_true", help="time ours only (the peers' columns stay empty)")
    ap.add_argument("--cases", default="numbered,numberless,drifted,shared,backticks,codex,codex-same-anchor,sr-drift,long-lines,lenient,misnumbered,case-fix,lenient-deletions,ties",
                    help="default: every case but `similar` (minutes at 16x)")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    scratch = os.path.join(TARGET, "perf-inputs", "costs")
    os.makedirs(scratch, exist_ok=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()}, binary {binary}")
    print("| case | scale | hunks | file lines | state | ours | ours CPU | peak RSS | cp | git apply | GNU patch | ours / cp | ours / git apply | ours / patch |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    for case in args.cases.split(","):
        for k in [int(s) for s in args.scales.split(",")]:
            before, after, patch, hunks, n = make(case, k, args.base)
            pfile = os.path.join(scratch, f"{case}-{k}.diff")
            with open(pfile, "w") as f:
                f.write(patch)
            lenient = case in ("drifted", "lenient", "similar", "lenient-deletions")
            git = ["git", "apply"] + (["--ignore-whitespace"] if lenient else []) + [pfile]
            gnu = ["patch", "-p1", "-s", "-N", "--no-backup-if-mismatch", "-r", "-"] + (["-l"] if lenient else []) + ["-i", pfile]
            states = [("fresh", before, after), ("re-applied", after, after)]
            if case == "ties":
                # Nothing applies: re-applied is the fresh run again.
                states = states[:1]
            for state, start, want in [s for s in states if s[0] in args.states.split(",")]:
                ours = measure([binary, "-q", pfile], start, want, args.runs, scratch)
                peers = [] if args.no_peers else [measure(c, start, want, args.runs, scratch) for c in (git, gnu)]
                # The copy leaves f.rs as it was: its "result" is not checked.
                copy = None if args.no_peers else measure(["cp", "f.rs", "f.rs.copy"], start, start, args.runs, scratch)
                # Re-applied, a hunk with a context line written differently
                # is refused: its new side does not stand as written; a case
                # fix read with the tolerance that found it is two readings;
                # a tie is refused fresh.
                want_code = 1 if state == "re-applied" and case in ("similar", "case-fix") else 0
                if case == "ties":
                    want_code = 1
                if not ours[3] or ours[1] != want_code:
                    failed = True

                def cell(m):
                    note = "" if m[1] == 0 and m[3] else f" (exit {m[1]}{'' if m[3] else ', other result'})"
                    return f"{m[0]:.3f} s{note}"

                # A ratio only where the peer gave the same file (it applied).
                ratios = [f"{ours[0] / p[0]:.2f}" if p[0] > 0 and p[1] == 0 and p[3] else "" for p in peers] or ["", ""]
                cells = [cell(p) for p in peers] or ["", ""]
                cp_cell = f"{copy[0]:.3f} s" if copy else ""
                cp_ratio = f"{ours[0] / copy[0]:.1f}" if copy and copy[0] > 0 else ""
                print(f"| {case} | {k}x | {hunks:,} | {n:,} | {state} | {cell(ours)} | {ours[4]:.2f} s | {ours[2] / 1024:.0f} MiB "
                      f"| {cp_cell} | {cells[0]} | {cells[1]} | {cp_ratio} | {ratios[0]} | {ratios[1]} |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
