/*
 * Names and messages written into JSON strings and XML text.  Input is
 * bytes (C++ names, users' messages): well-formed UTF-8 passes through,
 * each byte that does not start a well-formed sequence becomes U+FFFD, so
 * the output is always valid UTF-8 that JSON and XML parsers accept.
 */
#ifndef CT_TEXTESC_H
#define CT_TEXTESC_H

#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), 0 if none. */
size_t ct_utf8_len(const unsigned char *s, size_t n);

/* The JSON string literal of s[0..n), quotes included, escaped exactly:
 * '"', '\\' and control characters escaped, nothing else. */
void ct_json_string(FILE *out, const char *s, size_t n);

/* s[0..n) as XML character data or attribute value: & < > " ' escaped;
 * control characters XML 1.0 forbids become U+FFFD. */
void ct_xml_text(FILE *out, const char *s, size_t n);

/* s[0..n) as well-formed UTF-8 (malloc'ed, NUL-terminated; *len set):
 * the bytes that JSON and XML would replace become U+FFFD here too. */
char *ct_utf8_clean(const char *s, size_t n, size_t *len);

#endif /* CT_TEXTESC_H */
