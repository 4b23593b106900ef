/* A test-only map (stab_map.h) with a narrow unstable band between two stable ranges:
 *     lambda = 1 on (0, 0.3],  1 + 1e4 (h - 0.3) (0.31 - h) on (0.3, 0.31),
 *     (1 + 0.31) / (1 + h) from 0.31 on.
 * Stable on (0, 0.3] and [0.31, inf): the band is 3.3% wide, wider than the theory grid's 2.3%
 * spacing, but lies between two points of a 20-per-decade grid (0.2818 and 0.3162). Neutral
 * below the band (no lane's norm changes there) and contracting above it, so the lowest lanes of
 * a scan whose norm changes are the one or two in the band, then decaying ones. */
#ifndef OSC_PASS
#define OSC_SELF "stab_band.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_band, "test-band",
                 "test only: stable on (0, 0.3] and [0.31, inf)");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    const real band_lo = (real)0.3, band_hi = (real)0.31, height = 1e4;
    if (h <= band_lo)
        return 1;
    if (h < band_hi)
        return 1 + height * (h - band_lo) * (band_hi - h);
    return (1 + band_hi) / (1 + h);
}

#include "stab_map.h"
#endif
