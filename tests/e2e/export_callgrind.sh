#!/usr/bin/env bash
# --export=callgrind, proven by valgrind's own reader: callgrind_annotate
# reads the file without a warning, its program total is the report's cpu
# time, and each function's exclusive and inclusive cost and call counts
# agree with the report's call graph (to the report's rounding for times,
# exactly for counts).  Functions in a cycle are left out of the inclusive
# check: callgrind_annotate adds the calls between cycle members on top.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v callgrind_annotate >/dev/null || skip "callgrind_annotate (valgrind) not installed"
command -v python3 >/dev/null || skip "python3 not installed"

build_traced "$T/rc" "$PROGRAMS/report_calls.c"
run_traced "$T/t.raw" "$T/rc" >/dev/null
"$REPORT_SAN" --export=callgrind -o "$T/t.cg" "$T/t.raw" || fail "export failed"
"$REPORT_SAN" -b -q "$T/t.raw" > "$T/report.txt" || fail "report failed"

callgrind_annotate "$T/t.cg" > "$T/self.txt" 2> "$T/err1" || fail "callgrind_annotate failed"
callgrind_annotate --inclusive=yes "$T/t.cg" > "$T/incl.txt" 2> "$T/err2" ||
    fail "callgrind_annotate --inclusive=yes failed"
[ ! -s "$T/err1" ] && [ ! -s "$T/err2" ] ||
    fail "callgrind_annotate warned: $(cat "$T/err1" "$T/err2")"

python3 - "$T/t.cg" "$T/self.txt" "$T/incl.txt" "$T/report.txt" <<'PY'
import re, sys
cg, selff, inclf, rep = sys.argv[1:]

def annotate(path):
    """callgrind_annotate's per-function costs, by function name."""
    out, total = {}, None
    for line in open(path):
        m = re.match(r'\s*([\d,]+) \(\s*[\d.]+%\)\s+PROGRAM TOTALS', line)
        if m:
            total = int(m.group(1).replace(',', ''))
        m = re.match(r'\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(\S+) \[', line)
        if m:
            out[m.group(2)] = int(m.group(1).replace(',', ''))
    return total, out

total, excl = annotate(selff)
total2, incl = annotate(inclf)

# the calls= lines: callee -> (calls from others, calls from itself)
calls, fn = {}, None
for line in open(cg):
    if line.startswith('fn='):
        fn = line[3:].strip()
    elif line.startswith('cfn='):
        cfn = line[4:].strip()
    elif line.startswith('calls='):
        n = int(line[6:].split()[0])
        c = calls.setdefault(cfn, [0, 0])
        c[1 if cfn == fn else 0] += n

text = open(rep).read()
unit = re.search(r'times in (s|ms|us|ns)', text).group(1)
ns = {'s': 1e9, 'ms': 1e6, 'us': 1e3, 'ns': 1}[unit]
cpu = re.search(r'In ticks: (\d+) \+', text)
prim = {}
for m in re.finditer(r'^\[\d+\]\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s+(\d+)(?:\+(\d+))?\s+'
                     r'(\S+)( <cycle \d+>)? \[\d+\]$', text, re.M):
    prim[m.group(5)] = (float(m.group(1)), float(m.group(2)), int(m.group(3)),
                        int(m.group(4) or 0), bool(m.group(6)))
assert len(prim) >= 6, prim
errors = []
if total != total2 or total != sum(excl.values()):
    errors.append('totals %s %s %s' % (total, total2, sum(excl.values())))
cpu_ms = re.search(r'Total time: ([\d.]+)(ns|us|ms|s)\((?:cpu|functions)\)', text)
scale = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}[cpu_ms.group(2)]
if abs(total - float(cpu_ms.group(1)) * scale) > 0.006 * scale:
    errors.append('program total %d ns against the report\'s cpu %s%s'
                  % (total, cpu_ms.group(1), cpu_ms.group(2)))
tol = 0.0051 * ns
for name, (s, ch, n, m, in_cycle) in prim.items():
    if abs(excl.get(name, 0) - s * ns) > tol:
        errors.append('%s: self %d ns, report %s %s' % (name, excl.get(name, 0), s, unit))
    if not in_cycle and abs(incl.get(name, 0) - (s + ch) * ns) > 2 * tol:
        errors.append('%s: inclusive %d ns, report %s+%s %s' % (name, incl.get(name, 0), s, ch, unit))
    got = calls.get(name, [0, 0])
    if name != 'main' and got != [n, m]:
        errors.append('%s: calls %s, report %d+%d' % (name, got, n, m))
if errors:
    print('\n'.join(errors)); sys.exit(1)
print('callgrind_annotate agrees on %d functions, total %d ns' % (len(prim), total))
PY
