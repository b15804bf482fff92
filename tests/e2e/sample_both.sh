#!/usr/bin/env bash
# CALLTRACE_MODE=both: the calls give the exact figures (400 calls of work,
# not 400 + the samples), the samples a section of their own; every figure
# of the summary agrees with the others (cpu within the wall span times the
# threads, the sample count in three places the same).  Sample mode alone
# keeps the same summary rules.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v python3 >/dev/null || skip "python3 not installed"

build_traced "$T/both" "$PROGRAMS/sample_both.c"
CALLTRACE_MODE=both CALLTRACE_SAMPLE_INTERVAL=1ms run_traced "$T/both.raw" "$T/both"
"$REPORT_SAN" "$T/both.raw" > "$T/both.txt"

flat_calls() { # NAME: the flat profile's calls of NAME
    awk '/^Flat profile/,/^\f/' "$T/both.txt" |
        awk -v n="$1" 'NF > 2 && $(NF-1) == n { print $4 }'
}
expect_eq "work's calls" 400 "$(flat_calls work)"
expect_eq "main's calls" 1 "$(flat_calls main)"
grep -q "^Every call timed; " "$T/both.txt" || fail "flat profile not marked as timed"
grep -q "^granularity: every call timed;" "$T/both.txt" || fail "call graph not marked as timed"
grep -q "^ Measured: every call timed; the [0-9]* stack samples (one every 1.00ms) are shown apart" \
    "$T/both.txt" || fail "summary: $(grep Measured "$T/both.txt")"
! grep -q "each sample counts as" "$T/both.txt" || fail "a sample still counts as time"
# the call graph holds calls only: no arc from _start or libc
! awk '/Call graph/,/^Index/' "$T/both.txt" | has "_start\|libc" ||
    fail "sampled frames in the call graph"

python3 - "$T/both.txt" <<'PY' || fail "summary figures disagree"
import re, sys
t = open(sys.argv[1]).read()
unit = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
def dur(s):
    m = re.match(r'([0-9.]+)(ns|us|ms|s)$', s)
    return float(m.group(1)) * unit[m.group(2)]
cpu = dur(re.search(r'Total time: (\S+)\((?:cpu|functions)\)', t).group(1))
span = dur(re.search(r'Wall span: (\S+) ', t).group(1))
threads = int(re.search(r'Threads: (\d+)', t).group(1))
assert cpu <= span * threads * 1.0001, (cpu, span, threads)
ev = int(re.search(r'Events: \d+ \(.* (\d+) samples\)', t).group(1))
meas = int(re.search(r'the (\d+) stack samples', t).group(1))
sec = int(re.search(r'(\d+) stack samples, one every', t).group(1))
assert ev == meas == sec and ev > 0, (ev, meas, sec)
rows = re.search(r'Sampled flat profile:\n\n.*\n.*\n((?:.+\n)+)', t).group(1)
selfs = [int(l.split()[3]) for l in rows.splitlines()]
assert sum(selfs) == sec, (sum(selfs), sec)
PY

# sample mode alone: the summary's rules hold too
gcc -std=gnu11 -O1 -g -o "$T/plain" "$PROGRAMS/sample_both.c"
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms run_traced "$T/s.raw" "$T/plain"
"$REPORT_SAN" -b "$T/s.raw" > "$T/s.txt"
# the first sample's weight: the intervals of CPU time it stands for
gcc -std=gnu11 -O2 -I"$CT_ROOT/include" -o "$T/sample_decode" "$PROGRAMS/sample_decode.c"
# awk reads to the end: leaving early would kill the decoder with SIGPIPE
# once its output passes the pipe's buffer, and pipefail would stop here.
first_w=$("$T/sample_decode" "$T/s.raw" | awk '$1 == "S" && w == "" { w = $3 } END { print w }')
[ -n "$first_w" ] || fail "sample mode: no sample decoded"
python3 - "$T/s.txt" "$first_w" <<'PY' || fail "sample mode: summary figures disagree"
import re, sys
t = open(sys.argv[1]).read()
unit = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}
def dur(s):
    m = re.match(r'([0-9.]+)(ns|us|ms|s)$', s)
    return float(m.group(1)) * unit[m.group(2)]
cpu = dur(re.search(r'Total time: (\S+)\((?:cpu|functions)\)', t).group(1))
span = dur(re.search(r'Wall span: (\S+) ', t).group(1))
n = int(re.search(r'Sampled: figures are statistical; (\d+) samples, every 1.00ms', t).group(1))
# one sample stands for the CPU time since the one before: the first one
# for its weight's intervals before it (several when the kernel's tick,
# 4 ms at 250 Hz, let the timer fire late), which the span does not see;
# and the timer's expiries between the first and the last sample's
# delivery can number one more than the span holds intervals
first_w = int(sys.argv[2])
assert cpu <= span + (first_w + 1) * 1e6 * 1.01, (cpu, span, first_w)
assert abs(cpu - n * 1e6) < 1e6, (cpu, n)
assert re.search(r'Each sample counts as 1.00ms;', t), 'each sample counts as'
assert re.search(r'Sampling error: %d samples: a share is known to about \+-[0-9.]+ points \(1 s.e. at 50%%\)' % n, t), 'error line'
# the flat profile's +- column: each row's binomial standard error, in
# points, of its share of the n samples
flat = re.search(r'\n time +\+- .*\n((?:.+\n)+)', t)
assert flat, 'no +- column in the flat profile'
for l in flat.group(1).splitlines():
    if not re.match(r' *[0-9]', l):
        break
    pct, se = float(l.split()[0]), float(l.split()[1])
    want = 100 * ((pct / 100) * (1 - pct / 100) / n) ** 0.5
    assert abs(se - want) <= 0.006, (l, want)
PY
