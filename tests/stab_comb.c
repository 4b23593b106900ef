/* A test-only map (stab_map.h) with more stable intervals than OSC_STAB_MAX_INTERVALS (8):
 * eight unstable bands (2^j, 1.1 2^j), j = 0, ..., 7, where
 *     lambda = 1 + 100 (h - 2^j) (1.1 2^j - h) / 4^j      (peak 1.25, as stab_band.c),
 * and lambda = 1 elsewhere, except from h = 600 on, where lambda = 1 + 100 zeta (h / 600 - 1).
 * Undamped: nine stable intervals, (0, 1], [1.1 2^(k-1), 2^k] for k = 1, ..., 7, and
 * [140.8, inf); with drag the last is [140.8, 600]. Every edge is a linear crossing (relative
 * slope h d rho/dh = 10 at the bands, 100 zeta at 600). Bands 10% wide: wider than the theory
 * grid's 2.3% and the measurement's 2% between lanes. */
#ifndef OSC_PASS
#define OSC_SELF "stab_comb.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_comb, "test-comb",
                 "test only: nine stable intervals between eight unstable bands");
#else

static inline real F(map_factor)(real h, real zeta)
{
    const real top = 600, height = 100;
    if (h >= top)
        return 1 + height * zeta * (h / top - 1);
    real lo = 1;
    for (int j = 0; j < 8; j++, lo *= 2)
        if (h > lo && h < lo * 11 / 10)
            return 1 + height * (h - lo) * (lo * 11 / 10 - h) / (lo * lo);
    return 1;
}

#include "stab_map.h"
#endif
