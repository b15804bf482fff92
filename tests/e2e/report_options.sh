#!/usr/bin/env bash
# calltrace-report's options: an output that is the input (by name, by a
# symbolic or hard link, or as standard output) is refused and the input
# kept; options that would do nothing in the output chosen are refused with
# one line and exit 1.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/calls" "$PROGRAMS/report_calls.c"
run_traced "$T/calls.raw" "$T/calls" >/dev/null
cp "$T/calls.raw" "$T/orig.raw"
ln -s calls.raw "$T/sym.raw"
ln "$T/calls.raw" "$T/hard.raw"

refused() { # WHAT EXPECTED-TEXT ARGS...: exit 1, one line naming it
    local what=$1 text=$2; shift 2
    set +e
    "$REPORT_SAN" "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    set -e
    expect_eq "$what: exit status" 1 "$rc"
    expect_eq "$what: one line" 2 "$(wc -l < "$T/err")"  # + the --help hint
    grep -q -- "$text" "$T/err" || fail "$what: '$(head -1 "$T/err")'"
}
refused_1() { # as refused, for errors found after reading (no --help hint)
    local what=$1 text=$2; shift 2
    set +e
    "$REPORT_SAN" "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    set -e
    expect_eq "$what: exit status" 1 "$rc"
    expect_eq "$what: one line" 1 "$(wc -l < "$T/err")"
    grep -q -- "$text" "$T/err" || fail "$what: '$(head -1 "$T/err")'"
}

# --- -o naming the input ----------------------------------------------------
for o in "$T/calls.raw" "$T/sym.raw" "$T/hard.raw" "$T/./calls.raw"; do
    for mode in "" --dump --export=lms; do
        refused_1 "-o $o $mode" "is the input file" $mode -o "$o" "$T/calls.raw"
        cmp -s "$T/calls.raw" "$T/orig.raw" || fail "-o $o $mode changed the input"
    done
done
refused_1 "-o through the link" "is the input file" -o "$T/calls.raw" "$T/sym.raw"
set +e
"$REPORT_SAN" "$T/calls.raw" >> "$T/calls.raw" 2> "$T/err"
rc=$?
set -e
expect_eq "stdout is the input: exit" 1 "$rc"
grep -q "standard output is the input" "$T/err" || fail "stdout: $(cat "$T/err")"
cmp -s "$T/calls.raw" "$T/orig.raw" || fail "stdout appended to the input"
# an ordinary output file is still written, and truncated first
seq 1 5000 > "$T/report.txt"
"$REPORT_SAN" -b -p -o "$T/report.txt" "$T/calls.raw"
grep -q "^Flat profile" "$T/report.txt" || fail "-o: no report written"
! grep -q "^4999$" "$T/report.txt" || fail "-o: old content left behind"

# --- conflicting options --------------------------------------------------
refused "--dump --tree" "exclude each other" --dump --tree "$T/calls.raw"
refused "--export --tree" "exclude each other" --export=lms --tree "$T/calls.raw"
refused "--dump --export" "exclude each other" --dump --export=lms "$T/calls.raw"
refused "--depth alone" "--depth works with --tree only" --depth=2 "$T/calls.raw"
refused "--min-duration alone" "--min-duration works with --tree only" \
    --min-duration=1us "$T/calls.raw"
refused "--depth --dump" "--depth works with --tree only" --depth=2 --dump "$T/calls.raw"
refused "--subtract-bias --dump" "does not go with" --subtract-bias --dump "$T/calls.raw"
# --tree takes the bias off each call as the report does
"$REPORT_SAN" --subtract-bias --tree "$T/calls.raw" >/dev/null ||
    fail "--subtract-bias --tree (the tree honours it)"
"$REPORT_SAN" --subtract-bias --export=lms "$T/calls.raw" >/dev/null ||
    fail "--subtract-bias --export (the exported profile honours it)"
for opt in -p -q -b --min-percent=1 --no-events --by-line; do
    for mode in --dump --export=lms --tree; do
        refused "$opt $mode" "does not go with" $opt $mode "$T/calls.raw"
    done
done
refused "--focus --dump" "does not go with" --focus=main --dump "$T/calls.raw"
refused "-qNAME --export" "does not go with" -qmain --export=lms "$T/calls.raw"
refused "--threads --dump" "does not go with" --threads --dump "$T/calls.raw"
refused_1 "--by-line without samples" "--by-line needs samples" --by-line "$T/calls.raw"
refused_1 "--lenient on a trace" "--lenient is for text logs" --lenient "$T/calls.raw"
# what still goes together
"$REPORT_SAN" -p -q "$T/calls.raw" >/dev/null || fail "-p -q (both, as gprof)"
"$REPORT_SAN" --tree --depth=2 --min-duration=0 "$T/calls.raw" >/dev/null ||
    fail "--tree --depth --min-duration"
"$REPORT_SAN" --dump --time-range=0..1s "$T/calls.raw" >/dev/null || fail "--dump --time-range"
"$REPORT_SAN" -b -qmain "$T/calls.raw" >/dev/null || fail "-b -qmain"
