/*
 * Was a program built with -finstrument-functions?  Such a program refers
 * to __cyg_profile_func_enter: an undefined dynamic symbol when it is linked
 * dynamically (the tracer provides it), a defined one in a static link.
 * The file is untrusted: every offset and size is checked against the
 * file's bounds before use, and anything odd gives UNKNOWN, never a guess.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend.h"

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
    uint32_t type, link;
    uint64_t off, size, entsize;
};

static bool read_shdr(const uint8_t *d, size_t size, uint64_t off, bool is64,
                      struct shdr *s)
{
    if (is64) {
        Elf64_Shdr h;
        if (!inside(size, off, sizeof h))
            return false;
        memcpy(&h, d + off, sizeof h);
        *s = (struct shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
                            h.sh_entsize };
    } else {
        Elf32_Shdr h;
        if (!inside(size, off, sizeof h))
            return false;
        memcpy(&h, d + off, sizeof h);
        *s = (struct shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size,
                            h.sh_entsize };
    }
    return true;
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
    uint64_t shoff, shentsize, shnum;
    if (is64) {
        Elf64_Ehdr e;
        if (size < sizeof e)
            return CT_INSTR_UNKNOWN;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
    } else {
        Elf32_Ehdr e;
        if (size < sizeof e)
            return CT_INSTR_UNKNOWN;
        memcpy(&e, d, sizeof e);
        shoff = e.e_shoff, shentsize = e.e_shentsize, shnum = e.e_shnum;
    }
    if (shoff == 0 || shnum == 0 ||
        shentsize < (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
        !inside(size, shoff, shnum * shentsize))
        return CT_INSTR_UNKNOWN;
    bool any_table = false;
    for (uint64_t i = 0; i < shnum; i++) {
        struct shdr s, str;
        if (!read_shdr(d, size, shoff + i * shentsize, is64, &s))
            return CT_INSTR_UNKNOWN;
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
