/*
 * The tracer's settings from the environment (config.h).  Pure functions: the environment and
 * the message sink are passed in, so the unit tests drive every variable.
 * A bad value never stops the program: one line explains it and the
 * default is used.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "settings/config.h"

void ct_config_defaults(struct ct_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->output, sizeof c->output, "%s", CT_DEFAULT_OUTPUT);
    c->bufsize = CT_DEFAULT_BUFSIZE;
    c->follow = 1;
    c->libcalls = CT_LIBCALLS_PLT;
    c->stream_backlog = 64u << 20;
    c->stream_timeout_ms = 10000;
}

int ct_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    /* Accept 64K, 64KB, 64KiB. */
    if (shift && (strcmp(end, "B") == 0 || strcmp(end, "iB") == 0))
        end += strlen(end);
    if (*end != '\0')
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

void ct_format_size(char *dst, size_t cap, uint64_t v)
{
    if (v && v % (1ull << 30) == 0)
        snprintf(dst, cap, "%lluG", (unsigned long long)(v >> 30));
    else if (v && v % (1ull << 20) == 0)
        snprintf(dst, cap, "%lluM", (unsigned long long)(v >> 20));
    else if (v && v % (1ull << 10) == 0)
        snprintf(dst, cap, "%lluK", (unsigned long long)(v >> 10));
    else
        snprintf(dst, cap, "%llu", (unsigned long long)v);
}

int ct_parse_signal(const char *s)
{
    if (!s || !*s)
        return -1;
    if (isdigit((unsigned char)*s)) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end || v <= 0 || v >= NSIG)
            return -1;
        return (int)v;
    }
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (int sig = 1; sig < NSIG; sig++) {
        const char *name = sigabbrev_np(sig);
        if (name && strcasecmp(name, s) == 0)
            return sig;
    }
    return -1;
}

int ct_toggle_signal_allowed(int sig)
{
    return sig == SIGUSR1 || sig == SIGUSR2 ||
           (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

int ct_parse_bool(const char *s)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (strcasecmp(s, yes[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (strcasecmp(s, no[i]) == 0)
            return 0;
    return -1;
}

int ct_output_name(char *dst, size_t cap, const char *pattern, long pid,
                   int forked_child)
{
    size_t n = 0;
    int had_pid = 0;
    for (const char *p = pattern; *p; p++) {
        int w;
        if (p[0] == '%' && p[1] == 'p') {
            w = snprintf(dst + n, cap - n, "%ld", pid);
            had_pid = 1;
            p++;
        } else {
            w = snprintf(dst + n, cap - n, "%c", *p);
        }
        if (w < 0 || (size_t)w >= cap - n)
            return -1;
        n += (size_t)w;
    }
    if (forked_child && !had_pid) {
        int w = snprintf(dst + n, cap - n, ".%ld", pid);
        if (w < 0 || (size_t)w >= cap - n)
            return -1;
        n += (size_t)w;
    }
    if (n == 0 && cap)
        dst[0] = '\0';
    return n ? 0 : -1;
}

static void warnf(ct_warn_fn warn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warnf(ct_warn_fn warn, const char *fmt, ...)
{
    char line[CT_PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    warn(line);
}

static void load_bool(ct_getenv_fn get, ct_warn_fn warn, const char *name,
                      int *out)
{
    const char *v = get(name);
    if (!v)
        return;
    int b = ct_parse_bool(v);
    if (b < 0)
        warnf(warn, "calltrace: %s='%s': expected 1/yes/true/on or "
              "0/no/false/off; using %d", name, v, *out);
    else
        *out = b;
}

static void load_bufsize(struct ct_config *c, ct_getenv_fn get,
                         ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_BUFSIZE");
    uint64_t size;
    char def[32];
    ct_format_size(def, sizeof def, c->bufsize);
    if (!v)
        return;
    if (ct_parse_size(v, &size) < 0) {
        warnf(warn, "calltrace: CALLTRACE_BUFSIZE='%s': expected a size such "
              "as 64K or 4M; using %s", v, def);
        return;
    }
    if (size < CT_MIN_BUFSIZE || size > CT_MAX_BUFSIZE) {
        warnf(warn, "calltrace: CALLTRACE_BUFSIZE='%s': expected a size "
              "between 4K and 1G; using %s", v, def);
        return;
    }
    c->bufsize = (uint32_t)ct_align_up(size, CT_BLOCK_ALIGN);
}

static void load_limit(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_LIMIT");
    uint64_t size;
    if (!v)
        return;
    if (ct_parse_size(v, &size) < 0) {
        warnf(warn, "calltrace: CALLTRACE_LIMIT='%s': expected a size such "
              "as 100M or 2G; using no limit", v);
        return;
    }
    if (size == 0) {
        /* 0 could mean "nothing" or "no limit": neither is guessed. */
        warnf(warn, "calltrace: CALLTRACE_LIMIT='%s': expected a size such "
              "as 100M or 2G (unset it for no limit); using no limit", v);
        return;
    }
    c->limit = size;
}

static void load_flight(struct ct_config *c, ct_getenv_fn get,
                        ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_FLIGHT");
    uint64_t size;
    if (v && *v && (ct_parse_size(v, &size) < 0 || size == 0))
        warnf(warn, "calltrace: CALLTRACE_FLIGHT='%s': expected a ring size "
              "such as 64M; recording the whole run", v);
    else if (v && *v)
        c->flight = size;
    v = get("CALLTRACE_FLIGHT_SIGNAL");
    if (!v || !*v)
        return;
    int sig = ct_parse_signal(v);
    if (sig < 0 || !ct_toggle_signal_allowed(sig))
        warnf(warn, "calltrace: CALLTRACE_FLIGHT_SIGNAL='%s': expected USR1, "
              "USR2 or a real-time signal (%d-%d); using none", v, SIGRTMIN,
              SIGRTMAX);
    else
        c->flight_signal = sig;
}

uint64_t ct_flight_geometry(uint64_t want, uint32_t bufsize, uint32_t *slot)
{
    uint64_t size = ct_align_up(bufsize, CT_BLOCK_ALIGN);
    if (size < CT_FLIGHT_MIN_SLOT)
        size = CT_FLIGHT_MIN_SLOT;
    if (want / size < CT_FLIGHT_FEW_SLOTS) {
        uint64_t few = want / CT_FLIGHT_FEW_SLOTS / CT_BLOCK_ALIGN *
                       CT_BLOCK_ALIGN;
        if (few < CT_FLIGHT_MIN_SLOT)
            few = CT_FLIGHT_MIN_SLOT;
        if (few < size)
            size = few;
    }
    uint64_t n = want / size;
    if (n < CT_FLIGHT_MIN_SLOTS)
        n = CT_FLIGHT_MIN_SLOTS;
    if (n > UINT32_MAX / 2)
        n = UINT32_MAX / 2;
    *slot = (uint32_t)size;
    return n;
}

static void load_clock(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_CLOCK");
    if (!v)
        return;
    c->clock_monotonic = c->clock_fenced = 0;
    if (strcasecmp(v, "monotonic") == 0)
        c->clock_monotonic = 1;
    else if (strcasecmp(v, "tsc-fenced") == 0)
        c->clock_fenced = 1;
    else if (strcasecmp(v, "tsc") != 0)
        warnf(warn, "calltrace: CALLTRACE_CLOCK='%s': expected tsc, "
              "tsc-fenced or monotonic; using tsc", v);
}

static void load_cputime(struct ct_config *c, ct_getenv_fn get,
                         ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_CPUTIME");
    if (!v)
        return;
    if (strcasecmp(v, "switch") == 0)
        c->cputime = CT_CPUTIME_SWITCH;
    else if (strcasecmp(v, "clock") == 0)
        c->cputime = CT_CPUTIME_CLOCK;
    else if (strcasecmp(v, "off") == 0)
        c->cputime = CT_CPUTIME_OFF;
    else
        warnf(warn, "calltrace: CALLTRACE_CPUTIME='%s': expected switch, "
              "clock or off; using switch", v);
}

static void load_signal(struct ct_config *c, ct_getenv_fn get,
                        ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_SIGNAL");
    if (!v || !*v)
        return;
    /* SIG@ACTION, as uftrace's --signal=SIGUSR1@finish */
    char name[32];
    const char *at = strchr(v, '@');
    size_t n = at ? (size_t)(at - v) : strlen(v);
    int action = CT_SIGACT_TOGGLE;
    if (at) {
        static const char *const acts[] = {"toggle", "on", "off", "finish"};
        action = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(at + 1, acts[i]) ||
                (i && !strncmp(at + 1, "trace_", 6) &&
                 !strcmp(at + 7, acts[i])))
                action = i;
        if (action < 0 || n >= sizeof name) {
            warnf(warn, "calltrace: CALLTRACE_SIGNAL='%s': expected "
                  "SIGNAL[@ACTION], ACTION toggle, on, off or finish; using "
                  "none", v);
            return;
        }
    }
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, v, n);
    name[n] = '\0';
    int sig = ct_parse_signal(name);
    if (sig < 0)
        warnf(warn, "calltrace: CALLTRACE_SIGNAL='%s': expected a signal "
              "such as USR2, SIGUSR2 or 12; using none", v);
    else if (!ct_toggle_signal_allowed(sig))
        /* Crash signals, SIGPROF (sampling), SIGCHLD, job control and
         * termination signals have meanings a toggle would take away: a
         * SIGSEGV that toggles returns to the faulting instruction for
         * ever. */
        warnf(warn, "calltrace: CALLTRACE_SIGNAL='%s': SIG%s is needed by "
              "the program or the tracer; expected USR1, USR2 or a "
              "real-time signal (%d-%d); using none", v, sigabbrev_np(sig),
              SIGRTMIN, SIGRTMAX);
    else {
        c->toggle_signal = sig;
        c->toggle_action = action;
    }
}

static void load_output(struct ct_config *c, ct_getenv_fn get,
                        ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_OUTPUT");
    if (!v)
        return;
    if (!*v) {
        warnf(warn, "calltrace: CALLTRACE_OUTPUT is empty: expected a file "
              "path; using %s", CT_DEFAULT_OUTPUT);
        return;
    }
    /* Room for a pid and a ".N" suffix. */
    if (strlen(v) + 48 > sizeof c->output) {
        warnf(warn, "calltrace: CALLTRACE_OUTPUT='%.64s%s': expected a file "
              "path shorter than %zu bytes; using %s", v,
              strlen(v) > 64 ? "..." : "", sizeof c->output - 48,
              CT_DEFAULT_OUTPUT);
        return;
    }
    snprintf(c->output, sizeof c->output, "%s", v);
}

static void load_libcalls(struct ct_config *c, ct_getenv_fn get,
                          ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_LIBCALLS");
    if (!v)
        return;
    if (strcasecmp(v, "none") == 0)
        c->libcalls = CT_LIBCALLS_NONE;
    else if (strcasecmp(v, "plt") == 0)
        c->libcalls = CT_LIBCALLS_PLT;
    else if (strcasecmp(v, "nested") == 0)
        c->libcalls = CT_LIBCALLS_NESTED;
    else
        warnf(warn, "calltrace: CALLTRACE_LIBCALLS='%s': expected none, plt "
              "or nested; using plt", v);
}

static void load_stream(struct ct_config *c, ct_getenv_fn get,
                        ct_warn_fn warn)
{
    const char *v = get("CALLTRACE_STREAM_BACKLOG");
    uint64_t n;
    if (v && (ct_parse_size(v, &n) < 0 || n < CT_MIN_BUFSIZE))
        warnf(warn, "calltrace: CALLTRACE_STREAM_BACKLOG='%s': expected a "
              "size such as 64M (at least 4K); using 64M", v);
    else if (v)
        c->stream_backlog = n;
    v = get("CALLTRACE_STREAM_TIMEOUT");
    if (v && (ct_parse_size(v, &n) < 0 || n < 100 || n > 3600000))
        warnf(warn, "calltrace: CALLTRACE_STREAM_TIMEOUT='%s': expected "
              "milliseconds from 100 to 3600000; using 10000", v);
    else if (v)
        c->stream_timeout_ms = (uint32_t)n;
}

void ct_config_load(struct ct_config *c, ct_getenv_fn get, ct_warn_fn warn)
{
    ct_config_defaults(c);
    load_bool(get, warn, "CALLTRACE_QUIET", &c->quiet);
    load_output(c, get, warn);
    load_bufsize(c, get, warn);
    load_limit(c, get, warn);
    load_clock(c, get, warn);
    load_cputime(c, get, warn);
    load_bool(get, warn, "CALLTRACE_START_PAUSED", &c->start_paused);
    load_signal(c, get, warn);
    load_bool(get, warn, "CALLTRACE_FOLLOW", &c->follow);
    load_libcalls(c, get, warn);
    load_flight(c, get, warn);
    load_bool(get, warn, "CALLTRACE_CONTROL", &c->control);
    load_stream(c, get, warn);
    load_bool(get, warn, "CALLTRACE_SUPPLIER", &c->supplier);
    /* A stream has no file to keep a ring in (stream.c's test, inlined:
     * the front end links this file alone). */
    if (c->flight && (strncmp(c->output, "tcp:", 4) == 0 ||
                      strncmp(c->output, "unix:", 5) == 0)) {
        warnf(warn, "calltrace: CALLTRACE_FLIGHT='%s' is ignored: the trace "
              "is streamed to %s, which keeps it all", get("CALLTRACE_FLIGHT"),
              c->output);
        c->flight = 0;
    }
    /* The ring's blocks are its slots (flight.c). */
    if (c->flight)
        ct_flight_geometry(c->flight, c->bufsize, &c->bufsize);
}
