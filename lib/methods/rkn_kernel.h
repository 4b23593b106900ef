/* The per-precision pieces of rkn_method.c: included once per precision with `real`, `coef` and
 * F(name) defined (as method_template.h does); with RKN_REF_ONLY only the reference (the long
 * double pass). A stage count known only at run time: scalar loops, one lane at a time
 * (lane_kernels.h runs the step over the batch's lanes).
 *
 * rkn.h's formula with F_j = -M_j, M = w2 X + gam V + g (minus the force):
 *     X_i = x + c_i h v - h^2 sum_j abar_ij M_j,   V_i = v - h sum_j a_ij M_j,
 *     x' = x + h v - h^2 sum_i bbar_i M_i,         v' = v - h sum_i b_i M_i. */

/* The reference: the formula as written, no fma, every coefficient (zeros included). */
static void F(rkn_ref_step)(const rkn_slot *sl, real s[OSC_MAX_STATE], coef c, real dt)
{
    const int ns = sl->stages;
    const real x = s[0], v = s[1];
    real force[OSC_RKN_MAX_STAGES];
    for (int i = 0; i < ns; i++) {
        real xi = x + (real)sl->c[i] * dt * v, vi = v;
        for (int j = 0; j < i; j++) {
            xi += dt * dt * (real)sl->abar[i][j] * force[j];
            vi += dt * (real)sl->a[i][j] * force[j];
        }
        force[i] = -c.w2 * xi - c.gam * vi - c.g;
    }
    real dx = 0, dv = 0;
    for (int i = 0; i < ns; i++) {
        dx += (real)sl->bbar[i] * force[i];
        dv += (real)sl->b[i] * force[i];
    }
    s[0] = x + dt * v + dt * dt * dx;
    s[1] = v + dt * dv;
}

#ifndef RKN_REF_ONLY

/* The coefficients times -dt^2 (abar, bbar), -dt (a, b) and dt (c), in the kernel's precision,
 * once per call. Zero coefficients are skipped by the kernel (fma_per_step counts nonzero ones). */
typedef struct F(rkn_scaled) {
    int stages;
    real nabar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], na[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES];
    real nbbar[OSC_RKN_MAX_STAGES], nb[OSC_RKN_MAX_STAGES], hc[OSC_RKN_MAX_STAGES];
    real h;
} F(rkn_scaled);

static F(rkn_scaled) F(rkn_scale)(const rkn_slot *sl, real dt)
{
    F(rkn_scaled) k = {.stages = sl->stages, .h = dt};
    const real dt2 = dt * dt;
    for (int i = 0; i < k.stages; i++) {
        for (int j = 0; j < i; j++) {
            k.nabar[i][j] = -dt2 * (real)sl->abar[i][j];
            k.na[i][j] = -dt * (real)sl->a[i][j];
        }
        k.nbbar[i] = -dt2 * (real)sl->bbar[i];
        k.nb[i] = -dt * (real)sl->b[i];
        k.hc[i] = dt * (real)sl->c[i];
    }
    return k;
}

/* One step of one lane with fma: the same bits on every ISA (fma is exact-then-rounded). */
static inline __attribute__((always_inline)) void F(rkn_step)(const F(rkn_scaled) *k,
                                                              real *restrict x, real *restrict v,
                                                              real w2, real gam, real g)
{
    real ms[OSC_RKN_MAX_STAGES];
    const real x0 = *x, v0 = *v;
    for (int i = 0; i < k->stages; i++) {
        real xi = k->hc[i] != 0 ? fma(k->hc[i], v0, x0) : x0, vi = v0;
        for (int j = 0; j < i; j++) {
            if (k->nabar[i][j] != 0)
                xi = fma(k->nabar[i][j], ms[j], xi);
            if (k->na[i][j] != 0)
                vi = fma(k->na[i][j], ms[j], vi);
        }
        ms[i] = fma(w2, xi, fma(gam, vi, g));
    }
    real xn = fma(k->h, v0, x0), vn = v0;
    for (int i = 0; i < k->stages; i++) {
        if (k->nbbar[i] != 0)
            xn = fma(k->nbbar[i], ms[i], xn);
        if (k->nb[i] != 0)
            vn = fma(k->nb[i], ms[i], vn);
    }
    *x = xn, *v = vn;
}

OSC_LANE_KERNELS(rkn, rkn_slot)

#endif
