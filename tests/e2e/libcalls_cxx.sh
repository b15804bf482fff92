#!/usr/bin/env bash
# C++ library calls: operator new/delete, and an exception thrown by a
# callback that an uninstrumented library called (cblib_apply), caught
# above the library call.  The unwinder must never meet the tracer's
# return trampoline, the library call must end at the catch, and the calls
# after it must sit where they ran.  Lazy binding and LD_BIND_NOW=1; in
# nested mode, libstdc++'s own calls (operator new -> malloc, and the tail
# calls operator delete(void*, unsigned long) -> operator delete(void*) ->
# free) are recorded too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
command -v g++ >/dev/null || skip "no g++"
unset CALLTRACE_LIBCALLS

build_cxx_with_cblib "$T/cxx" "$PROGRAMS/libcalls_cxx.cpp"
expected_out=$("$T/cxx")
expect_eq "untraced output" "r=27" "$expected_out"

attempt_tree() {  # one attempt(): two callbacks, the third throws
    printf '%s\n' "  attempt()" "    cblib_apply@plt"
    for i in 1 2; do printf '%s\n' "      cb(int)" "        getpid@plt"; done
    printf '%s\n' "      cb(int)" "        __cxa_allocate_exception@plt" \
        "        std::runtime_error::runtime_error(char const*)@plt" \
        "        __cxa_throw@plt"
    # cb's exit hook runs in its cleanup, which then resumes unwinding.
    echo "      _Unwind_Resume@plt"
    printf '%s\n' "    __cxa_begin_catch@plt" "    __cxa_end_catch@plt"
}
main_tree() {
    printf '%s\n' main "  make_boxes()"
    for i in 1 2 3 4; do echo "    operator new(unsigned long)@plt"; done
    for i in 1 2 3 4; do echo "    operator delete(void*, unsigned long)@plt"; done
    attempt_tree
    attempt_tree
    printf '%s\n' "  after_catch()" "    getppid@plt" "  printf@plt"
}

for variant in lazy bindnow; do
    envs=()
    [ "$variant" = bindnow ] && envs=(LD_BIND_NOW=1)
    traced_like_untraced "$variant" "$T/$variant.raw" "$expected_out" \
        "${envs[@]}" "$T/cxx"
    thread_trees "$T/$variant.raw" > "$T/$variant.trees"
    expect_eq "$variant: tree" "$(main_tree)" "$(tree_of "$T/$variant.trees" 1)"
    expect_eq "$variant: operator new" 4 \
        "$(report_calls "$T/$variant.raw" "operator new(unsigned long)@plt")"
    expect_all_matched "$variant" "$T/$variant.raw"
done

# nested: calls inside the libraries too.
traced_like_untraced "nested" "$T/nested.raw" "$expected_out" \
    CALLTRACE_LIBCALLS=nested "$T/cxx"
thread_trees "$T/nested.raw" > "$T/nested.trees"
tree_of "$T/nested.trees" 1 | sed -n '/^  make_boxes()$/,/^  attempt()$/p' > "$T/boxes"
{
    echo "  make_boxes()"
    for i in 1 2 3 4; do
        printf '%s\n' "    operator new(unsigned long)@plt" "      malloc@plt"
    done
    for i in 1 2 3 4; do
        printf '%s\n' "    operator delete(void*, unsigned long)@plt" \
            "      operator delete(void*)@plt" "        free@plt"
    done
    echo "  attempt()"
} > "$T/boxes.expected"
expect_eq "nested: make_boxes" "$(cat "$T/boxes.expected")" "$(cat "$T/boxes")"
expect_eq "nested: after the catches" "$(printf '%s\n' "  after_catch()" "    getppid@plt")" \
    "$(tree_of "$T/nested.trees" 1 | grep -A1 '^  after_catch()$')"
echo ok
