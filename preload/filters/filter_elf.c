/*
 * Function symbols of a loaded object, read by hand from its file's
 * .symtab (or .dynsym when stripped).  Sixty lines of <elf.h> do it; the
 * tracer then needs neither libelf nor libbfd in every traced process,
 * and reads only the section headers and the two tables it needs from a
 * read-only mapping.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/filters/filter.h"

static const Elf64_Shdr *find_table(const uint8_t *img, size_t len,
                                    const Elf64_Ehdr *eh, uint32_t type)
{
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (uint32_t i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != type || sh[i].sh_link >= eh->e_shnum ||
            sh[i].sh_entsize != sizeof(Elf64_Sym))
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset ||
            str->sh_offset > len || str->sh_size > len - str->sh_offset)
            continue;
        return &sh[i];
    }
    return NULL;
}

static int imports_hook(const uint8_t *img, size_t len, const Elf64_Ehdr *eh)
{
    const Elf64_Shdr *tab = find_table(img, len, eh, SHT_DYNSYM);
    if (!tab)
        return 0;
    const Elf64_Shdr *strs =
        (const Elf64_Shdr *)(img + eh->e_shoff) + tab->sh_link;
    const char *str = (const char *)img + strs->sh_offset;
    const Elf64_Sym *sym = (const Elf64_Sym *)(img + tab->sh_offset);
    static const char want[] = "__cyg_profile_func_enter";
    for (size_t i = 0; i < tab->sh_size / sizeof *sym; i++)
        if (sym[i].st_shndx == SHN_UNDEF &&
            sym[i].st_name + sizeof want <= strs->sh_size &&
            !memcmp(str + sym[i].st_name, want, sizeof want))
            return 1;
    return 0;
}

static void walk(const uint8_t *img, size_t len, uintptr_t base,
                 int hooked_only, ct_sym_fn fn, void *arg)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
        (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)
        return;
    /* Only objects built for tracing have functions the hooks see. */
    if (hooked_only && !imports_hook(img, len, eh))
        return;
    const Elf64_Shdr *tab = find_table(img, len, eh, SHT_SYMTAB);
    if (!tab)
        tab = find_table(img, len, eh, SHT_DYNSYM);
    if (!tab)
        return;
    const Elf64_Shdr *strs =
        (const Elf64_Shdr *)(img + eh->e_shoff) + tab->sh_link;
    const char *str = (const char *)img + strs->sh_offset;
    const Elf64_Sym *sym = (const Elf64_Sym *)(img + tab->sh_offset);
    size_t n = tab->sh_size / sizeof *sym;
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_ST_TYPE(sym[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
            sym[i].st_shndx == SHN_UNDEF || sym[i].st_value == 0 ||
            sym[i].st_name >= strs->sh_size)
            continue;
        const char *name = str + sym[i].st_name;
        if (!memchr(name, '\0', strs->sh_size - sym[i].st_name) || !*name)
            continue;
        fn(arg, name, base + (uintptr_t)sym[i].st_value, sym[i].st_size);
    }
}

int ct_elf_is_loader(const char *name)
{
    return name && (strstr(name, "linux-vdso") || strstr(name, "/ld-linux") ||
                    strstr(name, "/ld64.so"));
}

int ct_elf_functions(const char *path, uintptr_t base, int hooked_only,
                     ct_sym_fn fn, void *arg)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    void *img = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (img == MAP_FAILED)
        return -1;
    walk(img, (size_t)st.st_size, base, hooked_only, fn, arg);
    munmap(img, (size_t)st.st_size);
    return 0;
}
