/* A test-only map (stab_map.h) for the theory's small-h trend rule: contracting,
 *     lambda = 1 / (1 + 2 h^4),  rho - 1 = -2 h^4 / (1 + 2 h^4),
 * except for two blips, lambda = 1 + 1e-12 where h is within 1e-6 (relative) of the trend
 * probe's points 0.1 * 10^(-14/4) and 0.1 * 10^(-15/4) (3.2e-5 and 1.8e-5). The probe resolves
 * |rho - 1| above 64 LDBL_EPSILON = 6.9e-18: -2 h^4 is resolved at 0.1 * 10^(-13/4) (2e-17) and
 * above, not at 3.2e-5 (2e-18) and below, so from the bottom up the probe reads: unresolved,
 * then + + (the blips), then - - - ... . The blips stand for round-off excursions of a nearly
 * neutral map: two resolved points of one sign are not a trend. Truly unstable only inside the
 * blips, 2e-6 wide, far narrower than any grid of the scan. */
#ifndef OSC_PASS
#define OSC_SELF "stab_blip.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_blip, "test-blip",
                 "test only: contracting, with two resolved unstable probe points near 2e-5");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    const real blips[] = {(real)3.1622776601683795e-05, (real)1.7782794100389228e-05};
    for (int i = 0; i < 2; i++)
        if (fabs(h - blips[i]) < (real)1e-6 * blips[i])
            return 1 + (real)1e-12;
    return 1 / (1 + 2 * h * h * h * h);
}

#include "stab_map.h"
#endif
