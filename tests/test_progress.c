/* The progress line's text (progress_format, a pure function of the counts, the clock and the
 * width): the ETA in seconds below 100 s, minutes and seconds below 6000 s, hours above. The
 * ETA is (total - done) / rate with rate = done / elapsed: with half done it is the elapsed
 * time, so each case below sets that time and reads it back in the unit its range takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "progress.h"

static void assert_eta(double elapsed, const char *eta)
{
    progress p;
    progress_init(&p, 100, "u", false);
    p.start = 0;
    atomic_store(&p.done, 50);
    char line[256], want[64];
    progress_format(&p, elapsed, 200, line, sizeof line);
    snprintf(want, sizeof want, " 50%%  ETA %-7s", eta);
    if (!strstr(line, want))
        fail_msg("elapsed %g s: '%s' lacks '%s'", elapsed, line, want);
}

static void test_eta_units(void **state)
{
    (void)state;
    assert_eta(42, "42s");
    assert_eta(99.4, "99s");
    assert_eta(100, "1m40s");
    assert_eta(125, "2m05s");
    assert_eta(5999, "99m59s");
    assert_eta(6000, "1.7h");
    assert_eta(7200, "2.0h");
}

/* Nothing done yet: no rate, so no ETA to give. */
static void test_eta_unknown(void **state)
{
    (void)state;
    progress p;
    progress_init(&p, 100, "u", false);
    p.start = 0;
    char line[256];
    progress_format(&p, 5, 200, line, sizeof line);
    if (!strstr(line, "  0%  ETA ?      "))
        fail_msg("'%s'", line);
}

/* At most columns - 1 characters (1 for a width of 1 or less) at every width: a terminal
 * narrower than the percentage and ETA gets them cut to fit; the returned length is the line's. */
static void test_narrow_terminal_cuts_the_line(void **state)
{
    (void)state;
    progress p;
    progress_init(&p, 100, "u", false);
    p.start = 0;
    atomic_store(&p.done, 50);
    for (int columns = 0; columns <= 40; columns++) {
        char line[256];
        int n = progress_format(&p, 42, columns, line, sizeof line);
        size_t most = columns > 1 ? (size_t)columns - 1 : 1;
        if (n < 0 || (size_t)n != strlen(line) || strlen(line) > most)
            fail_msg("%d columns: returned %d for '%s'", columns, n, line);
        /* the percentage and ETA (17 characters) come before anything else is given room */
        static const char core[] = " 50%  ETA 42s    ";
        if (most < strlen(core) ? strlen(line) != most || strncmp(line, core, most) != 0
                                : !strstr(line, core))
            fail_msg("%d columns: '%s' is not the percentage and ETA, or cut from them",
                     columns, line);
    }
}

/* At every width up to 160 columns the percentage and ETA are there, and a bar, when there is
 * one, is 10 to 24 wide: between 50 and 66 columns (room for the bar but not for the rate beside
 * it) the bar was given all the room, up to 45 wide, past its 32-byte buffer, and the line lost
 * its percentage. */
static void test_every_width_keeps_the_core(void **state)
{
    (void)state;
    progress p;
    progress_init(&p, 100, "u", false);
    p.start = 0;
    atomic_store(&p.done, 50);
    snprintf(p.label, sizeof p.label, "euler dt 0.01");
    for (int columns = 18; columns <= 160; columns++) {
        char line[256];
        int n = progress_format(&p, 42, columns, line, sizeof line);
        if (n < 0 || (size_t)n != strlen(line) || n > columns - 1 ||
            !strstr(line, " 50%  ETA 42s    "))
            fail_msg("%d columns: returned %d for '%s'", columns, n, line);
        if (line[0] == '[') {
            const size_t width = strspn(line + 1, "#.");
            if (width < 10 || width > 24 || strncmp(line + 1 + width, "] ", 2) != 0)
                fail_msg("%d columns: the bar of '%s' is %zu wide", columns, line, width);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eta_units),
        cmocka_unit_test(test_eta_unknown),
        cmocka_unit_test(test_narrow_terminal_cuts_the_line),
        cmocka_unit_test(test_every_width_keeps_the_core),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
