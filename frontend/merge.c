/*
 * --merge: the processes of one recording as one profile.  Each trace is
 * dumped by the analyzer (--dump: named functions, nanosecond times, thread
 * numbers; docs/dump-format.md), its times are moved onto the recording's
 * common origin (the wall-clock time of each trace's first event), its
 * threads are numbered after the previous processes' threads, and the
 * result is read back as one OpenLaszlo log.  Functions of the same name
 * in different processes become one function: that is what merging means
 * for a shell script running one program twice.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"

/* "<ms>[.<up to 6 digits>] <key>[<thread>]<rest>" into its parts. */
struct dump_line {
    int64_t ns;
    char key;
    unsigned long thread;     /* 1 = the bare key                          */
    const char *rest;         /* from the space after the key, or ""       */
};

static bool parse_line(const char *s, struct dump_line *l)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    long long ms = strtoll(s, &end, 10);
    int64_t frac = 0;
    if (*end == '.') {
        int digits = 0;
        for (end++; *end >= '0' && *end <= '9'; end++, digits++)
            if (digits < 6)
                frac = frac * 10 + (*end - '0');
        for (; digits < 6; digits++)
            frac *= 10;
    }
    if (*end != ' ' || !strchr("CRSEV", end[1]) || ms > INT64_MAX / 2000000)
        return false;
    l->ns = ms * 1000000 + frac;
    l->key = end[1];
    end += 2;
    l->thread = 1;
    if (*end >= '0' && *end <= '9')
        l->thread = strtoul(end, &end, 10);
    if (*end != ' ' && *end != '\n' && *end != 0)
        return false;
    l->rest = end;
    return true;
}

static void put_key(FILE *out, int64_t ns, char key, unsigned long thread)
{
    fprintf(out, "%" PRId64 ".%06" PRId64 " %c", ns / 1000000, ns % 1000000,
            key);
    if (thread > 1)
        fprintf(out, "%lu", thread);
}

/* Appends one process's dump; returns its highest thread number, or -1. */
static long append(FILE *out, const char *dump, const struct ct_fe_trace *t,
                   int64_t offset, unsigned long base)
{
    FILE *in = fopen(dump, "r");
    if (!in) {
        ct_fe_error("cannot read %s: %m", dump);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned long top = t->stats.threads;
    bool first = true;
    while (getline(&line, &cap, in) > 0) {
        struct dump_line l;
        if (!parse_line(line, &l))
            continue;
        if (first) {
            put_key(out, l.ns + offset, 'V', base + 1);
            fprintf(out, " process %" PRIu64 " starts: %s\n", t->stats.pid,
                    t->stats.program[0] ? t->stats.program : "?");
            first = false;
        }
        put_key(out, l.ns + offset, l.key, base + l.thread);
        fputs(l.rest, out);
        if (!strchr(l.rest, '\n'))
            fputc('\n', out);
        if (l.thread > top)
            top = l.thread;
    }
    free(line);
    fclose(in);
    return (long)top;
}

int ct_fe_merge(const struct ct_fe_recording *r, const char *analyzer,
                const char *out_path)
{
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < r->n; i++)
        if (r->traces[i].stats.first_epoch_ns &&
            r->traces[i].stats.first_epoch_ns < origin)
            origin = r->traces[i].stats.first_epoch_ns;
    FILE *out = fopen(out_path, "w");
    if (!out) {
        ct_fe_error("cannot write %s: %m", out_path);
        return -1;
    }
    char *part;
    if (asprintf(&part, "%s.part", out_path) < 0) {
        fclose(out);
        return -1;
    }
    int rc = 0;
    unsigned long base = 0;
    for (size_t i = 0; i < r->n && rc == 0; i++) {
        const struct ct_fe_trace *t = &r->traces[i];
        char *argv[] = { (char *)analyzer, "--dump", "-o", part, "--",
                         t->path, NULL };
        /* 2: damaged, dumped up to the damage (the analyzer said where). */
        int st = ct_fe_run_tool(argv);
        if (st != 0 && st != 2) {
            rc = -1;
            break;
        }
        int64_t offset = t->stats.first_epoch_ns && origin != INT64_MAX
                       ? t->stats.first_epoch_ns - origin : 0;
        long top = append(out, part, t, offset, base);
        if (top < 0)
            rc = -1;
        else
            base += (unsigned long)top;
    }
    unlink(part);
    free(part);
    if (fclose(out) != 0 && rc == 0) {
        ct_fe_error("cannot write %s: %m", out_path);
        rc = -1;
    }
    return rc;
}
