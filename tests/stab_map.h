/* The step shared by the stability tests' test-only maps. A method file defines
 * F(map_factor)(h, zeta), a real factor lambda as a function of h = omega0*dt and the damping
 * ratio zeta = gam / (2 omega0), and includes this in its OSC_PASS branch. The step is
 * (x, v)' = lambda(h, zeta) (x, v): the spectral radius is |lambda|, known exactly, and a lane's
 * energy norm after n steps is |lambda|^n. The force is ignored. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    (void)g;
    k[0] = F(map_factor)(dt * sqrt(w2), gam / (2 * sqrt(w2)));
    k[1] = k[2] = k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused,
                                real lambda, real unused_k1, real unused_k2, real unused_k3,
                                real dt)
{
    (void)unused, (void)unused_k1, (void)unused_k2, (void)unused_k3, (void)dt;
    *x *= lambda;
    *v *= lambda;
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real lambda = F(map_factor)(dt * sqrt(c.w2), c.gam / (2 * sqrt(c.w2)));
    s[0] *= lambda;
    s[1] *= lambda;
}
