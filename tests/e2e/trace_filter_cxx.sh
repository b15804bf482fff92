#!/usr/bin/env bash
# Record-time filters on C++ names (tests/programs/filter_cxx.cpp): by
# demangled name with or without parameters, a template function without
# its return type, a regular expression, a mangled name, and exclusion.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
command -v g++ >/dev/null || skip "no g++"

g++ -O1 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/filter_cxx.cpp"

counts() {
    awk '$2=="C"{sub(/^[^ ]+ C /,""); gsub(/ /,"_"); print}' "$1" | sort |
        uniq -c | awk '{printf "%s=%s ", $2, $1}'
}

# check FILTER "COUNTS" "LEFT OUT"
n=0
check() {
    n=$((n + 1))
    CALLTRACE_FILTER=$1 run_traced "$T/$n.raw" "$T/cxx" 2>"$T/$n.err" ||
        fail "'$1': exit $?"
    [ ! -s "$T/$n.err" ] || fail "'$1': $(cat "$T/$n.err")"
    "$REPORT_SAN" --dump "$T/$n.raw" > "$T/$n.dump" || fail "'$1': --dump"
    grep -q ' C ' "$T/$n.dump" || [ -z "$2" ] ||
        skip "the tracer recorded no calls"
    expect_eq "'$1': calls" "$2" "$(counts "$T/$n.dump")"
    expect_eq "'$1': left out" " Left out by the filter: $3" \
        "$("$REPORT_SAN" -b -p "$T/$n.raw" | grep '^ Left out by the filter')"
}

check '-ns::Parser::skip()' \
    "main=1 ns::Parser::read(int)=4 ns::helper()=3 void_tokenize<int>(int)=5 " \
    "8 calls (8 excluded by -ns::Parser::skip())"
check 'ns::Parser::*' \
    "ns::Parser::read(int)=4 ns::Parser::skip()=8 void_tokenize<int>(int)=4 " \
    "5 calls (5 not below an included function)"
check 'ns::Parser::read@1' "ns::Parser::read(int)=4 " \
    "17 calls (17 not below an included function)"
check 'tokenize<int>' "void_tokenize<int>(int)=5 " \
    "16 calls (16 not below an included function)"
check 're:^ns::.*(helper|skip)$' "ns::Parser::skip()=8 ns::helper()=3 " \
    "10 calls (10 not below an included function)"
check '_ZN2ns6helperEv' "ns::helper()=3 " \
    "18 calls (18 not below an included function)"
echo ok
