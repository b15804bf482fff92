#!/bin/bash
# --export: a trace exported and read back gives the same report (at the
# export's precision); unknown formats list the known ones.
. "$(dirname "$0")/lib.sh"
S=$FORMATS/samples
[ -d "$S" ] || fail "no samples at $S"
body() { "$REPORT_SAN" -b "$1" | grep -v '^ Input:'; }

"$REPORT_SAN" --export lms -o "$T/a.csv" "$S/lms_profile.csv"
diff <(body "$S/lms_profile.csv") <(body "$T/a.csv") || fail "lms round trip"

# an RTL log (ms) through lms (us): same calls and times per function
"$REPORT_SAN" --export lms -o "$T/b.csv" "$S/rtl_soffice_4711.log" 2>/dev/null
fp() { "$REPORT_SAN" -b -p "$1" | awk '/ name *$/ {on=1; next} on && NF>=7 {print $4, $6, $7, $8, $9, $10}' | sort; }
diff <(fp "$S/rtl_soffice_4711.log") <(fp "$T/b.csv") || fail "rtl -> lms figures"

"$REPORT_SAN" --export samplingprof -o "$T/c.txt" "$S/samplingprof_profile.txt"
diff <(body "$S/samplingprof_profile.txt") <(body "$T/c.txt") ||
    fail "samplingprof round trip"

# a call trace as 1 ms pseudo-samples: rtl's Main is 888 ms total
"$REPORT_SAN" --export samplingprof -o "$T/d.txt" "$S/rtl_soffice_4711.log"
grep -q ':0:desktop (cd100003) ::desktop::Desktop::Main,0$' "$T/d.txt" ||
    fail "samplingprof element: $(sed -n 3p "$T/d.txt")"
grep -qx '0,102,888' "$T/d.txt" || fail "pseudo-samples of Main"

# openlaszlo is the --dump form: read back, the same figures (ms ticks)
if "$REPORT_SAN" --export openlaszlo -o "$T/e.txt" "$S/rtl_soffice_4711.log" 2>/dev/null; then
    diff <(fp "$S/rtl_soffice_4711.log") <(fp "$T/e.txt") || fail "rtl -> openlaszlo figures"
fi

set +e
"$REPORT_SAN" --export nope -o "$T/f" "$S/lms_profile.csv" 2>"$T/err"; st=$?
set -e
[ "$st" -ne 0 ] || fail "unknown export accepted"
grep -q 'known: openlaszlo, lms, samplingprof' "$T/err" || fail "no list: $(cat "$T/err")"
echo ok
