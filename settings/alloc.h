/*
 * Memory for the settings' parsers, which each program that builds them
 * gives: the tracer from its own anonymous mappings (preload/base/
 * scratch.c), never from the program's heap; calltrace from malloc
 * (frontend/settings_alloc.c).
 */
#ifndef CT_SETTINGS_ALLOC_H
#define CT_SETTINGS_ALLOC_H

#include <stddef.h>

/* Zeroed memory of at least bytes, or NULL; give it back with the same
 * size. */
void *ct_settings_alloc(size_t bytes);
void ct_settings_free(void *p, size_t bytes);

#endif /* CT_SETTINGS_ALLOC_H */
