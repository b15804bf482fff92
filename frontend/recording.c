/*
 * A recording: one trace file, or a folder with one trace per process
 * (calltrace-<pid>.raw; an exec in the same process adds .1, .2, ...).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/frontend.h"

bool ct_fe_is_trace_name(const char *name)
{
    /* A snapshot (TRACE.snapN, CALLTRACE_FLIGHT_SIGNAL or calltrace
     * control) is a copy of a trace, not another process. */
    /* TRACE.packed is a trace's side file (record --pack), no trace. */
    return strncmp(name, "calltrace-", 10) == 0 && strstr(name, ".raw") &&
           !strstr(name, ".snap") && !strstr(name, ".packed");
}

size_t ct_fe_count_traces(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += ct_fe_is_trace_name(e->d_name);
    closedir(d);
    return n;
}

static int by_start(const void *a, const void *b)
{
    const struct ct_fe_trace *x = a, *y = b;
    if (x->stats.first_epoch_ns != y->stats.first_epoch_ns)
        return x->stats.first_epoch_ns < y->stats.first_epoch_ns ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int add(struct ct_fe_recording *r, char *path)
{
    struct ct_fe_trace t = { .path = path };
    if (ct_fe_trace_stats(path, &t.stats, false) != 0) {
        free(path);
        return -1;
    }
    struct ct_fe_trace *grown =
        realloc(r->traces, (r->n + 1) * sizeof *r->traces);
    if (!grown) {
        free(path);
        return -1;
    }
    r->traces = grown;
    r->traces[r->n++] = t;
    return 0;
}

int ct_fe_recording_open(struct ct_fe_recording *r, const char *path)
{
    memset(r, 0, sizeof *r);
    struct stat st;
    if (stat(path, &st) != 0) {
        ct_fe_error("%s: %m", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return add(r, strdup(path));
    DIR *d = opendir(path);
    if (!d) {
        ct_fe_error("%s: %m", path);
        return -1;
    }
    int status = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ct_fe_is_trace_name(e->d_name))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", path, e->d_name) < 0 || add(r, p) != 0)
            status = -1;
    }
    closedir(d);
    if (status == 0 && r->n == 0) {
        ct_fe_error("%s: no traces in this folder (calltrace-*.raw)", path);
        status = -1;
    }
    if (status != 0) {
        ct_fe_recording_free(r);
        return -1;
    }
    qsort(r->traces, r->n, sizeof *r->traces, by_start);
    return 0;
}

void ct_fe_recording_free(struct ct_fe_recording *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->traces[i].path);
    free(r->traces);
    memset(r, 0, sizeof *r);
}
