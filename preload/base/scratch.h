/*
 * Memory of the tracer's own.  The program's malloc heap is the program's:
 * a tracer that allocates there at start moves every address the program
 * gets, sets up an arena a program without malloc never had, and can run
 * into a malloc that the program interposes or that is not ready yet.  So
 * the set-up work (library-call patching, filters) takes its memory from
 * anonymous mappings, through raw system calls that leave errno alone.
 */
#ifndef CT_SCRATCH_H
#define CT_SCRATCH_H

#include <stddef.h>

/* Zeroed memory of at least bytes, or NULL; give it back with the same
 * size. */
void *ct_scratch_alloc(size_t bytes);
void ct_scratch_free(void *p, size_t bytes);

/* A copy of s that lives as long as the process (names of library
 * functions, which must outlive a dlclose of their object); NULL for NULL
 * or when no memory is left.  Safe from any thread. */
const char *ct_scratch_keep(const char *s);

/* An in-place sort: glibc's qsort takes a malloc'ed buffer for arrays over
 * 1 KiB. */
void ct_sort(void *base, size_t n, size_t size,
             int (*cmp)(const void *, const void *));

#endif /* CT_SCRATCH_H */
