/* The rk family's chain for the SIMD kernels (coef_simd.h includes this once per precision and
 * ISA path, after its per-ISA macros CS_VT, CS_SET1, CS_FMA, CS_FNMA and CS_FN; `real`, F(name)
 * defined): one step of nv vectors of lanes by an s-stage tableau, s and nv constants after
 * inlining.
 *
 * The tableau's coefficients (times dt, F(tab_scaled)) are broadcast, one register each, once
 * per call: each coefficient's test and broadcast, then its two FMAs on each of the nv vectors.
 * A zero coefficient is skipped at run time: the step tests the tableau's nonzero mask (the same
 * for every lane, vector and step: a perfectly predicted branch around the entry's FMAs),
 * so that the kernel executes 2 per nonzero a_ij, 2 per stage (the force) and 2 per nonzero
 * b_i, the method's fma_per_step (tab_chain_ops counts it the same way, and
 * tests/test_tableau_method.c checks the two agree; the test is marked likely true, so a
 * nonzero entry's code falls through and a zero one jumps over it). A step of 8 stages holds
 * about 20 vectors per vector of lanes, more than AVX2's 16.
 *
 * Bits. The step is tab_step's (tableau_kernel.h), operation for operation and in its order:
 * fma(-h, M, v) is written as fnmadd(h, M, v), -(h M) + v rounded once, the same number. So the
 * fast kernel gives the plain kernel's bits on every ISA path (the baseline path runs the plain
 * kernel itself: fma there is a libm call anyway). */

CS_ATTR static inline __attribute__((always_inline)) void CS_FN(chain)(
    const F(tab_scaled) *restrict k, const int s, const int nv, CS_VT *restrict x,
    CS_VT *restrict v, const CS_VT *restrict w2, const CS_VT *restrict gam,
    const CS_VT *restrict g)
{
    CS_VT vs[OSC_TABLEAU_MAX_STAGES][CS_MAX_BLOCK_VECTORS];
    CS_VT ms[OSC_TABLEAU_MAX_STAGES][CS_MAX_BLOCK_VECTORS];
    const unsigned long long nz = k->nz_a;
    const unsigned nzb = k->nz_b;
#pragma GCC unroll 8
    for (int i = 0; i < s; i++) {
        CS_VT xi[CS_MAX_BLOCK_VECTORS], vi[CS_MAX_BLOCK_VECTORS];
#pragma GCC unroll 16
        for (int q = 0; q < nv; q++)
            xi[q] = x[q], vi[q] = v[q];
#pragma GCC unroll 8
        for (int j = 0; j < i; j++)
            if (__builtin_expect(nz >> TAB_NZ_BIT(i, j) & 1, 1)) {
                const CS_VT h = CS_SET1(k->ha[i][j]);
#pragma GCC unroll 16
                for (int q = 0; q < nv; q++)
                    xi[q] = CS_FMA(h, vs[j][q], xi[q]), vi[q] = CS_FNMA(h, ms[j][q], vi[q]);
            }
#pragma GCC unroll 16
        for (int q = 0; q < nv; q++)
            vs[i][q] = vi[q], ms[i][q] = CS_FMA(w2[q], xi[q], CS_FMA(gam[q], vi[q], g[q]));
    }
#pragma GCC unroll 8
    for (int i = 0; i < s; i++)
        if (__builtin_expect(nzb >> i & 1, 1)) {
            const CS_VT h = CS_SET1(k->hb[i]);
#pragma GCC unroll 16
            for (int q = 0; q < nv; q++)
                x[q] = CS_FMA(h, vs[i][q], x[q]), v[q] = CS_FNMA(h, ms[i][q], v[q]);
        }
}
