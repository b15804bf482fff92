#!/usr/bin/env bash
# Settings are read however early tracing starts: the first instrumented
# call here is in .preinit_array, where libc has not set `environ` yet
# (getenv finds nothing), so the tracer reads the environment from the
# initial stack.  The trace must land at CALLTRACE_OUTPUT and hold the
# calls made in .preinit_array, in a library's constructor and in an early
# constructor, and a second setting (CALLTRACE_START_PAUSED) must hold too.
#
# uftrace 0.13 (`uftrace record` / `uftrace replay` on the same binary)
# shows early_ctor and main but neither in_preinit nor lib_ctor: its
# library records nothing before its own constructor has run.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
gcc -std=gnu11 -O1 -g -finstrument-functions -shared -fPIC -o "$T/libearly.so" \
    "$PROGRAMS/early_lib.c"
build_traced "$T/early" "$PROGRAMS/early_start.c" -L"$T" -learly -Wl,-rpath,"$T"

mkdir "$T/cwd"
cd "$T/cwd"
out=$(CALLTRACE_OUTPUT="$T/early.raw" LD_PRELOAD=$LIB "$T/early")
expect_eq "output" "sink=2 lib=1" "$out"
[ -f "$T/early.raw" ] || fail "no trace at CALLTRACE_OUTPUT; files: $(ls "$T" "$T/cwd" | paste -sd' ')"
expect_eq "no trace under the default name" "" "$(ls "$T/cwd")"
"$REPORT_SAN" --tree "$T/early.raw" | sed -n 's/^.*\] | //p' > "$T/tree"
expect_eq "call tree" "in_preinit() {|  pre_leaf();|} /* in_preinit */|lib_ctor() {|  lib_leaf();|} /* lib_ctor */|early_ctor() {|  ctor_leaf();|} /* early_ctor */|main() {|  early_lib_calls();|} /* main */" \
    "$(paste -sd'|' "$T/tree")"

# Paused from the start: no calls at all, and still at CALLTRACE_OUTPUT.
CALLTRACE_OUTPUT="$T/paused.raw" CALLTRACE_START_PAUSED=1 LD_PRELOAD=$LIB \
    "$T/early" > /dev/null
[ -f "$T/paused.raw" ] || fail "no paused trace at CALLTRACE_OUTPUT"
expect_eq "calls while paused" 0 "$("$REPORT_SAN" --dump "$T/paused.raw" | awk '$2=="C"' | wc -l)"
expect_eq "no trace under the default name" "" "$(ls "$T/cwd")"
echo ok
