/* Explicit (forward) Euler. */
#ifndef OSC_PASS
#define OSC_SELF "euler.c"
#define OSC_NSTATE 2
#define OSC_BLOCK_LANES_V3_D 64 /* AVX2 register blocks, measured (kernel_loops.h) */
#define OSC_BLOCK_LANES_V3_F 128
#include "method_template.h"

const osc_method osc_method_euler = {
    .name = "euler",
    .summary = "explicit Euler: x += v dt with the old v, v += a(x,v) dt",
    .order = 1,
    .order_damped = 1,
    .force_evals = 1,
    .fma_per_step = 4,
    .symplectic = false,
    OSC_KERNELS,
};
#else

/* Both updates read the state at the step's start: the drift uses the OLD velocity. */
static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real dt)
{
    (void)unused;
    real minus_a = fma(w2, *x, fma(gam, *v, g));
    *x = fma(dt, *v, *x);
    *v = fma(-dt, minus_a, *v);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real a = -c.w2 * s[0] - c.gam * s[1] - c.g;
    real x = s[0] + s[1] * dt;
    real v = s[1] + a * dt;
    s[0] = x, s[1] = v;
}
#endif
