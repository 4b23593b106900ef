/* Small file helpers the test programs share (test_files.h). */
#include "test_files.h"

#include <stdio.h>
#include <stdlib.h>

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, fp)) > 0;) {
        n += got;
        if (cap - n < 2) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(fp);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
