#!/usr/bin/python3
"""Draw oscbench's figures from a results file: `oscbench plot RESULTS.h5 [-o DIR]`.

Writes <stem>_convergence.png, <stem>_stability.png, <stem>_stability_map.png,
<stem>_traces.png and <stem>_work_precision.png (each only when the file has the data for it)
and prints their paths.
Needs Debian's python3-h5py and python3-matplotlib.
"""
import argparse
import math
import os
import sys
import unicodedata
import warnings

try:
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
except ImportError as exc:  # pragma: no cover - depends on the machine
    sys.stderr.write(f"oscbench plot: {exc.name} is missing (apt-get install python3-h5py "
                     "python3-matplotlib)\n")
    sys.exit(1)


class BadResults(Exception):
    """The file is not an oscbench results file, or a table of it is damaged: the message
    names the table or column and what is wrong with it."""


# The columns each table's figures read: name -> kind ("f" a number, "s" a string, "b" a
# flag). The optional ones are missing from older files; a table that is present must have
# every required column, each 1-D and of the table's length.
SCHEMA = {
    "points": ({"method": "s", "dt": "f", "stiffness": "f", "drag": "f", "omega_dt": "f",
                "zeta": "f", "max_error": "f", "max_abs_drift": "f", "stable": "b"},
               {"mass": "f"}),
    "convergence": ({"method": "s", "stiffness": "f", "drag": "f", "measured_order": "f"},
                    {"mass": "f", "zeta": "f", "verdict": "s", "dt_fit_min": "f",
                     "dt_fit_max": "f"}),
    "stability": ({"method": "s", "zeta": "f", "limit_theory": "f", "limit_measured": "f"}, {}),
    "stability_theory": ({"method": "s", "zeta": "f", "limit": "f"}, {}),
    "work_precision": ({"method": "s", "dt": "f", "ns_per_lane": "f", "force_evals": "f",
                        "median_error": "f"},
                       {"median_error_common": "f", "common_points": "f"}),
}
TRACE_COLUMNS = ("t", "x", "x_exact", "drift", "error")
KINDS = {"f": ("fiu", "a number"), "b": ("biu", "a flag"), "s": ("OSU", "a string")}


def column_problem(ds, kind, rows, first):
    """What is wrong with a dataset as a column of `kind` and of as many rows as the table's
    `first` column (rows None: it is the first), or None."""
    if not isinstance(ds, h5py.Dataset):
        return "not a dataset"
    if ds.ndim != 1:
        return f"{'a scalar' if ds.ndim == 0 else f'{ds.ndim}-D'}, not a column"
    if rows is not None and ds.shape[0] != rows:
        return f"{ds.shape[0]} rows, not {rows} as {first}"
    kinds, what = KINDS[kind]
    is_str = h5py.check_string_dtype(ds.dtype) is not None or ds.dtype.kind in "SU"
    if ds.dtype.kind not in kinds or (kind == "s") != is_str:
        return f"{'strings' if is_str else f'of type {ds.dtype}'}, not {what}"
    return None


def check_table(f, name):
    """Raise BadResults unless /name is absent or a table with the columns SCHEMA lists."""
    if name not in f:
        return
    g = f[name]
    if not isinstance(g, h5py.Group):
        raise BadResults(f"/{name}: not a table (a group of columns)")
    required, optional = SCHEMA[name]
    rows, first = None, None
    for col, kind in list(required.items()) + list(optional.items()):
        if col not in g:
            if col in required:
                raise BadResults(f"/{name}/{col}: missing")
            continue
        why = column_problem(g[col], kind, rows, first)
        if why:
            raise BadResults(f"/{name}/{col}: {why}")
        if rows is None:
            rows, first = g[col].shape[0], f"/{name}/{col}"


def check_trace(g, where):
    """Raise BadResults unless g is a trace: columns as long as its t, x and x_exact 1-D or a
    column per axis."""
    n = None
    for col in TRACE_COLUMNS:
        ds = g.get(col)
        if not isinstance(ds, h5py.Dataset) or ds.ndim not in (1, 2) or (
                ds.ndim == 2 and col not in ("x", "x_exact")):
            raise BadResults(f"{where}/{col}: missing or not a column")
        if ds.dtype.kind not in "fiu" or (n is not None and ds.shape[0] != n):
            raise BadResults(f"{where}/{col}: not a number per step of t")
        n = ds.shape[0]


def check_traces(f):
    """Raise BadResults unless /traces is absent or holds /traces/<method>/<row> traces."""
    if "traces" not in f:
        return
    if not isinstance(f["traces"], h5py.Group):
        raise BadResults("/traces: not a group")
    for m, rows in f["traces"].items():
        if not isinstance(rows, h5py.Group):
            raise BadResults(f"/traces/{short(m)}: not a group of traces")
        for r, g in rows.items():
            if not isinstance(g, h5py.Group) or not r.isdigit():
                raise BadResults(f"/traces/{short(m)}/{r}: not a trace (a group named by its row)")
            check_trace(g, f"/traces/{short(m)}/{r}")


def check_results(f):
    """Raise BadResults unless f is an oscbench results file whose tables the figures can
    read."""
    if "points" not in f:
        raise BadResults("not an oscbench results file (no /points table)")
    for name in SCHEMA:
        check_table(f, name)
    check_coordinates(f)
    check_traces(f)


# The coordinates of each table's rows (in /points a lane's): the figures group and sort rows
# by them, where a NaN equals nothing (each row would be a dt of its own), and no run has a
# lane, a fit or a limit at an infinity. Either is a foreign or damaged file, refused as
# `oscbench summary` refuses it in /points (harness/cli/summary_cmd.c). A NaN or infinite
# error, drift, omega0*dt, order or limit is data (an unstable lane, an overflow, no fit).
COORDINATES = {"points": ("dt", "stiffness", "drag", "mass"),
               "convergence": ("stiffness", "drag", "mass"),
               "stability": ("zeta",), "stability_theory": ("zeta",), "work_precision": ("dt",)}


def c_number(x):
    """x as C's %g prints it (summary's message): a NaN with its sign bit set is -nan."""
    return ("-nan" if np.signbit(x) else "nan") if math.isnan(x) else f"{x:g}"


def distinct_digits(values):
    """The fewest significant digits (6 to 17) at which the values print apart with %g: panels of
    drag 1.999999, 2 and 2.000001 (configs/damping.yaml) are not all titled 'drag = 2'."""
    for digits in range(6, 18):
        if len({f"{v:.{digits}g}" for v in values}) == len(set(values)):
            return digits
    return 17


def check_coordinates(f):
    """Raise BadResults, naming the first such row, if a row coordinate of a checked table is
    NaN or infinite."""
    for name, keys in COORDINATES.items():
        for key in keys:
            if name not in f or key not in f[name]:  # mass: older files have no column
                continue
            values = read_column(f, name, key)
            bad = np.flatnonzero(~np.isfinite(values))
            if len(bad):
                raise BadResults(f"/{name}/{key}: row {bad[0]} is {c_number(values[bad[0]])}, "
                                 "not a finite number")


def read_column(f, name, key):
    """/name/key as a numpy array, BadResults if HDF5 cannot read it."""
    try:
        return f[name][key][()]
    except OSError as exc:
        raise BadResults(f"/{name}/{key}: unreadable: {one_line(exc)}") from None


def attr_text(f, name):
    """The file's root attribute name as text, or None (absent, or not text)."""
    value = f.attrs.get(name)
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value if isinstance(value, str) else None


def table(f, name):
    """A checked results table (check_results) as a dict of its SCHEMA columns, as numpy
    arrays (strings decoded), or None."""
    if name not in f:
        return None
    required, optional = SCHEMA[name]
    cols = {}
    for key in list(required) + [k for k in optional if k in f[name]]:
        data = read_column(f, name, key)
        if data.dtype.kind in "OS":
            # dtype=object: a numpy str array is fixed-width, every row as wide as the longest,
            # so one long name in a foreign file's 10^5 rows asked for gigabytes.
            data = np.array([d.decode(errors="replace") if isinstance(d, bytes) else str(d)
                             for d in data], dtype=object)
        cols[key] = data
    return cols


def shown(text):
    """text as oscbench's messages show it (shown_text in harness/common/diag.c, the same rule):
    each byte of a control character, or of a name that is not UTF-8, as '?'; printable text,
    UTF-8 included, as it is."""
    return "".join("?" if "\udc80" <= ch <= "\udcff"  # a byte no UTF-8 (surrogateescape)
                   else "?" * len(ch.encode()) if unicodedata.category(ch) == "Cc" else ch
                   for ch in text)


def say(line):
    """One line on stderr, whatever the paths in it hold: a newline in a file's name would
    split it, an ESC would reach the terminal."""
    sys.stderr.write(shown(line) + "\n")


def one_line(exc):
    """An exception's message, on one line."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def short(name, width=63):
    """A method name cut for a label (oscbench writes at most 63 characters): a longer one
    would not fit, or not even render."""
    return name if len(name) <= width else name[:width - 3] + "..."


def legend_name(name):
    """short(name) for a legend: matplotlib leaves out of a legend every label that starts with
    '_', and a config may name a method '_heun': such a name gets a leading space."""
    name = short(name)
    return " " + name if name.startswith("_") else name


def log_limits(lo, hi, below, above):
    """Limits of a log axis from lo / below to hi * above, kept positive and finite."""
    tiny, huge = np.finfo(float).tiny, np.finfo(float).max
    return max(lo / below, tiny), min(hi * above, huge)


NO_ROWS = np.zeros(0, dtype=np.intp)


def group_rows(values):
    """The rows of each distinct value of a column, in the order of first appearance (for
    methods, the order the run listed them): {value: its row indices, ascending}. One sort
    however many values there are: selecting the whole table per value costs values x rows,
    which for a foreign file whose every row has a name of its own never ended."""
    if len(values) == 0:
        return {}
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    by_value = np.argsort(inverse, kind="stable")
    rows = np.split(by_value, np.cumsum(np.bincount(inverse))[:-1])
    return {distinct[g]: rows[g] for g in np.argsort(first)}


# The most methods a figure draws. A run holds at most 25 (9 built in, 16 defined by their
# coefficients); a foreign file may hold tens of thousands, each a panel or a legend entry
# (a stability map of 60 panels takes a minute, one of 55296 never ended) in a figure no one
# could read.
MAX_METHODS = 32


def first_methods(methods, figure, table, note):
    """The first MAX_METHODS of `methods` (a list, in the order of /table), the others named
    in a note."""
    if len(methods) <= MAX_METHODS:
        return methods
    left = methods[MAX_METHODS:]
    names = ", ".join(map(short, left)) if len(left) <= 2 else \
        f"{short(left[0])} to {short(left[-1])}"
    note(f"{figure} figure: the first {MAX_METHODS} of the {len(methods)} methods of /{table} "
         f"drawn, {len(left)} left off ({names})")
    return methods[:MAX_METHODS]


# The most drag (or zeta) values the convergence figure gives a panel: a drag sweep of a
# hundred values drew 50 rows of panels, an image 28600 pixels tall.
MAX_PANELS = 16


def spread_values(values, name, note):
    """The sorted values, or MAX_PANELS of them evenly spread from the least to the largest, a
    note saying how many of the `name` values were left off."""
    if len(values) <= MAX_PANELS:
        return values
    picked = [values[i] for i in np.round(np.linspace(0, len(values) - 1, MAX_PANELS))
              .astype(int)]
    note(f"convergence figure: {MAX_PANELS} of the {len(values)} {name} values of "
         f"/convergence drawn, spread from {values[0]:g} to {values[-1]:g}, "
         f"{len(values) - MAX_PANELS} left off")
    return picked


# Zetas this close (relative) are one: c = 2 zeta sqrt(k m) of a zeta sweep, taken back as
# c / (2 sqrt(k m)), is zeta give or take an ulp (the summary's rule, harness/cli/report.c).
ZETA_SAME_REL = 1e-12


def clustered(values):
    """Each value as the least of those that chain to it in sorted order, each within
    ZETA_SAME_REL of the one before, and how many such clusters there are."""
    s = np.unique(values)
    finite = np.isfinite(s[1:])
    gap = s[1:] - s[:-1]
    new = np.concatenate(([True], (s[1:] != s[:-1]) & ~(finite & (gap <= ZETA_SAME_REL *
                                                                  np.abs(s[1:])))))
    starts = np.flatnonzero(new)
    least = s[starts][np.cumsum(new) - 1]
    return least[np.searchsorted(s, values)], len(starts)


def panel_key(conv):
    """The fits' column the panels go by and each fit's value of it: zeta when the file has it
    and the fits have fewer zeta values than drag values (a sweep in zeta gives each spring its
    own drag), else drag (also for files from before /convergence had zeta)."""
    if "zeta" in conv and len(conv["zeta"]) and not np.isnan(conv["zeta"]).any():
        zetas, n = clustered(conv["zeta"])
        if n < len(np.unique(conv["drag"])):
            return "zeta", zetas
    return "drag", conv["drag"]


def style(i):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "os^vD<>pX*h"
    return dict(color=colors[i % len(colors)], marker=markers[i % len(markers)])


def plot_convergence(f, out, note):
    pts, conv = table(f, "points"), table(f, "convergence")
    if pts is None or conv is None or len(conv["method"]) == 0:
        return None
    # A mass sweep repeats every spring per mass: the panels show the first mass of the fits
    # (files without a mass column have one mass).
    mass_note = ""
    if "mass" in conv and "mass" in pts and len(set(conv["mass"].tolist())) > 1:
        mass = conv["mass"][0]
        conv = {key: col[conv["mass"] == mass] for key, col in conv.items()}
        pts = {key: col[pts["mass"] == mass] for key, col in pts.items()}
        mass_note = f", m = {mass:g}"
    # max_error is a maximum over every step, or over the audits only (maxima: audits)
    error_label = ("max |x - x_exact| over the audits" if attr_text(f, "maxima") == "audits"
                   else "max |x - x_exact| over the run")
    # A panel per drag value of the fits, or per zeta value for a sweep in zeta (which gives
    # each spring its own drag), at most MAX_PANELS of them.
    by, keys = panel_key(conv)
    values = spread_values(sorted(set(keys.tolist())), by, note)
    conv_by_key, pts_by_drag = group_rows(keys), group_rows(pts["drag"])
    pts_by_method = group_rows(pts["method"])
    drawn = set(first_methods(list(group_rows(conv["method"])), "convergence", "convergence",
                              note))
    ncols = min(2, len(values))
    nrows = (len(values) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(9.5 * ncols, 5.2 * nrows), squeeze=False)
    for ax in axes.flat[len(values):]:
        ax.set_visible(False)
    digits = distinct_digits(values)
    for ax, value in zip(axes.flat, values):
        rows = conv_by_key[value]
        # One stiffness per panel: the one nearest omega0 = 1 (on a log scale), where the
        # sweep's dt range is usually asymptotic and above round-off; its drag (per spring in
        # a zeta sweep).
        ks = np.array(sorted(set(conv["stiffness"][rows].tolist())))
        positive = ks[ks > 0]
        k = positive[np.argmin(np.abs(np.log(positive)))] if len(positive) else ks[0]
        drag = conv["drag"][rows[conv["stiffness"][rows] == k][0]]
        all_err = []
        panel = group_rows(conv["method"][rows])
        for j, m in enumerate(m for m in panel if m in drawn):
            sel = pts_by_method.get(m, NO_ROWS)
            sel = sel[(pts["stiffness"][sel] == k) & (pts["drag"][sel] == drag)]
            dt, err = pts["dt"][sel], pts["max_error"][sel]
            ok = np.isfinite(err) & (err > 0) & pts["stable"][sel].astype(bool)
            if not ok.any():
                continue
            order = np.argsort(dt[ok])
            c = rows[panel[m]]
            c = c[conv["stiffness"][c] == k]
            p = conv["measured_order"][c[0]] if len(c) else float("nan")
            label = f"{legend_name(m)}  p={p:.2f}" if math.isfinite(p) else \
                f"{legend_name(m)}  p=?"
            if len(c) and "verdict" in conv:
                label += f" {short(conv['verdict'][c[0]])}"
            s = style(j)
            ax.loglog(dt[ok][order], err[ok][order], label=label, **s, ms=4, lw=1.2)
            if len(c) and "dt_fit_min" in conv:
                # The fitted range: the same points again under a wide, pale band of the
                # method's colour, from dt_fit_min to dt_fit_max.
                lo, hi = conv["dt_fit_min"][c[0]], conv["dt_fit_max"][c[0]]
                fitted = ok & (dt >= lo) & (dt <= hi)
                if math.isfinite(lo) and fitted.any():
                    fo = np.argsort(dt[fitted])
                    ax.loglog(dt[fitted][fo], err[fitted][fo], color=s["color"], lw=7,
                              alpha=0.25, solid_capstyle="round", zorder=1)
            all_err.extend(err[ok].tolist())
        dts = np.array(sorted(set(pts["dt"][pts_by_drag.get(drag, NO_ROWS)].tolist())))
        if len(dts) > 1 and all_err:
            # Reference slopes through one point at the geometric middle of the data.
            anchor = np.exp((np.log(min(all_err)) + np.log(max(all_err))) / 2)
            mid = np.sqrt(dts[0] * dts[-1])
            for p in (1, 2, 4):
                ref = anchor * (dts / mid) ** p
                ax.loglog(dts, ref, color="0.4", ls="--", lw=0.8)
                ax.annotate(f"slope {p}", (dts[-1], ref[-1]), fontsize=8, color="0.3",
                            xytext=(3, 0), textcoords="offset points", va="center")
            ax.set_ylim(*log_limits(min(all_err), max(all_err), 5, 5))
        ax.set_xlabel("dt")
        ax.set_ylabel(error_label)
        spring = (f"zeta = {value:.{digits}g}, drag = {drag:g}" if by == "zeta"
                  else f"drag = {drag:.{digits}g}")
        ax.set_title(f"convergence, k = {k:g}, {spring}{mass_note}\n"
                     "(pale band: the dt range fitted; legend: fitted order and verdict)",
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        # beside the panel, never over the data; none when no method had a finite error
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        else:
            ax.text(0.5, 0.5, "no error to draw: no stable lane with a positive error at this\n"
                    "spring and drag", ha="center", va="center", transform=ax.transAxes)
    return save(fig, out, "convergence")


def theory_segments(z, lim, top):
    """The theory curve as pieces to draw with lines, broken where the limit jumps so that a
    jump is drawn as a jump: a change between finite and inf/0, or a step between neighbours of
    the dense grid more than 4 times the steps on either side of it (a smooth curve, however
    steep, changes by similar steps) and more than 1% of the plot's height."""
    y = np.where(np.isinf(lim), top, lim)
    d = np.abs(np.diff(y))
    pieces, start = [], 0
    for i in range(1, len(z)):
        a, b = lim[i - 1], lim[i]
        around = max(d[i - 2] if i >= 2 else 0.0, d[i] if i < len(d) else 0.0)
        jump = (np.isinf(a) != np.isinf(b)) or ((a == 0) != (b == 0)) or (
            d[i - 1] > 4 * around and d[i - 1] > 0.01 * top)
        if jump:
            pieces.append((z[start:i], y[start:i]))
            start = i
    pieces.append((z[start:], y[start:]))
    return pieces


def overlap_note(curves):
    """Methods whose theory curves coincide (to 0.1% at every zeta), so one hides the other."""
    names, groups = list(curves), []
    used = set()
    for i, a in enumerate(names):
        if a in used:
            continue
        same = [a]
        for b in names[i + 1:]:
            ya, yb = curves[a], curves[b]
            if b not in used and len(ya) == len(yb) and np.allclose(ya, yb, rtol=1e-3, atol=0):
                same.append(b)
                used.add(b)
        if len(same) > 1:
            groups.append(same)
    return groups


def plot_stability(f, out, note):
    st = table(f, "stability")
    if st is None or len(st["method"]) == 0:
        return None
    dense = table(f, "stability_theory")
    fig, ax = plt.subplots(figsize=(8.5, 5.8))
    finite_max = max([v for v in np.concatenate([st["limit_theory"], st["limit_measured"]])
                      if math.isfinite(v)] + [3.0])
    top = 1.15 * finite_max
    curves = {}
    st_by_method = group_rows(st["method"])
    dense_by_method = group_rows(dense["method"]) if dense is not None else {}
    for j, m in enumerate(first_methods(list(st_by_method), "stability", "stability", note)):
        sel = st_by_method[m]
        z = st["zeta"][sel]
        order = np.argsort(z)
        me = np.where(np.isinf(st["limit_measured"][sel]), top, st["limit_measured"][sel])[order]
        s = style(j)
        if m in dense_by_method:
            dsel = dense_by_method[m]
            dz, dl = dense["zeta"][dsel], dense["limit"][dsel]
            dorder = np.argsort(dz)
            dz, dl = dz[dorder], dl[dorder]
        else:  # an older file: theory at the measured zetas only
            dz, dl = z[order], st["limit_theory"][sel][order]
        curves[m] = np.where(np.isinf(dl), top, dl)
        for k, (pz, py) in enumerate(theory_segments(dz, dl, top)):
            ax.plot(pz, py, "-", color=s["color"], lw=1.3,
                    label=legend_name(m) if k == 0 else None, zorder=2)
        ax.plot(z[order], me, linestyle="none", marker=s["marker"], color=s["color"], ms=5,
                mfc="none", zorder=3)
    groups = overlap_note(curves)
    if groups:
        note = "theory curves drawn on top of each other:\n" + "\n".join(
            " = ".join(map(short, g)) for g in groups)
        ax.text(0.01, 0.86, note, transform=ax.transAxes, fontsize=7, ha="left", va="top",
                bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9))
    ax.axhline(2.0, color="k", ls=":", lw=1)
    ax.annotate("omega0*dt = 2", (ax.get_xlim()[0], 2.02), fontsize=8)
    ax.axhline(top, color="grey", ls="-", lw=0.5)
    ax.annotate("stable for every dt (inf)", (ax.get_xlim()[0], top * 1.005), fontsize=7)
    ax.set_ylim(0, top * 1.06)
    ax.set_xlabel("damping ratio zeta")
    ax.set_ylabel("largest omega0*dt with (0, omega0*dt] stable")
    ax.set_title("stability limit: theory (lines, dense in zeta) and measured (markers)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    return save(fig, out, "stability")


def trace_label(pts, method, row):
    """A trace's lane in the user's terms: k, c, m, dt, omega0*dt and zeta from its /points
    row."""
    method = legend_name(method)
    if pts is None or row >= len(pts["dt"]):
        return f"{method} (row {row})"
    mass = f" m={pts['mass'][row]:.4g}" if "mass" in pts else ""
    return (f"{method}: k={pts['stiffness'][row]:.4g} c={pts['drag'][row]:.4g}{mass} "
            f"dt={pts['dt'][row]:.4g}\nomega0*dt={pts['omega_dt'][row]:.3g} "
            f"zeta={pts['zeta'][row]:.3g}")


def drift_range(drift):
    """The colour scale's log10 range for these drifts: over the finite positive ones, floored
    at 1e-17 (round-off: a drift of 0 is drawn at the floor), at least a decade wide."""
    shown = drift[np.isfinite(drift) & (drift > 0)]
    if not len(shown):
        return -16, 0
    vmin = np.log10(max(np.min(shown), 1e-17))
    return vmin, max(np.log10(np.max(shown)), vmin + 1)


def plot_stability_map(f, out, note):
    """Per method, every lane of /points at (omega0*dt, zeta): coloured by log10 of its worst
    |drift| when stable, a grey cross when not; the theory's first stability edge over it (from
    /stability_theory, when the run had the stability analysis); along the bottom, the
    omega0*dt span each of the run's dt covers (the user's own range)."""
    pts = table(f, "points")
    if pts is None or len(pts["dt"]) == 0:
        return None
    # Lanes whose omega0*dt overflowed (or zeta did) have no place on the map.
    ok = np.isfinite(pts["zeta"]) & np.isfinite(pts["omega_dt"]) & (pts["omega_dt"] > 0)
    if not ok.any():
        return None
    theory = table(f, "stability_theory")
    by_method = group_rows(pts["method"])
    methods = first_methods(list(by_method), "stability map", "points", note)
    theory_by_method = group_rows(theory["method"]) if theory is not None else {}
    ncols = min(3, len(methods))
    nrows = (len(methods) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols + 1.2, 3.9 * nrows + 0.6),
                             squeeze=False, sharex=True, sharey=True, constrained_layout=True)
    for ax in axes.flat[len(methods):]:
        ax.set_visible(False)
    stable = pts["stable"].astype(bool)
    drift = np.where(stable, pts["max_abs_drift"], np.nan)
    vmin, vmax = drift_range(drift[ok & stable])
    zmax = min(max(np.max(pts["zeta"][ok]), 0.1), 1e300)
    wmin, wmax = np.min(pts["omega_dt"][ok]), np.max(pts["omega_dt"][ok])
    dts = sorted(set(pts["dt"].tolist()))
    by_dt = group_rows(pts["dt"])
    # One bar per dt, or with more than six dt one bar for them all: (lo, hi, label).
    spans = []
    for dt in dts:
        rows = by_dt[dt]
        wd = pts["omega_dt"][rows[ok[rows]]]
        if len(wd):
            spans.append((wd.min(), wd.max(), f"dt={dt:.3g}"))
    if len(spans) > 6:
        spans = [(min(sp[0] for sp in spans), max(sp[1] for sp in spans),
                  f"dt {dts[0]:.3g} to {dts[-1]:.3g} ({len(dts)} values)")]
    sc = None
    for ax, m in zip(axes.flat, methods):
        sel = by_method[m]
        sel = sel[ok[sel]]
        good, bad = sel[stable[sel]], sel[~stable[sel]]
        sc = ax.scatter(pts["omega_dt"][good], pts["zeta"][good],
                        c=np.log10(np.maximum(drift[good], 1e-300)), cmap="viridis", vmin=vmin,
                        vmax=vmax, s=14, edgecolors="none")
        ax.scatter(pts["omega_dt"][bad], pts["zeta"][bad], marker="x", color="0.55", s=14,
                   lw=0.8, label=f"unstable ({len(bad)} of {len(sel)})")
        if m in theory_by_method:
            tsel = theory_by_method[m]
            tz, tl = theory["zeta"][tsel], theory["limit"][tsel]
            order = np.argsort(tz)
            tl = np.where(np.isinf(tl), np.nan, tl)[order]
            ax.plot(tl, tz[order], color="crimson", lw=1.5, label="theory: first stability edge")
        for i, (lo, hi, label) in enumerate(spans):
            y = -0.04 * zmax * (1 + i)
            ax.plot([lo, hi], [y, y], lw=2.5, color="0.3", solid_capstyle="butt")
            if ax is axes.flat[0] or len(spans) <= 3:
                ax.annotate(label, (hi, y), fontsize=6, xytext=(3, -2),
                            textcoords="offset points")
        ax.set_xscale("log")
        ax.set_xlim(*log_limits(wmin, wmax, 1.5, 3))
        ax.set_ylim(-0.04 * zmax * (len(spans) + 1.5), zmax * 1.08)
        ax.set_title(short(m), fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=6, loc="upper left")
    for ax in axes[-1]:
        ax.set_xlabel("omega0*dt")
    for ax in axes[:, 0]:
        ax.set_ylabel("zeta")
    if sc is not None:
        fig.colorbar(sc, ax=axes.ravel().tolist(), shrink=0.8,
                     label="log10 max |drift| of a stable lane")
    edge = ("red line: the theory's first stability edge" if theory is not None else
            "no theory edge: the run had no stability analysis (analyses: stability)")
    fig.suptitle("stability map per method: every lane at (omega0*dt, zeta); bars below: the "
                 f"omega0*dt each dt of the run covers\n{edge}", fontsize=10)
    path = f"{out}_stability_map.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# The most traced rows the traces figure draws: each is a line in three panels and an entry in
# the legend, and `trace: {points: [...]}` may list thousands.
MAX_TRACES = 32


def first_traces(f, methods, note):
    """(method, row) of each trace drawn: every one, or when there are more than MAX_TRACES the
    lowest-numbered `share` rows of each method, `share` the largest that keeps the total within
    MAX_TRACES (one at least: the methods are capped at MAX_METHODS), so that rows a method with
    fewer leaves unused go to the others; the rest counted in a note."""
    rows = {m: sorted(f["traces"][m], key=int) for m in methods}
    total = sum(len(r) for r in rows.values())

    def drawn(share):
        return sum(min(len(r), share) for r in rows.values())

    share = max(len(r) for r in rows.values()) if rows else 0
    if total > MAX_TRACES:
        share = 1
        while drawn(share + 1) <= MAX_TRACES:
            share += 1
    traces = [(m, r) for m in methods for r in rows[m][:share]]
    if len(traces) < total:
        note(f"traces figure: the first {share} traced row{'s' if share > 1 else ''} of each "
             f"method drawn (of those with more), {total - len(traces)} of {total} left off")
    return traces


def plot_traces(f, out, note):
    if "traces" not in f:
        return None
    methods = first_methods(list(f["traces"]), "traces", "traces", note)
    traces = first_traces(f, methods, note)
    if not traces:
        return None
    pts = table(f, "points")
    fig, (ax_x, ax_d, ax_e) = plt.subplots(3, 1, figsize=(11, 9), sharex=True)
    for j, (m, r) in enumerate(traces):
        g = f["traces"][m][r]
        t, x, xe = g["t"][()], g["x"][()], g["x_exact"][()]
        if x.ndim > 1:  # the last axis carries gravity: show that one
            x, xe = x[:, -1], xe[:, -1]
        c = style(j)["color"]
        ax_x.plot(t, x, color=c, lw=1, label=trace_label(pts, m, int(r)))
        ax_x.plot(t, xe, color="k", lw=0.8, ls="--", alpha=0.6)
        ax_d.plot(t, g["drift"][()], color=c, lw=1)
        # Errors that round to 0 would sink the log axis: floor them at round-off of the motion.
        scale = np.abs(xe[np.isfinite(xe)])
        floor = 1e-16 * max(scale.max() if scale.size else 0.0, 1e-300)
        ax_e.semilogy(t, np.maximum(g["error"][()], floor), color=c, lw=1)
    ax_x.set_ylabel("x (black dashed: exact)")
    ax_d.set_ylabel("energy drift / E(0)")
    ax_e.set_ylabel("|x - x_exact|")
    ax_e.set_xlabel("t")
    ax_x.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    for ax in (ax_x, ax_d, ax_e):
        ax.grid(True, alpha=0.3)
    ax_x.set_title("traced points: motion, energy drift and error over time")
    return save(fig, out, "traces")


def lanes_per_dt(f, wp):
    """Lanes of each (method, dt) of the run: /points is the full method x dt x lane grid."""
    if "points" not in f or "dt" not in f["points"] or len(wp["method"]) == 0:
        return None
    return f["points"]["dt"].shape[0] // len(wp["method"])


def common_set_note(f, wp):
    """How many lanes the common set has at each dt, in words, for the title and a side box."""
    lanes = lanes_per_dt(f, wp)
    of = f" of {lanes}" if lanes else ""
    dts = sorted(set(wp["dt"].tolist()))
    by_dt = group_rows(wp["dt"])
    counts = [int(wp["common_points"][by_dt[dt][0]]) for dt in dts]
    empty = sum(1 for n in counts if n == 0)
    if min(counts) == max(counts):
        head = f"{counts[0]}{of} lanes at every dt"
    else:
        head = f"{min(counts)} to {max(counts)}{of} lanes per dt"
    if empty:
        head += f"; {empty} dt with none, not drawn"
    per_dt = "\n".join(f"dt {dt:.4g} ({1 / dt:.4g} Hz): {n}{of}" for dt, n in zip(dts, counts))
    return head, ("common set per dt\n" + per_dt) if len(dts) <= 12 else None


def plot_work_precision(f, out, note):
    wp = table(f, "work_precision")
    if wp is None or len(wp["method"]) == 0:
        return None
    # The common set: the lanes of each dt stable for every method, so that every curve is
    # measured on the same springs. Files written before it had only each method's own stable
    # lanes (median_error), which the figure then says it shows.
    common = "median_error_common" in wp and "common_points" in wp
    err = wp["median_error_common"] if common else wp["median_error"]
    fig, (ax_t, ax_f) = plt.subplots(1, 2, figsize=(13, 5.6), sharey=True)
    drawn = 0
    by_method = group_rows(wp["method"])
    for j, m in enumerate(first_methods(list(by_method), "work-precision", "work_precision",
                                        note)):
        sel = by_method[m]
        sel = sel[np.isfinite(err[sel]) & (err[sel] > 0)]
        if not len(sel):
            continue
        drawn += 1
        for ax, cost in ((ax_t, wp["ns_per_lane"]), (ax_f, wp["force_evals"])):
            order = np.argsort(cost[sel])
            ax.loglog(cost[sel][order], err[sel][order], label=legend_name(m), **style(j), ms=4,
                      lw=1.2)
    ax_t.set_xlabel("wall ns per lane for the whole run (bare stepping cost measured in the run)")
    ax_f.set_xlabel("force evaluations per lane for the whole run")
    if common:
        head, per_dt = common_set_note(f, wp)
        ax_t.set_ylabel("median max error over the lanes stable for every method")
        fig.suptitle("work-precision on the common set, the lanes (springs) of each dt stable "
                     f"for every method: {head}", fontsize=10)
        if per_dt:
            ax_f.text(1.02, 0.0, per_dt, transform=ax_f.transAxes, fontsize=7, va="bottom",
                      ha="left", family="monospace")
    else:
        ax_t.set_ylabel("median max error of each method's own stable points")
        fig.suptitle("work-precision on each method's own stable lanes (a file without the "
                     "common set: methods compared on different springs)", fontsize=10)
    for ax in (ax_t, ax_f):
        ax.grid(True, which="both", alpha=0.3)
    ax_t.set_title("error against time (lower left is better)")
    ax_f.set_title("error against force evaluations")
    if drawn:
        ax_f.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        for ax in (ax_t, ax_f):
            ax.text(0.5, 0.5, "no error to draw: no dt has a lane\nstable for every method"
                    if common else "no stable lane with a positive error", ha="center",
                    va="center", transform=ax.transAxes)
    return save(fig, out, "work_precision")


def save(fig, out, what):
    path = f"{out}_{what}.png"
    with warnings.catch_warnings():
        # "Tight layout not applied" (a legend of 32 methods' traces is taller than the figure):
        # the figure is drawn as laid out, and a warning is lines of stderr about this script.
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


FIGURES = (("convergence", plot_convergence), ("stability", plot_stability),
           ("stability map", plot_stability_map), ("traces", plot_traces),
           ("work-precision", plot_work_precision))


def draw(f, stem, results):
    """The figures drawn, as paths. One that the data defeats (matplotlib refuses it) is left
    out with a note, and the others are still drawn."""
    made = []

    def note(text):
        say(f"oscbench plot: {results}: note: {text}")

    for what, plot in FIGURES:
        try:
            path = plot(f, stem, note)
        except (ValueError, OverflowError, RuntimeError, FloatingPointError) as exc:
            plt.close("all")
            say(f"oscbench plot: {results}: note: no {what} figure: {one_line(exc)}")
            continue
        if path:
            made.append(path)
    return made


def plot_file(results, outdir):
    """Draw the figures of a results file into outdir; the exit status."""
    try:
        f = h5py.File(results, "r")
    except OSError as exc:
        say(f"oscbench plot: {results}: cannot open as an HDF5 file: {one_line(exc)}")
        return 2
    with f:
        check_results(f)
        os.makedirs(outdir, exist_ok=True)
        stem = os.path.join(outdir, os.path.splitext(os.path.basename(results))[0])
        made = draw(f, stem, results)
    for p in made:
        print(shown(f"wrote {p}"))
    if not made:
        say(f"oscbench plot: {results}: nothing to plot")
        return 1
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="oscbench plot", description=__doc__.splitlines()[0])
    ap.add_argument("results", help="an oscbench results file (.h5)")
    ap.add_argument("-o", "--output-dir", default=None,
                    help="directory for the PNGs (default: the results file's directory)")
    a = ap.parse_args(argv)
    outdir = a.output_dir or os.path.dirname(a.results) or "."
    try:
        return plot_file(a.results, outdir)
    except BadResults as exc:
        say(f"oscbench plot: {a.results}: {exc}")
        return 2
    except Exception as exc:  # a failure of the machine or of this script: one line, not a trace
        say(f"oscbench plot: {a.results}: {type(exc).__name__}: {one_line(exc)}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
