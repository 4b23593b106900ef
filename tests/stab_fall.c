/* A test-only map (stab_map.h) with a wide unstable band whose growth falls with h:
 *     lambda = 1 on (0, 0.3],
 *     1 + min(1e3 (h - 0.3), 0.01 - 0.009 (h - 0.3) / 0.3, 0.6 - h) on (0.3, 0.6),
 *     (1 + 0.6) / (1 + h) from 0.6 on.
 * Stable exactly on (0, 0.3] and [0.6, inf), both edges linear crossings (slopes 1e3 and 1).
 * Within 1e-5 of 0.3 rho rises to 1.01, then falls linearly to ~1.001 near 0.6 (and to 1 within
 * 0.001 of it): the lowest lanes of a scan that grew are in the band, each growing less than the
 * one below it (50000 log rho: 497 at 0.3, 9 less per 2% lane, finite). Growth that falls as h
 * rises is not an instability that reaches down to 0. */
#ifndef OSC_PASS
#define OSC_SELF "stab_fall.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_fall, "test-fall",
                 "test only: stable on (0, 0.3] and [0.6, inf), growth falling across the band");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    const real lo = (real)0.3, hi = (real)0.6, steep = 1000;
    if (h <= lo)
        return 1;
    if (h >= hi)
        return (1 + hi) / (1 + h);
    real falling = (real)0.01 - (real)0.009 * (h - lo) / (hi - lo);
    return 1 + fmin(fmin(steep * (h - lo), falling), hi - h);
}

#include "stab_map.h"
#endif
