/* The settings' parsers' memory in calltrace (settings/alloc.h): the heap,
 * since calltrace is a program of its own. */
#include <stdlib.h>

#include "settings/alloc.h"

void *ct_settings_alloc(size_t bytes)
{
    return calloc(1, bytes);
}

void ct_settings_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}
