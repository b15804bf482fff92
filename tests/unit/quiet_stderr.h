/*
 * quiet_stderr.h: quiet_stderr(true) sends standard error to /dev/null,
 * quiet_stderr(false) brings it back, for tests that feed a reader
 * thousands of damaged inputs it would each report.  CT_TEST_VERBOSE=1
 * keeps it.  Header-only.
 */
#ifndef CT_QUIET_STDERR_H
#define CT_QUIET_STDERR_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void quiet_stderr(bool quiet)
{
    if (getenv("CT_TEST_VERBOSE"))
        return;
    static int saved = -1;
    fflush(stderr);
    if (quiet && saved < 0) {
        saved = dup(2);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        close(null);
    } else if (!quiet && saved >= 0) {
        dup2(saved, 2);
        close(saved);
        saved = -1;
    }
}

#endif /* CT_QUIET_STDERR_H */
