#!/usr/bin/env python3
"""quietpoll's mutation testing: small source changes of the kind a careless
fix makes, each built once and judged by the project's own checks.

Operators (in the spirit of mull's and universalmutator's), applied inside
function bodies only, never in comments, strings, preprocessor lines or
assert() arguments (an assertion is the program's own check, not the suite's):
  rel      a relational operator flipped at its boundary: < <=, > >=, == !=
  logic    && and || swapped
  const    an integer constant moved by one (n+1, and n-1 when n > 0)
  call     a statement that is a single call dropped
  cond     the condition of an if or a while negated
  return   a return inserted at the top of a function (the zero of its type)

Each mutant is compiled alone (the one object, with the build's own flags
from compile_commands.json) and linked into a copy of the quietpoll program
ahead of libquietpoll.a, so the archive's original object is never pulled in.
Judges:
  machine files (src/machines/<m>.c for each model machine <m> the program
    lists): `quietpoll prop --machine <m> --variant <ref>` for each reference
    variant, then `quietpoll prop --machine <m>`: every catalogued variant
    still fires what it is expected to, and nothing else;
  sim files (every .c of src/sim/ the build compiles): `quietpoll conform`,
    then `quietpoll prop` over every machine. A sim mutant does not change
    what Linux does: the kernel's side of every scenario is recorded once per
    run, by the unmutated program (`quietpoll conform --host-results`), and
    each mutant's sim is compared with it (`quietpoll conform --against`):
    killed still means some scenario's sim result differs from Linux's, and
    no mutant is killed, or spared, by the host's timing on a loaded machine
    (`--host live` runs both sides for every mutant, as before).
A mutant that does not compile is stillborn and counted apart.
A machine file's survivor is judged once more, by the same checks, in a
build with ASan and UBSan (--sanitized DIR, ci/mutate's build-mutate-san/):
a read past an array that the plain build lets through aborts there, the
failure a sanitizer build of the project shows. Only survivors: a mutant the
plain build kills is killed whatever the sanitizers say, so the score is that
of judging every mutant in the sanitizer build, at a fraction of its cost.
The sim's survivors are not: their checks (conform, then prop over every
machine, the real libraries' included) take several times as long under the
sanitizers, per survivor (the README has the figures).
ci/mutants-equivalent.tsv lists, each with its reason, the equivalent
mutants (run, and reported if a check kills one) and the excluded ones (not
the code under test: not built); neither counts in the score, killed /
(killed + survived).
"""
import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# ---------------------------------------------------------------- lexing

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fFlL]?|\d+[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=]=?|\.\.\.|[()\[\]{};,.?:#])
""", re.S | re.X)


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line")

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = kind, text, start, end, line


def lex(src):
    """Tokens of src, without whitespace, comments and preprocessor lines."""
    toks = []
    pos, line, bol = 0, 1, True
    n = len(src)
    while pos < n:
        if bol:
            m = re.match(r"[ \t]*#", src[pos:pos + 200])
            if m:  # a preprocessor line, with its continuations
                end = pos
                while True:
                    nl = src.find("\n", end)
                    if nl < 0:
                        end = n
                        break
                    if src[nl - 1] != "\\":
                        end = nl
                        break
                    end = nl + 1
                line += src.count("\n", pos, end)
                pos = end
                continue
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise SystemExit("mutate: cannot lex at line %d: %r" % (line, src[pos:pos + 20]))
        kind = m.lastgroup
        text = m.group()
        if kind not in ("ws", "comment"):
            toks.append(Tok(kind, text, pos, m.end(), line))
            bol = False
        elif kind == "ws" and "\n" in text:
            bol = True
        line += text.count("\n")
        pos = m.end()
    return toks


def open_paren_of(toks, k):
    """Index of the ( that the ) at toks[k] closes, or -1."""
    depth = 0
    for j in range(k, -1, -1):
        if toks[j].text == ")":
            depth += 1
        elif toks[j].text == "(":
            depth -= 1
            if depth == 0:
                return j
    return -1


def match_paren(toks, i):
    """Index of the bracket closing toks[i]."""
    opening = toks[i].text
    closing = {"(": ")", "[": "]", "{": "}"}[opening]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == opening:
            depth += 1
        elif toks[j].text == closing:
            depth -= 1
            if depth == 0:
                return j
    raise SystemExit("mutate: unbalanced %s at line %d" % (opening, toks[i].line))


# ---------------------------------------------------------------- functions

INT_TYPES = {"int", "unsigned", "long", "short", "char", "size_t", "ssize_t", "off_t",
             "nfds_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t",
             "int32_t", "int64_t", "enum", "signed"}


def zero_of(type_toks):
    """The return statement of a function returning type_toks, or None."""
    texts = [t.text for t in type_toks if t.text not in ("static", "inline", "const", "extern")]
    if not texts:
        return None
    if "*" in texts:
        return "return NULL;"
    if texts == ["void"]:
        return "return;"
    if texts == ["bool"]:
        return "return false;"
    if texts[0] in INT_TYPES:
        return "return 0;"
    return None


def functions(toks):
    """(name, type tokens, index of body's {, index of its }) of each definition."""
    out = []
    i, depth, stmt_start = 0, 0, 0
    while i < len(toks):
        t = toks[i]
        if depth == 0 and t.text == "{" and i > 0 and toks[i - 1].text == ")":
            # back to the ( of the parameter list, then the name
            j = open_paren_of(toks, i - 1)
            if j > 0 and toks[j - 1].kind == "ident":
                end = match_paren(toks, i)
                out.append((toks[j - 1].text, toks[stmt_start:j - 1], i, end))
                i = end + 1
                stmt_start = i
                continue
        if t.text in ("{", "(", "["):
            depth += 1
        elif t.text in ("}", ")", "]"):
            depth -= 1
        elif depth == 0 and t.text == ";":
            stmt_start = i + 1
        if depth == 0 and t.text == "}":
            stmt_start = i + 1
        i += 1
    return out


# ---------------------------------------------------------------- operators

REL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
LOGIC = {"&&": "||", "||": "&&"}


def int_value(text):
    body = text.rstrip("uUlL")
    if "." in body or "e" in body.lower() and not body.lower().startswith("0x"):
        return None
    try:
        return int(body, 0) if not re.match(r"0\d", body) else int(body, 8)
    except ValueError:
        return None


def assert_spans(toks, lo, hi):
    """Token index ranges inside assert(...) between lo and hi."""
    spans = []
    for i in range(lo, hi):
        if toks[i].text in ("assert", "_Static_assert", "static_assert") and \
                i + 1 < hi and toks[i + 1].text == "(":
            spans.append((i, match_paren(toks, i + 1)))
    return spans


def single_call_statement(toks, i, hi):
    """End index (the ;) when toks[i:] is `callee(...);` with callee a name or
    a chain of member accesses, else None."""
    j = i
    if toks[j].kind != "ident" or toks[j].text in ("return", "if", "while", "for", "switch",
                                                    "do", "else", "case", "goto", "break",
                                                    "continue", "sizeof", "default"):
        return None
    j += 1
    while j + 1 < hi and toks[j].text in ("->", ".") and toks[j + 1].kind == "ident":
        j += 2
    if j >= hi or toks[j].text != "(":
        return None
    close = match_paren(toks, j)
    if close + 1 < hi and toks[close + 1].text == ";":
        return close + 1
    return None


class Mutant:
    __slots__ = ("file", "func", "op", "line", "start", "end", "repl", "id", "desc")


def mutants_of(path, src):
    toks = lex(src)
    lines = src.split("\n")
    out = []
    seen = {}

    def add(func, op, tok_lo, tok_hi, repl, desc, line):
        m = Mutant()
        m.file, m.func, m.op, m.line = path, func, op, line
        m.start, m.end, m.repl, m.desc = toks[tok_lo].start, toks[tok_hi].end, repl, desc
        key = "\0".join([path, func, lines[line - 1].strip(), op, src[m.start:m.end], repl])
        k = seen.get(key, 0)
        seen[key] = k + 1
        m.id = hashlib.sha1((key + "\0%d" % k).encode()).hexdigest()[:10]
        out.append(m)

    for name, type_toks, lo, hi in functions(toks):
        skip = assert_spans(toks, lo, hi)

        def skipped(i):
            return any(a <= i <= b for a, b in skip)

        ret = zero_of(type_toks)
        if ret is not None:
            add(name, "return", lo, lo, "{ " + ret, "return at once: " + ret, toks[lo].line)
        for i in range(lo + 1, hi):
            t = toks[i]
            if skipped(i):
                continue
            if t.kind == "op" and t.text in REL:
                add(name, "rel", i, i, REL[t.text], "%s -> %s" % (t.text, REL[t.text]), t.line)
            elif t.kind == "op" and t.text in LOGIC:
                add(name, "logic", i, i, LOGIC[t.text], "%s -> %s" % (t.text, LOGIC[t.text]),
                    t.line)
            elif t.kind == "number":
                v = int_value(t.text)
                if v is None:
                    continue
                # a designator is the layout, not a value
                if toks[i - 1].text == "[" and toks[i + 1].text == "]" and toks[i + 2].text == "=":
                    continue
                # so is an array's size in a declaration (char buf[16])
                if toks[i - 1].text == "[" and toks[i - 2].kind == "ident" and \
                        toks[i - 3].kind == "ident" and \
                        toks[i - 3].text not in ("return", "case", "sizeof"):
                    continue
                for nv in ([v + 1, v - 1] if v > 0 else [v + 1]):
                    add(name, "const", i, i, str(nv), "%s -> %d" % (t.text, nv), t.line)
            elif t.kind == "ident" and t.text in ("if", "while") and toks[i + 1].text == "(":
                close = match_paren(toks, i + 1)
                if any(skipped(k) for k in range(i + 1, close)):
                    continue
                cond = " ".join(src[toks[i + 2].start:toks[close - 1].end].split())
                add(name, "cond", i + 1, close,
                    "(!(" + src[toks[i + 2].start:toks[close - 1].end] + "))",
                    "%s (%s) -> %s (!(...))" % (t.text, cond if len(cond) < 40 else cond[:37] +
                                                 "...", t.text), t.line)
            if toks[i - 1].text in (";", "{", "}", ":", "else") or (
                    toks[i - 1].text == ")" and is_header_close(toks, i - 1)):
                end = single_call_statement(toks, i, hi)
                if end is not None and toks[i].text != "assert":
                    callee = src[t.start:toks[i].end]
                    j = i + 1
                    while toks[j].text != "(":
                        j += 1
                    add(name, "call", i, end, ";",
                        "drop the call %s()" % src[t.start:toks[j - 1].end], t.line)
    return out


def is_header_close(toks, k):
    """toks[k] is the ) closing an if/while/for header."""
    j = open_paren_of(toks, k)
    return j > 0 and toks[j - 1].text in ("if", "while", "for")


def apply(src, m):
    return src[:m.start] + m.repl + src[m.end:]


def diff_of(src, m, path):
    new = apply(src, m)
    d = difflib.unified_diff(src.splitlines(), new.splitlines(), "a/" + path, "b/" + path,
                             n=1, lineterm="")
    return "\n".join(list(d)[2:])


# ---------------------------------------------------------------- building


class Builder:
    def __init__(self, build_dir, root, work):
        self.build_dir = os.path.abspath(build_dir)
        self.root = root
        self.work = work
        db = json.load(open(os.path.join(self.build_dir, "compile_commands.json")))
        self.compile = {}
        for e in db:
            f = os.path.normpath(os.path.join(e["directory"], e["file"]))
            if e["output"].startswith("libquietpoll.a.p/"):
                self.compile[os.path.relpath(f, root)] = e
        out = subprocess.run(["ninja", "-C", self.build_dir, "-t", "commands", "quietpoll"],
                             check=True, capture_output=True, text=True).stdout
        link = [l for l in out.splitlines() if " -o quietpoll " in l][-1]
        self.link = shlex.split(link)
        self.lib_index = self.link.index("libquietpoll.a")
        # lld links the program in half the time of bfd's ld, the same code
        if shutil.which("ld.lld") and not any(a.startswith("-fuse-ld") for a in self.link):
            self.link.insert(1, "-fuse-ld=lld")
        self.build_s = 0.0  # the time spent compiling and linking mutants

    def files(self):
        return sorted(self.compile)

    def exe(self, tag):
        return os.path.join(self.work, tag, "quietpoll")

    def build(self, path, text, tag):
        """Builds a quietpoll program with path's object compiled from text;
        returns its path, or None with the compiler's message."""
        t0 = time.monotonic()
        try:
            return self._build(path, text, tag)
        finally:
            self.build_s += time.monotonic() - t0

    def _build(self, path, text, tag):
        e = self.compile[path]
        d = os.path.join(self.work, tag)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, os.path.basename(path))
        with open(src, "w") as f:
            f.write(text)
        obj = os.path.join(d, "mutant.o")
        args = shlex.split(e["command"])
        cmd = []
        skip = 0
        for a in args:
            if skip:
                skip -= 1
                continue
            if a in ("-MD",):
                continue
            if a in ("-MQ", "-MF", "-o"):
                skip = 1
                continue
            if a == "-Werror" or a.startswith("-fdiagnostics-color") or a == "-g":
                continue
            if a == e["file"]:
                continue
            cmd.append(a)
        orig_dir = os.path.dirname(os.path.join(e["directory"], e["file"]))
        cmd += ["-w", "-iquote", orig_dir, "-o", obj, "-c", src]
        r = subprocess.run(cmd, cwd=e["directory"], capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.stderr
        exe = self.exe(tag)
        if os.path.exists(exe):
            os.unlink(exe)
        link = self.link[:self.lib_index] + [obj] + self.link[self.lib_index:]
        link[link.index("-o") + 1] = exe
        r = subprocess.run(link, cwd=self.build_dir, capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.stderr
        return exe, ""


# ---------------------------------------------------------------- judging


def run_check(cmd, root, timeout_s):
    env = dict(os.environ, QP_DB="none")
    try:
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout_s,
                           env=env)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return r.returncode, r.stdout + r.stderr


def first_failure(out):
    for l in out.splitlines():
        if "VIOLATION" in l or l.startswith("FAIL") or "not as expected" in l or \
                "undocumented" in l and not l.startswith("125") or "DIFFER" in l:
            return l.strip()[:160]
    lines = [l for l in out.splitlines() if l.strip()]
    return lines[-1].strip()[:160] if lines else ""


class Judge:
    def __init__(self, args, root, machines, host_record):
        self.args, self.root, self.machines = args, root, machines
        self.host_record = host_record  # the kernel's results, or None: run it live

    def checks(self, path, exe):
        """The commands that judge a mutant of path, in order, each with its name."""
        base = os.path.splitext(os.path.basename(path))[0]
        t = str(self.args.trials)
        if path.startswith("src/machines/"):
            out = [("prop %s/%s" % (base, ref),
                    [exe, "prop", "--machine", base, "--variant", ref, "--no-db", "--trials", t])
                   for ref in self.machines[base]]
            out.append(("prop %s (every variant as catalogued)" % base,
                        [exe, "prop", "--machine", base, "--no-db", "--trials", t]))
            return out
        conform = [exe, "conform"] if self.host_record is None else \
            [exe, "conform", "--against", self.host_record]
        if self.args.conform_only:
            return [("conform", conform)]
        return [("conform", conform),
                ("prop (every machine)", [exe, "prop", "--no-db", "--no-fork", "--trials",
                                          str(self.args.sim_trials)])]

    def judge(self, path, exe, timeouts_s):
        """(killed by, its first failing line) or (None, '')."""
        for name, cmd in self.checks(path, exe):
            timeout_s = timeouts_s[name]
            rc, out = run_check(cmd, self.root, timeout_s)
            if rc != 0:
                why = "timeout after %.1fs" % timeout_s if rc == "timeout" else \
                    "exit %s: %s" % (rc, first_failure(out))
                return name, why
        return None, ""


# ---------------------------------------------------------------- main


def record_host(exe, root, path):
    """Records the kernel's side of every scenario in path, with the
    unmutated program; a recording the unmutated sim does not agree with (a
    timed scenario the loaded host ran late) is made again, up to 3 times."""
    for attempt in range(3):
        rc, out = run_check([exe, "conform", "--host-results", path], root, 600)
        if rc == 0:
            rc, out = run_check([exe, "conform", "--against", path], root, 600)
            if rc == 0:
                return
    raise SystemExit("mutate: the unmutated program's conform fails 3 times (exit %s):\n%s" %
                     (rc, out[-2000:]))


def model_machines(exe, root):
    """{machine: [its reference variants]} of the model machines: those with
    a file of their own in src/machines/."""
    out = subprocess.run([exe, "list"], capture_output=True, text=True, check=True,
                         cwd=root).stdout
    machines = {}
    current = None
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s", line)
        if m and not line.startswith(" "):
            current = m.group(1).rstrip(":")
        m2 = re.match(r"^\s+(\S+)\s+pass\b", line)
        if m2 and current is not None:
            machines.setdefault(current, []).append(m2.group(1))
    return {k: v for k, v in machines.items()
            if os.path.exists(os.path.join(root, "src", "machines", k + ".c"))}


def load_equivalent(path):
    """{mutant id or file:function: (kind, reason)}: kind 'equivalent' (no
    run can tell the mutant from the original), 'excluded' (every mutant
    of a function that is not the code under test, with why) or 'props' (a
    sim mutant no conformance scenario can reach, Linux having no such thing:
    the machines' world, the trace; judged as any in a full run, left out of
    --conform-only's score)."""
    eq = {}
    if os.path.exists(path):
        for n, line in enumerate(open(path), 1):
            if not line.strip() or line.startswith("#"):
                continue
            f = line.rstrip("\n").split("\t")
            if len(f) != 3 or f[1] not in ("equivalent", "excluded", "props") or \
                    not f[2].strip():
                raise SystemExit("mutate: %s:%d: a row is: id (or file:function), "
                                 "equivalent|excluded|props, the reason; not %r" % (path, n, line))
            eq[f[0]] = (f[1], f[2])
    return eq


def listed(equivalent, m):
    """The row of equivalent that covers mutant m, or None."""
    return equivalent.get(m.id) or equivalent.get("%s:%s" % (m.file, m.func))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build-mutate", help="the build directory (configured)")
    ap.add_argument("--only", action="append", default=[],
                    help="files (or prefixes: src/sim/) to mutate; may repeat")
    ap.add_argument("--sample", type=int, default=0,
                    help="N mutants per file, chosen by id (deterministic); 0 all")
    ap.add_argument("--trials", type=int, default=1000, help="prop trials per check")
    ap.add_argument("--sim-trials", type=int, default=200,
                    help="prop trials per machine for a sim mutant conform lets through")
    ap.add_argument("--sanitized", help="a configured ASan+UBSan build: survivors are judged "
                    "again in it")
    ap.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    ap.add_argument("--min-score", type=float, default=None,
                    help="fail when the score of the run is below this percentage")
    ap.add_argument("--score-file", help="fail when the score is below the one recorded here")
    ap.add_argument("--equivalent", default="ci/mutants-equivalent.tsv")
    ap.add_argument("--survivors", help="write the survivors' ids and diffs here")
    ap.add_argument("--quiet", action="store_true", help="no line per mutant, only progress")
    ap.add_argument("--host", choices=("recorded", "live"), default="recorded",
                    help="the kernel's side of conform for a sim mutant: recorded once per run "
                    "by the unmutated program (the default), or run live for every mutant")
    ap.add_argument("--conform-only", action="store_true",
                    help="judge a sim mutant by quietpoll conform alone (no prop run): the "
                    "score and survivors are conform's")
    ap.add_argument("--ids", help="a file of mutant ids (the first word of each line, as "
                    "--survivors writes them): those mutants only")
    args = ap.parse_args()

    root = os.getcwd()
    builder_tmp = tempfile.mkdtemp(prefix="qp-mutate-")
    try:
        return run(args, root, builder_tmp)
    finally:
        shutil.rmtree(builder_tmp, ignore_errors=True)  # the mutants' programs, the host record


def run(args, root, builder_tmp):
    builder = Builder(args.build, root, builder_tmp)
    exe0 = os.path.join(builder.build_dir, "quietpoll")
    machines = model_machines(exe0, root)
    builder_san = Builder(args.sanitized, root, builder_tmp + "-san") if args.sanitized else None
    files = [f for f in builder.files()
             if (f.startswith("src/machines/") and
                 os.path.splitext(os.path.basename(f))[0] in machines) or
             f.startswith("src/sim/")]
    if args.only:
        files = [f for f in files if any(f == o or f.startswith(o) for o in args.only)]
        if not files:
            raise SystemExit("mutate: --only %s names no file mutated (src/machines/<model>.c, "
                             "src/sim/*.c)" % " ".join(args.only))
    equivalent = load_equivalent(os.path.join(root, args.equivalent))
    judge = Judge(args, root, machines,
                  os.path.join(builder_tmp, "host-results") if args.host == "recorded" else None)

    ids = None
    if args.ids:
        ids = {l.split()[0] for l in open(args.ids) if l.strip() and re.match(r"[0-9a-f]{10}\s", l)}
        if not ids:
            raise SystemExit("mutate: --ids %s holds no mutant id" % args.ids)
    plan = []
    for f in files:
        src = open(os.path.join(root, f)).read()
        ms = mutants_of(f, src)
        if args.sample:
            ms = sorted(ms, key=lambda m: m.id)[:args.sample]
            ms.sort(key=lambda m: m.start)
        if ids is not None:
            ms = [m for m in ms if m.id in ids]
        plan += [(f, src, m) for m in ms]
    if args.list:
        for f, src, m in plan:
            row = listed(equivalent, m)
            print("%s %s:%d %s %s: %s%s" % (m.id, f, m.line, m.func, m.op, m.desc,
                                            "  [%s]" % row[0] if row else ""))
        print("%d mutants in %d files" % (len(plan), len(files)))
        return 0

    # the unmutated program must pass every check, and sets the time limit
    t0 = time.monotonic()
    if judge.host_record is not None and any(f.startswith("src/sim/") for f in files):
        record_host(exe0, root, judge.host_record)

    def check_times(exe):
        baseline = {}
        for f in files:
            for name, cmd in judge.checks(f, exe):
                if name in baseline:
                    continue
                s = time.monotonic()
                rc, out = run_check(cmd, root, 600)
                if rc != 0:
                    raise SystemExit("mutate: the unmutated program fails %s (exit %s):\n%s" %
                                     (" ".join(cmd), rc, out[-2000:]))
                baseline[name] = time.monotonic() - s
        return baseline

    baseline = check_times(exe0)
    # a mutant that loops where no budget sees it is killed by the time limit
    # (the sim alone is deterministic and quick: 2 s of margin are ample)
    margin_s = {name: 2 if name == "conform" and judge.host_record is not None else 5
                for name in baseline}
    timeouts_s = {name: 10 * t + margin_s[name] for name, t in baseline.items()}
    timeouts_san_s = None
    if builder_san:
        timeouts_san_s = {name: 10 * t + margin_s.get(name, 5) for name, t in
                          check_times(os.path.join(builder_san.build_dir, "quietpoll")).items()}
    print("mutate: %d mutants of %d files; the unmutated program passes every check "
          "(%.1fs: %s); a check taking ten times as long as it did (%s) kills its mutant%s" %
          (len(plan), len(files), time.monotonic() - t0,
           ", ".join("%s %.2fs" % kv for kv in baseline.items()),
           ", ".join("+%d s for %s" % (v, k) for k, v in margin_s.items()),
           "; the sim's mutants are compared with the kernel's results recorded in %s" %
           judge.host_record if judge.host_record is not None and "conform" in baseline
           else ""), flush=True)

    stats = {}
    survivors = []
    san_s, san_count = 0.0, 0
    start = time.monotonic()
    for k, (f, src, m) in enumerate(plan, 1):
        st = stats.setdefault(f, {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0,
                                   "excluded": 0, "props": 0, "stillborn": 0, "by": {}})
        st["mutants"] += 1
        row = listed(equivalent, m)
        if row is not None and row[0] == "excluded":  # not built: not the code under test
            verdict, by = "excluded", ""
            st["excluded"] += 1
        elif row is not None and row[0] == "props" and args.conform_only:
            verdict, by = "props", ""  # not built: no scenario can reach it
            st["props"] += 1
        elif builder.build(f, apply(src, m), "m")[0] is None:
            verdict, by = "stillborn", ""
            st["stillborn"] += 1
        else:
            by, why = judge.judge(f, builder.exe("m"), timeouts_s)
            if by is None and builder_san is not None and f.startswith("src/machines/"):
                san_start = time.monotonic()
                san_count += 1
                exe_san, err = builder_san.build(f, apply(src, m), "m")
                if exe_san is None:
                    raise SystemExit("mutate: %s builds, but not with the sanitizers:\n%s" %
                                     (m.id, err[-2000:]))
                by, why = judge.judge(f, exe_san, timeouts_san_s)
                san_s += time.monotonic() - san_start
                if by is not None:
                    by = "sanitized " + by
            if row is not None and row[0] == "equivalent":
                verdict = "equivalent" if by is None else "killed"
                if by is not None:
                    print("mutate: %s is listed as equivalent, yet %s kills it: remove it from %s"
                          % (m.id, by, args.equivalent), flush=True)
            else:
                verdict = "killed" if by is not None else "survived"
            st[verdict] += 1
            if by is not None:
                key = "sanitized" if by.startswith("sanitized ") else \
                    by.split(" ")[0] if f.startswith("src/sim/") else \
                    ("ref" if "every variant" not in by else "variants")
                st["by"][key] = st["by"].get(key, 0) + 1
            if verdict == "survived":
                survivors.append((m, diff_of(src, m, f)))
        elapsed = time.monotonic() - start
        eta = elapsed / k * (len(plan) - k)
        if args.quiet:
            if k % 10 == 0 or k == len(plan):
                print("[%d/%d] %.0fs, about %.0fs left" % (k, len(plan), elapsed, eta),
                      file=sys.stderr, flush=True)
        else:
            print("[%d/%d] %s %s:%d %s %s: %s%s  (about %.0fs left)" %
                  (k, len(plan), m.id, f, m.line, m.op, m.desc, verdict,
                   " by " + by if verdict == "killed" else "", eta), flush=True)

    elapsed = time.monotonic() - start
    print("\nmutate: %d mutants in %.0fs, %.1f a minute (building %.0fs, judging %.0fs)" %
          (len(plan), elapsed, 60.0 * len(plan) / elapsed if elapsed > 0 else 0.0,
           builder.build_s, elapsed - builder.build_s), flush=True)
    print()
    print("%-28s %7s %7s %9s %10s %8s %5s %9s %7s  %s" % (
        "file", "mutants", "killed", "survived", "equivalent", "excluded", "props", "stillborn",
        "score", "killed by"))
    tot = {"mutants": 0, "killed": 0, "survived": 0, "equivalent": 0, "excluded": 0,
           "props": 0, "stillborn": 0}
    groups = {}
    for f in files:
        if f not in stats:
            continue
        st = stats[f]
        for k2 in tot:
            tot[k2] += st[k2]
        g = groups.setdefault("src/machines" if f.startswith("src/machines/") else "src/sim",
                              {"killed": 0, "survived": 0, "by": {}})
        g["killed"] += st["killed"]
        g["survived"] += st["survived"]
        for k2, v in st["by"].items():
            g["by"][k2] = g["by"].get(k2, 0) + v
        judged = st["killed"] + st["survived"]
        print("%-28s %7d %7d %9d %10d %8d %5d %9d %6.1f%%  %s" % (
            f, st["mutants"], st["killed"], st["survived"], st["equivalent"], st["excluded"],
            st["props"], st["stillborn"],
            100.0 * st["killed"] / judged if judged else 100.0,
            ", ".join("%s %d" % kv for kv in sorted(st["by"].items()))))
    for g, v in groups.items():
        judged = v["killed"] + v["survived"]
        print("%-28s %7s %7d %9d %10s %8s %5s %9s %6.1f%%  %s" % (
            g + "/ (all)", "", v["killed"], v["survived"], "", "", "", "",
            100.0 * v["killed"] / judged if judged else 100.0,
            ", ".join("%s %d" % kv for kv in sorted(v["by"].items()))))
    judged = tot["killed"] + tot["survived"]
    score = 100.0 * tot["killed"] / judged if judged else 100.0
    print("total: %d mutants, %d killed, %d survived, %d equivalent, %d excluded, %d for the props "
          "alone, %d stillborn: score %.1f%% of the mutants that build, neither equivalent nor "
          "excluded%s" %
          (tot["mutants"], tot["killed"], tot["survived"], tot["equivalent"], tot["excluded"],
           tot["props"], tot["stillborn"], score,
           " nor for the props alone" if args.conform_only else ""))
    if builder_san is not None:
        print("the sanitized build judged %d mutants the plain one let through, in %.0f s of "
              "the run's %.0f s" % (san_count, san_s, time.monotonic() - start))
    if survivors:
        print("\nsurvivors (no check fails; kill each, or list it in %s with its reason):" %
              args.equivalent)
        for m, d in survivors:
            print("\n%s %s:%d in %s(): %s (%s)\n%s" % (m.id, m.file, m.line, m.func, m.desc,
                                                       m.op, d))
    if args.survivors:
        with open(args.survivors, "w") as out:
            for m, d in survivors:
                out.write("%s\t%s\t%d\t%s\t%s\n%s\n" % (m.id, m.file, m.line, m.op, m.desc, d))
    floor = args.min_score
    if args.score_file:
        floor = float(open(args.score_file).read().split()[0])
    if floor is not None and score < floor:
        print("mutate: the score %.1f%% is below %.1f%%, the score recorded%s" %
              (score, floor, " in " + args.score_file if args.score_file else ""))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
