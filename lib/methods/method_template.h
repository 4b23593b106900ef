/* Instantiates one method for float and double from a single source (SLEEF-style).
 *
 * A method file defines OSC_SELF (its own file name) and OSC_NSTATE, includes this header, then
 * declares its osc_method with OSC_KERNELS. This header includes the method file back twice with
 * OSC_PASS defined, once per precision (precision_passes.h), where `real` is float or double,
 * `coef` the matching osc_coef_*, and F(name) gives a per-precision name. In that pass the method file provides:
 *
 *   static inline void F(fast_step)(real *restrict s0, real *restrict s1, real *restrict s2,
 *                                   real w2, real gam, real g, real dt);
 *       one step of one lane, written with fma() so that it vectorizes and gives the same bits on
 *       every ISA; kernel_loops.h runs it over register blocks of lanes, per ISA;
 *   static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt);
 *       the plain scalar reference, written as docs/model.md defines the method (no fma);
 *   and, if it defines OSC_CUSTOM_INIT, F(lane_init) and F(lane_readout) (see the defaults below).
 *
 * <tgmath.h> makes fma, sqrt, ... follow the argument type; write constants as (real)0.5 so a
 * float kernel is not silently promoted to double.
 *
 * A third pass, with OSC_PASS_LD defined, includes the method file for `real` = long double and
 * uses only its reference step (ref_init_ld, ref_step_ld, ref_readout_ld; no kernels): the
 * stability theory needs rho - 1 of the one-step map far below double's round-off. A constant
 * written as a double literal is only double-accurate there: such a method file computes it in
 * long double under OSC_PASS_LD (see forest_ruth.c). */
#ifndef OSC_SELF
#error "define OSC_SELF before including method_template.h"
#endif
#include <stddef.h>
#include <string.h>
#include <tgmath.h>

#include "oscbench.h"

/* Register blocks and ISA dispatch: see kernel_loops.h (a method file may set its block sizes
 * with OSC_BLOCK_LANES_V4_D and friends before including this header); the level each call
 * takes is osc_isa_dispatch() (isa.h: the CPU's, capped by OSCBENCH_ISA). */
#include "isa.h"

/* Per-lane step coefficients a method may prepare once per block (kernel_loops.h). */
#define OSC_NCOEF 4

/* Whether the method can be composed (composition.h): its state is (x, v) as given, i.e. two
 * components and the default lane_init and lane_readout. kernel_loops.h then builds its
 * composed kernels. */
#if OSC_NSTATE == 2 && !defined(OSC_CUSTOM_INIT)
#define OSC_COMPOSABLE 1
#else
#define OSC_COMPOSABLE 0
#endif

#define OSC_PASS

/* Double and float: the method's step, then the kernels around it. */
#define OSC_PASS_FILE OSC_SELF
#define OSC_PASS_FILE_AFTER "kernel_loops.h"
#include "precision_passes.h"

/* Long double: the reference only. F(fast_step) is compiled but unused (static inline). */
#define OSC_PASS_LD
#define OSC_PASS_FILE OSC_SELF
#define OSC_PASS_FILE_AFTER "method_reference.h"
#include "precision_passes.h"
#undef OSC_PASS_LD

#undef OSC_PASS

/* The composed kernels (kernel_loops.h) exist for a method whose state is (x, v) as given. */
#if OSC_COMPOSABLE
#define OSC_COMPOSED_D advance_composed_d, advance_audited_composed_d
#define OSC_COMPOSED_F advance_composed_f, advance_audited_composed_f
#else
#define OSC_COMPOSED_D NULL, NULL
#define OSC_COMPOSED_F NULL, NULL
#endif

#define OSC_KERNELS                                                                              \
    .nstate = OSC_NSTATE,                                                                        \
    .kernels = {[OSC_DOUBLE] = {advance_d, init_soa_d, readout_soa_d, advance_audited_d,         \
                                OSC_COMPOSED_D, tile_lanes_d},                                   \
                [OSC_FLOAT] = {advance_f, init_soa_f, readout_soa_f, advance_audited_f,          \
                               OSC_COMPOSED_F, tile_lanes_f}},                                   \
    .ref_d = {ref_init_d, ref_step_d, ref_readout_d}, .ref_f = {ref_init_f, ref_step_f, ref_readout_f}, \
    .ref_ld = {ref_init_ld, ref_step_ld, ref_readout_ld}
