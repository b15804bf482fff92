/*
 * The progress bar on stderr (progress.h): bytes read of the input and
 * the time left, shown only on a terminal and only once a read has taken
 * a while (CT_PROGRESS_AFTER_MS for tests), erased when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/progress.h"

static struct {
    bool on, drawn;
    const char *path;
    uint64_t total, done;
    double start, last_draw, after;
} pg;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void ct_progress_start(const char *path, uint64_t total, bool enabled)
{
    memset(&pg, 0, sizeof pg);
    pg.on = enabled && total > 0 && isatty(STDERR_FILENO);
    if (!pg.on)
        return;
    const char *after = getenv("CT_PROGRESS_AFTER_MS");
    pg.after = after && *after ? atof(after) / 1000 : 1.0;
    const char *slash = strrchr(path, '/');
    pg.path = slash && slash[1] ? slash + 1 : path;
    pg.total = total;
    pg.start = now();
}

static void human(char *dst, size_t cap, uint64_t bytes)
{
    if (bytes >= 10ull << 30)
        snprintf(dst, cap, "%.1f GiB", bytes / 1073741824.0);
    else if (bytes >= 10u << 20)
        snprintf(dst, cap, "%.0f MiB", bytes / 1048576.0);
    else
        snprintf(dst, cap, "%.1f MiB", bytes / 1048576.0);
}

static void draw(double t)
{
    double frac = pg.done >= pg.total ? 1.0 : (double)pg.done / pg.total;
    enum { WIDTH = 24 };
    char bar[WIDTH + 1];
    int full = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < full ? '#' : '.';
    bar[WIDTH] = 0;
    char done[32], total[32], left[48] = "";
    human(done, sizeof done, pg.done);
    human(total, sizeof total, pg.total);
    double elapsed = t - pg.start;
    if (frac > 0.01) {
        double rest = elapsed * (1 - frac) / frac;
        if (rest >= 60)
            snprintf(left, sizeof left, ", about %.0f min left", rest / 60);
        else
            snprintf(left, sizeof left, ", about %.0f s left", rest + 0.5);
    }
    /* \r and erase-line: one line, redrawn in place. */
    fprintf(stderr, "\r\033[Kreading %.40s [%s] %3.0f%% %s of %s%s", pg.path,
            bar, frac * 100, done, total, left);
    fflush(stderr);
    pg.drawn = true;
    pg.last_draw = t;
}

void ct_progress_advance(uint64_t bytes)
{
    if (!pg.on)
        return;
    pg.done += bytes;
    double t = now();
    if (t - pg.start >= pg.after && t - pg.last_draw >= 0.1)
        draw(t);
}

void ct_progress_end(void)
{
    if (pg.on && pg.drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pg.on = false;
}
