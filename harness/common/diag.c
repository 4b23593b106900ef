/* One-line errors and the test hooks: see diag.h. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX in <limits.h>, getpid, pause */

#include "diag.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(ERROR_LINE_BYTES >= 3 * PATH_MAX, "an error line holds two paths and a message");

void error_line(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    for (char *c = err; *c; c++) /* one line, whatever the pieces held */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

void test_pause(const char *phase)
{
    const char *want = getenv("OSCBENCH_TEST_PAUSE");
    if (!want || strcmp(want, phase) != 0)
        return;
    fprintf(stderr, "oscbench: paused at %s (pid %ld)\n", phase, (long)getpid());
    fflush(stderr);
    pause();
}

bool test_fail(const char *phase)
{
    const char *want = getenv("OSCBENCH_TEST_FAIL");
    return want && !strcmp(want, phase);
}
