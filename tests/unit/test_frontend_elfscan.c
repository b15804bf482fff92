/*
 * The front end's check for -finstrument-functions: a synthetic ELF file
 * with and without the hook, every prefix of it and thousands of damaged
 * copies (under ASan: never a read out of bounds), and real files.
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The scanner is the front end's; compiled in here with the sanitizers. */
#include "../../frontend/elfscan.c"

/* An empty ELF64 header at the start of buf, the rest zeroed. */
static Elf64_Ehdr *elf_header(uint8_t *buf, size_t cap)
{
    memset(buf, 0, cap);
    Elf64_Ehdr *e = (Elf64_Ehdr *)buf;
    memcpy(e->e_ident, ELFMAG, SELFMAG);
    e->e_ident[EI_CLASS] = ELFCLASS64;
    e->e_ident[EI_DATA] = ELFDATA2LSB;
    e->e_ident[EI_VERSION] = EV_CURRENT;
    e->e_type = ET_DYN;
    e->e_machine = EM_X86_64;
    e->e_ehsize = sizeof *e;
    return e;
}

/* ELF64: header, then .dynstr, .dynsym (null symbol + one named), then the
 * section headers (null, .dynsym, .dynstr). */
static size_t make_elf(uint8_t *buf, size_t cap, const char *symbol)
{
    Elf64_Ehdr *e = elf_header(buf, cap);
    size_t off = sizeof *e;
    size_t str_off = off;
    buf[off++] = 0;
    size_t name = off - str_off;
    strcpy((char *)buf + off, symbol);
    off += strlen(symbol) + 1;
    size_t str_len = off - str_off;
    off = (off + 7) & ~(size_t)7;
    size_t sym_off = off;
    Elf64_Sym syms[2] = { { 0 }, { .st_name = (uint32_t)name,
                                   .st_info = ELF64_ST_INFO(STB_GLOBAL,
                                                            STT_FUNC) } };
    memcpy(buf + off, syms, sizeof syms);
    off += sizeof syms;
    Elf64_Shdr sh[3] = { { 0 } };
    sh[1] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_offset = sym_off,
                          .sh_size = sizeof syms, .sh_link = 2,
                          .sh_entsize = sizeof(Elf64_Sym) };
    sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = str_off,
                          .sh_size = str_len };
    e->e_shoff = off;
    e->e_shentsize = sizeof(Elf64_Shdr);
    e->e_shnum = 3;
    memcpy(buf + off, sh, sizeof sh);
    off += sizeof sh;
    assert_true(off <= cap);
    return off;
}

static void hook_found(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf(buf, sizeof buf, "__cyg_profile_func_enter");
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_YES);
}

static void hook_absent(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf(buf, sizeof buf, "__cyg_profile_func_exit");
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_NO);
    /* A longer name that starts with the hook's is not the hook. */
    n = make_elf(buf, sizeof buf, "__cyg_profile_func_enter_x");
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_NO);
}

/* ELF64 with no hook but a section of the given name and size, named
 * through .shstrtab: (null, .shstrtab, the section). */
static size_t make_elf_section(uint8_t *buf, size_t cap, const char *section,
                               uint64_t size)
{
    Elf64_Ehdr *e = elf_header(buf, cap);
    size_t off = sizeof *e, str_off = off;
    buf[off++] = 0;
    size_t shstr_name = off - str_off;
    strcpy((char *)buf + off, ".shstrtab");
    off += sizeof ".shstrtab";
    size_t sec_name = off - str_off;
    strcpy((char *)buf + off, section);
    off += strlen(section) + 1;
    size_t str_len = off - str_off;
    size_t data_off = off;
    off += 8;
    off = (off + 7) & ~(size_t)7;
    Elf64_Shdr sh[3] = { { 0 } };
    sh[1] = (Elf64_Shdr){ .sh_name = (uint32_t)shstr_name,
                          .sh_type = SHT_STRTAB, .sh_offset = str_off,
                          .sh_size = str_len };
    sh[2] = (Elf64_Shdr){ .sh_name = (uint32_t)sec_name,
                          .sh_type = SHT_PROGBITS, .sh_offset = data_off,
                          .sh_size = size };
    e->e_shoff = off;
    e->e_shentsize = sizeof(Elf64_Shdr);
    e->e_shnum = 3;
    e->e_shstrndx = 1;
    memcpy(buf + off, sh, sizeof sh);
    off += sizeof sh;
    assert_true(off <= cap);
    return off;
}

/* A build with patchable entries is traced too (the tracer patches its
 * __patchable_function_entries); an empty one, or another name, is not
 * enough, and a damaged name table is never read past the file. */
static void patchable_entries(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf_section(buf, sizeof buf,
                                "__patchable_function_entries", 8);
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_PATCHABLE);
    n = make_elf_section(buf, sizeof buf, "__patchable_function_entries", 0);
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_UNKNOWN);
    n = make_elf_section(buf, sizeof buf, "__patchable_function_entrie", 8);
    assert_int_equal(ct_fe_elf_scan(buf, n), CT_INSTR_UNKNOWN);
    n = make_elf_section(buf, sizeof buf, "__patchable_function_entries", 8);
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        assert_int_not_equal(ct_fe_elf_scan(copy, len), CT_INSTR_PATCHABLE);
        free(copy);
    }
    srand(7);
    for (int round = 0; round < 20000; round++) {
        uint8_t *copy = malloc(n);
        memcpy(copy, buf, n);
        for (int k = 1 + rand() % 4; k > 0; k--)
            copy[(size_t)rand() % n] = (uint8_t)rand();
        (void)ct_fe_elf_scan(copy, n);
        free(copy);
    }
}

static void not_elf(void **state)
{
    (void)state;
    const char script[] = "#!/bin/sh\necho __cyg_profile_func_enter\n";
    assert_int_equal(ct_fe_elf_scan((const uint8_t *)script, sizeof script),
                     CT_INSTR_UNKNOWN);
    assert_int_equal(ct_fe_elf_scan((const uint8_t *)"", 0),
                     CT_INSTR_UNKNOWN);
}

/* Every prefix: a cut file is never read past its end, and the name cut
 * off is never found. */
static void every_prefix(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf(buf, sizeof buf, "__cyg_profile_func_enter");
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        assert_int_equal(ct_fe_elf_scan(copy, len), CT_INSTR_UNKNOWN);
        free(copy);
    }
}

/* Random damage: any answer, never a crash or an out-of-bounds read. */
static void damaged_copies(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf(buf, sizeof buf, "__cyg_profile_func_enter");
    srand(42);
    for (int round = 0; round < 20000; round++) {
        uint8_t *copy = malloc(n);
        memcpy(copy, buf, n);
        for (int k = 1 + rand() % 4; k > 0; k--)
            copy[(size_t)rand() % n] = (uint8_t)rand();
        enum ct_fe_instr r = ct_fe_elf_scan(copy, n);
        assert_true(r == CT_INSTR_YES || r == CT_INSTR_NO ||
                    r == CT_INSTR_UNKNOWN);
        free(copy);
    }
}

static void real_files(void **state)
{
    (void)state;
    /* This test is not built with -finstrument-functions. */
    assert_int_equal(ct_fe_elf_instrumented("/proc/self/exe"), CT_INSTR_NO);
    assert_int_equal(ct_fe_elf_instrumented("/nonexistent"),
                     CT_INSTR_UNKNOWN);
    assert_int_equal(ct_fe_elf_instrumented("/"), CT_INSTR_UNKNOWN);
}

/* A real program: this test, dynamic, and (built with ASan) needing
 * libasan, which must then come first in LD_PRELOAD. */
static void deps_of_self(void **state)
{
    (void)state;
    struct ct_fe_elf_deps d;
    assert_int_equal(ct_fe_elf_deps("/proc/self/exe", &d), 0);
    assert_false(d.is_static);
#if defined(__SANITIZE_ADDRESS__)
    assert_int_equal(strncmp(d.first, "libasan.so", 10), 0);
#endif
    assert_int_equal(ct_fe_elf_deps("/nonexistent", &d), -1);
    const char script[] = "#!/bin/sh\n";
    assert_int_equal(ct_fe_elf_deps_scan((const uint8_t *)script,
                                         sizeof script, &d), -1);
}

/* No interpreter: static, whatever the rest says. */
static void deps_static(void **state)
{
    (void)state;
    uint8_t buf[1024];
    size_t n = make_elf(buf, sizeof buf, "x");
    Elf64_Ehdr *e = (Elf64_Ehdr *)buf;
    Elf64_Phdr ph = { .p_type = PT_LOAD };
    e->e_phoff = n;
    e->e_phentsize = sizeof ph;
    e->e_phnum = 1;
    memcpy(buf + n, &ph, sizeof ph);
    struct ct_fe_elf_deps d;
    assert_int_equal(ct_fe_elf_deps_scan(buf, n + sizeof ph, &d), 0);
    assert_true(d.is_static);
    ph.p_type = PT_INTERP;
    memcpy(buf + n, &ph, sizeof ph);
    assert_int_equal(ct_fe_elf_deps_scan(buf, n + sizeof ph, &d), 0);
    assert_false(d.is_static);
}

/* The program's own file cut and damaged at its two ends (the headers):
 * never a read out of bounds. */
static void deps_damaged(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    static uint8_t file[8 << 20];
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    assert_true(n > 8192 && n < sizeof file);
    struct ct_fe_elf_deps d;
    for (size_t len = 0; len < n; len += len < 4096 ? 1 : 65521) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, file, len);
        ct_fe_elf_deps_scan(copy, len, &d);
        free(copy);
    }
    uint8_t *copy = malloc(n);
    memcpy(copy, file, n);
    srand(7);
    for (int round = 0; round < 2000; round++) {
        size_t at[4];
        int k = 1 + rand() % 4;
        for (int i = 0; i < k; i++) {
            at[i] = (size_t)rand() % 4096;
            at[i] = rand() % 2 ? at[i] : n - 1 - at[i];
            copy[at[i]] = (uint8_t)rand();
        }
        ct_fe_elf_deps_scan(copy, n, &d);
        assert_true(strlen(d.first) < sizeof d.first);
        for (int i = 0; i < k; i++)
            copy[at[i]] = file[at[i]];  /* undamaged for the next round */
    }
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hook_found),
        cmocka_unit_test(hook_absent),
        cmocka_unit_test(not_elf),
        cmocka_unit_test(patchable_entries),
        cmocka_unit_test(every_prefix),
        cmocka_unit_test(damaged_copies),
        cmocka_unit_test(real_files),
        cmocka_unit_test(deps_of_self),
        cmocka_unit_test(deps_static),
        cmocka_unit_test(deps_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
