/* Writing a run's sweep and analyses to the results file as README ("Results file") lays it
 * out. */
#ifndef OSCBENCH_RESULTS_H
#define OSCBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <hdf5.h>

#include "analyses.h"
#include "config.h"
#include "h5out.h"
#include "sweep.h"

/* The threads an OpenMP parallel region gets here, the run's `threads` attribute: fewer than
 * omp_get_max_threads() asks for under OMP_THREAD_LIMIT or OMP_DYNAMIC. */
int64_t results_team_threads(void);

/* Opens an existing results file read-only, with HDF5's own error printing off (the caller says
 * what failed, in one line): the file, or H5I_INVALID_HID with *why "cannot open as an HDF5 file"
 * or "not an oscbench results file (no /points table)". How summary and plot read one. */
hid_t results_open(const char *path, const char **why);

/* Writes /points, /convergence, /stability (with /stability_intervals and /stability_theory),
 * /work_precision, /traces and the root provenance attributes of a run in one process
 * (mpi_ranks 1). Returns 0, or -1 with err set. */
int results_write(h5_out *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, char *err, size_t errlen);

/* How a run was spread: its MPI ranks (1 without MPI) and each rank's OpenMP threads. */
typedef struct results_ranks {
    int ranks;
    const int64_t *threads; /* ranks entries */
} results_ranks;

/* results_write for a run over ranks (root attributes threads = their sum, mpi_ranks,
 * threads_per_rank). points_in_file: /points' group, datasets and numeric values are in the
 * file already (written by the ranks, h5par.c); only its method column and scales are added. */
int results_write_ranks(h5_out *out, const osc_config *cfg, const sweep_result *res,
                        const analysis_result *ana, const results_ranks *ranks,
                        bool points_in_file, char *err, size_t errlen);

#endif
