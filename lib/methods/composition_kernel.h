/* The per-precision pieces of composition_method.c: included once per precision with `real`,
 * `coef`, F(name), COMP_REF (the base's reference of this precision: ref_d, ref_f, ref_ld) and,
 * unless COMP_REF_ONLY (the long double pass), COMP_PREC (OSC_DOUBLE or OSC_FLOAT) defined. */

/* The reference: the base's reference, one substep of w_k dt after the other. */
static void F(comp_ref_step)(const comp_slot *sl, real s[OSC_MAX_STATE], coef c, real dt)
{
    for (int k = 0; k < sl->substeps; k++)
        sl->base->COMP_REF.step(s, c, (real)sl->w[k] * dt);
}

#ifndef COMP_REF_ONLY

/* advance: the base's composed kernel (its register blocks through every substep), or, for a
 * base without one, the base's advance once per substep. */
static void F(comp_advance)(const comp_slot *sl, const osc_soa *a, size_t i0, size_t i1,
                            long nsteps, double dt)
{
    const osc_kernels *k = &sl->base->kernels[COMP_PREC];
    if (k->advance_composed) {
        double h[OSC_COMPOSITION_MAX_SUBSTEPS];
        comp_substep_sizes(sl, dt, h);
        k->advance_composed(a, i0, i1, nsteps, h, sl->substeps);
        return;
    }
    comp_advance_base(sl, k->advance, a, i0, i1, nsteps, dt);
}

/* advance_audited: every axis of a chunk of lanes stepped by the base's kernel as advance steps
 * it (the same bits), then each lane's exact motion co-stepped and its maxima taken
 * (costep_lane.h), step by step. */
static inline __attribute__((always_inline)) void F(comp_audited_body)(const comp_slot *sl,
                                                                       OSC_LANE_AUDITED_PARAMS)
{
    void (*const base)(const osc_soa *, size_t, size_t, long, double) =
        sl->base->kernels[COMP_PREC].advance;
    double h[OSC_COMPOSITION_MAX_SUBSTEPS];
    comp_substep_sizes(sl, dt, h);
    for (size_t i = i0; i < i1; i += COMP_CHUNK) {
        double xe[OSC_MAX_DIM][COMP_CHUNK], ve[OSC_MAX_DIM][COMP_CHUNK];
        double me2[COMP_CHUNK], mde[COMP_CHUNK];
        for (size_t l = 0; l < COMP_CHUNK; l++) {
            for (int a = 0; a < dim; a++)
                xe[a][l] = cs->xe[a][i + l], ve[a][l] = cs->ve[a][i + l];
            me2[l] = 0, mde[l] = 0;
        }
        for (long n = 0; n < nsteps; n++) {
            for (int a = 0; a < dim; a++)
                for (int k = 0; k < sl->substeps; k++)
                    base(&ax[a], i, i + COMP_CHUNK, 1, h[k]);
            for (size_t l = 0; l < COMP_CHUNK; l++) {
                osc_lane_sums sums = {0, 0, 0, 0};
                for (int a = 0; a < dim; a++) {
                    const real x = ((const real *)ax[a].s[0])[i + l];
                    const real v = ((const real *)ax[a].s[1])[i + l];
                    osc_costep_axis(cs, i + l, a == 0, a == dim - 1, (double)x, (double)v,
                                    &xe[a][l], &ve[a][l], &sums);
                }
                osc_costep_close(cs, i + l, &sums, &me2[l], &mde[l]);
            }
        }
        for (size_t l = 0; l < COMP_CHUNK; l++)
            cs->max_err2[i + l] = me2[l], cs->max_de[i + l] = mde[l];
    }
}

OSC_LANE_DISPATCH(comp_audited_lanes, comp_audited_body, comp_slot, OSC_LANE_AUDITED_PARAMS,
                  OSC_LANE_AUDITED_ARGS)

/* advance_audited: the base's composed fused kernel (the same arithmetic, in register blocks),
 * or the lane-at-a-time path above for a base without one. */
static void F(comp_advance_audited)(const comp_slot *sl, OSC_LANE_AUDITED_PARAMS)
{
    const osc_kernels *k = &sl->base->kernels[COMP_PREC];
    if (k->advance_audited_composed) {
        double h[OSC_COMPOSITION_MAX_SUBSTEPS];
        comp_substep_sizes(sl, dt, h);
        k->advance_audited_composed(ax, dim, i0, i1, nsteps, dt, h, sl->substeps, cs);
        return;
    }
    F(comp_audited_lanes)(sl, OSC_LANE_AUDITED_ARGS);
}

#endif
