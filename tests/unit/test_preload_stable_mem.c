/* The segments of the objects loaded at start (stable_mem.c): a literal
 * and a function's code are in them, to the end of their segment's file
 * bytes and no further; writable data and .bss too, to the end of the
 * segment in memory; the heap, the stack and an address past every
 * object are not; before the table is made nothing is; every segment of
 * every object is found by the binary search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/stable_mem.h"

static const char literal[] = "a literal in the constants";
static char writable[] = "a text in writable data";
static char zeroed[64];  /* .bss */

/* The end of the segment that holds addr, by the loader's own list: of a
 * read-only one its file-backed part, of a writable one (writable set)
 * its end in memory: what the span must stop at. */
struct find {
    uintptr_t addr, end;
    int writable;
};

static int find_seg(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find *f = arg;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        uintptr_t len = f->writable ? ph->p_memsz : ph->p_filesz;
        if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_W) == !f->writable &&
            f->addr >= lo && f->addr < lo + len)
            f->end = lo + len;
    }
    return 0;
}

static void nothing_before_the_table(void **state)
{
    (void)state;
    assert_int_equal(ct_stable_span((uintptr_t)literal, 8), 0);
}

static void constants_and_code(void **state)
{
    (void)state;
    ct_stable_mem_note();
    ct_stable_mem_note();  /* once is enough: a second call changes nothing */
    assert_int_equal(ct_stable_span((uintptr_t)literal, sizeof literal),
                     sizeof literal);
    assert_int_equal(ct_stable_span((uintptr_t)literal, 1), 1);
    assert_int_equal(ct_stable_span((uintptr_t)&constants_and_code, 16), 16);
    /* libc's code too: loaded before the program started */
    assert_int_equal(ct_stable_span((uintptr_t)&strlen, 4), 4);

    struct find f = {(uintptr_t)literal, 0, 0};
    dl_iterate_phdr(find_seg, &f);
    assert_true(f.end > f.addr);
    uintptr_t last = f.end - 3;
    assert_int_equal(ct_stable_span(last, 100), 3);
    assert_int_equal(ct_stable_span(f.end - 1, 1), 1);
}

static void writable_data(void **state)
{
    (void)state;
    ct_stable_mem_note();
    assert_int_equal(ct_stable_span((uintptr_t)writable, sizeof writable),
                     sizeof writable);
    assert_int_equal(ct_stable_span((uintptr_t)zeroed, sizeof zeroed),
                     sizeof zeroed);
    struct find f = {(uintptr_t)zeroed, 0, 1};
    dl_iterate_phdr(find_seg, &f);
    assert_true(f.end > f.addr);
    assert_int_equal(ct_stable_span(f.end - 2, 100), 2);
}

/* Every segment of every object, wherever it falls in the sorted table:
 * its first byte, its middle and its last byte are found, and the span
 * stops at its end.  (The look-up is a binary search over the table.) */
static int check_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    int *checked = arg;
    for (uint16_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t len = (ph->p_flags & PF_W) ? ph->p_memsz : ph->p_filesz;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !len)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        assert_int_equal(ct_stable_span(lo, len + 64), len);
        assert_int_equal(ct_stable_span(lo + len / 2, len), len - len / 2);
        assert_int_equal(ct_stable_span(lo + len - 1, 64), 1);
        (*checked)++;
    }
    return 0;
}

static void every_segment(void **state)
{
    (void)state;
    ct_stable_mem_note();
    int checked = 0;
    dl_iterate_phdr(check_object, &checked);
    assert_true(checked >= 8);  /* the program, libc, the loader, cmocka */
}

static void not_constants(void **state)
{
    (void)state;
    ct_stable_mem_note();
    char on_stack[32] = "on the stack";
    char *heap = strdup("on the heap");
    assert_int_equal(ct_stable_span((uintptr_t)on_stack, 8), 0);
    assert_int_equal(ct_stable_span((uintptr_t)heap, 8), 0);
    assert_int_equal(ct_stable_span(0, 8), 0);
    assert_int_equal(ct_stable_span(16, 8), 0);
    assert_int_equal(ct_stable_span(UINTPTR_MAX - 4, 8), 0);
    free(heap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nothing_before_the_table),
        cmocka_unit_test(constants_and_code),
        cmocka_unit_test(writable_data),
        cmocka_unit_test(every_segment),
        cmocka_unit_test(not_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
