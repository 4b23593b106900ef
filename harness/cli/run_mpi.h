/* `mpirun -n R oscbench run ...` (or srun): the sweep's work items shared out over the ranks,
 * each rank running its own over its OpenMP threads, and one results file written with parallel
 * HDF5. MPI is initialised only when a launcher started the process (its environment says so):
 * a plain run never pays for MPI_Init. */
#ifndef OSCBENCH_RUN_MPI_H
#define OSCBENCH_RUN_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* What the environment says of the launcher: OMPI_COMM_WORLD_{SIZE,RANK} (Open MPI's mpirun),
 * PMI_{SIZE,RANK} (MPICH's hydra, srun --mpi=pmi2), PMIX_RANK (srun --mpi=pmix). */
typedef struct run_launch {
    bool launched;
    int rank; /* 0 if not said */
    int size; /* 0 if not said */
} run_launch;

run_launch run_mpi_launch(void);

/* Every rank reads the flags and the config, but only rank 0 tells what is wrong with them (and
 * prints --help or --version): stdout goes to /dev/null on the other ranks until
 * run_mpi_unmute(what run_mpi_mute returned), and stderr into an unlinked temporary file (or
 * /dev/null if none can be made), from which run_mpi_agree takes the rank's own error line for
 * rank 0 to print. */
typedef struct run_muted {
    int stdout_saved, stderr_saved; /* -1: not muted */
    FILE *captured;                 /* what stderr got (NULL: nothing kept) */
} run_muted;
run_muted run_mpi_mute(const run_launch *l);
void run_mpi_unmute(run_muted saved);

/* True if the run goes through run_mpi: launched, in a build with MPI; in a build without it,
 * launched as one of several processes (which run_mpi_agree refuses). */
bool run_mpi_applies(const run_launch *l);

/* What every rank of one run must have been given alike: the config as loaded (what defines the
 * results: its text and that of every file it includes, and the oscbench build, compared as
 * checkpoint.h's manifest), the output and --resume. */
typedef struct run_setup {
    const osc_config *cfg; /* loaded (read only when the rank's rc is 0) */
    const char *out_path;
    bool resume;
} run_setup;

/* Where run_mpi_applies: every rank's outcome of reading the flags and the config (rc: 0, an
 * exit code, or -1 for help printed), agreed on before any rank exits or anything is made. A
 * rank that exits first makes the launcher kill the others, and with them rank 0's one-line
 * error: so every rank waits for every other here. Then, if every rank read its config, each
 * compares its setup with rank 0's, byte for byte (rank 0 broadcasts its own): ranks that read
 * different configs (a config edited, or another copy on another node) would write one file of
 * rows from both, or crash in the write. When some rank failed (or differs), rank 0 prints the
 * lowest such rank's own one line ("rank N: FILE:LINE:COL: KEY: ...", taken from what muted
 * wrote to stderr; "rank N read a different config from PATH than rank 0 ..."), unless rank 0
 * failed itself and said why already. Initialises MPI in a build with it (run_mpi finalises
 * it). Returns the largest rc of all ranks (a differing setup is bad input: 2), having
 * finalised MPI if that is not 0; help printed on some ranks only is bad input too. In a build
 * without MPI it refuses the run (rank 0 says why; exit 2) unless rc already did. */
int run_mpi_agree(const run_launch *l, int rc, const run_muted *muted, const run_setup *setup);

/* The whole run over the ranks, as run_cmd.c's serial run does it: one file at out_path,
 * complete or absent, bit-identical to a serial run's. With resume, the checkpoint beside
 * out_path (checkpoint.h) is opened and validated by rank 0, every rank restores it, the items
 * it lacks are shared out and saved as they finish, and rank 0 removes it after the commit.
 * Finalises MPI (run_mpi_agree initialised it). Returns the exit code, the same on every rank. */
int run_mpi(const run_launch *l, const osc_config *cfg, const char *out_path, bool quiet,
            bool resume);

/* Which rank runs each of the n items of cfg that `done` (or NULL) does not mark (owner -1 for
 * those): costliest first (ties: lower index) to the rank with the least estimated cost so far
 * (ties: lower rank). From the config and the rank count alone, so every rank computes the same
 * plan. Returns the owner array (n entries; free() it), or NULL if out of memory. */
int *run_mpi_assign(const osc_config *cfg, int ranks, const bool *done);

#endif
