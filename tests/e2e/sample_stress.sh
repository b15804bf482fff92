#!/usr/bin/env bash
# The sampling handler must not deadlock or crash whatever it interrupts:
# 16 threads doing malloc/free, dlopen/dlclose, dl_iterate_phdr and fork,
# sampled every 1 ms, several times over.  Each run must end (timeout),
# print what the run without the preload printed and exit the same way.
# A run takes about 40 s on an idle 2-core machine and several times that
# on a loaded one, so the deadlock bound is generous.
# Longer soak:  SAMPLE_STRESS_RUNS=50 SAMPLE_STRESS_ITER=4000 bash tests/e2e/sample_stress.sh
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
runs=${SAMPLE_STRESS_RUNS:-3}
iter=${SAMPLE_STRESS_ITER:-1000}

gcc -std=gnu11 -O1 -g -o "$T/sample_stress" "$PROGRAMS/sample_stress.c" -lpthread -ldl
gcc -std=gnu11 -O1 -g -shared -fPIC -o "$T/libsample.so" "$PROGRAMS/sample_lib.c"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$CT_ROOT/include" \
    -o "$T/sample_decode" "$PROGRAMS/sample_decode.c"

set +e
"$T/sample_stress" "$T/libsample.so" "$iter" >"$T/expected"
expected_rc=$?
set -e
expect_eq "exit status without the preload" 3 "$expected_rc"

# The last run in `both` mode: calls and samples share the blocks.
for run in $(seq "$runs"); do
    mode=sample
    [ "$run" -lt "$runs" ] || mode=both
    {
        rm -f "$T"/s.raw*
        set +e
        timeout 300 env CALLTRACE_MODE=$mode CALLTRACE_SAMPLE_INTERVAL=1ms \
            CALLTRACE_OUTPUT="$T/s.raw" LD_PRELOAD="$LIB" \
            "$T/sample_stress" "$T/libsample.so" "$iter" >"$T/got" 2>"$T/err"
        rc=$?
        set -e
        [ "$rc" -ne 124 ] || fail "$mode run $run: no end within 300 s (deadlock?)"
        expect_eq "$mode run $run: exit status" "$expected_rc" "$rc"
        cmp -s "$T/expected" "$T/got" || fail "$mode run $run: output differs"
        expect_eq "$mode run $run: stderr" "" "$(cat "$T/err")"
        "$T/sample_decode" "$T/s.raw" >"$T/s.txt" || fail "$mode run $run: trace unreadable"
        # Every worker thread was sampled on its own clock.
        tids=$(awk '$1 == "S" { print $2 }' "$T/s.txt" | sort -u | wc -l)
        [ "$tids" -ge 16 ] || fail "$mode run $run: samples from $tids threads, expected 16+"
        echo "$mode run $run: ok, $(grep -c '^S' "$T/s.txt") samples from $tids threads"
    }
done
