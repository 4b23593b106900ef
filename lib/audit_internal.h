/* Hooks into the audit's internals for oscbench's own tests (not installed, not part of the
 * library's interface): the propagation of the exact state (audit.h, "The exact state at an
 * audit") is tested against the closed form at every audit through them. */
#ifndef OSC_AUDIT_INTERNAL_H
#define OSC_AUDIT_INTERNAL_H

#include "audit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Re-anchor every `every` audits instead of OSC_AUDIT_ANCHOR_EVERY (a power of 2; 1: the closed
 * form at every audit, the reference the propagation is tested against). OSC_EINVAL for other
 * values. */
int osc_audit_set_anchor_every(osc_audit *a, long every);

/* The exact state the audit holds for lane i (dim values each, NULL to skip) and the step it is
 * at (the lane's last stable audit, 0 before any). */
void osc_audit_exact_state(const osc_audit *a, size_t i, double *x, double *v, long *step);

#ifdef __cplusplus
}
#endif
#endif
