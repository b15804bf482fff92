#!/usr/bin/env bash
# The tracer never cuts a vector argument or return value
# (docs/tracer.md, "Library calls"): tests/programs/vector_args.c passes
# 256-bit vectors by value in %ymm registers to and from a library
# (through the PLT: the library-call stub and its return trampoline) and
# to and from a function of its own (in a patchable-entry build: the
# entry and return trampolines), and checks every result.  The C
# library's AVX2 string and memory functions, which the tracer's C code
# reaches on the general path of CALLTRACE_ARGS (a string rule on these
# functions: a bad pointer read), at a thread's first event and at block
# switches, end in vzeroupper, which clears the upper halves of %ymm0-15:
# the trampolines must keep them.  The AVX2 functions are chosen with
# GLIBC_TUNABLES even on a CPU with AVX-512, where the C library would
# pick others that leave them alone.  Each run's output is the untraced
# one.  The trampolines' fast ways, which save no vector register at all,
# call only C built to use none: the objects are checked for it.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
grep -qw avx2 /proc/cpuinfo || skip "no AVX2 on this CPU"
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ
unset CALLTRACE_LIBCALLS   # the default: plt
N=20000

gcc -std=gnu11 -O2 -mavx2 -shared -fPIC -o "$T/libvec.so" "$PROGRAMS/vector_args_lib.c"
gcc -std=gnu11 -O2 -mavx2 -finstrument-functions -o "$T/v" \
    "$PROGRAMS/vector_args.c" -L"$T" -lvec -Wl,-rpath,"$T"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"
gcc -std=gnu11 -O2 -mavx2 "${flags[@]}" -o "$T/vp" \
    "$PROGRAMS/vector_args.c" -L"$T" -lvec -Wl,-rpath,"$T"
want="bad 0 of $N"
expect_eq "untraced" "$want" "$("$T/v" "$N")"
expect_eq "untraced, patchable build" "$want" "$("$T/vp" "$N")"

# A rule that reads the first integer argument as a string (a bad
# pointer, read by the general path) and another that keeps the return
# value as one: both reach the C library's functions on each call.
rules='vec_sum@arg1/s;vec_add@arg1/s,retval/s;own_mul@arg1/s,retval/s'
n=0
for prog in v vp; do
    for vars in "" "CALLTRACE_MODE=profile" "CALLTRACE_BUFSIZE=4K" \
                "CALLTRACE_ARGS=$rules" \
                "CALLTRACE_ARGS=$rules CALLTRACE_BUFSIZE=4K"; do
        n=$((n + 1))
        rm -f "$T"/t.raw*
        # shellcheck disable=SC2086
        got=$(env $vars CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" "$T/$prog" "$N") ||
            fail "$prog ${vars:-(no rule)}: $got"
        expect_eq "$prog ${vars:-(no rule)}" "$want" "$got"
    done
done
# The trampolines' fast ways save no vector register: the C they call
# must use none (built with -mgeneral-regs-only), or a library call's
# arguments would be cut by the compiler's own use of %xmm, whatever the
# C library does.
for o in preload/hot/hot.o preload/libcalls/plt.o preload/args/plan.o \
         preload/base/stable_mem.o; do
    [ -f "$CT_BUILD/$o" ] || continue
    objdump -d "$CT_BUILD/$o" | grep -E '%[xyz]mm[0-9]' > "$T/vec" &&
        fail "$o uses vector registers: $(head -n 3 "$T/vec")"
done
# the calls were recorded, with their values, in the last run
"$REPORT_SAN" --tree "$T/t.raw" > "$T/tree" || fail "tree"
has 'vec_sum@plt(' "$T/tree" || fail "no vec_sum@plt values: $(head -n 5 "$T/tree")"
has 'own_mul(' "$T/tree" || fail "no own_mul calls: $(head -n 5 "$T/tree")"
echo "ok: $n runs, $N calls each of vec_add@plt, vec_sum@plt and own_mul, none cut"
