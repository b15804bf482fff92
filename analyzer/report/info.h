/*
 * --info (`calltrace info`): what a trace is, as uftrace info says it: the
 * command line and settings it was recorded with, when and how long, the
 * process and its threads, the clock, the loaded objects and whether their
 * symbols and lines were found, the events, the losses, the size.  The
 * command line reads the trace into the counter's sink (analyzer/read/),
 * then has it printed.
 */
#ifndef CT_INFO_H
#define CT_INFO_H

#include <stddef.h>
#include <stdio.h>

#include "calltrace_format.h"
#include "analyzer/model/trace.h"

/* A sink that only counts, per thread, so that every figure is the one
 * the other views are built from. */
struct ct_info_counter;
struct ct_info_counter *ct_info_counter_new(void);
struct ct_sink *ct_info_counter_sink(struct ct_info_counter *c);
void ct_info_counter_free(struct ct_info_counter *c);

/* Prints the description of the trace at path (size bytes) from what its
 * reading left in info and counter.  h and state: a calltrace trace's
 * final file header and its writer's state in words, or NULL for another
 * format. */
void ct_info_print(FILE *out, const char *path, size_t size,
                   const struct ct_trace_info *info,
                   const struct ct_info_counter *counter,
                   const struct ct_file_header *h, const char *state);

#endif /* CT_INFO_H */
