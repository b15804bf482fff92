/* Escaping for JSON and XML output (textesc.h). */
#include <stdint.h>
#include <string.h>

#include "analyzer/util.h"

#include "analyzer/writers/textesc.h"

#define REPLACEMENT "\xef\xbf\xbd"  /* U+FFFD in UTF-8 */

size_t ct_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t min, cp;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2, min = 0x80, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, min = 0x800, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* overlong forms, UTF-16 surrogates and beyond U+10FFFF */
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

/* How one output format writes text. */
struct escapes {
    const char *ascii[0x80]; /* an ASCII byte's replacement; NULL: itself */
    int json_controls;       /* the other bytes under 0x20 as \u00XX;
                                0: as U+FFFD                              */
    int no_fffe;             /* U+FFFE and U+FFFF are not characters      */
};

static const struct escapes json = {
    .ascii = {['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n",
              ['\r'] = "\\r", ['\t'] = "\\t", ['\b'] = "\\b",
              ['\f'] = "\\f"},
    .json_controls = 1,
};

static const struct escapes xml = {
    .ascii = {['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
              ['"'] = "&quot;", ['\''] = "&#39;", ['\n'] = "\n",
              ['\t'] = "\t", ['\r'] = "\r"},
    .no_fffe = 1,
};

static void put_text(FILE *out, const char *str, size_t n,
                     const struct escapes *e)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c >= 0x80) {
            size_t len = ct_utf8_len(s + i, n - i);
            if (e->no_fffe && len == 3 && c == 0xef && s[i + 1] == 0xbf &&
                s[i + 2] >= 0xbe)
                len = 0, i += 2;
            if (len)
                fwrite(s + i, 1, len, out);
            else
                fputs(REPLACEMENT, out);
            i += len ? len : 1;
            continue;
        }
        i++;
        if (e->ascii[c])
            fputs(e->ascii[c], out);
        else if (c >= 0x20)
            putc((int)c, out);
        else if (e->json_controls)
            fprintf(out, "\\u%04x", c);
        else
            fputs(REPLACEMENT, out);
    }
}

void ct_json_string(FILE *out, const char *str, size_t n)
{
    putc('"', out);
    put_text(out, str, n, &json);
    putc('"', out);
}

void ct_xml_text(FILE *out, const char *str, size_t n)
{
    put_text(out, str, n, &xml);
}

char *ct_utf8_clean(const char *str, size_t n, size_t *len)
{
    const unsigned char *s = (const unsigned char *)str;
    char *out = ct_xmalloc(3 * n + 1);   /* each byte at most U+FFFD */
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t l = s[i] < 0x80 ? 1 : ct_utf8_len(s + i, n - i);
        if (l) {
            memcpy(out + o, s + i, l);
            o += l;
            i += l;
        } else {
            memcpy(out + o, REPLACEMENT, 3);
            o += 3;
            i++;
        }
    }
    out[o] = 0;
    *len = o;
    return out;
}
