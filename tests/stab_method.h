/* The table entry of a stability test's test-only map (stab_map.h): each is a first-order map
 * with one force evaluation, not symplectic; only its name and the summary saying what the map
 * is differ. Used outside OSC_PASS, after method_template.h (which defines OSC_KERNELS). */
#define STAB_TEST_METHOD(var, name_, summary_)                                                    \
    const osc_method var = {.name = name_, .summary = summary_, .order = 1, .order_damped = 1,    \
                            .force_evals = 1, .fma_per_step = 3, .symplectic = false, OSC_KERNELS}
