/*
 * The symbolizer on this very test program: a MAPS entry built from
 * dl_iterate_phdr, as the tracer builds it, and functions defined here.
 */
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyzer/model/symbolize.h"
#include "analyzer/util.h"

enum { STATIC_LINE = __LINE__ + 1 };
__attribute__((noinline)) static int static_target(int x)
{
    __asm__ volatile("" ::: "memory");
    return x * 3 + 1;
}

enum { GLOBAL_LINE = __LINE__ + 1 };
__attribute__((noinline)) int global_target(int x)
{
    __asm__ volatile("" ::: "memory");
    return static_target(x) + 2;
}

/* A C++ name: shapes::area(int, int). */
__attribute__((noinline)) int cxx_target(int w, int h) __asm__(
    "_ZN6shapes4areaEii");
__attribute__((noinline)) int cxx_target(int w, int h)
{
    __asm__ volatile("" ::: "memory");
    return w * h;
}

struct self_map {
    uint64_t base, start, end;
    uint8_t build_id[64];
    size_t build_id_len;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct self_map *m = data;
    if (info->dlpi_name && info->dlpi_name[0])
        return 0; /* the main program comes first, with an empty name */
    m->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            m->start = info->dlpi_addr + ph->p_vaddr;
            m->end = m->start + ph->p_memsz;
        }
        if (ph->p_type == PT_NOTE) {
            const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= 64) {
                const uint8_t *desc =
                    p + sizeof *n + ((n->n_namesz + 3) & ~3u);
                memcpy(m->build_id, desc, n->n_descsz);
                m->build_id_len = n->n_descsz;
            }
        }
    }
    return 1;
}

static struct ct_symbolizer *self_symbolizer(bool wrong_build_id)
{
    struct self_map m = {0};
    dl_iterate_phdr(find_self, &m);
    assert_true(m.end > m.start);
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    assert_true(n > 0);
    if (wrong_build_id)
        m.build_id[0] ^= 0xff;
    struct ct_symbolizer *s = ct_symbolizer_new();
    ct_symbolizer_add_map(s, m.base, m.start, m.end, m.build_id,
                          m.build_id_len, path, (size_t)n);
    return s;
}

static void check_func(struct ct_functab *tab, void *fn, const char *name,
                       int line)
{
    const struct ct_func *f =
        ct_functab_get(tab, ct_functab_intern_addr(tab, (uintptr_t)fn));
    assert_string_equal(f->name, name);
    assert_non_null(f->file);
    const char *base = strrchr(f->file, '/');
    assert_string_equal(base ? base + 1 : f->file, "test_symbolize.c");
    if (line) {
        /* The entry maps to the line of the declarator or of its brace. */
        if (!((int)f->line >= line && (int)f->line <= line + 1))
            fail_msg("%s: line %u, expected %d", name, f->line, line);
    }
    assert_non_null(f->object);
    assert_non_null(strstr(f->object, "test_symbolize"));
}

static void test_resolves_own_functions(void **state)
{
    (void)state;
    assert_int_equal(global_target(1), 6);
    assert_int_equal(cxx_target(2, 3), 6);
    struct ct_symbolizer *s = self_symbolizer(false);
    struct ct_functab *tab = ct_functab_new();
    ct_functab_set_resolver(tab, ct_symbolizer_resolve, s);
    check_func(tab, (void *)static_target, "static_target", STATIC_LINE);
    check_func(tab, (void *)global_target, "global_target", GLOBAL_LINE);
    check_func(tab, (void *)cxx_target, "shapes::area(int, int)", 0);
    ct_functab_free(tab);
    ct_symbolizer_free(s);
}

static void test_pc_inside_function(void **state)
{
    (void)state;
    struct ct_symbolizer *s = self_symbolizer(false);
    uint64_t start = 0, fn = (uintptr_t)global_target;
    assert_true(ct_symbolizer_func_start(s, fn + 3, &start));
    assert_int_equal(start, fn);
    assert_true(ct_symbolizer_func_start(s, fn, &start));
    assert_int_equal(start, fn);
    /* No object there. */
    assert_false(ct_symbolizer_func_start(s, 0x10, &start));
    ct_symbolizer_free(s);
}

static void test_build_id_mismatch_still_resolves(void **state)
{
    (void)state;
    struct ct_symbolizer *s = self_symbolizer(true);
    struct ct_functab *tab = ct_functab_new();
    ct_functab_set_resolver(tab, ct_symbolizer_resolve, s);
    check_func(tab, (void *)global_target, "global_target", GLOBAL_LINE);
    ct_functab_free(tab);
    ct_symbolizer_free(s);
}

static void test_unknown_addresses(void **state)
{
    (void)state;
    struct ct_symbolizer *s = ct_symbolizer_new();
    ct_symbolizer_add_map(s, 0x7f0000000000, 0x7f0000001000, 0x7f0000002000,
                          NULL, 0, "/nonexistent/libgone.so", 23);
    /* A later map replaces the part of an earlier one it overlaps. */
    ct_symbolizer_add_map(s, 0x7f1000000000, 0x7f1000001000, 0x7f1000002000,
                          NULL, 0, "/nonexistent/libold.so", 22);
    ct_symbolizer_add_map(s, 0x7f1000000000, 0x7f1000001000, 0x7f1000002000,
                          NULL, 0, "/nonexistent/libnew.so", 22);
    struct ct_functab *tab = ct_functab_new();
    ct_functab_set_resolver(tab, ct_symbolizer_resolve, s);
    assert_string_equal(
        ct_functab_name(tab, ct_functab_intern_addr(tab, 0x7f0000001234)),
        "libgone.so+0x1234");
    assert_string_equal(
        ct_functab_name(tab, ct_functab_intern_addr(tab, 0x7f1000001010)),
        "libnew.so+0x1010");
    assert_string_equal(
        ct_functab_name(tab, ct_functab_intern_addr(tab, 0x1234)), "0x1234");
    ct_functab_free(tab);
    ct_symbolizer_free(s);
}

/* Snapshots in time: A at [0x1000, 0x2000) from t=10, unloaded at t=20,
 * B there from t=30; C elsewhere throughout. */
static void test_generations(void **state)
{
    (void)state;
    struct ct_symbolizer *s = ct_symbolizer_new();
    ct_symbolizer_snapshot_begin(s, 0);
    ct_symbolizer_add_map(s, 0, 0x9000, 0xa000, NULL, 0, "/c.so", 5);
    ct_symbolizer_snapshot_end(s);
    assert_false(ct_symbolizer_has_generations(s));
    ct_symbolizer_snapshot_begin(s, 10);
    ct_symbolizer_add_map(s, 0x1000, 0x1000, 0x2000, NULL, 0, "/a.so", 5);
    ct_symbolizer_add_map(s, 0, 0x9000, 0xa000, NULL, 0, "/c.so", 5);
    ct_symbolizer_snapshot_end(s);
    assert_false(ct_symbolizer_has_generations(s));
    ct_symbolizer_snapshot_begin(s, 20);
    ct_symbolizer_add_map(s, 0, 0x9000, 0xa000, NULL, 0, "/c.so", 5);
    ct_symbolizer_snapshot_end(s);
    ct_symbolizer_snapshot_begin(s, 30);
    ct_symbolizer_add_map(s, 0x1000, 0x1000, 0x2000, NULL, 0, "/b.so", 5);
    ct_symbolizer_add_map(s, 0, 0x9000, 0xa000, NULL, 0, "/c.so", 5);
    ct_symbolizer_snapshot_end(s);
    assert_true(ct_symbolizer_has_generations(s));
    uint32_t a = ct_symbolizer_generation(s, 0x1500, 15);
    uint32_t b = ct_symbolizer_generation(s, 0x1500, 35);
    assert_true(a && b && a != b);
    /* before A's block (its constructor in dlopen): A, the next one */
    assert_int_equal(ct_symbolizer_generation(s, 0x1500, 5), a);
    /* after A's dlclose, before B's block (B's constructor): B */
    assert_int_equal(ct_symbolizer_generation(s, 0x1500, 25), b);
    /* C never shared its place */
    assert_int_equal(ct_symbolizer_generation(s, 0x9500, 15), 0);
    /* the names come from the object of each generation */
    struct ct_functab *tab = ct_functab_new();
    ct_functab_set_resolver(tab, ct_symbolizer_resolve, s);
    uint32_t fa = ct_functab_intern_addr_gen(tab, 0x1500, a);
    uint32_t fb = ct_functab_intern_addr_gen(tab, 0x1500, b);
    assert_int_not_equal(fa, fb);
    assert_string_equal(ct_functab_get(tab, fa)->object, "/a.so");
    assert_string_equal(ct_functab_get(tab, fb)->object, "/b.so");
    ct_functab_free(tab);
    ct_symbolizer_free(s);
}

/* Names the tracer gives its stubs (MAPS name entries): the 16 bytes at
 * the stub, demangled with their mark kept, the object of the target;
 * repeated entries change nothing. */
static void test_named_stubs(void **state)
{
    (void)state;
    struct ct_symbolizer *s = ct_symbolizer_new();
    ct_symbolizer_add_map(s, 0x7f0000000000, 0x7f0000001000, 0x7f0000002000,
                          NULL, 0, "/nonexistent/libc.so", 20);
    ct_symbolizer_add_map(s, 0x7f2000000000, 0x7f2000001000, 0x7f2000009000,
                          NULL, 0, "/nonexistent/libcalltrace.so", 28);
    const char *pid = "getpid@dlsym", *cxx = "_Znwm@dlsym";
    ct_symbolizer_add_name(s, 0x7f2000004010, 0x7f0000001100, cxx,
                           strlen(cxx));
    ct_symbolizer_add_name(s, 0x7f2000004000, 0x7f0000001200, pid,
                           strlen(pid));
    ct_symbolizer_add_name(s, 0x7f2000004000, 0x7f0000001300, "x", 1);
    uint64_t start = 0;
    assert_true(ct_symbolizer_func_start(s, 0x7f200000400f, &start));
    assert_int_equal(start, 0x7f2000004000);
    struct ct_functab *tab = ct_functab_new();
    ct_functab_set_resolver(tab, ct_symbolizer_resolve, s);
    const struct ct_func *f =
        ct_functab_get(tab, ct_functab_intern_addr(tab, 0x7f2000004000));
    assert_string_equal(f->name, "getpid@dlsym");
    assert_string_equal(f->object, "/nonexistent/libc.so");
    f = ct_functab_get(tab, ct_functab_intern_addr(tab, 0x7f2000004010));
    assert_string_equal(f->name, "operator new(unsigned long)@dlsym");
    /* Past the last stub: the object's own naming. */
    assert_string_equal(
        ct_functab_name(tab, ct_functab_intern_addr(tab, 0x7f2000004020)),
        "libcalltrace.so+0x4020");
    ct_functab_free(tab);
    ct_symbolizer_free(s);
}

/* The marks of the calls the tracer records through its library-call
 * stubs, and only at the end of a name. */
static void test_libcall_marks(void **state)
{
    (void)state;
    assert_int_equal(ct_libcall_mark_len("free@plt", 8), 4);
    assert_int_equal(ct_libcall_mark_len("getpid@dlsym", 12), 6);
    assert_int_equal(ct_libcall_mark_len("free@got", 8), 4);
    assert_int_equal(ct_libcall_mark_len("operator new(unsigned long)@plt", 31), 4);
    assert_int_equal(ct_libcall_mark_len("free", 4), 0);
    assert_int_equal(ct_libcall_mark_len("@plt", 4), 0);
    assert_int_equal(ct_libcall_mark_len("f@plt.cold", 10), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolves_own_functions),
        cmocka_unit_test(test_libcall_marks),
        cmocka_unit_test(test_pc_inside_function),
        cmocka_unit_test(test_build_id_mismatch_still_resolves),
        cmocka_unit_test(test_unknown_addresses),
        cmocka_unit_test(test_generations),
        cmocka_unit_test(test_named_stubs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
