#!/usr/bin/env bash
# CALLTRACE_ARGS on library calls: tests/programs/args_main.c calls
# args_lib.c through the PLT with values known by construction; --tree
# shows them in uftrace's spelling at -O0 and at -O2 (the values are read
# from the registers at the PLT call, which no optimisation level moves),
# a string at a bad address shows as <bad pointer 0x10> and the program
# runs on; the values are the same whichever path writes them (in place
# or through the general path a filter takes); --dump and the chrome
# export carry the same text; a function
# with no rule shows no values; `auto` gives the built-in table; a bad
# spec is one message naming the place, and the program runs untouched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default: plt

gcc -std=gnu11 -O2 -fPIC -shared -o "$T/libargs_lib.so" "$PROGRAMS/args_lib.c"
SPEC='lib_add@arg1/i32,arg2,retval/i32;lib_greet@arg1/s,arg2/c,retval/s'
SPEC+=';lib_scale@fparg1,fparg2/f32,arg1/i32,retval/f'
SPEC+=';lib_many@arg1/i32,arg2/i32,arg3/i32,arg4/i32,arg5/i32,arg6/i32,arg7/i32,arg8,retval'
SPEC+=';lib_mask@arg1/x16,retval/u32;access@plt@arg1/s,arg2,retval/i32'
SPEC+=';lib_len@arg1/s16,retval'

want_tree='main() {
  lib_add@plt(-1, 2) = 1;
  lib_add@plt(40, 2) = 42;
  lib_greet@plt("world", '"'"'!'"'"') = "world";
  lib_scale@plt(1.500000, 2.000000, -2) = -6.000000;
  lib_many@plt(1, 2, 3, 4, 5, 6, 7, 0x174876e800) = 0x174876e81c;
  lib_mask@plt(0x1234) = 560;
  access@plt(<bad pointer 0x10>, 0) = -1;
  access@plt(NULL, 0) = -1;
  lib_len@plt("a \"quoted\"\tline "...) = 49;
  printf@plt();
} /* main */'

# tree_text RAW: --tree's function column (durations and tids cut off).
tree_text() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| //p'
}

for opt in 0 2; do
    build_traced "$T/m$opt" "$PROGRAMS/args_main.c" -O$opt \
        -L"$T" -largs_lib -Wl,-rpath,"$T"
    want_out=$("$T/m$opt")
    traced_like_untraced "-O$opt" "$T/m$opt.raw" "$want_out" \
        CALLTRACE_ARGS="$SPEC" "$T/m$opt"
    expect_eq "-O$opt: tree" "$want_tree" "$(tree_text "$T/m$opt.raw")"
done

# --dump: a V note after the C line, another before the R line.
"$REPORT_SAN" --dump "$T/m2.raw" > "$T/dump.txt"
grep -A1 ' C lib_mask@plt$' "$T/dump.txt" | has ' V args: 0x1234$' ||
    fail "--dump: no args note after lib_mask's C line"
grep -B1 ' R lib_mask@plt$' "$T/dump.txt" | has ' V retval: 560$' ||
    fail "--dump: no retval note before lib_mask's R line"

# chrome: the values are the slice's args, on its E.
"$REPORT_SAN" --export=chrome -o "$T/chrome.json" "$T/m2.raw"
python3 - "$T/chrome.json" <<'PY' || fail "chrome: values not in the slice's args"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ends = [e for e in ev if e.get("ph") == "E" and e.get("name") == "lib_greet@plt"]
assert ends and ends[0]["args"] == {"args": "\"world\", '!'", "retval": "\"world\""}, ends
PY

# perfetto: debug annotations on the slice's end (decoded with Perfetto's
# own messages, where protoc is installed).
if command -v protoc >/dev/null; then
    "$REPORT_SAN" --export=perfetto -o "$T/t.pb" "$T/m2.raw"
    protoc --decode=perfetto.protos.Trace -I "$CT_ROOT/tests/proto" \
        "$CT_ROOT/tests/proto/perfetto_subset.proto" < "$T/t.pb" > "$T/pb.txt"
    grep -A1 'string_value: "-1, 2"' "$T/pb.txt" | has 'name: "args"' ||
        fail "perfetto: lib_add's args"
    grep -A1 'string_value: "560"' "$T/pb.txt" | has 'name: "retval"' ||
        fail "perfetto: lib_mask's retval"
fi

# The same values whichever path writes them: integers in registers are
# encoded straight into the block with the call, while the hooks' fast
# path is open (preload/args/plan.c); under a record-time filter, which
# shuts it, the general path builds the record.  A filter that leaves out printf alone
# must give the same tree otherwise, each value included.
traced_like_untraced "filtered" "$T/filt.raw" "$want_out" \
    CALLTRACE_ARGS="$SPEC" CALLTRACE_FILTER='-printf@plt' "$T/m2"
expect_eq "values written in place and by the general path" \
    "$(tree_text "$T/m2.raw" | grep -v '^  printf@plt')" \
    "$(tree_text "$T/filt.raw")"

# No rule: no values, and the calls are the same as without the option.
traced_like_untraced "plain" "$T/plain.raw" "$want_out" \
    CALLTRACE_ARGS='lib_mask@arg1' "$T/m2"
tree_text "$T/plain.raw" | has '^  lib_add@plt();$' ||
    fail "a function with no rule shows values"
expect_eq "calls with and without values" \
    "$("$REPORT_SAN" -b -p "$T/plain.raw" | awk '$4 ~ /^[0-9]+$/ {n += $4} END {print n}')" \
    "$("$REPORT_SAN" -b -p "$T/m2.raw" | awk '$4 ~ /^[0-9]+$/ {n += $4} END {print n}')"

# auto: the built-in table (printf's format, its count of bytes).
traced_like_untraced "auto" "$T/auto.raw" "$want_out" \
    CALLTRACE_ARGS=auto "$T/m2"
tree_text "$T/auto.raw" | has "^  printf@plt(\"%d %s %.1f %ld %x %d %d %d\\\\n\") = $((${#want_out} + 1));\$" ||
    fail "auto: printf's values: $(tree_text "$T/auto.raw" | grep printf)"

# A bad spec: one message naming the place; the program is untouched.
set +e
out=$(CALLTRACE_ARGS='lib_add@arg1/q' CALLTRACE_OUTPUT=$T/bad.raw \
      LD_PRELOAD=$LIB "$T/m2" 2>"$T/bad.err")
rc=$?
set -e
expect_eq "bad spec: exit status" 0 "$rc"
expect_eq "bad spec: output" "$want_out" "$out"
has "CALLTRACE_ARGS='lib_add@arg1/q': at offset 13: expected a format" "$T/bad.err" ||
    fail "bad spec: message: $(cat "$T/bad.err")"
expect_eq "bad spec: one message" 1 "$(wc -l < "$T/bad.err")"

# calltrace record: --args (repeatable) and --auto-args join into one
# CALLTRACE_ARGS; a bad --args is refused before the program runs.
(cd "$T" && "$FRONT" record -q -o fe.raw --args 'lib_add@arg1/i32' \
    --args 'lib_mask@arg1/x16,retval/u32' --auto-args ./m2 > fe.out)
expect_eq "record: output" "$want_out" "$(cat "$T/fe.out")"
tree_text "$T/fe.raw" | has '^  lib_add@plt(-1);$' || fail "record: --args"
tree_text "$T/fe.raw" | has '^  lib_mask@plt(0x1234) = 560;$' ||
    fail "record: second --args"
tree_text "$T/fe.raw" | has '^  printf@plt("%d' || fail "record: --auto-args"
set +e
"$FRONT" record -o "$T/no.raw" --args 'lib_add@arg1/q' "$T/m2" > "$T/no.out" 2> "$T/no.err"
rc=$?
set -e
expect_eq "record: bad --args status" 1 "$rc"
has "^calltrace record: --args='lib_add@arg1/q': at offset 13" "$T/no.err" ||
    fail "record: bad --args message: $(cat "$T/no.err")"
expect_eq "record: bad --args runs nothing" "" "$(cat "$T/no.out")"

# uftrace, where installed, keeps the same values with the same rules
# (its -A/-R spelling is the one CALLTRACE_ARGS takes); calltrace names
# library calls name@plt.  The differences kept on purpose (strings
# escaped and cut, bad pointers, NULL) are in docs/tracer.md.
if command -v uftrace >/dev/null; then
    uftrace record -d "$T/u.data" -A 'lib_add@arg1/i32,arg2' \
        -R 'lib_add@retval/i32' -A 'lib_greet@arg1/s,arg2/c' \
        -R 'lib_greet@retval/s' -A 'lib_mask@arg1/x16' \
        -R 'lib_mask@retval/u32' "$T/m2" > /dev/null 2>&1 ||
        fail "uftrace record failed"
    # "name(args) = retval" per call of main's: a call shown with callees
    # (uftrace lists what the library's own PLT calls, when it resolves
    # them) gives its return value on its closing line
    calls_of() {
        awk '/^  lib_(add|greet|mask)\(.*\)( = .*)?;$/ {
                 s = substr($0, 3); sub(/;$/, "", s); print s; next }
             /^  lib_(add|greet|mask)\(.*\) \{$/ { p = substr($0, 3); sub(/ \{$/, "", p); next }
             /^  \} = .*; \/\* lib_/ { r = $0; sub(/^  \} = /, "", r)
                 sub(/; \/\*.*$/, "", r); print p " = " r; next }
             /^  \} \/\* lib_/ { print p }'
    }
    uftrace replay -d "$T/u.data" | sed -n 's/^[^|]*| //p' | calls_of > "$T/u.tree"
    tree_text "$T/m2.raw" | sed 's/@plt(/(/; s/@plt \*\//*\//' | calls_of > "$T/c.tree"
    [ -s "$T/u.tree" ] || fail "uftrace: no lib_ line in its replay"
    expect_eq "the same values as uftrace's" "$(cat "$T/u.tree")" "$(cat "$T/c.tree")"
fi
