/* The YAML config of `oscbench run`: loading, validation and sweep expansion.
 *
 * Keys (README, "Configs"; those marked * were added after the first release):
 *   name         run name: 1..128 of [A-Za-z0-9._+-], not starting with '.'    default: file stem
 *                (sanitized the same way)
 *   methods      a registry name, a list of them (config order kept), or `all`   default: all
 *                A list item may also define a method* by its coefficients, a mapping
 *                {name, family, order, ...family's keys} (family rk: a, b, c; rkn: abar,
 *                a, bbar, b, c; composition: base, weights, symmetric; see
 *                config_user_method), or include* a file of such definitions:
 *                {include: PATH}, PATH relative to the including config's directory, the file
 *                a YAML list of definitions (every one of them is run, in its order).
 *   precision    double | float                                                   default: double
 *   dim          1 | 2 | 3                                                        default: 1
 *   stiffness    k >= 0, swept                                   required, or omega0 instead
 *   omega0*      omega0 = sqrt(k/m) >= 0, swept (k = m omega0^2 per mass; every mass > 0),
 *                                                                        instead of stiffness
 *   drag         c >= 0, swept                                                    default: 0
 *   zeta*        zeta = c/(2 sqrt(k m)) >= 0, swept (c = 2 zeta sqrt(k m) per lane; every k > 0,
 *                every mass > 0)
 *                                                                                 instead of drag
 *   dt           > 0, swept                                      required, or rate_hz instead
 *   rate_hz*     steps per second > 0, swept (dt = 1/rate_hz)                     instead of dt
 *   gravity      g along the last axis, any finite number                         default: 0
 *   mass         m >= 0 (0 pins a lane), swept* (a number as before, or a list or range)
 *                                                                                 default: 1
 *   x0, v0       a number (every axis) or a list of exactly `dim` numbers         default: 1, 0
 *   t_end        simulated seconds > 0           \ exactly one of them
 *   steps        whole number of steps >= 1      /
 *   trace        {every: N >= 1 (default 1), points: [row, ...]} (rows of /points)  default: off
 *                (each row once in points)
 *                where*: {stiffness|omega0, drag|zeta, dt|rate_hz, mass} or a list of them: the
 *                nearest grid point, traced for each method, or for trace.methods* only;
 *                its rows follow those of points in trace_points (each row once)
 *   analyses     a list (or one) of: convergence, stability                       default: none
 *   stability*   {zeta: swept, each >= 0, at most CONFIG_MAX_ZETA}: damping ratios of the
 *                stability analysis (default: has_stability_zeta false, the harness chooses)
 *   audit_every* whole number >= 1: steps between audits                          default: 0 (auto)
 *   maxima*      every_step | audits: max_error and max_abs_drift over every step, or
 *                sampled at the audit points only (cheaper)                         default: every_step
 *   unstable_factor* number >= 1: a lane is unstable once its energy-norm distance from the
 *                exact state exceeds this many times the motion's own scale        default: 1000
 *   unstable_drift* number > 0: |drift| above this also makes a lane unstable (0.1: 10% of
 *                the energy scale)                                                 default: off
 *
 * A swept key takes a number, a list of numbers, or a range {from: A, to: B, count: N,
 * spacing: linear|log} (spacing defaults to linear; count 1 gives A; endpoints exact).
 * Any number may be written as a fraction A/B of two decimals (dt: 1/60).
 * Whole numbers may be written 1e6 or 1000.0. Quoted scalars are strings, never numbers;
 * NaN and Inf in any spelling are rejected.
 *
 * Untrusted input: the file is capped at CONFIG_MAX_BYTES, nesting at CONFIG_MAX_DEPTH, lists at
 * CONFIG_MAX_LIST items, ranges at CONFIG_MAX_RANGE values, trace.where's search at
 * CONFIG_MAX_WHERE_SCAN, and aliases are rejected (no billion laughs). The sweep's memory is
 * estimated before anything is expanded. */
#ifndef OSCBENCH_CONFIG_H
#define OSCBENCH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "oscbench.h"

#define CONFIG_MAX_BYTES (16u << 20)
#define CONFIG_MAX_DEPTH 16
#define CONFIG_MAX_LIST 1000000
#define CONFIG_MAX_RANGE 10000000L /* 10^7: more lanes than fit in memory anyway */
#define CONFIG_MAX_NODES 1100000
#define CONFIG_MAX_ZETA 10000 /* damping ratios of the stability analysis */
#define CONFIG_MAX_WHERE_SCAN 1e8 /* trace.where mappings x grid values (each scans its axes) */
#define CONFIG_MAX_STEPS 9007199254740992.0 /* 2^53 */

/* An expanded swept key: count >= 1 values, in the config's order. */
typedef struct sweep {
    double *values;
    size_t count;
} sweep;

/* Where a top-level key's value sits in the file (1-based); line 0 if the key was not given. */
typedef struct config_loc {
    const char *key;
    int line, col;
} config_loc;

#define CONFIG_NKEYS 23
#define CONFIG_MAX_ERRORS 20 /* errors reported from one config, one line each */
#define CONFIG_ERRORS_BYTES (CONFIG_MAX_ERRORS * 640) /* room for all of them and the count */
#define CONFIG_DEFAULT_UNSTABLE_FACTOR 1e3

/* A method the config defines by its coefficients (family "rk": an explicit Runge-Kutta method
 * by its Butcher tableau). `method` is what the sweep runs (cfg->methods points at it); its
 * kernels read the coefficients from one of the library's process-wide tableau slots
 * (OSC_TABLEAU_METHOD_SLOTS), held until config_free. */
#define CONFIG_MAX_USER_METHODS 16 /* = OSC_TABLEAU_METHOD_SLOTS */
#define CONFIG_MAX_INCLUDES 16     /* {include: PATH} items in one config */
/* A file the config read, by device and inode: the run's output must not replace it. */
typedef struct config_file_id {
    unsigned long long dev, ino;
} config_file_id;
typedef struct config_user_method {
    osc_method method;
    const char *family;    /* "rk", "rkn" or "composition" */
    int (*release)(const osc_method *m); /* gives back m's library slot */
    int coefficient_order; /* order conditions the coefficients satisfy (all problems) */
    int linear_order;      /* order on linear problems, such as the oscillator */
    /* The same on problems without drag, x'' = f(x) (rk: its Nystrom form's conditions, the
     * trees no force of x alone has left out, the first of order 5; rkn: fewer conditions;
     * composition: its base's order and symmetry without drag); the rk family's linear order is
     * the same as above. */
    int coefficient_order_undamped, linear_order_undamped;
    /* family "composition": its base and the base steps one step runs (NULL and 0 otherwise) */
    const osc_method *base;
    int substeps;
} config_user_method;

typedef struct osc_config {
    char *path;  /* as given to config_load */
    char *name;  /* safe as a file name */
    char *text;  /* the whole YAML text, for provenance */
    const osc_method **methods;
    size_t nmethods;
    osc_precision precision;
    int dim;
    sweep stiffness, drag, dt; /* k, c, dt of the lanes' axes, whichever keys gave them; with
                                * `zeta`, c depends on k and m as well: read it with
                                * config_drag, and drag.values holds NaN; with `omega0` and
                                * more than one mass, k depends on m: read it with
                                * config_stiffness, and stiffness.values holds NaN */
    sweep omega0_axis, zeta_axis, rate_hz; /* the user's values when those keys were given
                                            * (count 0 otherwise) */
    sweep mass; /* m of the lanes' mass axis: count >= 1 (one value for a scalar `mass`) */
    double gravity;
    double x0[OSC_MAX_DIM], v0[OSC_MAX_DIM];
    double t_end;  /* 0 when steps is given */
    long steps;    /* -1 when t_end is given */
    bool trace;
    long trace_every;
    size_t *trace_points; /* rows of /points; none: the harness picks */
    size_t ntrace_points;
    bool convergence, stability;
    bool has_stability_zeta;
    sweep stability_zeta;
    long audit_every; /* 0: the harness chooses */
    bool maxima_sampled;    /* maxima over the audit points only, not over every step */
    double unstable_factor; /* energy-norm distance from the exact state, in units of the
                             * motion's own scale, beyond which a lane is unstable */
    double unstable_drift;  /* |drift| above this also makes a lane unstable; INFINITY: off */
    config_loc loc[CONFIG_NKEYS];
    config_user_method *user_methods; /* CONFIG_MAX_USER_METHODS of room, nuser_methods used */
    size_t nuser_methods;
    char *included_text; /* every file the config includes, each as "--- include PATH (N
                          * bytes)\n" (PATH as the config gives it) and its text: with text,
                          * what the run read (NULL: none) */
    config_file_id read_files[1 + CONFIG_MAX_INCLUDES]; /* the config's (none from text), then
                                                         * each include's; nread_files of them */
    size_t nread_files;
} osc_config;

/* Load and validate `path`. Returns 0 and fills cfg (free with config_free), or 2 with cfg
 * zeroed and err holding one line per error found (newline-separated, no final newline; at most
 * CONFIG_MAX_ERRORS, then "FILE: N more errors not shown" if there were more: every top-level
 * key is checked, so independent mistakes are reported together): "FILE:LINE:COL: key: what is
 * wrong", or
 * "FILE:LINE:COL: what is wrong" for an error of the YAML itself, or "FILE: what is wrong" for
 * one of the file. LINE:COL is that of the offending value; of the key itself for an unknown
 * or duplicate key; of the top mapping for a missing key. The paths and values in a line are
 * shown as shown_text (diag.h) shows them: a control character in a file's name is a '?' there,
 * while the file is read by its real name. */
int config_load(const char *path, osc_config *cfg, char *err, size_t errlen);
/* The same for a config held in memory: `len` bytes of `text` (NUL bytes in them are an error),
 * reported and recorded as if read from `path` (which is not opened). */
int config_load_text(const char *path, const char *text, size_t len, osc_config *cfg, char *err,
                     size_t errlen);
void config_free(osc_config *cfg);

/* The stiffness k of the lanes at (stiffness index, mass index): stiffness.values[stiffness],
 * or with `omega0`, m omega0^2 (rounded as (m * omega0) * omega0). */
double config_stiffness(const osc_config *cfg, size_t stiffness, size_t mass);

/* The config's definition of m, or NULL for a registry method. */
const config_user_method *config_user_method_of(const osc_config *cfg, const osc_method *m);

/* The drag c of the lanes at (stiffness index, drag index, mass index): drag.values[drag], or
 * with `zeta`, 2 zeta sqrt(k m) of the lane's k and m. */
double config_drag(const osc_config *cfg, size_t stiffness, size_t drag, size_t mass);

/* Lanes of the sweep: methods x dt x mass x stiffness x drag. */
size_t config_lane_count(const osc_config *cfg);

/* Format a located error about top-level `key` for a check the harness makes later
 * ("FILE:LINE:COL: key: ..."); returns 2, the exit code of bad input. */
int config_error(const osc_config *cfg, const char *key, char *err, size_t errlen,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
