/*
 * The traced program's command line for the file header's `cmdline`
 * (docs/trace-format.md): argv quoted as a shell would, joined by spaces,
 * for `calltrace info`.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "preload/file/cmdline.h"

/* Characters an argument may hold and still need no quotes in a shell. */
static int shell_plain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c && strchr("_@%+=:,./-", c));
}

/* An argument's length once quoted as a shell would: bare when plain,
 * else in '...' with each ' as '\''. */
static size_t shell_len(const char *s, size_t n)
{
    size_t quotes = 0;
    int plain = n > 0;
    for (size_t i = 0; i < n; i++) {
        plain &= shell_plain(s[i]);
        quotes += s[i] == '\'';
    }
    return plain ? n : n + 2 + 3 * quotes;
}

/* Writes the argument src[0..n) quoted, ending just before dst_end,
 * backwards (so that it may overlap src at lower addresses); returns where
 * it starts. */
static char *shell_put_back(char *dst_end, const char *src, size_t n)
{
    size_t q = shell_len(src, n);
    char *d = dst_end;
    if (q == n) {
        while (n)
            *--d = src[--n];
        return d;
    }
    *--d = '\'';
    while (n) {
        char c = src[--n];
        if (c == '\'') {
            *--d = '\'';
            *--d = '\'';
            *--d = '\\';
            *--d = '\'';
        } else {
            *--d = c;
        }
    }
    *--d = '\'';
    return d;
}

/* In place in dst: quoting only lengthens, so it is written from the
 * end. */
void ct_file_cmdline(char *dst, size_t cap)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t got = read(fd, dst, cap - 1);
    close(fd);
    if (got <= 0)
        return;
    size_t n = (size_t)got;
    if (dst[n - 1] != '\0')
        dst[n++] = '\0';  /* cut short: the last argument ends here */
    /* Forward: how many whole arguments fit once quoted. */
    size_t total = 0, used = 0;
    for (size_t at = 0; at < n;) {
        size_t len = strlen(dst + at);
        size_t add = shell_len(dst + at, len) + (at ? 1 : 0);
        if (total + add > cap - 1)
            break;
        total += add;
        at += len + 1;
        used = at;
    }
    /* Backward: each argument to its place, the last first. */
    char *end = dst + total;
    dst[total] = '\0';
    size_t at = used ? used - 1 : 0;  /* the NUL after the last one kept */
    while (used && end > dst) {
        size_t start = at;
        while (start > 0 && dst[start - 1] != '\0')
            start--;
        end = shell_put_back(end, dst + start, at - start);
        if (start == 0)
            break;
        *--end = ' ';
        at = start - 1;
    }
}
