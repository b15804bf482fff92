#!/usr/bin/env bash
# Library calls through pointers dlsym and dlvsym returned
# (tests/programs/libcalls_dlsym.c): each is a function of its own named
# `getpid@dlsym`, with exact counts, in --dump, the report, --tree and an
# export, with lazy binding and with -z now.  RTLD_NEXT lookups, variables
# and the program's own functions are left as they were.  The program's
# output and exit status are the same with and without the tracer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

build_traced "$T/lazy" "$PROGRAMS/libcalls_dlsym.c" -rdynamic
build_traced "$T/now" "$PROGRAMS/libcalls_dlsym.c" -rdynamic -Wl,-z,now,-z,relro
expected_out=$("$T/lazy")
expect_eq "the program itself" "same=1 next=1 data=1 own=1" "$expected_out"

calls() {  # N NAME: N lines of "    NAME" (a call inside call_n)
    for _ in $(seq "$1"); do echo "    $2"; done
}
main_tree() {
    echo main
    printf '%s\n' "  by_handle" "    call_n"
    calls 5 "  getpid@dlsym"
    printf '%s\n' "  by_default" "    call_n"
    calls 3 "  getpid@dlsym"
    printf '%s\n' "  by_version" "    call_n"
    calls 2 "  getpid@dlsym"
    printf '%s\n' "  by_next" "    call_n" "  data" "  own" "    own_function" \
        "  printf@plt"
}

for variant in lazy now; do
    traced_like_untraced "$variant" "$T/$variant.raw" "$expected_out" \
        "$T/$variant"
    thread_trees "$T/$variant.raw" > "$T/$variant.trees"
    expect_eq "$variant: main thread's tree" "$(main_tree)" "$(tree_of "$T/$variant.trees" 1)"
    expect_eq "$variant: getpid@dlsym calls" 10 "$(report_calls "$T/$variant.raw" getpid@dlsym)"
    expect_eq "$variant: no getppid" 0 "$(grep -c getppid "$T/$variant.trees" || true)"
done

# Every view: --tree, callgrind and the call graph count the same calls.
"$REPORT_SAN" --tree "$T/lazy.raw" > "$T/tree.txt"
expect_eq "--tree getpid@dlsym lines" 10 "$(grep -c ' getpid@dlsym();$' "$T/tree.txt")"
"$REPORT_SAN" --export=callgrind -o "$T/cg.out" "$T/lazy.raw"
expect_eq "callgrind getpid@dlsym calls" 10 "$(awk '/^cfn=/ { f = ($0 == "cfn=getpid@dlsym") }
    /^calls=/ && f { split($0, a, /[= ]/); n += a[2]; f = 0 } END { print n + 0 }' "$T/cg.out")"
"$REPORT_SAN" -b -q "$T/lazy.raw" > "$T/graph.txt"
grep -q 'getpid@dlsym' "$T/graph.txt" || fail "call graph: no getpid@dlsym"

# CALLTRACE_LIBCALLS=none: dlsym is not touched, nothing is recorded.
out=$(CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$T/none.raw" LD_PRELOAD="$LIB" "$T/lazy")
expect_eq "none: output" "$expected_out" "$out"
expect_eq "none: no library calls" 0 \
    "$(thread_trees "$T/none.raw" | grep -c '@dlsym\|@plt' || true)"

# uftrace records the calls of dlsym and dlvsym themselves (calltrace
# never does: dlsym looks at its caller), and not the calls made through
# the pointers they return: its getpid count here is 0, calltrace's 10.
# The instrumented functions' counts agree.
if command -v uftrace >/dev/null 2>&1; then
    if timeout 120 uftrace record -d "$T/uftrace.data" "$T/lazy" > "$T/uftrace.out" 2>&1; then
        uftrace report -d "$T/uftrace.data" > "$T/uftrace.rep" 2>/dev/null
        for f in call_n by_handle own_function; do
            ours=$(report_calls "$T/lazy.raw" "$f")
            theirs=$(awk -v f="$f" '$NF == f { print $(NF-1) }' "$T/uftrace.rep")
            expect_eq "calls of $f: calltrace vs uftrace" "${theirs:-0}" "$ours"
        done
        expect_eq "uftrace: no getpid" "" "$(awk '$NF == "getpid"' "$T/uftrace.rep")"
    else
        echo "note: uftrace could not record here ($(tail -1 "$T/uftrace.out")); comparison skipped"
    fi
else
    echo "note: uftrace not installed; comparison with it skipped"
fi
echo ok
