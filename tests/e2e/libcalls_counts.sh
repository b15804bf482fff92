#!/usr/bin/env bash
# Calls into shared libraries (CALLTRACE_LIBCALLS, default plt): exact
# counts and whole call trees of tests/programs/libcalls_main.c with lazy
# binding, -z now and LD_BIND_NOW=1; CALLTRACE_LIBCALLS=none gives the
# trace of the instrumented functions alone.  The program's output and
# exit status are the same with and without the tracer.  Where uftrace is
# installed it traces the same binary and the library call counts are
# compared (see the comments there for the calls the two tools treat
# differently).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

build_traced "$T/lazy" "$PROGRAMS/libcalls_main.c"
build_traced "$T/now" "$PROGRAMS/libcalls_main.c" -Wl,-z,now,-z,relro
readelf -d "$T/now" | has 'BIND_NOW\|FLAGS.*NOW' || fail "-z now not in effect"
expected_out=$("$T/lazy")

check_run() {  # NAME RAW: the trees and counts of one traced run
    local name=$1 raw=$2
    thread_trees "$raw" > "$T/$name.trees"
    expect_eq "$name: main thread's tree" "$(libcalls_main_tree plt)" "$(tree_of "$T/$name.trees" 1)"
    for th in 2 3 4; do
        expect_eq "$name: thread $th's tree" "$(libcalls_worker_tree plt)" "$(tree_of "$T/$name.trees" $th)"
    done
    expect_eq "$name: malloc" 7 "$(report_calls "$raw" malloc@plt)"
    expect_eq "$name: free" 7 "$(report_calls "$raw" free@plt)"
    expect_eq "$name: getpid" 34 "$(report_calls "$raw" getpid@plt)"
    expect_all_matched "$name" "$raw"
    grep -q "Lost events: 0" "$T/$name.rep" || fail "$name: lost events"
}

for variant in lazy now bindnow; do
    bin=$T/lazy
    envs=()
    [ "$variant" = now ] && bin=$T/now
    [ "$variant" = bindnow ] && envs=(LD_BIND_NOW=1)
    traced_like_untraced "$variant" "$T/$variant.raw" "$expected_out" \
        "${envs[@]}" "$bin"
    check_run "$variant" "$T/$variant.raw"
done

# Every view tells the same story: the call tree's counts match the flat
# profile's (--tree prints one line per call).
"$REPORT_SAN" --tree "$T/lazy.raw" > "$T/tree.txt"
expect_eq "--tree getpid lines" 34 "$(grep -c ' getpid@plt();$' "$T/tree.txt")"
expect_eq "--tree malloc lines" 7 "$(grep -c ' malloc@plt();$' "$T/tree.txt")"

# ... and so does an export: callgrind's call counts into getpid@plt.
"$REPORT_SAN" --export=callgrind -o "$T/cg.out" "$T/lazy.raw"
expect_eq "callgrind getpid calls" 34 "$(awk '/^cfn=/ { f = ($0 == "cfn=getpid@plt") }
    /^calls=/ && f { split($0, a, /[= ]/); n += a[2]; f = 0 } END { print n + 0 }' "$T/cg.out")"

# CALLTRACE_LIBCALLS=none: the instrumented functions alone, as before
# library calls were recorded.  cmp never returned (longjmp) and ends
# where escape_sort does.
out=$(CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$T/none.raw" LD_PRELOAD="$LIB" "$T/lazy")
expect_eq "none: output" "$expected_out" "$out"
thread_trees "$T/none.raw" > "$T/none.trees"
expect_eq "none: no library calls" 0 "$(grep -c '@plt' "$T/none.trees" || true)"
expect_eq "none: main thread's tree" \
    "$(printf '%s\n' main "  counted" "  escape_sort" "    cmp" "  after_jump" "  through_dlsym")" \
    "$(tree_of "$T/none.trees" 1)"
expect_eq "none: a worker" worker "$(tree_of "$T/none.trees" 2)"

# uftrace records PLT calls by default too.  Differences, all expected:
#  - uftrace records _setjmp twice (it returns twice), calltrace once, as
#    a call that returns at once (a saved context may not hold a
#    trampoline); uftrace records dlsym, which calltrace never patches
#    (dlsym looks at its caller for RTLD_NEXT).
#  - uftrace does not record the two getpid calls through the pointer
#    dlsym returned; calltrace records them as getpid@dlsym, a function of
#    their own, so getpid@plt's count is the same for both.
#  - uftrace drops the calls a longjmp leaves (qsort, cmp, longjmp here);
#    calltrace keeps them and ends them at the jump.
# So only the functions both record the same way are compared.
compare_with_uftrace "$T/lazy" "$T/lazy.raw" plt
echo ok
