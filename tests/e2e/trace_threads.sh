#!/usr/bin/env bash
# Per-thread blocks: each thread's calls under its own tid, nesting intact.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/threads" "$PROGRAMS/trace_threads.c" -no-pie
nm "$T/threads" > "$T/nm"
# Small blocks, so threads switch blocks many times.
CALLTRACE_BUFSIZE=4K run_traced "$T/out.raw" "$T/threads" > "$T/stdout"
expect_eq stdout "sink=$(( (99*100/2) + (199*200/2) + (299*300/2) + (399*400/2) ))" "$(cat "$T/stdout")"
"$DEC" -n "$T/nm" "$T/out.raw" > "$T/dec.txt" || fail "decode: $(tail -n 1 "$T/dec.txt")"
# work() calls per tid, sorted: 100 200 300 400; body() once per thread.
expect_eq "work per thread" "100 200 300 400" \
    "$(awk '$3=="C" && $4=="work"{n[$1]++} END{for (t in n) print n[t]}' "$T/dec.txt" | sort -n | paste -sd' ')"
expect_eq "body per thread" "1 1 1 1" \
    "$(awk '$3=="C" && $4=="body"{n[$1]++} END{for (t in n) print n[t]}' "$T/dec.txt" | paste -sd' ')"
expect_eq "threads" 5 "$(awk '$1=="B"{print $2}' "$T/dec.txt" | sort -u | wc -l)"
case $(head -n 1 "$T/dec.txt") in *" threads=5 lost=0 "*) ;;
    *) fail "header: $(head -n 1 "$T/dec.txt")";; esac
# Each ended thread's last block says so and carries THREAD_END.
expect_eq "thread ends" 4 "$(awk '$3=="X"' "$T/dec.txt" | wc -l)"
expect_eq "switches bracketed" "$(awk '$3=="S"' "$T/dec.txt" | wc -l)" \
    "$(awk '$1=="B" && $3!="seq=0"' "$T/dec.txt" | wc -l)"
echo ok
