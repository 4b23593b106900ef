/* Where each lane of a sweep sits: the one definition of the /points row layout.
 *
 *     row = ((method * ndt + dt) * nstiffness + stiffness) * ndrag + drag
 *
 * A batch is one (method, dt): its lanes are the stiffness x drag grid, stiffness-major, so a
 * batch's rows are contiguous and lane = stiffness * ndrag + drag within it. Everything that
 * walks /points (the sweep, the analyses, the summary, traces) goes through these functions. */
#ifndef OSCBENCH_LAYOUT_H
#define OSCBENCH_LAYOUT_H

#include <stddef.h>

#include "config.h"

typedef struct sweep_layout {
    size_t nmethods, ndt, nstiffness, ndrag;
} sweep_layout;

/* A lane's coordinates: indices into the config's methods, dt, stiffness and drag lists. */
typedef struct sweep_index {
    size_t method, dt, stiffness, drag;
} sweep_index;

static inline sweep_layout layout_of(const osc_config *cfg)
{
    return (sweep_layout){cfg->nmethods, cfg->dt.count, cfg->stiffness.count, cfg->drag.count};
}

/* Lanes per (method, dt) batch, and rows per method. */
static inline size_t layout_lanes(sweep_layout l) { return l.nstiffness * l.ndrag; }
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
static inline size_t layout_lane(sweep_layout l, size_t stiffness, size_t drag)
{
    return stiffness * l.ndrag + drag;
}

static inline size_t layout_row(sweep_layout l, sweep_index i)
{
    return layout_batch_row0(l, layout_batch(l, i.method, i.dt)) +
           layout_lane(l, i.stiffness, i.drag);
}

/* Lane `lane` of the (method, dt) batch. */
static inline sweep_index layout_index_in(sweep_layout l, size_t method, size_t dt, size_t lane)
{
    return (sweep_index){method, dt, lane / l.ndrag, lane % l.ndrag};
}

static inline sweep_index layout_index(sweep_layout l, size_t row)
{
    size_t lanes = layout_lanes(l), batch = row / lanes;
    return layout_index_in(l, batch / l.ndt, batch % l.ndt, row % lanes);
}

#endif
