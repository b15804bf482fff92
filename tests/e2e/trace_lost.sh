#!/usr/bin/env bash
# CALLTRACE_LIMIT: past the limit events are dropped and counted; recorded
# plus lost is exactly the number of events the program made.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/lost" "$PROGRAMS/trace_lost.c" -no-pie
nm "$T/lost" > "$T/nm"
CALLTRACE_BUFSIZE=4K CALLTRACE_LIMIT=16K run_traced "$T/out.raw" "$T/lost" > "$T/stdout"
expect_eq stdout done "$(cat "$T/stdout")"
size=$(stat -c %s "$T/out.raw")
[ "$size" -le 16384 ] || fail "file is $size bytes, above the 16K limit"
"$DEC" -n "$T/nm" "$T/out.raw" > "$T/dec.txt" || fail "decode: $(tail -n 1 "$T/dec.txt")"
recorded=$(awk '$3=="C" || $3=="R"' "$T/dec.txt" | wc -l)
header_lost=$(head -n 1 "$T/dec.txt" | sed 's/.* lost=\([0-9]*\).*/\1/')
block_lost=$(awk '$1=="B"{sub(/lost=/,"",$6); s+=$6} END{print s+0}' "$T/dec.txt")
record_lost=$(awk '$3=="L"{s+=$4} END{print s+0}' "$T/dec.txt")
[ "$header_lost" -gt 0 ] || fail "nothing lost"
expect_eq "recorded + lost" 40002 $((recorded + header_lost))
expect_eq "block headers' lost" "$header_lost" "$block_lost"
expect_eq "LOST records" "$header_lost" "$record_lost"

# Without a limit nothing is dropped.
CALLTRACE_BUFSIZE=4K run_traced "$T/all.raw" "$T/lost" > /dev/null
"$DEC" -n "$T/nm" "$T/all.raw" > "$T/all.txt" || fail "decode: $(tail -n 1 "$T/all.txt")"
expect_eq "all recorded" 40002 "$(awk '$3=="C" || $3=="R"' "$T/all.txt" | wc -l)"
case $(head -n 1 "$T/all.txt") in *" lost=0 "*) ;; *) fail "lost without limit";; esac
echo ok
