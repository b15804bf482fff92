#!/usr/bin/env bash
# gprof as the oracle: the same program built with -pg and with
# -finstrument-functions must give identical call counts on every arc of
# the call graph; our call graph must also parse with gprof2dot's patterns.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v gprof >/dev/null || skip "gprof not installed"
command -v python3 >/dev/null || skip "python3 not installed"
PY="python3 $CT_ROOT/tests/e2e/report_gprof.py"
SRC=$PROGRAMS/report_calls.c

gcc -std=gnu11 -O0 -pg -I"$CT_ROOT/include" -o "$T/pg" "$SRC"
(cd "$T" && ./pg >/dev/null)
[ -f "$T/gmon.out" ] || fail "the -pg build wrote no gmon.out"
gprof -b -q "$T/pg" "$T/gmon.out" > "$T/gprof.txt"

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/ct" "$SRC"
run_traced "$T/ct.raw" "$T/ct" >/dev/null
"$REPORT_SAN" -b -q "$T/ct.raw" > "$T/ours.txt" || fail "report failed"

$PY arcs "$T/gprof.txt" > "$T/gprof.arcs"
$PY arcs "$T/ours.txt" > "$T/ours.arcs"
[ "$(wc -l < "$T/gprof.arcs")" -ge 8 ] || fail "gprof saw too few arcs: $(cat "$T/gprof.arcs")"
diff -u "$T/gprof.arcs" "$T/ours.arcs" || fail "arc counts differ from gprof"
# counts known from the program itself
grep -qx "work -> scale 200" "$T/ours.arcs" || fail "work -> scale"
grep -qx "main -> scale 50" "$T/ours.arcs" || fail "main -> scale"
$PY check "$T/ours.txt" || fail "call graph lines gprof2dot would not parse"
# cycle members as gprof shows them
grep -q "<cycle 1 as a whole>" "$T/ours.txt" || fail "no cycle entry"
grep -q "<cycle 1 as a whole>" "$T/gprof.txt" || fail "gprof saw no cycle"
echo "arcs identical: $(wc -l < "$T/ours.arcs")"
