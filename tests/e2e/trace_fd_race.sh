#!/usr/bin/env bash
# The tracer never acts on a descriptor number the program can change: a
# thread that closes its low descriptors and dup2()s its own data file over
# them while others switch blocks (4 KiB blocks: hundreds of switches) must
# find its file as it wrote it, every run, and the trace complete.  Before
# the file keeper, one run in five had a trace block written into the
# program's file, or died of SIGBUS.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/race" "$PROGRAMS/fd_race.c"
N=50000
runs=${CT_FD_RACE_RUNS:-25}
for i in $(seq 1 "$runs"); do
    rm -rf "$T/out"; mkdir "$T/out"
    set +e
    out=$(CALLTRACE_BUFSIZE=4K CALLTRACE_OUTPUT="$T/out/t.raw" LD_PRELOAD=$LIB \
        "$T/race" $N "$T/data.bin" 2> "$T/err"); rc=$?
    set -e
    expect_eq "run $i: status" 0 "$rc"
    expect_eq "run $i: output" "data file intact" "$out"
    [ ! -s "$T/err" ] || fail "run $i: tracer spoke: $(head -n 2 "$T/err")"
    if [ "$i" = 1 ] || [ "$i" = "$runs" ]; then
        "$REPORT" -b -p "$T/out/t.raw" > "$T/report" 2>&1 || fail "run $i: report: $(tail -n 2 "$T/report")"
        calls=$(awk 'NF >= 2 && ($NF == "f" || ($(NF-1) == "f" && $NF ~ /^\[/)) {print $4}' "$T/report")
        expect_eq "run $i: calls of f" $((4 * N)) "$calls"
        has '^ Lost events: 0$' < "$T/report" || fail "run $i: lost: $(grep Lost "$T/report")"
    fi
done
echo ok
