#!/usr/bin/env bash
# Names follow what was loaded when: plugin A is dlopen'ed, called and
# dlclose'd, then plugin B is dlopen'ed at the same address and called.
# A's calls keep A's names and B's calls B's, in the report and in --dump.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

for n in alpha beta; do
    gcc -std=gnu11 -O0 -g -fPIC -shared -finstrument-functions -DNAME=$n \
        -o "$T/lib$n.so" "$PROGRAMS/reuse_plugin.c"
done
build_traced "$T/main" "$PROGRAMS/reuse_main.c"
out=$(run_traced "$T/r.raw" "$T/main" "$T/libalpha.so" "$T/libbeta.so")
case $out in
    "same 12 35") ;;
    "different "*) skip "the loader put the second plugin elsewhere: nothing to tell apart" ;;
    *) fail "program output: '$out'" ;;
esac

calls() { # NAME: the flat profile's calls of NAME
    "$REPORT_SAN" -b -p "$T/r.raw" |
        awk -v n="$1" 'NF > 2 && $(NF-1) == n { print $4 }'
}
expect_eq "alpha_entry calls" 1 "$(calls alpha_entry)"
expect_eq "alpha_helper calls" 3 "$(calls alpha_helper)"
expect_eq "beta_entry calls" 1 "$(calls beta_entry)"
expect_eq "beta_helper calls" 5 "$(calls beta_helper)"

# --dump: the calls in time order, each with its own object's name
"$REPORT_SAN" --dump "$T/r.raw" | awk '$2 == "C" && $3 ~ /^(alpha|beta)_/ { print $3 }' |
    paste -sd' ' > "$T/seq"
expect_eq "dump call sequence" \
    "alpha_entry alpha_helper alpha_helper alpha_helper beta_entry beta_helper beta_helper beta_helper beta_helper beta_helper" \
    "$(cat "$T/seq")"
