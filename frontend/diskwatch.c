/*
 * The early warning of calltrace record that the disk will fill: while the
 * program runs, the bytes the staged traces take (allocated blocks,
 * st_blocks: the tracer preallocates whole blocks, so the file size runs
 * ahead of the disk use) are compared with the free space of their file
 * system.  Once at least MIN_SPAN seconds of growth have been seen and, at
 * the rate over that span, the free space lasts less than HORIZON
 * seconds, one line says so, with the ways out.  Never for a program that
 * ends sooner, a slow trace, or traces that a limit keeps small enough.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "frontend/frontend.h"

#define MIN_SPAN 1.0      /* seconds of growth seen before judging      */
#define HORIZON 600.0     /* warn when the disk fills sooner than this  */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bytes the traces in dir take on disk, and how many there are. */
static uint64_t staged_bytes(const char *dir, unsigned *ntraces)
{
    uint64_t sum = 0;
    *ntraces = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        sum += (uint64_t)st.st_blocks * 512;
        *ntraces += ct_fe_is_trace_name(e->d_name);
    }
    closedir(d);
    return sum;
}

/* The mount point of path's file system: the last folder up the path on
 * the same device. */
static void mount_point(const char *path, char *out, size_t cap)
{
    char *cur = realpath(path, NULL);
    struct stat st, up;
    if (!cur || stat(cur, &st) != 0) {
        snprintf(out, cap, "%s", path);
        free(cur);
        return;
    }
    for (;;) {
        char *slash = strrchr(cur, '/');
        if (!slash || slash == cur) {
            if (stat("/", &up) == 0 && up.st_dev == st.st_dev)
                cur[1] = '\0';
            break;
        }
        *slash = '\0';
        bool same = stat(cur, &up) == 0 && up.st_dev == st.st_dev;
        *slash = '/';
        if (!same)
            break;
        *slash = '\0';
    }
    snprintf(out, cap, "%s", cur);
    free(cur);
}

/* "120 MB/s", "3.2 GB": decimal units, as df -H and disk vendors say. */
static void human(char *dst, size_t cap, double v)
{
    static const char *const unit[] = { "bytes", "kB", "MB", "GB", "TB" };
    unsigned u = 0;
    while (v >= 1000 && u < 4)
        v /= 1000, u++;
    snprintf(dst, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void human_time(char *dst, size_t cap, double s)
{
    if (s < 90)
        snprintf(dst, cap, "%.0f s", s < 1 ? 1 : s);
    else
        snprintf(dst, cap, "%.0f min", s / 60);
}

void ct_fe_diskwatch_init(struct ct_fe_diskwatch *w, const char *staging,
                          uint64_t cap, uint64_t block)
{
    memset(w, 0, sizeof *w);
    w->staging = staging;
    w->cap = cap;
    w->block = block;
    w->min_free = UINT64_MAX;
    mount_point(staging, w->fs, sizeof w->fs);
}

bool ct_fe_diskwatch_full(const struct ct_fe_diskwatch *w)
{
    return w->min_free < w->block;
}

/* Whether growth is bounded within what is free: each trace kept to cap
 * (--limit, --flight) by the tracer. */
static bool bounded(const struct ct_fe_diskwatch *w, uint64_t used,
                    unsigned ntraces, uint64_t free_b)
{
    return w->cap && (uint64_t)ntraces * w->cap <= used + free_b;
}

#define WAYS_OUT "To record less: --pack stores the records compressed " \
    "as they come (a sixth to a ninth), --limit=SIZE (CALLTRACE_LIMIT) " \
    "caps each trace, --flight=SIZE keeps only the newest part, " \
    "--filter, --depth or --min-duration keep only some calls; or -o " \
    "puts the trace on a larger file system"

static void warn(const struct ct_fe_diskwatch *w, double rate,
                 uint64_t free_b)
{
    char r[32], f[32], t[32];
    human(r, sizeof r, rate);
    human(f, sizeof f, (double)free_b);
    if (free_b < w->block) {
        /* Already full before the rate was known. */
        ct_fe_error("the trace filled the file system %s (%s free): later "
                    "events are counted lost.  " WAYS_OUT, w->fs, f);
        return;
    }
    human_time(t, sizeof t, (double)free_b / rate);
    ct_fe_error("at %s/s the trace fills the %s free on %s in about %s; "
                "past that, events are counted lost.  " WAYS_OUT, r, f,
                w->fs, t);
}

/* The free space now, kept as the least seen; false when unknown. */
static bool look_free(struct ct_fe_diskwatch *w, uint64_t *free_b)
{
    struct statvfs vfs;
    if (statvfs(w->staging, &vfs) != 0)
        return false;
    *free_b = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    if (*free_b < w->min_free)
        w->min_free = *free_b;
    return true;
}

void ct_fe_diskwatch_end(struct ct_fe_diskwatch *w)
{
    uint64_t free_b;
    look_free(w, &free_b);
}

void ct_fe_diskwatch_tick(struct ct_fe_diskwatch *w)
{
    uint64_t free_b;
    if (!look_free(w, &free_b))
        return;
    unsigned ntraces;
    uint64_t used = staged_bytes(w->staging, &ntraces);
    double t = now_s();
    if (!w->seen) {
        /* The first look that finds a trace starts the span. */
        if (used) {
            w->seen = true;
            w->t0 = t;
            w->used0 = used;
        }
        return;
    }
    double span = t - w->t0;
    if (w->told || w->quiet || span < MIN_SPAN || used <= w->used0 ||
        bounded(w, used, ntraces, free_b))
        return;
    /* Growth of at least a hundredth of what is free: a trace that
     * small says little of the rate, and never fills the disk soon. */
    if (used - w->used0 < free_b / 100)
        return;
    double rate = (double)(used - w->used0) / span;
    if ((double)free_b / rate < HORIZON) {
        warn(w, rate, free_b);
        w->told = true;
    }
}

void ct_fe_diskwatch_tick_cb(void *arg)
{
    ct_fe_diskwatch_tick(arg);
}
