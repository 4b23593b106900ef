/* The per-precision pieces of tableau_method.c: included once per precision with `real`, `coef`
 * and F(name) defined (as method_template.h does); with TAB_REF_ONLY only the reference (the
 * long double pass). A stage count known only at run time: scalar loops, one lane at a time
 * (lane_kernels.h runs the step over the batch's lanes).
 *
 * For the system (x, v)' = (v, -m(x, v)), m = w2 x + gam v + g (minus the acceleration),
 * stage i is
 *     X_i = x + dt sum_{j<i} a_ij V_j,   V_i = v - dt sum_{j<i} a_ij M_j,   M_i = m(X_i, V_i),
 * (the slope of x at stage j is V_j) and the step x += dt sum b_i V_i, v -= dt sum b_i M_i. */

/* The reference: the formula as written, no fma, every coefficient (zeros included). */
static void F(tab_ref_step)(const tab_slot *sl, real s[OSC_MAX_STATE], coef c, real dt)
{
    const int ns = sl->stages;
    real vs[OSC_TABLEAU_MAX_STAGES], acc[OSC_TABLEAU_MAX_STAGES];
    for (int i = 0; i < ns; i++) {
        real x = s[0], v = s[1];
        for (int j = 0; j < i; j++) {
            x += dt * (real)sl->a[i][j] * vs[j];
            v += dt * (real)sl->a[i][j] * acc[j];
        }
        vs[i] = v;
        acc[i] = -c.w2 * x - c.gam * v - c.g;
    }
    real dx = 0, dv = 0;
    for (int i = 0; i < ns; i++) {
        dx += (real)sl->b[i] * vs[i];
        dv += (real)sl->b[i] * acc[i];
    }
    s[0] = s[0] + dt * dx;
    s[1] = s[1] + dt * dv;
}

#ifndef TAB_REF_ONLY

/* The coefficients times dt, in the kernel's precision, once per call (not per step). Zero
 * coefficients are skipped by the kernel, so that fma_per_step counts nonzero ones only. */
typedef struct F(tab_scaled) {
    int stages;
    real ha[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], hb[OSC_TABLEAU_MAX_STAGES];
} F(tab_scaled);

static F(tab_scaled) F(tab_scale)(const tab_slot *sl, real dt)
{
    F(tab_scaled) k = {.stages = sl->stages};
    for (int i = 0; i < k.stages; i++) {
        for (int j = 0; j < i; j++)
            k.ha[i][j] = dt * (real)sl->a[i][j];
        k.hb[i] = dt * (real)sl->b[i];
    }
    return k;
}

/* One step of one lane with fma: the same bits on every ISA (fma is exact-then-rounded). With
 * euler's tableau it is the built-in euler's step operation for operation. */
static inline __attribute__((always_inline)) void F(tab_step)(const F(tab_scaled) *k, real *restrict x, real *restrict v,
                               real w2, real gam, real g)
{
    real vs[OSC_TABLEAU_MAX_STAGES], ms[OSC_TABLEAU_MAX_STAGES];
    const real x0 = *x, v0 = *v;
    for (int i = 0; i < k->stages; i++) {
        real xi = x0, vi = v0;
        for (int j = 0; j < i; j++)
            if (k->ha[i][j] != 0)
                xi = fma(k->ha[i][j], vs[j], xi), vi = fma(-k->ha[i][j], ms[j], vi);
        vs[i] = vi;
        ms[i] = fma(w2, xi, fma(gam, vi, g));
    }
    real xn = x0, vn = v0;
    for (int i = 0; i < k->stages; i++)
        if (k->hb[i] != 0)
            xn = fma(k->hb[i], vs[i], xn), vn = fma(-k->hb[i], ms[i], vn);
    *x = xn, *v = vn;
}

OSC_LANE_KERNELS(tab, tab_slot)

#endif
