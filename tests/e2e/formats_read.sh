#!/bin/bash
# Every shared sample is detected by content and reported with the figures
# worked out by hand from the files; damage gives one error line and
# status 2; --lenient skips and counts.
. "$(dirname "$0")/lib.sh"
S=$FORMATS/samples
[ -d "$S" ] || fail "no samples at $S"

flat() { # flat FILE NAME: "calls self-us/call total-us/call" of NAME, in us
    # (the per-call unit is the report's choice: converted to us here)
    "$REPORT_SAN" -b -p "$1" | awk -v n="$2" '
        / name *$/ { u = $5; sub(/\/call/, "", u)
                     f = u == "s" ? 1e6 : u == "ms" ? 1e3 : u == "ns" ? 1e-3 : 1
                     on = 1; next }
        on && NF >= 7 { nm = $7; for (i = 8; i <= NF; i++) nm = nm " " $i
                        sub(/ \[[0-9]+\]$/, "", nm)
                        if (nm == n && !done) { printf "%s %.2f %.2f\n", $4, $5 * f, $6 * f; done = 1 } }'
}

# lms: the seed's own reading: reader 2 calls 1690 us, writer 1 call 200 us
cp "$S/lms_seed_example.csv" "$T/renamed.txt"
expect_eq "lms reader" "2 845.00 845.00" "$(flat "$T/renamed.txt" reader)"
expect_eq "lms writer" "1 200.00 200.00" "$(flat "$T/renamed.txt" writer)"

# openlaszlo: LzView(cal) 1497..1509 (called from the merged V payload), 8 ms in handle cal.oninit
expect_eq "openlaszlo LzView" "1 4000.00 12000.00" \
    "$(flat "$S/openlaszlo-v5.profiler" 'LzView(cal)')"
"$REPORT_SAN" -b "$S/openlaszlo-v5.profiler" | has 'done: LzView(cal)' ||
    fail "openlaszlo user event missing"

# rtl: Main 1503..2391, four children
expect_eq "rtl Main" "1 102000.00 888000.00" \
    "$(flat "$S/rtl_soffice_4711.log" 'desktop (cd100003) ::desktop::Desktop::Main')"

# evlog: the RUN state, 16.6 ms
"$REPORT_SAN" -b "$S/efl_debug_evlog-4242.log" | has 'CPUFREQ 0: last 2400 MHz' ||
    fail "evlog CPUFREQ metadata missing"

# samplingprof: fib has 5 of the 10 samples
"$REPORT_SAN" -b -p "$S/samplingprof_profile.txt" | has -E '^ *50\.00 .* fib \[' ||
    fail "samplingprof: fib is not 50%"

# --format overrides detection
"$REPORT_SAN" -b --format lms "$S/openlaszlo-v5.profiler" >/dev/null 2>"$T/err" &&
    fail "openlaszlo read as lms succeeded"
expect_eq "status" 2 "$(set +e; "$REPORT_SAN" -b --format lms \
    "$S/openlaszlo-v5.profiler" >/dev/null 2>&1; echo $?)"
expect_eq "one error line" 1 "$(wc -l < "$T/err")"
grep -q 'openlaszlo-v5.profiler: line 1: ' "$T/err" || fail "error names no line: $(cat "$T/err")"

# damage: one line naming file and line, status 2; --lenient goes on
printf '2,0,a\n0,0,5\n0,9,1\n1,0,5\n' > "$T/bad.csv"
set +e
"$REPORT_SAN" -b "$T/bad.csv" >/dev/null 2>"$T/err"; st=$?
set -e
expect_eq "damaged status" 2 "$st"
grep -q "bad.csv: line 3: id 9 used before" "$T/err" || fail "bad message: $(cat "$T/err")"
"$REPORT_SAN" -b --lenient "$T/bad.csv" >/dev/null 2>"$T/err"
grep -q "skipped 1 malformed line" "$T/err" || fail "lenient count missing"

# a cut evlog: report up to the cut, say so, status 2
head -c 500 "$S/efl_debug_evlog-4242.log" > "$T/cut.log"
set +e
"$REPORT_SAN" -b "$T/cut.log" >/dev/null 2>"$T/err"; st=$?
set -e
expect_eq "cut evlog status" 2 "$st"
grep -q "truncated at byte 500" "$T/err" || fail "cut not named: $(cat "$T/err")"
echo ok
