/* A hook into the RKN methods' kernels for oscbench's own tests (not installed, not part of the
 * library's interface). */
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

#ifdef __cplusplus
}
#endif
#endif
