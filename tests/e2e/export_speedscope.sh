#!/bin/bash
# --export chrome and folded: a C++ program with two threads, awkward
# names and messages, and frames that never return, exported and opened
# in speedscope in headless Chromium (screenshots in build/exports/); the
# files agree with the report (calls, frames open at the end, user events,
# total time), and every reader's input is exported or refused clearly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tools/viewers.sh"
need_speedscope
SHOTS=$CT_BUILD/exports
mkdir -p "$SHOTS"

g++ -O1 -g -finstrument-functions -I"$CT_ROOT/include" -o "$T/mix" \
    "$PROGRAMS/export_mix.cpp" -lpthread
run_traced "$T/mix.raw" "$T/mix" >/dev/null
"$REPORT_SAN" -b -p "$T/mix.raw" >"$T/report"
calls=$(sed -n 's/^ Events: .*(\([0-9]*\) calls.*/\1/p' "$T/report")
open_end=$(sed -n 's/.* \([0-9]*\) frames open at the end.*/\1/p' "$T/report")
expect_eq "calls in report" 85 "$calls"
expect_eq "frames open in report" 3 "$open_end"

"$REPORT_SAN" --export chrome -o "$T/mix.json" "$T/mix.raw"
got=$(python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/mix.json")
expect_eq "chrome counts" \
    "calls=85 never_returned=3 user=3 calltrace-lost=0 overhead=2" "$got"
grep -q '"name":"quote \\" backslash \\\\ tab \\t newline \\n bell \\u0007 end"' \
    "$T/mix.json" || fail "message escaping"
grep -q 'ns::Grid<int>::operator<(ns::Grid<int> const&) const' "$T/mix.json" ||
    fail "C++ name"
open_in_speedscope "$T/mix.json" "$SHOTS/chrome-speedscope.png"

# A --time-range window: frames open at its start and end are closed so
# that every E pairs with its B by name and args, and speedscope reads the
# window without repairing a stack (it warned for each frame open at the
# window's end when that E carried a mark of its own).
# The window is taken from the trace itself (its middle 40 % of calls and
# returns), not from fixed times: how long the program runs depends on the
# machine, and on a fast one a fixed 1ms..3ms held no event at all.
win=$("$REPORT_SAN" --dump "$T/mix.raw" | awk '$2 == "C" || $2 == "R" { print $1 }' |
      sort -g | awk '{ t[NR] = $1 } END {
          printf "%dus..%dus", int(t[int(NR * 0.3)] * 1000),
                 int(t[int(NR * 0.7)] * 1000) + 1 }')
case $win in *us..*us) ;; *) fail "no window from the dump: '$win'" ;; esac
"$REPORT_SAN" --export chrome --time-range="$win" -o "$T/win.json" "$T/mix.raw"
python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/win.json" > /dev/null ||
    fail "window export: $(python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/win.json" 2>&1)"
has '"cat":"calltrace-window","name":"open at window end"' "$T/win.json" ||
    fail "window export: no frame marked open at the window's end"
open_in_speedscope "$T/win.json" "$SHOTS/chrome-window-speedscope.png" strict

# folded: the lines add up to the report's cpu time (ticks times the tick
# length, as printed), also inside a --time-range window
folded_total() {
    "$REPORT_SAN" --export folded -o "$T/t.folded" "$@" "$T/mix.raw"
    "$REPORT_SAN" -b -p "$@" "$T/mix.raw" >"$T/t.report"
    python3 - "$T/t.folded" "$T/t.report" <<'PY'
import re, sys
total = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[1]))
rep = open(sys.argv[2]).read()
ticks = int(re.search(r"In ticks: (\d+) \+", rep).group(1))
npt = float(re.search(r"1 tick = ([0-9.]+) ns", rep).group(1))
if abs(total - ticks * npt) > ticks * 1e-6 + 2:
    sys.exit(f"folded total {total} ns, report {ticks} ticks x {npt} ns")
PY
}
folded_total || fail "folded total"
folded_total --time-range="$win" || fail "folded total in a window"
"$REPORT_SAN" --export folded -o "$T/mix.folded" "$T/mix.raw"
"$REPORT_SAN" --export folded --folded-value=calls -o "$T/calls.folded" \
    "$T/mix.raw"
expect_eq "folded calls" 85 "$(awk '{s += $NF} END {print s}' "$T/calls.folded")"
grep -qx 'worker(void\*);ns::Grid<int>::step(int) 50' "$T/calls.folded" ||
    fail "worker's calls: $(cat "$T/calls.folded")"
open_in_speedscope "$T/mix.folded" "$SHOTS/folded-speedscope.png"

# every reader's input: a timeline and stacks, or one clear line and exit 2
F=$CT_ROOT/tests/formats
"$REPORT_SAN" --export lms -o "$T/mix.csv" "$T/mix.raw" 2>/dev/null
for f in "$F/calltrace_small.raw" "$F/evlog_be_cross.log" \
         "$F/openlaszlo_edge.profiler" "$F/rtl_wrap_1.log" "$T/mix.csv"; do
    "$REPORT_SAN" --export chrome -o "$T/x.json" "$f" 2>/dev/null ||
        fail "chrome from $f"
    python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/x.json" >/dev/null ||
        fail "chrome from $f"
    "$REPORT_SAN" --export folded -o "$T/x.folded" "$f" 2>/dev/null ||
        fail "folded from $f"
    [ -s "$T/x.folded" ] || fail "no stacks from $f"
done
open_in_speedscope "$T/x.json" "$SHOTS/chrome-from-lms.png"
for fmt in chrome folded; do
    set +e
    "$REPORT_SAN" --export $fmt -o "$T/y" "$F/samplingprof_two_docs.txt" \
        2>"$T/err"
    st=$?
    set -e
    expect_eq "$fmt from aggregated samples: exit" 2 "$st"
    grep -q 'per-function sample counts but no' "$T/err" ||
        fail "$fmt: $(cat "$T/err")"
done
echo ok
