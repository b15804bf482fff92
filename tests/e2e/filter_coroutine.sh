#!/usr/bin/env bash
# Record-time filters across coroutine switches: each context keeps what
# the filters know of its frames (preload/filters/filter_context.c).
# tests/programs/filter_coroutine.c switches to a coroutine, which
# switches back while its frames are open, and back again.  Known by
# construction: slow() sleeps 3 ms, quick() returns at once, co_yield()'s
# call spans main's slow(2).  Each rule's tree, context by context, is
# the one the rule gives without coroutines; before, a coroutine's frames
# took over the state of main's at the same levels: main written twice
# (one frame left open), the coroutine's kept frames lost, and a trigger
# of the coroutine's in force over main's calls.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"

build_traced "$T/fc" "$PROGRAMS/filter_coroutine.c"
"$T/fc" || fail "the program fails untraced"

# by_context RAW: the tree's lines, context by context (the thread's own
# first, then its coroutine's, each in its order), on one line each
by_context() {
    "$REPORT_SAN" --tree "$1" |
        sed -n 's/^.*\[ *[0-9]*\(:*[0-9]*\)\] | /\1|/p' |
        sort -s -t'|' -k1,1 | tr '\n' ' '
}

# check NAME WANT ENV... (OPEN=N frames open at the end, ARG=x to leave
# the coroutine suspended)
check() {
    local name=$1 want=$2
    shift 2
    rm -f "$T/t.raw"*
    env CALLTRACE_LIBCALLS=none CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB" \
        "$@" "$T/fc" ${ARG:-} || fail "$name: the program's status"
    expect_eq "$name: tree" "$want" "$(by_context "$T/t.raw")"
    expect_eq "$name: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, ${OPEN:-0} frames open at the end" \
        "$("$REPORT_SAN" "$T/t.raw" | grep '^ Unmatched:')"
}

check "no filter" \
    "|main() { |  slow(); |  slow(); |  quick(); |} /* main */ :1|co_body() { :1|  quick(); :1|  co_yield(); :1|  slow(); :1|} /* co_body */ "
# the summary's on-CPU lines name the coroutine as its Threads line does
# (where the tracer gave on-CPU times at all)
"$REPORT_SAN" "$T/t.raw" > "$T/report.txt"
! has '^  tid [0-9]*: ' "$T/report.txt" || has '^  tid [0-9]*:1: ' "$T/report.txt" ||
    fail "the coroutine's on-CPU line: $("$REPORT_SAN" "$T/t.raw" | grep '^  tid')"
# main's entry is written by slow(1); the coroutine's co_body waits on its
# duration while main runs slow(2); both quick() calls are short
check "min=1ms" \
    "|main() { |  slow(); |  slow(); |} /* main */ :1|co_body() { :1|  co_yield(); :1|  slow(); :1|} /* co_body */ " \
    CALLTRACE_MIN_DURATION=1ms
"$REPORT_SAN" "$T/t.raw" | has '^ Left out as short: quick 2 ' ||
    fail "min=1ms: the calls left out: $("$REPORT_SAN" "$T/t.raw" | grep 'Left out')"
# every call waits until it is known to lead to slow()
check "slow:caller" \
    "|main() { |  slow(); |  slow(); |} /* main */ :1|co_body() { :1|  slow(); :1|} /* co_body */ " \
    CALLTRACE_FILTER=slow:caller
# co_yield's :notrace is in force in the coroutine alone, while it is open
check "co_yield:notrace" \
    "|main() { |  slow(); |  slow(); |  quick(); |} /* main */ :1|co_body() { :1|  quick(); :1|  slow(); :1|} /* co_body */ " \
    CALLTRACE_FILTER=co_yield:notrace
check "co_body:depth=1" \
    "|main() { |  slow(); |  slow(); |  quick(); |} /* main */ :1|co_body(); " \
    CALLTRACE_FILTER=co_body:depth=1

# The thread ends with the coroutine suspended inside co_yield: its
# frames, open for longer than min=, are shown as never returned, as
# without a filter; under :caller they lead to no slow() and are counted
# left out with quick(1).  Before, they waited in a context no one looked at again and
# went without a trace or a count.
open_co=":1|co_body() { :1|  co_yield(); /* never returned */ :1|} /* co_body: never returned */ "
ARG=x OPEN=2 check "suspended, no filter" \
    "|main() { |  slow(); |  slow(); |} /* main */ :1|co_body() { :1|  quick(); :1|  co_yield(); /* never returned */ :1|} /* co_body: never returned */ "
ARG=x OPEN=2 check "suspended, min=1ms" \
    "|main() { |  slow(); |  slow(); |} /* main */ $open_co" CALLTRACE_MIN_DURATION=1ms
ARG=x check "suspended, slow:caller" \
    "|main() { |  slow(); |  slow(); |} /* main */ " CALLTRACE_FILTER=slow:caller
"$REPORT_SAN" "$T/t.raw" | has '^ Left out by the filter: 3 calls (3 on no path to a :caller function)' ||
    fail "suspended, slow:caller: the count: $("$REPORT_SAN" "$T/t.raw" | grep 'Left out')"
