/*
 * The staging folder of calltrace record: where the traces are written
 * while the program runs, out of the program's sight.  Beside the output
 * when the output is not in the working directory; otherwise under
 * $TMPDIR (default /tmp), since a program that lists or archives its
 * working directory (ls -A, tar c .) must not find the tracer's files
 * there.  At the end the recording is renamed into place, or copied when
 * the staging folder is on another file system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"

/* The file in the staging folder that names the output, for calltrace
 * control (a dot name: never taken for a trace). */
#define OUTPUT_NOTE ".output"

static bool same_dir(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

char *ct_fe_stage_create(const char *parent, const char *output)
{
    const char *base = parent;
    if (same_dir(parent, ".")) {
        const char *tmp = getenv("TMPDIR");
        base = tmp && *tmp == '/' ? tmp : "/tmp";
    }
    char *staging;
    if (asprintf(&staging, "%s/.calltrace-record-XXXXXX", base) < 0)
        return NULL;
    if (!mkdtemp(staging)) {
        ct_fe_error("cannot create a folder in %s: %m", base);
        free(staging);
        return NULL;
    }
    /* The output's absolute path, so that control's answers can name
     * where a trace will be once the run ends. */
    char *note;
    if (asprintf(&note, "%s/" OUTPUT_NOTE, staging) >= 0) {
        FILE *f = fopen(note, "we");
        if (f) {
            /* parent is the output's folder, made absolute. */
            const char *slash = strrchr(output, '/');
            fprintf(f, "%s/%s\n", strcmp(parent, "/") ? parent : "",
                    slash ? slash + 1 : output);
            fclose(f);
        }
        free(note);
    }
    return staging;
}

void ct_fe_stage_unnote(const char *staging)
{
    char *note;
    if (asprintf(&note, "%s/" OUTPUT_NOTE, staging) >= 0) {
        unlink(note);
        free(note);
    }
}

char *ct_fe_stage_output(const char *staging)
{
    char *note, line[4096];
    if (asprintf(&note, "%s/" OUTPUT_NOTE, staging) < 0)
        return NULL;
    FILE *f = fopen(note, "re");
    free(note);
    if (!f)
        return NULL;
    char *r = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        r = strdup(line);
    }
    fclose(f);
    return r;
}

/* Copies a regular file's bytes; 0 or -1 (errno set). */
static int copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (out < 0) {
        close(in);
        return -1;
    }
    static char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t w, done = 0; done < n; done += w) {
            w = write(out, buf + done, (size_t)(n - done));
            if (w < 0) {
                rc = -1;
                break;
            }
        }
        if (rc)
            break;
    }
    if (n < 0)
        rc = -1;
    int err = errno;
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = -1, err = errno;
    if (rc)
        unlink(to);
    errno = err;
    return rc;
}

/* Copies a folder of files (one level) into a fresh folder `to`. */
static int copy_dir(const char *from, const char *to, mode_t mode)
{
    if (mkdir(to, mode) != 0)
        return -1;
    DIR *d = opendir(from);
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *a, *b;
        struct stat st;
        if (asprintf(&a, "%s/%s", from, e->d_name) < 0)
            break;
        if (asprintf(&b, "%s/%s", to, e->d_name) < 0) {
            free(a);
            break;
        }
        if (lstat(a, &st) == 0 && S_ISREG(st.st_mode))
            rc = copy_file(a, b, st.st_mode & 07777);
        free(a);
        free(b);
    }
    int err = errno;
    closedir(d);
    errno = err;
    return rc;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", path, e->d_name) >= 0) {
            unlink(p);
            free(p);
        }
    }
    closedir(d);
    rmdir(path);
}

int ct_fe_stage_move(const char *from, const char *to)
{
    if (rename(from, to) == 0)
        return 0;
    if (errno != EXDEV)
        return -1;
    /* Another file system: a copy beside `to`, renamed into place, so
     * that `to` is whole or absent. */
    char *tmp;
    if (asprintf(&tmp, "%s.part-%ld", to, (long)getpid()) < 0)
        return -1;
    struct stat st;
    int rc = lstat(from, &st);
    if (rc == 0)
        rc = S_ISDIR(st.st_mode) ? copy_dir(from, tmp, st.st_mode & 07777)
                                 : copy_file(from, tmp, st.st_mode & 07777);
    if (rc == 0)
        rc = rename(tmp, to);
    int err = errno;
    if (rc == 0)
        remove_tree(from);
    else
        remove_tree(tmp);
    free(tmp);
    errno = err;
    return rc;
}
