/* ARGS and RETVAL payloads as text (values.h). */
#include "analyzer/model/values.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/model/trace.h"
#include "calltrace_format.h"

struct out {
    char *buf;
    size_t cap, n;
    bool full;
    const struct ct_trace_info *info;  /* names pointers, or NULL */
};

static void put(struct out *o, const char *s, size_t len)
{
    if (o->full)
        return;
    if (o->n + len + 4 > o->cap) { /* room for "...\0" */
        memcpy(o->buf + o->n, "...", 3);
        o->n += 3;
        o->full = true;
        return;
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

static void putf(struct out *o, const char *fmt, uint64_t v)
{
    char tmp[32];
    int k = snprintf(tmp, sizeof tmp, fmt, v);
    put(o, tmp, (size_t)k);
}

/* A string's bytes quoted, C escapes for quotes, backslashes and bytes
 * that are not printable ASCII: \0 (as uftrace shows a NUL char) unless
 * an octal digit follows, which would read as part of it. */
static void quoted(struct out *o, const uint8_t *s, size_t n, char q)
{
    put(o, &q, 1);
    for (size_t i = 0; i < n && !o->full; i++) {
        char esc[8];
        uint8_t c = s[i];
        if (c == '\n')
            put(o, "\\n", 2);
        else if (c == '\t')
            put(o, "\\t", 2);
        else if (c == '\r')
            put(o, "\\r", 2);
        else if (c == 0 && !(i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'))
            put(o, "\\0", 2);
        else if (c == (uint8_t)q || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(o, esc, 2);
        } else if (c < 0x20 || c >= 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            put(o, esc, 4);
        } else {
            put(o, (const char *)&c, 1);
        }
    }
    put(o, &q, 1);
}

/* A pointer at the start of a function, as `&name`; false when the
 * trace cannot name it. */
static bool named(struct out *o, uint64_t v)
{
    char name[256];
    const struct ct_trace_info *info = o->info;
    if (!info || !info->addr_name ||
        !info->addr_name(info->addr_name_ctx, v, name + 1, sizeof name - 1))
        return false;
    name[0] = '&';
    put(o, name, strlen(name));
    return true;
}

/* n bytes of a name from the trace (a struct's, an enum value's), each
 * byte no name has shown as ?. */
static void name_bytes(struct out *o, const uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++, p++)
        put(o, *p > 0x20 && *p < 0x7f ? (const char *)p : "?", 1);
}

/* One value at *pp; false on damage or an unknown tag. */
static bool value(struct out *o, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint64_t v;
    uint8_t tag = *p++;
    switch (tag) {
    case CT_VAL_NULLSTR:
        put(o, "NULL", 4);
        break;
    case CT_VAL_UNAVAIL:
        put(o, "<unavailable>", 13);
        break;
    case CT_VAL_DOUBLE: {
        if (end - p < 8)
            return false;
        double d;
        memcpy(&d, p, 8); /* the tracer writes it little-endian, as here */
        p += 8;
        char tmp[64];
        int k = snprintf(tmp, sizeof tmp, "%f", d);
        put(o, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
        break;
    }
    case CT_VAL_STRUCT: {
        /* as uftrace: the type's name and {...}, {} when it is empty */
        uint64_t size;
        if (ct_get_varint(&p, end, &size) != 0 ||
            ct_get_varint(&p, end, &v) != 0 || v > (uint64_t)(end - p))
            return false;
        name_bytes(o, p, v);
        p += v;
        put(o, size ? "{...}" : "{}", size ? 5 : 2);
        break;
    }
    case CT_VAL_ENUM: {
        /* its name in its enum, else the number */
        uint64_t n;
        if (ct_get_varint(&p, end, &v) != 0 ||
            ct_get_varint(&p, end, &n) != 0 || n > (uint64_t)(end - p))
            return false;
        if (!n)
            putf(o, "%" PRId64, (uint64_t)ct_unzigzag(v));
        name_bytes(o, p, n);
        p += n;
        break;
    }
    case CT_VAL_STR:
    case CT_VAL_STR_CUT:
        if (ct_get_varint(&p, end, &v) != 0 || v > (uint64_t)(end - p))
            return false;
        quoted(o, p, (size_t)v, '"');
        p += v;
        if (tag == CT_VAL_STR_CUT)
            put(o, "...", 3);
        break;
    default:
        if (tag > CT_VAL_OCT || ct_get_varint(&p, end, &v) != 0)
            return false;
        if (tag == CT_VAL_SIGNED) {
            putf(o, "%" PRId64, (uint64_t)ct_unzigzag(v));
        } else if (tag == CT_VAL_UNSIGNED) {
            putf(o, "%" PRIu64, v);
        } else if (tag == CT_VAL_CHAR) {
            uint8_t c = (uint8_t)ct_unzigzag(v);
            quoted(o, &c, 1, '\'');
        } else if (tag == CT_VAL_OCT) {
            putf(o, "%#" PRIo64, v);
        } else if (tag == CT_VAL_BADPTR) {
            putf(o, "<bad pointer %#" PRIx64 ">", v);
        } else if (v == 0 && tag == CT_VAL_PTR) {
            put(o, "0", 1);
        } else if (tag == CT_VAL_PTR && named(o, v)) {
            /* &name, written by named() */
        } else {
            putf(o, "%#" PRIx64, v);
        }
    }
    *pp = p;
    return true;
}

size_t ct_values_text(const uint8_t *p, size_t len, char *out, size_t cap)
{
    return ct_values_text_of(NULL, p, len, out, cap);
}

size_t ct_values_text_of(const struct ct_trace_info *info, const uint8_t *p,
                         size_t len, char *out, size_t cap)
{
    if (cap > CT_VALUES_TEXT_MAX)
        cap = CT_VALUES_TEXT_MAX;
    struct out o = {out, cap, 0, cap < 8, info};
    const uint8_t *end = p + len;
    for (bool first = true; p < end && !o.full; first = false) {
        if (!first)
            put(&o, ", ", 2);
        if (!value(&o, &p, end)) {
            put(&o, "?", 1);
            break;
        }
    }
    if (cap)
        out[o.n < cap ? o.n : cap - 1] = '\0';
    return o.n < cap ? o.n : (cap ? cap - 1 : 0);
}
