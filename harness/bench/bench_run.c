/* One batch of the default/ benchmarks (see bench_run.h). */
#include "bench_run.h"

int bench_run_batch(osc_batch *b, bench_run_kind how, long steps, long every, osc_audit **audit)
{
    *audit = NULL;
    if (how == BENCH_RUN_BARE)
        return osc_batch_run(b, steps, steps, NULL, NULL);
    int rc = osc_audit_create(audit, b);
    if (!rc)
        rc = osc_audit_set_maxima(*audit, how == BENCH_RUN_SAMPLED ? OSC_MAXIMA_AUDITS
                                                                   : OSC_MAXIMA_EVERY_STEP);
    return rc ? rc : osc_audit_run(*audit, b, steps, every, NULL, NULL);
}
