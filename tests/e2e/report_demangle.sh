#!/usr/bin/env bash
# --demangle=full|simple|no (uftrace's --demangle): the C++ names of
# dump_cxx.cpp in every view, with parameters (the default), without them,
# or as the mangled symbols the object files hold (checked against nm's own
# list, so the mangling is known independently); the figures do not change.
. "$(dirname "$0")/lib.sh"
g++ -O1 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/dump_cxx.cpp"
run_traced "$T/cxx.raw" "$T/cxx" >/dev/null
for how in full simple no; do
    "$REPORT_SAN" --tree --demangle=$how "$T/cxx.raw" > "$T/$how.tree" ||
        fail "--tree --demangle=$how failed"
    "$REPORT_SAN" -b -p --demangle=$how "$T/cxx.raw" > "$T/$how.flat" ||
        fail "report --demangle=$how failed"
done
has -F 'shapes::Box::volume() const' "$T/full.tree" || fail "full: $(cat "$T/full.tree")"
has -F 'int shapes::area<int>(int, int)' "$T/full.flat" || fail "full flat"
# simple: no parameters; the tree adds its own "()"
has -F 'shapes::Box::volume()' "$T/simple.tree" || fail "simple: $(cat "$T/simple.tree")"
if has -F '(int, int)' "$T/simple.tree" "$T/simple.flat"; then
    fail "simple kept parameters"
fi
# no: the mangled symbols, each one nm lists for the program
mangled=$(nm "$T/cxx" | awk '$3 ~ /^_ZNK?6shapes3Box6volume/ { print $3 }')
[ -n "$mangled" ] || fail "nm lists no Box::volume"
has -F "$mangled()" "$T/no.tree" || fail "no: want $mangled in $(cat "$T/no.tree")"
has -F "$mangled" "$T/no.flat" || fail "no: flat lacks $mangled"
if has -F 'shapes::' "$T/no.tree"; then fail "no: a demangled name"; fi
# the same calls in each: counts column of the flat profile
counts() { awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ /{ print $4 }' "$1" | sort -n; }
[ -n "$(counts "$T/full.flat")" ] || fail "no counts in: $(cat "$T/full.flat")"
expect_eq "same counts simple" "$(counts "$T/full.flat")" "$(counts "$T/simple.flat")"
expect_eq "same counts no" "$(counts "$T/full.flat")" "$(counts "$T/no.flat")"
set +e
"$REPORT_SAN" --demangle=maybe "$T/cxx.raw" > /dev/null 2> "$T/err"
expect_eq "status of a bad --demangle" 1 $?
set -e
has -- "--demangle wants full, simple or no, got 'maybe'" "$T/err" || fail "$(cat "$T/err")"
echo "report_demangle: ok"
