/*
 * The rule language of record-time filters (docs/tracer.md, "Record-time
 * filters"), parsed and matched against one name by filter_spec.c, with no
 * state of the tracer's.  Shared by the tracer (preload/filters/) and
 * calltrace record, which checks --filter before the program runs.
 *
 * A spec is a comma-separated list of items:
 *   PATTERN        record only these functions and what they call
 *   PATTERN@N      ... to N levels (the function itself is level 1)
 *   -PATTERN       do not record these; their callees are recorded
 *   PATTERN:on     recording starts when one of these is entered
 *   PATTERN:off    recording stops when one of these is entered
 *   PATTERN:ACTION[:ACTION...]  uftrace's triggers (trace_on, trace_off,
 *                  notrace, caller, trace, depth=N, time=DURATION, finish,
 *                  backtrace): see CT_FACT_*
 *   depth=N        no call deeper than N levels is recorded
 *   min=DURATION   a call is kept only if it lasted DURATION (ns/us/ms/s)
 * PATTERN is a glob (fnmatch) or, after "re:", a POSIX extended regular
 * expression; "\," is a comma inside a pattern.
 *
 * Its memory comes from ct_settings_alloc (settings/alloc.h), which each
 * program gives: the tracer's never touches the program's heap.
 */
#ifndef CT_SETTINGS_FILTER_SPEC_H
#define CT_SETTINGS_FILTER_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <regex.h>

#define CT_FILTER_MAX_RULES 64u
#define CT_FILTER_TEXT_MAX 4096u

#define CT_FRULE_INCLUDE 0u
#define CT_FRULE_EXCLUDE 1u
#define CT_FRULE_ON      2u
#define CT_FRULE_OFF     3u
#define CT_FRULE_ACTION  4u   /* PATTERN:ACTION[:ACTION...], acts below   */

/* A trigger's actions (struct ct_frule.acts), uftrace's -T vocabulary. */
#define CT_FACT_ON        0x001u /* recording on (:on, :trace_on)          */
#define CT_FACT_OFF       0x002u /* recording off (:off, :trace_off)       */
#define CT_FACT_NOTRACE   0x004u /* it and its callees left out (-N)       */
#define CT_FACT_CALLER    0x008u /* only the paths to it are kept (-C)     */
#define CT_FACT_TRACE     0x010u /* kept whatever its duration             */
#define CT_FACT_DEPTH     0x020u /* N levels counted from it (depth=N)     */
#define CT_FACT_TIME      0x040u /* its own minimum duration (time=T)      */
#define CT_FACT_FINISH    0x080u /* recording ends when it returns         */
#define CT_FACT_BACKTRACE 0x100u /* its callers are recorded with it       */
#define CT_FACT_INCLUDE   0x200u /* as PATTERN (uftrace's "filter")        */
#define CT_FACT_START_OFF 0x400u /* ":on": recording starts off           */

struct ct_frule {
    uint32_t kind;        /* CT_FRULE_*                                    */
    uint32_t levels;      /* PATTERN@N: N; 0 = no limit                    */
    int is_regex;
    regex_t re;
    char pattern[256];
    uint32_t acts;        /* CT_FACT_*, for every trigger kind             */
    uint32_t depth;       /* :depth=N                                      */
    uint64_t time_ns;     /* :time=DURATION (0 allowed)                    */
    char acts_text[96];   /* ":trace_on:depth=2", as written               */
    uint64_t below_size;  /* size=N (an exclude rule matching no name):
                             functions of fewer than N bytes            */
};

static inline int ct_frule_is_trigger(const struct ct_frule *r)
{
    return r->kind >= CT_FRULE_ON;
}

struct ct_fspec {
    uint32_t nrules;
    struct ct_frule rules[CT_FILTER_MAX_RULES];
    int have_include;
    int have_on;          /* recording waits for an :on trigger            */
    uint32_t have_acts;   /* CT_FACT_* of all the trigger rules            */
    uint32_t depth;       /* depth=N, 0 = none                             */
    uint64_t min_ns;      /* min=DURATION, 0 = none                        */
    uint32_t size_rule;   /* size=N's rule, index + 1; 0 = none            */
    char text[CT_FILTER_TEXT_MAX];  /* the spec, normalized                */
};

/* Parses spec into out (which the caller frees with ct_fspec_free).
 * Returns 0, or -1 with one line in err and out empty. */
int ct_fspec_parse(const char *spec, struct ct_fspec *out, char *err,
                   size_t errcap);
void ct_fspec_free(struct ct_fspec *s);
/* Whether the spec asks for anything. */
int ct_fspec_active(const struct ct_fspec *s);
/* "10us", "2ms", "500", "1.5s": nanoseconds; 0 on success. */
int ct_fspec_duration(const char *s, uint64_t *ns);

/* The last include, exclude and trigger rules matching the name, each as
 * index + 1 (0: none), packed as below.  demangled may be NULL; a C++ name
 * matches by its demangled form, with or without its parameter list (and
 * a template function's return type), or by its mangled one. */
uint32_t ct_fspec_match(const struct ct_fspec *s, const char *name,
                        const char *demangled);
/* The same for a library call's stub: each form of the name followed by
 * mark ("@plt", "@dlsym", "@got"), as the report names it: `malloc@plt`,
 * `operator new(unsigned long)@plt`, `operator new@plt`. */
uint32_t ct_fspec_match_marked(const struct ct_fspec *s, const char *name,
                               const char *demangled, const char *mark);
/* The same, and bit i of *hits set for every rule i that matches (all of
 * them, not only the last of each kind): rules that name no function. */
uint32_t ct_fspec_match_hits(const struct ct_fspec *s, const char *name,
                             const char *demangled, const char *mark,
                             uint64_t *hits);
/* v (as ct_fspec_match_hits gives it) for a function of size bytes
 * under the size rules: size=N (uftrace's -Z N) and PATTERN:size=N
 * (-T F@size=N) leave a function out, as -NAME does, when it is smaller
 * than N and no name rule leaves it out already; a size of 0 (not known)
 * is never smaller.  The bit of each rule that applies is set in *hits. */
uint32_t ct_fspec_match_size(const struct ct_fspec *s, uint32_t v,
                             const char *name, const char *demangled,
                             uint64_t size, uint64_t *hits);
/* A rule as it was written ("-lex_*", "fib@3", "start:on"), into dst;
 * returns its length. */
size_t ct_fspec_rule_text(const struct ct_frule *r, char *dst, size_t cap);
#define CT_FMATCH_INCLUDE(v) ((v) & 0xffu)
#define CT_FMATCH_EXCLUDE(v) ((v) >> 8 & 0xffu)
#define CT_FMATCH_TRIGGER(v) ((v) >> 16 & 0xffu)

/* Builds the spec from the environment's CALLTRACE_FILTER, _DEPTH,
 * _MIN_DURATION and _TRIGGER into dst; a bad variable gets one warning
 * line and is left out.  Returns the length (0: nothing asked). */
typedef const char *(*ct_fenv_fn)(const char *name);
size_t ct_fspec_from_env(char *dst, size_t cap, ct_fenv_fn get,
                         void (*warn)(const char *line));

#endif /* CT_SETTINGS_FILTER_SPEC_H */
