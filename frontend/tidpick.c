/*
 * --tid on a recording of several processes: a tid is one thread of one
 * process, so only the sections of the traces holding a thread named are
 * printed, rather than every other process's "no thread" error.  The
 * tids of a trace come from its block headers alone (no record decoded).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "analyzer/read/load.h"
#include "analyzer/model/tidsel.h"
#include "analyzer/util.h"

/* The tids the analyzer options args (NULL-ended) name with --tid; false
 * when there is none or one is malformed (the analyzer will say so). */
static bool args_tids(char **args, uint64_t **tids, size_t *n)
{
    for (size_t i = 0; args[i]; i++) {
        const char *v = NULL;
        if (strncmp(args[i], "--tid=", 6) == 0)
            v = args[i] + 6;
        else if (strcmp(args[i], "--tid") == 0 && args[i + 1])
            v = args[++i];
        else if (strcmp(args[i], "--") == 0)
            break;
        if (v && ct_tid_parse(v, tids, n) != 0)
            return false;
    }
    return *n > 0;
}

bool *ct_fe_tid_pick(char **args, const struct ct_fe_recording *rec)
{
    uint64_t *tids = NULL;
    size_t n = 0;
    if (!args_tids(args, &tids, &n)) {
        free(tids);
        return NULL;
    }
    bool *keep = calloc(rec->n ? rec->n : 1, sizeof *keep);
    bool any = false;
    for (size_t i = 0; keep && i < rec->n; i++)
        any |= keep[i] = ct_load_has_tid(rec->traces[i].path, tids, n);
    free(tids);
    if (!any) { /* every section then says that it has none */
        free(keep);
        return NULL;
    }
    return keep;
}
