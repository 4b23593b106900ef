/* Where each lane of a sweep sits: the one definition of the /points row layout.
 *
 *     row = (((method * ndt + dt) * nmass + mass) * nstiffness + stiffness) * ndrag + drag
 *
 * A batch is one (method, dt): its lanes are the mass x stiffness x drag grid, mass-major, so a
 * batch's rows are contiguous and lane = (mass * nstiffness + stiffness) * ndrag + drag within
 * it. With one mass (nmass 1, mass 0) this is ((method * ndt + dt) * nstiffness + stiffness) *
 * ndrag + drag, the layout of the files written before mass could be swept: row for row the same.
 * Everything that walks /points (the sweep, the analyses, the summary, traces) goes through
 * these functions. */
#ifndef OSCBENCH_LAYOUT_H
#define OSCBENCH_LAYOUT_H

#include <stddef.h>

#include "config.h"

typedef struct sweep_layout {
    size_t nmethods, ndt, nstiffness, ndrag, nmass;
} sweep_layout;

/* A lane's coordinates: indices into the config's methods, dt, stiffness, drag and mass lists
 * (mass last, so that an initializer that names four of them means what it did before mass was
 * an axis: mass index 0). */
typedef struct sweep_index {
    size_t method, dt, stiffness, drag, mass;
} sweep_index;

static inline sweep_layout layout_of(const osc_config *cfg)
{
    return (sweep_layout){.nmethods = cfg->nmethods, .ndt = cfg->dt.count,
                          .nstiffness = cfg->stiffness.count, .ndrag = cfg->drag.count,
                          .nmass = cfg->mass.count};
}

/* Lanes per (method, dt) batch, and rows per method. */
static inline size_t layout_lanes(sweep_layout l) { return l.nmass * l.nstiffness * l.ndrag; }
static inline size_t layout_rows_per_method(sweep_layout l) { return l.ndt * layout_lanes(l); }
static inline size_t layout_rows(sweep_layout l) { return l.nmethods * layout_rows_per_method(l); }

/* Batch b = method * ndt + dt; its first row; a lane's index within its batch. */
static inline size_t layout_batch(sweep_layout l, size_t method, size_t dt)
{
    return method * l.ndt + dt;
}
static inline size_t layout_batch_row0(sweep_layout l, size_t batch)
{
    return batch * layout_lanes(l);
}
static inline size_t layout_lane(sweep_layout l, sweep_index i)
{
    return (i.mass * l.nstiffness + i.stiffness) * l.ndrag + i.drag;
}

static inline size_t layout_row(sweep_layout l, sweep_index i)
{
    return layout_batch_row0(l, layout_batch(l, i.method, i.dt)) + layout_lane(l, i);
}

/* Lane `lane` of the (method, dt) batch. */
static inline sweep_index layout_index_in(sweep_layout l, size_t method, size_t dt, size_t lane)
{
    const size_t spring = lane / l.ndrag; /* mass * nstiffness + stiffness */
    return (sweep_index){.method = method, .dt = dt, .stiffness = spring % l.nstiffness,
                         .drag = lane % l.ndrag, .mass = spring / l.nstiffness};
}

static inline sweep_index layout_index(sweep_layout l, size_t row)
{
    size_t lanes = layout_lanes(l), batch = row / lanes;
    return layout_index_in(l, batch / l.ndt, batch % l.ndt, row % lanes);
}

/* A lane's spring: stiffness k, drag c and mass m, in the config's own way of giving them
 * (omega0 and zeta make k and c depend on the lane's mass too). */
typedef struct sweep_spring {
    double k, c, m;
} sweep_spring;

static inline sweep_spring layout_spring(const osc_config *cfg, sweep_index i)
{
    return (sweep_spring){.k = config_stiffness(cfg, i.stiffness, i.mass),
                          .c = config_drag(cfg, i.stiffness, i.drag, i.mass),
                          .m = cfg->mass.values[i.mass]};
}

#endif
