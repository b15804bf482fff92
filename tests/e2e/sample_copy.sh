#!/usr/bin/env bash
# The kernel sampler's stack copy follows the thread's deepest walk
# (docs/sampling.md, "Copy size"): tests/programs/sample_deepen.c burns
# 400 ms a few frames deep (its copy shrinks: samples are cut short when
# the thread deepens; with strace where present, the full copy is seen
# asked for), then 400 ms 80 frames deep (about 4 KiB).  The samples cut
# short between are counted in the trace, at most a couple of drains'
# worth, and main stays on nearly every sampled stack; a program whose
# depth does not change has none of its loops' samples cut short.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
gcc -std=gnu11 -O2 -g -o "$T/deepen" "$PROGRAMS/sample_deepen.c"
gcc -std=gnu11 -O2 -g -o "$T/s7030" "$PROGRAMS/sample_7030.c" -ldl

sample() {  # RAW CMD...
    local raw=$1; shift
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms run_traced "$raw" "$@" ||
        fail "$*: status $?"
}
cut_of() { "$REPORT" --dump "$1" | sed -n 's/.* \([0-9]*\) cut short by a smaller stack copy.*/\1/p'; }
# "samples stacks_with_main" from the report's summary and its flat
# profile (the samples column: the stacks a function is on)
main_share() {
    "$REPORT" "$1" | awk '/^ Sampled: figures are statistical;/ { n = $5 + 0 }
        NF >= 8 && $(NF-1) == "main" && $NF ~ /^\[[0-9]+\]$/ && t == "" { t = $5 + 0 }
        END { print n, t }'
}

sample "$T/d.raw" "$T/deepen"
cut=$(cut_of "$T/d.raw")
[ -n "$cut" ] || fail "deepen: no sample cut short: the copy never shrank ($("$REPORT" --dump "$T/d.raw" | grep -i 'sampling:'))"
[ "$cut" -le 60 ] || fail "deepen: $cut samples cut short, more than a couple of drains' worth"
read -r n t < <(main_share "$T/d.raw")
[ "${n:-0}" -ge 300 ] || fail "deepen: only ${n:-0} samples"
[ $((t * 100)) -ge $((n * 90)) ] || fail "deepen: main on $t of $n sampled stacks, under 90 %"
echo "ok: deepen: $cut of $n samples cut short, main on $t"

# Steady depth: main on every sampled stack not cut short, and at most
# two cut short in all.  Not none: the program's tail goes deeper than
# its loops (its one printf allocates stdout's buffer under vfprintf's
# large frame; a function called first there is bound by the loader's
# resolver, which saves the vector state on the stack), past twice the
# loops' deepest walk, and a sample that lands there is cut short: about
# 1 run in 60 on the AMD EPYC VM, the walks seen (docs/sampling.md,
# "Copy size").  A copy that shrank below what the loops' own walks need
# would cut every drain's samples.
sample "$T/s.raw" "$T/s7030" 20 > /dev/null
cut=$(cut_of "$T/s.raw")
[ "${cut:-0}" -le 2 ] || fail "steady depth: $cut samples cut short"
read -r n t < <(main_share "$T/s.raw")
[ "${n:-0}" -ge 100 ] || fail "steady depth: only ${n:-0} samples"
[ "${t:-0}" -ge $((n - ${cut:-0})) ] ||
    fail "steady depth: main on $t of $n sampled stacks, $cut cut short"
echo "ok: steady depth: ${cut:-0} of $n samples cut short, main on $t"

if can_strace; then
    rm -f "$T"/st.raw*
    strace -f -v -o "$T/strace" -e trace=perf_event_open env CALLTRACE_MODE=sample \
        CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT="$T/st.raw" LD_PRELOAD="$LIB" \
        "$T/deepen" || fail "under strace: status $?"
    copies=$(grep -o 'sample_stack_user=[0-9a-fx]*' "$T/strace" | sort -u | tr '\n' ' ')
    grep -q 'sample_stack_user=0x2000' "$T/strace" || fail "no full copy: $copies"
    # The smaller copy is what the samples cut short above show.  Under
    # strace on a loaded machine every system call of the sampler waits
    # for strace to be scheduled, and its drains fall so far behind that
    # no walk before a reopen is whole: the copy may then stay full for
    # the whole run (seen on 2 busy cores, three runs of three).
    echo "ok: copies under strace: $copies"
else
    echo "strace cannot trace here: the copies' sizes unchecked"
fi
