#!/usr/bin/env bash
# The objects a trace names (MAPS blocks) are opened for their symbols.  A
# trace comes from elsewhere: the path it names may now be a FIFO, a device
# or a directory.  calltrace-report must not block on the FIFO or read the
# device without end: it says the file is not a regular file, names the
# functions by address, and finishes.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
mkdir "$T/bin"
build_traced "$T/bin/prog" "$PROGRAMS/trace_calls.c"
run_traced "$T/t.raw" "$T/bin/prog" >/dev/null || true   # its exit status is its own
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"
"$REPORT" -b "$T/t.raw" > "$T/good.txt"
grep -q ' main ' "$T/good.txt" || fail "main not named in the untouched trace"

check() { # WHAT
    local rc=0
    timeout 60 "$REPORT_SAN" -b "$T/t.raw" > "$T/r.txt" 2> "$T/e.txt" || rc=$?
    [ $rc -ne 124 ] || fail "$1: the report hung"
    expect_eq "$1: status" 0 "$rc"
    grep -q "prog: cannot open for symbols: not a regular file" "$T/e.txt" ||
        fail "$1: stderr: $(head -c 400 "$T/e.txt")"
    ! grep -q ' main ' "$T/r.txt" || fail "$1: named from a file that is not the program"
    # the same calls, counted the same, named by address
    expect_eq "$1: rows" "$(grep -c '^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9]' "$T/good.txt")" \
        "$(grep -c '^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9]' "$T/r.txt")"
}

rm "$T/bin/prog"
mkfifo "$T/bin/prog"
check "a FIFO"
rm "$T/bin/prog"
ln -s /dev/zero "$T/bin/prog"
check "a device"
rm "$T/bin/prog"
mkdir "$T/bin/prog"
check "a directory"
echo "ok"
