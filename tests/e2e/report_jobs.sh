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
        --time-range=100us.. --subtract-bias --hide=leaf; do
    "$REPORT" --jobs 1 $view "$T/j.raw" > "$T/v1"
    CT_PIECE_BYTES=8192 "$REPORT" --jobs 2 $view "$T/j.raw" > "$T/v2" 2>/dev/null
    cmp -s "$T/v1" "$T/v2" || fail "$view differs with --jobs 2"
done
# Damage: a trace cut short is still read in pieces, a damaged record sends
# the read back to the serial path; either way output, messages and exit
# status are the serial ones.
size=$(stat -c %s "$T/j.raw")
head -c $((size / 2 + 1234)) "$T/j.raw" > "$T/cut.raw"
cp "$T/j.raw" "$T/bad.raw"
printf '\377\377\377\377\377\377\377\377\377\377\377' |
    dd of="$T/bad.raw" bs=1 seek=$((size / 2 + 100)) conv=notrunc status=none
for f in cut bad; do
    s1=0; "$REPORT_SAN" --jobs 1 "$T/$f.raw" > "$T/d1" 2> "$T/de1" || s1=$?
    s2=0; CT_PIECE_BYTES=8192 "$REPORT_SAN" --jobs 2 "$T/$f.raw" > "$T/d2" 2> "$T/de2" || s2=$?
    expect_eq "$f: exit status" "$s1" "$s2"
    [ "$f" = bad ] || expect_eq "$f: exit status" 2 "$s1"
    cmp -s "$T/d1" "$T/d2" || fail "$f: report differs: $(diff "$T/d1" "$T/d2" | head -n 20)"
    grep -v ' pieces on ' "$T/de2" > "$T/de2.msg" || true
    cmp -s "$T/de1" "$T/de2.msg" || fail "$f: messages differ: $(diff "$T/de1" "$T/de2.msg")"
done
if [ "$s1" = 2 ] && grep -q ' pieces on ' "$T/de2"; then
    fail "bad: read in pieces despite the damage"
fi

# Bad values are refused.
for bad in 0 -1 x 257; do
    if "$REPORT" --jobs "$bad" "$T/j.raw" > /dev/null 2> "$T/err"; then
        fail "--jobs $bad accepted"
    fi
    grep -q -- '--jobs wants' "$T/err" || fail "--jobs $bad: $(cat "$T/err")"
done
echo ok
