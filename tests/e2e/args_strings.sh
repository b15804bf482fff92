#!/usr/bin/env bash
# Strings an argument points at, wherever they are (docs/tracer.md,
# "Strings"): tests/programs/args_strings.c passes a literal (read in
# place from the program's constants), texts in writable data and .bss
# (in place too), a heap copy (read by the kernel), and texts across 12
# KiB of its stack, some of them across the end of the call's stack page
# (read in place up to it, the rest by the kernel), and texts in .bss of
# every length from 0 to 64.  Each text is shown whole and right, by
# construction from what the program printed:
#   at a library call (arguments from the stub's registers), -O0 and -O2,
#   with blocks of 4 KiB (the record often meets a block's end and takes
#   the general path), and under a filter (the general path throughout);
#   at a hook's call (`calltrace record --args pass@args`: the place from
#   the debug information, a frame slot at -O0, a register at -O2).
# The program's output is the same as untraced each time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default: plt

gcc -std=gnu11 -O2 -fPIC -shared -o "$T/libargs_lib.so" "$PROGRAMS/args_lib.c"

# tree_calls RAW NAME: NAME's calls in --tree, one a line, without the
# indentation and the tracer's own time a block switch took.
tree_calls() {
    "$REPORT_SAN" --tree "$1" | sed -n 's/^[^|]*| *//p' | grep "^$2(" |
        sed 's/ \[tracer [^]]*\]$//'
}

# same WHAT FILE FILE: the two files are equal, else fail with their
# first differences.
same() {
    diff "$2" "$3" > "$T/diff" ||
        fail "$1: $(head -n 8 "$T/diff")"
}

# want_calls OUT NAME: NAME's calls the program's output says it made.
want_calls() {
    awk -v name="$2" '{ n = $NF; sub(/ [0-9]+$/, "")
                        printf "%s(\"%s\") = %d;\n", name, $0, n }' <<< "$1"
}

for opt in 0 2; do
    build_traced "$T/s$opt" "$PROGRAMS/args_strings.c" -O$opt \
        -L"$T" -largs_lib -Wl,-rpath,"$T"
    want_out=$("$T/s$opt")
    [ "$(wc -l <<< "$want_out")" -ge 1500 ] || fail "-O$opt: too few texts"
    want_calls "$want_out" 'lib_len@plt' > "$T/want$opt"
    for how in plain small filtered; do
        case $how in
        plain) extra=() ;;
        small) extra=(CALLTRACE_BUFSIZE=4K) ;;
        filtered) extra=(CALLTRACE_FILTER=-printf@plt) ;;
        esac
        traced_like_untraced "-O$opt $how" "$T/s$opt$how.raw" "$want_out" \
            "${extra[@]}" CALLTRACE_ARGS='lib_len@arg1/s64,retval/i32' "$T/s$opt"
        tree_calls "$T/s$opt$how.raw" 'lib_len@plt' > "$T/got"
        same "-O$opt $how: the texts" "$T/want$opt" "$T/got"
    done

    # At the hook's call of pass(const char *s), from the debug info.
    (cd "$T" && "$FRONT" record -q -o "h$opt.raw" --args 'pass@args' \
        "./s$opt" > "h$opt.out")
    expect_eq "-O$opt record: output" "$want_out" "$(cat "$T/h$opt.out")"
    "$REPORT_SAN" --tree "$T/h$opt.raw" | sed -n 's/^[^|]*| *//p' |
        sed -n 's/^pass(\(.*\)) {$/\1/p' > "$T/got"
    awk '{ sub(/ [0-9]+$/, ""); printf "\"%s\"\n", $0 }' <<< "$want_out" > "$T/want"
    same "-O$opt record: the texts at the hook's call" "$T/want" "$T/got"
done
echo ok
