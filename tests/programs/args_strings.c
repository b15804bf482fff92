/* Strings an argument points at, wherever they are, for CALLTRACE_ARGS
 * (tests/e2e/args_strings.sh): a literal (the program's constants, read in
 * place), texts in writable data and .bss (in place too; in .bss of
 * every length from 0 to 64), a copy on the
 * heap (read by the kernel), and texts on the stack at every 8th byte of
 * a 12 KiB buffer, so that some start in the page of the call's stack
 * pointer and end in the next (read in place up to the page's end, then
 * by the kernel).
 * Each text says where it is, so the expected tree follows from the
 * program: lib_len@plt("<text>") = <its length>.
 *   args_strings          prints the texts it passed, one a line */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lib_len(const char *s);

static char in_data[] = "a text in writable data";
static char in_bss[128];
static const char letters[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

__attribute__((noinline)) static void pass(const char *s)
{
    printf("%s %d\n", s, lib_len(s));
}

int main(void)
{
    char stack[12288];
    pass("a literal in the constants");
    char *heap = strdup("a copy on the heap");
    pass(heap);
    free(heap);
    pass(in_data);
    strcpy(in_bss, "a text in .bss");
    pass(in_bss);
    /* every length up to the rule's s64, each byte of a word last */
    for (size_t n = 0; n <= 64; n++) {
        memcpy(in_bss, letters, n);
        in_bss[n] = '\0';
        pass(in_bss);
    }
    memset(stack, 'x', sizeof stack);
    for (size_t off = 0; off + 64 < sizeof stack; off += 8) {
        int n = snprintf(stack + off, 64, "on the stack at %zu", off);
        stack[off + (size_t)n] = '\0';
        pass(stack + off);
    }
    return 0;
}
