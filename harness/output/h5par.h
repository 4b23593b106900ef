/* The parallel half of an MPI run's results file: /points' numeric columns written by every
 * rank at once with parallel HDF5 (MPI-IO), each rank its own work items' rows. The rest of
 * the file (the method strings, which parallel HDF5 cannot write, the scales, the other tables,
 * the attributes) is added by rank 0 alone afterwards (h5_out_reopen, results_write_ranks), so
 * that the file is the one a serial run writes, dataset by dataset. */
#ifndef OSCBENCH_H5PAR_H
#define OSCBENCH_H5PAR_H

#include <stddef.h>

#include <mpi.h>

#include "sweep.h"

/* Collective over comm (every rank calls it with the same path and row count, a rank with no
 * items too): creates the HDF5 file at path, truncating it, with /points laid out as the
 * serial writer lays it out (h5layout.h): the "row" scale's values, the `method` column
 * created but not written, then each numeric column of sweep_points_columns (the bool type
 * committed at its first use), every rank writing rows [row0, row0 + lanes) of its items
 * collectively. Flushes and closes the file. Returns 0 here if every rank succeeded; otherwise
 * -1, with err set on the ranks that failed. A test makes one rank fail after every collective
 * call by giving it OSCBENCH_TEST_FAIL=write (diag.h, test_fail). */
int h5par_write_points(MPI_Comm comm, const char *path, const sweep_points *p,
                       const sweep_item *items, size_t nitems, char *err, size_t errlen);

#endif
