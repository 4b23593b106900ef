/* A test-only map (stab_map.h) with an unstable gap far narrower than the theory grid's spacing:
 *     lambda = 1 + 1e4 (h - 0.3) (0.301 - h)                 on (0.3, 0.301),
 *     lambda = 1 - 1e-2 (h - 0.3) (h - 0.301) / (1 + h^2)    elsewhere.
 * Stable on (0, 0.3] and [0.301, inf), lambda = 1 at both edges. The gap (0.33%) holds no point
 * of the 100-per-decade grid (0.2951, 0.3020, 0.3090), but lambda - 1 rises toward it from both
 * sides, so the grid point nearest it (0.3020) reads larger than its neighbours: the bump the
 * scan searches between them. */
#ifndef OSC_PASS
#define OSC_SELF "stab_gap.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_gap, "test-gap",
                 "test only: stable on (0, 0.3] and [0.301, inf)");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    const real gap_lo = (real)0.3, gap_hi = (real)0.301;
    if (h > gap_lo && h < gap_hi)
        return 1 + (real)1e4 * (h - gap_lo) * (gap_hi - h);
    return 1 - (real)1e-2 * (h - gap_lo) * (h - gap_hi) / (1 + h * h);
}

#include "stab_map.h"
#endif
