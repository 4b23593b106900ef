/* The human-readable summary at the end of a run. */
#ifndef OSCBENCH_REPORT_H
#define OSCBENCH_REPORT_H

#include <stdio.h>

#include "config.h"
#include "results.h"
#include "sweep.h"

void report_print(FILE *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, const char *path);

#endif
