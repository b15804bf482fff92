#!/usr/bin/env bash
# Off-CPU time inside a pause of tracing (tests/programs/cpu_offcpu_paused.c):
# work() pauses tracing, sleeps 60 ms and spins 20 ms of CPU in hidden()
# (not recorded), resumes, and calls shown() (40 ms asleep, 20 ms of CPU).
# The paused time is work()'s own, wall and off-CPU alike, and the report,
# --tree and the exports must say so with the same figures, in the whole
# trace and in a --time-range window that begins inside the pause.  The
# bounds are generous: they check what is counted where, not how fast the
# machine is.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/paused" "$PROGRAMS/cpu_offcpu_paused.c" -O0

# ms of a figure and its unit (ns, us, ms, s).
ms() { awk -v v="$1" -v u="$2" 'BEGIN {
    f = u == "ns" ? 1e-6 : u == "us" ? 1e-3 : u == "ms" ? 1 : 1000
    printf "%.6f\n", v * f }'; }
# "wall on" (ms) of function F's call in a --tree with an ON-CPU column.
tree_call() { # TREE F
    local line
    line=$(grep -E "\| *($2\(\)( \{|;)|\} /\* $2(: [a-z ]+)? \*/)( \[tracer [^]]*\])?\$" "$1" |
           grep -E '^ *[0-9.]+ [num ]*s +[0-9.]+ [num ]*s' | sed -n 1p) ||
        fail "no timed call of $2 in $1"
    set -- $line
    echo "$(ms "$1" "$2") $(ms "$3" "$4")"
}
# "self total" (ms) of function F's line in a flat profile printed with
# -b -p: self in the table's unit, total per call in its per-call unit.
flat() { # REPORT F
    awk -v f="$2" '
        function ms(v, u) {
            return u == "ns" ? v / 1e6 : u == "us" ? v / 1e3 : u == "s" ? v * 1e3 : v }
        $1 == "time" && $NF == "name" { su = $3; cu = $5; sub("/call", "", cu) }
        NF == 8 && $7 == f && $8 ~ /^\[[0-9]+\]$/ {
            printf "%.6f %.6f\n", ms($3, su), ms($6, cu); found = 1; exit }
        END { exit !found }' "$1" || fail "no flat line of $2 in $1"
}
# The summary's split of the functions' time: "on off" (ms).
summary_split() { # REPORT
    local line
    line=$(sed -nE 's/^On-CPU: from context switches; of the functions. time ([0-9.]+)(ns|us|ms|s)\(on-CPU\) ([0-9.]+)(ns|us|ms|s)\(off-CPU.*/\1 \2 \3 \4/p' "$1")
    [ -n "$line" ] || fail "no On-CPU split in $1"
    set -- $line
    echo "$(ms "$1" "$2") $(ms "$3" "$4")"
}
# ms from the first B to the first E of function F in a chrome export.
chrome_slice() { # JSON F
    python3 - "$1" "$2" <<'PY' || fail "no slice of $2 in $1"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = [e["ts"] for e in ev if e["ph"] == "B" and e["name"] == sys.argv[2]]
e = [e["ts"] for e in ev if e["ph"] == "E" and e["name"] == sys.argv[2]]
print("%.6f" % ((e[0] - b[0]) / 1000))
PY
}
check() { # WHAT EXPR a b
    awk -v a="$3" -v b="$4" "BEGIN { exit !($2) }" ||
        fail "$1: $2 does not hold for a=$3 b=$4"
}
# The same figure in two views: printed to 3 or 4 digits, so within 0.02 ms
# (or 0.1 % of it).
same() { # WHAT a b
    check "$1" "(a - b < 0.02 && b - a < 0.02) || (a - b < a / 1000 && b - a < a / 1000)" "$2" "$3"
}

for mode in region process signal; do
    CALLTRACE_SIGNAL=USR2 run_traced "$T/$mode.raw" "$T/paused" "$mode"
    "$REPORT_SAN" -b -p "$T/$mode.raw" > "$T/$mode.rep" || fail "$mode: report"
    if ! grep -q '^On-CPU: from context switches' "$T/$mode.rep"; then
        skip "context-switch records unavailable here: $(grep '^On-CPU' "$T/$mode.rep")"
    fi
    "$REPORT_SAN" -b -p --cpu "$T/$mode.raw" > "$T/$mode.cpu" || fail "$mode: --cpu"
    "$REPORT_SAN" --tree "$T/$mode.raw" > "$T/$mode.tree" || fail "$mode: --tree"
    # hidden() and its callees are not recorded: its time is work()'s own
    has -q 'hidden' "$T/$mode.tree" && fail "$mode: hidden() in the tree"

    read -r wall on < <(tree_call "$T/$mode.tree" work)
    # by construction: 100 ms asleep, 40 ms of CPU time
    check "$mode: work wall" "a >= 130" "$wall" 0
    check "$mode: work off-CPU" "a - b >= 90" "$wall" "$on"
    check "$mode: work on-CPU" "b >= 30 && b <= 60" "$wall" "$on"
    read -r swall son < <(tree_call "$T/$mode.tree" shown)
    check "$mode: shown wall" "a >= 55" "$swall" 0
    check "$mode: shown on-CPU" "b >= 15 && b <= 30" "$swall" "$son"

    # the report: work's self holds the pause, 60 ms asleep and 20 ms of CPU
    read -r self total < <(flat "$T/$mode.rep" work)
    same "$mode: work total, report and tree" "$total" "$wall"
    check "$mode: work self (wall)" "a >= 75" "$self" 0
    read -r cself ctotal < <(flat "$T/$mode.cpu" work)
    same "$mode: work on-CPU, --cpu and tree" "$ctotal" "$on"
    check "$mode: work self on-CPU" "a >= 15 && a <= 30" "$cself" 0
    check "$mode: work self off-CPU" "a - b >= 55" "$self" "$cself"
    read -r mon moff < <(summary_split "$T/$mode.rep")
    read -r mwall mtree < <(tree_call "$T/$mode.tree" main)
    same "$mode: functions' on-CPU, summary and tree" "$mon" "$mtree"
    same "$mode: functions' off-CPU, summary and tree" "$moff" \
        "$(awk -v a="$mwall" -v b="$mtree" 'BEGIN { printf "%.6f", a - b }')"

    # the exports carry wall time: work's self in folded, work's slice in
    # chrome, both as the report has them
    "$REPORT_SAN" --export=folded -o "$T/$mode.folded" "$T/$mode.raw" ||
        fail "$mode: folded"
    same "$mode: work self, folded and report" \
        "$(awk '$1 == "main;work" { printf "%.6f", $2 / 1e6 }' "$T/$mode.folded")" "$self"
    "$REPORT_SAN" --export=chrome -o "$T/$mode.json" "$T/$mode.raw" ||
        fail "$mode: chrome"
    slice=$(chrome_slice "$T/$mode.json" work)
    same "$mode: work, chrome slice and report" "$slice" "$total"
done

# A window that begins inside the pause (30 ms before tracing resumed) and
# ends 10 ms into shown()'s sleep: work() is open all through it, its
# on-CPU time there is at most the pause's 20 ms spin (less on a loaded
# machine, never 0), and the time asleep before the window is nobody's in
# it.
# awk reads to the end (an early exit could kill the report with SIGPIPE)
resume=$("$REPORT_SAN" --dump "$T/region.raw" | awk '$2 == "C" && $3 == "shown" && r == "" { r = $1 } END { print r }')
[ -n "$resume" ] || fail "no call of shown in the dump"
W=--time-range=$(awk -v r="$resume" 'BEGIN { printf "%.3fms..%.3fms", r - 30, r + 10 }')
"$REPORT_SAN" -b -p "$W" "$T/region.raw" > "$T/win.rep" || fail "window: report"
"$REPORT_SAN" -b -p --cpu "$W" "$T/region.raw" > "$T/win.cpu" || fail "window: --cpu"
"$REPORT_SAN" --tree "$W" "$T/region.raw" > "$T/win.tree" || fail "window: --tree"
read -r wall on < <(tree_call "$T/win.tree" work)
same "window: work wall is the window's" "$wall" 40
check "window: work on-CPU" "b >= 1 && b <= 31" "$wall" "$on"
read -r mon moff < <(summary_split "$T/win.rep")
read -r mwall mtree < <(tree_call "$T/win.tree" main)
same "window: functions' on-CPU, summary and tree" "$mon" "$mtree"
same "window: functions' off-CPU, summary and tree" "$moff" \
    "$(awk -v a="$mwall" -v b="$mtree" 'BEGIN { printf "%.6f", a - b }')"
# The exports in that window: work's slice is the window, nap's lasts
# from its call to the window's end, as folded and the report have them
# (not from and to the scheduler's records inside the pause).
"$REPORT_SAN" --export=chrome "$W" -o "$T/win.json" "$T/region.raw" ||
    fail "window: chrome"
same "window: work's chrome slice is the window" "$(chrome_slice "$T/win.json" work)" 40
"$REPORT_SAN" --export=folded "$W" -o "$T/win.folded" "$T/region.raw" ||
    fail "window: folded"
same "window: nap, chrome and folded" "$(chrome_slice "$T/win.json" nap)" \
    "$(awk '$1 == "main;work;shown;nap" { printf "%.6f", $2 / 1e6 }' "$T/win.folded")"
same "window: work's self, folded and tree" \
    "$(awk '$1 == "main;work" { printf "%.6f", $2 / 1e6 }' "$T/win.folded")" \
    "$(awk -v r="$resume" -v f="${W#--time-range=}" 'BEGIN {
        split(f, w, "ms.."); printf "%.6f", r - w[1] }')"

# A window wholly inside the pause: no event of the program in it (status
# 1, said on stderr), but work is open all through it in every view.
W=--time-range=$(awk -v r="$resume" 'BEGIN { printf "%.3fms..%.3fms", r - 25, r - 5 }')
rc=0; "$REPORT_SAN" -b -p "$W" "$T/region.raw" > "$T/in.rep" 2> /dev/null || rc=$?
expect_eq "window in the pause: report status" 1 "$rc"
rc=0; "$REPORT_SAN" --tree "$W" "$T/region.raw" > "$T/in.tree" 2> /dev/null || rc=$?
expect_eq "window in the pause: --tree status" 1 "$rc"
read -r iwall ion < <(tree_call "$T/in.tree" work)
same "window in the pause: work in the tree" "$iwall" 20
read -r mon moff < <(summary_split "$T/in.rep")
same "window in the pause: on-CPU, summary and tree" "$mon" "$ion"
rc=0; "$REPORT_SAN" --export=chrome "$W" -o "$T/in.json" "$T/region.raw" 2> /dev/null || rc=$?
expect_eq "window in the pause: chrome status" 1 "$rc"
same "window in the pause: work's chrome slice" "$(chrome_slice "$T/in.json" work)" 20
echo "ok: work $(tree_call "$T/region.tree" work) ms (wall, on-CPU); window $wall $on; in the pause $iwall $ion"
