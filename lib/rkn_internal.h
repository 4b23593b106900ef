/* Hooks into the RKN methods' kernels and order checks for oscbench's own tests (not installed,
 * not part of the library's interface). */
#ifndef OSC_RKN_INTERNAL_H
#define OSC_RKN_INTERNAL_H

#include "rkn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The FMAs per lane and step that the kernels of method m (made by osc_method_from_rkn) execute
 * in precision p, counted from the nonzero masks the kernels branch on; -1 for a method that is
 * not an RKN method. */
int osc_rkn_kernel_fma(const osc_method *m, osc_precision p);

/* The one-step map osc_rkn_linear_order checks, its polynomials (rkn.c) evaluated at
 * k = -w2 h^2, d = -gam h: (x', h v') = M (x, h v), M[r][q] as in rkn.h (row r, column q;
 * 0: x, 1: h v). 0, or -1 (M untouched) where osc_rkn_linear_order gives -1. */
int osc_rkn_linear_map(const osc_rkn_tableau *t, double k, double d, double M[2][2]);

#ifdef __cplusplus
}
#endif
#endif
