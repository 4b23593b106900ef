/* Crash-safe file commit: see commit.h. */
/* _GNU_SOURCE for F_OFD_SETLK/F_OFD_GETLK: open-file-description locks, which (unlike classic
 * POSIX locks) are not dropped when another library closes its own descriptor of the same file. */
#define _GNU_SOURCE

#include "commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_INFIX ".tmp."
#define TMP_SUFFIX_LEN 6 /* mkstemp's XXXXXX */

struct file_commit {
    int fd; /* the temporary, held open (and locked) until finish or abort */
    char *final_path, *tmp_path, *dir_path;
};

/* Splits path into its directory ("." if none) and base name; -1 if there is no base. */
static int split_path(const char *path, char **dir, char **base)
{
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    if (!*b || !strcmp(b, ".") || !strcmp(b, ".."))
        return -1;
    size_t dirlen = slash ? (size_t)(slash - path) : 1;
    if (slash && dirlen == 0)
        dirlen = 1; /* "/x.h5": the root directory */
    *dir = malloc(dirlen + 1);
    *base = strdup(b);
    if (!*dir || !*base) {
        free(*dir);
        free(*base);
        return -1;
    }
    memcpy(*dir, slash ? path : ".", dirlen);
    (*dir)[dirlen] = '\0';
    return 0;
}

/* A live run's lock covers one byte far beyond any data the file will hold, not the whole
 * file: MPI-IO (ROMIO) takes blocking fcntl locks on the ranges it writes, which a whole-file
 * lock held by the rank that made the temporary would block forever. The stale test's read
 * lock over the whole file still meets it. */
#define LOCK_SENTINEL ((off_t)1 << 62)

/* A lock owned by this open file description, over [start, start + len) (len 0: to the end of
 * the file): released when it is closed, by us or by the kernel when the process dies. */
static int lock_fd(int fd, short type, int cmd, off_t start, off_t len)
{
    struct flock lk = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
    return fcntl(fd, cmd, &lk);
}

/* The temporary an interrupt (Ctrl-C, kill, a closed terminal) would leave behind: removed by the
 * handler, which then dies of the signal as it would have. One per process: a run writes one
 * file at a time. SIGKILL cannot be caught: commit_cleanup_stale is for that. */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_set;
static const int interrupts[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_pending(int sig)
{
    if (pending_set)
        unlink(pending_tmp); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_interrupts(const char *tmp)
{
    if (strlen(tmp) >= sizeof pending_tmp)
        return;
    strcpy(pending_tmp, tmp);
    pending_set = 1;
    struct sigaction sa = {.sa_handler = remove_pending};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof interrupts / sizeof *interrupts; i++) {
        struct sigaction old;
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(interrupts[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(interrupts[i], &sa, NULL);
    }
}

static void unwatch_interrupts(void) { pending_set = 0; }

int commit_check_target(const char *final_path, char *err, size_t errlen)
{
    /* "out/", "x/." and "x/..": a directory by their form, even where nothing exists yet (else
     * run -o would make "out" and only then find it a directory) */
    const char *slash = strrchr(final_path, '/'), *base = slash ? slash + 1 : final_path;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        error_line(err, errlen, "%s: names a directory, expected a file name", final_path);
        return -1;
    }
    struct stat st, target;
    if (lstat(final_path, &st) < 0 || S_ISREG(st.st_mode))
        return 0; /* absent, or a file to replace */
    /* A link the rename replaces (not its target), unless it names a directory: whoever gave
     * it meant the directory, not a file in place of the link. */
    bool link_to_dir = S_ISLNK(st.st_mode) && stat(final_path, &target) == 0 &&
                       S_ISDIR(target.st_mode);
    if (S_ISLNK(st.st_mode) && !link_to_dir)
        return 0;
    if (S_ISDIR(st.st_mode) || link_to_dir)
        error_line(err, errlen, "%s: is a directory, expected a file name", final_path);
    else
        error_line(err, errlen, "%s: is not a regular file (a device, FIFO or socket): not "
                                "replaced", final_path);
    return -1;
}

static void free_commit(file_commit *c)
{
    free(c->final_path);
    free(c->tmp_path);
    free(c->dir_path);
    free(c);
}

static int make_temporary(file_commit *c, const char *base, char *err, size_t errlen)
{
    size_t len = strlen(c->dir_path) + strlen(base) + sizeof "/." TMP_INFIX "XXXXXX";
    c->tmp_path = malloc(len);
    if (!c->tmp_path) {
        error_line(err, errlen, "%s: out of memory", c->final_path);
        return -1;
    }
    snprintf(c->tmp_path, len, "%s/.%s" TMP_INFIX "XXXXXX", c->dir_path, base);
    c->fd = mkstemp(c->tmp_path);
    if (c->fd < 0) {
        error_line(err, errlen, "%s: cannot create a temporary file in %s: %s", c->final_path,
                   c->dir_path, strerror(errno));
        return -1;
    }
    mode_t mask = umask(0); /* mkstemp made it 0600; give it the mode a plain create would */
    umask(mask);
    if (fchmod(c->fd, 0666 & ~mask) < 0 ||
        lock_fd(c->fd, F_WRLCK, F_OFD_SETLK, LOCK_SENTINEL, 1) < 0) {
        error_line(err, errlen, "%s: cannot prepare %s: %s", c->final_path, c->tmp_path,
                   strerror(errno));
        return -1;
    }
    watch_interrupts(c->tmp_path);
    return 0;
}

int commit_open(file_commit **out, const char *final_path, char *err, size_t errlen)
{
    *out = NULL;
    if (!final_path) {
        error_line(err, errlen, "no output path");
        return -1;
    }
    file_commit *c = calloc(1, sizeof *c);
    if (!c || !(c->final_path = strdup(final_path))) {
        error_line(err, errlen, "%s: out of memory", final_path);
        free(c);
        return -1;
    }
    c->fd = -1;
    char *base = NULL;
    if (commit_check_target(final_path, err, errlen)) {
        free_commit(c);
        return -1;
    }
    if (split_path(final_path, &c->dir_path, &base)) { /* a file name: checked just above */
        error_line(err, errlen, "%s: out of memory", final_path);
        free_commit(c);
        return -1;
    }
    int rc = make_temporary(c, base, err, errlen);
    free(base);
    if (rc) {
        commit_abort(c);
        return -1;
    }
    *out = c;
    return 0;
}

int commit_fd(const file_commit *c) { return c->fd; }
const char *commit_tmp_path(const file_commit *c) { return c->tmp_path; }
const char *commit_final_path(const file_commit *c) { return c->final_path; }

void commit_abort(file_commit *c)
{
    if (!c)
        return;
    if (c->fd >= 0) {
        unlink(c->tmp_path); /* while still locked: cleanup of another run cannot race us */
        close(c->fd);
        unwatch_interrupts();
    }
    free_commit(c);
}

int commit_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int commit_finish(file_commit *c, char *err, size_t errlen)
{
    const char *failed = NULL;
    int e = 0;
    if (fsync(c->fd) < 0) {
        failed = "cannot sync the temporary", e = errno;
    } else {
        test_pause("rename");
        if (rename(c->tmp_path, c->final_path) < 0)
            failed = "cannot rename the temporary into place", e = errno;
        else
            unwatch_interrupts(); /* the file is in place: nothing to remove any more */
    }
    if (failed) {
        error_line(err, errlen, "%s: %s: %s", c->final_path, failed, strerror(e));
        commit_abort(c);
        return -1;
    }
    int rc = 0;
    if (commit_sync_dir(c->dir_path) < 0) {
        error_line(err, errlen, "%s: written, but syncing directory %s failed: %s",
                   c->final_path, c->dir_path, strerror(errno));
        rc = -1;
    }
    close(c->fd);
    free_commit(c);
    return rc;
}

/* ---- stale temporaries -------------------------------------------------------------------- */

/* ".<base>.tmp.XXXXXX", exactly as make_temporary names them. */
static bool is_our_temporary(const char *entry, const char *base)
{
    size_t blen = strlen(base), ilen = strlen(TMP_INFIX);
    return entry[0] == '.' && !strncmp(entry + 1, base, blen) &&
           !strncmp(entry + 1 + blen, TMP_INFIX, ilen) &&
           strlen(entry + 1 + blen + ilen) == TMP_SUFFIX_LEN;
}

/* Removes one candidate if it is a regular file of ours that no live run holds locked: a live
 * run holds a write lock, so our read lock fails. The name is checked before opening (no device
 * or FIFO is ever opened) and after (it must still name the file we checked). */
static bool remove_if_stale(int dirfd, const char *name)
{
    struct stat before, opened, after;
    if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(before.st_mode) ||
        before.st_uid != geteuid())
        return false;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool stale = fstat(fd, &opened) == 0 && opened.st_ino == before.st_ino &&
                 opened.st_dev == before.st_dev && lock_fd(fd, F_RDLCK, F_OFD_SETLK, 0, 0) == 0 &&
                 fstatat(dirfd, name, &after, AT_SYMLINK_NOFOLLOW) == 0 &&
                 after.st_ino == before.st_ino && after.st_dev == before.st_dev;
    bool removed = stale && unlinkat(dirfd, name, 0) == 0;
    close(fd);
    return removed;
}

int commit_cleanup_stale(const char *final_path)
{
    char *dir, *base;
    if (!final_path || split_path(final_path, &dir, &base))
        return -1;
    DIR *d = opendir(dir);
    int removed = d ? 0 : -1;
    for (struct dirent *e; d && (e = readdir(d));)
        if (is_our_temporary(e->d_name, base) && remove_if_stale(dirfd(d), e->d_name))
            removed++;
    if (d)
        closedir(d);
    free(dir);
    free(base);
    return removed;
}
