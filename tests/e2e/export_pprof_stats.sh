#!/usr/bin/env bash
# --export=pprof --stats: each sample carries numeric labels (min, p50,
# p90, p99, max, in nanoseconds) of its leaf function's call times, read
# by Go's pprof itself (`-raw`, `-tagfocus`).  The call times are known by
# construction (known_work_log: work(n) lasts n ms for n = 1..100, inner
# 1 ms), so the labels are exact, and they equal the report's --stats.
# Without --stats no label is written; --stats with another export is
# refused.
source "$(dirname "$0")/lib.sh"
need_pprof

log=$T/known.log
known_work_log "$log"
"$REPORT_SAN" --export=pprof --stats -o "$T/s.pb.gz" "$log" 2> "$T/err" ||
    fail "export --stats: $(cat "$T/err")"
"$PPROF" -raw "$T/s.pb.gz" > "$T/raw" 2> "$T/err" ||
    fail "pprof -raw: $(cat "$T/err")"

# labels FUNC: the labels of every sample whose leaf is FUNC, one line per
# sample, "max min p50 p90 p99" in ns (pprof -raw prints a sample's
# location ids, leaf first, then its labels on the next line).
labels() {
    local id
    id=$(awk -v f="$1" '/^Locations/ { on = 1; next } on && $4 == f {
             sub(/:$/, "", $1); print $1 }' "$T/raw")
    [ -n "$id" ] || fail "no location of $1: $(cat "$T/raw")"
    awk -v id="$id" '
        /^Locations/ { exit }
        want && /max:\[/ { out = ""
            while (match($0, /[a-z0-9]+:\[[0-9]+ nanoseconds\]/)) {
                kv = substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH)
                split(kv, a, /[:\[ ]/); out = out (out ? " " : "") a[3]
            }
            print out; want = 0; next }
        { want = 0 }
        /^ +[0-9]+ +[0-9]+: / { split($0, a, ": "); split(a[2], ids, " ")
            want = ids[1] == id }' "$T/raw"
}

# work: two paths (from call_odd and from call_even), each labelled with
# all 100 calls' figures: 1, 50, 90, 99, 100 ms (nearest rank).
expect_eq "work's labels" \
    "100000000 1000000 50000000 90000000 99000000
100000000 1000000 50000000 90000000 99000000" "$(labels work)"
expect_eq "inner's labels" "1000000 1000000 1000000 1000000 1000000" \
    "$(labels inner | sort -u)"

# The same figures as the report's --stats line of each function.
"$REPORT_SAN" --stats -b "$log" > "$T/report" || fail "report --stats"
for f in work inner call_odd call_even; do
    # report: min p50 p90 p99 max of the total line; labels: max min p50 p90 p99
    rep=$(awk -v f="$f" 'NF > 2 && $NF ~ /^\[/ && $(NF-1) == f && $2 == "total" {
              print $3, $4, $5, $6, $7; exit }' "$T/report")
    [ -n "$rep" ] || fail "no --stats line of $f"
    ns=""
    for d in $rep; do
        ns="$ns${ns:+ }$(awk -v d="$d" 'BEGIN {
            if (d ~ /ns$/) m = 1; else if (d ~ /us$/) m = 1e3;
            else if (d ~ /ms$/) m = 1e6; else m = 1e9;
            sub(/[a-z]+$/, "", d); printf "%.0f", d * m }')"
    done
    read -r mn p50 p90 p99 mx <<< "$ns"
    expect_eq "$f: labels as the report's --stats" "$mx $mn $p50 $p90 $p99" \
        "$(labels "$f" | sort -u)"
done

# -tagfocus keeps the paths whose leaf's calls are in range: a call of
# 100 ms or more (work, and call_even around it; call_odd's longest is
# 99 ms), every call at most 2 ms (inner alone).
"$PPROF" -top -sample_index=calls -tagfocus=max=100ms: "$T/s.pb.gz" \
    > "$T/slow" 2> /dev/null || fail "pprof -tagfocus"
expect_eq "-tagfocus=max=100ms: flat" "call_even work" \
    "$(awk '$1 ~ /^[0-9]+$/ && $1 > 0 && NF == 6 { print $6 }' "$T/slow" | sort | paste -sd' ')"
"$PPROF" -top -sample_index=calls -tagfocus=max=:2ms "$T/s.pb.gz" \
    > "$T/quick" 2> /dev/null || fail "pprof -tagfocus"
expect_eq "-tagfocus=max=:2ms flat" "inner" \
    "$(awk '$1 ~ /^[0-9]+$/ && $1 > 0 && NF == 6 { print $6 }' "$T/quick" | sort | paste -sd' ')"

# Without --stats: the same samples, no labels.
"$REPORT_SAN" --export=pprof -o "$T/p.pb.gz" "$log" || fail "export"
"$PPROF" -raw "$T/p.pb.gz" > "$T/plain" 2> /dev/null || fail "pprof -raw"
expect_eq "labels without --stats" 0 "$(grep -c 'nanoseconds\]' "$T/plain" || true)"

# --stats with an export that has no place for it: one line, status 1.
for fmt in callgrind folded chrome; do
    set +e
    "$REPORT" --export=$fmt --stats -o "$T/x" "$log" 2> "$T/err"
    rc=$?
    set -e
    expect_eq "--stats --export=$fmt: status" 1 "$rc"
    has -- "--stats goes with the report and --export=pprof only" < "$T/err" ||
        fail "--stats --export=$fmt: $(cat "$T/err")"
done
echo ok
