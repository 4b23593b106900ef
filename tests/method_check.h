/* Helpers the tests of methods made from coefficients share (test_tableau_method.c,
 * test_rkn.c, test_composition.c): a batch of varied lanes run to its readout, the round-off
 * bound between two codings of one map, and the measured order against the closed form. */
#ifndef OSCBENCH_METHOD_CHECK_H
#define OSCBENCH_METHOD_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "audit.h"
#include "oscbench.h"
#include "rkn.h"

/* The lanes of check_run: omega0 in [0.5, 2] (k 0.25, 1, 4; m 1), drag 0, 0.3, 1 (or 0 only),
 * x0, v0 in [-1, 1] per axis, gravity CHECK_GRAVITY; CHECK_STEPS steps of CHECK_DT. */
enum { CHECK_LANES = 200, CHECK_STEPS = 400 };
#define CHECK_DT 0.01
#define CHECK_GRAVITY 3.5

/* The lanes' k and c (drag 0 throughout when undamped). */
double check_lane_k(size_t i);
double check_lane_c(size_t i, bool undamped);

/* Run CHECK_LANES lanes of dim axes by CHECK_STEPS steps; x then v (dim * CHECK_LANES each) into
 * out. audited: through the every-step audited kernel (osc_audit_run), its summary in *sum. */
void check_run(const osc_method *m, osc_precision p, int dim, bool undamped, bool audited,
               double *out, osc_audit_summary *sum);
/* The same lanes run by steps steps of dt (plain kernel). */
void check_run_steps(const osc_method *m, osc_precision p, int dim, bool undamped, double dt,
                     long steps, double *out);

/* The same lanes (one axis, with drag) stepped by m's scalar reference in double (long_double
 * false) or long double, read out into out as check_run does. */
void check_reference_run(const osc_method *m, bool long_double, double *out);

/* m's double kernel (check_run, one axis, drag) within check_roundoff_tol of its double scalar
 * reference, and its long double reference within the same tolerance of the double one: the
 * kernel (fma, coefficients prepared per block) and the reference (as written, no fma) are two
 * codings of one map, as are the two references. */
void check_matches_reference(const osc_method *m);

double check_unit_roundoff(osc_precision p);
/* Largest |x| + |v| over a readout of check_run. */
double check_state_scale(const double *xv, int dim);
/* The largest |difference| between two readouts of check_run. */
double check_max_diff(const double *a, const double *b, int dim);
/* The bound on the difference of two codings of one one-step map over check_run (see
 * method_check.c): 64 CHECK_STEPS u (scale + gravity dt). */
double check_roundoff_tol(osc_precision p, double scale);

/* m against ref, another coding of the same map, over check_run's lanes (drag unless undamped),
 * in double and float, dim = 1, 1 + dim_step, ... <= OSC_MAX_DIM axes: the readouts within
 * check_roundoff_tol of ref's; m's audited kernel leaves its plain kernel's state bit for bit,
 * every lane stable; with same_errors, the audited largest error within sqrt(dim) times the
 * tolerance of ref's (a Euclidean distance's maximum over the steps moves by at most sqrt(dim)
 * times the states' max-norm difference). */
void check_matches(const osc_method *m, const osc_method *ref, bool undamped, int dim_step,
                   bool same_errors);

/* A coefficient family's slot pool, through make (a method named name into *out: the family's
 * constructor's result) and release (the family's release): nslots methods made, one more
 * OSC_ENOMEM; a released slot is free (released again: OSC_EINVAL) and the next make takes it
 * while the other slots keep their methods; a built-in method and NULL are not the family's
 * (OSC_EINVAL). Every slot is free before and after. */
void check_slot_pool(int nslots, int (*make)(const char *name, osc_method *out),
                     int (*release)(const osc_method *m));

/* A family's method names, through make and release as for check_slot_pool: NULL, "" and a name
 * of name_max characters are refused (OSC_EINVAL), one of name_max - 1 (the longest that fits
 * with its NUL) is taken; a NULL out is refused. */
void check_method_names(int name_max, int (*make)(const char *name, osc_method *out),
                        int (*release)(const osc_method *m));

/* The tolerance tells maps apart: a and b, two different maps, run over check_run's lanes (one
 * axis, double; drag unless undamped) differ by more than 100 times check_roundoff_tol. */
void check_differs(const osc_method *a, const osc_method *b, bool undamped);

/* check(), once per ISA level the CPU has (osc_isa_set_cap), then the cap lifted. */
void check_at_every_level(void (*check)(void));

/* The order of m measured as tests/test_convergence.c measures the built-in methods: one lane
 * (k 1, m 1, drag c, x0 1, v0 0.5, no gravity) run to t = 4 at 50, 100, ..., 6400 steps in double,
 * the final |x - x_exact| fitted by osc_fit_order against m's declared order. */
osc_order_fit check_measure_order(const osc_method *m, double c);

/* A valid RKN tableau of s stages (1..8) with zeros scattered in abar, a, bbar and b and a zero
 * node beyond the first (from 4 stages): every nonzero mask of the kernels has both kinds of
 * bits. For s = 8: 16 of the 28 abar_ij nonzero, 21 of the a_ij, 6 of the c_i, 7 of the bbar_i
 * and b_i each. */
osc_rkn_tableau check_rkn_with_zeros(int s);
/* A valid s-stage RKN tableau (2 <= s <= 8) with every coefficient nonzero (dense) or, with
 * nystrom, the shape of a dense RK tableau's Nystrom form (abar = A^2: abar_{i,i-1} and bbar_s
 * zero, every other coefficient nonzero): the shapes that have pattern blocks of their own
 * (lib/methods/rkn_method.c's rkn_patterns). */
osc_rkn_tableau check_rkn_dense(int s, bool nystrom);

#endif
