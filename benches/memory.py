#!/usr/bin/env python3
"""Peak memory against the size of the file (issue 18, "nothing lost,
nothing stuck, linear cost"): a small patch (one hunk, or 50) applied to
one file of 1x, 4x and 16x the base size, numbered (`diff -U3` headers) and
numberless (bare `@@`), to the working tree only and with `--index`, with
`cp`, `git apply` and GNU `patch` measured in the same run on the same
inputs. Targets of 4 MiB and more are memory-mapped, so every size here
takes that path.

Peak RSS is `/usr/bin/time -f %M` (the largest resident set: heap, stack,
and the pages of a mapped file that the process touched). Each cell is the
largest of `--runs` runs (the peak barely moves between runs); the time
beside ours is the best of them.

Every result is checked: ours must give the expected file (with `--index`,
the index must hold it too: `git diff --quiet`); a peer's cell is marked
when it exits nonzero or gives another file (`git apply` and GNU `patch`
cannot place bare `@@` hunks). `--digests FILE` writes the SHA-256 of each
of our results, so that two builds' outputs can be compared byte for byte.

`--before PATH` measures a second build of ours in the same run (its peak
and ours against it), and checks that both give the same bytes.

`--new-file MIB` measures instead a patch that creates a file of about
`MIB` MiB (`--- /dev/null`, one hunk of added lines): what writing a fresh
large file costs, against `cp` of that file, `git apply` and GNU `patch`.
Many hunks on one file: `--hunks 10000` (the 1x file then has about 8
lines per hunk).

Usage: benches/memory.py [--bin PATH] [--before PATH] [--mib 5]
                         [--scales 1,4,16] [--hunks 1,50] [--runs 2]
                         [--digests FILE] [--new-file MIB]
Inputs and scratch copies go to <target>/perf-inputs/memory/.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))


def line(i):
    return f"    let value_{i} = compute_{i % 7}(input, {i}); // step {i % 13}\n"


def make_file(mib):
    """The lines of a file of about `mib` MiB."""
    lines, size, i = [], 0, 0
    while size < mib * 1048576:
        text = line(i)
        lines.append(text)
        size += len(text)
        i += 1
    return lines


def make_patch(before, hunks, numbered):
    """(patch, after) editing `hunks` lines spread evenly over the file."""
    n = len(before)
    step = n // hunks
    targets = [step * h + step // 2 for h in range(hunks)]
    after = list(before)
    out = ["--- a/f.rs\n", "+++ b/f.rs\n"]
    for t in targets:
        after[t] = before[t].replace(", ", ",  ", 1).replace(");", ") + 1;", 1)
        lo, hi = max(0, t - 3), min(n, t + 4)
        out.append(f"@@ -{lo + 1},{hi - lo} +{lo + 1},{hi - lo} @@\n" if numbered else "@@\n")
        for j in range(lo, hi):
            if j == t:
                out += ["-" + before[j], "+" + after[j]]
            else:
                out.append(" " + before[j])
    return "".join(out), after


def peak(cmd, cwd):
    """(peak RSS in KiB, seconds, exit code) of one run."""
    stats = os.path.join(cwd, "..", "time.out")
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%M"] + cmd, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - start
    with open(stats) as f:
        rss = int(f.read().split()[-1])
    return rss, took, proc.returncode


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def measure(cmd, template, want, runs, scratch, index=False, result="f.rs"):
    """Largest peak RSS, best time, exit code, whether the file `result` is
    `want` (and, with `index`, staged), and the result's digest."""
    samples = []
    for _ in range(runs):
        d = tempfile.mkdtemp(dir=scratch)
        root = os.path.join(d, "tree")
        subprocess.run(["cp", "-a", template, root], check=True)
        # The copy's files have new inodes: refreshed, the index matches
        # them again (`git apply --index` checks the stat data).
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, stdout=subprocess.DEVNULL)
        rss, took, code = peak(cmd, root)
        path = os.path.join(root, result)
        got = digest(path) if os.path.exists(path) else ""
        ok = got == want
        if ok and index:
            ok = subprocess.run(["git", "diff", "--quiet"], cwd=root).returncode == 0 and \
                subprocess.run(["git", "diff", "--cached", "--quiet"], cwd=root).returncode == 1
        samples.append((rss, took, code, ok, got))
        shutil.rmtree(d)
    return (max(s[0] for s in samples), min(s[1] for s in samples), samples[0][2],
            all(s[3] for s in samples), samples[0][4])


def cell(m):
    """A peak RSS cell, with what went wrong."""
    if m is None:
        return ""
    note = "" if m[2] == 0 and m[3] else f" (exit {m[2]}{'' if m[3] else ', other result'})"
    return f"{m[0] / 1024:.1f} MiB{note}"


def ratio(ours, m):
    """Our peak over `m`'s, when `m` gave the expected result."""
    return f"{ours[0] / m[0]:.2f}" if m and m[0] > 0 and m[2] == 0 and m[3] else ""


def new_file(args, binary, scratch):
    """A patch creating one file of `args.new_file` MiB; returns failure."""
    lines = make_file(args.new_file)
    template = os.path.join(scratch, "repo-empty")
    if not os.path.isdir(template):
        os.makedirs(template)
        subprocess.run(["git", "init", "-q", template], check=True)
        with open(os.path.join(template, "f.rs"), "w") as f:
            f.write("fn main() {}\n")
        subprocess.run(["git", "add", "f.rs"], cwd=template, check=True)
        subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
                       cwd=template, check=True)
    pfile = os.path.join(scratch, f"new-{args.new_file}.diff")
    with open(pfile, "w") as f:
        f.write(f"--- /dev/null\n+++ b/g.rs\n@@ -0,0 +1,{len(lines)} @@\n")
        for text in lines:
            f.write("+" + text)
    content = os.path.join(scratch, f"new-{args.new_file}.rs")
    with open(content, "w") as f:
        f.write("".join(lines))
    want = digest(content)
    copy = measure(["cp", content, "g.rs"], template, want, args.runs, scratch, result="g.rs")
    print(f"| file | mode | ours RSS | ours time | cp | git apply | GNU patch | ours / cp | ours / git apply "
          "| ours / patch |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    for mode in ("worktree", "index"):
        flags = ["--index"] if mode == "index" else []
        ours = measure([binary, "-q"] + flags + [pfile], template, want, args.runs, scratch,
                       index=mode == "index", result="g.rs")
        git = measure(["git", "apply"] + flags + [pfile], template, want, args.runs, scratch,
                      index=mode == "index", result="g.rs")
        gnu = None
        if mode == "worktree":
            gnu = measure(["patch", "-p1", "-s", "-N", "--no-backup-if-mismatch", "-r", "-", "-i", pfile],
                          template, want, args.runs, scratch, result="g.rs")
        failed = failed or ours[2] != 0 or not ours[3]
        print(f"| new {args.new_file} MiB | {mode} | {cell(ours)} | {ours[1]:.3f} s | {cell(copy)} | {cell(git)} "
              f"| {cell(gnu)} | {ratio(ours, copy)} | {ratio(ours, git)} | {ratio(ours, gnu)} |", flush=True)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(TARGET, "release", "git-fuzzy-apply"))
    ap.add_argument("--before", help="another build of ours, measured beside it")
    ap.add_argument("--mib", type=int, default=5, help="file size at 1x in MiB (default 5)")
    ap.add_argument("--scales", default="1,4,16")
    ap.add_argument("--hunks", default="1,50")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--digests", help="write the SHA-256 of each of our results here")
    ap.add_argument("--new-file", type=int, help="measure a patch creating a file of this many MiB")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    scratch = os.path.join(TARGET, "perf-inputs", "memory")
    os.makedirs(scratch, exist_ok=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()}, binary {binary}")
    if args.new_file:
        sys.exit(1 if new_file(args, binary, scratch) else 0)
    before_cols = ("| before | ours / before " if args.before else "")
    print(f"| file | hunks | headers | mode {before_cols}| ours RSS | ours time | cp | git apply | GNU patch "
          "| ours / cp | ours / git apply | ours / patch |")
    print("| ---: | ---: | --- | --- | " + ("---: | ---: | " if args.before else "")
          + "---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    digests = []
    failed = False
    for k in [int(s) for s in args.scales.split(",")]:
        mib = args.mib * k
        before = make_file(mib)
        template = os.path.join(scratch, f"repo-{mib}")
        if not os.path.isdir(template):
            os.makedirs(template)
            subprocess.run(["git", "init", "-q", template], check=True)
            with open(os.path.join(template, "f.rs"), "w") as f:
                f.write("".join(before))
            subprocess.run(["git", "add", "f.rs"], cwd=template, check=True)
            subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
                           cwd=template, check=True)
        copy = measure(["cp", "f.rs", "f.rs.copy"], template, digest(os.path.join(template, "f.rs")),
                       args.runs, scratch)
        for hunks in [int(s) for s in args.hunks.split(",")]:
            for numbered in (True, False):
                patch, after = make_patch(before, hunks, numbered)
                pfile = os.path.join(scratch, f"p-{mib}-{hunks}-{int(numbered)}.diff")
                with open(pfile, "w") as f:
                    f.write(patch)
                want = hashlib.sha256("".join(after).encode()).hexdigest()
                for mode in ("worktree", "index"):
                    flags = ["--index"] if mode == "index" else []
                    ours = measure([binary, "-q"] + flags + [pfile], template, want, args.runs, scratch,
                                   index=mode == "index")
                    old = None
                    if args.before:
                        old = measure([os.path.abspath(args.before), "-q"] + flags + [pfile], template, want,
                                      args.runs, scratch, index=mode == "index")
                        if old[4] != ours[4]:
                            failed = True
                    git = measure(["git", "apply"] + flags + [pfile], template, want, args.runs, scratch,
                                  index=mode == "index")
                    gnu = None
                    if mode == "worktree":
                        gnu = measure(["patch", "-p1", "-s", "-N", "--no-backup-if-mismatch", "-r", "-",
                                       "-i", pfile], template, want, args.runs, scratch)
                    if ours[2] != 0 or not ours[3]:
                        failed = True
                    digests.append(f"{mib} {hunks} {'numbered' if numbered else 'numberless'} {mode} {ours[4]}")

                    versus = f"| {cell(old)} | {ratio(ours, old)} " if old else ""
                    print(f"| {mib} MiB | {hunks} | {'numbered' if numbered else 'numberless'} | {mode} "
                          f"{versus}| {cell(ours)} | {ours[1]:.3f} s | {cell(copy)} | {cell(git)} | {cell(gnu)} "
                          f"| {ratio(ours, copy)} | {ratio(ours, git)} | {ratio(ours, gnu)} |", flush=True)
    if args.digests:
        with open(args.digests, "w") as f:
            f.write("\n".join(digests) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
