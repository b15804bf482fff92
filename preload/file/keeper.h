/*
 * The file keeper (keeper.c): the one holder of the trace file's
 * descriptor.  It is a process of the tracer's own, cloned with CLONE_VM
 * but not CLONE_FILES or CLONE_FS, so its descriptor table, root and
 * working directory are its own: no dup2, close, chroot or chdir of the
 * program's can change which file a descriptor number of the tracer names.
 * It creates the file, grows it and maps it into the shared address space
 * on request.  Every call is safe from any thread, from a signal handler
 * and from the block supplier's process (raw system calls only), and
 * returns 0 or a positive errno value.
 */
#ifndef CT_KEEPER_H
#define CT_KEEPER_H

#include <errno.h>
#include <stdint.h>

/* The file's name was taken by the program or moved away: the file kept
 * open has no name left (ENOENT), or it is shorter than the tracer made it
 * (ESTALE: truncated by someone else). */
#define CT_KEEPER_REMOVED ENOENT
#define CT_KEEPER_TRUNCATED ESTALE
/* The trace was closed (ct_keeper_stop): nothing more is written. */
#define CT_KEEPER_CLOSED ESHUTDOWN

/* Creates name (O_EXCL, resolved from the working directory at the
 * keeper's start) and keeps it open; its device and inode numbers out. */
int ct_keeper_create(const char *name, uint64_t *dev, uint64_t *ino);
/* Makes [off, off + len) part of the file (disk space included) and maps
 * it shared, read-write; the address in *p. */
int ct_keeper_map(uint64_t off, uint64_t len, void **p);
/* Makes [off, off + len) part of the file and writes buf there. */
int ct_keeper_write(const void *buf, uint64_t off, uint64_t len);
/* Copies the whole file to a new file name (O_EXCL), then writes the len
 * bytes of patch at patch_off of the copy. */
int ct_keeper_copy(const char *name, const void *patch, uint64_t patch_off,
                   uint32_t patch_len);
/* The process execs: the keeper closes the file and ends; the caller
 * waits (bounded) until it has, so the old image's keeper does not live on
 * beside the new one.  Later requests fail with CT_KEEPER_CLOSED until
 * ct_keeper_resume (an exec that failed): the next keeper opens the file
 * by its absolute name in its own descriptor table and checks it is still
 * the same. */
void ct_keeper_stop(void);
/* The process exits: the keeper still serves the exit path (destructors)
 * and ends, closing the file, within a few ms of the process. */
void ct_keeper_closing(void);
/* The exec failed: the next request may start a keeper again. */
void ct_keeper_resume(void);
/* A forked child forgets its parent's keeper. */
void ct_keeper_after_fork_child(void);

#endif /* CT_KEEPER_H */
