/* A file that appears complete or not at all: written to an exclusive, locked temporary beside
 * its final name, then fsynced, renamed into place and the directory fsynced. Knows nothing of
 * the file's format: the HDF5 results writer (h5out.c) writes through it, and so can any other
 * output that must survive a crash (checkpoints).
 *
 * Usage:
 *     commit_cleanup_stale(path);              // temporaries left by a killed run
 *     commit_open(&c, path, err, sizeof err);  // then write to commit_fd(c) or commit_tmp_path(c)
 *     commit_finish(c, err, sizeof err);       // or commit_abort(c)
 *
 * A test can stop a run at the rename: with OSCBENCH_TEST_PAUSE=rename in the environment,
 * commit_finish prints "oscbench: paused at rename" to stderr and waits for a signal after the
 * temporary is synced and before it is renamed (see diag.h). */
#ifndef OSCBENCH_COMMIT_H
#define OSCBENCH_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h" /* error_line, ERROR_LINE_BYTES, test_pause */

typedef struct file_commit file_commit;

/* 0 if final_path is absent, a regular file or a symlink (all of which a rename replaces safely);
 * -1 with one line in err if it is a directory (or a symlink to one: "is a directory, expected a
 * file name"), device, FIFO or socket, which a results file must never replace, or if its last
 * component is empty, "." or ".." (a directory by its form, existing or not: "names a directory,
 * expected a file name"). commit_open checks it too. */
int commit_check_target(const char *final_path, char *err, size_t errlen);

/* Refuses a final_path that commit_check_target refuses. Then creates "<dir>/.<base>.tmp.XXXXXX" with mkstemp (O_CREAT|O_EXCL, so never through a planted
 * symlink) in final_path's directory, mode 0666 & ~umask, and holds an open-file-description
 * lock on it until commit_finish or commit_abort (so commit_cleanup_stale of a concurrent run
 * leaves it alone). Until then SIGINT, SIGTERM and SIGHUP (unless ignored) remove the temporary
 * before the process dies of them. On failure *out is NULL and err holds one line naming final_path. */
int commit_open(file_commit **out, const char *final_path, char *err, size_t errlen);

/* The temporary: its descriptor (open, locked) and path; and the final path. */
int commit_fd(const file_commit *c);
const char *commit_tmp_path(const file_commit *c);
const char *commit_final_path(const file_commit *c);

/* fsyncs the temporary, renames it to final_path (replacing a file there atomically) and fsyncs
 * the directory. On failure the temporary is removed and final_path left as it was; err holds
 * one line. Frees c either way. */
int commit_finish(file_commit *c, char *err, size_t errlen);

/* Removes the temporary (while still holding its lock) and frees c. NULL is allowed. */
void commit_abort(file_commit *c);

/* fsync of the directory `dir` (a rename or creation in it is then durable); 0 or -1 (errno). */
int commit_sync_dir(const char *dir);

/* Removes ".<base>.tmp.XXXXXX" files in final_path's directory that a killed run left: only
 * regular files owned by this user (never following a symlink) that no live process holds
 * locked. Returns the number removed, or -1 if the directory cannot be read. */
int commit_cleanup_stale(const char *final_path);

#endif
