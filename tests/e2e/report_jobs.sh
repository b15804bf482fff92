#!/usr/bin/env bash
# calltrace-report --jobs: the report made from pieces decoded on several
# threads is the serial one, byte for byte, and the other views are not
# affected.  CT_PIECE_BYTES cuts this small trace into many pieces (long
# threads into runs of blocks) and makes the reader say how many it used.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/jobs" "$PROGRAMS/report_jobs.c"
CALLTRACE_BUFSIZE=4K run_traced "$T/j.raw" "$T/jobs" > "$T/stdout"
expect_eq stdout 1 "$(cat "$T/stdout")"

"$REPORT" --jobs 1 "$T/j.raw" > "$T/r1" 2> "$T/e1" || fail "--jobs 1: $(cat "$T/e1")"
[ ! -s "$T/e1" ] || fail "--jobs 1 stderr: $(cat "$T/e1")"
grep -q '^ Threads: 4 ' "$T/r1" || fail "4 threads: $(grep Threads: "$T/r1")"
for jobs in 2 3 8; do
    for piece in 8192 65536; do
        CT_PIECE_BYTES=$piece "$REPORT_SAN" --jobs $jobs "$T/j.raw" \
            > "$T/r$jobs" 2> "$T/e$jobs" || fail "--jobs $jobs: $(cat "$T/e$jobs")"
        n=$(sed -n 's/^calltrace-report: \([0-9]*\) pieces on .*/\1/p' "$T/e$jobs")
        [ "${n:-0}" -ge 5 ] || fail "--jobs $jobs, pieces of $piece: not decoded in pieces: $(cat "$T/e$jobs")"
        cmp -s "$T/r1" "$T/r$jobs" ||
            fail "--jobs $jobs, pieces of $piece: report differs: $(diff "$T/r1" "$T/r$jobs" | head -n 20)"
    done
done
# Without the test's cut: the default pieces and thread count.
"$REPORT" "$T/j.raw" > "$T/rdef" || fail "default --jobs"
cmp -s "$T/r1" "$T/rdef" || fail "default --jobs: report differs"
for opt in -p -q -b --no-events --cpu; do
    "$REPORT" --jobs 1 $opt "$T/j.raw" > "$T/o1"
    CT_PIECE_BYTES=8192 "$REPORT" --jobs 2 $opt "$T/j.raw" > "$T/o2" 2>/dev/null
    cmp -s "$T/o1" "$T/o2" || fail "$opt: report differs with --jobs 2"
done
# Views that read serially whatever --jobs says.
for view in --tree --dump --export=folded --export=callgrind --threads \
        --time-range=1ms..20ms --subtract-bias --hide=leaf; do
    "$REPORT" --jobs 1 $view "$T/j.raw" > "$T/v1"
    CT_PIECE_BYTES=8192 "$REPORT" --jobs 2 $view "$T/j.raw" > "$T/v2" 2>/dev/null
    cmp -s "$T/v1" "$T/v2" || fail "$view differs with --jobs 2"
done
# Bad values are refused.
for bad in 0 -1 x 257; do
    if "$REPORT" --jobs "$bad" "$T/j.raw" > /dev/null 2> "$T/err"; then
        fail "--jobs $bad accepted"
    fi
    grep -q -- '--jobs wants' "$T/err" || fail "--jobs $bad: $(cat "$T/err")"
done
echo ok
