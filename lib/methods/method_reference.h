/* The per-precision pieces every method shares around its reference step: the default state
 * layout and the reference's init and readout. Included once per precision pass (by
 * kernel_loops.h for double and float, by method_template.h for long double), after the method
 * file: no include guard. */

#ifndef OSC_CUSTOM_INIT
/* Most methods carry (x, v) as they are. */
static inline void F(lane_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    (void)c, (void)dt;
    s[0] = x0, s[1] = v0, s[2] = 0;
}
static inline void F(lane_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    (void)c, (void)dt;
    *x = s[0], *v = s[1];
}
#endif

static void F(ref_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    F(lane_init)(s, x0, v0, c, dt);
}

static void F(ref_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    F(lane_readout)(s, c, dt, x, v);
}
