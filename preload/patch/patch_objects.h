/*
 * The objects whose entries are patched (patch_objects.c) and the writing
 * of one entry (patch_sleds.c): shared by the two files of the
 * patchable-entry mode's set-up, not by the trampolines' path.
 */
#ifndef CT_PATCH_OBJECTS_H
#define CT_PATCH_OBJECTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/patch/patch.h"

#pragma GCC visibility push(hidden)

#define CT_PATCH_SLED 5u
#define CT_PATCH_STUB 16u
#define CT_PATCH_OBJS 64

/* One loaded object with patchable entries: the program or a shared
 * library, at start or after dlopen.  Its sleds are sorted by function;
 * its stubs (one per sled, after the trampolines' two addresses) are
 * mapped within reach of its text. */
struct ct_pobj {
    char path[256];        /* for its symbols: /proc/self/exe for the
                              program                                    */
    uintptr_t base, lo, hi;/* load bias, executable segment              */
    struct ct_sled *sleds;
    size_t n, sleds_len;
    uint8_t *stubs;
    size_t stubs_len;
    int live;
};

/* The objects, under ct_patch_lock for any change or walk that writes. */
extern struct ct_pobj ct_pobjs[CT_PATCH_OBJS];
extern size_t ct_npobjs;
extern pthread_mutex_t ct_patch_lock;

/* The object whose table holds sled s (for its stub). */
struct ct_pobj *ct_pobj_of_sled(const struct ct_sled *s);
/* The sled of function fn in o, or NULL. */
struct ct_sled *ct_pobj_sled_of(struct ct_pobj *o, uintptr_t fn);

/* Sled s of o becomes its want: the jump to its stub, or a five-byte NOP.
 * atomic: written while threads run (one store, its page writable only
 * meanwhile; patch_sleds.c); else five bytes at once, while one thread
 * runs, into text made writable by ct_patch_open_all.  0, or -1 when it
 * cannot be (an entry across a 16-byte line, a page that cannot be made
 * writable). */
int ct_patch_write_sled(struct ct_pobj *o, struct ct_sled *s, int atomic);
/* o's whole text writable (on; and executable still: where a policy
 * refuses that, nothing is written) or back to read and execute: one
 * mprotect each way for the writes at start.  0, or -1. */
int ct_patch_open_all(const struct ct_pobj *o, int on);
/* After writes while threads run: every thread serializes. */
void ct_patch_sync_cores(void);

/* The wanted state of each sled of o at start, from CALLTRACE_PATCH
 * (patch_sleds.c): all by default. */
void ct_patch_choose_at_start(struct ct_pobj *o);

/* fn for each function symbol of o that has an entry, with its names as
 * the views show them: the symbol's, and for C++ the demangled one whole
 * and without its parameters (NULL when not C++) (patch_sleds.c).  0, or
 * -1 when the object's symbols cannot be read. */
typedef void (*ct_named_fn)(void *arg, struct ct_sled *s,
                            const char *const names[3]);
int ct_patch_each_named(struct ct_pobj *o, ct_named_fn fn, void *arg);

#pragma GCC visibility pop

#endif
