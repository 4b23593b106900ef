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
 * temporary is synced and before it is renamed (see test_pause). */
#ifndef OSCBENCH_COMMIT_H
#define OSCBENCH_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct file_commit file_commit;

/* 0 if final_path is absent, a regular file or a symlink (all of which a rename replaces safely);
 * -1 with one line in err if it is a directory (or a symlink to one: "is a directory, expected a
 * file name"), device, FIFO or socket, which a results file must never replace. commit_open
 * checks it too. */
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

/* Room for any one error line of the harness: up to two paths of PATH_MAX bytes (the -o path is
 * held below it, its checkpoint directory adds ".ckpt", a config that opened is shorter) and
 * what is wrong with them, which a long path must never cut off. A number, not PATH_MAX itself,
 * which <limits.h> defines only under POSIX feature macros an includer may not set (commit.c
 * checks it against PATH_MAX). */
#define ERROR_LINE_BYTES (3 * 4096)

/* Formats one line of error into err (newlines become spaces); err may be NULL. */
void error_line(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* If OSCBENCH_TEST_PAUSE names this phase ("stepping", "write", "rename"), say so on stderr
 * ("oscbench: paused at PHASE (pid N)": under mpirun, N names the rank's own process) and wait
 * for a signal: lets tests kill a run at a known point without timing it. */
void test_pause(const char *phase);

/* Whether OSCBENCH_TEST_FAIL names this phase ("write": this process's share of the parallel
 * /points write fails after it has taken part in every collective call): lets tests make one
 * rank of an MPI run fail, by giving only that rank the variable. */
bool test_fail(const char *phase);

#endif
