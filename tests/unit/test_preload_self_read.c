/* The read that cannot fault (base/self_read.h): the process's own bytes
 * by its id or by 0 (asked of the kernel), a range cut short where its
 * next page is not mapped, EFAULT where nothing is, and an id that is no
 * longer any process's (a reaped child's), which falls back on the id the
 * kernel gives rather than failing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload/base/self_read.h"

static char text[] = "bytes of the process's own";

static void own_bytes_by_either_id(void **state)
{
    (void)state;
    char got[sizeof text];
    memset(got, 0, sizeof got);
    assert_int_equal(ct_self_read((uint32_t)getpid(), got, (uintptr_t)text,
                                  sizeof text),
                     sizeof text);
    assert_string_equal(got, text);
    memset(got, 0, sizeof got);
    assert_int_equal(ct_self_read(0, got, (uintptr_t)text, sizeof text),
                     sizeof text);
    assert_string_equal(got, text);
}

/* Two pages, the second unmapped: a read across the end gives the bytes
 * before it; one inside the hole gives EFAULT. */
static void cut_at_an_unmapped_page(void **state)
{
    (void)state;
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(munmap(m + 4096, 4096), 0);
    memcpy(m + 4096 - 4, "abcd", 4);
    char got[16];
    assert_int_equal(ct_self_read((uint32_t)getpid(), got,
                                  (uintptr_t)(m + 4096 - 4), sizeof got),
                     4);
    assert_memory_equal(got, "abcd", 4);
    errno = 0;
    assert_int_equal(ct_self_read((uint32_t)getpid(), got,
                                  (uintptr_t)(m + 4096), 8),
                     -1);
    assert_int_equal(errno, EFAULT);
    munmap(m, 4096);
}

/* A child's id once it is reaped names no process (ESRCH): the read is
 * made again by the process's own id and succeeds. */
static void a_stale_id_falls_back(void **state)
{
    (void)state;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child);
    char got[sizeof text];
    memset(got, 0, sizeof got);
    assert_int_equal(ct_self_read((uint32_t)child, got, (uintptr_t)text,
                                  sizeof text),
                     sizeof text);
    assert_string_equal(got, text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_bytes_by_either_id),
        cmocka_unit_test(cut_at_an_unmapped_page),
        cmocka_unit_test(a_stale_id_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
