/*
 * Memory the tracer may read in place, without a system call and without
 * the risk of a fault: the segments of the objects loaded before the
 * program started, read-only (text, constants, string literals) and
 * writable (.data, .bss: global buffers), which no dlclose unloads (the
 * program was linked with them) and which only a program that unmaps or
 * protects its own segments could take away (docs/reliability.md).  A
 * string an argument points at is read from there by a copy
 * (args/args.c), everything else by ct_self_read.
 */
#ifndef CT_STABLE_MEM_H
#define CT_STABLE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Notes the segments of the objects loaded now; called once, at
 * start, before any read. */
void ct_stable_mem_note(void);

/* How many of the n bytes from addr lie in one such segment, from addr on
 * (0: addr is in none). */
size_t ct_stable_span(uintptr_t addr, size_t n);

#endif /* CT_STABLE_MEM_H */
