/* One source instantiated per precision (SLEEF-style), for method_template.h and the coefficient
 * families (tableau_method.c, rkn_method.c) alike. No include guard: each include is one set of
 * passes. Before including it define
 *
 *   OSC_PASS_FILE        the file each pass includes (a string literal, or a macro naming one);
 *   OSC_PASS_FILE_AFTER  optionally, a second file each pass includes after it;
 *   OSC_PASS_LD          to get the long double pass (the references only) instead of the
 *                        double and float passes.
 *
 * In every pass `real` is the precision, `coef` the matching osc_coef_* and F(name) gives a
 * per-precision name (name_d, name_f, name_ld); the double and float passes also define CS_PD and
 * CS_SUF (1 and d, 0 and f) for coef_simd.h. The header undefines all of these and both file
 * names at the end, so the next include states its files again; OSC_PASS_LD is the includer's. */
#ifndef OSC_PASS_FILE
#error "define OSC_PASS_FILE before including precision_passes.h"
#endif

#ifndef OSC_PASS_LD

#define CS_PD 1
#define CS_SUF d
#define real double
#define coef osc_coef_d
#define F(name) name##_d
#include OSC_PASS_FILE
#ifdef OSC_PASS_FILE_AFTER
#include OSC_PASS_FILE_AFTER
#endif
#undef real
#undef coef
#undef F
#undef CS_PD
#undef CS_SUF

#define CS_PD 0
#define CS_SUF f
#define real float
#define coef osc_coef_f
#define F(name) name##_f
#include OSC_PASS_FILE
#ifdef OSC_PASS_FILE_AFTER
#include OSC_PASS_FILE_AFTER
#endif
#undef real
#undef coef
#undef F
#undef CS_PD
#undef CS_SUF

#else /* OSC_PASS_LD */

#define real long double
#define coef osc_coef_ld
#define F(name) name##_ld
#include OSC_PASS_FILE
#ifdef OSC_PASS_FILE_AFTER
#include OSC_PASS_FILE_AFTER
#endif
#undef real
#undef coef
#undef F

#endif /* OSC_PASS_LD */

#undef OSC_PASS_FILE
#undef OSC_PASS_FILE_AFTER
