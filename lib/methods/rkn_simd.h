/* The rkn family's chain for the SIMD kernels (coef_simd.h includes this once per precision and
 * ISA path, after its per-ISA macros CS_VT, CS_SET1, CS_FMA and CS_FN; `real`, F(name) defined):
 * one step of nv vectors of lanes by an s-stage RKN tableau, s and nv constants after inlining.
 *
 * The coefficients (times -dt^2, -dt, dt: F(rkn_scaled)) are broadcast, one register each, once
 * per call: each coefficient's test and broadcast, then its FMA on each of the nv vectors. A
 * zero coefficient is skipped at run time by a test of the tableau's nonzero masks (the same for
 * every lane, vector and step: a perfectly predicted branch around its FMAs), so that the kernel
 * executes per stage 2 (the force) + [c_i != 0] + one per nonzero abar_ij and a_ij, then 1
 * (x + h v) + one per nonzero bbar_i and b_i: the method's fma_per_step (rkn_chain_ops counts it
 * from the same masks; tests/test_rkn.c checks the two agree; the test is marked likely true,
 * so a nonzero coefficient's code falls through). A step holds its s force vectors
 * M_i, the state, the stage's X_i and V_i and the lane coefficients: s + 7 vectors per vector of
 * lanes, fewer than a tableau's 2 s + 4. Each stage sums its force in the order the tableau's
 * x_inner mask picks (rkn_x_inner in rkn_method.c: the one of X_i and V_i that does not read the
 * newest force goes inside), again a branch the same for every lane.
 *
 * Bits. The step is rkn_step's (rkn_kernel.h), operation for operation and in its order; the
 * signs are in the scaled coefficients (-dt^2 abar_ij, -dt a_ij, ...), so every operation is an
 * fma of a coefficient, as in rkn_step: the fast kernel gives the plain kernel's bits on every
 * ISA path. */

CS_ATTR static inline __attribute__((always_inline)) void CS_FN(chain)(
    const F(rkn_scaled) *restrict k, const int s, const int nv, CS_VT *restrict x,
    CS_VT *restrict v, const CS_VT *restrict w2, const CS_VT *restrict gam,
    const CS_VT *restrict g)
{
    CS_VT ms[OSC_RKN_MAX_STAGES][CS_MAX_BLOCK_VECTORS];
    const unsigned long long nzabar = k->nz_abar, nza = k->nz_a;
    const unsigned nzc = k->nz_c, nzbbar = k->nz_bbar, nzb = k->nz_b, xin = k->x_inner;
#pragma GCC unroll 8
    for (int i = 0; i < s; i++) {
        CS_VT xi[CS_MAX_BLOCK_VECTORS], vi[CS_MAX_BLOCK_VECTORS];
        if (__builtin_expect(nzc >> i & 1, 1)) {
            const CS_VT h = CS_SET1(k->hc[i]);
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                xi[q] = CS_FMA(h, v[q], x[q]);
        } else {
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                xi[q] = x[q];
        }
#pragma GCC unroll 16
        for (int q = 0; q < nv; q++)
            vi[q] = v[q];
#pragma GCC unroll 8
        for (int j = 0; j < i; j++) {
            if (__builtin_expect(nzabar >> RKN_NZ_BIT(i, j) & 1, 1)) {
                const CS_VT h = CS_SET1(k->nabar[i][j]);
#pragma GCC unroll 16
                for (int q = 0; q < nv; q++)
                    xi[q] = CS_FMA(h, ms[j][q], xi[q]);
            }
            if (__builtin_expect(nza >> RKN_NZ_BIT(i, j) & 1, 1)) {
                const CS_VT h = CS_SET1(k->na[i][j]);
#pragma GCC unroll 16
                for (int q = 0; q < nv; q++)
                    vi[q] = CS_FMA(h, ms[j][q], vi[q]);
            }
        }
        if (xin >> i & 1) {
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                ms[i][q] = CS_FMA(gam[q], vi[q], CS_FMA(w2[q], xi[q], g[q]));
        } else {
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                ms[i][q] = CS_FMA(w2[q], xi[q], CS_FMA(gam[q], vi[q], g[q]));
        }
    }
    const CS_VT h = CS_SET1(k->h);
#pragma GCC unroll 16
    for (int q = 0; q < nv; q++)
        x[q] = CS_FMA(h, v[q], x[q]);
#pragma GCC unroll 8
    for (int i = 0; i < s; i++) {
        if (__builtin_expect(nzbbar >> i & 1, 1)) {
            const CS_VT hb = CS_SET1(k->nbbar[i]);
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                x[q] = CS_FMA(hb, ms[i][q], x[q]);
        }
        if (__builtin_expect(nzb >> i & 1, 1)) {
            const CS_VT hb = CS_SET1(k->nb[i]);
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                v[q] = CS_FMA(hb, ms[i][q], v[q]);
        }
    }
}
