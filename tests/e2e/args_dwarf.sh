#!/usr/bin/env bash
# calltrace record --args FUNC@args and --auto-args: the parameters and
# return values of the program's own functions by their types in its
# DWARF (frontend/args_dwarf.c), on a build with patchable entries
# (tests/programs/args_dwarf.c, values known by construction): integers
# of each width and sign, chars, strings, pointers, floats and doubles in
# the ABI's order, an enum by its values' names, a struct by value by its type's name
# (args_struct.sh tries each way the ABI passes one); a variadic tail
# stops a function's items; gcc and clang at -O0 and -O2 give the same
# tree.  --auto-args adds the built-in table's library calls, and a rule
# of the user's wins over the DWARF one for what it gives.  A C++ method
# shows `this` first and its name without parameters.  With the hooks of
# -finstrument-functions, the parameters are read where the DWARF says
# they are at the enter hook's call (frontend/dwarf_site.c), in the
# program and in libraries.  FUNC@args on a
# program without debug information is refused before it runs; set
# straight in CALLTRACE_ARGS, the tracer says once that it needs record.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"
export CALLTRACE_LIBCALLS=plt  # lib.sh's default is none

tree_text() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| //p'
}

record() {  # NAME OUT [record options] -- PROGRAM: records, checks output
    local name=$1 raw=$2 want rc; shift 2
    set +e
    (cd "$T" && "$FRONT" record -q -o "$raw" "$@" > "$T/$name.out" 2> "$T/$name.err")
    rc=$?
    set -e
    expect_eq "$name: status" 0 "$rc"
    expect_eq "$name: output" "done" "$(cat "$T/$name.out")"
    expect_eq "$name: messages" "" "$(cat "$T/$name.err")"
}

want='main() {
  d_int(-3, 40) = 37;
  d_small(65535, '"'"'\xfe'"'"', 1) = 65534;
  d_str("abc", '"'"'x'"'"', 0x1234) = "bc";
  d_float(1.500000, 2.000000, 3) = 6.000000;
  d_mixed(0.500000, 2, 0.250000) = 2.750000;
  d_enum(BLUE) = -2;
  d_struct(7, pair{...}, 7) = 17;
  d_variadic(3) = 3;
  d_void(9);
  d_fnptr(&d_void) = 1;
  access@plt();
  puts@plt();
} /* main */'

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        b=$T/${cc}_O$opt
        $cc -std=gnu11 -O$opt -g "${flags[@]}" -o "$b" "$PROGRAMS/args_dwarf.c"
        record "$cc -O$opt" "$b.raw" --args 're:^d_@args,retval' -- "$b"
        expect_eq "$cc -O$opt: tree" "$want" "$(tree_text "$b.raw")"
    done
done

# The same &name in --dump and in the chrome export's slice args.
"$REPORT_SAN" --dump "$T/gcc_O0.raw" | grep -A1 ' C d_fnptr$' | has ' V args: &d_void$' ||
    fail "--dump: d_fnptr's args"
"$REPORT_SAN" --export=chrome -o "$T/chrome.json" "$T/gcc_O0.raw"
python3 - "$T/chrome.json" <<'PY' || fail "chrome: d_fnptr's args"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents'] if isinstance(d, dict) else d
assert any(e.get('name') == 'd_fnptr' and e.get('args', {}).get('args') == '&d_void'
           for e in ev), 'no &d_void'
PY

# --auto-args: every function, and the table's library calls; main's
# return value from its type.
b=$T/gcc_O2
record auto "$T/auto.raw" --auto-args -- "$b"
tree_text "$T/auto.raw" > "$T/auto.tree"
has '^  d_int(-3, 40) = 37;$' < "$T/auto.tree" || fail "auto: d_int: $(cat "$T/auto.tree")"
has '^  puts@plt("done") = 5;$' < "$T/auto.tree" || fail "auto: puts: $(cat "$T/auto.tree")"
# the table's enums: access's mode by its flags' names
has '^  access@plt(".", X_OK|R_OK) = 0;$' < "$T/auto.tree" || fail "auto: access: $(cat "$T/auto.tree")"
has '^} = 0; /\* main \*/$' < "$T/auto.tree" || fail "auto: main: $(cat "$T/auto.tree")"
# the user's arguments win, the return value still comes from DWARF
record user "$T/user.raw" --args 'd_int@arg1/x32' --auto-args -- "$b"
has '^  d_int(0xfffffffd) = 37;$' < <(tree_text "$T/user.raw") ||
    fail "user over auto: $(tree_text "$T/user.raw" | grep d_int)"

# C++: `this` first, the name without its parameter list.
command -v g++ > /dev/null || fail "no g++"
g++ -O2 -g "${flags[@]}" -o "$T/cxx" "$PROGRAMS/args_dwarf_cxx.cpp"
(cd "$T" && "$FRONT" record -q -o "$T/cxx.raw" --args 're:add|twice@args,retval' -- "$T/cxx" > /dev/null)
tree_text "$T/cxx.raw" | sed 's/0x[0-9a-f]*/0xADDR/' > "$T/cxx.tree"
has '^  ns::twice(21) = 42;$' < "$T/cxx.tree" || fail "C++: $(cat "$T/cxx.tree")"
has '^  Counter::add(0xADDR, 4, 1.000000) = 8;$' < "$T/cxx.tree" ||
    fail "C++: $(cat "$T/cxx.tree")"

# No debug information: refused before the program runs, by name.
gcc -std=gnu11 -O0 "${flags[@]}" -g0 -o "$T/nodebug" "$PROGRAMS/args_dwarf.c"
set +e
(cd "$T" && "$FRONT" record -q -o "$T/nd.raw" --args 'd_int@args' -- "$T/nodebug" > "$T/nd.out" 2> "$T/nd.err")
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "no debug information: status 0"
expect_eq "no debug information: the program did not run" "" "$(cat "$T/nd.out")"
has "'d_int@args': $T/nodebug has no debug information (build it with -g)" < "$T/nd.err" ||
    fail "no debug information: $(cat "$T/nd.err")"
# ... but a library function of the table needs none
record table "$T/table.raw" --args 'puts@args,retval' -- "$T/nodebug"
has '^  puts@plt("done") = 5;$' < <(tree_text "$T/table.raw") ||
    fail "table: $(tree_text "$T/table.raw" | grep puts)"

# A build with the hooks: each parameter is read where its DWARF location
# says it is at the enter hook's call (a callee-saved register, a stack
# slot), or shown <unavailable>; never a wrong value.  gcc -O0 stores every
# parameter before that call: all of them are known.  clang -O0 stores them
# after it: none is.  At -O2 each shown value must be the true one, and
# most are.  The return values are caught on their way out in every
# build (args_site_returns.sh tries the ways a return can go elsewhere).
# the same tree (a struct by value is shown by its type's name, nothing
# of it read)
hooks_want=$want
hooks_tree() {  # CC OPT [extra flags]: builds with the hooks, records
    local cc=$1 opt=$2 b=$T/hooks_$1_O$2; shift 2
    $cc -std=gnu11 -O$opt -g -finstrument-functions "$@" -o "$b" "$PROGRAMS/args_dwarf.c"
    (cd "$T" && "$FRONT" record -o "$b.raw" --args 're:^d_@args,retval' -- "$b" > "$b.out" 2> "$b.err")
    expect_eq "hooks $cc -O$opt: output" "done" "$(cat "$b.out")"
    local said=""
    # clang -O0 stores the parameters after the hook's call: record says so
    [ "$cc $opt" = "clang 0" ] &&
        said="calltrace: --args: no parameter of $b has a place at the enter hook's call in its debug information (clang -O0 stores them after it): they show as <unavailable>; a build at -O1 or more, or by gcc, or with \$(calltrace cflags --patchable) keeps them"
    expect_eq "hooks $cc -O$opt: messages" "$said" "$(grep -v '^calltrace: wrote' "$b.err")"
    tree_text "$b.raw"
}
expect_eq "hooks gcc -O0: tree" "$hooks_want" "$(hooks_tree gcc 0)"
# -fno-plt: the hook is called through its GOT slot, and puts too
hooks_got=${hooks_want/puts@plt/puts@got}
expect_eq "hooks gcc -O0 -fno-plt: tree" "${hooks_got/access@plt/access@got}" \
    "$(hooks_tree gcc 0 -fno-plt)"
for cc in gcc clang; do
    command -v $cc > /dev/null || continue
    for opt in 0 2; do
        got=$(hooks_tree $cc $opt)
        least=2/3
        [ "$cc $opt" = "clang 0" ] && least=none  # it fills the slots after the hook
        python3 "$CT_ROOT/tests/e2e/args_values.py" "$hooks_want" "$got" "$least" ||
            fail "hooks $cc -O$opt: $got"
    done
done

# uftrace's spelling with the hooks: argN and fpargN name the parameters
# the ABI passes there, read where the DWARF says they are at the hook's
# call, with the parameter's width where the format gives none; a
# struct by value takes the registers the ABI gives it (two for the
# pair), so arg4 is the parameter after it.
b=$T/hooks_gcc_O0
(cd "$T" && "$FRONT" record -q -o "$T/abi.raw" \
    --args 'd_int@arg1,arg2/x,retval;d_float@fparg2,arg1;d_small@arg2/x;d_struct@arg1,arg4' -- "$b" > /dev/null)
expect_eq "hooks, argN: tree" '  d_int(-3, 0x28) = 37;
  d_small(0xfe);
  d_float(2.000000, 3);
  d_struct(7, 7);' "$(tree_text "$T/abi.raw" | grep -E '^  d_(int|small|float|struct)\(')"

# A rule of integers alone is made into a plan that writes the call and
# its values in one pass of the hook's fast path (args.c,
# ct_args_site_fast); a record-time filter shuts that pass, and the
# general path writes them instead: the same values, from stack slots
# (-O0) and registers (-O2).
for opt in 0 2; do
    b=$T/hooks_gcc_O$opt
    (cd "$T" && "$FRONT" record -q -o "$T/plan$opt.raw" --args 're:^d_@args' -- "$b" > /dev/null)
    (cd "$T" && CALLTRACE_FILTER='-d_void' "$FRONT" record -q -o "$T/general$opt.raw" \
        --args 're:^d_@args' -- "$b" > /dev/null)
    tree_text "$T/plan$opt.raw" | has '^  d_int(-3, 40);$' ||
        fail "hooks gcc -O$opt, one pass: $(tree_text "$T/plan$opt.raw")"
    expect_eq "hooks gcc -O$opt: values in one pass and by the general path" \
        "$(tree_text "$T/plan$opt.raw" | grep -v '^  d_void')" \
        "$(tree_text "$T/general$opt.raw")"
done

# C++ with the hooks: `this` and the parameters from their places.
g++ -O2 -g -finstrument-functions -o "$T/cxx_hooks" "$PROGRAMS/args_dwarf_cxx.cpp"
(cd "$T" && "$FRONT" record -q -o "$T/cxx_hooks.raw" --args 're:add|twice@args,retval' -- "$T/cxx_hooks" > /dev/null)
tree_text "$T/cxx_hooks.raw" | sed 's/0x[0-9a-f]*/0xADDR/' > "$T/cxx_hooks.tree"
has '^  ns::twice(21) = 42;$' < "$T/cxx_hooks.tree" || fail "C++ hooks: $(cat "$T/cxx_hooks.tree")"
has '^  Counter::add(0xADDR, 4, 1.000000) = 8;$' < "$T/cxx_hooks.tree" ||
    fail "C++ hooks: $(cat "$T/cxx_hooks.tree")"

# Locations written by hand, in a library linked at start and in one
# dlopen'ed twice (the enter hook's GOT slot of each object is pointed at
# the tracer's trampoline): lib_leaf's parameter is in the stack slot its
# -O0 code stores %edi into, read from the code itself.
gcc -O0 -g -fPIC -shared -finstrument-functions -o "$T/libplink.so" "$PROGRAMS/patch_lib.c"
gcc -O0 -g -fPIC -shared -finstrument-functions -Dlib_entry=dl_entry -Dlib_leaf=dl_leaf \
    -o "$T/libpopen.so" "$PROGRAMS/patch_lib.c"
gcc -O0 -finstrument-functions -o "$T/libmain" "$PROGRAMS/patch_libmain.c" -L"$T" -lplink -Wl,-rpath,"$T" -ldl
slot=$(objdump -d --no-show-raw-insn "$T/libplink.so" |
       awk '/<lib_leaf>:/ { on = 1 } on && !done && /mov +%edi,-0x[0-9a-f]+\(%rbp\)/ {
                sub(/.*,-0x/, ""); sub(/\(.*/, ""); print; done = 1 }')
[ -n "$slot" ] || fail "lib_leaf: no store of %edi in its code"
off=$((16#$slot))
CALLTRACE_ARGS="*_leaf@arg1/i32%rbp-$off" CALLTRACE_OUTPUT="$T/lib.raw" \
    LD_PRELOAD="$LIB" "$T/libmain" "$T/libpopen.so" > "$T/lib.out"
expect_eq "libraries: output" "37" "$(cat "$T/lib.out")"
expect_eq "libraries: the leaves' values" \
    "lib_leaf(0) lib_leaf(1) lib_leaf(2) lib_leaf(0) lib_leaf(1) lib_leaf(2) dl_leaf(0) dl_leaf(1) dl_leaf(2) dl_leaf(3) dl_leaf(0) dl_leaf(1) dl_leaf(2) dl_leaf(3) dl_leaf(4)" \
    "$(tree_text "$T/lib.raw" | sed -n 's/^ *\([a-z_]*_leaf([0-9]*)\);$/\1/p' | tr '\n' ' ' | sed 's/ $//')"

# More functions than the tracer keeps rules for: record keeps as many
# as fit and says how many it left out; the spec is not refused whole.
awk 'BEGIN {
    print "volatile long s;"
    for (i = 0; i < 1200; i++)
        printf "__attribute__((noinline)) long f%d(long x) { s++; return x + 1; }\n", i
    print "int main(void) { long t = 0;"
    for (i = 0; i < 1200; i += 100) printf "t += f%d(%d);\n", i, i
    print "return t == 0; }" }' > "$T/many.c"
gcc -O0 "${flags[@]}" -o "$T/many" "$T/many.c"
(cd "$T" && "$FRONT" record -o "$T/many.raw" --args 're:^f[0-9]@args,retval' -- "$T/many" > /dev/null 2> "$T/many.err")
has "^calltrace: --args: the arguments of [0-9]* functions of $T/many are left out: the tracer keeps at most 1024 rules" < "$T/many.err" ||
    fail "many: $(cat "$T/many.err")"
kept=$(tree_text "$T/many.raw" | grep -c '^  f[0-9]*([0-9]*) = [0-9]*;$' || true)
[ "$kept" -gt 0 ] || fail "many: no function kept its values: $(tree_text "$T/many.raw" | head -5)"

# Straight in the environment: one line, the program runs as ever.
set +e
out=$(CALLTRACE_ARGS='d_int@args' CALLTRACE_OUTPUT="$T/env.raw" LD_PRELOAD="$LIB" "$b" 2> "$T/env.err")
set -e
expect_eq "env: output" "done" "$out"
expect_eq "env: message" "calltrace: CALLTRACE_ARGS: 'd_int@args': the parameters are read from debug information by calltrace record --args; here the rule keeps its other items only" \
    "$(cat "$T/env.err")"
echo ok
