/* Small file helpers the test programs share. */
#ifndef OSCBENCH_TEST_FILES_H
#define OSCBENCH_TEST_FILES_H

#include <stddef.h>

/* The whole file, NUL-terminated (its own NULs kept; *len, if not NULL, is its length), or NULL
 * if it cannot be read or memory runs out. free() it. */
char *slurp(const char *path, size_t *len);

#endif
