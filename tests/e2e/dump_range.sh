#!/usr/bin/env bash
# --dump and --export honour --time-range: only records inside the window,
# each of them also in the whole dump, returns of calls made before the
# window still named.
. "$(dirname "$0")/lib.sh"
build_traced "$T/wf" "$CT_ROOT/examples/wordfreq.c"
run_traced "$T/wf.raw" "$T/wf" 5000 > /dev/null
"$REPORT_SAN" --dump "$T/wf.raw" > "$T/all" || fail "dump failed"
# a window between the records at 40 % and 45 % of the whole dump
total=$(wc -l < "$T/all")
from=$(sed -n "$((total * 40 / 100))p" "$T/all" | cut -d' ' -f1)
to=$(sed -n "$((total * 45 / 100))p" "$T/all" | cut -d' ' -f1)
"$REPORT_SAN" --dump --time-range="${from}ms..${to}ms" "$T/wf.raw" > "$T/win" ||
    fail "windowed dump failed"
n=$(wc -l < "$T/win")
[ "$n" -gt 10 ] || fail "window too empty ($n lines): $(head "$T/all")"
[ "$n" -lt "$(wc -l < "$T/all")" ] || fail "window not smaller than the whole"
awk -v f="$from" -v t="$to" '$1 < f - 0.000001 || $1 > t + 0.000001 {
        print "outside: " $0; bad = 1 } END { exit bad }' "$T/win" ||
    fail "records outside the window"
# every windowed line stands in the whole dump (R lines of calls made
# before the window too: they carry the name), but for the notes naming
# the frames open when the window begins
sort "$T/all" > "$T/all.s"
grep -q ' V[0-9]* already open: ' "$T/win" || fail "no frames open at the window's start"
grep -v ' V[0-9]* already open: ' "$T/win" | sort | comm -23 - "$T/all.s" > "$T/extra"
[ ! -s "$T/extra" ] || fail "lines not in the whole dump: $(head -3 "$T/extra")"
grep -q ' R ' "$T/win" || fail "no returns in the window"
"$REPORT_SAN" --export=lms --time-range="${from}ms..${to}ms" -o "$T/win.csv" "$T/wf.raw" ||
    fail "windowed lms export failed"
"$REPORT_SAN" -b -p "$T/win.csv" > "$T/win.rep" || fail "windowed export unreadable"
grep -q "count_word" "$T/win.rep" || fail "windowed export lost the calls"
