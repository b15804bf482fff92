#!/usr/bin/env bash
# Sampled lines: an uninstrumented program (-O0 -g) spends its time in two
# one-line loops, two thirds in hot_a and one third in hot_b (iteration
# counts).  --by-line must put the samples on those lines; the samplingprof
# export must name them as file:line:function with consistent counts, link
# the call sites in main to them, and read back to the same flat profile by
# function as the trace itself.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"

src=$T/lines.c
cat >"$src" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned long hot_a(unsigned long n)
{
    unsigned long acc = 1;
    for (unsigned long i = 0; i < n; i++) acc = acc * 31 + (i ^ acc >> 3); /* HOT_A */
    return acc;
}

__attribute__((noinline)) unsigned long hot_b(unsigned long n)
{
    unsigned long acc = 2;
    for (unsigned long i = 0; i < n; i++) acc = acc * 17 + (i ^ acc >> 5); /* HOT_B */
    return acc;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
    unsigned long acc = 0;
    for (int r = 0; r < 10; r++) {
        acc += hot_a(n * 2); /* CALL_A */
        acc += hot_b(n); /* CALL_B */
    }
    printf("%lu\n", acc & 1);
    return 0;
}
EOF
line_of() { grep -n "/\* $1 \*/" "$src" | cut -d: -f1; }
LA=$(line_of HOT_A); LB=$(line_of HOT_B); CA=$(line_of CALL_A); CB=$(line_of CALL_B)
gcc -std=gnu11 -O0 -g -o "$T/lines" "$src"

# About one second of CPU: n scaled from the CPU time (not the wall time,
# which a loaded machine stretches) of a short run.
cpu=$( { TIMEFORMAT=%U; time "$T/lines" 2000000 >/dev/null; } 2>&1 )
n=$(awk -v s="$cpu" 'BEGIN { n = 2e6 / (s > 0.001 ? s : 0.001)
    printf "%d", (n < 1e5 ? 1e5 : (n > 1e9 ? 1e9 : n)) }')

CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/s.raw" "$T/lines" "$n" >/dev/null 2>"$T/err"
expect_eq "stderr" "" "$(cat "$T/err")"

"$REPORT_SAN" -b -p "$T/s.raw" >"$T/func.txt"
samples=$(sed -nE 's/^ Sampled: .*; ([0-9]+) samples.*/\1/p' "$T/func.txt")
[ -n "$samples" ] && [ "$samples" -ge 300 ] ||
    fail "only '$samples' samples for about a second at 1 ms"

# --- --by-line -------------------------------------------------------------
"$REPORT_SAN" -b -p --by-line "$T/s.raw" >"$T/lines.txt"
cat "$T/lines.txt"
row_pct() { awk -v n="$1 ($src:$2)" 'index($0, n) { print $1; exit }' "$T/lines.txt"; }
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'; }
pa=$(row_pct hot_a "$LA"); pb=$(row_pct hot_b "$LB")
within "$pa" 58 75 || fail "hot_a line $LA has '$pa'% of the self time, expected 66.7±8"
within "$pb" 25 42 || fail "hot_b line $LB has '$pb'% of the self time, expected 33.3±8"
within "$(awk -v a="$pa" -v b="$pb" 'BEGIN { print a + b }')" 95 100 ||
    fail "the two loop lines have only $pa + $pb% of the samples"
grep -qF "main ($src:$CA)" "$T/lines.txt" || fail "no row for main's call site $CA"
grep -qF "main ($src:$CB)" "$T/lines.txt" || fail "no row for main's call site $CB"

# --- --export samplingprof ---------------------------------------------------
"$REPORT_SAN" --export samplingprof -o "$T/s.sp" "$T/s.raw"
expect_eq "runtime = samples x 1 ms" "$samples.000" "$(head -n 1 "$T/s.sp")"
id_of() { awk -v e="$1" 'BEGIN { RS = ""; FS = "\n" } NR == 2 {
    for (i = 1; i <= NF; i++) { c = match($i, /,[0-9]+$/)
        if (substr($i, 1, c - 1) == e) print substr($i, c + 1) } }' "$T/s.sp"; }
ia=$(id_of "$src:$LA:hot_a"); ib=$(id_of "$src:$LB:hot_b")
ica=$(id_of "$src:$CA:main"); icb=$(id_of "$src:$CB:main")
[ -n "$ia" ] && [ -n "$ib" ] && [ -n "$ica" ] && [ -n "$icb" ] ||
    fail "elements missing (hot_a '$ia', hot_b '$ib', main '$ica' '$icb'): $(sed -n '3,20p' "$T/s.sp")"
# counts: self adds up to the samples, total >= self, one line per id
awk -F, -v n="$samples" 'BEGIN { RS = ""; FS = "\n" } NR == 3 {
    for (i = 1; i <= NF; i++) { split($i, f, ","); self += f[2]
        if (f[3] < f[2]) { print "id " f[1] ": total < self"; bad = 1 }
        if (seen[f[1]]++) { print "id " f[1] " twice"; bad = 1 } }
    if (self != n) { print "self adds up to " self ", not " n; bad = 1 } }
    END { exit bad }' "$T/s.sp" || fail "counts chunk inconsistent"
count_of() { awk -v id="$1" 'BEGIN { RS = ""; FS = "\n" } NR == 3 {
    for (i = 1; i <= NF; i++) { split($i, f, ","); if (f[1] == id) print f[2] } }' "$T/s.sp"; }
arc_of() { awk -v k="$1,$2," 'BEGIN { RS = ""; FS = "\n" } NR == 4 {
    for (i = 1; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$T/s.sp"; }
# every sample on the loop line came through that call site
expect_eq "main:$CA -> hot_a:$LA" "$(count_of "$ia")" "$(arc_of "$ica" "$ia")"
expect_eq "main:$CB -> hot_b:$LB" "$(count_of "$ib")" "$(arc_of "$icb" "$ib")"

# --- read back: the same flat profile by function ----------------------------
"$REPORT_SAN" -b -p "$T/s.sp" >"$T/back.txt"
grep -q "(samplingprof format)" "$T/back.txt" || fail "export not detected as samplingprof"
# Names, %time and its +-, samples and per-call times must be equal; the two
# seconds columns (cumulative, self) may differ in the last digit (TSC ticks
# against the runtime's ms: 735 samples are 0.7351 s in one, 0.735 in the
# other), so they are compared to 0.01 s.
rows() { sed -n '/^ time /,/^$/p' "$1" | awk 'NF >= 8 {
    printf "%s %s %s", $1, $2, $5; for (i = 6; i <= NF; i++) printf " %s", $i
    printf "|%s|%s\n", $3, $4 }'; }
paste -d'\n' <(rows "$T/func.txt") <(rows "$T/back.txt") | awk -F'|' '
    NR % 2 { a = $1; s2 = $2; s3 = $3; next }
    a != $1 || s2 - $2 > 0.011 || $2 - s2 > 0.011 || s3 - $3 > 0.011 || $3 - s3 > 0.011 {
        print "differs: " a " | " $1; bad = 1 }
    END { exit bad }' || fail "the export read back gives another flat profile"
[ "$(rows "$T/func.txt" | wc -l)" = "$(rows "$T/back.txt" | wc -l)" ] ||
    fail "the export read back has another number of rows"
[ "$(rows "$T/func.txt" | wc -l)" -ge 4 ] || fail "no flat profile rows"
echo ok
