#include "whole.h"

#include <errno.h>
#include <stdlib.h>

const char *whole_prefix(const char *s, long lo, long hi, long *n)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno || v < lo || v > hi)
        return NULL;
    *n = v;
    return end;
}

bool whole_in(const char *s, long lo, long hi, long *n)
{
    long v;
    const char *end = whole_prefix(s, lo, hi, &v);
    if (!end || *end)
        return false;
    *n = v;
    return true;
}
