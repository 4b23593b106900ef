/* A fuzz input as a config and the files it may include (see fuzz_files.h). */
#define _DEFAULT_SOURCE /* flock */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, openat, fdopendir */
#include "fuzz_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_PREFIX "oscbench-fuzz-"

static const char *const piece_names[1 + FUZZ_FILES] = {"fuzz.yaml", "a.yaml", "b.yaml",
                                                         "c.yaml"};

/* The offset of the first separator in data[0, size), or size. */
static size_t separator_at(const char *data, size_t size)
{
    size_t n = sizeof FUZZ_FILE_SEPARATOR - 1;
    for (size_t i = 0; i + n <= size; i++)
        if (data[i] == '\n' && memcmp(data + i, FUZZ_FILE_SEPARATOR, n) == 0)
            return i;
    return size;
}

int fuzz_input_is_split(const char *data, size_t size)
{
    return separator_at(data, size) < size;
}

/* Piece i of data (0 the config, then the files in piece_names' order: each up to the next
 * separator, the last to data's end): 0 if data has no such piece, else 1 with its bytes at
 * [*offset, *offset + *len). The files written and the lines judged both come from here. */
static int piece_at(const char *data, size_t size, int i, size_t *offset, size_t *len)
{
    size_t at = 0;
    for (int k = 0; at <= size; k++) {
        size_t n = k < FUZZ_FILES ? separator_at(data + at, size - at) : size - at;
        if (k == i) {
            *offset = at;
            *len = n;
            return 1;
        }
        at += n + sizeof FUZZ_FILE_SEPARATOR - 1;
    }
    return 0;
}

static void path_in(const fuzz_dir *d, const char *name, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", d->dir, name);
    if (n < 0 || (size_t)n >= cap)
        out[0] = '\0';
}

static const char *tmp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

int fuzz_dir_make(fuzz_dir *d)
{
    d->lock = -1;
    int n = snprintf(d->dir, sizeof d->dir, "%s/" DIR_PREFIX "%ld-XXXXXX", tmp_root(),
                     (long)getpid());
    if (n < 0 || (size_t)n >= sizeof d->dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(d->dir))
        return -1;
    path_in(d, piece_names[0], d->config, sizeof d->config);
    char sub[sizeof d->config];
    path_in(d, "d", sub, sizeof sub);
    /* locked before d exists: a sweep takes no directory without d, so never one being made */
    d->lock = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->lock >= 0 && flock(d->lock, LOCK_EX) == 0 && mkdir(sub, 0700) == 0)
        return 0;
    int e = errno;
    if (d->lock >= 0)
        close(d->lock);
    rmdir(d->dir);
    errno = e;
    return -1;
}

static int write_file(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = len && fwrite(bytes, 1, len, f) != len;
    return fclose(f) != 0 || bad ? -1 : 0;
}

int fuzz_dir_write(const fuzz_dir *d, const char *data, size_t size, size_t *config_len)
{
    char path[sizeof d->config];
    size_t at, len;
    piece_at(data, size, 0, &at, config_len); /* every input has a config, if empty */
    for (int i = 0; i <= FUZZ_FILES; i++) {
        path_in(d, piece_names[i], path, sizeof path);
        if (!piece_at(data, size, i, &at, &len)) { /* no such piece: no such file */
            if (unlink(path) != 0 && errno != ENOENT)
                return -1;
        } else if (write_file(path, data + at, len) != 0)
            return -1;
    }
    return 0;
}

/* The lines the piece `name` of data can have, or 0 if data has no such piece: an upper bound,
 * as YAML breaks lines at \n, \r, \r\n and the UTF-8 NEL, LS and PS (bytes 0x85, 0xe2 ...). */
static long piece_lines(const char *data, size_t size, const char *name)
{
    int i = 0;
    while (i <= FUZZ_FILES && strcmp(name, piece_names[i]) != 0)
        i++;
    size_t at, len;
    if (i > FUZZ_FILES || !piece_at(data, size, i, &at, &len))
        return 0;
    const unsigned char *p = (const unsigned char *)data + at;
    if (len >= 2 && (p[0] | p[1]) == 0xff)
        return LONG_MAX - 1; /* a UTF-16 BOM: its breaks are not these bytes */
    long lines = 1;
    for (size_t j = 0; j < len; j++)
        lines += p[j] == '\n' || p[j] == '\r' || p[j] == 0x85 || p[j] == 0xe2;
    return lines;
}

/* The place "DIR/NAME:LINE" at s (s just past "DIR/"): whether LINE is one NAME's piece has. */
static bool place_exists(const char *s, const char *data, size_t size)
{
    size_t name_len = strcspn(s, ":\n");
    char name[16];
    if (s[name_len] != ':' || name_len >= sizeof name)
        return true; /* no line given, or not a piece */
    memcpy(name, s, name_len);
    name[name_len] = '\0';
    long lines = piece_lines(data, size, name);
    char *end;
    long line = strtol(s + name_len + 1, &end, 10);
    return lines == 0 || end == s + name_len + 1 || *end != ':' || (line >= 1 && line <= lines + 1);
}

const char *fuzz_check_places(const fuzz_dir *d, const char *data, size_t size, const char *err)
{
    size_t dir_len = strlen(d->dir);
    const char *mark = " (included from ";
    for (const char *line = err; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *from = strstr(line, mark), *eol = line + strcspn(line, "\n");
        if (strncmp(line, d->dir, dir_len) == 0 && line[dir_len] == '/' &&
            !place_exists(line + dir_len + 1, data, size))
            return "an error's FILE:LINE is a line of FILE";
        from = from && from < eol ? from + strlen(mark) : NULL;
        if (from && strncmp(from, d->dir, dir_len) == 0 && from[dir_len] == '/' &&
            !place_exists(from + dir_len + 1, data, size))
            return "an include's (included from FILE:LINE:COL) is a line of FILE";
    }
    return NULL;
}

void fuzz_dir_remove(const fuzz_dir *d)
{
    char path[sizeof d->config];
    for (size_t i = 0; i <= FUZZ_FILES; i++) {
        path_in(d, piece_names[i], path, sizeof path);
        unlink(path);
    }
    path_in(d, "d", path, sizeof path);
    rmdir(path);
    rmdir(d->dir);
    close(d->lock);
}

/* A name fuzz_dir_make gives: the prefix, a pid, '-' and mkdtemp's six letters or digits. */
static bool is_fuzz_dir_name(const char *name)
{
    if (strncmp(name, DIR_PREFIX, strlen(DIR_PREFIX)) != 0)
        return false;
    const char *pid = name + strlen(DIR_PREFIX);
    size_t digits = strspn(pid, "0123456789");
    const char *tail = pid + digits + 1;
    return digits >= 1 && pid[digits] == '-' && strlen(tail) == 6 &&
           strspn(tail, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 6;
}

/* Whether the directory open at fd holds d and nothing else but the pieces' files. */
static bool holds_only_pieces(int fd)
{
    int copy = dup(fd); /* closedir closes it; fd and its lock stay */
    DIR *dir = copy >= 0 ? fdopendir(copy) : NULL;
    if (!dir) {
        if (copy >= 0)
            close(copy);
        return false;
    }
    bool has_d = false, only_pieces = true;
    for (struct dirent *e; only_pieces && (e = readdir(dir));) {
        const char *name = e->d_name;
        bool piece = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
        if (strcmp(name, "d") == 0)
            piece = has_d = true;
        for (size_t i = 0; i <= FUZZ_FILES; i++)
            piece |= strcmp(name, piece_names[i]) == 0;
        only_pieces = piece;
    }
    closedir(dir);
    return has_d && only_pieces;
}

/* The directory `name` of the directory open at parent, removed if a dead maker left it: 1 if
 * it was, else 0. Its lock, taken here, proves the maker gone (a live one holds it); d is
 * removed first, so a d that is not empty leaves all of it. */
static size_t sweep_one(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    bool stale = fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
                 flock(fd, LOCK_EX | LOCK_NB) == 0 && holds_only_pieces(fd) &&
                 unlinkat(fd, "d", AT_REMOVEDIR) == 0;
    if (stale) {
        for (size_t i = 0; i <= FUZZ_FILES; i++)
            unlinkat(fd, piece_names[i], 0);
        stale = unlinkat(parent, name, AT_REMOVEDIR) == 0;
    }
    close(fd);
    return stale;
}

size_t fuzz_dir_sweep(void)
{
    DIR *dir = opendir(tmp_root());
    if (!dir)
        return 0;
    size_t removed = 0;
    for (struct dirent *e; (e = readdir(dir));)
        if (is_fuzz_dir_name(e->d_name))
            removed += sweep_one(dirfd(dir), e->d_name);
    closedir(dir);
    return removed;
}
