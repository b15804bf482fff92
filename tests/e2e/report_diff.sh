#!/usr/bin/env bash
# The diff of two runs: two builds of tests/programs/diff_work.c whose
# changes are known by construction (see its head comment).  The report's
# --diff must name exactly the functions and arcs whose calls changed, with
# exact counts and the right signs; heavy's self time must grow and light's
# shrink (10x each way, so a loaded machine's preemption cannot turn them:
# still, a wrong sign is re-recorded twice before the test fails); the
# folded and flamegraph --diff exports must carry the same; calltrace diff
# must be report --diff; bad use must be one clear error.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

build_traced "$T/old" "$PROGRAMS/diff_work.c" "$PROGRAMS/diff_work_b.c"
build_traced "$T/new" "$PROGRAMS/diff_work.c" "$PROGRAMS/diff_work_b.c" -DNEW
record() {
    rm -f "$T/old.raw" "$T/new.raw"
    run_traced "$T/old.raw" "$T/old" > /dev/null
    run_traced "$T/new.raw" "$T/new" > /dev/null
}
record

# Rows as "IN CALLS_OLD CALLS_NEW CHANGE NAME", files cut to their base
# name: columns 12-15 are the calls and 'in', the name follows.
rows() {
    awk '/^ *[-+0-9.]+ /&& NF >= 16 {
        name = $16; for (i = 17; i <= NF; i++) name = name " " $i
        print $15, $12, $13, $14, name }' | sed 's#(/[^)]*/#(#' | sort
}

"$REPORT_SAN" -b -p --threshold=100 --diff="$T/old.raw" "$T/new.raw" \
    > "$T/funcs.txt" || fail "report --diff failed"
expect_eq "functions whose calls changed" "both 2 6 +4 helper (diff_work_b.c)
both 5 8 +3 chatty
new 0 1 +1 pad
new 0 4 +4 fresh
old 3 0 -3 gone" "$(rows < "$T/funcs.txt")"
has "^Functions: 5 of 11, largest change in self time first (times in [mu]*s):$" \
    "$T/funcs.txt" || fail "functions title: $(grep Functions "$T/funcs.txt")"

"$REPORT_SAN" -b -q --threshold=100 --diff="$T/old.raw" "$T/new.raw" \
    > "$T/arcs.txt" || fail "report --diff -q failed"
expect_eq "arcs whose calls changed" "both 2 6 +4 helper_b_calls -> helper (diff_work_b.c)
both 5 8 +3 main -> chatty
new 0 1 +1 main -> pad
new 0 4 +4 main -> fresh
old 3 0 -3 main -> gone" "$(rows < "$T/arcs.txt")"
has -q "Functions" "$T/arcs.txt" && fail "-q printed the functions"

# Every function, the unchanged ones with equal counts.
"$REPORT_SAN" --diff="$T/old.raw" "$T/new.raw" > "$T/all.txt" ||
    fail "report --diff (all rows) failed"
rows < "$T/all.txt" > "$T/all.rows"
for want in "both 1 1 +0 heavy" "both 1 1 +0 light" "both 3 3 +0 steady" \
            "both 3 3 +0 helper (diff_work.c)" "both 1 1 +0 main" \
            "both 3 3 +0 steady -> helper (diff_work.c)" \
            "both 1 1 +0 <spontaneous> -> main"; do
    has -xF "$want" "$T/all.rows" || fail "no row '$want' in: $(cat "$T/all.txt")"
done
has "^Each function of the two runs is matched" "$T/all.txt" ||
    fail "no explanation without -b"

# The self-time change of a function ($3: old, new, change) by name.
self_change() {
    awk -v f="$1" '$15 == "both" && $16 == f && NF == 16 { print $3 }' "$T/t.txt"
}
signs_right() {
    "$REPORT_SAN" -b -p --diff="$T/old.raw" "$T/new.raw" > "$T/t.txt" ||
        fail "report --diff failed"
    case $(self_change heavy)/$(self_change light) in +*/-*) return 0;; esac
    return 1
}
tries=1
until signs_right; do
    [ $tries -lt 3 ] || fail "heavy/light self-time changes have wrong signs: $(cat "$T/t.txt")"
    tries=$((tries + 1)); record
done
"$REPORT_SAN" -b -p --diff="$T/old.raw" "$T/new.raw" | awk 'NF == 16 && $16 == "heavy"' |
    has " +[0-9.]*% " || fail "heavy's relative change is not positive"

# p99 of the total time per call (columns 9-11): heavy and light are
# called once, so in each run their p99 is their total time (columns 5
# and 6), within the histogram's 0.4 % (and the print's rounding); the
# change's sign follows the total's.
awk 'NF == 16 && ($16 == "heavy" || $16 == "light") {
        for (s = 0; s < 2; s++) {
            t = $(5 + s); q = $(9 + s)
            if (q < t * 0.99 - 0.002 || q > t * 1.01 + 0.002)
                print $16 ": p99 " q " against total " t
        }
        if (($7 < 0) != (substr($11, 1, 1) == "-"))
            print $16 ": p99 change " $11 " against total change " $7
    }' "$T/t.txt" > "$T/p99.bad"
[ -s "$T/p99.bad" ] && fail "p99 column: $(cat "$T/p99.bad")"
has "p99 of total time per call" "$T/t.txt" || fail "no p99 column: $(head -12 "$T/t.txt")"

# folded --diff with calls: difffolded lines, exact.
"$REPORT_SAN" --export=folded --folded-value=calls --diff="$T/old.raw" \
    "$T/new.raw" > "$T/calls.folded" || fail "folded --diff (calls) failed"
expect_eq "difffolded calls" "main 1 1
main;chatty 5 8
main;fresh 0 4
main;gone 3 0
main;heavy 1 1
main;helper_b_calls 1 1
main;helper_b_calls;helper 2 6
main;light 1 1
main;pad 0 1
main;steady 3 3
main;steady;helper 3 3" "$(sort "$T/calls.folded")"

# folded --diff with time: each column is that run's own folded export.
"$REPORT_SAN" --export=folded --diff="$T/old.raw" "$T/new.raw" \
    > "$T/time.folded" || fail "folded --diff failed"
for side in old new; do
    "$REPORT_SAN" --export=folded -o "$T/$side.folded" "$T/$side.raw" ||
        fail "folded $side failed"
done
col=2
for side in old new; do
    expect_eq "$side column of folded --diff" \
        "$(awk '{ print $1, $2 }' "$T/$side.folded" | sort)" \
        "$(awk -v c=$col '$c != 0 { print $1, $c }' "$T/time.folded" | sort)"
    col=3
done

# flamegraph --diff: heavy red, light blue (signs checked above).
"$REPORT_SAN" --export=flamegraph --diff="$T/old.raw" -o "$T/d.svg" \
    "$T/new.raw" || fail "flamegraph --diff failed"
fill() {
    grep -o "data-n=\"$1\"><title>[^<]*</title><rect [^>]*" "$T/d.svg" |
        sed 's/.*fill="\([^"]*\)".*/\1/'
}
[[ $(fill heavy) =~ ^rgb\(255,([0-9]+),([0-9]+)\)$ ]] &&
    [ "${BASH_REMATCH[1]}" -lt 255 ] || fail "heavy not red: $(fill heavy)"
[[ $(fill light) =~ ^rgb\(([0-9]+),([0-9]+),255\)$ ]] &&
    [ "${BASH_REMATCH[1]}" -lt 255 ] || fail "light not blue: $(fill light)"
has "Differential flame graph of" "$T/d.svg" || fail "no differential title"
fill gone | has . && fail "a path only the old run has was drawn"

# The front end: calltrace diff [OLD [NEW]] is report --diff=OLD NEW, and
# with no names compares calltrace.raw.old with calltrace.raw.
if [ -x "$FRONT" ]; then
    "$REPORT" -b --diff="$T/old.raw" "$T/new.raw" > "$T/want.txt"
    "$FRONT" diff -b "$T/old.raw" "$T/new.raw" > "$T/got.txt" ||
        fail "calltrace diff failed"
    cmp -s "$T/want.txt" "$T/got.txt" || fail "calltrace diff differs from report --diff"
    mkdir "$T/cwd"
    cp "$T/old.raw" "$T/cwd/calltrace.raw.old"
    cp "$T/new.raw" "$T/cwd/calltrace.raw"
    (cd "$T/cwd" && "$FRONT" diff -b -p --threshold=100) | rows > "$T/fe.rows" ||
        fail "calltrace diff (defaults) failed"
    expect_eq "calltrace diff with the default names" "$(rows < "$T/funcs.txt")" \
        "$(cat "$T/fe.rows")"
    (cd "$T/cwd" && "$FRONT" export folded --folded-value=calls \
        --diff=calltrace.raw.old) | sort > "$T/fe.folded" ||
        fail "calltrace export folded --diff failed"
    cmp -s "$T/fe.folded" <(sort "$T/calls.folded") ||
        fail "calltrace export folded --diff differs"
    rm "$T/cwd/calltrace.raw.old"
    set +e
    (cd "$T/cwd" && "$FRONT" diff) > /dev/null 2> "$T/err"
    expect_eq "status of calltrace diff with no calltrace.raw.old" 1 $?
    set -e
    has "no calltrace.raw.old to compare with" "$T/err" ||
        fail "no calltrace.raw.old: $(cat "$T/err")"
fi

# A run that keeps no call one by one (a profile, CALLTRACE_MODE=profile)
# has no p99: "-" in its column and in the change, never a figure of 0.
CALLTRACE_MODE=profile run_traced "$T/oldp.raw" "$T/old" > /dev/null
"$REPORT_SAN" -b -p --diff="$T/oldp.raw" "$T/new.raw" > "$T/p.txt" ||
    fail "report --diff of a profile failed"
expect_eq "p99 of a profile (old, change%) for heavy" "- -" \
    "$(awk 'NF == 16 && $16 == "heavy" { print $9, $11 }' "$T/p.txt")"

# Bad use: one clear error each.
set +e
"$REPORT_SAN" --diff="$T/missing.raw" "$T/new.raw" > /dev/null 2> "$T/err"
expect_eq "status for a missing OLD" 2 $?
has "missing.raw" "$T/err" || fail "the error does not name OLD: $(cat "$T/err")"
"$REPORT_SAN" --threshold=5 "$T/new.raw" > /dev/null 2> "$T/err"
expect_eq "status for --threshold without --diff" 1 $?
has "threshold goes with --diff" "$T/err" || fail "$(cat "$T/err")"
"$REPORT_SAN" --export=pprof --diff="$T/old.raw" "$T/new.raw" > /dev/null 2> "$T/err"
expect_eq "status for pprof --diff" 1 $?
has -- "-diff_base" "$T/err" || fail "pprof --diff does not point to -diff_base: $(cat "$T/err")"
"$REPORT_SAN" --diff="$T/old.raw" --threshold=x "$T/new.raw" > /dev/null 2> "$T/err"
expect_eq "status for a bad --threshold" 1 $?
"$REPORT_SAN" --diff="$T/old.raw" --tree "$T/new.raw" > /dev/null 2> "$T/err"
expect_eq "status for --diff --tree" 1 $?
cp "$T/old.raw" "$T/out.raw"
"$REPORT_SAN" --diff="$T/out.raw" -o "$T/out.raw" "$T/new.raw" 2> "$T/err"
expect_eq "status for -o OLD" 1 $?
cmp -s "$T/old.raw" "$T/out.raw" || fail "-o OLD wrote over OLD"
exit 0
