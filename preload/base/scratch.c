/* Memory of the tracer's own, outside the program's heap (scratch.h). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "calltrace_format.h"
#include "preload/base/rawsys.h"
#include "preload/base/scratch.h"
#include "settings/alloc.h"

#define PAGE 4096u
#define KEEP_CHUNK (64u << 10)

static size_t page_round(size_t bytes)
{
    return ct_align_up(bytes, PAGE);
}

void *ct_scratch_alloc(size_t bytes)
{
    if (bytes == 0 || bytes > SIZE_MAX / 2)
        return NULL;
    long p = ct_rsys(SYS_mmap, 0, (long)page_round(bytes),
                     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                     0);
    return p < 0 && p > -4096 ? NULL : (void *)p;
}

void ct_scratch_free(void *p, size_t bytes)
{
    if (p)
        ct_rsys(SYS_munmap, (long)p, (long)page_round(bytes), 0, 0, 0, 0);
}

/* The settings' parsers take the tracer's memory (settings/alloc.h). */
void *ct_settings_alloc(size_t bytes)
{
    return ct_scratch_alloc(bytes);
}

void ct_settings_free(void *p, size_t bytes)
{
    ct_scratch_free(p, bytes);
}

/* Strings kept for good: bumped out of chunks that are never unmapped. */
static struct {
    int lock;
    char *next, *end;
} keep;

const char *ct_scratch_keep(const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    char *copy = NULL;
    while (__atomic_exchange_n(&keep.lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
    if ((size_t)(keep.end - keep.next) < len) {
        size_t chunk = len > KEEP_CHUNK ? page_round(len) : KEEP_CHUNK;
        char *c = ct_scratch_alloc(chunk);
        if (c) {
            keep.next = c;
            keep.end = c + chunk;
        }
    }
    if ((size_t)(keep.end - keep.next) >= len) {
        copy = keep.next;
        keep.next += len;
        memcpy(copy, s, len);
    }
    __atomic_store_n(&keep.lock, 0, __ATOMIC_RELEASE);
    return copy;
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    while (size--) {
        unsigned char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

static void sift_down(unsigned char *base, size_t root, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n &&
            cmp(base + child * size, base + (child + 1) * size) < 0)
            child++;
        if (cmp(base + root * size, base + child * size) >= 0)
            return;
        swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

/* Heapsort: O(n log n) at worst, no memory of its own. */
void ct_sort(void *base, size_t n, size_t size,
             int (*cmp)(const void *, const void *))
{
    unsigned char *b = base;
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap_bytes(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}
