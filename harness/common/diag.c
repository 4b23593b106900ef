/* One-line errors and the test hooks: see diag.h. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX in <limits.h>, getpid, pthread_sigmask */
#define _DEFAULT_SOURCE /* syscall */

#include "diag.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(ERROR_LINE_BYTES >= 3 * PATH_MAX, "an error line holds two paths and a message");

/* The bytes of the printable UTF-8 character that starts at s, 0 if none starts there: not
 * a C1 control (U+0080 to U+009F), an overlong form, a surrogate, beyond U+10FFFF or cut. */
static size_t printable_utf8(const unsigned char *s)
{
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++) /* stops at the NUL, which is no continuation byte */
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (!n || (s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xe0 && s[1] < 0xa0) ||
        (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* The bytes of the character that starts at c if shown_text keeps it; 0 if it makes it '?',
 * and at the NUL. */
static size_t kept_char(const unsigned char *c)
{
    return *c >= 0x80 ? printable_utf8(c) : *c >= 0x20 && *c != 0x7f;
}

size_t shown_span(const char *s)
{
    const unsigned char *c = (const unsigned char *)s;
    for (size_t n; (n = kept_char(c)) > 0;)
        c += n;
    return (size_t)((const char *)c - s);
}

char *shown_text(char *s)
{
    for (char *c = s; *(c += shown_span(c));)
        *c++ = '?';
    return s;
}

void error_line(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    shown_text(err); /* one line, whatever the pieces held */
}

/* fmt's output as shown_text shows it, and a newline if asked, written with one fputs: on the
 * unbuffered stderr that is one write, so that lines of ranks failing at once (run_mpi.c) do not
 * interleave. */
static void put_shown(FILE *out, bool newline, const char *fmt, va_list ap)
{
    char small[1024], *text = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small - 1, fmt, ap); /* room for the newline */
    if (n < 0)
        small[0] = '\0';
    else if ((size_t)n >= sizeof small - 1 && (text = malloc((size_t)n + 2)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!text)
        text = small; /* out of memory: its start */
    size_t len = strlen(shown_text(text));
    if (newline)
        text[len] = '\n', text[len + 1] = '\0';
    fputs(text, out);
    if (text != small)
        free(text);
}

void vprint_shown(FILE *out, const char *fmt, va_list ap)
{
    put_shown(out, false, fmt, ap);
}

void print_shown(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_shown(out, false, fmt, ap);
    va_end(ap);
}

void print_line(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_shown(out, true, fmt, ap);
    va_end(ap);
}

static void resume_paused(int sig) { (void)sig; }

void test_pause(const char *phase)
{
    const char *want = getenv("OSCBENCH_TEST_PAUSE");
    if (!want || strcmp(want, phase) != 0)
        return;
    /* SIGCONT (at this thread) resumes the run: a test can hold one rank back for a while */
    struct sigaction sa = {.sa_handler = resume_paused}, old_action;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCONT, &sa, &old_action);
    /* Signals are held from the line that invites them until sigsuspend waits: with a plain
     * pause() after the line, a SIGCONT that came first was handled before the wait began, and
     * the wait never ended. */
    sigset_t all, old_mask;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old_mask);
    /* the thread too: a test that signals it (tgkill) reaches the thread that waits here, not a
     * busy one that ThreadSanitizer would hand the signal to only at its next intercepted call */
    fprintf(stderr, "oscbench: paused at %s (pid %ld, thread %ld)\n", phase, (long)getpid(),
            (long)syscall(SYS_gettid));
    fflush(stderr);
    sigsuspend(&old_mask);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGCONT, &old_action, NULL);
}

bool test_fail(const char *phase)
{
    const char *want = getenv("OSCBENCH_TEST_FAIL");
    return want && !strcmp(want, phase);
}
