#!/usr/bin/env python3
"""The attack set: gpumeter's programs fed what an attacker would feed them, by class.

    attack.py --gpumeter PATH --bench PATH [--full] [--seed N] [--work DIR] [--classes LIST]

Classes (each case is one run of a program, with a time limit):
  records   mutated records (JSON edits and byte edits of the committed ones) through
            `gpumeter report`;
  writers   hostile texts (controls, zero-width and bidirectional marks, separators, formula
            leads, markup, a forged CI command) as names through every writer of the command:
            report (terminal, markdown, CSV), compare (the same three), history (HTML and JSON);
            each output parsed: CSV by a CSV reader, markdown tables by their cells, HTML by an
            HTML parser, JSON by a JSON parser;
  options   option fuzz over every subcommand and a benchmark program: each option of its --help
            with empty, hex, huge, negative, non-finite, control-laden and 120,000-byte values
            (the longest argument the kernel passes), and patterns of 90,000 to 120,000 bytes and
            60,000 nested groups;
  special   special files for history: --commits and records that are devices, FIFOs, folders,
            link loops and oversize files, and an --out that is taken.

Every case must end by itself (no hang), by an exit code (no signal), and say each thing it
refuses in one line: every line on stderr starts with the program's name (a message that spans
lines, a traceback or a raw control character is a failure). Prints one line per class and a
total; exits 1 on any failure. --full runs every combination (the benchmark, bench/hostile/);
without it, a fixed sample quick enough for CI.
"""
import argparse
import csv
import html.parser
import io
import json
import os
import random
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DATA = os.path.join(ROOT, "tests", "data")

# What no output may hold raw: C0 controls (a newline and a tab are a table's own), DEL, C1
# controls, zero-width and bidirectional marks, separators, the byte order mark.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                 "\u2060-\u2069\ufeff]")

HOSTILE = [
    "esc\x1b[31mred\x1b[0m", "clear\x1b[2J\x1b[H", "osc\x1b]8;;http://x\x07link", "nl\nline",
    "cr\rover", "tab\tcell", "bell\x07", "del\x7f", "csi\u009b31m", "zw\u200bsp", "zwj\u200d",
    "lrm\u200e", "rlm\u200f", "alm\u061c", "ls\u2028ps\u2029", "bom\ufeff", "rlo\u202egnp.exe",
    "iso\u2066x\u2069", "wj\u2060", "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)",
    "\uff1d1+1", "\uff0b1", "\uff201", "\ufe661", "<script>alert(1)</script>", "a|b|c",
    "`code` *em* _u_ [l](http://x) ![i](x)", "# head", "> quote", "1. item", "$x$", "&amp;",
    "]]><!--", "\"quoted\",comma", "dot\n::error title=forged::all benchmarks passed",
    "%0A::error::pct", "\u0301combining", "\U0001F600emoji",
]

# How each line of a program's stderr begins: its name (the benchmark program's own), or the
# pointer to its help after a usage error.
PREFIXES = ("gpumeter", "Run '", "usage:")


class Tally:
    def __init__(self):
        self.cases = 0
        self.signals = []
        self.hangs = []
        self.multiline = []
        self.wrong = []
        self.worst_s = 0.0
        self.worst_case = ""

    def failures(self):
        return self.signals + self.hangs + self.multiline + self.wrong

    def line(self, name):
        return (f"{name}: {self.cases} cases, {len(self.signals)} signals, {len(self.hangs)} "
                f"hangs, {len(self.multiline)} refusals of more than one line, "
                f"{len(self.wrong)} wrong outputs; slowest {self.worst_s:.2f} s "
                f"({self.worst_case[:60]!r})")


def show(args):
    text = " ".join(repr(a) if len(a) < 80 else repr(a[:40]) + f"...({len(a)} chars)"
                    for a in args)
    return text[:300]


def run(tally, args, timeout, cwd=None, stdin=subprocess.DEVNULL):
    """Runs one case; returns (code, stdout, stderr) or None after a hang."""
    tally.cases += 1
    start = time.monotonic()
    try:
        p = subprocess.run(args, stdin=stdin, capture_output=True, timeout=timeout, cwd=cwd,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        tally.hangs.append(show(args))
        return None
    except OSError as e:  # an argument the kernel refuses (E2BIG): not the program's doing
        tally.cases -= 1
        return ("oserror", e)
    took = time.monotonic() - start
    if took > tally.worst_s:
        tally.worst_s, tally.worst_case = took, show(args)
    if p.returncode < 0 or p.returncode >= 128:
        tally.signals.append(f"{show(args)}: signal {-p.returncode if p.returncode < 0 else p.returncode - 128}")
    err = p.stderr.decode("utf-8", "replace")
    prefixes = PREFIXES + (os.path.basename(args[0]) + ":",)
    for line in err.splitlines():
        if not line.startswith(prefixes) or RAW.search(line):
            tally.multiline.append(f"{show(args)}: stderr line {line[:120]!r}")
            break
    return p.returncode, p.stdout, err


# --- records -----------------------------------------------------------------------------------


def leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + (k,))
        yield path, node
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, path + (i,))
        yield path, node
    else:
        yield path, node


def set_at(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    if value is KeyError:
        del doc[path[-1]]
    else:
        doc[path[-1]] = value


def mutations(value, rng):
    if isinstance(value, bool):
        return [not value, None, 1, "true"]
    if isinstance(value, (int, float)):
        return [value * 1000, -value - 1, 1e308, 0, None, str(value), 2 ** 63, 0.5]
    if isinstance(value, str):
        return ["", None, value * 50, "\x1b[2J" + value, "9999-99-99T99:99:99Z", 12, value[::-1]]
    if isinstance(value, list):
        return [[], None, value + value[:1], value[:len(value) // 2], {}]
    return [{}, None, [], KeyError]


def attack_records(tally, gpumeter, work, rng, full):
    sources = [os.path.join(DATA, f) for f in sorted(os.listdir(DATA)) if f.endswith(".json")]
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus")
    sources += [os.path.join(corpus, f) for f in sorted(os.listdir(corpus))
                if f.endswith(".json")]
    per_source = 120 if full else 6
    folder = os.path.join(work, "records")
    os.makedirs(folder, exist_ok=True)
    for src in sources:
        text = open(src, encoding="utf-8").read()
        doc = json.loads(text)
        all_leaves = list(leaves(doc))
        for k in range(per_source):
            path = os.path.join(folder, f"{os.path.basename(src)}-{k}.json")
            if k % 4 == 3:  # a byte edit: cut, flipped, or a control inserted
                b = bytearray(text.encode("utf-8"))
                at = rng.randrange(len(b))
                kind = k // 4 % 3
                if kind == 0:
                    b = b[:at]
                elif kind == 1:
                    b[at] ^= 1 << rng.randrange(8)
                else:
                    b[at:at] = b"\x1b"
                open(path, "wb").write(bytes(b))
            else:
                mutated = json.loads(text)
                where, value = all_leaves[rng.randrange(len(all_leaves))]
                if not where:
                    continue
                choice = rng.choice(mutations(value, rng))
                set_at(mutated, where, choice)
                open(path, "w", encoding="utf-8").write(json.dumps(mutated))
            r = run(tally, [gpumeter, "report", path], 30)
            if r is not None and r[0] not in (0, 1, 2):
                tally.wrong.append(f"report of a mutated record: exit {r[0]}")
            os.remove(path)


# --- writers -----------------------------------------------------------------------------------


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "img", "object", "embed", "form", "base"):
            self.bad.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                self.bad.append(f"{tag} {name}")


def unescaped_pipes(line):
    return len(re.findall(r"(?<!\\)\|", line))


def check_markdown(text, where, tally):
    widths = None
    for line in text.splitlines():
        if line.startswith("|"):
            n = unescaped_pipes(line)
            if widths is None:
                widths = n
            elif n != widths:
                tally.wrong.append(f"{where}: a markdown row of {n} cells' edges, the header's "
                                   f"{widths}: {line[:120]!r}")
                return
        else:
            widths = None


LEADS = ("=", "+", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20", "\ufe66", "\ufe62", "\ufe63",
         "\ufe6b")


def check_csv(text, where, tally):
    width = None
    for row in csv.reader(io.StringIO(text)):
        if not row:
            width = None
            continue
        if width is None:
            width = len(row)
        elif len(row) != width:
            tally.wrong.append(f"{where}: a CSV row of {len(row)} cells, the header's {width}")
            return
        for cell in row:
            if cell.startswith(LEADS) or (cell.startswith("-") and not re.match(r"-[\d.]", cell)):
                tally.wrong.append(f"{where}: a CSV cell starts a formula: {cell[:60]!r}")
                return


def check_text(text, where, tally):
    if RAW.search(text):
        m = RAW.search(text)
        tally.wrong.append(f"{where}: a raw {m.group()!r} in the output")


def renamed(src, old, new, run_id, dst, commit=None):
    doc = json.load(open(src, encoding="utf-8"))

    def walk(node):
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, str):
            return node.replace(old, new)
        return node
    doc = walk(doc)
    doc["run_id"] = run_id
    if commit is not None:
        doc["project_commit"] = commit
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def attack_writers(tally, gpumeter, work, full):
    texts = HOSTILE if full else HOSTILE[:: 3] + [HOSTILE[-4]]
    for k, name in enumerate(texts):
        where = f"name {name!r}"
        folder = os.path.join(work, f"writers-{k}")
        os.makedirs(os.path.join(folder, "records"), exist_ok=True)
        a = os.path.join(folder, "records", "a.json")
        b = os.path.join(folder, "records", "b.json")
        renamed(os.path.join(DATA, "host_example_a.json"), "four-chains", name,
                f"20261201T000000Z-{k}-0000000a", a, "a" * 40)
        renamed(os.path.join(DATA, "host_example_b.json"), "four-chains", name,
                f"20261201T000000Z-{k}-0000000b", b, "b" * 40)
        r = run(tally, [gpumeter, "report", a], 30)
        if r is None:
            continue
        if r[0] != 0:
            # The reader may refuse a name (one line, checked by run): nothing is written then.
            continue
        check_text(r[1].decode(), where + " report", tally)
        for fmt, check in (("--md", check_markdown), ("--csv", check_csv)):
            r = run(tally, [gpumeter, "report", fmt, a], 30)
            if r is not None and r[0] == 0:
                out = r[1].decode()
                check_text(out, f"{where} report {fmt}", tally)
                check(out, f"{where} report {fmt}", tally)
        for fmt in ([], ["--md"], ["--csv"]):
            r = run(tally, [gpumeter, "compare", *fmt, a, b], 30)
            if r is not None and r[0] in (0, 1):
                out = r[1].decode()
                check_text(out, f"{where} compare {fmt}", tally)
                if fmt == ["--md"]:
                    check_markdown(out, f"{where} compare --md", tally)
                if fmt == ["--csv"]:
                    check_csv(out, f"{where} compare --csv", tally)
        site = os.path.join(folder, "site")
        r = run(tally, [gpumeter, "history", os.path.join(folder, "records"), "--out", site], 60)
        if r is None or r[0] != 0:
            continue
        for page in os.listdir(site):
            text = open(os.path.join(site, page), encoding="utf-8").read()
            check_text(text, f"{where} history {page}", tally)
            if page.endswith(".html"):
                tags = Tags()
                tags.feed(text)
                if tags.bad:
                    tally.wrong.append(f"{where} history {page}: {tags.bad[:3]}")
            if page.endswith(".json"):
                j = json.loads(text)
                for move in j["regressions"] + j["improvements"]:
                    if "\n" in move["github_annotation"] or "\r" in move["github_annotation"]:
                        tally.wrong.append(f"{where}: an annotation spans lines")
        shutil.rmtree(folder)


# --- options -----------------------------------------------------------------------------------


def options_of(program, prefix):
    """The options a --help lists: (name, takes a value)."""
    p = subprocess.run(program + prefix + ["--help"], capture_output=True, text=True, timeout=30)
    found = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s+(?:-\w,)?(--[\w-]+)(?:,--[\w-]+)?(\s+\S+)?", line)
        if m and m.group(1) not in ("--help", "--version", "--help-all"):
            takes = bool(m.group(2)) and not m.group(2).strip().startswith(("Print", "Display"))
            found.append((m.group(1), takes))
    return found


def fuzz_values(full):
    # One argument is at most 128 KiB (the kernel's MAX_ARG_STRLEN): the longest that reaches a
    # program. The core's own test reads a megabyte and 100,000 nested groups (test_pattern.cpp).
    long = "a" * 120000
    nested = "(" * 60000 + "a" + ")" * 60000
    values = ["", "0x10", "1e300", "-1", "\x1b[2J", "a\nb", long, nested]
    if full:
        values += ["nan", "inf", " 5", "5 ", "1e-400", "9" * 400, "\uff15", "0", "-0", "+", "1,2",
                   "..", "/dev/zero", "(" * 20000 + ")" * 20000, "[" * 5000, "a{1000}{1000}",
                   "(a*)*b" + "a" * 5000, "\\", "*", "(?=x)"]
    return values


def attack_options(tally, gpumeter, bench, work, full):
    record = os.path.join(DATA, "host_example_a.json")
    other = os.path.join(DATA, "host_example_b.json")
    positional = {
        "report": [record], "compare": [record, other], "merge": [record, other],
        "plot": [record], "history": [DATA], "env": [], "lock": ["--", "true"],
        "run": ["--", "true"], "evaluate": [],
    }
    values = fuzz_values(full)
    helps = subprocess.run([gpumeter, "--help"], capture_output=True, text=True).stdout
    subcommands = re.findall(r"^  ([a-z]+)\s", helps, re.M)
    for sub in subcommands:
        for option, takes in options_of([gpumeter], [sub]):
            for value in (values if takes else [None]):
                args = [gpumeter, sub]
                if value is not None:
                    args += [option, value]
                else:
                    args += [option]
                if sub == "history" or (sub in ("plot", "merge") and option not in ("--out", "-o")):
                    out_flag = {"history": "--out", "plot": "--out", "merge": "-o"}[sub]
                    if option != out_flag:
                        args += [out_flag, os.path.join(work, f"out-{tally.cases}")]
                args += positional.get(sub, [])
                r = run(tally, args, 60 if sub in ("history", "plot", "evaluate") else 20,
                        cwd=work)
                if r is not None and r[0] == "oserror":
                    continue
        shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
    # A benchmark program: every option, then --filter patterns alone with --list.
    for option, takes in options_of([bench], []):
        if option.startswith("--gpumeter-"):
            continue
        for value in (values if takes else [None]):
            args = [bench, "--list", option] + ([value] if value is not None else [])
            r = run(tally, args, 20, cwd=work)
            if r is not None and r[0] == "oserror":
                continue
    for pattern in ["a" * 120000, "(" * 60000 + "a" + ")" * 60000, "a" * 90000,
                    "(" * 20000 + ")" * 20000]:
        r = run(tally, [bench, "--list", "--filter", pattern], 20, cwd=work)
        if r is not None and r[0] != 2:
            tally.wrong.append(f"--filter of {len(pattern)} chars: exit {r[0]}, expected 2")
    # The thresholds and empty values the issue names, refused by value or by name.
    for args in ([gpumeter, "compare", "--fail-on-regression", "1e300", record, other],
                 [gpumeter, "compare", "--fail-on-regression", "0x10", record, other],
                 [bench, "--list", "--precision", ""]):
        r = run(tally, args, 20, cwd=work)
        if r is not None and r[0] != 2:
            tally.wrong.append(f"{show(args)}: exit {r[0]}, expected 2")


# --- special files -----------------------------------------------------------------------------


def attack_special(tally, gpumeter, work):
    records = os.path.join(work, "special-records")
    os.makedirs(records)
    for k, src in enumerate(("host_example_a.json", "host_example_b.json")):
        renamed(os.path.join(DATA, src), "\0", "\0", f"20261201T000000Z-9-0000000{k}",
                os.path.join(records, src), "ab"[k] * 40)
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    os.mkfifo(os.path.join(records, "fifo.json"))
    os.symlink("/dev/zero", os.path.join(records, "zero.json"))
    os.symlink("loop-b.json", os.path.join(records, "loop-a.json"))
    os.symlink("loop-a.json", os.path.join(records, "loop-b.json"))
    os.makedirs(os.path.join(records, "dir.json"))
    os.symlink("..", os.path.join(records, "up"))  # a folder link back up: not followed
    big = os.path.join(work, "big.txt")
    with open(big, "wb") as f:
        f.truncate(80 << 20)  # sparse: 80 MiB of zeros, no disk
    secret = os.path.join(records, "unreadable.json")
    open(secret, "w").write("{}")
    os.chmod(secret, 0)
    n = 0
    for commits in [None, "/dev/zero", fifo, records, big, "/nonexistent", "/dev/null",
                    os.path.join(records, "loop-a.json")]:
        n += 1
        args = [gpumeter, "history", records, "--out", os.path.join(work, f"special-site-{n}")]
        if commits is not None:
            args += ["--commits", commits]
        r = run(tally, args, 60)
        if r is None:
            continue
        if commits is not None and r[0] != 2:
            tally.wrong.append(f"history --commits {commits}: exit {r[0]}, expected 2")
        if commits is None and r[0] != 0:
            tally.wrong.append(f"history over special files: exit {r[0]}, expected 0")
    taken = os.path.join(work, "taken")
    open(taken, "w").write("x")
    for out in [taken, "/dev/null", records]:
        r = run(tally, [gpumeter, "history", records, "--out", out], 60)
        if r is not None and (r[0] != 2 or "left out" in r[2]):
            tally.wrong.append(f"history --out {out}: exit {r[0]}, or records read first")
    os.chmod(secret, stat.S_IRUSR | stat.S_IWUSR)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpumeter", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--seed", type=int, default=52)
    ap.add_argument("--work")
    ap.add_argument("--classes", default="records,writers,options,special")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="gpumeter-attack-")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(a.seed)
    failed = False
    total = Tally()
    start = time.monotonic()
    for name in a.classes.split(","):
        tally = Tally()
        if name == "records":
            attack_records(tally, a.gpumeter, work, rng, a.full)
        elif name == "writers":
            attack_writers(tally, a.gpumeter, work, a.full)
        elif name == "options":
            attack_options(tally, a.gpumeter, a.bench, work, a.full)
        elif name == "special":
            attack_special(tally, a.gpumeter, work)
        else:
            sys.exit(f"attack.py: unknown class {name!r}")
        print(tally.line(name), flush=True)
        for f in tally.failures()[:20]:
            print("  FAIL " + f, flush=True)
        failed = failed or bool(tally.failures())
        for field in ("signals", "hangs", "multiline", "wrong"):
            getattr(total, field).extend(getattr(tally, field))
        total.cases += tally.cases
        if tally.worst_s > total.worst_s:
            total.worst_s, total.worst_case = tally.worst_s, tally.worst_case
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(total.line("total") + f"; {time.monotonic() - start:.0f} s in all; the largest child's "
          f"peak memory {peak / 1024:.0f} MB")
    if not a.work:
        subprocess.run(["chmod", "-R", "u+rwX", work])
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
