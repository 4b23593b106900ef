/* The YAML config loader: file -> bounded node tree with positions -> validated osc_config.
 *
 * config_yaml.c reads the file into the tree (and says why libyaml), config_methods.c reads the
 * methods key; this file reads the other keys, checks them together, expands the sweep and
 * holds the rest of config.h's API. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "config_loader.h"
#include "exact.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The loader asks the sweep (sweep.h) what a config will need before it expands a single range,
 * its one use of a layer above it, on purpose: a sweep too large for the machine is refused at
 * once, located on its widest key, rather than after expanding ranges of up to 10^7 values and
 * checking the spring of every (mass, stiffness) pair, which for an absurd sweep would not end. */
#ifdef OSC_CONFIG_FUZZ
/* The fuzz target builds the loader alone (no sweep, no OpenMP runtime): stand-ins for the
 * sweep's memory estimate (a /points row and a little more per lane) and its limit. */
static double fuzz_estimate_bytes(const osc_config *cfg, double ndt, double batch_lanes)
{
    return (double)cfg->nmethods * ndt * batch_lanes * 256.0;
}
static double fuzz_memory_limit(const char **source)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *source = "physical memory";
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}
#define sweep_estimate_bytes(cfg, ndt, lanes, threads) fuzz_estimate_bytes(cfg, ndt, lanes)
#define sweep_memory_limit fuzz_memory_limit
#define omp_get_max_threads() 1
#else
#include <omp.h>

#include "sweep.h"
#endif

#include "layout.h"

/* ---- swept values ------------------------------------------------------------------------- */

static const char *const range_names[] = {"from", "to", "count", "spacing"};

static int parse_range(const ctx *c, const ynode *map, const char *key, num_rule rule,
                       sweep_spec *s)
{
    char prefix[64], sub[80];
    snprintf(prefix, sizeof prefix, "%s.", key);
    const ynode *keys[4], *v[4];
    if (cfg_fields(c, map, prefix, range_names, 4, keys, v))
        return CONFIG_BAD;
    if (!v[0] || !v[1] || !v[2])
        return fail_node(c, map, key, "a range needs from, to and count");
    snprintf(sub, sizeof sub, "%sfrom", prefix);
    if (cfg_number(c, v[0], sub, rule, &s->from))
        return CONFIG_BAD;
    snprintf(sub, sizeof sub, "%sto", prefix);
    if (cfg_number(c, v[1], sub, rule, &s->to))
        return CONFIG_BAD;
    long count;
    snprintf(sub, sizeof sub, "%scount", prefix);
    if (cfg_whole(c, v[2], sub, 1, (double)CONFIG_MAX_RANGE, &count))
        return CONFIG_BAD;
    s->count = (size_t)count;
    size_t spacing = 0;
    static const char *const spacings[] = {"linear", "log"};
    snprintf(sub, sizeof sub, "%sspacing", prefix);
    if (v[3] && cfg_one_of(c, v[3], sub, "spacing", spacings, 2, &spacing))
        return CONFIG_BAD;
    s->log = spacing == 1;
    s->is_range = true;
    for (int end = 0; s->log && end < 2; end++) {
        snprintf(sub, sizeof sub, "%s%s", prefix, range_names[end]);
        if (!((end ? s->to : s->from) > 0))
            return fail_node(c, v[end], sub, "log spacing needs a positive number");
    }
    return 0;
}

static int parse_sweep(const ctx *c, const ynode *n, const char *key, num_rule rule,
                       sweep_spec *s)
{
    s->node = n;
    s->given = true;
    if (n->kind == YN_MAP)
        return parse_range(c, n, key, rule, s);
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    if (count == 0)
        return fail_node(c, n, key, "expected at least one value");
    s->values = malloc(count * sizeof *s->values);
    if (!s->values)
        return fail_node(c, n, key, "out of memory");
    s->count = count;
    if (n->kind == YN_SCALAR)
        return cfg_number(c, n, key, rule, &s->values[0]);
    for (size_t i = 0; i < count; i++)
        if (cfg_number(c, n->kids[i], key, rule, &s->values[i]))
            return CONFIG_BAD;
    return 0;
}

/* Endpoints exact; log spacing interpolates the logarithms (lo, hi: the endpoints, or their
 * logarithms, worked out once per range: a range may have 10^8 values). */
static double range_value(const sweep_spec *s, double lo, double hi, size_t i)
{
    if (i == 0)
        return s->from;
    if (i == s->count - 1)
        return s->to;
    double f = (double)i / (double)(s->count - 1), v = lo + f * (hi - lo);
    return s->log ? exp(v) : v;
}

static int expand_sweep(const ctx *c, sweep_spec *s, const char *key, sweep *out)
{
    if (!s->is_range) {
        out->values = s->values;
        out->count = s->count;
        s->values = NULL;
        return 0;
    }
    out->values = malloc(s->count * sizeof *out->values);
    if (!out->values)
        return fail_node(c, s->node, key, "out of memory expanding %zu values", s->count);
    out->count = s->count;
    double lo = s->log ? log(s->from) : s->from, hi = s->log ? log(s->to) : s->to;
    for (size_t i = 0; i < s->count; i++)
        out->values[i] = range_value(s, lo, hi, i);
    return 0;
}

/* ---- the top-level keys ------------------------------------------------------------------- */

static const char *const key_names[K_COUNT] = {
    "name", "methods", "precision", "dim", "stiffness", "drag", "dt", "gravity", "mass", "x0",
    "v0", "t_end", "steps", "trace", "analyses", "stability", "audit_every", "maxima",
    "unstable_factor", "unstable_drift", "omega0", "zeta", "rate_hz",
};
_Static_assert(K_COUNT == CONFIG_NKEYS, "config_loc table size");

/* The file's stem made safe as a name. */
static char *default_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (len > 128)
        len = 128;
    char *name = strndup(len ? base : "config", len ? len : 6);
    for (size_t i = 0; name && name[i]; i++)
        if (!cfg_name_char_ok(name[i]) || (i == 0 && name[i] == '.'))
            name[i] = '_';
    return name;
}

static int load_name(loader *L)
{
    const ynode *n = L->vals[K_NAME];
    if (!n) {
        L->cfg->name = default_name(L->c.path);
        return L->cfg->name ? 0 : cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    }
    char buf[48];
    if (n->kind != YN_SCALAR)
        return fail_node(&L->c, n, "name", "expected a string, not %s", cfg_kind_name(n->kind));
    size_t len = strlen(n->text);
    bool ok = len >= 1 && len <= 128 && n->text[0] != '.';
    for (size_t i = 0; ok && i < len; i++)
        ok = cfg_name_char_ok(n->text[i]);
    if (!ok)
        return fail_node(&L->c, n, "name",
                         "expected 1 to 128 of A-Z a-z 0-9 . _ - + not starting with '.', "
                         "got '%s'", cfg_excerpt(n, buf));
    L->cfg->name = strdup(n->text);
    return L->cfg->name ? 0 : cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
}

static int load_precision_dim(loader *L)
{
    static const char *const precisions[] = {"double", "float"};
    size_t p = 0;
    int bad = 0;
    if (L->vals[K_PRECISION])
        bad |= cfg_one_of(&L->c, L->vals[K_PRECISION], "precision", "precision", precisions, 2, &p);
    L->cfg->precision = p == 1 ? OSC_FLOAT : OSC_DOUBLE;
    long dim = 1;
    if (L->vals[K_DIM] && cfg_whole(&L->c, L->vals[K_DIM], "dim", 1, OSC_MAX_DIM, &dim)) {
        L->dim_bad = true;
        return CONFIG_BAD;
    }
    L->cfg->dim = (int)dim;
    return bad ? CONFIG_BAD : 0;
}

/* x0 or v0: a number for every axis, or a list of exactly dim numbers. */
static int load_vector(loader *L, int k, double def, double out[OSC_MAX_DIM])
{
    const ynode *n = L->vals[k];
    const char *key = key_names[k];
    for (int a = 0; a < OSC_MAX_DIM; a++)
        out[a] = def;
    if (!n)
        return 0;
    if (n->kind != YN_SEQ) {
        if (cfg_number(&L->c, n, key, NUM_ANY, &out[0]))
            return CONFIG_BAD;
        for (int a = 1; a < OSC_MAX_DIM; a++)
            out[a] = out[0];
        return 0;
    }
    if (L->dim_bad)
        return 0;
    if (n->nkids != (size_t)L->cfg->dim)
        return fail_node(&L->c, n, key, "expected %d number%s (dim is %d), got %zu",
                         L->cfg->dim, L->cfg->dim > 1 ? "s" : "", L->cfg->dim, n->nkids);
    for (int a = 0; a < L->cfg->dim; a++)
        if (cfg_number(&L->c, n->kids[a], key, NUM_ANY, &out[a]))
            return CONFIG_BAD;
    return 0;
}

/* The later of two keys in the file (to blame for giving both). */
static const ynode *later_key(const loader *L, int a, int b)
{
    const ynode *ka = L->keys[a], *kb = L->keys[b];
    bool b_later = kb->line > ka->line || (kb->line == ka->line && kb->col > ka->col);
    return b_later ? kb : ka;
}

/* One swept axis given by either of two keys (stiffness or omega0, drag or zeta, dt or
 * rate_hz): parsed into *spec, *by_second set when the second key gave it. A missing axis is
 * an error when `required`, named after the first key. */
static int load_axis(loader *L, int first, int second, bool required, num_rule rule,
                     sweep_spec *spec, bool *by_second)
{
    const ynode *a = L->vals[first], *b = L->vals[second];
    *by_second = !a && b;
    if (a && b) {
        const ynode *later = later_key(L, first, second);
        return fail_node(&L->c, later, later->text, "give %s or %s, not both",
                         key_names[first], key_names[second]);
    }
    if (!a && !b)
        return required ? fail_node(&L->c, L->root, key_names[first],
                                    "missing, a required key (or give %s instead)",
                                    key_names[second])
                        : 0;
    return parse_sweep(&L->c, a ? a : b, key_names[a ? first : second], rule, spec);
}

/* The mass axis: a number, a list or a range like the other swept keys. omega0 and zeta divide
 * by the mass (omega0 = sqrt(k/m), zeta = c / (2 sqrt(k m))): with them every mass must be > 0,
 * which a range meets when neither end is 0 (its values lie between its ends). */
static int load_mass(loader *L)
{
    const ynode *n = L->vals[K_MASS];
    if (!n)
        return 0;
    if (parse_sweep(&L->c, n, "mass", NUM_NONNEG, &L->mass))
        return CONFIG_BAD;
    if (!L->by_omega0 && !L->by_zeta)
        return 0;
    const char *by = L->by_omega0 ? "omega0" : "zeta";
    if (L->mass.is_range && (L->mass.from == 0 || L->mass.to == 0))
        return fail_node(&L->c, n, "mass", "expected every mass > 0 with %s (mass 0 pins a "
                                           "lane), but the range reaches 0", by);
    for (size_t i = 0; !L->mass.is_range && i < L->mass.count; i++)
        if (L->mass.values[i] == 0)
            return fail_node(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "mass",
                             "expected a mass > 0 with %s (mass 0 pins a lane)", by);
    return 0;
}

static int load_physics(loader *L)
{
    osc_config *cfg = L->cfg;
    int bad = 0;
    bad |= load_axis(L, K_STIFFNESS, K_OMEGA0, true, NUM_NONNEG, &L->stiffness, &L->by_omega0);
    bad |= load_axis(L, K_DRAG, K_ZETA, false, NUM_NONNEG, &L->drag, &L->by_zeta);
    bad |= load_axis(L, K_DT, K_RATE_HZ, true, NUM_POSITIVE, &L->dt, &L->by_rate);
    cfg->gravity = 0;
    if (L->vals[K_GRAVITY])
        bad |= cfg_number(&L->c, L->vals[K_GRAVITY], "gravity", NUM_ANY, &cfg->gravity);
    bad |= load_mass(L);
    bad |= load_vector(L, K_X0, 1.0, cfg->x0);
    bad |= load_vector(L, K_V0, 0.0, cfg->v0);
    return bad ? CONFIG_BAD : 0;
}

static int load_duration(loader *L)
{
    osc_config *cfg = L->cfg;
    const ynode *t_end = L->vals[K_T_END], *steps = L->vals[K_STEPS];
    if (!t_end && !steps)
        return fail_node(&L->c, L->root, "t_end", "missing: give t_end or steps");
    if (t_end && steps) {
        const ynode *later = later_key(L, K_T_END, K_STEPS);
        return fail_node(&L->c, later, later->text, "give t_end or steps, not both");
    }
    cfg->t_end = 0;
    cfg->steps = -1;
    if (t_end)
        return cfg_number(&L->c, t_end, "t_end", NUM_POSITIVE, &cfg->t_end);
    return cfg_whole(&L->c, steps, "steps", 1, CONFIG_MAX_STEPS, &cfg->steps);
}

static const char *const trace_names[] = {"every", "points", "where", "methods"};

typedef struct listed_row {
    size_t row, index;
} listed_row;

static int by_row_then_index(const void *pa, const void *pb)
{
    const listed_row *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Which entries of rows[0..n) repeat an earlier one (a new array of n flags; NULL if out of
 * memory): sorted by (row, index), each repeat follows its first listing (n log n: the list may
 * hold 10^6 rows). */
static bool *repeats_of(const size_t *rows, size_t n)
{
    listed_row *sorted = malloc((n ? n : 1) * sizeof *sorted);
    bool *repeat = calloc(n ? n : 1, sizeof *repeat);
    if (!sorted || !repeat) {
        free(sorted), free(repeat);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = (listed_row){rows[i], i};
    if (n > 1)
        qsort(sorted, n, sizeof *sorted, by_row_then_index);
    for (size_t i = 1; i < n; i++)
        repeat[sorted[i].index] = sorted[i].row == sorted[i - 1].row;
    free(sorted);
    return repeat;
}

/* The index of the first entry of rows[0..n) that repeats an earlier one, or n. */
static size_t first_repeat(const size_t *rows, size_t n)
{
    bool *repeat = repeats_of(rows, n);
    if (!repeat) /* out of memory: the check is skipped, as before */
        return n;
    size_t first = 0;
    while (first < n && !repeat[first])
        first++;
    free(repeat);
    return first;
}

static int load_trace_points(loader *L, const ynode *n)
{
    osc_config *cfg = L->cfg;
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    if (n->kind == YN_MAP)
        return fail_node(&L->c, n, "trace.points", "expected a list of rows, not a mapping");
    cfg->trace_points = calloc(count ? count : 1, sizeof *cfg->trace_points);
    if (!cfg->trace_points)
        return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    for (size_t i = 0; i < count; i++) {
        long row = 0;
        if (cfg_whole(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "trace.points", 0,
                      CONFIG_MAX_STEPS, &row))
            return CONFIG_BAD;
        cfg->trace_points[i] = (size_t)row;
        cfg->ntrace_points = i + 1;
    }
    /* each row is one /traces group: a repeat would fail the results file after the whole run */
    size_t again = count > 1 ? first_repeat(cfg->trace_points, count) : count;
    if (again < count)
        return fail_node(&L->c, n->kids[again], "trace.points", "row %zu listed twice",
                         cfg->trace_points[again]);
    return 0;
}

static int load_trace(loader *L)
{
    const ynode *n = L->vals[K_TRACE];
    L->cfg->trace = n != NULL;
    L->cfg->trace_every = 1;
    if (!n)
        return 0;
    const ynode *keys[4], *v[4];
    if (cfg_expect_map(&L->c, n, "trace", "a mapping {every: N, points: [row, ...]}") ||
        cfg_fields(&L->c, n, "trace.", trace_names, 4, keys, v))
        return CONFIG_BAD;
    if (v[0] && cfg_whole(&L->c, v[0], "trace.every", 1, CONFIG_MAX_STEPS, &L->cfg->trace_every))
        return CONFIG_BAD;
    L->trace_points = v[1];
    L->trace_where = v[2];
    L->trace_methods = v[3];
    if (v[3] && !v[2])
        return fail_node(&L->c, keys[3], "trace.methods", "chooses the methods of trace.where, "
                                                          "which is missing");
    if (v[2] && ((v[2]->kind != YN_MAP && v[2]->kind != YN_SEQ) ||
                 (v[2]->kind == YN_SEQ && v[2]->nkids == 0)))
        return fail_node(&L->c, v[2], "trace.where",
                         "expected a mapping {stiffness: k, drag: c, dt: h} or a list of them");
    return v[1] ? load_trace_points(L, v[1]) : 0;
}

static int load_analyses(loader *L)
{
    static const char *const analyses[] = {"convergence", "stability"};
    const ynode *n = L->vals[K_ANALYSES];
    if (!n)
        return 0;
    if (n->kind == YN_MAP)
        return fail_node(&L->c, n, "analyses", "expected a list of analyses, not a mapping");
    size_t count = n->kind == YN_SEQ ? n->nkids : 1;
    for (size_t i = 0; i < count; i++) {
        size_t which = 0;
        if (cfg_one_of(&L->c, n->kind == YN_SEQ ? n->kids[i] : n, "analyses", "analysis", analyses,
                       2, &which))
            return CONFIG_BAD;
        if (which == 0)
            L->cfg->convergence = true;
        else
            L->cfg->stability = true;
    }
    return 0;
}

/* How maxima are taken and what counts as unstable (see config.h). */
static int load_instability(loader *L)
{
    osc_config *cfg = L->cfg;
    static const char *const modes[] = {"every_step", "audits"};
    size_t mode = 0;
    int bad = 0;
    if (L->vals[K_MAXIMA])
        bad |= cfg_one_of(&L->c, L->vals[K_MAXIMA], "maxima", "maxima mode", modes, 2, &mode);
    cfg->maxima_sampled = mode == 1;
    cfg->unstable_factor = CONFIG_DEFAULT_UNSTABLE_FACTOR;
    const ynode *n = L->vals[K_UNSTABLE_FACTOR];
    /* Any finite number, then the one rule: 0 or -1 gets the same ">= 1" as 0.5 does, not a
     * "positive" that 0.5 would satisfy. */
    if (n && cfg_number(&L->c, n, "unstable_factor", NUM_ANY, &cfg->unstable_factor))
        bad = CONFIG_BAD;
    else if (n && !(cfg->unstable_factor >= 1))
        bad = fail_node(&L->c, n, "unstable_factor",
                        "expected a number >= 1 (a multiple of the motion's own scale), got %g",
                        cfg->unstable_factor);
    cfg->unstable_drift = INFINITY;
    n = L->vals[K_UNSTABLE_DRIFT];
    if (n)
        bad |= cfg_number(&L->c, n, "unstable_drift", NUM_POSITIVE, &cfg->unstable_drift);
    return bad ? CONFIG_BAD : 0;
}

static int load_stability_zeta(loader *L)
{
    const ynode *n = L->vals[K_STABILITY];
    if (!n)
        return 0;
    static const char *const names[] = {"zeta"};
    const ynode *keys[1], *v[1];
    if (cfg_expect_map(&L->c, n, "stability", "a mapping {zeta: ...}") ||
        cfg_fields(&L->c, n, "stability.", names, 1, keys, v))
        return CONFIG_BAD;
    if (v[0] && parse_sweep(&L->c, v[0], "stability.zeta", NUM_NONNEG, &L->zeta))
        return CONFIG_BAD;
    if (v[0] && L->zeta.count > CONFIG_MAX_ZETA)
        return fail_node(&L->c, v[0], "stability.zeta", "at most %d damping ratios, got %zu",
                         CONFIG_MAX_ZETA, L->zeta.count);
    return 0;
}

static int load_extras(loader *L)
{
    int bad = load_stability_zeta(L);
    L->cfg->audit_every = 0;
    const ynode *n = L->vals[K_AUDIT_EVERY];
    if (n)
        bad |= cfg_whole(&L->c, n, "audit_every", 1, CONFIG_MAX_STEPS, &L->cfg->audit_every);
    bad |= load_instability(L);
    return bad ? CONFIG_BAD : 0;
}

/* ---- the sweep's size --------------------------------------------------------------------- */

static size_t spec_count(const sweep_spec *s) { return s->given ? s->count : 1; }

/* A sweep's estimated memory (traces included once dt is expanded) and the machine's limit, in
 * GiB, and where the limit came from (physical memory or the cgroup's limit). */
typedef struct memory_need {
    double need_gib, limit_gib;
    const char *limit_source;
} memory_need;

/* True when the sweep does not fit; an unknown limit (0) never refuses. */
static bool memory_shortfall(const osc_config *cfg, double ndt, double batch_lanes,
                             memory_need *m)
{
    const double gib = 1024.0 * 1024.0 * 1024.0;
    double need = sweep_estimate_bytes(cfg, ndt, batch_lanes, omp_get_max_threads());
    double limit = sweep_memory_limit(&m->limit_source);
    m->need_gib = need / gib;
    m->limit_gib = limit / gib;
    return limit > 0 && need > limit;
}

/* Reject a sweep too large for this machine before expanding a single range; the error sits
 * on the swept key with the most values. */
static int check_size(loader *L)
{
    const sweep_spec *specs[] = {&L->dt, &L->stiffness, &L->drag, &L->mass};
    const char *names[] = {L->by_rate ? "rate_hz" : "dt", L->by_omega0 ? "omega0" : "stiffness",
                           L->by_zeta ? "zeta" : "drag", "mass"};
    double lanes = (double)L->cfg->nmethods;
    size_t widest = 0;
    for (size_t i = 0; i < 4; i++) {
        lanes *= (double)spec_count(specs[i]);
        if (spec_count(specs[i]) > spec_count(specs[widest]))
            widest = i;
    }
    double batch_lanes = (double)spec_count(&L->stiffness) * (double)spec_count(&L->drag) *
                         (double)spec_count(&L->mass);
    memory_need m;
    if (memory_shortfall(L->cfg, (double)spec_count(&L->dt), batch_lanes, &m))
        return fail_node(&L->c, specs[widest]->node, names[widest],
                         "sweep of %.4g lanes needs ~%.3g GiB, more than the %.3g GiB of %s",
                         lanes, m.need_gib, m.limit_gib, m.limit_source);
    return 0;
}

/* The traces' samples are known once dt is expanded: a trace of every step of a long run can
 * outgrow the machine on its own (check_size could not count them yet). */
static int check_trace_size(loader *L)
{
    if (!L->cfg->trace)
        return 0;
    const osc_config *c = L->cfg;
    double batch_lanes = (double)c->mass.count * (double)c->stiffness.count * (double)c->drag.count;
    memory_need m;
    if (memory_shortfall(c, (double)c->dt.count, batch_lanes, &m))
        return fail_node(&L->c, L->vals[K_TRACE], "trace",
                         "with every %ld the traces and the sweep need ~%.3g GiB, more than the "
                         "%.3g GiB of %s (raise every, or trace fewer points)",
                         c->trace_every, m.need_gib, m.limit_gib, m.limit_source);
    return 0;
}

static int check_trace_rows(loader *L)
{
    size_t lanes = config_lane_count(L->cfg);
    const ynode *n = L->trace_points;
    for (size_t i = 0; i < L->cfg->ntrace_points; i++)
        if (L->cfg->trace_points[i] >= lanes) {
            const ynode *at = n->kind == YN_SEQ ? n->kids[i] : n;
            return fail_node(&L->c, at, "trace.points",
                             "row %zu is beyond the sweep's %zu lanes (rows 0 to %zu)",
                             L->cfg->trace_points[i], lanes, lanes - 1);
        }
    return 0;
}

/* A copy of `from` into `to` (the user's values), `from` then holding what the lanes need. */
static int keep_copy(loader *L, const sweep *from, sweep *to)
{
    to->values = malloc(from->count * sizeof *to->values);
    if (!to->values)
        return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    memcpy(to->values, from->values, from->count * sizeof *to->values);
    to->count = from->count;
    return 0;
}

/* The index of the largest zeta (0 without zeta): c = 2 zeta sqrt(k m) grows with zeta. */
static size_t largest_zeta(const osc_config *cfg)
{
    size_t widest = 0;
    for (size_t d = 1; d < cfg->zeta_axis.count; d++)
        if (cfg->zeta_axis.values[d] > cfg->zeta_axis.values[widest])
            widest = d;
    return widest;
}

/* The spring of (stiffness index i, mass index j) given by omega0 or zeta: k finite (m omega0^2
 * can overflow), k > 0 for zeta, and c = 2 zeta sqrt(k m) finite at the largest zeta (drag index
 * `widest`). */
static int check_spring(loader *L, size_t i, size_t j, size_t widest)
{
    const osc_config *cfg = L->cfg;
    const double k = config_stiffness(cfg, i, j), m = cfg->mass.values[j];
    const char *spring = L->by_omega0 ? "omega0" : "stiffness";
    const double given = L->by_omega0 ? cfg->omega0_axis.values[i] : cfg->stiffness.values[i];
    if (!isfinite(k))
        return fail_node(&L->c, L->vals[K_OMEGA0], "omega0",
                         "k = m omega0^2 overflows a double (omega0 %g, mass %g)", given, m);
    if (!L->by_zeta)
        return 0;
    if (!(k > 0))
        return fail_node(&L->c, L->vals[K_ZETA], "zeta",
                         "zeta = c / (2 sqrt(k m)) needs every stiffness > 0 (%s %g with mass %g "
                         "is a free particle); give drag instead", spring, given, m);
    if (!isfinite(config_drag(cfg, i, widest, j)))
        return fail_node(&L->c, L->vals[K_ZETA], "zeta",
                         "c = 2 zeta sqrt(k m) overflows a double (zeta %g, %s %g, mass %g)",
                         cfg->zeta_axis.values[widest], spring, given, m);
    return 0;
}

/* omega0 -> k = m omega0^2, rate_hz -> dt = 1/rate_hz (each one rounding); zeta stays zeta,
 * read per lane by config_drag, and drag.values becomes NaN (no single c per drag index). With
 * omega0 and several masses there is no single k per stiffness index either: config_stiffness
 * gives it per lane, and stiffness.values becomes NaN. */
static int convert_axes(loader *L)
{
    osc_config *cfg = L->cfg;
    if ((L->by_omega0 && keep_copy(L, &cfg->stiffness, &cfg->omega0_axis)) ||
        (L->by_zeta && keep_copy(L, &cfg->drag, &cfg->zeta_axis)) ||
        (L->by_rate && keep_copy(L, &cfg->dt, &cfg->rate_hz)))
        return CONFIG_BAD;
    for (size_t i = 0; L->by_omega0 && i < cfg->stiffness.count; i++)
        cfg->stiffness.values[i] = cfg->mass.count == 1 ? config_stiffness(cfg, i, 0) : NAN;
    for (size_t i = 0; L->by_rate && i < cfg->dt.count; i++) {
        cfg->dt.values[i] = 1.0 / cfg->dt.values[i];
        /* a subnormal rate (1e-321) is positive and finite, but its dt is not */
        if (!isfinite(cfg->dt.values[i]))
            return fail_node(&L->c, L->vals[K_RATE_HZ], "rate_hz",
                             "dt = 1/rate_hz overflows a double (rate_hz %g)",
                             cfg->rate_hz.values[i]);
    }
    for (size_t i = 0; L->by_zeta && i < cfg->drag.count; i++)
        cfg->drag.values[i] = NAN;
    const size_t widest = largest_zeta(cfg);
    for (size_t j = 0; (L->by_omega0 || L->by_zeta) && j < cfg->mass.count; j++)
        for (size_t i = 0; i < cfg->stiffness.count; i++)
            if (check_spring(L, i, j, widest))
                return CONFIG_BAD;
    return 0;
}

/* A subnormal dt in the run's precision has lost significant bits (below DBL_MIN a double keeps
 * fewer than 53), and the methods' dt-scaled coefficients and 1/dt (stormer reads its velocity
 * through it: 1/dt overflows below 1/DBL_MAX ~ 5.6e-309) turn to nonsense: every dt, after
 * rate_hz and ranges are resolved, must be at least the smallest normal number of that
 * precision. The error sits on the list item when the key is a list of numbers. */
static int check_dt_normal(loader *L)
{
    const osc_config *cfg = L->cfg;
    const bool single = cfg->precision == OSC_FLOAT;
    const double smallest = single ? FLT_MIN : DBL_MIN;
    const ynode *n = L->vals[L->by_rate ? K_RATE_HZ : K_DT];
    for (size_t i = 0; i < cfg->dt.count; i++) {
        const double dt = cfg->dt.values[i];
        if (dt >= smallest)
            continue;
        const ynode *at = n->kind == YN_SEQ && n->nkids == cfg->dt.count ? n->kids[i] : n;
        return fail_node(&L->c, at, L->by_rate ? "rate_hz" : "dt",
                         "expected %s >= %g, the smallest normal %s (the run's precision), "
                         "got %g", L->by_rate ? "dt = 1/rate_hz" : "a dt", smallest,
                         single ? "float" : "double", dt);
    }
    return 0;
}

typedef struct listed_dt {
    double dt;
    size_t index;
} listed_dt;

static int by_dt_then_index(const void *pa, const void *pb)
{
    const listed_dt *a = pa, *b = pb;
    if (a->dt != b->dt)
        return a->dt < b->dt ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Each dt once, in the run's precision: a repeat is the same runs again, and the convergence fit
 * would count it as a point of its own (0.01 twice beside 0.02 and 0.04 made an "inconclusive"
 * fit of 3 points a confident pass of 4). */
static int check_dt_distinct(loader *L)
{
    const osc_config *cfg = L->cfg;
    const size_t n = cfg->dt.count;
    if (n < 2)
        return 0;
    listed_dt *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        double dt = cfg->dt.values[i];
        sorted[i] = (listed_dt){cfg->precision == OSC_FLOAT ? (double)(float)dt : dt, i};
    }
    qsort(sorted, n, sizeof *sorted, by_dt_then_index);
    size_t again = n, first = n;
    for (size_t i = 1; i < n; i++)
        if (sorted[i].dt == sorted[i - 1].dt && sorted[i].index < again)
            again = sorted[i].index, first = sorted[i - 1].index;
    free(sorted);
    if (again == n)
        return 0;
    /* the earliest repeat; its value's first listing sorts just before it */
    const ynode *node = L->vals[L->by_rate ? K_RATE_HZ : K_DT];
    const ynode *at = node->kind == YN_SEQ && node->nkids == n ? node->kids[again] : node;
    return fail_node(&L->c, at, L->by_rate ? "rate_hz" : "dt",
                     "value %zu (%s%g) repeats value %zu in the run's precision: list each dt "
                     "once",
                     again + 1, L->by_rate ? "dt = 1/rate_hz = " : "", cfg->dt.values[again],
                     first + 1);
}

static int expand_all(loader *L)
{
    osc_config *cfg = L->cfg;
    if (!L->drag.given) {
        static const double zero = 0.0;
        L->drag = (sweep_spec){.values = malloc(sizeof zero), .count = 1, .given = true};
        if (!L->drag.values)
            return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
        L->drag.values[0] = zero;
    }
    if (!L->mass.given) {
        L->mass = (sweep_spec){.values = malloc(sizeof(double)), .count = 1, .given = true};
        if (!L->mass.values)
            return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
        L->mass.values[0] = 1.0;
    }
    if (expand_sweep(&L->c, &L->stiffness, "stiffness", &cfg->stiffness) ||
        expand_sweep(&L->c, &L->drag, "drag", &cfg->drag) ||
        expand_sweep(&L->c, &L->dt, "dt", &cfg->dt) ||
        expand_sweep(&L->c, &L->mass, "mass", &cfg->mass) || convert_axes(L))
        return CONFIG_BAD;
    cfg->has_stability_zeta = L->zeta.given;
    return L->zeta.given ? expand_sweep(&L->c, &L->zeta, "stability.zeta", &cfg->stability_zeta)
                         : 0;
}

/* t_end / dt becomes a whole number of steps: it must stay an exact integer (2^53). */
static int check_step_counts(loader *L)
{
    const osc_config *cfg = L->cfg;
    for (size_t d = 0; cfg->steps < 0 && d < cfg->dt.count; d++)
        if (cfg->t_end / cfg->dt.values[d] > CONFIG_MAX_STEPS)
            return fail_node(&L->c, L->vals[K_T_END], "t_end",
                             "t_end / dt = %.3g steps for dt = %g, more than 2^53",
                             cfg->t_end / cfg->dt.values[d], cfg->dt.values[d]);
    return 0;
}

/* ---- traces chosen by value --------------------------------------------------------------- */

/* The keys of a trace.where mapping: an axis in the unit the user names. */
enum { W_STIFFNESS, W_OMEGA0, W_DRAG, W_ZETA, W_DT, W_RATE_HZ, W_MASS, W_COUNT };
static const char *const where_names[W_COUNT] = {"stiffness", "omega0",  "drag", "zeta",
                                                 "dt",        "rate_hz", "mass"};

/* The axes of a where mapping, in sweep_index order after the method: the key or keys that may
 * name each (second -1: one key only), and the axis's name in messages. */
enum { WA_DT, WA_STIFFNESS, WA_DRAG, WA_MASS, WA_COUNT };
static const struct where_axis {
    int first, second;
    const char *name;
} where_axes[WA_COUNT] = {{W_DT, W_RATE_HZ, "dt"},
                          {W_STIFFNESS, W_OMEGA0, "stiffness"},
                          {W_DRAG, W_ZETA, "drag"},
                          {W_MASS, -1, "mass"}};

static size_t where_axis_count(const osc_config *cfg, int axis)
{
    const size_t counts[WA_COUNT] = {cfg->dt.count, cfg->stiffness.count, cfg->drag.count,
                                     cfg->mass.count};
    return counts[axis];
}

/* Axis value i in the unit of where key w (stiffness and omega0 of a sweep of one mass). */
static double axis_value(const osc_config *cfg, int w, size_t i)
{
    switch (w) {
    case W_STIFFNESS: return config_stiffness(cfg, i, 0);
    case W_OMEGA0:
        return cfg->omega0_axis.count ? cfg->omega0_axis.values[i]
                                      : sqrt(cfg->stiffness.values[i] / cfg->mass.values[0]);
    case W_DRAG: return cfg->drag.values[i];
    case W_ZETA: return cfg->zeta_axis.values[i];
    case W_DT: return cfg->dt.values[i];
    case W_MASS: return cfg->mass.values[i];
    default: return cfg->rate_hz.count ? cfg->rate_hz.values[i] : 1.0 / cfg->dt.values[i];
    }
}

/* The index of the grid value nearest `want` along where key w's axis (the first of a tie). */
static size_t nearest_index(const osc_config *cfg, int w, size_t count, double want)
{
    size_t best = 0;
    for (size_t i = 1; i < count; i++)
        if (fabs(axis_value(cfg, w, i) - want) < fabs(axis_value(cfg, w, best) - want))
            best = i;
    return best;
}

/* Whether where key w names one value per index of its axis: drag or zeta only as the sweep
 * gives the damping; with several masses, stiffness or omega0 only as the sweep gives the spring
 * (k = m omega0^2 then differs from mass to mass). Otherwise an error on the key. */
static int where_key_fits(loader *L, const ynode *key, int w, const char *full)
{
    const osc_config *cfg = L->cfg;
    bool zeta_sweep = cfg->zeta_axis.count > 0, omega0_sweep = cfg->omega0_axis.count > 0;
    if ((w == W_DRAG && zeta_sweep) || (w == W_ZETA && !zeta_sweep))
        return fail_node(&L->c, key, full, "the sweep gives the damping as %s: use %s",
                         zeta_sweep ? "zeta" : "drag", zeta_sweep ? "zeta" : "drag");
    if (cfg->mass.count > 1 && ((w == W_STIFFNESS && omega0_sweep) ||
                                (w == W_OMEGA0 && !omega0_sweep)))
        return fail_node(&L->c, key, full,
                         "with several masses the sweep gives the spring as %s: use %s",
                         omega0_sweep ? "omega0" : "stiffness",
                         omega0_sweep ? "omega0" : "stiffness");
    return 0;
}

/* One where mapping: the (dt, stiffness, drag, mass) indices nearest its values. An axis of one
 * value may be left out. */
static int where_indices(loader *L, const ynode *map, size_t idx[WA_COUNT])
{
    const osc_config *cfg = L->cfg;
    const ynode *keys[W_COUNT], *v[W_COUNT];
    if (cfg_expect_map(&L->c, map, "trace.where", "a mapping {stiffness: k, drag: c, dt: h}") ||
        cfg_fields(&L->c, map, "trace.where.", where_names, W_COUNT, keys, v))
        return CONFIG_BAD;
    for (int a = 0; a < WA_COUNT; a++) {
        const struct where_axis *ax = &where_axes[a];
        const size_t count = where_axis_count(cfg, a);
        const bool has_second = ax->second >= 0 && v[ax->second];
        if (v[ax->first] && has_second)
            return fail_node(&L->c, keys[ax->second], "trace.where", "give %s or %s, not both",
                             where_names[ax->first], where_names[ax->second]);
        int w = has_second ? ax->second : ax->first;
        idx[a] = 0;
        if (!v[w]) {
            if (count > 1)
                return fail_node(&L->c, map, "trace.where",
                                 "missing %s (the sweep has %zu values of it)", ax->name, count);
            continue;
        }
        char key[64];
        snprintf(key, sizeof key, "trace.where.%s", where_names[w]);
        double want;
        if (cfg_number(&L->c, v[w], key, NUM_NONNEG, &want) || where_key_fits(L, keys[w], w, key))
            return CONFIG_BAD;
        idx[a] = nearest_index(cfg, w, count, want);
    }
    return 0;
}

/* The methods trace.where applies to: those listed (each in the config's methods), or all. */
static int where_methods(loader *L, bool *chosen)
{
    const osc_config *cfg = L->cfg;
    const ynode *n = L->trace_methods;
    for (size_t m = 0; m < cfg->nmethods; m++)
        chosen[m] = !n;
    size_t count = !n ? 0 : n->kind == YN_SEQ ? n->nkids : 1;
    for (size_t i = 0; i < count; i++) {
        const ynode *item = n->kind == YN_SEQ ? n->kids[i] : n;
        size_t m = 0;
        while (m < cfg->nmethods && !(item->kind == YN_SCALAR &&
                                      strcmp(item->text, cfg->methods[m]->name) == 0))
            m++;
        if (m == cfg->nmethods) {
            char buf[48];
            const char *what =
                item->kind == YN_SCALAR ? cfg_excerpt(item, buf) : "a list or mapping";
            return fail_node(&L->c, item, "trace.methods", "'%s' is not one of the run's methods",
                             what);
        }
        chosen[m] = true;
    }
    return 0;
}

/* Appends row to cfg's trace rows, of room for *cap (grown by doubling). */
static int add_trace_row(osc_config *cfg, size_t *cap, size_t row)
{
    if (cfg->ntrace_points == *cap) {
        size_t more = *cap ? 2 * *cap : 16;
        size_t *grown = realloc(cfg->trace_points, more * sizeof *grown);
        if (!grown)
            return -1;
        cfg->trace_points = grown, *cap = more;
    }
    cfg->trace_points[cfg->ntrace_points++] = row;
    return 0;
}

/* Keeps the first listing of each of rows[0..*n), in order (a row is one /traces group); n log n
 * (repeats_of): a scan per added row took minutes for 10^5 mappings. */
static int drop_repeats(size_t *rows, size_t *n)
{
    bool *repeat = repeats_of(rows, *n);
    if (!repeat)
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (!repeat[i])
            rows[kept++] = rows[i];
    *n = kept;
    free(repeat);
    return 0;
}

/* trace.where: for each mapping, the nearest grid point, traced for each chosen method; added
 * after the rows of trace.points. */
static int resolve_trace_where(loader *L)
{
    osc_config *cfg = L->cfg;
    const ynode *n = L->trace_where;
    if (!n)
        return 0;
    size_t count = n->kind == YN_SEQ ? n->nkids : 1,
           values = cfg->dt.count + cfg->stiffness.count + cfg->drag.count + cfg->mass.count;
    /* each mapping scans every axis for its nearest value: 240 mappings over a range of 5e6
     * stiffnesses took the fuzz target past its 10 s timeout */
    if ((double)count * (double)values > CONFIG_MAX_WHERE_SCAN)
        return fail_node(&L->c, n, "trace.where",
                         "%zu mappings over a grid of %zu values: more than %.0e comparisons "
                         "(give fewer, or the rows as trace.points)",
                         count, values, CONFIG_MAX_WHERE_SCAN);
    bool *chosen = calloc(cfg->nmethods, sizeof *chosen);
    if (!chosen)
        return cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    int rc = where_methods(L, chosen);
    size_t cap = cfg->ntrace_points;
    sweep_layout lay = layout_of(cfg);
    for (size_t i = 0; !rc && i < count; i++) {
        size_t idx[WA_COUNT];
        rc = where_indices(L, n->kind == YN_SEQ ? n->kids[i] : n, idx);
        for (size_t m = 0; !rc && m < cfg->nmethods; m++) {
            sweep_index at = {.method = m, .dt = idx[WA_DT], .stiffness = idx[WA_STIFFNESS],
                              .drag = idx[WA_DRAG], .mass = idx[WA_MASS]};
            if (chosen[m] && add_trace_row(cfg, &cap, layout_row(lay, at)))
                rc = cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
        }
    }
    if (!rc && drop_repeats(cfg->trace_points, &cfg->ntrace_points))
        rc = cfg_fail_at(&L->c, 0, 0, NULL, "out of memory");
    free(chosen);
    return rc ? CONFIG_BAD : 0;
}

/* ---- the whole -------------------------------------------------------------------------- */

static void record_locations(loader *L)
{
    for (int k = 0; k < K_COUNT; k++) {
        config_loc *loc = &L->cfg->loc[k];
        loc->key = key_names[k];
        loc->line = L->vals[k] ? L->vals[k]->line : 0;
        loc->col = L->vals[k] ? L->vals[k]->col : 0;
    }
}

static int load_tree(loader *L)
{
    if (!L->root || (L->root->kind == YN_SCALAR && L->root->text[0] == '\0' && L->root->plain))
        return cfg_fail_at(&L->c, 1, 1, NULL, "empty config, expected a mapping of config keys");
    if (L->root->kind != YN_MAP)
        return fail_node(&L->c, L->root, NULL, "expected a mapping of config keys at the top, "
                                               "not %s",
                         L->root->kind == YN_SEQ ? "a list" : "a scalar");
    /* Every key is checked even after a bad one, so that one run reports every mistake whose
     * check does not depend on another key's value. */
    int bad = cfg_fields(&L->c, L->root, "", key_names, K_COUNT, L->keys, L->vals);
    record_locations(L);
    L->cfg->dim = 1;
    int (*const loaders[])(loader *) = {load_name,     cfg_load_methods, load_precision_dim,
                                        load_physics,  load_duration,    load_trace,
                                        load_analyses, load_extras};
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++)
        bad |= loaders[i](L);
    if (bad)
        return CONFIG_BAD;
    if (check_size(L) || expand_all(L) || check_dt_normal(L) || check_dt_distinct(L) ||
        check_step_counts(L))
        return CONFIG_BAD;
    /* the traces' memory once trace.where has added its rows */
    return check_trace_rows(L) || resolve_trace_where(L) || check_trace_size(L) ? CONFIG_BAD : 0;
}

static void free_spec(sweep_spec *s) { free(s->values); }

/* Parse and validate `len` bytes of YAML; takes ownership of `text` (malloc'd, len + 1 bytes
 * with a terminating NUL). */
static int load_owned_text(const char *path, char *text, size_t len, osc_config *cfg, char *err,
                           size_t errlen)
{
    error_tally tally = {.config = path};
    loader L = {.c = {.path = path, .err = err, .errlen = errlen, .collect = true, .tally = &tally},
                .cfg = cfg};
    ynode *root = NULL;
    int status = len > CONFIG_MAX_BYTES
                     ? cfg_fail_at(&L.c, 0, 0, NULL, "larger than %u MiB, not a config",
                                   CONFIG_MAX_BYTES >> 20)
                     : cfg_reject_nul(&L.c, text, len);
    if (!status)
        status = cfg_parse_tree(&L.c, text, len, &root);
    if (!status) {
        L.root = root;
        cfg->text = text;
        text = NULL;
        cfg->path = strdup(path);
        status = cfg->path ? load_tree(&L) : cfg_fail_at(&L.c, 0, 0, NULL, "out of memory");
    }
    free_spec(&L.stiffness);
    free_spec(&L.drag);
    free_spec(&L.dt);
    free_spec(&L.zeta);
    free_spec(&L.mass);
    cfg_ynode_free(root);
    free(text);
    if (status && err && errlen)
        cfg_append_tally(&L.c);
    if (status)
        config_free(cfg);
    return status ? CONFIG_BAD : 0;
}

int config_load(const char *path, osc_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    if (err && errlen)
        err[0] = '\0';
    ctx c = {.path = path, .err = err, .errlen = errlen};
    char *text = NULL;
    size_t len = 0;
    if (cfg_read_all(&c, &text, &len, &cfg->read_files[0]))
        return CONFIG_BAD;
    cfg->nread_files = 1;
    return load_owned_text(path, text, len, cfg, err, errlen);
}

int config_load_text(const char *path, const char *text, size_t len, osc_config *cfg, char *err,
                     size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    if (err && errlen)
        err[0] = '\0';
    char *copy = len < SIZE_MAX ? malloc(len + 1) : NULL;
    if (!copy) {
        ctx c = {.path = path, .err = err, .errlen = errlen};
        return cfg_fail_at(&c, 0, 0, NULL, "out of memory for %zu bytes", len);
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    return load_owned_text(path, copy, len, cfg, err, errlen);
}

void config_free(osc_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->path);
    free(cfg->name);
    free(cfg->text);
    free(cfg->methods);
    free(cfg->stiffness.values);
    free(cfg->drag.values);
    free(cfg->dt.values);
    free(cfg->omega0_axis.values);
    free(cfg->zeta_axis.values);
    free(cfg->rate_hz.values);
    free(cfg->mass.values);
    free(cfg->trace_points);
    free(cfg->stability_zeta.values);
    for (size_t i = 0; i < cfg->nuser_methods; i++)
        if (cfg->user_methods[i].release)
            cfg->user_methods[i].release(&cfg->user_methods[i].method);
    free(cfg->user_methods);
    free(cfg->included_text);
    memset(cfg, 0, sizeof *cfg);
}

const config_user_method *config_user_method_of(const osc_config *cfg, const osc_method *m)
{
    for (size_t i = 0; cfg && m && i < cfg->nuser_methods; i++)
        if (&cfg->user_methods[i].method == m)
            return &cfg->user_methods[i];
    return NULL;
}

double config_stiffness(const osc_config *cfg, size_t stiffness, size_t mass)
{
    if (!cfg->omega0_axis.count)
        return cfg->stiffness.values[stiffness];
    const double m = cfg->mass.values[mass], omega0 = cfg->omega0_axis.values[stiffness];
    return m * omega0 * omega0;
}

double config_drag(const osc_config *cfg, size_t stiffness, size_t drag, size_t mass)
{
    if (!cfg->zeta_axis.count)
        return cfg->drag.values[drag];
    return 2.0 * cfg->zeta_axis.values[drag] *
           osc_sqrt_km(config_stiffness(cfg, stiffness, mass), cfg->mass.values[mass]);
}

size_t config_lane_count(const osc_config *cfg)
{
    return cfg->nmethods * cfg->dt.count * cfg->mass.count * cfg->stiffness.count *
           cfg->drag.count;
}

int config_error(const osc_config *cfg, const char *key, char *err, size_t errlen,
                 const char *fmt, ...)
{
    int line = 0, col = 0;
    for (int k = 0; k < CONFIG_NKEYS; k++)
        if (cfg->loc[k].key && strcmp(cfg->loc[k].key, key) == 0) {
            line = cfg->loc[k].line;
            col = cfg->loc[k].col;
        }
    ctx c = {.path = cfg->path ? cfg->path : "config", .err = err, .errlen = errlen};
    va_list ap;
    va_start(ap, fmt);
    cfg_vfail_at(&c, line, col, key, fmt, ap);
    va_end(ap);
    return CONFIG_BAD;
}
