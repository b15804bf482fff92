#!/usr/bin/env bash
# --export=pprof, proven by Go's pprof itself (built from Debian's
# golang-github-google-pprof-dev with golang-go, as installed by
# scripts/install-deps.sh): `pprof -top` agrees with the report on every
# function's flat (self) time and, outside cycles, its cumulative time (to
# the report's rounding), and on every function's calls exactly;
# `pprof -traces` holds the call paths known by construction with their
# call counts.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v python3 >/dev/null || skip "python3 not installed"
need_pprof

build_traced "$T/rc" "$PROGRAMS/report_calls.c"
run_traced "$T/t.raw" "$T/rc" >/dev/null
"$REPORT_SAN" --export=pprof -o "$T/t.pb.gz" "$T/t.raw" || fail "export failed"
[ "$(head -c 2 "$T/t.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzipped"
"$REPORT_SAN" -b -q "$T/t.raw" > "$T/report.txt" || fail "report failed"
"$PPROF" -top -nodecount=1000 -unit=ns "$T/t.pb.gz" > "$T/time.txt" 2> "$T/err" ||
    fail "pprof -top failed: $(cat "$T/err")"
"$PPROF" -top -nodecount=1000 -sample_index=calls "$T/t.pb.gz" > "$T/calls.txt" 2>> "$T/err" ||
    fail "pprof -top -sample_index=calls failed: $(cat "$T/err")"
"$PPROF" -traces -sample_index=calls "$T/t.pb.gz" > "$T/traces.txt" 2>> "$T/err" ||
    fail "pprof -traces failed: $(cat "$T/err")"
grep -v "^Main binary filename not available" "$T/err" | grep . && fail "pprof warned"

python3 - "$T/time.txt" "$T/calls.txt" "$T/traces.txt" "$T/report.txt" <<'PY'
import re, sys
timef, callsf, tracesf, rep = sys.argv[1:]

def top(path, suffix):
    rows = {}
    for line in open(path):
        m = re.match(r'\s*(\d+)%s\s+\S+\s+\S+\s+(\d+)%s\s+\S+\s+(\S+)$' % (suffix, suffix), line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows

time, calls = top(timef, 'ns'), top(callsf, '')
text = open(rep).read()
unit = re.search(r'times in (s|ms|us|ns)', text).group(1)
ns = {'s': 1e9, 'ms': 1e6, 'us': 1e3, 'ns': 1}[unit]
prim = {}
for m in re.finditer(r'^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(\d+)(?:\+(\d+))?\s+'
                     r'(\S+)( <cycle \d+>)? \[\d+\]$', text, re.M):
    prim[m.group(5)] = (float(m.group(1)), float(m.group(2)), int(m.group(3)),
                        int(m.group(4) or 0), bool(m.group(6)))
errors = []
if set(prim) != set(time) or set(prim) != set(calls):
    errors.append('functions: report %s, pprof %s / %s' % (sorted(prim), sorted(time), sorted(calls)))
# -traces: each block is a value and a stack, leaf first.
paths = {}
for block in open(tracesf).read().split('-----------+')[1:]:
    lines = [l for l in block.split('\n')[1:] if l.strip()]
    if not lines:
        continue
    v, leaf = lines[0].split()
    stack = [leaf] + [l.split()[0] for l in lines[1:]]
    paths[';'.join(reversed(stack))] = int(v)
# Each path's time is rounded to whole ns once (so that they add up): a
# function's flat time may be off by 1 ns per path it is the leaf of.
leaves = {}
for p in paths:
    leaf = p.split(';')[-1]
    leaves[leaf] = leaves.get(leaf, 0) + 1
tol = 0.0051 * ns
for name, (s, ch, n, m, in_cycle) in prim.items():
    flat, cum = time.get(name, (0, 0))
    if abs(flat - s * ns) > tol + leaves.get(name, 0):
        errors.append('%s: flat %d ns, report self %s %s' % (name, flat, s, unit))
    if not in_cycle and abs(cum - (s + ch) * ns) > 2 * tol + len(paths):
        errors.append('%s: cum %d ns, report %s+%s %s' % (name, cum, s, ch, unit))
    if name != 'main' and calls.get(name, (0, 0))[0] != n + m:
        errors.append('%s: %s calls, report %d+%d' % (name, calls.get(name), n, m))

# by construction (tests/programs/report_calls.c)
want = {'main;work;scale': 200, 'main;work': 200, 'main;scale': 50,
        'main;is_even': 200, 'main;work;fact': 200}
for p, n in want.items():
    if paths.get(p) != n:
        errors.append('trace %s: %s calls, expected %d' % (p, paths.get(p), n))
deepest = max(p.count('fact') for p in paths)
if deepest != 6:
    errors.append('fact recursion %d deep in the traces, expected 6' % deepest)
if errors:
    print('\n'.join(errors)); sys.exit(1)
print('pprof agrees on %d functions and %d call paths' % (len(prim), len(paths)))
PY
