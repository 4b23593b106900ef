/* What config.c and config_methods.c share while a config loads: the loader, which holds its
 * top-level keys and what has been read of them. */
#ifndef OSC_CONFIG_LOADER_H
#define OSC_CONFIG_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "config_yaml.h"

/* A swept key before expansion: values of a number or list, or an unexpanded range. */
typedef struct sweep_spec {
    const ynode *node;
    bool given, is_range, log;
    double from, to;
    size_t count;
    double *values; /* number or list */
} sweep_spec;

/* The top-level keys, in the order of key_names (config.c). */
enum {
    K_NAME, K_METHODS, K_PRECISION, K_DIM, K_STIFFNESS, K_DRAG, K_DT, K_GRAVITY, K_MASS, K_X0,
    K_V0, K_T_END, K_STEPS, K_TRACE, K_ANALYSES, K_STABILITY, K_AUDIT_EVERY, K_MAXIMA,
    K_UNSTABLE_FACTOR, K_UNSTABLE_DRIFT, K_OMEGA0, K_ZETA, K_RATE_HZ, K_COUNT
};

typedef struct loader {
    ctx c;
    osc_config *cfg;
    const ynode *root;
    const ynode *keys[K_COUNT], *vals[K_COUNT];
    sweep_spec stiffness, drag, dt, zeta; /* stiffness: of stiffness or omega0; drag: of drag
                                           * or zeta; dt: of dt or rate_hz */
    sweep_spec mass;                      /* not given: one mass, 1 */
    bool by_omega0, by_zeta, by_rate; /* which key of each pair gave the axis */
    bool dim_bad;                     /* reported: x0 and v0 lengths are not checked */
    const ynode *trace_points; /* to locate a row beyond the sweep */
    const ynode *trace_where, *trace_methods; /* traces chosen by value, resolved at the end */
    int includes;                             /* {include: PATH} items read */
    char defined_at[CONFIG_MAX_USER_METHODS][160]; /* "FILE:LINE" of each definition */
} loader;

/* config_methods.c: the methods key, into cfg->methods (and cfg->user_methods) */
int cfg_load_methods(loader *L);

#endif
