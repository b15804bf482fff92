#!/usr/bin/env bash
# What keeping one value costs a library call, for each kind of value
# CALLTRACE_ARGS keeps (issue: "state it per kind"), against the same
# calls traced without a rule; uftrace's -A/-R beside it on the same
# binary and calls, against uftrace without them, where installed.
#   bench/args_kinds.sh [RUNS]      (BUILD=build-x to pick the library,
#                                    KINDS="int str ...": a subset,
#                                    BASE_LIB=path: another build's rows
#                                    beside, in the same rounds)
# bench/args_kinds_prog.c calls one function of bench/args_kinds_lib.c
# through the PLT, 200,000 times a round, 20 rounds, and prints the
# fastest round's ns per call by its thread's CPU clock; each figure is
# the best of RUNS runs, the runs of each row in turn so that a busy
# machine slows them alike.  The trace's block holds every round
# (CALLTRACE_BUFSIZE=256M), so what is timed is the tracer's path, not
# the kernel's page faults.  Kinds: an int, a long, a char, a pointer, a
# double, a string literal (the program's constants), the same text on
# the heap and in a global buffer (.bss), four ints, an int's return
# value.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
N=200000
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/libargs_kinds.so" bench/args_kinds_lib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/prog" bench/args_kinds_prog.c \
    -L"$W" -largs_kinds -Wl,-rpath,"$W"
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

# KIND|program's kind|calltrace's rule|uftrace's options
rows=(
  "int|int|k_int@arg1/i32|-A k_int@arg1/i32"
  "long|long|k_long@arg1/i64|-A k_long@arg1/i64"
  "char|char|k_char@arg1/c|-A k_char@arg1/c"
  "ptr|ptr|k_ptr@arg1/p|-A k_ptr@arg1/x64"
  "double|double|k_dbl@fparg1/64|-A k_dbl@fparg1/64"
  "str|str|k_str@arg1/s|-A k_str@arg1/s"
  "heapstr|heapstr|k_str@arg1/s|-A k_str@arg1/s"
  "datastr|datastr|k_str@arg1/s|-A k_str@arg1/s"
  "four|four|k_four@arg1/i32,arg2/i32,arg3/i32,arg4/i32|-A k_four@arg1/i32,arg2/i32,arg3/i32,arg4/i32"
  "retval|int|k_int@retval/i32|-R k_int@retval/i32"
)
want=" ${KINDS:-int long char ptr double str heapstr datastr four retval} "

declare -A best
ct_run() {  # NAME LIB KIND [RULE]
    best_run "$1" env CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
        CALLTRACE_OUTPUT="$W/r.raw" LD_PRELOAD="$2" \
        CALLTRACE_ARGS="${4:-}" "$W/prog" "$3" "$N" 20
}
# The last line of CMD's output: uftrace warns on stdout that -A and -R
# "might not work" with -finstrument-functions (they do for library
# calls, which it takes at the PLT).
last_line() { "$@" | tail -n 1; }
uf_run() {  # NAME KIND [OPTIONS...]
    local name=$1 kind=$2
    shift 2
    rm -rf "$W/u.data"
    best_run "$name" last_line uftrace record -d "$W/u.data" "$@" "$W/prog" "$kind" "$N" 20
}
for ((r = 0; r < RUNS; r++)); do
    for row in "${rows[@]}"; do
        IFS='|' read -r name kind rule uopts <<< "$row"
        [[ $want == *" $name "* ]] || continue
        ct_run "ct-base-$name" "$LIB" "$kind"
        ct_run "ct-$name" "$LIB" "$kind" "$rule"
        if [ -n "${BASE_LIB:-}" ]; then
            ct_run "bl-base-$name" "$BASE_LIB" "$kind"
            ct_run "bl-$name" "$BASE_LIB" "$kind" "$rule"
        fi
        if [ $have_uftrace = 1 ]; then
            uf_run "uf-base-$name" "$kind"
            # shellcheck disable=SC2086
            uf_run "uf-$name" "$kind" $uopts
        fi
    done
done

echo "command: BUILD=$BUILD${BASE_LIB:+ BASE_LIB=$BASE_LIB}${KINDS:+ KINDS=\"$KINDS\"} bench/args_kinds.sh $RUNS"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "A library call through the PLT, ns per call (fastest of 20 rounds of $N calls by the thread's CPU clock, best of $RUNS runs), each over its own tool's run without the rule"
echo
head="| kind | calltrace rule | calltrace, no rule | calltrace, over it |"
line="|---|---|---|---|"
[ -n "${BASE_LIB:-}" ] && head+=" BASE_LIB, no rule | BASE_LIB, over its own |" line+="---|---|"
[ $have_uftrace = 1 ] && head+=" uftrace, no -A | uftrace, over it |" line+="---|---|"
echo "$head"
echo "$line"
for row in "${rows[@]}"; do
    IFS='|' read -r name kind rule uopts <<< "$row"
    [[ $want == *" $name "* ]] || continue
    awk -v n="$name" -v r="$rule" -v b="${best[ct-base-$name]}" \
        -v c="${best[ct-$name]}" -v bb="${best[bl-base-$name]:-}" \
        -v bc="${best[bl-$name]:-}" -v ub="${best[uf-base-$name]:-}" \
        -v uc="${best[uf-$name]:-}" 'BEGIN {
        printf "| %s | `%s` | %.1f | %+.1f |", n, r, b, c - b
        if (bb != "") printf " %.1f | %+.1f |", bb, bc - bb
        if (ub != "") printf " %.1f | %+.1f |", ub, uc - ub
        printf "\n" }'
done
