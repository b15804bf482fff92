#!/usr/bin/env bash
# Exact call counts, nesting, user events in order, header fields, output
# and exit status unchanged by the preload, PIE and non-PIE, both clocks,
# and the library's exported symbols.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"

counts() { awk '$3=="C"{print $4}' "$1" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'; }
want="leaf=1200 main=1 middle=100 rec=11 run=1 "

for pie in -no-pie -pie; do
    build_traced "$T/calls" "$PROGRAMS/trace_calls.c" $pie
    nm "$T/calls" > "$T/calls.nm"
    set +e
    plain_out=$("$T/calls"); plain_rc=$?
    traced_out=$(run_traced "$T/out$pie.raw" "$T/calls" 2>"$T/err"); traced_rc=$?
    set -e
    expect_eq "exit status ($pie)" "$plain_rc" "$traced_rc"
    expect_eq "stdout ($pie)" "$plain_out" "$traced_out"
    expect_eq "stderr ($pie)" "" "$(cat "$T/err")"
    "$DEC" -n "$T/calls.nm" "$T/out$pie.raw" > "$T/dec$pie.txt" ||
        fail "decode ($pie): $(tail -n 1 "$T/dec$pie.txt")"
    expect_eq "call counts ($pie)" "$want" "$(counts "$T/dec$pie.txt")"
    expect_eq "returns ($pie)" 1313 "$(awk '$3=="R"' "$T/dec$pie.txt" | wc -l)"
    expect_eq "events ($pie)" "after leaves 1000|after middles|after rec done" \
        "$(awk '$3=="V"{sub(/^[^ ]+ [^ ]+ V /,""); print}' "$T/dec$pie.txt" | paste -sd'|')"
    # The first event follows main, run and the 1000 leaf calls.
    expect_eq "event position" "1002" \
        "$(awk '$3=="C"{n++} $3=="V"{print n; exit}' "$T/dec$pie.txt")"
    hdr=$(head -n 1 "$T/dec$pie.txt")
    case $hdr in *" flags=5 threads=1 lost=0 clock=1 "*|*" flags=5 threads=1 lost=0 clock=2 "*) ;;
        *) fail "header ($pie): $hdr";; esac
    grep -q "^M .* $T/calls\$" "$T/dec$pie.txt" || fail "no MAPS entry for the program"
    grep -q "^M .*libcalltrace.so\$" "$T/dec$pie.txt" || fail "no MAPS entry for the tracer"
done

# The monotonic clock: ns ticks.
CALLTRACE_CLOCK=monotonic run_traced "$T/mono.raw" "$T/calls" >/dev/null || true
"$DEC" -n "$T/calls.nm" "$T/mono.raw" > "$T/mono.txt" || fail "decode mono"
case $(head -n 1 "$T/mono.txt") in *" clock=2 hz=1000000000 "*) ;;
    *) fail "monotonic header: $(head -n 1 "$T/mono.txt")";; esac
expect_eq "call counts (monotonic)" "$want" "$(counts "$T/mono.txt")"

# Only the intended symbols leave the library.
exports=$(nm -D --defined-only "$LIB" | awk '{print $3}' | sort | paste -sd' ')
for s in $exports; do
    case $s in
        __cyg_profile_func_enter|__cyg_profile_func_exit|calltrace_*_impl) ;;
        _exit|_Exit|execl|execle|execlp|execv|execve|execvp|execvpe|fexecve) ;;
        dlopen|dlmopen|dlclose|dl_iterate_phdr|sigaction|signal|pthread_create) ;;
        longjmp|_longjmp|siglongjmp|__longjmp_chk|__cxa_begin_catch) ;;
        # setjmp returns twice: its call written as one that returns at once
        setjmp|_setjmp|__sigsetjmp) ;;
        posix_spawn|posix_spawnp|system|popen) ;;
        # the program's own signal dispositions (signals.c)
        bsd_signal|sysv_signal|__sysv_signal|sigset|sigignore|siginterrupt) ;;
        # the TSC turned off, seccomp strict mode (wrap_prctl.c)
        prctl|syscall) ;;
        # children the fork and thread handlers do not see (wrap_clone.c)
        clone|vfork) ;;
        # coroutines: each context its own call stack (context.c)
        makecontext|swapcontext|setcontext|getcontext) ;;
        # the kernel sampler's thread makes no mask system call per frame
        sigprocmask|pthread_sigmask) ;;
        # library calls: the unwinder must not meet the return trampoline
        _Unwind_RaiseException|_Unwind_Resume|_Unwind_Resume_or_Rethrow) ;;
        _Unwind_ForcedUnwind|_Unwind_Backtrace|_Unwind_SetIP|pthread_exit) ;;
        # cancellation in C: where the cleanup handler's jump lands
        pthread_cancel|__pthread_register_cancel) ;;
        __pthread_unregister_cancel|__pthread_unwind_next) ;;
        *) fail "unexpected export $s";;
    esac
done
for s in __cyg_profile_func_enter __cyg_profile_func_exit calltrace_vevent_impl \
         calltrace_set_enabled_impl calltrace_is_enabled_impl calltrace_region_impl; do
    case " $exports " in *" $s "*) ;; *) fail "missing export $s";; esac
done
echo ok
