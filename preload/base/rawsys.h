/*
 * System calls without libc, for code that runs in a process sharing the
 * program's memory (the stream's sender, the block supplier): libc's
 * wrappers write errno, which would be the errno of the program's thread
 * that started the process.  Returns the kernel's result (-errno on
 * failure).
 */
#ifndef CT_RAWSYS_H
#define CT_RAWSYS_H

static inline long ct_rsys(long n, long a, long b, long c, long d, long e,
                           long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                       "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

#endif /* CT_RAWSYS_H */
