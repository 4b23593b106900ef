/* One fuzz input as a config and the files it may include: the bytes up to the first line
 * FUZZ_FILE_SEPARATOR are the config, written as DIR/fuzz.yaml; the next up to FUZZ_FILES pieces
 * are DIR/a.yaml, DIR/b.yaml, DIR/c.yaml (a piece the input lacks is no file, so an include of it
 * is a missing file). DIR also holds the directory DIR/d. An input without the separator is the
 * config alone, as before the split. Used by the fuzz target and by tests/test_fuzz_regress.c.
 *
 * DIR is $TMPDIR/oscbench-fuzz-PID-XXXXXX, and its maker holds an flock on it while it lives:
 * the kernel drops the lock when the process ends, crashed or killed too, so a directory of that
 * name whose lock is free is one a dead process left (fuzz_dir_sweep removes those). */
#ifndef OSCBENCH_FUZZ_FILES_H
#define OSCBENCH_FUZZ_FILES_H

#include <stddef.h>

#define FUZZ_FILE_SEPARATOR "\n#@file\n"
#define FUZZ_FILES 3

typedef struct fuzz_dir {
    char dir[256];       /* the temporary directory, from mkdtemp */
    char config[300];    /* DIR/fuzz.yaml, the path the config is loaded as */
    int lock;            /* DIR open, with an exclusive flock on it */
} fuzz_dir;

/* mkdtemp under $TMPDIR (else /tmp), locked, then its directory d; 0, or -1 with errno. */
int fuzz_dir_make(fuzz_dir *d);

/* Removes the directories under $TMPDIR (else /tmp) that a fuzz_dir_make of a process now dead
 * left: named oscbench-fuzz-PID-XXXXXX, a directory (not a link) of this user, its lock free,
 * holding d (empty) and nothing but the pieces' files. Anything else is left as it is. Returns
 * how many it removed. */
size_t fuzz_dir_sweep(void);

/* Whether the input holds the separator (else it is a config alone). */
int fuzz_input_is_split(const char *data, size_t size);

/* Writes the pieces of data into d's files (removing those of a previous input that this one
 * lacks); sets *config_len to the config's bytes, data's first. 0, or -1 with errno. */
int fuzz_dir_write(const fuzz_dir *d, const char *data, size_t size, size_t *config_len);

/* Beyond config_check_outcome: every "FILE:LINE" of err (the leading file, and that of "(included
 * from FILE:LINE:COL)") that is one of d's pieces names a line the piece has (or the one past
 * its end, where a parser reports an unexpected end): an error inside an included file must
 * name that file, and its place, not the config's. NULL, or what is broken. */
const char *fuzz_check_places(const fuzz_dir *d, const char *data, size_t size, const char *err);

/* Removes the files, d, and the directory, then drops the lock. */
void fuzz_dir_remove(const fuzz_dir *d);

#endif
