/*
 * Was a program built with -finstrument-functions?  Such a program refers
 * to __cyg_profile_func_enter: an undefined dynamic symbol when it is linked
 * dynamically (the tracer provides it), a defined one in a static link.
 * One built with patchable entries (`calltrace cflags --patchable`) has a
 * non-empty __patchable_function_entries section, which the tracer
 * patches: PATCHABLE, traced too.
 * The file is untrusted: every offset and size is checked against the
 * file's bounds before use, and anything odd gives UNKNOWN, never a guess.
 */
#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"

static const char hook[] = "__cyg_profile_func_enter";

/* Whether [off, off + len) lies inside a file of size bytes. */
static bool inside(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

/* Looks for the hook among the symbols of one symbol table section. */
static enum ct_fe_instr scan_symtab(const uint8_t *d, size_t size,
                                    uint64_t off, uint64_t len, uint64_t ent,
                                    bool is64, uint64_t str_off,
                                    uint64_t str_len)
{
    size_t want = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (ent < want || !inside(size, off, len) ||
        !inside(size, str_off, str_len))
        return CT_INSTR_UNKNOWN;
    const char *str = (const char *)d + str_off;
    for (uint64_t p = off; len - (p - off) >= ent; p += ent) {
        uint32_t name;
        if (is64) {
            Elf64_Sym s;
            memcpy(&s, d + p, sizeof s);
            name = s.st_name;
        } else {
            Elf32_Sym s;
            memcpy(&s, d + p, sizeof s);
            name = s.st_name;
        }
        if (name < str_len && str_len - name >= sizeof hook &&
            memcmp(str + name, hook, sizeof hook) == 0)
            return CT_INSTR_YES;
    }
    return CT_INSTR_NO;
}

struct shdr {
    uint32_t name, type, link;
    uint64_t off, size, entsize;
};

static const char patchable[] = "__patchable_function_entries";

static bool read_shdr(const uint8_t *d, size_t size, uint64_t off, bool is64,
                      struct shdr *s)
{
    if (is64) {
        Elf64_Shdr h;
        if (!inside(size, off, sizeof h))
            return false;
        memcpy(&h, d + off, sizeof h);
        *s = (struct shdr){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset,
                            h.sh_size, h.sh_entsize };
    } else {
        Elf32_Shdr h;
        if (!inside(size, off, sizeof h))
            return false;
        memcpy(&h, d + off, sizeof h);
        *s = (struct shdr){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset,
                            h.sh_size, h.sh_entsize };
    }
    return true;
}

/* Whether section s, named in the section-name table names, is a
 * non-empty __patchable_function_entries. */
static bool is_patchable(const uint8_t *d, size_t size, const struct shdr *s,
                         const struct shdr *names)
{
    return s->size > 0 && names && s->name < names->size &&
           names->size - s->name >= sizeof patchable &&
           inside(size, names->off + s->name, sizeof patchable) &&
           memcmp(d + names->off + s->name, patchable, sizeof patchable) == 0;
}

enum ct_fe_instr ct_fe_elf_scan(const uint8_t *d, size_t size)
{
    if (size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0)
        return CT_INSTR_UNKNOWN;
    /* Only the machine's own byte order: a foreign one cannot run here. */
    int native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
                                                           : ELFDATA2MSB;
    if (d[EI_DATA] != native)
        return CT_INSTR_UNKNOWN;
    bool is64 = d[EI_CLASS] == ELFCLASS64;
    if (!is64 && d[EI_CLASS] != ELFCLASS32)
        return CT_INSTR_UNKNOWN;
    uint64_t shoff, shentsize, shnum, shstrndx;
    if (is64) {
        Elf64_Ehdr e;
        if (size < sizeof e)
            return CT_INSTR_UNKNOWN;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
        shstrndx = e.e_shstrndx;
    } else {
        Elf32_Ehdr e;
        if (size < sizeof e)
            return CT_INSTR_UNKNOWN;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
        shstrndx = e.e_shstrndx;
    }
    if (shoff == 0 || shnum == 0 ||
        shentsize < (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
        !inside(size, shoff, shnum * shentsize))
        return CT_INSTR_UNKNOWN;
    bool any_table = false;
    struct shdr names_hdr;
    const struct shdr *names =
        shstrndx && shstrndx < shnum &&
                read_shdr(d, size, shoff + shstrndx * shentsize, is64,
                          &names_hdr) &&
                names_hdr.type == SHT_STRTAB &&
                inside(size, names_hdr.off, names_hdr.size)
            ? &names_hdr
            : NULL;
    for (uint64_t i = 0; i < shnum; i++) {
        struct shdr s, str;
        if (!read_shdr(d, size, shoff + i * shentsize, is64, &s))
            return CT_INSTR_UNKNOWN;
        if (is_patchable(d, size, &s, names))
            return CT_INSTR_PATCHABLE;
        if (s.type != SHT_DYNSYM && s.type != SHT_SYMTAB)
            continue;
        if (s.link >= shnum ||
            !read_shdr(d, size, shoff + s.link * shentsize, is64, &str) ||
            str.type != SHT_STRTAB)
            continue;
        enum ct_fe_instr r = scan_symtab(d, size, s.off, s.size, s.entsize,
                                         is64, str.off, str.size);
        if (r == CT_INSTR_YES)
            return r;
        if (r == CT_INSTR_NO)
            any_table = true;
    }
    return any_table ? CT_INSTR_NO : CT_INSTR_UNKNOWN;
}

enum ct_fe_instr ct_fe_elf_instrumented(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return CT_INSTR_UNKNOWN;
    struct stat st;
    enum ct_fe_instr r = CT_INSTR_UNKNOWN;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0);
        if (m != MAP_FAILED) {
            r = ct_fe_elf_scan(m, (size_t)st.st_size);
            munmap(m, (size_t)st.st_size);
        }
    }
    close(fd);
    return r;
}

/* ------------------------------------------------ static links, DT_NEEDED */

/* The sanitizer runtimes that must be the first library loaded: they
 * refuse to run (ASan) or miss the allocations (TSan) otherwise. */
static const char *const first_libs[] = { "libasan.so", "libtsan.so" };

static void note_needed(const char *name, size_t max, struct ct_fe_elf_deps *o)
{
    for (size_t i = 0; i < sizeof first_libs / sizeof first_libs[0]; i++) {
        size_t len = strlen(first_libs[i]);
        size_t n = strnlen(name, max);
        if (n >= len && n < sizeof o->first && !o->first[0] &&
            memcmp(name, first_libs[i], len) == 0 &&
            !memchr(name, '/', n)) {
            memcpy(o->first, name, n);
            o->first[n] = '\0';
        }
    }
}

/* The DT_NEEDED names of one SHT_DYNAMIC section. */
static void scan_dynamic(const uint8_t *d, size_t size, const struct shdr *dyn,
                         const struct shdr *str, bool is64,
                         struct ct_fe_elf_deps *o)
{
    size_t ent = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
    if (!inside(size, dyn->off, dyn->size) ||
        !inside(size, str->off, str->size))
        return;
    for (uint64_t p = dyn->off; dyn->size - (p - dyn->off) >= ent; p += ent) {
        uint64_t tag, val;
        if (is64) {
            Elf64_Dyn x;
            memcpy(&x, d + p, sizeof x);
            tag = (uint64_t)x.d_tag, val = x.d_un.d_val;
        } else {
            Elf32_Dyn x;
            memcpy(&x, d + p, sizeof x);
            tag = (uint64_t)(int64_t)x.d_tag, val = x.d_un.d_val;
        }
        if (tag == DT_NULL)
            return;
        if (tag == DT_NEEDED && val < str->size)
            note_needed((const char *)d + str->off + val,
                        (size_t)(str->size - val), o);
    }
}

/* Whether a program header table has a PT_INTERP entry: -1 unreadable. */
static int has_interp(const uint8_t *d, size_t size, bool is64)
{
    uint64_t phoff, phentsize, phnum;
    if (is64) {
        Elf64_Ehdr e;
        memcpy(&e, d, sizeof e);
        phoff = e.e_phoff, phentsize = e.e_phentsize, phnum = e.e_phnum;
    } else {
        Elf32_Ehdr e;
        memcpy(&e, d, sizeof e);
        phoff = e.e_phoff, phentsize = e.e_phentsize, phnum = e.e_phnum;
    }
    size_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    if (phnum == 0 || phentsize < want ||
        !inside(size, phoff, phnum * phentsize))
        return -1;
    for (uint64_t i = 0; i < phnum; i++) {
        uint32_t type;
        memcpy(&type, d + phoff + i * phentsize, sizeof type);
        if (type == PT_INTERP)
            return 1;
    }
    return 0;
}

int ct_fe_elf_deps_scan(const uint8_t *d, size_t size,
                        struct ct_fe_elf_deps *o)
{
    memset(o, 0, sizeof *o);
    int native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
                                                           : ELFDATA2MSB;
    if (size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0 ||
        d[EI_DATA] != native ||
        (d[EI_CLASS] != ELFCLASS64 && d[EI_CLASS] != ELFCLASS32))
        return -1;
    bool is64 = d[EI_CLASS] == ELFCLASS64;
    if (size < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
        return -1;
    uint16_t type;
    memcpy(&type, d + offsetof(Elf64_Ehdr, e_type), sizeof type);
    int interp = has_interp(d, size, is64);
    if (interp < 0)
        return -1;
    /* A program without an interpreter is never given to ld.so, which is
     * what reads LD_PRELOAD. */
    o->is_static = (type == ET_EXEC || type == ET_DYN) && !interp;
    uint64_t shoff, shentsize, shnum;
    if (is64) {
        Elf64_Ehdr e;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
    } else {
        Elf32_Ehdr e;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
    }
    if (shoff == 0 || shnum == 0 ||
        shentsize < (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
        !inside(size, shoff, shnum * shentsize))
        return 0;
    for (uint64_t i = 0; i < shnum; i++) {
        struct shdr s, str;
        if (!read_shdr(d, size, shoff + i * shentsize, is64, &s) ||
            s.type != SHT_DYNAMIC || s.link >= shnum ||
            !read_shdr(d, size, shoff + s.link * shentsize, is64, &str) ||
            str.type != SHT_STRTAB)
            continue;
        scan_dynamic(d, size, &s, &str, is64, o);
    }
    return 0;
}

int ct_fe_elf_deps(const char *path, struct ct_fe_elf_deps *o)
{
    memset(o, 0, sizeof *o);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int r = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0);
        if (m != MAP_FAILED) {
            r = ct_fe_elf_deps_scan(m, (size_t)st.st_size, o);
            munmap(m, (size_t)st.st_size);
        }
    }
    close(fd);
    return r;
}
