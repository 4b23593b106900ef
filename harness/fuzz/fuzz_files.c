/* A fuzz input as a config and the files it may include (see fuzz_files.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "fuzz_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void path_in(const fuzz_dir *d, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", d->dir, name);
}

int fuzz_dir_make(fuzz_dir *d)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    int n = snprintf(d->dir, sizeof d->dir, "%s/oscbench-fuzz-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= sizeof d->dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!mkdtemp(d->dir))
        return -1;
    path_in(d, piece_names[0], d->config, sizeof d->config);
    char sub[sizeof d->config];
    path_in(d, "d", sub, sizeof sub);
    return mkdir(sub, 0700);
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
    size_t sep = sizeof FUZZ_FILE_SEPARATOR - 1, at = 0;
    char path[sizeof d->config];
    *config_len = separator_at(data, size);
    for (size_t i = 0; i <= FUZZ_FILES; i++) {
        path_in(d, piece_names[i], path, sizeof path);
        if (at > size) { /* no such piece: no such file */
            if (unlink(path) != 0 && errno != ENOENT)
                return -1;
            continue;
        }
        size_t len = i < FUZZ_FILES ? separator_at(data + at, size - at) : size - at;
        if (write_file(path, data + at, len) != 0)
            return -1;
        at += len + sep;
    }
    return 0;
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
}
