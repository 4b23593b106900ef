/* A test-only map (stab_map.h) that leaves the unit circle tangentially:
 *     lambda = 1 on (0, 1],  1 + 5e3 (h - 1)^2 beyond.
 * Stable exactly on (0, 1]. Past the edge log(rho) ~ 5e3 d^2 (d = h - 1) is convex with zero
 * slope at the edge, so a lane's distance past the edge is far more than its growth rate over
 * the local slope. */
#ifndef OSC_PASS
#define OSC_SELF "stab_tangent.c"
#define OSC_NSTATE 2
#include "method_template.h"
#include "stab_method.h"

STAB_TEST_METHOD(osc_test_method_tangent, "test-tangent",
                 "test only: stable on (0, 1], rho - 1 ~ (h - 1)^2 past it");
#else

static inline real F(map_factor)(real h, real zeta)
{
    (void)zeta;
    real past = h > 1 ? h - 1 : 0;
    return 1 + (real)5e3 * past * past;
}

#include "stab_map.h"
#endif
