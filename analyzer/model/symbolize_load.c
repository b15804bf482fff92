/* The symbolizer's objects read from their files through libbfd: the
 * function symbols (and the PLT's synthetic ones) sorted by address, the
 * build-id checked against the trace's, the function starts of
 * .eh_frame_hdr, a separate debug file where the object has none. */
#include "analyzer/model/symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/model/symbolize_private.h"
#include "analyzer/util.h"

/*
 * The head of bfd's elf_symbol_type (elf-bfd.h, not installed by
 * binutils-dev): the ELF symbol follows the generic one.  Sizes keep an
 * address in a gap (PLT, padding, a static function of a stripped object)
 * from being charged to the function before it.
 */
struct elf_symbol_head {
    asymbol symbol;
    struct {
        bfd_vma st_value;
        bfd_vma st_size;
    } internal_elf_sym;
};

static uint64_t symbol_size(bfd *abfd, asymbol *sym)
{
    if (bfd_get_flavour(abfd) != bfd_target_elf_flavour)
        return 0;
    return ((struct elf_symbol_head *)sym)->internal_elf_sym.st_size;
}

static int cmp_sym(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool is_function(const asymbol *sym)
{
    if (sym->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING |
                      BSF_WARNING | BSF_INDIRECT | BSF_SYNTHETIC))
        return false;
    asection *sec = bfd_asymbol_section(sym);
    if (!sec || bfd_is_und_section(sec) || bfd_is_com_section(sec))
        return false;
    if (!(bfd_section_flags(sec) & SEC_CODE))
        return false;
    return (sym->flags & (BSF_FUNCTION | BSF_GLOBAL | BSF_LOCAL |
                          BSF_WEAK)) != 0;
}

/* Rank among symbols at one address: functions, then global names. */
static int sym_rank(const asymbol *sym)
{
    return (sym->flags & BSF_FUNCTION ? 2 : 0) +
           (sym->flags & (BSF_GLOBAL | BSF_WEAK) ? 1 : 0);
}

static long read_symtab(bfd *abfd, asymbol ***out, bool dynamic)
{
    long bytes = dynamic ? bfd_get_dynamic_symtab_upper_bound(abfd)
                         : bfd_get_symtab_upper_bound(abfd);
    if (bytes <= 0)
        return 0;
    asymbol **tab = ct_xmalloc((size_t)bytes);
    long n = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, tab)
                     : bfd_canonicalize_symtab(abfd, tab);
    if (n <= 0) {
        free(tab);
        return 0;
    }
    *out = tab;
    return n;
}

static void check_build_id(struct object *o)
{
    if (!o->build_id_len)
        return;
    asection *sec = bfd_get_section_by_name(o->abfd, ".note.gnu.build-id");
    uint8_t note[256];
    bfd_size_type size = sec ? bfd_section_size(sec) : 0;
    bool same = false;
    if (size >= 16 && size <= sizeof note &&
        bfd_get_section_contents(o->abfd, sec, note, 0, size)) {
        uint32_t namesz, descsz;
        memcpy(&namesz, note, 4);
        memcpy(&descsz, note + 4, 4);
        size_t desc = 12 + ((namesz + 3u) & ~3u);
        same = desc + descsz <= size && descsz == o->build_id_len &&
               memcmp(note + desc, o->build_id, descsz) == 0;
    }
    o->build_id_differs = !same;
    if (!same)
        ct_warn("%s: binary changed since tracing (build-id differs); "
                "names may be wrong", o->path);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t rd_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/*
 * Function starts from .eh_frame_hdr's binary search table, which every
 * object built with unwind tables has, stripped or not: the boundaries of
 * functions that no symbol names.  Only the common encoding is read
 * (table of datarel sdata4 pairs, a 4-byte count); anything else, or a
 * table that does not fit its section, gives no starts.
 */
static void read_eh_frame_hdr(struct object *o)
{
    asection *sec = bfd_get_section_by_name(o->abfd, ".eh_frame_hdr");
    bfd_size_type size = sec ? bfd_section_size(sec) : 0;
    if (size < 12 || size > (64u << 20))
        return;
    uint8_t *buf = ct_xmalloc(size);
    if (!bfd_get_section_contents(o->abfd, sec, buf, 0, size))
        goto out;
    /* version 1; eh_frame_ptr: any 4-byte encoding; count: udata4 or
     * sdata4; table: DW_EH_PE_datarel | DW_EH_PE_sdata4 */
    if (buf[0] != 1 || buf[1] == 0xff || (buf[1] & 0x0f) % 8 != 3 ||
        (buf[2] != 0x03 && buf[2] != 0x0b) || buf[3] != 0x3b)
        goto out;
    uint64_t count = rd_u32(buf + 8);
    if (count == 0 || count > (size - 12) / 8)
        goto out;
    uint64_t vma = bfd_section_vma(sec);
    o->starts = ct_xmalloc(count * sizeof *o->starts);
    for (uint64_t i = 0; i < count; i++) {
        int32_t rel = (int32_t)rd_u32(buf + 12 + 8 * i);
        o->starts[i] = vma + (uint64_t)(int64_t)rel;
    }
    qsort(o->starts, count, sizeof *o->starts, cmp_u64);
    o->nstarts = count;
out:
    free(buf);
}

/*
 * Opens a file named by a trace for bfd.  The names come from the trace,
 * which may be damaged or hostile: a FIFO would block the open forever and
 * a device would be read without end, so only a regular file is opened.
 * Sets errno and returns NULL otherwise.
 */
static bfd *open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    fcntl(fd, F_SETFL, 0);
    errno = 0;
    return bfd_fdopenr(path, NULL, fd);   /* closes fd on failure, and at bfd_close */
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug for a stripped object, when
 * installed and of the same build. */
static bfd *open_debug_file(const struct object *o)
{
    if (o->build_id_len < 2)
        return NULL;
    char path[64 + 2 * sizeof o->build_id];
    int n = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/",
                     o->build_id[0]);
    for (size_t i = 1; i < o->build_id_len && n < (int)sizeof path - 8; i++)
        n += snprintf(path + n, sizeof path - (size_t)n, "%02x",
                      o->build_id[i]);
    snprintf(path + n, sizeof path - (size_t)n, ".debug");
    bfd *d = open_regular(path);
    if (!d)
        return NULL;
    if (!bfd_check_format(d, bfd_object) || bfd_get_symcount(d) == 0) {
        bfd_close(d);
        return NULL;
    }
    return d;
}

/*
 * The PLT entries, named `name@plt` by bfd from the dynamic relocations:
 * the tracer records a library call as a call of the caller's PLT entry.
 */
static long read_plt_symbols(struct object *o)
{
    asymbol **dyn = NULL;
    long ndyn = read_symtab(o->abfd, &dyn, true);
    long n = ndyn ? bfd_get_synthetic_symtab(o->abfd, 0, NULL, ndyn, dyn,
                                             &o->synth)
                  : 0;
    free(dyn);
    if (n <= 0) {
        free(o->synth);
        o->synth = NULL;
        return 0;
    }
    return n;
}

/* Adds the PLT entries after the k sorted functions, keeping the order;
 * returns the new count.  Their names are kept aside: the merge below
 * reads names from the object's symbol table by index. */
static size_t merge_plt_symbols(struct object *o, long nplt, size_t k)
{
    if (nplt <= 0)
        return k;
    o->syms = ct_xrealloc(o->syms, (k + (size_t)nplt + 1) * sizeof *o->syms);
    for (long i = 0; i < nplt; i++) {
        asymbol *sym = &o->synth[i];
        if (!strstr(bfd_asymbol_name(sym), "@plt"))
            continue;
        o->syms[k].addr = bfd_asymbol_value(sym);
        /* Marked with the high bit: an index into synth, not symtab. */
        o->syms[k].name = (const char *)(uintptr_t)(SYNTH_BIT | (uintptr_t)i);
        o->syms[k].size = 0;
        k++;
    }
    qsort(o->syms, k, sizeof *o->syms, cmp_sym);
    return k;
}

void ct_sym_load_object(struct object *o)
{
    o->opened = true;
    bfd *abfd = open_regular(o->path);
    if (!abfd) {
        ct_warn("%s: cannot open for symbols: %s", o->path,
                errno == EINVAL ? "not a regular file"
                : errno ? strerror(errno) : bfd_errmsg(bfd_get_error()));
        return;
    }
    if (!bfd_check_format(abfd, bfd_object)) {
        ct_warn("%s: not an object file: %s", o->path,
                bfd_errmsg(bfd_get_error()));
        bfd_close(abfd);
        return;
    }
    o->abfd = abfd;
    check_build_id(o);
    read_eh_frame_hdr(o);

    asymbol **tab = NULL;
    long n = read_symtab(abfd, &tab, false);
    o->symbols = n ? "symbol table" : "none";
    bfd *debug = n == 0 ? open_debug_file(o) : NULL;
    if (debug) {
        /* Same addresses, with the symbols and lines the object lost. */
        n = read_symtab(debug, &tab, false);
        if (n > 0) {
            bfd_close(abfd);
            o->abfd = abfd = debug;
            o->symbols = "debug file (/usr/lib/debug/.build-id)";
        } else {
            bfd_close(debug);
        }
    }
    if (n == 0) {
        n = read_symtab(abfd, &tab, true); /* stripped: dynamic symbols */
        if (n)
            o->symbols = "dynamic symbols only (stripped)";
    }
    /* bfd_find_nearest_line wants a NULL-terminated table, even empty. */
    o->symtab = tab ? tab : ct_xcalloc(1, sizeof *tab);
    long nplt = read_plt_symbols(o);
    o->syms = ct_xmalloc(((size_t)n + 1) * sizeof *o->syms);
    asymbol **best = ct_xmalloc(((size_t)n + 1) * sizeof *best);
    size_t k = 0;
    for (long i = 0; i < n; i++)
        if (is_function(tab[i])) {
            o->syms[k].addr = bfd_asymbol_value(tab[i]);
            o->syms[k].name = (const char *)(uintptr_t)i;
            o->syms[k].size = 0;
            k++;
        }
    qsort(o->syms, k, sizeof *o->syms, cmp_sym);
    /* PLT entries go last: nothing else starts at their addresses. */
    k = merge_plt_symbols(o, nplt, k);
    /* One symbol per address, the best ranked. */
    size_t m = 0;
    best = ct_xrealloc(best, (k + 1) * sizeof *best);
    for (size_t i = 0; i < k; i++) {
        uintptr_t idx = (uintptr_t)o->syms[i].name;
        asymbol *sym = idx & SYNTH_BIT ? &o->synth[idx & ~SYNTH_BIT]
                                       : tab[idx];
        if (m && o->syms[m - 1].addr == o->syms[i].addr) {
            if (sym_rank(sym) > sym_rank(best[m - 1]))
                best[m - 1] = sym;
            continue;
        }
        o->syms[m].addr = o->syms[i].addr;
        best[m++] = sym;
    }
    for (size_t i = 0; i < m; i++) {
        o->syms[i].name = bfd_asymbol_name(best[i]);
        o->syms[i].size = best[i]->flags & BSF_SYNTHETIC
                              ? PLT_ENTRY_SIZE
                              : symbol_size(abfd, best[i]);
    }
    free(best);
    o->nsyms = m;
}
