/* The exact motion co-stepped beside one lane, one step at a time, for the kernels that step a
 * lane at a time (lane_kernels.h, composition_method.c): the same arithmetic, operation for
 * operation, as kernel_loops.h's fused block (osc_costep in oscbench.h defines the arrays). Per
 * step, for each axis a in turn (first: a == 0; last: a == dim - 1, the gravity axis), with the
 * method's (x, v) after the step in double:
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

static inline __attribute__((always_inline)) void osc_costep_axis(const osc_costep *cs, size_t i,
                                                                  bool first, bool last, double x,
                                                                  double v, double *xe, double *ve,
                                                                  osc_lane_sums *s)
{
    const double q1 = last ? cs->q1[i] : 0.0, q2 = last ? cs->q2[i] : 0.0, xo = *xe, vo = *ve;
    const double xn = fma(cs->p11[i], xo, fma(cs->p12[i], vo, q1));
    const double vn = fma(cs->p21[i], xo, fma(cs->p22[i], vo, q2));
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
    const double de =
        fma(cs->mg[i], s->dx_last, fma(cs->half_k[i], s->sum_x, cs->half_m[i] * s->sum_v));
    const double ade = fabs(de);
    *me2 = isgreater(*me2, s->err2) ? *me2 : s->err2;
    *mde = isgreater(*mde, ade) ? *mde : ade;
}

#endif
