/* libFuzzer harness: the settings' parsers the tracer runs on what the
 * environment says (settings/): CALLTRACE_ARGS (args_spec.c), with the
 * union of rules ct_args_match makes, CALLTRACE_FILTER (filter_spec.c)
 * and every CALLTRACE_* variable (config.c).  The input is split at NUL
 * bytes: a spec, then names to match and variables' values.  Each parser
 * must answer 0, or -1 with a message, and never read or write out of
 * bounds; a match's rule must be one the spec has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/args_spec.h"
#include "settings/config.h"
#include "settings/filter_spec.h"

/* The input's fields, NUL-terminated copies. */
static char *fields[16];
static int nfields;

static void split(const uint8_t *data, size_t size)
{
    nfields = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && nfields < 16; i++)
        if (i == size || data[i] == 0) {
            fields[nfields] = strndup((const char *)data + start, i - start);
            if (!fields[nfields])
                abort();
            nfields++;
            start = i + 1;
        }
}

static const char *field(int i)
{
    return i < nfields ? fields[i] : "";
}

static void args(void)
{
    static struct ct_args_spec spec;
    char err[192] = "";
    ct_args_clear(&spec);
    if (ct_args_parse(&spec, field(0), err, sizeof err) != 0) {
        if (!err[0] || spec.nrules != 0)
            abort();
        return;
    }
    for (int i = 1; i < nfields; i++)
        for (int libcall = 0; libcall < 2; libcall++) {
            uint32_t id = ct_args_match(&spec, fields[i], libcall);
            if (!id)
                continue;
            if (id > CT_ARGS_MAX_RULES + spec.nmerged ||
                (id <= CT_ARGS_MAX_RULES && id > spec.nrules))
                abort();
            const struct ct_args_rule *r = ct_args_rule(&spec, id);
            if (r->nitems > CT_ARGS_MAX_ITEMS)
                abort();
            /* a struct's name lies within the names taken, ended */
            for (unsigned k = 0; k <= r->nitems; k++) {
                const struct ct_arg_item *it = k < r->nitems ? &r->items[k]
                                                             : &r->ret;
                if (it->name && (it->name >= spec.names_used ||
                                 !memchr(spec.names + it->name, 0,
                                         spec.names_used - it->name)))
                    abort();
            }
        }
}

static void filter(void)
{
    struct ct_fspec *s = calloc(1, sizeof *s);
    char err[256] = "";
    if (!s)
        abort();
    if (ct_fspec_parse(field(0), s, err, sizeof err) != 0) {
        if (!err[0])
            abort();
    } else {
        for (int i = 1; i < nfields; i++) {
            uint64_t hits = 0;
            uint32_t v = ct_fspec_match_hits(s, fields[i], NULL, "@plt", &hits);
            ct_fspec_match_size(s, v, fields[i], NULL, (uint64_t)i * 7, &hits);
            ct_fspec_match(s, fields[i], fields[i]);
        }
        char text[512];
        for (uint32_t i = 0; i < s->nrules; i++)
            ct_fspec_rule_text(&s->rules[i], text, sizeof text);
    }
    ct_fspec_free(s);
    free(s);
}

/* Every variable the tracer reads, given the input's fields in turn. */
static const char *const names[] = {
    "CALLTRACE_OUTPUT", "CALLTRACE_BUFSIZE", "CALLTRACE_LIMIT",
    "CALLTRACE_CLOCK", "CALLTRACE_CPUTIME", "CALLTRACE_START_PAUSED",
    "CALLTRACE_SIGNAL", "CALLTRACE_FOLLOW", "CALLTRACE_LIBCALLS",
    "CALLTRACE_FLIGHT", "CALLTRACE_FLIGHT_SIGNAL", "CALLTRACE_CONTROL",
    "CALLTRACE_STREAM_BACKLOG", "CALLTRACE_STREAM_TIMEOUT",
    "CALLTRACE_SUPPLIER", "CALLTRACE_QUIET",
};

static const char *fake_getenv(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], name))
            return (int)i < nfields ? fields[i] : NULL;
    return NULL;
}

static void no_warn(const char *line)
{
    if (!line || !*line)
        abort();
}

static void config(void)
{
    struct ct_config c;
    ct_config_load(&c, fake_getenv, no_warn);
    if (c.bufsize < CT_MIN_BUFSIZE && !c.flight)
        abort();
    if (c.flight) {
        uint32_t slot;
        uint64_t n = ct_flight_geometry(c.flight, c.bufsize, &slot);
        if (n < CT_FLIGHT_MIN_SLOTS || slot < CT_FLIGHT_MIN_SLOT ||
            slot != c.bufsize)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    split(data, size);
    args();
    filter();
    config();
    for (int i = 0; i < nfields; i++)
        free(fields[i]);
    return 0;
}
