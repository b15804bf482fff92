/*
 * The command line for the file header (cmdline.c), private to file/.
 */
#ifndef CT_CMDLINE_H
#define CT_CMDLINE_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* The command line as a shell would take it back (arguments quoted where
 * needed, joined by spaces) into dst, NUL-terminated; arguments that do
 * not fit are left out, and dst stays as it is when /proc cannot say. */
void ct_file_cmdline(char *dst, size_t cap);

#pragma GCC visibility pop

#endif /* CT_CMDLINE_H */
