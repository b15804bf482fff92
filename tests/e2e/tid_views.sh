#!/usr/bin/env bash
# --tid selects the same threads in every view: three named threads call
# f_alpha 2, f_beta 3 and f_gamma 5 times, each through worker() once, so
# that the calls each selection keeps are known; the report, the tree, the
# dump and the exports must each count exactly those and no other.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/app" "$PROGRAMS/info_threads.c"
run_traced "$T/t.raw" "$T/app" > "$T/out.txt" || fail "the program failed"
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"
tid() { awk -v n="$1" '$1==n{print $2}' "$T/out.txt"; }
A=$(tid alpha) B=$(tid beta) G=$(tid gamma)

# counts VIEW: "f_alpha f_beta f_gamma worker" call counts in a view's file
count() {
    local view=$1 f=$T/v.$1 fn n out=""
    for fn in f_alpha f_beta f_gamma worker; do
        case $view in
        report) n=$(awk -v fn="$fn" \
                    'NF==8 && $NF ~ /^\[/ && $(NF-1)==fn {print $4}' "$f");;
        tree) n=$(grep -cE "\| +$fn\(\)( \{|;)\$" "$f" || true);;
        dump|openlaszlo) n=$(awk -v fn="$fn" '$2 ~ /^C/ && $3==fn' "$f" | wc -l);;
        folded) n=$(awk -v fn="$fn" '{k=$1; sub(/.*;/, "", k)}
                    k==fn {s+=$2} END {print s+0}' "$f");;
        # callgrind counts calls by their caller: worker has none
        callgrind) [ $fn = worker ] && { out+="- "; continue; }
                   n=$(awk -v fn="$fn" '/^cfn=/{c=substr($0,5)}
                    /^calls=/ && c==fn {split($0,a,"[= ]"); s+=a[2]}
                    END {print s+0}' "$f");;
        chrome) n=$(grep -c "\"ph\":\"B\".*\"name\":\"$fn\"" "$f" || true);;
        esac
        out+="${n:-0} "
    done
    echo "$out"
}

check() {
    local sel=$1 want=$2 view
    "$REPORT_SAN" --tid="$sel" -p -b "$T/t.raw" > "$T/v.report" ||
        fail "report --tid=$sel"
    "$REPORT_SAN" --tid="$sel" --tree "$T/t.raw" > "$T/v.tree" ||
        fail "tree --tid=$sel"
    "$REPORT_SAN" --tid="$sel" --dump "$T/t.raw" > "$T/v.dump" ||
        fail "dump --tid=$sel"
    for view in openlaszlo folded callgrind chrome; do
        "$REPORT_SAN" --tid="$sel" --export=$view --folded-value=calls \
            -o "$T/v.$view" "$T/t.raw" 2> /dev/null ||
        "$REPORT_SAN" --tid="$sel" --export=$view -o "$T/v.$view" \
            "$T/t.raw" || fail "export $view --tid=$sel"
    done
    for view in report tree dump openlaszlo folded callgrind chrome; do
        local w=$want
        [ $view = callgrind ] && w="${want% * } - "
        expect_eq "$view --tid=$sel (f_alpha f_beta f_gamma worker)" \
            "$w" "$(count $view)"
    done
}

# Every thread selected: the counts the selections below split.
check "$A,$B,$G" "2 3 5 3 "
check "$A,$G" "2 0 5 2 "
check "$G" "0 0 5 1 "

# Each view of one thread, kept for the front end's below.
check "$B" "0 3 0 1 "
cp "$T/v.tree" "$T/beta.tree"

# calltrace top's table of the finished trace, likewise.
"$FRONT" top --tid="$A,$G" "$T/t.raw" > "$T/top.txt" || fail "top --tid"
expect_eq "top --tid (f_alpha f_beta f_gamma worker)" "2 - 5 2 " "$(
    for fn in f_alpha f_beta f_gamma worker; do
        awk -v fn="$fn" '$NF==fn {print $(NF-2); f=1} END {if (!f) print "-"}' \
            "$T/top.txt"
    done | paste -sd' ') "

# A recording of two processes: only the section of the process that has
# the thread is printed.
"$FRONT" record -o "$T/rec" sh -c '"$0" && "$0"' "$T/app" > "$T/rec.out" 2>&1 ||
    fail "record: $(cat "$T/rec.out")"
B2=$(awk '$1=="beta"{b=$2} END{print b}' "$T/rec.out")
"$FRONT" tree --tid="$B2" "$T/rec" > "$T/rec.tree" || fail "tree of rec"
expect_eq "sections" 1 "$(grep -c '^==== Process' "$T/rec.tree")"
expect_eq "f_beta calls in rec" 3 "$(grep -cE '\| +f_beta\(\);$' "$T/rec.tree")"

# The summary lists the selected thread only, the others counted.
"$REPORT_SAN" --tid="$B" -p "$T/t.raw" | has "Threads: 1 of 4 (--tid) (tid $B beta)" ||
    fail "summary: $("$REPORT_SAN" --tid="$B" -p "$T/t.raw" | grep Threads)"
# The front end passes it on, and a tid of no thread is an error.
"$FRONT" tree --tid "$B" "$T/t.raw" | cmp -s - "$T/beta.tree" ||
    fail "calltrace tree --tid differs"
set +e
"$REPORT_SAN" --tid=1 -p "$T/t.raw" > /dev/null 2> "$T/err"
expect_eq "--tid of no thread" 1 $?
has "no thread 1 in the trace" "$T/err" || fail "message: $(cat "$T/err")"
"$REPORT_SAN" --tid=x1 -p "$T/t.raw" > /dev/null 2>&1
expect_eq "--tid=x1" 1 $?
echo "ok"
