#!/usr/bin/env bash
# longjmp, _longjmp, siglongjmp (out of a signal handler, on the thread's
# stack and on alternate signal stacks below and above it), __longjmp_chk
# (_FORTIFY_SOURCE) and C++ exceptions through frames that run no exit
# hook: the frames a jump leaves end at the jump, and the calls made after
# it sit under the function that made them.  Whole call trees (names and
# nesting, per thread) from --tree are compared with the truth, which the
# programs give by construction (tests/programs/jump_*.c*).
#
# Against uftrace 0.13 (`uftrace record` / `uftrace replay` on the same
# binaries; checked by hand, uftrace is not needed here):
# * uftrace also lists the library calls (_setjmp, __longjmp_chk, raise,
#   sigaction), and shows the longjmp call itself as a frame left open
#   ("__longjmp_chk() {" with no end); calltrace shows no library calls.
# * from_depth is right in both.  For sibling (_setjmp / _longjmp) uftrace
#   loses the stack: it prints sibling { small { ... nested a thousand
#   levels deep and stops with "remaining functions"; for the nested case
#   it puts after_outer one level too deep (under nest_mid), as it
#   restores the depth of the last setjmp recorded, not of the one jumped
#   to.  calltrace compares stack pointers, so each jump lands at its own
#   setjmp.
# * For the C++ exception uftrace keeps after_catch and after_catch_again
#   inside c_leaf, and then everything that follows inside c_mid (it
#   restores the stack only when the exception passes frames it hooked);
#   calltrace ends c_leaf and c_mid at the catch.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"

# tree RAW DIR: one file per thread in DIR (named by thread id), each line
# a function with its nesting, as --tree prints it: `f()` for a C name, a
# demangled C++ name as it is (`catcher()`, not `catcher()()`).
tree() {
    mkdir -p "$2"
    "$REPORT_SAN" --tree "$1" > "$2.txt" || fail "--tree $1"
    awk -v dir="$2" 'match($0, /\[ *[0-9]+\] \| /) {
        tid = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", tid)
        line = substr($0, RSTART + RLENGTH)
        print line > (dir "/" tid) }' "$2.txt"
}
# thread_of DIR FIRST: the file of the thread whose tree starts with FIRST.
thread_of() {
    local f
    for f in "$1"/*; do
        [ "$(head -n 1 "$f")" = "$2" ] && { echo "$f"; return; }
    done
    fail "no thread starting with '$2' in $1: $(head -n 1 "$1"/* | paste -sd' ')"
}
expect_tree() {  # WHAT FILE (expected tree on stdin)
    cat > "$T/want"
    diff -u "$T/want" "$2" > "$T/diff" || fail "$1: tree differs:
$(cat "$T/diff")"
}

# from_handler's tree is the same wherever its handler runs: on the
# thread's stack, on an alternate signal stack below it or above it.
FROM_HANDLER='  from_handler() {
    raiser() {
      on_signal() {
        handler_inner();
      } /* on_signal */
    } /* raiser */
    after_signal();
  } /* from_handler */'
MAIN_TREE='main() {
  from_depth() {
    d1() {
      d2() {
        d3() {
          d4();
        } /* d3 */
      } /* d2 */
    } /* d1 */
    landed();
    landed_again();
  } /* from_depth */
  sibling() {
    small();
    big();
  } /* sibling */
  nested() {
    nest_mid() {
      jump_inner();
      after_inner() {
        jump_outer();
      } /* after_inner */
    } /* nest_mid */
    after_outer();
  } /* nested */
'"$FROM_HANDLER"'
'"$FROM_HANDLER"'
  run_high_alt_thread();
} /* main */'
THREAD_TREE='high_alt_thread() {
  returning() {
    raiser() {
      on_signal_return() {
        handler_work();
      } /* on_signal_return */
    } /* raiser */
    after_return();
  } /* returning */
'"$FROM_HANDLER"'
} /* high_alt_thread */'

# Plain: longjmp, _longjmp, siglongjmp; fortified: __longjmp_chk.
for v in plain fortified; do
    flags=
    [ $v = fortified ] && flags="-D_FORTIFY_SOURCE=2"
    build_traced "$T/jc-$v" "$PROGRAMS/jump_cases.c" $flags
    [ $v = fortified ] && { nm -D "$T/jc-$v" | has __longjmp_chk ||
        fail "the fortified build does not call __longjmp_chk"; }
    expect_eq "output ($v)" "sink=10" "$(run_traced "$T/jc-$v.raw" "$T/jc-$v")"
    tree "$T/jc-$v.raw" "$T/tree-$v"
    expect_tree "main thread ($v)" "$(thread_of "$T/tree-$v" 'main() {')" <<<"$MAIN_TREE"
    expect_tree "thread with its signal stack above ($v)" \
        "$(thread_of "$T/tree-$v" 'high_alt_thread() {')" <<<"$THREAD_TREE"
    "$REPORT_SAN" -b -q "$T/jc-$v.raw" > "$T/rep-$v"
    grep -q "0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$T/rep-$v" || fail "unmatched records ($v): $(grep Unmatched "$T/rep-$v")"
done

# The skipped frames end at the jump: d1..d4 end before landed starts, and
# d4 (which only jumps) lasts no longer than from_depth's call of d1 does.
"$REPORT_SAN" --dump "$T/jc-plain.raw" | awk '$3 ~ /^(d[1-4]|landed)$/ {print $2, $3}' |
    sed -n 1,9p | paste -sd'|' > "$T/order"
expect_eq "order around the jump" "C d1|C d2|C d3|C d4|R d4|R d3|R d2|R d1|C landed" \
    "$(cat "$T/order")"

# C++: thrower (instrumented C++) -> c_leaf, c_mid (instrumented C without
# -fexceptions: no cleanup, so no exit hook runs) -> relay (not
# instrumented) -> catcher.  The exception's cleanup in cleanup_frame runs
# ~guard while c_mid and c_leaf are still open: the enter hook sees a stack
# pointer above theirs and ends them first.
gcc -std=gnu11 -O1 -g -finstrument-functions -c -o "$T/c_mid.o" "$PROGRAMS/jump_c_mid.c"
g++ -O1 -g -c -o "$T/relay.o" "$PROGRAMS/jump_relay.cpp"
g++ -O1 -g -finstrument-functions -o "$T/throw" "$PROGRAMS/jump_throw.cpp" \
    "$T/c_mid.o" "$T/relay.o"
expect_eq "C++ output" "sink=7" "$(run_traced "$T/throw.raw" "$T/throw")"
tree "$T/throw.raw" "$T/tree-cxx"
expect_tree "C++ exception" "$(thread_of "$T/tree-cxx" 'main() {')" <<'TREE'
main() {
  catcher() {
    c_mid() {
      c_leaf() {
        thrower();
      } /* c_leaf */
    } /* c_mid */
    after_catch();
    after_catch_again();
  } /* catcher() */
  catcher_of_cleanup() {
    cleanup_frame() {
      c_mid() {
        c_leaf() {
          thrower();
        } /* c_leaf */
      } /* c_mid */
      cleanup_frame()::guard::~guard();
    } /* cleanup_frame() */
    after_catch();
  } /* catcher_of_cleanup() */
} /* main */
TREE
echo ok
