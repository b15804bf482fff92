/* GLOB_DAT slots that only calls go through (-fno-plt), plt_got.c. */
#ifndef CT_PLT_GOT_H
#define CT_PLT_GOT_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct got_use {
    uintptr_t got;        /* the slot's run-time address                 */
    const char *name;
    uint8_t called;       /* some `call *` / `jmp *` goes through it      */
    uint8_t other;        /* some other instruction names it: keep it     */
};

/* Sets called and other for each slot (sorts u by got). */
void ct_got_classify(const struct dl_phdr_info *info, struct got_use *u,
                     size_t n);
/* Names whose GLOB_DAT slots are never patched. */
int ct_got_never_patched(const char *name);

#pragma GCC visibility pop
#endif
