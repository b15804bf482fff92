/* ct_has_control: the eight-bytes-at-a-time test for binary bytes in a
 * text line must agree with a byte-by-byte one at every position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer/readers/textscan.h"

static bool slow(const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return true;
    }
    return false;
}

static void every_byte_every_place(void **state)
{
    (void)state;
    char line[40];
    for (int c = 0; c < 256; c++)
        for (size_t len = 1; len <= 24; len++)
            for (size_t at = 0; at < len; at++) {
                /* neighbours that trouble borrow and carry tricks */
                memset(line, c & 1 ? 0xff : 'a', len);
                line[at] = (char)c;
                assert_int_equal(ct_has_control(line, line + len),
                                 slow(line, len));
            }
    const char *t = "plain text\twith a tab";
    assert_false(ct_has_control(t, t + strlen(t)));
    const char *u = "caf\xc3\xa9 \xe2\x82\xac ok";  /* UTF-8 is text */
    assert_false(ct_has_control(u, u + strlen(u)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_every_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
