#!/usr/bin/env bash
# --dump of a real trace: a PIE program with a static function, a linked
# shared library (unstripped, then stripped to its dynamic symbols) and a
# plugin opened with dlopen; names, call counts, the user event, the line
# format and the time order.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"

gcc -O1 -g -fPIC -shared -finstrument-functions -o "$T/libdumplib.so" \
    "$PROGRAMS/dump_lib.c"
gcc -O1 -g -fPIC -shared -finstrument-functions -o "$T/plugin.so" \
    "$PROGRAMS/dump_plugin.c"
build_traced "$T/main" "$PROGRAMS/dump_main.c" -L"$T" -ldumplib
export LD_LIBRARY_PATH=$T
expect_eq "untraced output" 56 "$("$T/main" "$T/plugin.so")"
out=$(run_traced "$T/main.raw" "$T/main" "$T/plugin.so")
expect_eq "traced output" 56 "$out"
[ -s "$T/main.raw" ] || skip "the tracer wrote no trace (CALLTRACE_OUTPUT)"

"$REPORT_SAN" --dump "$T/main.raw" > "$T/dump.txt" 2> "$T/err.txt" ||
    fail "--dump exit $?: $(cat "$T/err.txt")"
[ ! -s "$T/err.txt" ] || fail "--dump said: $(cat "$T/err.txt")"
grep -q ' C main$' "$T/dump.txt" || skip "the tracer recorded no calls"

counts() {
    awk '$2=="C"{sub(/^[^ ]+ C /,""); print}' "$1" | sort | uniq -c |
        awk '{printf "%s=%s ", $2, $1}'
}
# Names of the plugin need the MAPS block the tracer writes after dlopen.
grep -q ' C plugin_run$' "$T/dump.txt" ||
    fail "plugin_run unnamed: no MAPS block after dlopen in the trace" \
         "(the tracer's dlopen wrapper must write one)"
expect_eq "calls" \
    "add_twice=6 compute=3 lib_entry=1 lib_square=4 main=1 plugin_helper=1 plugin_run=1 " \
    "$(counts "$T/dump.txt")"
expect_eq "returns" 17 "$(awk '$2=="R"' "$T/dump.txt" | wc -l)"
expect_eq "user event" "V loaded 32" "$(awk '$2=="V"{print $2, $3, $4}' "$T/dump.txt")"
# Every line is "<ms with 6 decimals> <key> <name>", in time order, from 0.
bad=$( (grep -Ev '^[0-9]+\.[0-9]{6} ([CRV] .+|[SE] )$' "$T/dump.txt" || true) | sed -n 1p)
[ -z "$bad" ] || fail "malformed line: '$bad'"
sort -s -n -k1,1 "$T/dump.txt" | cmp -s - "$T/dump.txt" || fail "not in time order"
first=$(head -n 1 "$T/dump.txt" | cut -d' ' -f1)
awk -v f="$first" 'BEGIN { exit !(f < 5) }' || fail "first line at $first ms"

# Stripped library: its exported function keeps its name from the dynamic
# symbols; its static one becomes object+offset, never a wrong name.
mkdir "$T/stripped"
strip -o "$T/stripped/libdumplib.so" "$T/libdumplib.so"
LD_LIBRARY_PATH=$T/stripped run_traced "$T/strip.raw" "$T/main" >/dev/null
"$REPORT_SAN" --dump "$T/strip.raw" > "$T/strip.txt" 2> "$T/err.txt" ||
    fail "--dump (stripped) exit $?: $(cat "$T/err.txt")"
expect_eq "exported name (stripped)" 1 "$(grep -c ' C lib_entry$' "$T/strip.txt")"
expect_eq "static name (stripped)" 4 \
    "$(grep -Ec ' C libdumplib\.so\+0x[0-9a-f]+$' "$T/strip.txt")"
echo "ok"
