#!/usr/bin/env bash
# A C++ exception that crosses a library call (an uninstrumented library's
# callback throws) and a frame with a destructor before its catch.  The
# library call ends when the unwinder lands in the frame that made it (the
# tracer's _Unwind_SetIP wrapper), so the destructor shows in attempt(),
# after the call, not inside it.  Each cleanup resumes the unwinding with
# _Unwind_Resume, which never returns: the second of those calls through
# the same lazily bound slot was lost (the resolver had written over the
# stub and no return came to put it back).  Lazy binding, LD_BIND_NOW=1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
command -v g++ > /dev/null || skip "no g++"
unset CALLTRACE_LIBCALLS

build_cxx_with_cblib "$T/landing" "$PROGRAMS/libcalls_landing.cpp"
expected_out=$("$T/landing")
expect_eq "untraced output" "caught=2 destroyed=2" "$expected_out"

round() {
    printf '%s\n' "  attempt()" "    cblib_apply@plt" \
        "      cb(int)" "      cb(int)" "      cb(int)" \
        "        __cxa_allocate_exception@plt" \
        "        std::runtime_error::runtime_error(char const*)@plt" \
        "        __cxa_throw@plt" \
        "      _Unwind_Resume@plt" \
        "    Guard::~Guard()" \
        "  _Unwind_Resume@plt" \
        "  __cxa_begin_catch@plt" "  __cxa_end_catch@plt"
}
for variant in lazy bindnow; do
    envs=()
    [ "$variant" = bindnow ] && envs=(LD_BIND_NOW=1)
    traced_like_untraced "$variant" "$T/$variant.raw" "$expected_out" \
        "${envs[@]}" "$T/landing"
    thread_trees "$T/$variant.raw" > "$T/$variant.trees"
    expect_eq "$variant: tree" "$(echo main; round; round; echo "  printf@plt")" \
        "$(tree_of "$T/$variant.trees" 1)"
    expect_eq "$variant: _Unwind_Resume@plt calls" 4 \
        "$(report_calls "$T/$variant.raw" "_Unwind_Resume@plt")"
    expect_all_matched "$variant" "$T/$variant.raw"
done
echo ok
