#!/usr/bin/env bash
# Library calls compiled with -fno-plt go through GOT slots (GLOB_DAT) with
# no PLT entry: they are recorded as `name@got`, with the same exact counts
# and call trees as through the PLT (tests/programs/libcalls_main.c,
# libcalls_counts.sh), as long as the slot serves calls only.  A function
# whose address the program takes (tests/programs/libcalls_noplt.c) keeps
# its slot, and its calls are not recorded.  Outputs are the same with and
# without the tracer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

build_traced "$T/main" "$PROGRAMS/libcalls_main.c" -fno-plt
build_traced "$T/taken" "$PROGRAMS/libcalls_noplt.c" -fno-plt
objdump -d "$T/main" | has 'call.*<malloc@plt>' && fail "-fno-plt not in effect"
readelf -rW "$T/main" | has 'GLOB_DAT.*malloc' || fail "no GLOB_DAT slot for malloc"

expected=$("$T/main")
traced_like_untraced "main" "$T/main.raw" "$expected" "$T/main"
thread_trees "$T/main.raw" > "$T/main.trees"
expect_eq "main thread's tree" "$(libcalls_main_tree got)" "$(tree_of "$T/main.trees" 1)"
for th in 2 3 4; do
    expect_eq "thread $th's tree" "$(libcalls_worker_tree got)" "$(tree_of "$T/main.trees" $th)"
done
expect_eq "getpid@got" 34 "$(report_calls "$T/main.raw" getpid@got)"
expect_eq "malloc@got" 7 "$(report_calls "$T/main.raw" malloc@got)"
"$REPORT_SAN" --tree "$T/main.raw" > "$T/tree.txt"
expect_eq "--tree free@got lines" 7 "$(grep -c ' free@got();$' "$T/tree.txt")"
expect_all_matched "main" "$T/main.raw"

# The address of getppid is taken: its slot, and so its calls, stay as
# they were; getpid's slot serves calls only.
expected=$("$T/taken")
expect_eq "taken: the program itself" "called=4 taken=4" "$expected"
out=$(CALLTRACE_OUTPUT="$T/taken.raw" LD_PRELOAD="$LIB" "$T/taken")
expect_eq "taken: output" "$expected" "$out"
expect_eq "taken: tree" "$(printf '%s\n' main "  called" \
    "    getpid@got" "    getpid@got" "    getpid@got" "    getpid@got" \
    "  taken" "  printf@got")" "$(thread_trees "$T/taken.raw" | tree_of /dev/stdin 1)"

# uftrace patches GOT slots of -fno-plt code too.  Differences, all
# expected: uftrace names the calls plainly (getpid), records _setjmp and
# dlsym (never recorded here, docs/tracer.md) and not the calls through
# dlsym's pointer (getpid@dlsym here); it also records the calls of a
# function whose address is taken, which calltrace leaves alone (a stub
# there would change the address the program sees).
compare_with_uftrace "$T/main" "$T/main.raw" got
echo ok
