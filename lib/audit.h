/* Auditing a batch against the exact solution while it steps: energy, drift, error, stability,
 * gathered per lane at each audit point (osc_batch_run's callback). Pure computation. */
#ifndef OSC_AUDIT_H
#define OSC_AUDIT_H

#include "oscbench.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct osc_lane_metrics {
    double e0;            /* energy at t = 0 */
    double final_energy;  /* numeric energy at the last audit */
    double final_drift;   /* (E_num - E_exact) / E(0) at the last audit (see audit.c for E(0) = 0) */
    double max_abs_drift; /* largest |drift| over the audits */
    double final_error;   /* |x_num - x_exact| (Euclidean over axes) at the last audit */
    double max_error;     /* largest error over the audits */
    double rest_distance; /* |x0 - rest point|, the scale of the relative errors */
    long unstable_step;   /* first audit step at which the lane counted as unstable, or -1 */
    long audits;          /* audit points seen */
} osc_lane_metrics;

typedef struct osc_audit osc_audit;

/* Prepare the exact solution of every lane of a started batch (osc_batch_start done). */
int osc_audit_create(osc_audit **out, const osc_batch *b);
void osc_audit_free(osc_audit *a);

/* The osc_audit_fn to pass to osc_batch_run with ctx = the osc_audit. Always returns 0:
 * a non-finite or runaway lane is data (recorded as unstable), never an error. */
int osc_audit_tile(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step);

const osc_lane_metrics *osc_audit_lane(const osc_audit *a, size_t i);

/* Energy of one lane given its state: 1/2 m |v|^2 + 1/2 k |x|^2 + m g x_last. */
double osc_energy(int dim, double k, double m, double g, const double *x, const double *v);

#ifdef __cplusplus
}
#endif
#endif
