/* The per-precision framework around a method's one-lane step; included by method_template.h
 * once per precision. It knows nothing of the method beyond F(fast_step) and F(ref_step). */

#define OSC_BLOCK (OSC_BLOCK_BYTES / sizeof(real))

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

OSC_CLONES static void F(advance)(const osc_soa *a, size_t i0, size_t i1, long nsteps, double dt_)
{
    const real dt = (real)dt_;
    real *restrict s0 = a->s[0], *restrict s1 = a->s[1];
    real *restrict s2 = OSC_NSTATE > 2 ? a->s[2] : NULL;
    const real *restrict w2 = a->w2, *restrict gam = a->gam, *restrict g = a->g;

    for (size_t i = i0; i < i1; i += OSC_BLOCK) {
        real b0[OSC_BLOCK], b1[OSC_BLOCK], b2[OSC_BLOCK], bw[OSC_BLOCK], bc[OSC_BLOCK], bg[OSC_BLOCK];
#pragma omp simd
        for (size_t j = 0; j < OSC_BLOCK; j++) {
            b0[j] = s0[i + j], b1[j] = s1[i + j], b2[j] = OSC_NSTATE > 2 ? s2[i + j] : 0;
            bw[j] = w2[i + j], bc[j] = gam[i + j], bg[j] = g[i + j];
        }
        for (long n = 0; n < nsteps; n++) {
#pragma omp simd
            for (size_t j = 0; j < OSC_BLOCK; j++)
                F(fast_step)(&b0[j], &b1[j], &b2[j], bw[j], bc[j], bg[j], dt);
        }
#pragma omp simd
        for (size_t j = 0; j < OSC_BLOCK; j++) {
            s0[i + j] = b0[j], s1[i + j] = b1[j];
            if (OSC_NSTATE > 2)
                s2[i + j] = b2[j];
        }
    }
}

static inline coef F(lane_coef)(const osc_soa *a, size_t i)
{
    return (coef){((const real *)a->w2)[i], ((const real *)a->gam)[i], ((const real *)a->g)[i]};
}

static void F(init_soa)(const osc_soa *a, size_t i0, size_t i1, double dt)
{
    real *s[OSC_MAX_STATE] = {a->s[0], a->s[1], OSC_NSTATE > 2 ? a->s[2] : NULL};
    for (size_t i = i0; i < i1; i++) {
        real st[OSC_MAX_STATE];
        F(lane_init)(st, s[0][i], s[1][i], F(lane_coef)(a, i), (real)dt);
        for (int j = 0; j < OSC_NSTATE; j++)
            s[j][i] = st[j];
    }
}

static void F(readout_soa)(const osc_soa *a, size_t i0, size_t i1, double dt, double *x, double *v)
{
    const real *s[OSC_MAX_STATE] = {a->s[0], a->s[1], OSC_NSTATE > 2 ? a->s[2] : NULL};
    for (size_t i = i0; i < i1; i++) {
        real st[OSC_MAX_STATE] = {0, 0, 0}, xi, vi;
        for (int j = 0; j < OSC_NSTATE; j++)
            st[j] = s[j][i];
        F(lane_readout)(st, F(lane_coef)(a, i), (real)dt, &xi, &vi);
        x[i - i0] = xi, v[i - i0] = vi;
    }
}

static void F(ref_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    F(lane_init)(s, x0, v0, c, dt);
}

static void F(ref_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    F(lane_readout)(s, c, dt, x, v);
}

#undef OSC_BLOCK
