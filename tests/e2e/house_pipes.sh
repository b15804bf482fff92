#!/usr/bin/env bash
# The tests run under `set -o pipefail` (lib.sh): a reader that leaves a
# pipeline early (`head`, `grep -q`, `grep -m`, an awk program that
# says `exit`) closes the pipe while its writer may still write, and the
# writer's SIGPIPE (status 141) fails the test now and then, by timing
# alone.  This check finds such readers in tests/ and bench/; lib.sh's
# `has` and `first_line` read to the end instead.  A pipeline inside a
# `fail` message is let be: the test fails there anyway.  Reads the tree
# only: needs no build.
set -u
cd "$(dirname "$0")/../.."
python3 - tests/e2e/*.bash $(grep -l -e pipefail -e "/lib.sh\"" tests/e2e/*.sh tests/*.sh bench/*.sh scripts/*.sh .ci/run 2>/dev/null) <<'PY'
import re, sys

def statements(text):
    """The file's commands, continuation lines and quoted newlines joined,
    each with the number of its first line."""
    out, cur, start, quote = [], "", 1, None
    for no, line in enumerate(text.split("\n"), 1):
        if not cur:
            start = no
        i = 0
        while i < len(line):
            c = line[i]
            if quote:
                if c == quote:
                    quote = None
                elif c == "\\" and quote == '"':
                    i += 1
            elif c in "'\"":
                quote = c
            elif c == "#" and (i == 0 or line[i - 1] in " \t;(|"):
                line = line[:i]
                break
            elif c == "\\" and i + 1 < len(line):
                i += 1
            i += 1
        cur += line + "\n"
        s = line.rstrip()
        if quote or s.endswith(("|", "\\", "&&", "||")):
            continue
        out.append((start, cur))
        cur = ""
    if cur:
        out.append((start, cur))
    return out

early = re.compile(r"(?<!\|)\|\s*(head\b|grep\s+(-[A-Za-z]*[qm]|--quiet|--max-count)"
                   r"|sed\s+(-n\s+)?'?\d*q\b)")
awk_prog = re.compile(r"(?<!\|)\|\s*(\\\n\s*)?awk\b[^']*'([^']*)'", re.S)
bad = 0
for path in sys.argv[1:]:
    try:
        text = open(path).read()
    except OSError:
        continue
    for no, st in statements(text):
        # a pipeline in a fail or skip message is let be
        def in_message(pos):
            return re.search(r"\b(fail|skip)\b", st[:pos]) is not None
        why = None
        m = early.search(st)
        if m and not in_message(m.start()):
            why = "'%s' leaves the pipe early" % m.group(1).strip()
        for m in awk_prog.finditer(st):
            if in_message(m.start()):
                continue
            if re.search(r"\bexit\b", re.sub(r"END\s*\{.*", "", m.group(2), flags=re.S)):
                why = "an awk program reading a pipe says exit"
        if why:
            print("FAIL: %s:%d: %s: the writer may get SIGPIPE under pipefail"
                  % (path, no, why), file=sys.stderr)
            bad = 1
sys.exit(bad)
PY
