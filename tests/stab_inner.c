/* A test-only map (stab_map.h), neutral except for two unstable bands inside the theory's
 * small-h trend probe (0.1 down to 1e-8 at 4 points per decade):
 *     lambda = 1 + (h - lo) (hi - h) / (lo (hi - lo)) on (lo, hi), 1 elsewhere,
 * for (lo, hi) = (0.015, 0.035), which holds two probe points (0.0178, 0.0316; rho - 1 = 0.16
 * and 0.19 there), and (2e-6, 2.5e-6), which holds none (it lies between 1.78e-6 and 3.16e-6).
 * Stable exactly on (0, 2e-6], [2.5e-6, 0.015] and [0.035, inf). rho - 1 is exactly 0 outside
 * the bands, so the probe never sees three resolved points of one sign in a row: the trend is
 * neutral, and says nothing about the bands. Each edge is a linear crossing of slope 1 / lo. */
#ifndef OSC_PASS
#define OSC_SELF "stab_inner.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_inner, "test-inner",
                 "test only: neutral, unstable on (2e-6, 2.5e-6) and (0.015, 0.035)");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    const real bands[2][2] = {{(real)2e-6, (real)2.5e-6}, {(real)0.015, (real)0.035}};
    for (int i = 0; i < 2; i++) {
        real lo = bands[i][0], hi = bands[i][1];
        if (h > lo && h < hi)
            return 1 + (h - lo) * (hi - h) / (lo * (hi - lo));
    }
    return 1;
}

#include "stab_map.h"
#endif
