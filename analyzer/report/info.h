/*
 * --info (`calltrace info`): what a trace is, as uftrace info says it: the
 * command line and settings it was recorded with, when and how long, the
 * process and its threads, the clock, the loaded objects and whether their
 * symbols and lines were found, the events, the losses, the size.
 */
#ifndef CT_INFO_H
#define CT_INFO_H

#include <stdio.h>

#include "reader.h"

/* Reads the input whole with reader and prints its description to out.
 * Returns the reader's status (CT_EXIT_BAD_INPUT on damage, after
 * printing what was read). */
int ct_info_run(FILE *out, const struct ct_input *in,
                const struct ct_reader *reader, struct ct_trace_info *info);

#endif /* CT_INFO_H */
