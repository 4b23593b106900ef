/* The structure-of-arrays batch and the tiled, threaded stepping framework. It never knows which
 * method it runs: everything method-specific goes through the osc_kernels table. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "oscbench.h"

struct osc_batch {
    const osc_method *method;
    osc_precision precision;
    int dim;
    size_t n, cap;     /* lanes in use, lanes allocated (a multiple of OSC_LANE_ALIGN) */
    size_t esize;      /* sizeof(float) or sizeof(double) */
    double gravity;
    double dt;
    long step;         /* -1 before start; after a stopped run, the smallest step a tile reached */
    bool stopped;      /* an audit stopped the last run: tiles stand at different steps */
    void *state[OSC_MAX_DIM][OSC_MAX_STATE];
    void *w2, *gam, *grav, *zeros; /* kernel coefficients, in the batch's precision */
    double *k, *c, *m, *x0, *v0;   /* inputs as given, x0/v0 as [axis * cap + i] */
};

static void *alloc_zeroed(size_t count, size_t esize)
{
    size_t bytes = (count * esize + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void osc_batch_free(osc_batch *b)
{
    if (!b)
        return;
    for (int a = 0; a < OSC_MAX_DIM; a++)
        for (int j = 0; j < OSC_MAX_STATE; j++)
            free(b->state[a][j]);
    free(b->w2), free(b->gam), free(b->grav), free(b->zeros);
    free(b->k), free(b->c), free(b->m), free(b->x0), free(b->v0);
    free(b);
}

static size_t padded(size_t n)
{
    return (n + OSC_LANE_ALIGN - 1) / OSC_LANE_ALIGN * OSC_LANE_ALIGN;
}

size_t osc_batch_bytes(const osc_method *m, osc_precision p, int dim, size_t n)
{
    const size_t esize = p == OSC_FLOAT ? sizeof(float) : sizeof(double), d = (size_t)dim;
    /* state, w2, gam, grav, zeros in the batch's precision; k, c, m, x0, v0 in double */
    return sizeof(osc_batch) + padded(n) * (esize * (d * (size_t)m->nstate + 4) +
                                            sizeof(double) * (3 + 2 * d));
}

int osc_batch_create(osc_batch **out, const osc_method *m, osc_precision p, int dim, size_t n,
                     double g)
{
    *out = NULL;
    if (!m || (p != OSC_DOUBLE && p != OSC_FLOAT) || dim < 1 || dim > OSC_MAX_DIM || n == 0 ||
        !isfinite(g) || n > SIZE_MAX / 64)
        return OSC_EINVAL;
    osc_batch *b = calloc(1, sizeof *b);
    if (!b)
        return OSC_ENOMEM;
    b->method = m, b->precision = p, b->dim = dim, b->n = n, b->gravity = g, b->step = -1;
    b->cap = padded(n);
    b->esize = p == OSC_FLOAT ? sizeof(float) : sizeof(double);
    bool ok = true;
    for (int a = 0; a < dim; a++)
        for (int j = 0; j < m->nstate; j++)
            ok &= (b->state[a][j] = alloc_zeroed(b->cap, b->esize)) != NULL;
    ok &= (b->w2 = alloc_zeroed(b->cap, b->esize)) != NULL;
    ok &= (b->gam = alloc_zeroed(b->cap, b->esize)) != NULL;
    ok &= (b->grav = alloc_zeroed(b->cap, b->esize)) != NULL;
    ok &= (b->zeros = alloc_zeroed(b->cap, b->esize)) != NULL;
    ok &= (b->k = alloc_zeroed(b->cap, sizeof(double))) != NULL;
    ok &= (b->c = alloc_zeroed(b->cap, sizeof(double))) != NULL;
    ok &= (b->m = alloc_zeroed(b->cap, sizeof(double))) != NULL;
    ok &= (b->x0 = alloc_zeroed(b->cap * dim, sizeof(double))) != NULL;
    ok &= (b->v0 = alloc_zeroed(b->cap * dim, sizeof(double))) != NULL;
    if (!ok) {
        osc_batch_free(b);
        return OSC_ENOMEM;
    }
    for (size_t i = 0; i < b->cap; i++)
        b->m[i] = 1; /* padding lanes: unit mass, zero stiffness and drag, at rest, no gravity */
    *out = b;
    return OSC_OK;
}

static void store_real(const osc_batch *b, void *array, size_t i, double value)
{
    if (b->precision == OSC_FLOAT)
        ((float *)array)[i] = (float)value;
    else
        ((double *)array)[i] = value;
}

int osc_batch_set_lane(osc_batch *b, size_t i, double k, double c, double m, const double *x0,
                       const double *v0)
{
    if (i >= b->n || !(k >= 0 && isfinite(k)) || !(c >= 0 && isfinite(c)) ||
        !(m >= 0 && isfinite(m)))
        return OSC_EINVAL;
    for (int a = 0; a < b->dim; a++)
        if ((x0 && !isfinite(x0[a])) || (v0 && !isfinite(v0[a])))
            return OSC_EINVAL;
    bool pinned = m == 0; /* inverse mass 0: no force moves it, and nothing divides by m */
    b->k[i] = k, b->c[i] = c, b->m[i] = m;
    store_real(b, b->w2, i, pinned ? 0 : k / m);
    store_real(b, b->gam, i, pinned ? 0 : c / m);
    store_real(b, b->grav, i, pinned ? 0 : b->gravity);
    for (int a = 0; a < b->dim; a++) {
        b->x0[a * b->cap + i] = x0 ? x0[a] : 0;
        b->v0[a * b->cap + i] = v0 && !pinned ? v0[a] : 0;
    }
    return OSC_OK;
}

osc_soa osc_batch_soa(const osc_batch *b, int axis)
{
    osc_soa s = {.w2 = b->w2, .gam = b->gam, .g = axis == b->dim - 1 ? b->grav : b->zeros};
    for (int j = 0; j < OSC_MAX_STATE; j++)
        s.s[j] = b->state[axis][j];
    return s;
}

int osc_batch_start(osc_batch *b, double dt)
{
    if (!(dt > 0 && isfinite(dt)))
        return OSC_EINVAL;
    b->dt = dt;
    const osc_kernels *kern = &b->method->kernels[b->precision];
    for (int a = 0; a < b->dim; a++) {
        for (size_t i = 0; i < b->cap; i++) {
            store_real(b, b->state[a][0], i, b->x0[a * b->cap + i]);
            store_real(b, b->state[a][1], i, b->v0[a * b->cap + i]);
        }
        osc_soa s = osc_batch_soa(b, a);
        kern->init(&s, 0, b->cap, dt);
    }
    b->step = 0;
    b->stopped = false;
    return OSC_OK;
}

/* One audit interval of tile [i0, i1): axis by axis, or all axes together with the co-step. */
static void step_interval(const osc_batch *b, const osc_kernels *kern, const osc_soa *soa,
                          size_t i0, size_t i1, long chunk, const osc_costep *cs)
{
    if (cs) {
        kern->advance_audited(soa, b->dim, i0, i1, chunk, b->dt, cs);
        return;
    }
    for (int a = 0; a < b->dim; a++)
        kern->advance(&soa[a], i0, i1, chunk, b->dt);
}

/* Tiles a thread takes at a time: a run of neighbouring tiles rather than one, as long as 16 grabs
 * per thread remain (a thread the host slows keeps its partner waiting for at most 1/16 of its
 * share, and small batches still spread over every thread), and at most 8. One tile at a time
 * costs time wherever a thread's next tile is not the one after its last, more the less arithmetic
 * a tile holds: on a 2-core Zen 5 (2 threads, 2^20 lanes, 2048 tiles) the bench ran euler,
 * semi-implicit, verlet and stormer 1.00-1.13x as fast with 8 per grab, 1.03-1.09x in most
 * rounds (four interleaved rounds of medians of 3; rk4, the compositions and the tableau methods
 * alike within the rounds' noise); 2 and 4 per grab fell in between, 16 to 64 no faster than 8;
 * one thread, and batches of 2^16 lanes or fewer, no faster either. (No hardware counters there
 * to say which part of the memory system charges for the jump.) On a 2-core Zen 3 (AVX2,
 * 2026-12-06, nine interleaved rounds of medians of 3, euler to rk4) 8 per grab against one was
 * 0.99-1.03x as fast (medians; euler float 1.03x the only verdict, the rest no direction). */
static size_t tiles_per_grab(size_t ntiles)
{
#ifdef _OPENMP
    const size_t threads = (size_t)omp_get_max_threads();
#else
    const size_t threads = 1;
#endif
    const size_t grab = ntiles / (16 * threads);
    return grab < 1 ? 1 : grab > 8 ? 8 : grab;
}

static int run_tiles(osc_batch *b, long nsteps, long audit_every, const osc_costep *cs,
                     osc_audit_fn audit, void *ctx)
{
    if (b->step < 0 || b->stopped || nsteps < 0)
        return OSC_ESTATE;
    if (audit_every <= 0)
        audit_every = nsteps > 0 ? nsteps : 1;
    const osc_kernels *kern = &b->method->kernels[b->precision];
    osc_soa soa[OSC_MAX_DIM];
    for (int a = 0; a < b->dim; a++)
        soa[a] = osc_batch_soa(b, a);
    const long first = b->step, last = b->step + nsteps;
    const size_t tile = osc_batch_tile_lanes(b);
    const size_t ntiles = (b->cap + tile - 1) / tile, grab = tiles_per_grab(ntiles);
    atomic_int failed = 0;
    long reached = last; /* the smallest step any tile reached */

    /* Each tile runs all its steps while it is in cache; audits fall on absolute multiples of
     * audit_every so that where a run is split never changes what is audited. Once an audit
     * fails, every tile stops before its next interval (a tile not yet begun does not step). */
#pragma omp parallel for schedule(dynamic, grab) reduction(min : reached)
    for (size_t t = 0; t < ntiles; t++) {
        size_t i0 = t * tile, i1 = i0 + tile < b->cap ? i0 + tile : b->cap;
        size_t audit_end = i1 < b->n ? i1 : b->n;
        long done = first;
        while (done < last && !atomic_load(&failed)) {
            long chunk = audit_every - done % audit_every;
            if (chunk > last - done)
                chunk = last - done;
            step_interval(b, kern, soa, i0, i1, chunk, cs);
            done += chunk;
            if (audit && i0 < audit_end) {
                int r = audit(ctx, b, i0, audit_end, done);
                if (r) {
                    int expected = 0;
                    atomic_compare_exchange_strong(&failed, &expected, r);
                }
            }
        }
        reached = done < reached ? done : reached;
    }
    const int result = atomic_load(&failed);
    /* The batch claims no step it did not take: after a stop its step is the one every lane
     * has reached (lanes of other tiles may be further on), and it must be started again. */
    b->step = result ? reached : last;
    b->stopped = result != 0;
    return result;
}

int osc_batch_run(osc_batch *b, long nsteps, long audit_every, osc_audit_fn audit, void *ctx)
{
    return run_tiles(b, nsteps, audit_every, NULL, audit, ctx);
}

int osc_batch_run_costep(osc_batch *b, long nsteps, long audit_every, const osc_costep *cs,
                         osc_audit_fn audit, void *ctx)
{
    if (!cs)
        return OSC_EINVAL;
    return run_tiles(b, nsteps, audit_every, cs, audit, ctx);
}

size_t osc_batch_padded_lanes(const osc_batch *b) { return b->cap; }

size_t osc_batch_tile_lanes(const osc_batch *b)
{
    const osc_kernels *kern = &b->method->kernels[b->precision];
    return kern->tile_lanes ? kern->tile_lanes() : OSC_TILE_LANES;
}

void osc_batch_readout(const osc_batch *b, size_t i0, size_t i1, double *x, double *v)
{
    const osc_kernels *kern = &b->method->kernels[b->precision];
    size_t len = i1 - i0;
    for (int a = 0; a < b->dim; a++) {
        osc_soa s = osc_batch_soa(b, a);
        kern->readout(&s, i0, i1, b->dt, x + a * len, v + a * len);
    }
}

const osc_method *osc_batch_method(const osc_batch *b) { return b->method; }
osc_precision osc_batch_precision(const osc_batch *b) { return b->precision; }
int osc_batch_dim(const osc_batch *b) { return b->dim; }
size_t osc_batch_lanes(const osc_batch *b) { return b->n; }
double osc_batch_dt(const osc_batch *b) { return b->dt; }
long osc_batch_step(const osc_batch *b) { return b->step; }
bool osc_batch_stopped(const osc_batch *b) { return b->stopped; }
double osc_batch_gravity(const osc_batch *b) { return b->gravity; }

void osc_batch_lane(const osc_batch *b, size_t i, double *k, double *c, double *m, double *x0,
                    double *v0)
{
    *k = b->k[i], *c = b->c[i], *m = b->m[i];
    for (int a = 0; a < b->dim; a++) {
        if (x0)
            x0[a] = b->x0[a * b->cap + i];
        if (v0)
            v0[a] = b->v0[a * b->cap + i];
    }
}
