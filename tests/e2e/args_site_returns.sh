#!/usr/bin/env bash
# Return values of hooked calls (-finstrument-functions), caught on their
# way out (preload/args/site.c with the patchable-entry mode's return
# trampoline): calltrace record --args 'F@args,retval' reads where each
# function's return address is at the enter hook's call from the CFI.
# Values known by construction (tests/programs/args_site_returns.c,
# args_site_throw.cpp), gcc and clang at -O0 and -O2: a recursion, a
# longjmp over frames whose return was taken (no value, no harm), a
# signal handler's call, threads, a coroutine that switches away from
# inside one, and C++ exceptions through them.  The program's output and
# status are those of the untraced run, and no call is left unmatched;
# places written wrongly by hand harm nothing, and those record read hold
# in no other program (tests/programs/args_site_exec.c).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the hooks' trampoline is x86-64 only"

tree_text() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| //p'
}
tid_tree() {  # each line as TID|call (TID:N for a thread's coroutine N),
              # the threads' lines interleaved
    "$REPORT_SAN" --tree "$1" | sed -n 's/^.*\[ *\([0-9:]*\)\] | /\1|/p'
}
rules='re:^(fact|over|jumper|twice|tail|in_handler|raiser|yielder|scale|wrap)$@args,retval'

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        name="$cc -O$opt"
        b=$T/ret_${cc}_O$opt
        $cc -std=gnu11 -O$opt -g -finstrument-functions -o "$b" \
            "$PROGRAMS/args_site_returns.c" -lpthread
        want=$("$b")
        got=$(cd "$T" && "$FRONT" record -q -o "$b.raw" --args "$rules" -- "$b")
        expect_eq "$name: output" "$want" "$got"
        tid_tree "$b.raw" > "$b.tree"
        "$REPORT_SAN" "$b.raw" > "$b.report"
        expect_eq "$name: nesting" \
            " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
            "$(grep '^ Unmatched:' "$b.report")"
        expect_eq "$name: lost" " Lost events: 0" "$(grep '^ Lost events:' "$b.report")"
        python3 - "$b.tree" "$name" <<'PY' || fail "$name: $(head -40 "$b.tree")"
import math, re, sys
lines = open(sys.argv[1]).read().splitlines()
# each call's argument (or <unavailable>) and value: a leaf's on its line,
# a parent's on its closing line, matched by a stack of open calls per
# thread
calls, stacks = [], {}
for tl in lines:
    tid, l = tl.split('|', 1)
    stack = stacks.setdefault(tid, [])
    m = re.match(r'\s*(\w+)\((.*?)\)( = (-?\w+))?;$', l)
    if m:
        calls.append((m.group(1), m.group(2), m.group(4)))
        continue
    m = re.match(r'\s*(\w+)\((.*?)\) \{$', l)
    if m:
        stack.append([m.group(1), m.group(2), None])
        continue
    m = re.match(r'\s*\}( = (-?\w+))?;? /\* (\w+)', l)
    if m and stack:
        c = stack.pop()
        assert c[0] == m.group(3), (c, l)
        calls.append((c[0], c[1], m.group(2)))
truth = {'fact': lambda a: math.factorial(a), 'twice': lambda a: 2 * a,
         'in_handler': lambda a: a + 100, 'raiser': lambda a: 3 * a,
         'yielder': lambda a: a + 1, 'tail': lambda a: 2 * (a + 1),
         'over': lambda a: a + 1, 'jumper': lambda a: 0,
         'scale': lambda a: 3 * a + 1, 'wrap': lambda a: 3 * a + 1}
seen = {}
for fn, arg, val in calls:
    if fn not in truth:
        continue
    seen[fn] = seen.get(fn, 0) + 1
    if fn in ('over', 'jumper') and arg in ('7', '<unavailable>') and val is None:
        continue  # left by the longjmp: no value
    if fn == 'scale' and arg == '' and val is None:
        continue  # the copy inlined into wrap: no values, never wrong ones
    assert val is not None, ('no value', fn, arg)
    if arg != '<unavailable>':
        assert int(val) == truth[fn](int(arg)), ('wrong', fn, arg, val)
for fn, v in (('fact', '3628800'), ('raiser', '6'), ('tail', '12'),
              ('yielder', '42'), ('in_handler', '110'), ('scale', '16'),
              ('wrap', '13')):
    assert any(c[0] == fn and c[2] == v for c in calls), ('missing', fn, v)
assert seen.get('fact') == 10 + 4 * 200 * 5 + 4, seen
assert seen.get('twice') == 4 * 200 + 1, seen
assert seen.get('over') == 2, seen
assert seen.get('scale') == 2, seen
PY
    done
done

# Places written wrongly by hand: far above the stack pointer (past the
# stack's top on a thread), through a register holding anything, a
# return address that is not there.  The program runs as untraced.
b=$T/ret_gcc_O2
bad='fact@arg1/s%rbx-8,arg2%rsp+1048568,retval%rsp+1048568;twice@retval%rbp+0;raiser@retval%rsp+0,arg1/s%r12+0'
got=$(CALLTRACE_ARGS="$bad" CALLTRACE_OUTPUT="$T/bad.raw" LD_PRELOAD="$LIB" "$b") ||
    fail "wrong places: status $?"
expect_eq "wrong places: output" "$("$b")" "$got"
"$REPORT_SAN" "$T/bad.raw" > "$T/bad.report"
expect_eq "wrong places: nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$(grep '^ Unmatched:' "$T/bad.report")"

# The places record read hold in the program it read them from alone:
# a copy of it that the program executes (the same names, another file)
# keeps no values.
gcc -O0 -g -finstrument-functions -o "$T/exec" "$PROGRAMS/args_site_exec.c"
cp "$T/exec" "$T/exec_copy"
got=$(cd "$T" && "$FRONT" record -q -o "$T/exec.out" --args 'same@args,retval' -- "$T/exec" "$T/exec_copy")
expect_eq "exec: output" "10
42" "$got"
expect_eq "exec: same's calls" "same(5) = 10;|same();" \
    "$(for f in "$T"/exec.out/*; do tree_text "$f"; done | sed -n 's/^  \(same(.*\)$/\1/p' | sort -r | paste -sd'|')"

# The profile mode writes no call, so it keeps no values: one line, and
# its profile is whole (the ARGS records once left frames open in it).
b=$T/ret_gcc_O2
got=$(cd "$T" && "$FRONT" record -o "$T/prof.raw" --profile --args "$rules" -- "$b" 2> "$T/prof.err")
expect_eq "profile: output" "$("$b")" "$got"
expect_eq "profile: message" "calltrace: CALLTRACE_ARGS: the profile mode keeps no call's values; the rules are not used" \
    "$(grep -v '^calltrace: wrote' "$T/prof.err")"
expect_eq "profile: nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$("$REPORT_SAN" "$T/prof.raw" | grep '^ Unmatched:')"

# C++ exceptions through calls whose return was taken: the unwinder gets
# the real return addresses, the frames a catch left end there, and the
# even rounds' values are kept.
for cxx in g++ clang++; do
    command -v $cxx > /dev/null || { [ $cxx = clang++ ] && continue; fail "no $cxx"; }
    for opt in 0 2; do
        name="$cxx -O$opt"
        b=$T/throw_${cxx}_O$opt
        $cxx -O$opt -g -finstrument-functions -o "$b" "$PROGRAMS/args_site_throw.cpp"
        got=$(cd "$T" && "$FRONT" record -q -o "$b.raw" \
                  --args 're:^(leaf|thrower|middle)@args,retval' -- "$b")
        expect_eq "$name: output" "25 5" "$got"
        tree_text "$b.raw" > "$b.tree"
        expect_eq "$name: leaf" 20 "$(grep -c '^ *leaf() = 7;$' "$b.tree")"
        expect_eq "$name: middle's values" "1 3 5 7 9" \
            "$(sed -n 's/^  } = \([0-9]*\); \/\* middle(int) \*\/$/\1/p' "$b.tree" | tr '\n' ' ' | sed 's/ $//')"
        expect_eq "$name: middle left by a throw" 5 \
            "$(grep -c '^  } /\* middle(int) \*/$' "$b.tree")"
        expect_eq "$name: thrower's values" "0 2 4 6 8" \
            "$(sed -n 's/^    } = \([0-9]*\); \/\* thrower(int) \*\/$/\1/p' "$b.tree" | tr '\n' ' ' | sed 's/ $//')"
        "$REPORT_SAN" "$b.raw" > "$b.report"
        expect_eq "$name: nesting" \
            " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
            "$(grep '^ Unmatched:' "$b.report")"
    done
done
echo ok
