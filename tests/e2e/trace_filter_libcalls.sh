#!/usr/bin/env bash
# Record-time filters on library calls (name@plt, @dlsym, @got): exclude,
# include, globs, regular expressions, PATTERN@N and triggers name them, in
# the executable and in a library dlopened after start, and so do rules a
# running process gets from `calltrace control PID filter`.  Counts known
# by construction (tests/programs/filter_libcalls.c): a round makes
# getpid@plt 7 + 2 (the plugin's), strlen@plt 5, getppid@plt 3 and
# getpid@dlsym 4; 12 instrumented calls and plugin_pids@dlsym (the pointer
# dlsym returned for the plugin's function) besides.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control-lib.bash"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
unset CALLTRACE_LIBCALLS   # the default: calls through the PLT

gcc -std=gnu11 -O1 -g -fno-builtin -finstrument-functions \
    -o "$T/calls" "$PROGRAMS/filter_libcalls.c" -ldl
gcc -std=gnu11 -O1 -g -fPIC -shared -finstrument-functions \
    -o "$T/plugin.so" "$PROGRAMS/filter_libcalls_plugin.c"

counts() {
    "$REPORT_SAN" --dump "$1" | awk '$2=="C"{sub(/^[^ ]+ C /,""); print}' |
        sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'
}

# run NAME [VAR=VALUE]...: one round traced; the kept calls by name.
run() {
    local name=$1; shift
    env "$@" CALLTRACE_OUTPUT="$T/$name.raw" LD_PRELOAD="$LIB" \
        "$T/calls" "$T/plugin.so" 2>"$T/$name.err" ||
        fail "$name: status $?: $(cat "$T/$name.err")"
    expect_eq "$name: stderr" "" "$(cat "$T/$name.err")"
}

# check NAME "COUNTS" "LEFT-OUT": kept calls, and the summary's line.
check() {
    expect_eq "$1: calls" "$2" "$(counts "$T/$1.raw")"
    "$REPORT_SAN" -b -p "$T/$1.raw" > "$T/$1.rep" || fail "$1: report"
    expect_eq "$1: left out" " Left out by the filter: $3" \
        "$(grep '^ Left out by the filter' "$T/$1.rep" || true)"
    # The flat profile and --tree tell the same story as --dump.
    local n
    n=$("$REPORT_SAN" --dump "$T/$1.raw" | awk '$2=="C"' | wc -l)
    has "^ Events: .* ($n calls, $n returns," "$T/$1.rep" ||
        fail "$1: summary calls are not $n"
    expect_eq "$1: --tree lines" "$n" \
        "$("$REPORT_SAN" --tree "$T/$1.raw" | grep -cE '\(\);|\(\) \{')"
}

ALL="count_pids=1 getpid@dlsym=4 getpid@plt=9 getppid@plt=3 main=1 measure=1 parent=1 plugin_pids=1 plugin_pids@dlsym=1 round_of_calls=1 strlen@plt=5 through_dlsym=1 "
run all
[ -n "$(counts "$T/all.raw")" ] || skip "the tracer recorded no calls"
expect_eq "unfiltered" "$ALL" "$(counts "$T/all.raw")"

# Exclude one library function: the executable's 7 and the dlopened
# plugin's 2 calls of getpid, not the pointer's.
run excl CALLTRACE_FILTER=-getpid@plt
check excl "count_pids=1 getpid@dlsym=4 getppid@plt=3 main=1 measure=1 parent=1 plugin_pids=1 plugin_pids@dlsym=1 round_of_calls=1 strlen@plt=5 through_dlsym=1 " \
    "9 calls (9 excluded by -getpid@plt)"

run incl CALLTRACE_FILTER=strlen@plt
check incl "strlen@plt=5 " "24 calls (24 not below an included function)"

run glob CALLTRACE_FILTER='*@plt'
check glob "getpid@plt=9 getppid@plt=3 strlen@plt=5 " \
    "12 calls (12 not below an included function)"

run noplt CALLTRACE_FILTER='-*@plt'
check noplt "count_pids=1 getpid@dlsym=4 main=1 measure=1 parent=1 plugin_pids=1 plugin_pids@dlsym=1 round_of_calls=1 through_dlsym=1 " \
    "17 calls (17 excluded by -*@plt)"

run regex CALLTRACE_FILTER='re:^get.*@plt$'
check regex "getpid@plt=9 getppid@plt=3 " \
    "17 calls (17 not below an included function)"

run levels CALLTRACE_FILTER='getppid@plt@1'
check levels "getppid@plt=3 " "26 calls (26 not below an included function)"

run dlsym CALLTRACE_FILTER=-getpid@dlsym
check dlsym "count_pids=1 getpid@plt=9 getppid@plt=3 main=1 measure=1 parent=1 plugin_pids=1 plugin_pids@dlsym=1 round_of_calls=1 strlen@plt=5 through_dlsym=1 " \
    "4 calls (4 excluded by -getpid@dlsym)"

# Recording starts at the first getppid@plt: the rest of parent's loop,
# the plugin and the pointer's calls.
run trig CALLTRACE_TRIGGER='getppid@plt:on'
check trig "getpid@dlsym=4 getpid@plt=2 getppid@plt=3 plugin_pids=1 plugin_pids@dlsym=1 through_dlsym=1 " \
    "17 calls (17 while a trigger had recording off)"

run trig2 CALLTRACE_TRIGGER='strlen@plt:on,getppid@plt:off'
check trig2 "parent=1 strlen@plt=5 " \
    "23 calls (23 while a trigger had recording off)"

# -fno-plt calls (tests/programs/libcalls_noplt.c): getpid@got 4 times.
build_traced "$T/noplt" "$PROGRAMS/libcalls_noplt.c" -fno-plt
for spec in -getpid@got getpid@got; do
    rm -f "$T/noplt.raw"
    CALLTRACE_FILTER=$spec run_traced "$T/noplt.raw" "$T/noplt" > /dev/null ||
        fail "$spec: status"
    got=$(counts "$T/noplt.raw")
    case $spec in
    -*) expect_eq "$spec" "called=1 main=1 printf@got=1 taken=1 " "$got" ;;
    *) expect_eq "$spec" "getpid@got=4 " "$got" ;;
    esac
done

# C++: a library call matches by its demangled name with and without its
# parameters, or its mangled one, each followed by its mark.
g++ -O0 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/filter_libcalls_cxx.cpp"
for spec in '-operator new@plt' '-_Znwm@plt' '-operator new(unsigned long)@plt'; do
    rm -f "$T/cxx.raw"
    CALLTRACE_FILTER=$spec run_traced "$T/cxx.raw" "$T/cxx" ||
        fail "$spec: status"
    expect_eq "$spec" "main=1;make_one(int)=6;operator delete(void*, unsigned long)@plt=6" \
        "$("$REPORT_SAN" --dump "$T/cxx.raw" |
           awk '$2=="C"{sub(/^[^ ]+ C /,""); print}' | sort | uniq -c |
           sed 's/^ *\([0-9]*\) \(.*\)/\2=\1/' | paste -sd';')"
done

# Rules changed at run time: every slot stays patched, so a rule that
# names a library function after its slot was patched still applies.
[ -x "$FRONT" ] || { echo ok; exit 0; }
mkfifo "$T/in"
CALLTRACE_CONTROL=1 CALLTRACE_OUTPUT=$T/ctl.raw LD_PRELOAD=$LIB \
    "$T/calls" "$T/plugin.so" - < "$T/in" > "$T/out" 2>"$T/ctl.err" &
pid=$!
exec 3> "$T/in"
trap 'exec 3>&-; kill -9 $pid 2>/dev/null || true; rm -rf "$T"' EXIT
waitfor ready
wait_control_socket $pid
echo go >&3; waitfor "done 1"
"$FRONT" control $pid filter '-getpid@plt' > /dev/null || fail "control filter"
echo go >&3; waitfor "done 2"
"$FRONT" control $pid filter 'strlen@plt,getpid@dlsym' > /dev/null ||
    fail "control filter"
echo go >&3; waitfor "done 3"
echo exit >&3
exec 3>&-
wait $pid || fail "program status $?"
# Round 1 all; round 2 all but getpid@plt; round 3 strlen and the pointer.
got=$(counts "$T/ctl.raw" | tr ' ' '\n' |
      grep -E '^(getpid|getppid|strlen)@' | tr '\n' ' ')
expect_eq "control: library calls" \
    "getpid@dlsym=12 getpid@plt=9 getppid@plt=6 strlen@plt=15 " "$got"
echo ok
