#!/usr/bin/env bash
# Sampling mode on an uninstrumented program with a known profile: 70% of
# its work in spin_seventy, 30% in spin_thirty (iteration counts, so the
# split does not depend on the machine).  At 1 ms the leaf shares must come
# out within 5 points; a function reached only in a dlopened library must be
# found through the trace's MAPS entries; the report must agree.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
command -v python3 >/dev/null || skip "python3 not installed"

gcc -std=gnu11 -O1 -g -o "$T/sample_7030" "$PROGRAMS/sample_7030.c" -ldl
gcc -std=gnu11 -O1 -g -shared -fPIC -o "$T/libsample.so" "$PROGRAMS/sample_lib.c"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$CT_ROOT/include" \
    -o "$T/sample_decode" "$PROGRAMS/sample_decode.c"

# leaf_shares DECODED: "name share" per leaf function, "stack:name share" for
# functions anywhere in the stack, "samples N"; names from nm of each mapped
# object, placed with the MAPS load base.
leaf_shares() {
    python3 - "$1" <<'PY'
import bisect, subprocess, sys
maps, samples = [], []
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'M':
        maps.append((int(f[2], 16), int(f[3], 16), int(f[1], 16), ' '.join(f[4:])))
    elif f[0] == 'S':
        samples.append((int(f[2]), [int(x, 16) for x in f[4:]]))
tables = {}
def table(path):
    if path not in tables:
        out = subprocess.run(['nm', '-S', '--defined-only', path],
                             capture_output=True, text=True).stdout
        syms = sorted((int(p[0], 16), int(p[1], 16), p[3]) for p in
                      (l.split() for l in out.splitlines())
                      if len(p) == 4 and p[2] in 'tTwW')
        tables[path] = syms
    return tables[path]
def name(pc):
    for start, end, base, path in maps:
        if start <= pc < end:
            syms, off = table(path), pc - base
            i = bisect.bisect_right([s[0] for s in syms], off) - 1
            if i >= 0 and off < syms[i][0] + max(syms[i][1], 1):
                return syms[i][2]
            return '?'
    return '?'
total = sum(w for w, _ in samples)
leaf, anywhere = {}, {}
for w, pcs in samples:
    # Frames above the leaf hold return addresses: look up pc - 1.
    names = [name(pcs[0])] + [name(pc - 1) for pc in pcs[1:]]
    leaf[names[0]] = leaf.get(names[0], 0) + w
    for n in set(names):
        anywhere[n] = anywhere.get(n, 0) + w
print('samples', total)
for n, w in leaf.items():
    print(n, '%.1f' % (100.0 * w / total))
for n, w in anywhere.items():
    print('stack:' + n, '%.1f' % (100.0 * w / total))
PY
}
share() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }
# within VALUE LOW HIGH
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }

# --- 70 / 30 -------------------------------------------------------------
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/a.raw" "$T/sample_7030" 100 >"$T/out" 2>"$T/err"
expect_eq "program output" "done 100 rounds" "$(cat "$T/out")"
expect_eq "stderr" "" "$(cat "$T/err")"
"$T/sample_decode" "$T/a.raw" >"$T/a.txt" || fail "decoder rejected the trace"
header=$(head -n 1 "$T/a.txt")
flags=$(echo "$header" | sed -E 's/.*flags=([0-9]+).*/\1/')
expect_eq "header flags SAMPLED without CALLS" 2 $(( flags & 6 ))
expect_eq "header interval" "interval_ns=1000000" \
    "$(echo "$header" | grep -o 'interval_ns=[0-9]*')"
leaf_shares "$T/a.txt" >"$T/a.shares"
cat "$T/a.shares"
n=$(share samples "$T/a.shares")
within "$n" 500 100000 || fail "only $n samples for ~1.4 s of CPU at 1 ms"
s70=$(share spin_seventy "$T/a.shares"); s30=$(share spin_thirty "$T/a.shares")
within "$s70" 65 75 || fail "spin_seventy has $s70% of the samples, expected 70±5"
within "$s30" 25 35 || fail "spin_thirty has $s30% of the samples, expected 30±5"
# The walk reaches main through the leaf's caller (libunwind, .eh_frame).
m=$(share stack:main "$T/a.shares")
within "$m" 97 100 || fail "main is in only $m% of the stacks"

# --- a function only in a dlopened library --------------------------------
SAMPLE_LIB=$T/libsample.so CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/b.raw" "$T/sample_7030" 100 >"$T/out"
expect_eq "program output (library)" "done 100 rounds" "$(cat "$T/out")"
"$T/sample_decode" "$T/b.raw" >"$T/b.txt" || fail "decoder rejected the trace"
grep -q "^M .*libsample.so$" "$T/b.txt" || fail "no MAPS entry for the library"
leaf_shares "$T/b.txt" >"$T/b.shares"
cat "$T/b.shares"
sl=$(share lib_spin "$T/b.shares")
within "$sl" 6 14 || fail "lib_spin has $sl% of the samples, expected 10±4"
s30=$(share spin_thirty "$T/b.shares")
within "$s30" 15 25 || fail "spin_thirty has $s30% with the library, expected 20±5"

# --- the report ------------------------------------------------------------
"$REPORT_SAN" -b -p "$T/b.raw" >"$T/report" 2>"$T/report.err" ||
    skip "calltrace-report cannot report a sampled trace yet: $(head -n 1 "$T/report.err")"
grep -q "Sampled" "$T/report" ||
    skip "calltrace-report does not report samples yet"
cat "$T/report"
pct() { awk -v n="$1" 'NF >= 2 && $(NF-1) == n { print $1; exit }' "$T/report"; }
r70=$(pct spin_seventy); rl=$(pct lib_spin)
within "$r70" 65 75 || fail "report: spin_seventy at $r70%, expected 70±5"
within "$rl" 6 14 || fail "report: lib_spin at $rl%, expected 10±4"

# --- a bad interval: one line on stderr, the default -----------------------
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=fast \
    run_traced "$T/c.raw" "$T/sample_7030" 5 >"$T/out" 2>"$T/err"
expect_eq "program output (bad interval)" "done 5 rounds" "$(cat "$T/out")"
expect_eq "stderr lines" 1 "$(wc -l <"$T/err")"
grep -q "CALLTRACE_SAMPLE_INTERVAL=fast" "$T/err" || fail "stderr: $(cat "$T/err")"
"$T/sample_decode" "$T/c.raw" | sed -n 1p | has "interval_ns=10000000 " ||
    fail "the default interval is not 10ms"
echo ok
