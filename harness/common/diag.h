/* The harness's lowest layer: how an error becomes one line, how long such a line may be, and
 * the hooks that let tests stop or fail a run at a named phase. Every other folder of harness/
 * may include it; it includes none of them. */
#ifndef OSCBENCH_DIAG_H
#define OSCBENCH_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Room for any one error line of the harness: up to two paths of PATH_MAX bytes (the -o path is
 * held below it, its checkpoint directory adds ".ckpt", a config that opened is shorter) and
 * what is wrong with them, which a long path must never cut off. A number, not PATH_MAX itself,
 * which <limits.h> defines only under POSIX feature macros an includer may not set (diag.c
 * checks it against PATH_MAX). */
#define ERROR_LINE_BYTES (3 * 4096)

/* s as a message shows it, in place: each byte of a control character (C0, DEL, C1) or of
 * malformed UTF-8 becomes '?', so that text the user chose (a path, an argument, a value) keeps
 * its message on one line and sends the terminal nothing it would act on. Printable ASCII and
 * UTF-8 are unchanged, and so is the length. Returns s.
 *
 * An error line made into a buffer is shown where it is made (error_line; the config loader's
 * lines and config_error's, config.h), since its caller may print it, return it or test it;
 * whatever is printed is shown again by print_line / print_shown, which costs nothing (a shown
 * text shows the same) and keeps a line made any other way from reaching the terminal raw. */
char *shown_text(char *s);

/* How many bytes at the start of s shown_text leaves as they are: the offset of the first byte
 * it would make '?', else strlen(s). */
size_t shown_span(const char *s);

/* Formats one line of error into err (shown_text's '?' for control characters, newlines
 * included); err may be NULL. */
void error_line(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* fmt's output on out as shown_text shows it, whole however long; print_line adds a newline:
 * how a message that quotes the user's text is printed. */
void vprint_shown(FILE *out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void print_shown(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void print_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* If OSCBENCH_TEST_PAUSE names this phase ("stepping", "write", "rename"), say so on stderr
 * ("oscbench: paused at PHASE (pid N, thread T)": under mpirun, N names the rank's own process;
 * T is the waiting thread's id) and wait for a signal: lets tests kill a run at a known point
 * without timing it, or hold it there (SIGCONT at thread T resumes it). */
void test_pause(const char *phase);

/* Whether OSCBENCH_TEST_FAIL names this phase ("write": this process's share of the parallel
 * /points write fails after it has taken part in every collective call; "restore": ckpt_restore
 * fails as only running out of memory makes it; "item": an MPI rank's first finished work item
 * fails, as a full disk under the checkpoint makes it): lets tests make one rank of an MPI run
 * fail, by giving only that rank the variable. */
bool test_fail(const char *phase);

#endif
