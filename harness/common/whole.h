/* Whole numbers the user writes in an option or an environment variable (--threads,
 * OMP_NUM_THREADS, the MPI launcher's rank and size, OSCBENCH_BENCH_AUDIT_EVERY,
 * OSCBENCH_COST_PROBE_LANES), all read one way: as strtol reads base 10 (leading blanks and a
 * sign allowed), within the range the caller gives. */
#ifndef OSCBENCH_WHOLE_H
#define OSCBENCH_WHOLE_H

#include <stdbool.h>

/* The whole number at the start of s, if there is one and it is lo to hi: stored in *n, and the
 * byte after its last digit returned. NULL (and *n untouched) otherwise, an overflow included. */
const char *whole_prefix(const char *s, long lo, long hi, long *n);

/* Whether all of s is a whole number lo to hi (whole_prefix with nothing after it); *n as
 * there. */
bool whole_in(const char *s, long lo, long hi, long *n);

#endif
