/*
 * calltrace pack [-l LEVEL] [-o OUT] [RECORDING...]: traces rewritten with
 * their call records compressed (zstd), each in place or into OUT; every
 * view reads them as before (analyzer/readers/calltrace_pack.c).
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/readers/calltrace_pack.h"
#include "frontend/frontend.h"

static void usage(FILE *f)
{
    fputs(
"Usage: calltrace pack [OPTION]... [RECORDING]...\n"
"Compress the call records of traces (zstd), in place: every view reads\n"
"them as before.  A RECORDING is a trace or a folder of traces (one per\n"
"process); default calltrace.raw.\n"
"\n"
"  -l, --level=N   zstd's level, 1 (fastest) to 19 (smallest); default 3\n"
"  -o, --output=F  write the packed trace to F (one trace only) instead\n"
"                  of replacing it\n"
"  -q, --quiet     say nothing when all went well\n"
"  -h, --help      show this help\n"
"\n"
"Each trace is written to a new file renamed over the old one only when\n"
"whole: a failure leaves it as it was.  A flight recorder's ring is not\n"
"packed.  Exit status: 0, 1 bad usage, 2 a trace not packed.\n", f);
}

static int pack_one(const char *in, const char *out, int level, bool quiet)
{
    struct ctr_pack_stats st;
    char err[512];
    if (ctr_pack_file(in, out, level, &st, err, sizeof err) != 0) {
        ct_fe_error("%s", err);
        return -1;
    }
    if (!quiet)
        printf("%s: %llu -> %llu bytes (%.1fx), %llu blocks packed\n",
               out ? out : in, (unsigned long long)st.bytes_in,
               (unsigned long long)st.bytes_out,
               st.bytes_out ? (double)st.bytes_in / (double)st.bytes_out : 0,
               (unsigned long long)st.packed);
    return 0;
}

/* A folder: each trace in it (calltrace-PID.raw). */
static int pack_folder(const char *dir, int level, bool quiet)
{
    DIR *d = opendir(dir);
    if (!d) {
        ct_fe_error("%s: %m", dir);
        return -1;
    }
    int status = 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ct_fe_is_trace_name(e->d_name))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            return -1;
        n++;
        if (pack_one(p, NULL, level, quiet) != 0)
            status = -1;
        free(p);
    }
    closedir(d);
    if (n == 0) {
        ct_fe_error("%s: no traces in this folder (calltrace-*.raw)", dir);
        return -1;
    }
    return status;
}

int ct_fe_pack(int argc, char **argv)
{
    static const struct option longs[] = {
        {"level", required_argument, NULL, 'l'},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int level = CTR_PACK_LEVEL, c;
    const char *out = NULL;
    bool quiet = false;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+l:o:qh", longs, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'l':
            level = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || level < 1 || level > 19)
                ct_fe_usage_error("pack", "--level: '%s' is not 1 to 19",
                                  optarg);
            break;
        case 'o':
            out = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            if (optopt)
                ct_fe_usage_error("pack", "option '-%c' is unknown or needs "
                                  "a value", optopt);
            ct_fe_usage_error("pack", "unknown option '%s'",
                              argv[optind - 1]);
        }
    }
    char *deflt[] = {CT_FE_DEFAULT_TRACE};
    char **paths = optind < argc ? argv + optind : deflt;
    int n = optind < argc ? argc - optind : 1;
    int status = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            ct_fe_error("%s: %m", paths[i]);
            status = CT_FE_FAILED;
            continue;
        }
        if (S_ISDIR(st.st_mode) && out)
            ct_fe_usage_error("pack", "--output takes one trace, and %s is "
                              "a folder", paths[i]);
        if (out && n > 1)
            ct_fe_usage_error("pack", "--output takes one trace, not %d", n);
        int rc = S_ISDIR(st.st_mode) ? pack_folder(paths[i], level, quiet)
                                     : pack_one(paths[i], out, level, quiet);
        if (rc != 0)
            status = CT_FE_FAILED;
    }
    return status;
}
