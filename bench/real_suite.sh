#!/usr/bin/env bash
# A real program's own test suite under the tracer: zstd's
# tests/playTests.sh, from Debian's source, built by bench/realprog.sh
# (VARIANT and IFLAGS as there: -finstrument-functions by default,
# VARIANT=patchable IFLAGS=-fpatchable-function-entry=5,0 for patched
# entries).  The suite runs untraced, then once per MODE with every
# process it starts under the tracer (LD_PRELOAD on the script itself: the
# shell, coreutils, datagen and zstd), each in an empty folder of its own.
# Each traced run must end as the untraced one did, with the same lines of
# output (sorted: pipelines interleave their stderr; lines of timings and
# progress left out), and every trace it left must be read whole by
# calltrace-report.  Then zstd's newer suite, tests/cli-tests, whose
# runner compares each case's stdout and stderr with the expected text,
# the same way: the same status and verdict.  Not in make check: it
# fetches a source package and runs for minutes.
#
#   bench/real_suite.sh [MODES]   MODES: any of flight profile sample both
#                                 (default "flight profile sample")
#
# flight: CALLTRACE_FLIGHT=1M (every call kept in a 1 MiB ring, so the
# suite's 2700 processes fit the disk); profile, sample, both:
# CALLTRACE_MODE.  Prints one line per run; exits 1 if any differed.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_setup
MODES=${1:-flight profile sample}

mapfile -t ZSTD < <(bench/realprog.sh zstd 10)
bin=${ZSTD[0]}
tree=$(dirname "$bin")/tree
make -s -C "$tree/tests" datagen >/dev/null
suite=$tree/tests/playTests.sh
[ -f "$suite" ] || { echo "no $suite" >&2; exit 1; }

# The lines of a run's output that say what it did, sorted: progress
# (redrawn with carriage returns, as often as time allows: the dictionary
# builder's "statistics ..." and "k=..." lines) and timings left out.
lines() {
    tr '\r' '\n' <"$1" |
        grep -avE 'copied,|Completed in|cpu load|[KMG]i?B/s| sec|%  |^ *[0-9.]+ ?%|statistics \.\.\.|^ *k=[0-9]+ *$|^ *$|^calltrace: .* ran no instrumented function' |
        sed -E 's/[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}/DATE/g' | sort
}

run_suite() {  # NAME [ENV...]: prints the exit status; output in $W/NAME.log
    local name=$1; shift
    rm -rf "$W/run-$name" "$W/tr-$name"
    mkdir -p "$W/run-$name" "$W/tr-$name"
    local st=0
    (cd "$W/run-$name" && env "$@" ZSTD_BIN="$bin" DATAGEN_BIN="$tree/tests/datagen" \
        bash "$suite" >"$W/$name.log" 2>&1) || st=$?
    echo "$st"
}

# zstd's newer suite, tests/cli-tests: each case's stdout and stderr
# compared with the expected text by its own runner.
cli=$tree/tests/cli-tests/run.py
run_cli() {  # NAME [ENV...]: prints the exit status and the runner's verdict
    local name=$1; shift
    [ -f "$cli" ] || { echo "- (no $cli)"; return; }
    local st=0
    env "$@" python3 "$cli" --zstd "$bin" --datagen "$tree/tests/datagen" \
        >"$W/$name-cli.log" 2>&1 || st=$?
    echo "$st, $(grep -a -m 1 -E '^PASSED|^FAILED|^[0-9]+ tests? failed' "$W/$name-cli.log" || echo "no verdict")"
}

plain=$(run_suite plain)
lines "$W/plain.log" >"$W/plain.lines"
echo "untraced: status $plain, $(wc -l <"$W/plain.lines") lines"
plain_cli=$(run_cli plain)
echo "untraced, cli-tests: status $plain_cli"
failed=0
for mode in $MODES; do
    case $mode in
    flight) set -- CALLTRACE_FLIGHT=1M ;;
    profile|sample|both) set -- CALLTRACE_MODE=$mode ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
    esac
    t0=$(date +%s)
    st=$(run_suite "$mode" LD_PRELOAD="$LIB" CALLTRACE_OUTPUT="$W/tr-$mode/t-%p.raw" "$@")
    secs=$(( $(date +%s) - t0 ))
    cli_st=$(run_cli "$mode" LD_PRELOAD="$LIB" CALLTRACE_OUTPUT="$W/tr-$mode/c-%p.raw" "$@")
    lines "$W/$mode.log" >"$W/$mode.lines"
    bad=0 n=0
    for f in "$W/tr-$mode"/*; do
        n=$((n + 1))
        "$REPORT" "$f" >/dev/null 2>"$W/report.err" && [ ! -s "$W/report.err" ] ||
            { bad=$((bad + 1)); echo "  $f: $(head -n 1 "$W/report.err")"; }
    done
    same=yes
    cmp -s "$W/plain.lines" "$W/$mode.lines" || same=no
    echo "$mode: status $st, same output: $same; cli-tests: status $cli_st; $n traces, $bad not read whole, ${secs}s"
    if [ "$same" = no ]; then
        { diff "$W/plain.lines" "$W/$mode.lines" || true; } | sed -n 1,20p
        cp "$W/plain.log" "$W/$mode.log" build/bench/
        echo "  the two outputs: build/bench/plain.log, build/bench/$mode.log"
    fi
    [ "$st" = "$plain" ] && [ "$same" = yes ] && [ "$bad" = 0 ] &&
        [ "$cli_st" = "$plain_cli" ] || failed=1
    rm -rf "$W/tr-$mode"
done
exit "$failed"
