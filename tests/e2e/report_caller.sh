#!/usr/bin/env bash
# calltrace-report --caller=NAME (uftrace's -C at report time) keeps the
# same calls as the tracer's record-time NAME:caller: the paths to each
# call of NAME and the call itself, not what it calls.  On
# tests/programs/filter_actions.c's fixed tree, for names with one path,
# several paths, the outermost function and two names at once; then the
# same calls in the report, the tree and an export; bad uses refused.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"

build_traced "$T/fa" "$PROGRAMS/filter_actions.c"
run_traced "$T/all.raw" "$T/fa"

calls() { awk '$2 == "C" || $2 == "R" { print $2, $3 }'; }

for names in target leaf inner main "target stop"; do
    rule="" opts=()
    for n in $names; do
        rule="$rule${rule:+,}$n:caller"
        opts+=("--caller=$n")
    done
    rm -f "$T/rec.raw"
    CALLTRACE_FILTER=$rule run_traced "$T/rec.raw" "$T/fa"
    "$REPORT_SAN" --dump "$T/rec.raw" | calls > "$T/rec"
    "$REPORT_SAN" --dump "${opts[@]}" "$T/all.raw" > "$T/ana.dump" ||
        fail "--dump ${opts[*]}"
    calls < "$T/ana.dump" > "$T/ana"
    [ -s "$T/rec" ] || fail "$rule recorded no call"
    cmp -s "$T/rec" "$T/ana" ||
        fail "--caller $names differs from $rule: $(diff "$T/rec" "$T/ana" | head)"
done

# By construction: main { path { target { leaf } } ... }: main, path and
# target once each, leaf (called by target) left out, in every view.
"$REPORT_SAN" -b -p --caller=target "$T/all.raw" > "$T/flat" || fail "report"
expect_eq "flat profile" "main 1|path 1|target 1" \
    "$(awk '$NF ~ /^\[/ && $(NF-4) ~ /^[0-9]+$/ { print $(NF-1), $(NF-4) }' "$T/flat" |
       sort | paste -sd'|')"
"$REPORT_SAN" --tree --caller=target "$T/all.raw" > "$T/tree" || fail "--tree"
expect_eq "tree" "main() {|path() {|target();|} /* path */|} /* main */" \
    "$(sed -n 's/^.*| *//p' "$T/tree" | paste -sd'|')"
"$REPORT_SAN" --export=folded --folded-value=calls --caller=target "$T/all.raw" \
    > "$T/folded" || fail "folded"
expect_eq "folded" "main 1|main;path 1|main;path;target 1" \
    "$(sort "$T/folded" | paste -sd'|')"

# A name called nowhere, a profile of CALLTRACE_MODE=profile: one line,
# status 1.
set +e
"$REPORT" --caller=nosuch "$T/all.raw" > /dev/null 2> "$T/err"
rc=$?
set -e
expect_eq "--caller=nosuch status" 1 "$rc"
has -- "--caller names no function called in the trace" < "$T/err" ||
    fail "--caller=nosuch: $(cat "$T/err")"
CALLTRACE_MODE=profile run_traced "$T/prof.raw" "$T/fa"
set +e
"$REPORT" --caller=target "$T/prof.raw" > /dev/null 2> "$T/err"
rc=$?
set -e
expect_eq "--caller on a profile: status" 1 "$rc"
has "is a profile" < "$T/err" || fail "--caller on a profile: $(cat "$T/err")"
echo ok
