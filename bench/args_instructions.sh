#!/usr/bin/env bash
# The instructions one library call runs in the tracer for each kind of
# value CALLTRACE_ARGS keeps, against the same call without a rule: a
# count the machine's load cannot blur, beside bench/args_kinds.sh's times.
#   bench/args_instructions.sh      (BUILD=build-x to pick the library,
#                                    KINDS="int str ...": a subset,
#                                    BASE_LIB=path: another build's counts
#                                    beside)
# bench/args_kinds_prog.c calls one function of bench/args_kinds_lib.c
# through the PLT; gdb records (`record full`) the 1501st call from the
# stub's common part to the library function (the registers saved, the
# ENTRY and the values kept) and from the return trampoline to the
# caller (the RETVAL and the EXIT), and prints how many instructions
# each ran.  gdb cannot record the VEX-coded instructions that keep the
# upper halves of the vector registers on the full ways (plt_tramp.S):
# they are turned off for the count (ct_vec_upper), which leaves out
# about 30 instructions a full way runs on a CPU with AVX.  Under the debugger the
# clock moves far between two records, so each ENTRY's and EXIT's time
# takes a few more bytes (and its loop a few more instructions) than in
# a run: alike with and without the rule.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_setup
command -v gdb >/dev/null || { echo "bench/args_instructions.sh: skipped, no gdb" >&2; exit 0; }
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/libargs_kinds.so" bench/args_kinds_lib.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/prog" bench/args_kinds_prog.c \
    -L"$W" -largs_kinds -Wl,-rpath,"$W"

# KIND|program's kind|calltrace's rule (bench/args_kinds.sh's)
rows=(
  "int|int|k_int@arg1/i32"
  "long|long|k_long@arg1/i64"
  "char|char|k_char@arg1/c"
  "ptr|ptr|k_ptr@arg1/p"
  "double|double|k_dbl@fparg1/64"
  "str|str|k_str@arg1/s"
  "heapstr|heapstr|k_str@arg1/s"
  "datastr|datastr|k_str@arg1/s"
  "four|four|k_four@arg1/i32,arg2/i32,arg3/i32,arg4/i32"
  "retval|int|k_int@retval/i32"
)
want=" ${KINDS:-int long char ptr double str heapstr datastr four retval} "

# count LIB KIND FUNCTION [RULE]: "enter exit", the instructions of each:
# from the stub's common part (plt_entry) to the library function's first
# instruction, and from the return trampoline (ct_plt_return) to the
# caller's return address: the stub's and the trampoline's own
# instructions, their fast ways or their full ones, and the hooks'.
count() {
    cat > "$W/gdb.cmd" <<EOF
set pagination off
set confirm off
set breakpoint pending on
set environment LD_PRELOAD=$1
set environment CALLTRACE_OUTPUT=$W/t.raw
set environment CALLTRACE_CPUTIME=off
set environment CALLTRACE_ARGS=${4:-}
break plt_entry
run $2 2000 1
set var *(unsigned char *)&ct_vec_upper = 0
ignore 1 1500
continue
set \$ret = *(unsigned long *)\$rsp
delete
break $3
record full
continue
info record
record stop
delete
break ct_plt_return
continue
tbreak *\$ret
record full
continue
info record
record stop
kill
quit
EOF
    gdb -q -batch -x "$W/gdb.cmd" "$W/prog" 2>&1 |
        sed -n 's/^Log contains \([0-9]*\) instructions\.$/\1/p' | tr '\n' ' '
    rm -f "$W"/t.raw*
}

echo "command: BUILD=$BUILD${BASE_LIB:+ BASE_LIB=$BASE_LIB}${KINDS:+ KINDS=\"$KINDS\"} bench/args_instructions.sh"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo); $(gdb --version | sed -n 1p)"
echo
echo "Instructions of one library call in the tracer (from the stub to the function + from the return trampoline to the caller), with the rule and without"
echo
head="| kind | calltrace rule | no rule | with it | over it |"
line="|---|---|---|---|---|"
[ -n "${BASE_LIB:-}" ] && head+=" BASE_LIB, over its own |" line+="---|"
echo "$head"
echo "$line"
for row in "${rows[@]}"; do
    IFS='|' read -r name kind rule <<< "$row"
    [[ $want == *" $name "* ]] || continue
    fn=${rule%%@*}
    read -r be bx <<< "$(count "$LIB" "$kind" "$fn")"
    read -r ce cx <<< "$(count "$LIB" "$kind" "$fn" "$rule")"
    [ -n "${ce:-}" ] && [ -n "${cx:-}" ] || { echo "no count for $name" >&2; exit 1; }
    out="| $name | \`$rule\` | $be + $bx | $ce + $cx | +$((ce + cx - be - bx)) |"
    if [ -n "${BASE_LIB:-}" ]; then
        read -r oe ox <<< "$(count "$BASE_LIB" "$kind" "$fn")"
        read -r re rx <<< "$(count "$BASE_LIB" "$kind" "$fn" "$rule")"
        out+=" $oe + $ox, $re + $rx: +$((re + rx - oe - ox)) |"
    fi
    echo "$out"
done
