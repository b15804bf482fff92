#!/usr/bin/env bash
# CALLTRACE_ARGS on patched entries (`calltrace cflags --patchable`):
# tests/programs/args_patched.c's own functions, with values known by
# construction, show their arguments and return values in --tree as the
# library calls' do, built by gcc and clang at -O0 and -O2 (read from
# the ABI's registers at the entry, before any prologue, and from %rax or
# %xmm0 at the return: the same at every level); a string at a bad
# address shows as <bad pointer 0x10> and the program runs on; eight
# integer arguments, two on the stack; a recursion keeps each level's;
# a function with no rule shows none, and the calls are those of a run
# without the option; --dump carries the same values; several rules of a
# function add up; the values written in one pass with the call equal the
# general path's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"

SPEC='p_add@arg1/i32,arg2,retval/i32;p_greet@arg1/s,arg2/c,retval/s'
SPEC+=';p_scale@fparg1,fparg2/f32,arg1/i32,retval/f'
SPEC+=';p_many@arg1/i32,arg2/i32,arg3/i32,arg4/i32,arg5/i32,arg6/i32,arg7/i32,arg8,retval'
SPEC+=';p_len@arg1/s,retval;p_ptr@arg1/s;p_fact@arg1/i32,retval/i32'

head_tree='main() {
  p_add(-1, 2) = 1;
  p_add(40, 2) = 42;
  p_greet("world", '"'"'!'"'"') = "world";
  p_scale(1.500000, 2.000000, -2) = -6.000000;
  p_many(1, 2, 3, 4, 5, 6, 7, 0x174876e800) = 0x174876e81c;
  p_len("hello") = 5;
  p_ptr(<bad pointer 0x10>);
  p_ptr(NULL);
  p_plain() {
    p_add(4, 1) = 5;
  } /* p_plain */'
# At -O0 the recursion is four calls; at -O2 gcc and clang make it a loop.
fact_o0='  p_fact(4) {
    p_fact(3) {
      p_fact(2) {
        p_fact(1) = 1;
      } = 2; /* p_fact */
    } = 6; /* p_fact */
  } = 24; /* p_fact */
} /* main */'
fact_o2='  p_fact(4) = 24;
} /* main */'

tree_text() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| //p'
}

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        b=$T/${cc}_O$opt
        $cc -std=gnu11 -O$opt "${flags[@]}" -o "$b" "$PROGRAMS/args_patched.c"
        want_out=$("$b")
        traced_like_untraced "$cc -O$opt" "$b.raw" "$want_out" \
            CALLTRACE_ARGS="$SPEC" "$b"
        fact=$fact_o2
        [ $opt = 0 ] && fact=$fact_o0
        expect_eq "$cc -O$opt: tree" "$head_tree
$fact" "$(tree_text "$b.raw")"
    done
done

# The same values whichever path writes them: a rule of integers is
# written in one pass with its call (preload/args/plan.c); a record-time
# filter shuts that pass, and the general path writes them instead.
b=$T/gcc_O2
traced_like_untraced "filtered" "$T/filt.raw" "$("$b")" \
    CALLTRACE_ARGS="$SPEC" CALLTRACE_FILTER='-p_len' "$b"
expect_eq "values in one pass and by the general path" \
    "$(tree_text "$b.raw" | grep -v '^  p_len(')" "$(tree_text "$T/filt.raw")"

# --dump: a V note after the C line, another before the R line.
"$REPORT_SAN" --dump "$T/gcc_O2.raw" > "$T/dump.txt"
grep -A1 ' C p_len$' "$T/dump.txt" | has ' V args: "hello"$' ||
    fail "--dump: no args note after p_len's C line"
grep -B1 ' R p_len$' "$T/dump.txt" | has ' V retval: 5$' ||
    fail "--dump: no retval note before p_len's R line"

# Rules that add up, as uftrace's -A and -R (its t065 and t063): a regular
# expression, an argument named again keeping its first format, and a
# return value from a rule of its own.
traced_like_untraced "rules that add up" "$T/merged.raw" "$("$T/gcc_O0")" \
    CALLTRACE_ARGS='p_add@arg2/x;re:^p_(add|fact)$@arg1,arg2;re:^p_a@retval/i32' \
    "$T/gcc_O0"
expect_eq "rules that add up" "main() {
  p_add(0x2, -1) = 1;
  p_add(0x2, 40) = 42;" "$(tree_text "$T/merged.raw" | sed -n 1,3p)"
tree_text "$T/merged.raw" | has '^        p_fact(1, [-0-9a-fx]*);$' ||
    fail "re:^p_(add|fact)\$: p_fact's values: $(tree_text "$T/merged.raw" | grep 'p_fact(1')"

# A min= filter: a kept call's entry is written when it returns, and its
# values with it, in order; a call left out takes its values along.
gcc -std=gnu11 -O0 "${flags[@]}" -o "$T/min" "$PROGRAMS/args_min.c"
traced_like_untraced "min=" "$T/min.raw" "" CALLTRACE_LIBCALLS=plt \
    CALLTRACE_MIN_DURATION=1ms \
    CALLTRACE_ARGS='usleep@arg1;re:^(slow|quick)$@arg1,retval' "$T/min"
expect_eq "min=: tree" "main() {
  slow(0) {
    usleep@plt(3000);
  } = 2; /* slow */
  slow(1) {
    usleep@plt(3000);
  } = 4; /* slow */
  slow(2) {
    usleep@plt(3000);
  } = 6; /* slow */
} /* main */" "$(tree_text "$T/min.raw")"

# No rule: no values, and the same calls as with them.
traced_like_untraced "no rule" "$T/plain.raw" "$("$T/gcc_O2")" \
    CALLTRACE_ARGS='no_such_function@arg1' "$T/gcc_O2"
tree_text "$T/plain.raw" | has '^  p_add();$' ||
    fail "a function with no rule shows values"
expect_eq "calls with and without values" \
    "$("$REPORT_SAN" -b -p "$T/plain.raw" | awk '$4 ~ /^[0-9]+$/ {n += $4} END {print n}')" \
    "$("$REPORT_SAN" -b -p "$T/gcc_O2.raw" | awk '$4 ~ /^[0-9]+$/ {n += $4} END {print n}')"
echo ok
