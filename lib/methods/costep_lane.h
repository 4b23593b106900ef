/* The exact motion co-stepped beside one lane, one step at a time, for the kernels that step a
 * lane at a time (lane_kernels.h, composition_method.c), and the pieces kernel_loops.h's fused
 * blocks share with them: the same arithmetic, operation for operation, as the fused block
 * (osc_costep in oscbench.h defines the arrays). Per step, for each axis a in turn (first:
 * a == 0; last: a == dim - 1, the gravity axis), with the method's (x, v) after the step in double:
 *     osc_costep_axis:  (xe, ve) one exact step on; dx = x - xe, dv = v - ve;
 *                       err2 += dx dx, sum_v += dv (v + ve), sum_x += dx (x + xe)
 * then osc_costep_close: dE = mg dx_last + half_k sum_x + half_m sum_v and the running maxima
 * max_err2 = max(max_err2, err2), max_de = max(max_de, |dE|), taken as kernel_loops.h takes them
 * (a NaN at an interval's last step stays NaN in them). */
#ifndef OSC_COSTEP_LANE_H
#define OSC_COSTEP_LANE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "oscbench.h"

typedef struct osc_lane_sums {
    double err2, sum_v, sum_x, dx_last;
} osc_lane_sums;

/* One axis's exact step and error sums, from the lane's values (kernel_loops.h's composed fused
 * block, per SIMD lane). osc_costep_axis below and kernel_loops.h's F(fused_axis) write the same
 * lines out again on purpose: calling this instead changed GCC's code for their loops (by 1-5
 * instructions in the float fused loops and the lane kernels). */
static inline __attribute__((always_inline)) void osc_costep_xv(
    double x, double v, double d11, double p12, double p21, double d22, double q1, double q2,
    double *restrict xe, double *restrict ve, bool first, double *restrict err2,
    double *restrict sum_v, double *restrict sum_x, double *restrict dx_last)
{
    const double xo = *xe, vo = *ve;
    const double xn = xo + fma(d11, xo, fma(p12, vo, q1));
    const double vn = vo + fma(p21, xo, fma(d22, vo, q2));
    *xe = xn, *ve = vn;
    const double dx = x - xn, dv = v - vn;
    *err2 = first ? dx * dx : fma(dx, dx, *err2);
    *sum_v = first ? dv * (v + vn) : fma(dv, v + vn, *sum_v);
    *sum_x = first ? dx * (x + xn) : fma(dx, x + xn, *sum_x);
    *dx_last = dx; /* the last axis's, as the last call leaves it */
}

/* The step's energy error dE from the sums, and the running maxima of err2 and |dE| (lvalues
 * ME2, MDE), from the lane's values: the closing lines of kernel_loops.h's fused blocks (per
 * SIMD lane) and of osc_costep_close. A macro, not a function: GCC compiled the fused blocks'
 * step loops a few instructions differently through an inline function (taking the maxima by
 * pointer or by value alike). isgreater is false when either side is NaN: a NaN value becomes the
 * maximum and the next number replaces it (hence a NaN at an interval's last step stays). */
#define OSC_COSTEP_MAXIMA(MG, HALF_K, HALF_M, ERR2, SUM_V, SUM_X, DX_LAST, ME2, MDE)              \
    do {                                                                                           \
        const double osc_de_ = fma((MG), (DX_LAST), fma((HALF_K), (SUM_X), (HALF_M) * (SUM_V)));  \
        const double osc_ade_ = fabs(osc_de_);                                                     \
        (ME2) = isgreater((ME2), (ERR2)) ? (ME2) : (ERR2);                                         \
        (MDE) = isgreater((MDE), osc_ade_) ? (MDE) : osc_ade_;                                     \
    } while (0)

static inline __attribute__((always_inline)) void osc_costep_axis(const osc_costep *cs, size_t i,
                                                                  bool first, bool last, double x,
                                                                  double v, double *xe, double *ve,
                                                                  osc_lane_sums *s)
{
    const double q1 = last ? cs->q1[i] : 0.0, q2 = last ? cs->q2[i] : 0.0, xo = *xe, vo = *ve;
    const double xn = xo + fma(cs->d11[i], xo, fma(cs->p12[i], vo, q1));
    const double vn = vo + fma(cs->p21[i], xo, fma(cs->d22[i], vo, q2));
    *xe = xn, *ve = vn;
    const double ddx = x - xn, ddv = v - vn;
    s->err2 = first ? ddx * ddx : fma(ddx, ddx, s->err2);
    s->sum_v = first ? ddv * (v + vn) : fma(ddv, v + vn, s->sum_v);
    s->sum_x = first ? ddx * (x + xn) : fma(ddx, x + xn, s->sum_x);
    s->dx_last = ddx;
}

static inline __attribute__((always_inline)) void osc_costep_close(const osc_costep *cs, size_t i,
                                                                   const osc_lane_sums *s,
                                                                   double *me2, double *mde)
{
    OSC_COSTEP_MAXIMA(cs->mg[i], cs->half_k[i], cs->half_m[i], s->err2, s->sum_v, s->sum_x,
                      s->dx_last, *me2, *mde);
}

#endif
