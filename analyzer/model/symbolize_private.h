/*
 * What the symbolizer's two halves share: the objects a trace's maps name,
 * each with its functions by address (symbolize_load.c reads them from the
 * file, through libbfd, when one is first needed; symbolize.c looks
 * addresses up in them).  Private to analyzer/model/.
 */
#ifndef CT_SYMBOLIZE_PRIVATE_H
#define CT_SYMBOLIZE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Some bfd.h builds refuse to be included without a config.h. */
#ifndef PACKAGE
#define PACKAGE "calltrace"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION CALLTRACE_VERSION
#endif
#include <bfd.h>

struct sym {
    uint64_t addr;          /* ELF address                                */
    uint64_t size;          /* bytes, 0 if unknown                        */
    const char *name;       /* owned by the bfd                           */
};

/* Marks an index into object.synth while the symbols are merged. */
#define SYNTH_BIT ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))
/* Bytes of one PLT entry on x86-64, .plt and .plt.sec alike. */
#define PLT_ENTRY_SIZE 16

struct object {
    char *path;
    uint8_t build_id[64];
    size_t build_id_len;
    bool opened;            /* open attempted                             */
    bfd *abfd;
    asymbol **symtab;       /* for bfd_find_nearest_line                  */
    asymbol *synth;         /* name@plt entries, from bfd                 */
    struct sym *syms;       /* functions sorted by address                */
    size_t nsyms;
    uint64_t *starts;       /* function starts from .eh_frame_hdr, sorted */
    size_t nstarts;
    bool build_id_differs;  /* the file is not the build that was traced  */
    const char *symbols;    /* where its names came from, for info        */
};

/* Reads o's functions, build-id and unwind table from its file (or its
 * separate debug file) once; o->opened says it was tried. */
void ct_sym_load_object(struct object *o);

#endif /* CT_SYMBOLIZE_PRIVATE_H */
