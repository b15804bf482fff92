/*
 * The rule language of record-time filters (filter_spec.h): parsing and
 * matching one name.  Pure functions, so the unit tests can drive them.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/alloc.h"
#include "settings/filter_spec.h"
#include "settings/regex_bound.h"

void ct_fspec_free(struct ct_fspec *s)
{
    for (uint32_t i = 0; i < s->nrules; i++)
        if (s->rules[i].is_regex)
            regfree(&s->rules[i].re);
    s->nrules = 0;
}

int ct_fspec_active(const struct ct_fspec *s)
{
    return s->nrules > 0 || s->depth > 0 || s->min_ns > 0;
}

int ct_fspec_duration(const char *s, uint64_t *ns)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || v < 0)
        return -1;
    double unit;
    if (!strcmp(end, "") || !strcmp(end, "ns"))
        unit = 1;
    else if (!strcmp(end, "us"))
        unit = 1e3;
    else if (!strcmp(end, "ms"))
        unit = 1e6;
    else if (!strcmp(end, "s"))
        unit = 1e9;
    else
        return -1;
    v *= unit;
    if (v >= 1.8e19)
        return -1;
    *ns = (uint64_t)(v + 0.5);
    return 0;
}

/* size=N's N: bytes, from 1 to 2^30; 0 on success. */
static int parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0 || v > (1ull << 30))
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, uint32_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v == 0 || v > 4096)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* One action of a trigger, uftrace's names ("trace-on" as "trace_on"). */
static int parse_action(struct ct_frule *r, const char *a)
{
    static const struct {
        const char *name;
        uint32_t act;
    } acts[] = {
        {"on", CT_FACT_ON | CT_FACT_START_OFF}, {"off", CT_FACT_OFF},
        {"trace_on", CT_FACT_ON},     {"trace-on", CT_FACT_ON},
        {"trace_off", CT_FACT_OFF},   {"trace-off", CT_FACT_OFF},
        {"notrace", CT_FACT_NOTRACE}, {"caller", CT_FACT_CALLER},
        {"trace", CT_FACT_TRACE},     {"finish", CT_FACT_FINISH},
        {"backtrace", CT_FACT_BACKTRACE}, {"filter", CT_FACT_INCLUDE},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (!strcmp(a, acts[i].name)) {
            r->acts |= acts[i].act;
            return 0;
        }
    if (!strncmp(a, "depth=", 6) && parse_count(a + 6, &r->depth) == 0) {
        r->acts |= CT_FACT_DEPTH;
        return 0;
    }
    if (!strncmp(a, "time=", 5) &&
        ct_fspec_duration(a + 5, &r->time_ns) == 0) {
        r->acts |= CT_FACT_TIME;
        return 0;
    }
    return -1;
}

/* Whether a is the name of an action, bad arguments included: "depth=x"
 * is a mistake to report, not part of a function's name. */
static int action_name(const char *a)
{
    static const char *const names[] = {
        "on", "off", "trace_on", "trace-on", "trace_off", "trace-off",
        "notrace", "caller", "trace", "finish", "backtrace", "filter",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i]))
            return 1;
    return !strncmp(a, "depth=", 6) || !strncmp(a, "time=", 5);
}

/* Takes the trailing ":ACTION"s off item into r (a C++ name's "::" is
 * not a separator).  1 when there were some, 0 none, -1 a bad one. */
static int strip_actions(struct ct_frule *r, char *item, char *err,
                         size_t errcap)
{
    char *end = item + strlen(item);
    int found = 0;
    for (;;) {
        char *colon = NULL;
        for (char *c = end - 1; c >= item; c--)
            if (*c == ':') {
                colon = c;
                break;
            }
        char a[64];
        if (!colon || (colon > item && colon[-1] == ':') ||
            (size_t)(end - colon - 1) >= sizeof a)
            break;
        size_t k = (size_t)(end - colon - 1);
        memcpy(a, colon + 1, k);
        a[k] = '\0';
        if (!action_name(a))
            break;
        if (parse_action(r, a) != 0) {
            snprintf(err, errcap, "'%s': expected depth=N (N from 1 to "
                     "4096) or time=DURATION (such as 10us)", a);
            return -1;
        }
        end = colon;
        found = 1;
    }
    if (found) {
        snprintf(r->acts_text, sizeof r->acts_text, "%s", end);
        *end = '\0';
    }
    return found;
}

/* One item, item[0..n) with "\," already turned into ",". */
static int parse_item(struct ct_fspec *out, char *item, char *err,
                      size_t errcap)
{
    if (!strncmp(item, "depth=", 6)) {
        if (parse_count(item + 6, &out->depth) != 0) {
            snprintf(err, errcap, "'%s': expected depth=N, N from 1 to "
                     "4096", item);
            return -1;
        }
        return 0;
    }
    if (!strncmp(item, "min=", 4)) {
        if (ct_fspec_duration(item + 4, &out->min_ns) != 0 ||
            out->min_ns == 0) {
            snprintf(err, errcap, "'%s': expected min=DURATION such as "
                     "10us (units ns, us, ms, s)", item);
            return -1;
        }
        return 0;
    }
    if (out->nrules == CT_FILTER_MAX_RULES) {
        snprintf(err, errcap, "more than %u patterns", CT_FILTER_MAX_RULES);
        return -1;
    }
    struct ct_frule *r = &out->rules[out->nrules];
    memset(r, 0, sizeof *r);
    if (!strncmp(item, "size=", 5)) {
        if (parse_bytes(item + 5, &r->below_size) != 0 || out->size_rule) {
            snprintf(err, errcap, "'%s': expected size=N, N bytes from 1 to "
                     "2^30, once", item);
            return -1;
        }
        r->kind = CT_FRULE_EXCLUDE;
        out->size_rule = ++out->nrules;
        return 0;
    }
    /* PATTERN:size=N: these functions left out when smaller than N bytes
     * (uftrace's -T F@size=N beside -Z). */
    char *sz = strrchr(item, ':');
    if (sz && sz > item && sz[-1] != ':' && !strncmp(sz + 1, "size=", 5)) {
        if (parse_bytes(sz + 6, &r->below_size) != 0) {
            snprintf(err, errcap, "'%s': expected PATTERN:size=N, N bytes "
                     "from 1 to 2^30", item);
            return -1;
        }
        *sz = '\0';
        if (strchr(item, ':') && !strstr(item, "::")) {
            snprintf(err, errcap, "'%s': size=N goes alone, without other "
                     "actions", item);
            return -1;
        }
        r->kind = CT_FRULE_EXCLUDE;
    }
    char *pat = item;
    int acted = r->below_size ? 0 : strip_actions(r, item, err, errcap);
    if (acted < 0)
        return -1;
    if (acted) {
        /* ":on" and ":off" alone keep their kinds (":on" starts off). */
        r->kind = !strcmp(r->acts_text, ":on")    ? CT_FRULE_ON
                  : !strcmp(r->acts_text, ":off") ? CT_FRULE_OFF
                                                  : CT_FRULE_ACTION;
    } else if (r->below_size) {
        /* the kind is set above */
    } else if (item[0] == '-') {
        r->kind = CT_FRULE_EXCLUDE;
        pat = item + 1;
    } else {
        char *at = strrchr(item, '@');
        if (at && isdigit((unsigned char)at[1])) {
            if (parse_count(at + 1, &r->levels) != 0) {
                snprintf(err, errcap, "'%s': expected PATTERN@N, N from 1 "
                         "to 4096", item);
                return -1;
            }
            *at = '\0';
        }
    }
    if (!strncmp(pat, "re:", 3)) {
        pat += 3;
        r->is_regex = 1;
    }
    if (!*pat) {
        snprintf(err, errcap, "empty pattern");
        return -1;
    }
    if (strlen(pat) >= sizeof r->pattern) {
        snprintf(err, errcap, "pattern '%.32s...' longer than %zu bytes",
                 pat, sizeof r->pattern - 1);
        return -1;
    }
    strcpy(r->pattern, pat);
    if (r->is_regex) {
        int rc = ct_re_compile(&r->re, pat);
        if (rc != 0) {
            char why[128];
            ct_re_error(rc, &r->re, why, sizeof why);
            snprintf(err, errcap, "'re:%s': %s", pat, why);
            return -1;
        }
    }
    if (r->kind == CT_FRULE_INCLUDE || (r->acts & CT_FACT_INCLUDE))
        out->have_include = 1;
    if (r->acts & CT_FACT_START_OFF)
        out->have_on = 1;
    out->have_acts |= r->acts;
    out->nrules++;
    return 0;
}

int ct_fspec_parse(const char *spec, struct ct_fspec *out, char *err,
                   size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (!spec)
        spec = "";
    if (strlen(spec) >= sizeof out->text) {
        snprintf(err, errcap, "longer than %zu bytes", sizeof out->text - 1);
        return -1;
    }
    char item[CT_FILTER_TEXT_MAX];
    const char *p = spec;
    size_t tn = 0;
    while (*p) {
        size_t k = 0;
        for (; *p && *p != ','; p++) {
            if (p[0] == '\\' && p[1] == ',')
                p++;
            item[k++] = *p;
        }
        item[k] = '\0';
        if (*p == ',')
            p++;
        /* Blanks around items are not part of them. */
        char *s = item;
        while (isspace((unsigned char)*s))
            s++;
        size_t n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1]))
            s[--n] = '\0';
        if (!n)
            continue;
        char copy[CT_FILTER_TEXT_MAX];
        strcpy(copy, s);
        if (parse_item(out, s, err, errcap) != 0) {
            ct_fspec_free(out);
            memset(out, 0, sizeof *out);
            return -1;
        }
        /* The normalized text keeps the items as given, "\," escaped. */
        for (const char *c = copy; *c && tn + 3 < sizeof out->text; c++) {
            if (*c == ',')
                out->text[tn++] = '\\';
            out->text[tn++] = *c;
        }
        if (tn + 2 < sizeof out->text)
            out->text[tn++] = ',';
    }
    if (tn)
        tn--;  /* the last comma */
    out->text[tn] = '\0';
    return 0;
}

static int match_one(const struct ct_frule *r, const char *name)
{
    if (r->is_regex)
        return regexec(&r->re, name, 0, NULL, 0) == 0;
    return fnmatch(r->pattern, name, 0) == 0;
}

/* The name without a template function's return type: after the last
 * blank outside <> and (), or NULL. */
static const char *without_return_type(const char *bare)
{
    const char *after = NULL;
    int nest = 0;
    for (const char *c = bare; *c; c++) {
        if (*c == '<' || *c == '(')
            nest++;
        else if ((*c == '>' || *c == ')') && nest > 0)
            nest--;
        else if (*c == ' ' && nest == 0)
            after = c + 1;
    }
    return after && *after ? after : NULL;
}

/* Matches name + mark: a library call's names end in their mark. */
static int match_marked(const struct ct_frule *r, const char *name,
                        const char *mark)
{
    if (!*mark)
        return match_one(r, name);
    char full[600];
    int n = snprintf(full, sizeof full, "%s%s", name, mark);
    return n > 0 && (size_t)n < sizeof full && match_one(r, full);
}

static int match_rule(const struct ct_frule *r, const char *name,
                      const char *demangled, const char *bare,
                      const char *bare_name, const char *mark)
{
    return match_marked(r, name, mark) ||
           (demangled && match_marked(r, demangled, mark)) ||
           (bare && match_marked(r, bare, mark)) ||
           (bare_name && match_marked(r, bare_name, mark));
}

uint32_t ct_fspec_match_marked(const struct ct_fspec *s, const char *name,
                               const char *demangled, const char *mark)
{
    return ct_fspec_match_hits(s, name, demangled, mark, NULL);
}

uint32_t ct_fspec_match_hits(const struct ct_fspec *s, const char *name,
                             const char *demangled, const char *mark,
                             uint64_t *hits)
{
    /* "ns::f(int)" is also matched as "ns::f", and "void f<int>(int)" as
     * "f<int>". */
    char bare[512];
    const char *b = NULL, *bn = NULL;
    if (demangled) {
        const char *paren = strchr(demangled, '(');
        size_t n = paren ? (size_t)(paren - demangled) : 0;
        if (n > 0 && n < sizeof bare) {
            memcpy(bare, demangled, n);
            bare[n] = '\0';
            b = bare;
            bn = without_return_type(bare);
        }
    }
    uint32_t inc = 0, exc = 0, trig = 0;
    for (uint32_t i = 0; i < s->nrules; i++) {
        const struct ct_frule *r = &s->rules[i];
        if (r->below_size ||
            !match_rule(r, name, demangled, b, bn, mark ? mark : ""))
            continue;
        if (hits)
            *hits |= 1ull << i;
        if (ct_frule_is_trigger(r)) {
            trig = i + 1;
            if (r->acts & CT_FACT_INCLUDE)
                inc = i + 1;
        } else if (r->kind == CT_FRULE_EXCLUDE)
            exc = i + 1;
        else
            inc = i + 1;
    }
    return inc | exc << 8 | trig << 16;
}

uint32_t ct_fspec_match(const struct ct_fspec *s, const char *name,
                        const char *demangled)
{
    return ct_fspec_match_marked(s, name, demangled, "");
}

uint32_t ct_fspec_match_size(const struct ct_fspec *s, uint32_t v,
                             const char *name, const char *demangled,
                             uint64_t size, uint64_t *hits)
{
    if (!size || CT_FMATCH_EXCLUDE(v))
        return v;
    uint32_t exc = 0;
    for (uint32_t i = 0; i < s->nrules; i++) {
        const struct ct_frule *r = &s->rules[i];
        if (!r->below_size || size >= r->below_size)
            continue;
        if (r->pattern[0] &&
            !match_rule(r, name, demangled, NULL, NULL, ""))
            continue;
        if (hits)
            *hits |= 1ull << i;
        exc = i + 1;
    }
    return exc ? v | exc << 8 : v;
}

size_t ct_fspec_rule_text(const struct ct_frule *r, char *dst, size_t cap)
{
    if (r->below_size) {
        int n = snprintf(dst, cap, "%s%s%ssize=%llu",
                         r->is_regex ? "re:" : "", r->pattern,
                         r->pattern[0] ? ":" : "",
                         (unsigned long long)r->below_size);
        return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
    }
    char levels[16] = "";
    if (r->levels)
        snprintf(levels, sizeof levels, "@%u", r->levels);
    int n = snprintf(dst, cap, "%s%s%s%s%s",
                     r->kind == CT_FRULE_EXCLUDE ? "-" : "",
                     r->is_regex ? "re:" : "", r->pattern, levels,
                     r->acts_text);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

/* Appends item (already checked) to dst with a separating comma. */
static size_t append(char *dst, size_t cap, size_t n, const char *item)
{
    size_t k = strlen(item);
    if (!k || n + k + 2 > cap)
        return n;
    if (n)
        dst[n++] = ',';
    memcpy(dst + n, item, k + 1);
    return n + k;
}

static void warn_var(void (*warn)(const char *), const char *var,
                     const char *value, const char *why)
{
    char line[512];
    snprintf(line, sizeof line, "calltrace: %s='%.64s%s': %s; tracing "
             "without it", var, value, strlen(value) > 64 ? "..." : "", why);
    warn(line);
}

size_t ct_fspec_from_env(char *dst, size_t cap, ct_fenv_fn get,
                         void (*warn)(const char *line))
{
    static const struct {
        const char *var, *prefix;
    } vars[] = {
        {"CALLTRACE_FILTER", ""},
        {"CALLTRACE_DEPTH", "depth="},
        {"CALLTRACE_MIN_DURATION", "min="},
        {"CALLTRACE_TRIGGER", ""},
    };
    size_t n = 0;
    dst[0] = '\0';
    /* Taken at the first variable set: a process with none, the common
     * case, starts without faulting in the pages of a fresh calloc. */
    struct ct_fspec *tmp = NULL;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = get(vars[i].var);
        if (!v || !*v)
            continue;
        if (!tmp && !(tmp = ct_settings_alloc(sizeof *tmp)))
            return 0;
        char item[CT_FILTER_TEXT_MAX], err[256];
        if (strlen(v) + 8 >= sizeof item) {
            warn_var(warn, vars[i].var, v, "too long");
            continue;
        }
        snprintf(item, sizeof item, "%s%s", vars[i].prefix, v);
        if (ct_fspec_parse(item, tmp, err, sizeof err) != 0) {
            warn_var(warn, vars[i].var, v, err);
            continue;
        }
        /* Each variable takes only its own kind of item. */
        int ok = 1;
        for (uint32_t r = 0; r < tmp->nrules; r++) {
            /* CALLTRACE_FILTER takes the triggers that filter (uftrace's
             * -N as F:notrace, -C as F:caller), not :on and :off. */
            int trig = ct_frule_is_trigger(&tmp->rules[r]);
            int filtering = tmp->rules[r].kind == CT_FRULE_ACTION &&
                            !(tmp->rules[r].acts & (CT_FACT_ON | CT_FACT_OFF));
            if (i == 1 || i == 2 || (i == 0 && trig && !filtering) ||
                (i == 3 && !trig))
                ok = 0;
        }
        if ((i == 0 || i == 3) && (tmp->depth || tmp->min_ns))
            ok = 0;
        if (!ok)
            warn_var(warn, vars[i].var, v, i == 3
                     ? "expected FUNCTION:ACTION items (on, off, trace_on, "
                       "trace_off, notrace, caller, trace, depth=N, time=T, "
                       "finish, backtrace)"
                     : i == 0 ? "expected [-]PATTERN[@N] or PATTERN:ACTION "
                                "items (not :on or :off)"
                     : i == 1 ? "expected a depth from 1 to 4096"
                     : "expected a duration such as 10us");
        else if (n + strlen(tmp->text) + 2 > cap)
            warn_var(warn, vars[i].var, v, "too long");
        else
            n = append(dst, cap, n, tmp->text);
        ct_fspec_free(tmp);
    }
    ct_settings_free(tmp, sizeof *tmp);
    return n;
}
