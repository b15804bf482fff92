/*
 * calltrace report / tree / dump / info / export: calltrace-report on a
 * recording.
 * A single trace is handed to the analyzer as it is (exec, so its output
 * and status are the analyzer's); a folder of per-process traces is
 * reported one section per process, or as one profile with --merge.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend/frontend.h"

static void usage(const char *verb, const char *analyzer)
{
    if (strcmp(verb, "diff") == 0)
        ct_fe_diff_usage();
    else
        printf(
"Usage: calltrace %s%s [OPTION]... [FILE]\n"
"Run calltrace-report%s on FILE (default calltrace.raw).  FILE may be a\n"
"recording of several processes (a folder with one trace each): the report\n"
"then has one section per process, each under a line\n"
"'==== Process PID: PROGRAM (TRACE) ====', in the order they started.\n"
"\n"
"      --merge     one report for all the processes of a folder: their\n"
"                  events on one time line, each process's threads\n"
"                  numbered after the previous one's\n"
"  -h, --help      show this help and the analyzer's options\n"
"  -V, --version   show the version and exit\n"
"\n"
"The analyzer's options, which calltrace passes on:\n\n",
           verb, strcmp(verb, "export") == 0 ? " FORMAT" : "",
           strcmp(verb, "tree") == 0 ? " --tree"
           : strcmp(verb, "dump") == 0 ? " --dump"
           : strcmp(verb, "info") == 0 ? " --info"
           : strcmp(verb, "export") == 0 ? " --export=FORMAT" : "");
    fflush(stdout);
    if (analyzer) {
        char *argv[] = { (char *)analyzer, "--help", NULL };
        ct_fe_run_tool(argv);
    }
}

/* ------------------------------------------------------------------- */
/* Which of the analyzer's options take a value in the next word: those
 * its --help shows as "--name=VALUE" (and "-x, --name=VALUE"), so that new
 * options need no change here. */
struct valopts {
    char **names;
    size_t n;
};

static void valopts_add(struct valopts *v, const char *s, size_t len)
{
    char **grown = realloc(v->names, (v->n + 1) * sizeof *v->names);
    if (!grown)
        return;
    v->names = grown;
    v->names[v->n++] = strndup(s, len);
}

static void valopts_load(struct valopts *v, const char *analyzer)
{
    memset(v, 0, sizeof *v);
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]), close(fd[1]);
        execl(analyzer, analyzer, "--help", (char *)NULL);
        _exit(126);
    }
    close(fd[1]);
    FILE *f = pid > 0 ? fdopen(fd[0], "r") : NULL;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ')
            p++;
        if (p[0] != '-')
            continue;
        const char *short_opt = NULL;
        if (p[1] != '-' && isalnum((unsigned char)p[1]) && p[2] == ',') {
            short_opt = p;
            p += 3;
            while (*p == ' ')
                p++;
        }
        if (p[0] != '-' || p[1] != '-')
            continue;
        size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (p[2 + len] != '=')
            continue;
        valopts_add(v, p, 2 + len);
        if (short_opt)
            valopts_add(v, short_opt, 2);
    }
    if (f)
        fclose(f);
    else
        close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static bool takes_value(const struct valopts *v, const char *arg)
{
    if (strchr(arg, '='))
        return false;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->names[i], arg) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------- */
struct request {
    const char *analyzer;
    char **args;          /* analyzer options, NULL-ended               */
    size_t nargs;
    const char *file;     /* the recording                              */
    bool merge;
    bool output;          /* -o given: one output for the whole report  */
    bool exporting;
    bool diffing;         /* calltrace diff: OLD [NEW]                  */
};

static void push(struct request *r, const char *arg)
{
    r->args[r->nargs++] = (char *)arg;
    r->args[r->nargs] = NULL;
}

static char *diff_option(char *old)
{
    char *o;
    if (!old || asprintf(&o, "--diff=%s", old) < 0)
        exit(CT_FE_FAILED);
    free(old);
    return o;
}

static void parse(struct request *r, int argc, char **argv, const char *verb,
                  const char *extra)
{
    struct valopts v;
    valopts_load(&v, r->analyzer);
    r->args = calloc((size_t)argc + 8, sizeof *r->args);
    push(r, r->analyzer);
    int i = 1;
    if (extra && strcmp(extra, "--export") == 0) {
        if (argc < 2 || argv[1][0] == '-') {
            if (argc >= 2 && (!strcmp(argv[1], "-h") ||
                              !strcmp(argv[1], "--help"))) {
                usage(verb, r->analyzer);
                exit(0);
            }
            ct_fe_usage_error(verb, "no FORMAT named (the formats are in "
                              "'calltrace-report --help')");
        }
        char *e;
        if (asprintf(&e, "--export=%s", argv[1]) < 0)
            exit(CT_FE_FAILED);
        push(r, e);
        r->exporting = true;
        i = 2;
    } else if (extra) {
        push(r, extra);
    }
    const char *file = NULL, *old = NULL;
    bool options_done = false;
    r->diffing = strcmp(verb, "diff") == 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || a[1] == 0) {
            if (file && r->diffing && !old) {
                old = file;
                file = a;
                continue;
            }
            if (file && r->diffing)
                ct_fe_usage_error(verb, "two recordings at most, OLD and "
                                  "NEW ('%s' is a third)", a);
            if (file)
                ct_fe_usage_error(verb, "only one recording at a time ('%s' "
                                  "and '%s')", file, a);
            file = a;
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--merge") == 0) {
            r->merge = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(verb, r->analyzer);
            exit(0);
        } else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            ct_fe_version();
        } else {
            if (!strcmp(a, "-o") || !strncmp(a, "--output", 8) ||
                (!strncmp(a, "-o", 2) && a[2]))
                r->output = true;
            if (!strncmp(a, "--diff=", 7))
                a = diff_option(ct_fe_diff_base(a + 7, verb));
            push(r, a);
            if (takes_value(&v, a)) {
                if (i + 1 >= argc)
                    ct_fe_usage_error(verb, "option '%s' wants a value", a);
                i++;
                push(r, strcmp(a, "--diff") ? argv[i]
                                            : ct_fe_diff_base(argv[i], verb));
            }
        }
    }
    if (r->diffing) {
        /* one name is OLD; none: the recording record kept, and the last */
        if (file && !old)
            old = file, file = NULL;
        if (!old && access(CT_FE_DEFAULT_TRACE ".old", F_OK) != 0)
            ct_fe_usage_error(verb, "no %s.old to compare with: name OLD, "
                              "or record again (record keeps the previous "
                              "recording as %s.old)", CT_FE_DEFAULT_TRACE,
                              CT_FE_DEFAULT_TRACE);
        push(r, diff_option(ct_fe_diff_base(
                    old ? old : CT_FE_DEFAULT_TRACE ".old", verb)));
    }
    r->file = file ? file : CT_FE_DEFAULT_TRACE;
    for (size_t k = 0; k < v.n; k++)
        free(v.names[k]);
    free(v.names);
}

/* One section per process, in start order; the worst status wins. */
static int sections(struct request *r, const struct ct_fe_recording *rec,
                    const char *verb)
{
    if (r->output || r->exporting || r->diffing)
        ct_fe_usage_error(verb, "%s holds %zu processes: %s", r->file,
                          rec->n, r->diffing ? "compare one process's trace "
                                               "(FOLDER/calltrace-PID.raw)"
                                             : "one output file needs "
                                               "--merge");
    int worst = 0;
    size_t base = r->nargs;
    bool *keep = ct_fe_tid_pick(r->args, rec);
    bool first = true;
    for (size_t i = 0; i < rec->n; i++) {
        const struct ct_fe_trace *t = &rec->traces[i];
        if (keep && !keep[i])
            continue; /* --tid names no thread of it */
        printf("%s==== Process %llu: %s (%s) ====\n", first ? "" : "\n",
               (unsigned long long)t->stats.pid,
               t->stats.program[0] ? t->stats.program : "?", t->path);
        fflush(stdout);
        r->nargs = base;
        push(r, "--");
        push(r, t->path);
        first = false;
        int st = ct_fe_run_tool(r->args);
        if (st < 0 || st > worst)
            worst = st < 0 ? CT_FE_FAILED : st;
    }
    free(keep);
    return worst;
}

static int merged(struct request *r, const struct ct_fe_recording *rec)
{
    const char *tmp = getenv("TMPDIR");
    char *tdir;
    if (asprintf(&tdir, "%s/calltrace-merge-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp") < 0 || !mkdtemp(tdir)) {
        ct_fe_error("cannot create a temporary folder: %m");
        return CT_FE_FAILED;
    }
    const char *base = strrchr(r->file, '/');
    base = base && base[1] ? base + 1 : r->file;
    char *path;
    if (asprintf(&path, "%s/%s.merged", tdir, base) < 0)
        return CT_FE_FAILED;
    int st = CT_FE_FAILED;
    if (ct_fe_merge(rec, r->analyzer, path) == 0) {
        push(r, "--format=openlaszlo");
        push(r, "--");
        push(r, path);
        st = ct_fe_run_tool(r->args);
        if (st < 0)
            st = CT_FE_FAILED;
    }
    unlink(path);
    rmdir(tdir);
    free(path);
    free(tdir);
    return st;
}

int ct_fe_report(int argc, char **argv, const char *verb, const char *extra)
{
    struct request r = { .analyzer = ct_fe_find_analyzer() };
    if (!r.analyzer) {
        for (int i = 1; i < argc; i++)
            if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
                usage(verb, NULL);
                return 0;
            }
        return CT_FE_FAILED;
    }
    parse(&r, argc, argv, verb, extra);
    struct stat st;
    if (stat(r.file, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct ct_fe_recording rec;
        if (ct_fe_recording_open(&rec, r.file) != 0)
            return CT_FE_FAILED;
        if (strcmp(verb, "info") == 0 && !r.merge) {
            printf("recording:     %s, %zu process%s\n", r.file, rec.n,
                   rec.n == 1 ? "" : "es");
            fflush(stdout);
        }
        int status = r.merge ? merged(&r, &rec)
                   : rec.n == 1 ? (push(&r, "--"), push(&r, rec.traces[0].path),
                                   ct_fe_run_tool(r.args))
                   : sections(&r, &rec, verb);
        ct_fe_recording_free(&rec);
        return status < 0 ? CT_FE_FAILED : status;
    }
    /* A file (or a missing one, which the analyzer names): the analyzer's
     * output and exit status are the report's. */
    push(&r, "--");
    push(&r, r.file);
    fflush(stdout);
    int status = ct_fe_run_tool(r.args);
    return status < 0 ? CT_FE_FAILED : status;
}
