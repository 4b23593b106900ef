#!/usr/bin/python3
"""An independent oracle for the results file: a small 3-D sweep of every built-in method
(masses 0.5, 2 and 0; stiffness 0 and > 0; undamped, under-, critically and overdamped lanes;
gravity; x0, v0 per axis; E(0) < 0 on some lanes), each /points row and trace recomputed with
numpy from README.md and docs/model.md alone; with it the stability columns (stable,
unstable_step, last_stable_*, *_while_stable: for these stable lanes the final and worst values).
A second run where lanes blow up part way or overflow to Inf/NaN checks README's instability rule
at its audits; a third, in float, two methods against a float32 loop and, beyond double's
tolerance, away from a float64 one. A fourth, twice (maxima every_step, audits): lanes by omega0,
zeta, rate_hz at three masses (k, c, dt recomputed; errors equal to their twins' at another mass),
audited on README's automatic schedule, with `unstable_drift` set. A disagreement is a line
naming row, column and both values, and exit 1.
usage: check_oracle.py OSCBENCH   (Debian's python3: h5py, numpy)
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

if not all(importlib.util.find_spec(m) for m in ("h5py", "numpy")):
    print("skipped: h5py or numpy is missing")
    sys.exit(77)
import h5py  # noqa: E402
import numpy as np  # noqa: E402

METHODS = ["euler", "semi-implicit", "verlet", "stormer", "rk4", "forest-ruth",
           "implicit-midpoint", "verlet-implicit-drag", "verlet-zero-start"]
DTS, MASSES, KS, CS = [0.01, 0.02, 0.05], [0.5, 2.0, 0.0], [0.0, 2.0, 8.0], [0.0, 0.5, 2.0, 8.0]
G, X0, V0, T_END = -3.0, [1.0, -0.5, 1.0], [0.5, 1.0, -1.0], 2.0
TRACE = {"stiffness": 2.0, "drag": 2.0, "mass": 0.5, "dt": 0.02, "every": 10}
# zeta = c / (2 sqrt(k m)) is exactly 1 at (k, c, m) = (2, 2, 0.5), (8, 8, 2): critical lanes.
KEYS = {"name": "oracle", "methods": f"[{', '.join(METHODS)}]", "dim": 3, "stiffness": KS,
        "drag": CS, "mass": MASSES, "gravity": G, "x0": X0, "v0": V0, "dt": DTS, "t_end": T_END,
        "trace": "{every: %(every)s, where: {stiffness: %(stiffness)s, drag: %(drag)s, "
                 "mass: %(mass)s, dt: %(dt)s}}" % TRACE}
CONFIG = "".join(f"{key}: {value}\n" for key, value in KEYS.items())
# A second run where lanes blow up part way: at dt 0.1, omega0 dt = 0.1, 0.55, 2.02 (the
# symplectic ones just past 2: growth ~1.33 per step), 2.9 (rk4 just past 2 sqrt(2): ~1.2),
# 1e31 (Inf/NaN within the first audit interval); at dt 0.3 three times those; a free fall
# (k = 0; with drag 30, gam dt = 3 or 9: explicit ones blow up with no rest distance, so a NaN
# relative error); pinned lanes at rest (their scale is 0, and 'exceeds' is strict: stable).
UNSTABLE = {"masses": [1.0, 0.0], "ks": [0.0, 1.0, 30.0, 408.0, 841.0, 1e64],
            "cs": [0.0, 0.5, 30.0],
            "g": -3.0,
            "x0": 0.0, "v0": 0.0, "steps": 200}
UNSTABLE_DTS, AUDIT_EVERY = [0.1, 0.3], 10
UNSTABLE_CONFIG = (f"name: oracle-unstable\nmethods: [{', '.join(METHODS)}]\ndim: 3\n"
                   f"stiffness: {UNSTABLE['ks']}\ndrag: {UNSTABLE['cs']}\n"
                   f"mass: {UNSTABLE['masses']}\ngravity: {UNSTABLE['g']}\nx0: 0\nv0: 0\n"
                   f"dt: {UNSTABLE_DTS}\nsteps: {UNSTABLE['steps']}\n"
                   f"audit_every: {AUDIT_EVERY}\n")
# A third run in float: semi-implicit and rk4 stepped by a float32 numpy loop; every input is
# a float (dt = 2^-6), so the kernels' inputs are those of the double closed form.
FLOAT = {"masses": [0.5, 2.0], "ks": [2.0, 8.0], "cs": [0.0, 0.5], "g": G, "x0": X0, "v0": V0,
         "steps": 128}
FLOAT_METHODS, FLOAT_DT = ["semi-implicit", "rk4"], 2.0 ** -6
FLOAT_CONFIG = (f"name: oracle-float\nprecision: float\nmethods: [{', '.join(FLOAT_METHODS)}]\n"
                f"dim: 3\nstiffness: {FLOAT['ks']}\ndrag: {FLOAT['cs']}\nmass: {FLOAT['masses']}\n"
                f"gravity: {G}\nx0: {X0}\nv0: {V0}\ndt: {FLOAT_DT}\nsteps: {FLOAT['steps']}\n")
# A fourth, run twice (maxima every_step, then audits): springs by omega0 and zeta at three
# masses (0.5 and 2 a power of two apart), dt by rate_hz (1/60, 1/35 not binary; t_end/dt
# 588.6 and 343.35 not whole), audits automatic, and a drift limit that explicit Euler's slow
# energy growth (~(omega0 dt)^2 per step) and semi-implicit's energy oscillation cross long
# before the distance rule would call them unstable.
# From x0 = 1 (E(0) small against its terms at omega0 1) semi-implicit's drift crosses -0.1
# before +0.1 on some lanes: the limit is on |drift|.
SCALED = {"masses": [0.5, 2.0, 3.0], "omega0": [1.0, 4.0, 12.0], "zeta": [0.0, 0.05], "g": G,
          "x0": [1.0] * 3, "v0": V0, "t_end": 9.81}
SCALED_METHODS, SCALED_RATES = ["euler", "semi-implicit"], [100, 60, 35]
SCALED_CONFIG = (f"name: oracle-scaled\nmethods: [{', '.join(SCALED_METHODS)}]\ndim: 3\n"
                 f"omega0: {SCALED['omega0']}\nzeta: {SCALED['zeta']}\n"
                 f"mass: {SCALED['masses']}\ngravity: {G}\nx0: 1\nv0: {V0}\n"
                 f"rate_hz: {SCALED_RATES}\nt_end: {SCALED['t_end']}\nunstable_drift: 0.1\n"
                 "maxima: %s\n")
EPS = np.finfo(float).eps
FR_W1 = 1 / (2 - 2 ** (1 / 3))
FR_W0 = 1 - 2 * FR_W1

SWEEP = {"masses": MASSES, "ks": KS, "cs": CS, "g": G, "x0": X0, "v0": V0, "t_end": T_END}

class Lanes:
    """One (dt) block's lanes, (mass, stiffness, drag) in row order, as column vectors."""

    def __init__(self, dt, sweep=SWEEP):
        m, s, d = (a.ravel()[:, None] for a in np.meshgrid(
            sweep["masses"], sweep.get("omega0", sweep.get("ks")),
            sweep.get("zeta", sweep.get("cs")), indexing="ij"))
        k = m * s * s if "omega0" in sweep else s       # README: k = m omega0^2
        c = 2 * d * np.sqrt(k * m) if "zeta" in sweep else d   # c = 2 zeta sqrt(k m)
        G, X0, V0 = sweep["g"], sweep["x0"], sweep["v0"]
        self.dt, self.m, self.k, self.c, self.G = dt, m, k, c, G
        pinned = m == 0
        inv_m = np.where(pinned, 0.0, 1 / np.where(pinned, 1, m))
        self.w2, self.gam = k * inv_m, c * inv_m            # mass 0: inverse mass 0, no force
        self.g = np.where(pinned, 0.0, np.array([0.0, 0.0, G]))   # gravity on the last axis
        self.x0 = np.broadcast_to(np.array(X0), (len(m), 3)).copy()
        # a pinned lane's v0 is taken as 0
        self.v0 = np.where(pinned, 0.0, np.broadcast_to(np.array(V0), (len(m), 3)))
        self.rest = np.zeros_like(self.x0)                  # README: -m g / k on the last axis
        self.rest[:, 2] = np.where(k[:, 0] > 0, -m[:, 0] * G / np.maximum(k[:, 0], 1e-300), 0)
        self.steps = sweep.get("steps") or int(round(sweep["t_end"] / dt))

    def acc(self, x, v):
        return -self.w2 * x - self.gam * v - self.g

# ---- the methods, as README's / docs/model.md's method tables define one step -------------
def euler(L, x, v, _):
    return x + v * L.dt, v + L.acc(x, v) * L.dt, None      # moves with the OLD velocity

def semi_implicit(L, x, v, _):
    v2 = v + L.acc(x, v) * L.dt
    return x + v2 * L.dt, v2, None                          # moves with the NEW velocity

def verlet(L, x, v, stored):
    """Velocity Verlet; `stored` is verlet-zero-start's acceleration (from 0), None for verlet."""
    a = L.acc(x, v) if stored is None else stored
    h = v + a * L.dt / 2
    x2 = x + h * L.dt
    a2 = L.acc(x2, h)                       # the drag at the half-step velocity
    return x2, v + (a + a2) * L.dt / 2, None if stored is None else a2

def rk4(L, x, v, _):
    h = L.dt
    k1x, k1v = v, L.acc(x, v)
    k2x, k2v = v + h / 2 * k1v, L.acc(x + h / 2 * k1x, v + h / 2 * k1v)
    k3x, k3v = v + h / 2 * k2v, L.acc(x + h / 2 * k2x, v + h / 2 * k2v)
    k4x, k4v = v + h * k3v, L.acc(x + h * k3x, v + h * k3v)
    return (x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x),
            v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v), None)

def forest_ruth(L, x, v, _):
    for w in (FR_W1, FR_W0, FR_W1):
        h, y = w * L.dt, L.gam * w * L.dt / 2
        e = (1 - y / 2 + y * y / 12) / (1 + y / 2 + y * y / 12)   # Pade(2,2) of exp(-y)
        v = v * e
        v = v + h / 2 * (-L.w2 * x - L.g)
        x = x + h * v
        v = (v + h / 2 * (-L.w2 * x - L.g)) * e
    return x, v, None

def implicit_midpoint(L, x, v, _):
    # The two equations, linear in (x', v'): x' - h/2 v' = b1, h w2/2 x' + (1 + h gam/2) v' = b2
    h = L.dt
    a21, a22 = h * L.w2 / 2, 1 + h * L.gam / 2
    b1, b2 = x + h / 2 * v, v - h * L.w2 * x / 2 - h * L.gam * v / 2 - h * L.g
    det = a22 + h / 2 * a21
    return (b1 * a22 + h / 2 * b2) / det, (b2 - a21 * b1) / det, None

def verlet_implicit_drag(L, x, v, _):
    h = v + L.dt / 2 * L.acc(x, v)
    x2 = x + h * L.dt
    return x2, (h + L.dt / 2 * (-L.w2 * x2 - L.g)) / (1 + L.gam * L.dt / 2), None

def stormer(L, x, _, d):
    """Position Verlet carried as (x, d = x - x_prev), the drag at the centred velocity
    (d' + d)/(2 dt); the readout v (1 + gam dt/2) = d/dt + dt/2 (-w2 x - g) is docs/model.md's."""
    den = 1 + L.gam * L.dt / 2
    d = (d * (1 - L.gam * L.dt / 2) + L.dt ** 2 * (-L.w2 * x - L.g)) / den
    x = x + d
    return x, (d / L.dt + L.dt / 2 * (-L.w2 * x - L.g)) / den, d

STEPS = {"euler": euler, "semi-implicit": semi_implicit, "verlet": verlet, "rk4": rk4,
         "forest-ruth": forest_ruth, "implicit-midpoint": implicit_midpoint,
         "verlet-implicit-drag": verlet_implicit_drag, "verlet-zero-start": verlet,
         "stormer": stormer}

def trajectory(method, L):
    """(steps + 1, lanes, 3) positions and velocities, step 0 included."""
    x, v, xs, vs = L.x0.copy(), L.v0.copy(), [L.x0], [L.v0]
    a = np.zeros_like(x) if method == "verlet-zero-start" else None       # the stored force
    if method == "stormer":                                  # x_prev = x0 - v0 dt + a0 dt^2/2
        a = L.v0 * L.dt - L.acc(L.x0, L.v0) * L.dt ** 2 / 2
    for _ in range(L.steps):
        x, v, a = STEPS[method](L, x, v, a)
        xs.append(x)
        vs.append(v)
    return np.array(xs), np.array(vs)

# ---- the closed form about the rest point (docs/model.md, "The exact solution") -----------
def exact(L, t):
    """x, v at times t (shape (T,)) for every lane: (T, lanes, 3)."""
    t = t[:, None, None]
    u0, v0 = L.x0 - L.rest, L.v0
    w, gam, spring = np.sqrt(L.w2), L.gam, L.w2 > 0
    zeta = gam / (2 * np.where(spring, w, 1.0))
    x, v = np.zeros(t.shape[:1] + u0.shape), np.zeros(t.shape[:1] + u0.shape)
    for sel, fn in ((spring & (zeta < 1), under), (spring & (zeta == 1), critical),
                    (spring & (zeta > 1), over), (~spring, free)):
        rows = sel[:, 0]
        if rows.any():
            x[:, rows], v[:, rows] = fn(t, u0[rows], v0[rows], w[rows], zeta[rows], gam[rows],
                                        L.g[rows])
    return x + L.rest, v

def under(t, u0, v0, w, z, _gam, _g):
    wd = w * np.sqrt(1 - z * z)
    b = (v0 + z * w * u0) / wd
    e, cs, sn = np.exp(-z * w * t), np.cos(wd * t), np.sin(wd * t)
    return (e * (u0 * cs + b * sn),
            e * ((b * wd - z * w * u0) * cs - (u0 * wd + z * w * b) * sn))

def critical(t, u0, v0, w, _z, _gam, _g):
    b = v0 + w * u0
    e = np.exp(-w * t)
    return e * (u0 + b * t), e * (b - w * (u0 + b * t))

def over(t, u0, v0, w, z, _gam, _g):
    s = np.sqrt(z * z - 1)
    r1, r2 = -w * (z - s), -w * (z + s)
    a = (v0 - r2 * u0) / (r1 - r2)
    b = u0 - a
    e1, e2 = np.exp(r1 * t), np.exp(r2 * t)
    return a * e1 + b * e2, a * r1 * e1 + b * r2 * e2

def free(t, x0, v0, _w, _z, gam, g):
    """Ballistic under drag gam and gravity g (stiffness 0): v' = -gam v - g."""
    pos, ge = gam > 0, np.where(gam > 0, gam, 1.0)
    vinf = -g / ge                                          # terminal velocity under drag
    x_drag = x0 + vinf * t - (v0 - vinf) * np.expm1(-ge * t) / ge
    v_drag = vinf + (v0 - vinf) * np.exp(-ge * t)
    return (np.where(pos, x_drag, x0 + v0 * t - g * t * t / 2),
            np.where(pos, v_drag, v0 - g * t))

# ---- what is measured (README "Definitions") -----------------------------------------------
def energy(L, x, v):
    return 0.5 * L.m[:, 0] * (v * v).sum(-1) + 0.5 * L.k[:, 0] * (x * x).sum(-1) \
        + L.m[:, 0] * L.G * x[..., 2]

def energy_scale(L):
    """|E(0)|; if E(0) is zero to rounding (16 eps of its terms' magnitudes), the initial energy
    about the rest point; if that is zero too, 1."""
    m, k = L.m[:, 0], L.k[:, 0]
    kinetic, spring = 0.5 * m * (L.v0 ** 2).sum(-1), 0.5 * k * (L.x0 ** 2).sum(-1)
    e0, gravity = energy(L, L.x0, L.v0), np.abs(m * L.G * L.x0[:, 2])
    about_rest = kinetic + 0.5 * k * ((L.x0 - L.rest) ** 2).sum(-1)
    return np.where(np.abs(e0) > 16 * EPS * (kinetic + spring + gravity), np.abs(e0),
                    np.where(about_rest > 0, about_rest, 1.0))

def measures(L, x, v, eps=EPS):
    """Per step and lane: error, drift, energy, rel_error, and the rounding tolerances."""
    n = np.arange(x.shape[0])
    xe, ve = exact(L, n * L.dt)
    m, k = L.m[:, 0], L.k[:, 0]
    d_energy = 0.5 * m * ((v - ve) * (v + ve)).sum(-1) + 0.5 * k * ((x - xe) * (x + xe)).sum(-1) \
        + m * L.G * (x - xe)[..., 2]
    err = np.sqrt(((x - xe) ** 2).sum(-1))
    dist0 = np.sqrt(((L.x0 - L.rest) ** 2).sum(-1))
    rel = np.where(m == 0, np.nan, err / np.where(dist0 > 0, dist0, np.nan))
    # Tolerance: the kernels (FMAs, dt-prescaled coefficients) and this loop each round a few
    # times per step, relative to the state's size; the C exact motion is co-stepped with
    # ~16 N eps of the motion's scale (README). Over N steps, at a propagator norm ~1 in the
    # energy norm, both sum to <= 64 (N + 1) eps times the largest |x|, |v| of the run; the
    # closed form's phase omega0 t carries ~eps omega0 t besides (lib/audit.h): all of it at
    # omega0 dt = 1e31, where no exact value is meaningful. Where the method's motion grows past
    # the exact one's (near or past its stability limit), so does the rounding it carries.
    sx = np.abs(np.concatenate([x, xe])).max(axis=(0, 2)) + np.abs(L.rest).max(-1)
    sv = np.abs(np.concatenate([v, ve])).max(axis=(0, 2))
    exact_size = np.abs(xe).max(axis=(0, 2)) + np.abs(L.rest).max(-1) + np.abs(ve).max(axis=(0, 2))
    growth = np.maximum(1, (sx + sv) / np.where(exact_size > 0, exact_size, np.inf))
    units = (64 * len(n) * growth + np.sqrt(L.w2[:, 0]) * L.steps * L.dt) * eps
    tx, tv = units * sx, units * sv
    te = m * sv * tv + k * sx * tx + m * abs(L.G) * tx + 8 * eps * (m * sv ** 2 + k * sx ** 2)
    scale = energy_scale(L)
    return dict(error=err, drift=d_energy / scale, energy=energy(L, x, v), rel=rel, xe=xe, ve=ve,
                tol_x=tx, tol_v=tv, tol_e=te, tol_drift=te / scale,
                tol_rel=tx / np.where(dist0 > 0, dist0, np.inf))

def expected_block(L, M):
    """The /points columns of one (method, dt) block and their tolerances (0: exact)."""
    N, (m, k, c) = L.steps, (a[:, 0] for a in (L.m, L.k, L.c))
    spring, ones = (m > 0) & (k > 0), np.ones_like(m)
    ms, ks = np.where(spring, m, 1.0), np.where(spring, k, 1.0)
    zeta = np.where(c == 0, 0.0, np.where(spring, c / (2 * np.sqrt(ks * ms)), np.inf))
    return {"dt": (L.dt * ones, 0), "stiffness": (k, 0), "drag": (c, 0), "mass": (m, 0),
            "steps": (N * ones, 0), "t_end": (N * L.dt * ones, 0),
            "stable": (ones, 0),             # every lane: growth at most ~2.2 of 1000 allowed
            "omega_dt": (np.where(spring, np.sqrt(ks / ms) * L.dt, 0.0), 4 * EPS * ones),
            "zeta": (zeta, 4 * EPS * ones),
            "final_error": (M["error"][N], M["tol_x"]),
            "max_error": (M["error"].max(0), M["tol_x"]),
            "final_rel_error": (M["rel"][N], M["tol_rel"]),
            "max_rel_error": (M["rel"].max(0), M["tol_rel"]),
            "final_energy": (M["energy"][N], M["tol_e"]),
            "final_drift": (M["drift"][N], M["tol_drift"]),
            "max_abs_drift": (np.abs(M["drift"]).max(0), M["tol_drift"])}

# ---- instability (README "Definitions"; lib/audit.c where README is silent) -----------------
def audit_steps(L, every):
    """The audit steps: every `every` steps and the last step (README: a stable lane's
    last_stable_step is `steps`)."""
    steps = list(range(every, L.steps + 1, every))
    return np.array(steps if steps and steps[-1] == L.steps else steps + [L.steps])

def unstable_at(L, x, v, M, audits, factor, limit, sampled):
    """(audits, lanes): the lane counts as unstable at that audit. The energy norm is
    sqrt(w^2 |dx|^2 + |dv|^2), w^2 = max(omega0^2, 1/t^2); the scale's initial distance from rest
    is weighed by omega0^2 alone (README, from lib/audit.c: rest_norm), the exact state's size by
    w^2. 'Exceeds' is strict: a lane at rest with scale 0 is stable."""
    t = audits * L.dt
    w2 = L.w2[:, 0]
    w2e = np.maximum(w2, 1 / (t[:, None] * t[:, None]))
    xa, va, xe, ve = x[audits], v[audits], M["xe"][audits], M["ve"][audits]
    dist = np.sqrt(w2e * ((xa - xe) ** 2).sum(-1) + ((va - ve) ** 2).sum(-1))
    size = np.sqrt(w2e * (xe ** 2).sum(-1) + (ve ** 2).sum(-1))
    rest_norm = np.sqrt(w2 * ((L.x0 - L.rest) ** 2).sum(-1) + (L.v0 ** 2).sum(-1))
    finite = np.isfinite(xa).all(-1) & np.isfinite(va).all(-1) & np.isfinite(M["energy"][audits])
    # every step: the drift limit holds over the whole interval that the audit ends
    starts = np.concatenate([[1], audits[:-1] + 1])
    drift = np.abs(M["drift"][audits]) if sampled else \
        np.maximum.reduceat(np.abs(M["drift"]), starts, axis=0)
    return ~finite | ~(dist <= factor * (rest_norm + size)) | ~(drift <= limit)

def first_unstable(L, x, v, M, audits, factor, limit, sampled=False):
    bad = unstable_at(L, x, v, M, audits, factor, limit, sampled)
    return np.where(bad.any(0), audits[bad.argmax(0)], -1)

def cut_at(a, last):
    """a (steps + 1, lanes, ...) held at each lane's step `last` from there on."""
    n = np.arange(a.shape[0]).reshape((-1, 1) + (1,) * (a.ndim - 2))
    held = a[last, np.arange(a.shape[1])]
    return np.where(n <= last.reshape((1, -1) + (1,) * (a.ndim - 2)), a, held)

def stability_block(L, x, v, audits, factor, limit, file_unstable, sampled):
    """The stability columns of one block: unstable_step's bracket (the bound within 1e-9
    relative either way, for the co-stepped exact state's rounding) and the columns at and up to
    the last stable audit, taken from the file's unstable_step where it lies in the bracket."""
    with np.errstate(all="ignore"):
        full = measures(L, x, v)
        early = first_unstable(L, x, v, full, audits, factor * (1 - 1e-9), limit * (1 - 1e-9),
                               sampled)
        late = first_unstable(L, x, v, full, audits, factor * (1 + 1e-9), limit * (1 + 1e-9),
                              sampled)
    inside = (file_unstable >= 0) & (early >= 0) & (file_unstable >= early) \
        & ((late < 0) | (file_unstable <= late))
    step = np.where(inside, file_unstable, early)
    before = np.concatenate([[0], audits])[np.searchsorted(audits, np.maximum(step, 0))]
    last = np.where(step < 0, L.steps, before)
    # With the measures held at `last`, expected_block's final_* are the last stable values and
    # its max_* the maxima while stable; the tolerances follow the states up to `last` only.
    M = measures(L, cut_at(x, last), cut_at(v, last))
    M.update({q: cut_at(full[q], last) for q in ("error", "drift", "energy", "rel")})
    if sampled:                 # maxima at the audits (and t = 0, where error and drift are 0)
        on = np.isin(np.arange(L.steps + 1), np.concatenate([[0], audits]))[:, None]
        M.update({q: np.where(on, M[q], 0.0) for q in ("error", "drift", "rel")})
    E = expected_block(L, M)
    unstable = step >= 0
    cols = {"stable": (~unstable, 0), "last_stable_step": (last, 0)}
    for q in ("energy", "drift", "error", "rel_error"):
        cols[f"last_stable_{q}"] = E[f"final_{q}"]
    for q in ("abs_drift", "error", "rel_error"):
        cols[f"max_{q}_while_stable"] = E[f"max_{q}"]
    for col in ("final_energy", "final_drift", "final_error", "final_rel_error", "max_abs_drift",
                "max_error", "max_rel_error"):      # unstable: +inf, but NaN where undefined
        cols[col] = (np.where(unstable & ~np.isnan(E[col][0]), np.inf, E[col][0]), E[col][1])
    agree = inside | ((file_unstable < 0) & (late < 0))
    return dict(early=early, late=late, agree=agree, unstable=unstable, cols=cols)

def check_stability(where, pts, rows, L, x, v, audits, factor, limit, sampled=False):
    got = pts["unstable_step"][rows]
    S = stability_block(L, x, v, audits, factor, limit, got, sampled)
    for i in np.nonzero(~S["agree"])[0]:
        FAILS.append(f"{where((i,))}: unstable_step: file {got[i]}, oracle {S['early'][i]} "
                     f"(to {S['late'][i]} within 1e-9 of the bound)")
    for col, (want, tol) in S["cols"].items():
        check(where, col, pts[col][rows], want, tol)
    return S


FAILS = []

def check(where, column, got, want, tol):
    """Arrays: |got - want| <= tol (+ 4 eps relative where tol > 0: the inputs' roundings)."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    tol = np.broadcast_to(tol, want.shape)
    with np.errstate(invalid="ignore"):                         # inf - inf where both are inf
        diff = np.abs(np.where(got == want, 0.0, got - want))
    ok = diff <= tol + np.where(tol > 0, 4 * EPS * np.abs(want), 0)
    ok |= np.isnan(want) & np.isnan(got)
    for i in zip(*np.nonzero(~ok)):
        FAILS.append(f"{where(i)}: {column}: file {got[i]!r}, oracle {want[i]!r} "
                     f"(tolerance {tol[i]:.3g})")
    finite = np.isfinite(want) & (tol > 0)
    return np.max(diff[finite] / tol[finite], initial=0.0)

def check_points(f):
    """The stable sweep; its stability columns with every step as an audit (a lane stable at
    every step is stable at any audit schedule)."""
    pts, factor, limit = f["points"], f.attrs["unstable_factor"], f.attrs["unstable_drift"]
    methods = pts["method"].asstr()[()]
    lanes, worst, traces = len(MASSES) * len(KS) * len(CS), 0.0, {}
    if len(methods) != len(METHODS) * len(DTS) * lanes:
        FAILS.append(f"/points: {len(methods)} rows, oracle {len(METHODS) * len(DTS) * lanes}")
        return 0.0
    for mi, method in enumerate(METHODS):
        for di, dt in enumerate(DTS):
            L = Lanes(dt)
            x, v = trajectory(method, L)
            M = measures(L, x, v)
            row0 = (mi * len(DTS) + di) * lanes            # README's row order
            rows = slice(row0, row0 + lanes)
            where = lambda i: f"/points row {row0 + i[0]} ({method})"   # noqa: E731
            check(where, "method", methods[rows] == method, np.ones(lanes), 0)
            for col, (want, tol) in expected_block(L, M).items():
                worst = max(worst, check(where, col, pts[col][rows], want, tol))
            check_stability(where, pts, rows, L, x, v, np.arange(1, L.steps + 1), factor, limit)
            if dt == TRACE["dt"]:
                traces[method] = (L, x, v, M)
    check_traces(f, traces)
    return worst

def check_traces(f, traces):
    lanes_per_dt = len(MASSES) * len(KS) * len(CS)
    j = (MASSES.index(TRACE["mass"]) * len(KS) + KS.index(TRACE["stiffness"])) * len(CS) \
        + CS.index(TRACE["drag"])
    for mi, method in enumerate(METHODS):
        row = (mi * len(DTS) + DTS.index(TRACE["dt"])) * lanes_per_dt + j
        name = f"traces/{method}/{row}"
        if name not in f:
            FAILS.append(f"/{name}: missing")
            continue
        L, x, v, M = traces[method]
        n = np.arange(0, L.steps + 1, TRACE["every"])
        M.update(t=n[:, None] * L.dt * np.ones(x.shape[1]), x=x, v=v, x_exact=M["xe"])
        tols = {"t": 4 * EPS, "x": M["tol_x"][j], "v": M["tol_v"][j], "x_exact": M["tol_x"][j],
                "energy": M["tol_e"][j], "drift": M["tol_drift"][j], "error": M["tol_x"][j]}
        for col, tol in tols.items():
            got, w = f[name][col][()], (M[col][:, j] if col == "t" else M[col][n, j])
            if got.shape != w.shape:
                FAILS.append(f"/{name}: {col}: shape {got.shape}, oracle {w.shape}")
            else:
                check(lambda i: f"/{name} {i}", col, got, w, tol)

def check_unstable(f):
    """The second run: every stability column against README's rule, at its audits."""
    pts, factor, limit = f["points"], f.attrs["unstable_factor"], f.attrs["unstable_drift"]
    lanes = len(UNSTABLE["masses"]) * len(UNSTABLE["ks"]) * len(UNSTABLE["cs"])
    if len(pts["method"]) != len(METHODS) * len(UNSTABLE_DTS) * lanes:
        FAILS.append(f"unstable run: {len(pts['method'])} rows")
        return 0
    unstable = 0
    for mi, method in enumerate(METHODS):
        for di, dt in enumerate(UNSTABLE_DTS):
            L = Lanes(dt, UNSTABLE)
            with np.errstate(all="ignore"):                  # overflow to Inf, then NaN
                x, v = trajectory(method, L)
            row0 = (mi * len(UNSTABLE_DTS) + di) * lanes
            where = lambda i: f"unstable run row {row0 + i[0]} ({method}, dt {dt})"  # noqa: E731
            S = check_stability(where, pts, slice(row0, row0 + lanes), L, x, v,
                                audit_steps(L, AUDIT_EVERY), factor, limit)
            unstable += S["unstable"].sum()
    return unstable

def automatic_audits(t_end, dts):
    """README's automatic schedule for a run of t_end: A audits (the largest count from
    min(steps) // 64, clamped to 1..64, down to a quarter of it that divides every dt's steps,
    else that count), each dt audited every lround(t_end / A / dt) steps and at its last."""
    steps = [max(1, round(t_end / dt)) for dt in dts]
    most = min(max(min(steps) // 64, 1), 64)
    A = next((a for a in range(most, 1, -1)
              if 4 * a >= most and all(n % a == 0 for n in steps)), most)
    return A, [min(max(int(np.floor(t_end / A / dt + 0.5)), 1), n) for dt, n in zip(dts, steps)]

def check_scaled(f, sampled):
    """The omega0/zeta/rate_hz run: the lanes' k, c, dt, then every stability column under the
    drift limit at the automatic audits. Returns unstable_step and how many lanes only the drift
    limit made unstable."""
    pts, factor, limit = f["points"], f.attrs["unstable_factor"], f.attrs["unstable_drift"]
    dts, drift_only = [1 / r for r in SCALED_RATES], 0
    _, every = automatic_audits(SCALED["t_end"], dts)
    lanes = len(SCALED["masses"]) * len(SCALED["omega0"]) * len(SCALED["zeta"])
    if len(pts["method"]) != len(SCALED_METHODS) * len(dts) * lanes or limit != 0.1:
        FAILS.append(f"scaled run: {len(pts['method'])} rows, unstable_drift {limit}")
        return np.zeros(0), 0
    for mi, method in enumerate(SCALED_METHODS):
        for di, dt in enumerate(dts):
            L = Lanes(dt, SCALED)
            x, v = trajectory(method, L)
            row0 = (mi * len(dts) + di) * lanes
            rows = slice(row0, row0 + lanes)
            where = lambda i: f"scaled run ({'audits' if sampled else 'every_step'}) row " \
                f"{row0 + i[0]} ({method}, dt {dt:.6g})"                  # noqa: E731
            check(where, "dt", pts["dt"][rows], dt * np.ones(lanes), 0)     # dt = 1/rate_hz
            for col, want in (("stiffness", L.k), ("drag", L.c), ("mass", L.m)):
                check(where, col, pts[col][rows], want[:, 0], 2 * EPS * want[:, 0])
            audits = audit_steps(L, every[di])
            S = check_stability(where, pts, rows, L, x, v, audits, factor, limit, sampled)
            with np.errstate(all="ignore"):
                by_distance = first_unstable(L, x, v, measures(L, x, v), audits, factor, np.inf)
            drift_only += (S["unstable"] & (by_distance < 0)).sum()
            check_twins(where, pts, row0, measures(L, x, v))
    return pts["unstable_step"][()], drift_only

def check_twins(where, pts, row0, M):
    """README: at fixed (omega0, zeta) x(t) does not change with m. Against the mass-2 rows:
    mass 0.5 bit for bit (k, c, k/m, c/m scale exactly by powers of two); mass 3 within 2 tol_x
    (tol_drift) when both are stable: each row's k/m is omega0^2 to ~3 eps, whose phase effect
    is tol_x's eps omega0 t term, and its stepping rounds differently, its 64 N eps term."""
    per = len(SCALED["omega0"]) * len(SCALED["zeta"])
    ref = row0 + SCALED["masses"].index(2.0) * per + np.arange(per)
    for j, m in enumerate(SCALED["masses"]):
        rows, power_of_two = row0 + j * per + np.arange(per), np.log2(m / 2.0).is_integer()
        both = pts["stable"][rows] & pts["stable"][ref]
        for col, q in (("max_error", "tol_x"), ("final_error", "tol_x"),
                       ("max_abs_drift", "tol_drift"), ("unstable_step", None)):
            tol = 0 if power_of_two or q is None else 2 * M[q][ref - row0]
            keep = np.ones(per, bool) if power_of_two else both
            check(lambda i: f"{where((rows[keep][i[0]] - row0,))} (its mass-2 twin)", col,
                  pts[col][rows][keep], pts[col][ref][keep], np.broadcast_to(tol, per)[keep])

def float_lanes(L):
    """L's stepping inputs in float32 (the exact motion stays double)."""
    F = Lanes(L.dt, FLOAT)
    F.dt = np.float32(L.dt)
    for name in ("w2", "gam", "g", "x0", "v0"):
        setattr(F, name, getattr(L, name).astype(np.float32))
    return F

def check_float(f):
    """The float run against a float32 loop: the tolerances of measures() at float's eps."""
    pts, lanes, worst = f["points"], len(FLOAT["masses"]) * len(FLOAT["ks"]) * len(FLOAT["cs"]), 0
    beyond_double = 0
    for mi, method in enumerate(FLOAT_METHODS):
        L = Lanes(FLOAT_DT, FLOAT)
        x, v = trajectory(method, float_lanes(L))
        assert x.dtype == np.float32
        M = measures(L, x.astype(float), v.astype(float), np.finfo(np.float32).eps)
        rows = slice(mi * lanes, (mi + 1) * lanes)
        where = lambda i: f"float run /points row {mi * lanes + i[0]} ({method})"  # noqa: E731
        for col in ("final_error", "max_error", "final_energy", "final_drift", "max_abs_drift",
                    "final_rel_error", "max_rel_error", "stable"):
            want, tol = expected_block(L, M)[col]
            worst = max(worst, check(where, col, pts[col][rows], want, tol))
        beyond_double += count_beyond_double(L, method, pts, rows)
    if beyond_double == 0:
        FAILS.append("float run: every final error and energy agrees with a float64 loop to "
                     "double's tolerance: the run was not computed in float")
    return worst

def count_beyond_double(L, method, pts, rows):
    """How many final errors and energies lie farther from a float64 recomputation than its
    double tolerance (float's rounding, ~6e-8 relative, dwarfs that tolerance here)."""
    x, v = trajectory(method, L)
    E = expected_block(L, measures(L, x, v))
    count = 0
    for col in ("final_error", "final_energy"):
        want, tol = E[col]
        count += (np.abs(pts[col][rows] - want) > tol + 4 * EPS * np.abs(want)).sum()
    return count

def run(tmp, name, config):
    cfg, out = os.path.join(tmp, name + ".yaml"), os.path.join(tmp, name + ".h5")
    with open(cfg, "w") as fh:
        fh.write(config)
    env = dict(os.environ, OSCBENCH_COST_PROBE_LANES="128")   # no timing is checked here
    subprocess.run([sys.argv[1], "run", cfg, "-o", out, "--quiet"], check=True, env=env)
    return out

def check_both_maxima(tmp):
    """The scaled run with maxima every_step and audits; the scenario must exercise the drift
    limit (lanes the distance rule keeps stable) and tell the two settings apart."""
    steps, drift_only = [], []
    for mode in ("every_step", "audits"):
        with h5py.File(run(tmp, "scaled-" + mode, SCALED_CONFIG % mode)) as f:
            if f.attrs["maxima"] != mode:
                FAILS.append(f"scaled run: maxima attribute {f.attrs['maxima']!r}, oracle {mode}")
            got = check_scaled(f, mode == "audits")
        steps.append(got[0])
        drift_only.append(got[1])
    if min(drift_only) == 0 or np.array_equal(*steps):
        FAILS.append(f"scaled run: lanes unstable by the drift limit alone {drift_only}, "
                     "unstable_step the same under both maxima settings: the scenario tests less")
    return drift_only

def main():
    with tempfile.TemporaryDirectory() as tmp:
        with h5py.File(run(tmp, "oracle", CONFIG)) as f:
            if f.attrs["maxima"] != "every_step":   # else max_* are over the audits only
                FAILS.append(f"maxima attribute {f.attrs['maxima']!r}, oracle 'every_step'")
            worst = check_points(f)
        with h5py.File(run(tmp, "unstable", UNSTABLE_CONFIG)) as f:
            unstable = check_unstable(f)
        with h5py.File(run(tmp, "float", FLOAT_CONFIG)) as f:
            worst_float = check_float(f)
        drift_only = check_both_maxima(tmp)
    if FAILS:
        print("\n".join(FAILS[:40]))
        sys.exit(f"{len(FAILS)} disagreements with the oracle")
    print(f"all rows agree ({unstable} lanes unstable); largest difference {worst:.3g} of its "
          f"tolerance ({worst_float:.3g} in float); {drift_only} lanes unstable by the drift "
          "limit alone")

main()
