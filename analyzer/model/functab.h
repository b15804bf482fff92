/*
 * Function table: every function the analyzer knows gets a dense id.
 *
 * Text formats intern names; binary traces intern addresses and name them
 * lazily through a resolver (the libbfd symbolizer), so that functions never
 * reported are never looked up.
 */
#ifndef CT_FUNCTAB_H
#define CT_FUNCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_func {
    char *name;         /* display name (demangled); NULL until resolved  */
    char *file;         /* source file, NULL if unknown                   */
    uint32_t line;      /* source line, 0 if unknown                      */
    uint64_t addr;      /* run-time address, 0 for named functions        */
    char *object;       /* shared object or executable, NULL if unknown   */
    uint32_t gen;       /* which object was at addr, when objects followed
                           one another there (0: the one there is)         */
    bool unnamed;       /* named object+0xADDR: the object has no symbol
                           for it (stripped, no debug file found)          */
};

/* Fills f->name (and file, line, object when known) for f->addr.  Strings
 * are malloc'ed and owned by the table afterwards. */
typedef void (*ct_resolver_fn)(void *ctx, struct ct_func *f);

struct ct_functab;

struct ct_functab *ct_functab_new(void);
void ct_functab_free(struct ct_functab *tab);

uint32_t ct_functab_intern_name(struct ct_functab *tab, const char *name,
                                size_t len);
uint32_t ct_functab_intern_addr(struct ct_functab *tab, uint64_t addr);
/* The function at addr in the object that gen names (see
 * ct_symbolizer_generation): one address, several functions over time. */
uint32_t ct_functab_intern_addr_gen(struct ct_functab *tab, uint64_t addr,
                                    uint32_t gen);
uint32_t ct_functab_count(const struct ct_functab *tab);

/* The entry for id, resolved if a resolver is set and it is not yet. */
const struct ct_func *ct_functab_get(struct ct_functab *tab, uint32_t id);
const char *ct_functab_name(struct ct_functab *tab, uint32_t id);

/* Records where a named function is defined (formats that carry file:line,
 * such as SamplingProf).  Replaces what was set before. */
void ct_functab_set_source(struct ct_functab *tab, uint32_t id,
                           const char *file, size_t file_len, uint32_t line);

void ct_functab_set_resolver(struct ct_functab *tab, ct_resolver_fn fn,
                             void *ctx);

/*
 * Which addresses are library calls recorded through the tracer's stub
 * (the reader's knowledge, ct_symbolizer_is_libcall): asked once per
 * address as it is interned, and for those interned before.  The views
 * take the stub's own cost off those calls (docs/analysis.md).
 */
typedef bool (*ct_libcall_test_fn)(void *ctx, uint64_t addr);
void ct_functab_set_libcall_test(struct ct_functab *tab, ct_libcall_test_fn fn,
                                 void *ctx);
/* Whether id's function is a library call's; names nothing. */
bool ct_functab_is_libcall(const struct ct_functab *tab, uint32_t id);

#endif /* CT_FUNCTAB_H */
