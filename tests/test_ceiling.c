/* oscbench-bench's ceiling rule (harness/bench/ceiling.h) on made-up rates of the three kinds
 * of FP pipes x86 cores have: adds on the FMA ports (Intel since Skylake: every rate the same),
 * adds on pipes of their own (AMD Zen: adds alone as fast as FMAs, the mix twice that), and one
 * add port beside two FMA ports (Intel Haswell: adds alone at half the FMA rate). The expected
 * times are the operations over the rate of the busiest pipes, worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "ceiling.h"

/* Exact in binary for these small counts and rates, so compared exactly. */
#define STEP(fma_pipe, add, r_fma, r_add, r_mix)                                                  \
    osc_ceiling_step_seconds(fma_pipe, add, r_fma, r_add, r_mix)

/* Adds on the FMA ports: every operation takes a slot, whatever the mix. */
static void shared_ports_count_every_operation(void **state)
{
    (void)state;
    assert_true(STEP(3, 2, 2, 2, 2) == 2.5);  /* implicit-midpoint: 5 operations, 2 a tick */
    assert_true(STEP(2, 2, 2, 2, 2) == 2.0);  /* stormer */
    assert_true(STEP(18, 4, 2, 2, 2) == 11.0); /* rk4 */
    assert_true(STEP(1, 3, 2, 2, 2) == 2.0);  /* more adds than FMAs */
}

/* Add pipes of their own: adds free up to the FMA count, then the add pipes bind. */
static void own_add_pipes_free_up_to_the_fma_count(void **state)
{
    (void)state;
    assert_true(STEP(3, 2, 2, 2, 4) == 1.5);  /* the FMAs bind */
    assert_true(STEP(2, 2, 2, 2, 4) == 1.0);  /* FMAs and adds each 1 tick on their pipes */
    assert_true(STEP(17, 0, 2, 2, 4) == 8.5); /* forest-ruth: no adds */
    assert_true(STEP(1, 3, 2, 2, 4) == 1.5);  /* 3 adds on 2 add pipes, not (1 + 3) / 4 */
    assert_true(STEP(0, 4, 2, 2, 4) == 2.0);  /* adds alone */
}

/* One add port beside two FMA ports (the mix as fast as FMAs alone: the add port is one of the
 * FMA ports): adds alone run at half the FMA rate. */
static void one_add_port(void **state)
{
    (void)state;
    assert_true(STEP(0, 4, 2, 1, 2) == 4.0);
    assert_true(STEP(1, 3, 2, 1, 2) == 3.0); /* the add port binds, not (1 + 3) / 2 */
    assert_true(STEP(3, 1, 2, 1, 2) == 2.0);
}

/* A probe that read under what the others imply was disturbed: the ceiling is not lowered. */
static void disturbed_probes_do_not_lower_the_ceiling(void **state)
{
    (void)state;
    /* a mix read at half the FMA rate is taken at the FMA rate */
    assert_true(STEP(3, 2, 2, 2, 1) == STEP(3, 2, 2, 2, 2));
    /* an add rate read at a tenth of the mix's adds is taken at half the mix rate */
    assert_true(STEP(1, 3, 2, 0.4, 4) == STEP(1, 3, 2, 2, 4));
    /* a missing add probe (0) likewise; a missing mix probe counts every operation */
    assert_true(STEP(1, 3, 2, 0, 4) == 1.5);
    assert_true(STEP(3, 2, 2, 2, 0) == 2.5);
}

/* Without an FMA rate there is no ceiling (0, not +inf or NaN). */
static void no_fma_rate_no_ceiling(void **state)
{
    (void)state;
    assert_true(STEP(3, 2, 0, 2, 4) == 0);
    assert_true(STEP(3, 2, NAN, 2, 4) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_ports_count_every_operation),
        cmocka_unit_test(own_add_pipes_free_up_to_the_fma_count),
        cmocka_unit_test(one_add_port),
        cmocka_unit_test(disturbed_probes_do_not_lower_the_ceiling),
        cmocka_unit_test(no_fma_rate_no_ceiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
