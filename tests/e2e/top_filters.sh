#!/usr/bin/env bash
# calltrace top takes --hide and --notrace as calltrace-report does, in
# the same order before --tid: on a finished trace its last table, which
# covers the whole run, lists the same functions with the same calls as
# the report's flat profile under the same options.  The program is
# tests/programs/deep_frames.c (jump 40: main -> walk_to_mid x21 -> mid
# -> walk x21), so each option changes the rows in a known way.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
build_traced "$T/deep" "$PROGRAMS/deep_frames.c"
run_traced "$T/t.raw" "$T/deep" jump 40 >/dev/null || fail "deep_frames failed"

# "name calls" per row, sorted by name
top_rows() {
    "$FRONT" top "$@" "$T/t.raw" | awk '/^ SELF%/ { on = 1; next }
        on && NF >= 7 && $1 ~ /%$/ { print $NF, $(NF - 2) }' | sort
}
report_rows() {
    "$REPORT_SAN" -b -p "$@" "$T/t.raw" | sed -n '/^ time /,/^$/p' |
        awk 'NF >= 7 && $4 ~ /^[0-9]+$/ { print $(NF - 1), $4 }' | sort
}
for opts in "" "--hide=walk" "--notrace=mid" "--hide=walk_to_mid --hide=mid" \
            "--notrace=walk --hide=main"; do
    # shellcheck disable=SC2086
    t=$(top_rows $opts); r=$(report_rows $opts)
    [ -n "$t" ] || fail "top $opts: no rows"
    expect_eq "top $opts against the report" "$r" "$t"
done
expect_eq "--hide=walk: walk gone, mid once" "main 1
mid 1
walk_to_mid 21" "$(top_rows --hide=walk)"
expect_eq "--notrace=mid: mid and walk gone" "main 1
walk_to_mid 21" "$(top_rows --notrace=mid)"
"$FRONT" top --hide= "$T/t.raw" >/dev/null 2>"$T/err" && fail "--hide= accepted"
expect_eq "--hide= refused" "calltrace top: --hide: expected a function name or glob" \
    "$(head -n 1 "$T/err")"
echo "top --hide/--notrace: the report's rows"
