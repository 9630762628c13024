#!/usr/bin/env python3
# Used to cut the fixtures/adv-* folders from the bench's --dump output; GFA_BIN
# names the binary that must still get the case wrong.
"""Cut a fixture folder from an accuracy --dump case.

usage: benches/accuracy/cut_fixture.py DUMPCASE FIXTURE (--error CODE | --after) [--keep-distances] [--about TEXT]

Removes file lines the case does not need (never lines that look like patch
lines, nor lines within 4 of them), shifting the patch's numbers, as long as
the binary still gets the case wrong the same way; --keep-distances only
trims the top and bottom (hints and twins keep their distances).
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.environ.get("GFA_BIN", "target/release/git-fuzzy-apply")

args = sys.argv[1:]
src, dst = args[0], args[1]
mode_error = None
keep = "--keep-distances" in args
about = None
if "--error" in args:
    mode_error = args[args.index("--error") + 1]
if "--about" in args:
    about = args[args.index("--about") + 1]

path = open(os.path.join(src, "path")).read().strip()
before = open(os.path.join(src, "before", path), encoding="utf-8").read().split("\n")[:-1]
patch = open(os.path.join(src, "patch"), encoding="utf-8").read()
exp_raw = open(os.path.join(src, "expected"), encoding="utf-8").read()
expectation = open(os.path.join(src, "expectation")).read().strip()
refuse_case = exp_raw == "REFUSE\n"
expected = None if refuse_case else exp_raw.split("\n")[:-1]
extra = []
if os.path.exists(os.path.join(src, "args")):
    extra = [l for l in open(os.path.join(src, "args")).read().split("\n") if l]
reverse = "-R" in extra
noop_wrong = any(k in src for k in ("u0-insert-equal", "case-fix-stale", "stale-new-lines"))
fmt = "unified" if re.search(r"^--- ", patch, re.M) else ("sr" if "<<<<<<< SEARCH" in patch else "other")

# before index -> expected index for unchanged lines
pair = {}
if expected is not None:
    sm = difflib.SequenceMatcher(None, before, expected, autojunk=False)
    for a, b, n in sm.get_matching_blocks():
        for k in range(n):
            pair[a + k] = b + k

# protected lines
texts = set()
for l in patch.split("\n"):
    for t in (l, l[1:], l[3:] if l.startswith("@@ ") else l):
        t = t.strip()
        if len(t) >= 4:
            texts.add(t)
prot = set()
for i, l in enumerate(before):
    if l.strip() in texts:
        for k in range(i - 4, i + 5):
            prot.add(k)
if expected is not None:
    # lines around the changes too
    sm = difflib.SequenceMatcher(None, before, expected, autojunk=False)
    for tag, a1, a2, b1, b2 in sm.get_opcodes():
        if tag != "equal":
            for k in range(a1 - 4, a2 + 5):
                prot.add(k)
if keep:
    # Hints keep their distances: nothing between any hint and any
    # protected line is removed, only the top and the bottom.
    marks = set(i for i in prot if 0 <= i < len(before))
    for line in patch.split("\n"):
        m = re.match(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", line) if fmt == "unified" else None
        if m:
            marks.add(int(m.group(2) if reverse else m.group(1)) - 1)
        m = re.match(r"^:start_line:(\d+)$", line.strip()) if fmt == "sr" else None
        if m:
            marks.add(int(m.group(1)) - 1)
    if marks:
        for k in range(max(0, min(marks)), max(marks) + 1):
            prot.add(k)
removable = [i for i in range(len(before)) if i not in prot and (expected is None or i in pair)]


def shift_patch(removed):
    rb = sorted(removed)
    re_ = sorted(pair[i] for i in removed) if expected is not None else rb

    def count_before(lst, idx):
        import bisect
        return bisect.bisect_left(lst, idx)

    out = []
    for line in patch.split("\n"):
        m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$", line) if fmt == "unified" else None
        if m:
            a, b, c, d, tail = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
            a, c = int(a), int(c)
            bn = 1 if b is None else int(b)
            dn = 1 if d is None else int(d)
            ia = a if bn == 0 else a - 1
            ic = c if dn == 0 else c - 1
            la, lc = (re_, rb) if reverse else (rb, re_)
            a2 = a - count_before(la, ia)
            c2 = c - count_before(lc, ic)
            if a2 < (0 if bn == 0 else 1) or c2 < (0 if dn == 0 else 1):
                return None
            bs = "" if b is None else "," + b
            ds = "" if d is None else "," + d
            out.append(f"@@ -{a2}{bs} +{c2}{ds} @@{tail}")
            continue
        m = re.match(r"^:start_line:(\d+)$", line.strip()) if fmt == "sr" else None
        if m:
            n = int(m.group(1))
            n2 = n - count_before(rb, n - 1)
            if n2 < 1:
                return None
            out.append(f":start_line:{n2}")
            continue
        out.append(line)
    return "\n".join(out)


def run(blines, ptext):
    with tempfile.TemporaryDirectory() as d:
        repo = os.path.join(d, "repo")
        f = os.path.join(repo, path)
        os.makedirs(os.path.dirname(f), exist_ok=True)
        open(f, "w", encoding="utf-8").write("".join(l + "\n" for l in blines))
        p = os.path.join(d, "patch")
        open(p, "w", encoding="utf-8").write(ptext)
        r = subprocess.run([BIN, "-q", *extra, p], cwd=repo, capture_output=True)
        out = open(f, encoding="utf-8", errors="replace").read().split("\n")[:-1]
        return r.returncode, out, r.stderr.decode(errors="replace")


def state(removed):
    b = [l for i, l in enumerate(before) if i not in removed]
    e = None
    if expected is not None:
        gone = {pair[i] for i in removed}
        e = [l for j, l in enumerate(expected) if j not in gone]
    return b, e


def wrong(removed):
    p = shift_patch(removed)
    if p is None:
        return False
    b, e = state(removed)
    code, out, _ = run(b, p)
    if code != 0:
        return False
    if refuse_case:
        return out != b or noop_wrong
    if out == e:
        return False
    if out == b and not noop_wrong and e != b:
        return False
    return True


assert wrong(set()), "the case is not wrong on this binary"
removed = set()
rem_set = set(removable)
# prefix and suffix
pre = []
for i in range(len(before)):
    if i in rem_set:
        pre.append(i)
    else:
        break
suf = []
for i in range(len(before) - 1, -1, -1):
    if i in rem_set:
        suf.append(i)
    else:
        break


def try_run(run_list):
    """Greedily removes as much of run_list (a contiguous list) as keeps it wrong."""
    global removed
    if not run_list:
        return
    trial = removed | set(run_list)
    if wrong(trial):
        removed = trial
        return
    if len(run_list) <= 2:
        return
    h = len(run_list) // 2
    try_run(run_list[:h])
    try_run(run_list[h:])


try_run(pre)
try_run(suf)
if not keep:
    runs, cur = [], []
    for i in removable:
        if cur and i != cur[-1] + 1:
            runs.append(cur)
            cur = []
        cur.append(i)
    if cur:
        runs.append(cur)
    for r in runs:
        try_run([i for i in r if i not in removed])

b, e = state(removed)
p = shift_patch(removed)
code, out, err = run(b, p)
shutil.rmtree(dst, ignore_errors=True)
os.makedirs(os.path.join(dst, "before", os.path.dirname(path)), exist_ok=True)
open(os.path.join(dst, "before", path), "w", encoding="utf-8").write("".join(l + "\n" for l in b))
open(os.path.join(dst, "patch"), "w", encoding="utf-8").write(p)
if extra:
    open(os.path.join(dst, "args"), "w").write("".join(a + "\n" for a in extra))
if mode_error:
    open(os.path.join(dst, "expected-error"), "w").write(mode_error + "\n")
else:
    assert e is not None
    os.makedirs(os.path.join(dst, "after", os.path.dirname(path)), exist_ok=True)
    open(os.path.join(dst, "after", path), "w", encoding="utf-8").write("".join(l + "\n" for l in e))
if about:
    open(os.path.join(dst, "about"), "w").write(about.strip() + "\n")
print(f"{dst}: {len(before)} -> {len(b)} lines; today: exit {code}, stderr {err.strip()[:200]!r}")
if code == 0:
    diff = difflib.unified_diff(b, out, "before", "today", lineterm="", n=1)
    print("\n".join(list(diff)[:30]))
