#!/usr/bin/python3
"""`oscbench plot` on what a run can leave and on damaged files: runs whose omega0*dt overflows
to inf, or whose every stable drift is below round-off, are drawn (exit 0, a stability map, no
message); a results file damaged with h5py, an HDF5 file that is not a results file and a
missing one are each one line on stderr naming the file, exit status 2, no figure and, for the
missing one, no -o directory made; an over-long method name is cut in the labels and drawn,
and one long name among many rows is drawn in bounded memory (it once asked for every row to be
as wide as the longest: 22 GB for the default job's file). A lane coordinate (/points dt,
stiffness, drag, mass), or another table's row coordinate, that is NaN or infinite is refused as
`oscbench summary` refuses it, the row named and no figure drawn; a NaN error or an infinite
drift is data, drawn. A drag sweep of 40 values gets 16 convergence panels, spread, and a note;
a zeta sweep (a drag per spring) gets them per zeta, each at the spring nearest omega0 = 1, and
per drag again once its /convergence/zeta is deleted (a file from before the column);
80 traced rows get 32 lines, the 16 lowest of each method, and a note. A foreign file with a
thousand methods in each table and a dt per row: each figure draws the first 32 methods,
one note per figure names the rest, nothing else is printed, and, counted in the script itself
(its tables' columns count the elements numpy reads from them and the comparisons of their
names), grouping the rows costs a sort, not a pass over a table per method or dt (groups x rows:
a file of 55296 methods never ended).

usage: check_plot.py OSCBENCH   (run with Debian's python3, which has h5py and matplotlib)
"""
import contextlib
import importlib.util
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

if not all(importlib.util.find_spec(m) for m in ("h5py", "matplotlib", "numpy")):
    print("skipped: h5py, matplotlib or numpy is missing")
    sys.exit(77)
import h5py  # noqa: E402
import numpy as np  # noqa: E402

CONFIGS = {
    # omega0 = sqrt(1e300 / 1e-20) overflows: that lane's omega_dt is inf
    "inf": "methods: [euler]\nstiffness: [1, 1e300]\nmass: 1e-20\ndt: 0.01\nsteps: 10\n",
    # every stable |drift| below 1e-17, where the colour scale is floored
    "tiny": "methods: all\nstiffness: 1\ndt: 1e-9\nsteps: 5\n",
    "good": "methods: [euler, rk4]\nstiffness: [1, 4]\ndt: [0.1, 0.05]\nsteps: 20\n",
    # 4096 /points rows, for one long name among many
    "many": "methods: [euler]\nstiffness: {from: 1, to: 4, count: 4096}\ndt: 0.01\nsteps: 5\n",
    # a drag sweep of 40 values: more than the convergence figure's 16 panels
    "drags": "methods: [euler]\nstiffness: 1\ndrag: {from: 0, to: 0.5, count: 40}\n"
             "dt: [0.1, 0.05, 0.025]\nsteps: 8\nanalyses: [convergence]\n",
    # drags a millionth apart (configs/damping.yaml's): three panels, three titles
    "close_drags": "methods: [euler]\nstiffness: 1\ndrag: [1.999999, 2, 2.000001]\n"
                   "dt: [0.1, 0.05, 0.025]\nsteps: 8\nanalyses: [convergence]\n",
    # a zeta sweep of 20 values over 5 omega0: a drag per spring (96), panels per zeta
    "zetas": "methods: [rk4]\nomega0: {from: 0.5, to: 20, count: 5, spacing: log}\n"
             "zeta: {from: 0, to: 1, count: 20}\ndt: [0.1, 0.05, 0.025]\nsteps: 8\n"
             "analyses: [convergence]\n",
    # 80 traced rows, 40 per method: more than the traces figure's 32 lines
    "traced": "methods: [euler, rk4]\nstiffness: {from: 1, to: 4, count: 40}\ndt: 0.01\n"
              f"steps: 10\ntrace: {{points: {list(range(80))}}}\n",
    # a method named with a leading '_' (matplotlib leaves such labels out of a legend), with
    # maxima at the audits only; and a run whose every lane is unstable
    "underscore": "methods:\n  - {name: _heun, family: rk, order: 2, a: [[], [1]], "
                  "b: [\"1/2\", \"1/2\"]}\n  - euler\nstiffness: [1, 4]\ndrag: [0, 0.5]\n"
                  "dt: [0.1, 0.05, 0.025, 0.0125]\nt_end: 2\nmaxima: audits\n"
                  "analyses: [convergence, stability]\nstability: {zeta: [0, 0.5]}\n"
                  "trace: {every: 10}\n",
    "unstable": "methods: [euler]\nstiffness: [100, 400]\ndt: [0.5, 1, 2, 4]\nt_end: 200\n"
                "analyses: [convergence]\n",
    # 4096 /points rows (dt-major), every table and a trace, made foreign by groups_file
    "grouped": "methods: [euler]\nstiffness: {from: 1, to: 4, count: 1024}\n"
              "dt: [0.02, 0.01, 0.005, 0.0025]\nt_end: 0.1\nanalyses: [convergence, stability]\n"
              "trace: {points: [0]}\n",
}
# The memory (peak resident set of the plot and its python) drawing "many" with one long name
# may take: at 4 bytes a character, 4096 rows as wide as a 2^18-character name took 4 GiB; a
# few hundred MB draw it. (Resident, not an address-space limit: a sanitizer build of oscbench
# reserves terabytes of address space.)
PLOT_MEMORY = 1 << 30
LONG_NAME = 1 << 18
# Runs argv[2:], writes the peak resident set of it and its children (bytes) to argv[1].
PEAK_RSS = """import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:]).returncode
with open(sys.argv[1], "w") as fp:
    fp.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024))
sys.exit(rc)
"""


def replace(f, path, data, **kw):
    del f[path]
    f.create_dataset(path, data=data, **kw)


def method_group(f):
    del f["points/method"]
    f.create_group("points/method")


def points_dataset(f):
    del f["points"]
    f["points"] = np.zeros(3)


def long_names(f):
    for table in ("points", "work_precision"):
        n = f[table]["method"].shape[0]
        replace(f, f"{table}/method", ["m" * 5000] * n, dtype=h5py.string_dtype())


# name -> (damage done to a copy of the good file, a word the one line must hold)
DAMAGES = {
    "no_dt": (lambda f: f.__delitem__("points/dt"), "/points/dt"),
    "no_stable": (lambda f: f.__delitem__("points/stable"), "/points/stable"),
    "short_dt": (lambda f: replace(f, "points/dt", f["points/dt"][:-1]), "/points/dt"),
    "dt_2d": (lambda f: replace(f, "points/dt", f["points/dt"][()].reshape(-1, 1)), "/points/dt"),
    "dt_scalar": (lambda f: replace(f, "points/dt", 0.01), "/points/dt"),
    "dt_strings": (lambda f: replace(f, "points/dt", ["0.1"] * f["points/dt"].shape[0],
                                     dtype=h5py.string_dtype()), "/points/dt"),
    "points_dataset": (points_dataset, "/points"),
    "method_group": (method_group, "/points/method"),
}


def one_long_name(f):
    names = f["points/method"][()].astype(object)
    names[0] = "m" * LONG_NAME
    replace(f, "points/method", names, dtype=h5py.string_dtype())


# The runs' work-precision cost probe on 128 lanes, not 2^16: its figures are not checked here,
# and in a coverage build the default probe took most of this test's minutes (the "tiny" run of
# every method: 71 s, 1 s with 128 lanes).
ENV = dict(os.environ, OSCBENCH_COST_PROBE_LANES="128")


def run(exe, *args, cwd):
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=240,
                          env=ENV)


def is_png(path):
    with open(path, "rb") as fp:
        return fp.read(8) == b"\x89PNG\r\n\x1a\n"


def check(ok, what, r):
    err = repr(r.stderr.strip())[:300]
    print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {r.returncode}, stderr {err}")
    return ok


def check_drawn(exe, d, name, memory=None):
    """A file a run wrote (or one with over-long names) is drawn, with no message (and within
    `memory` bytes resident, if given)."""
    peak_file = os.path.join(d, f"{name}.peak")
    cmd = (exe,) if memory is None else (sys.executable, "-c", PEAK_RSS, peak_file, exe)
    r = run(*cmd, "plot", f"{name}.h5", "-o", f"figs_{name}", cwd=d)
    png = os.path.join(d, f"figs_{name}", f"{name}_stability_map.png")
    ok = r.returncode == 0 and r.stderr == "" and os.path.exists(png) and is_png(png)
    if memory is not None:
        with open(peak_file) as fp:
            peak = int(fp.read())
        print(f"{'ok  ' if peak <= memory else 'FAIL'} {name}: peak resident "
              f"{peak / 2**20:.0f} MiB, at most {memory / 2**20:.0f} MiB")
        ok = ok and peak <= memory
    return check(ok, f"{name}: drawn", r)


def check_refused(exe, d, name, word, outdir="figs"):
    """One line naming the file and `word`, exit 2, nothing drawn."""
    r = run(exe, "plot", f"{name}.h5", "-o", outdir, cwd=d)
    lines = r.stderr.splitlines()
    ok = (r.returncode == 2 and r.stdout == "" and len(lines) == 1
          and lines[0].startswith(f"oscbench plot: {name}.h5: ") and word in lines[0])
    return check(ok, f"{name}: refused", r)


def damage(d, name, how, source="good"):
    path = os.path.join(d, f"{name}.h5")
    shutil.copy(os.path.join(d, f"{source}.h5"), path)
    with h5py.File(path, "r+") as f:
        how(f)


# A lane coordinate that is NaN or infinite, each column and each kind once: the column, the row
# damaged, its value and how the one line shows it (C's %g, as summary's line: a NaN with its
# sign bit set is -nan).
NOT_FINITE = [("dt", 1, math.nan, "nan"), ("stiffness", 2, math.inf, "inf"),
              ("drag", 3, -math.inf, "-inf"), ("mass", 5, -math.nan, "-nan")]

OTHER_NOT_FINITE = [("convergence/drag", 0, math.nan, "nan"),
                    ("convergence/stiffness", 1, math.inf, "inf"),
                    ("stability/zeta", 2, -math.inf, "-inf"),
                    ("stability_theory/zeta", 3, math.nan, "nan"),
                    ("work_precision/dt", 1, -math.nan, "-nan")]


def set_row(column, row, value):
    def how(f):
        data = f[column][()]
        data[row] = value
        f[column][...] = data
    return how


def check_coordinate_refused(exe, d, name, column, row, text):
    """The one line summary gives, exit 2, and no figure in -o's directory."""
    outdir = os.path.join(d, f"figs_{name}")
    r = run(exe, "plot", f"{name}.h5", "-o", outdir, cwd=d)
    want = f"oscbench plot: {name}.h5: {column}: row {row} is {text}, not a finite number\n"
    pngs = [p for p in os.listdir(outdir) if p.endswith(".png")] if os.path.isdir(outdir) else []
    ok = r.returncode == 2 and r.stdout == "" and r.stderr == want and not pngs
    return check(ok, f"{name}: refused, no figure {pngs}", r)


def check_coordinates(exe, d):
    ok = []
    for col, row, value, text in NOT_FINITE:
        name = f"{col}_{text}"
        damage(d, name, set_row(f"points/{col}", row, value))
        ok.append(check_coordinate_refused(exe, d, name, f"/points/{col}", row, text))
    # the other tables' row coordinates (a NaN drag of /convergence ended in "KeyError: nan")
    for col, row, value, text in OTHER_NOT_FINITE:
        name = col.replace("/", "_")
        damage(d, name, set_row(col, row, value), source="grouped")
        ok.append(check_coordinate_refused(exe, d, name, f"/{col}", row, text))
    # measured values are data: a NaN error, an infinite drift are drawn
    damage(d, "nan_error", lambda f: (set_row("points/max_error", 1, math.nan)(f),
                                      set_row("points/max_abs_drift", 2, math.inf)(f)))
    ok.append(check_drawn(exe, d, "nan_error"))
    return ok


# The foreign file made of the "grouped" run: GROUPS methods in each table (but the theory's
# 201 rows per method: 20 of them), rows per method as the run wrote them, every /points row
# its own dt, and the traces of TRACED methods: euler's and its copies m01 to m39 (a group's
# members are listed in name order).
GROUPS, TRACED = 1024, 40
# Each figure draws at most this many methods (README; a run holds at most 25).
FIGURE_METHODS = 32


def tile_table(f, name, per, methods=GROUPS):
    """/name repeated until it has `methods` methods of `per` rows each."""
    g = f[name]
    times = -(-methods * per // g["method"].shape[0])
    for col in list(g):
        data, dtype = g[col][()], g[col].dtype
        del g[col]
        g.create_dataset(col, data=np.tile(data, times)[:methods * per], dtype=dtype)
    replace(f, f"{name}/method", [f"m{i // per}" for i in range(methods * per)],
            dtype=h5py.string_dtype())


def groups_file(f):
    rows = f["points/dt"].shape[0]
    # dt-major: the row of stiffness s at each dt is method m<s>, as /convergence's row s; all
    # at the stiffness of the convergence figure's panel
    replace(f, "points/method", [f"m{i % GROUPS}" for i in range(rows)],
            dtype=h5py.string_dtype())
    replace(f, "convergence/method", [f"m{i}" for i in range(GROUPS)],
            dtype=h5py.string_dtype())
    for table in ("points", "convergence"):
        f[f"{table}/stiffness"][...] = 1.0
    f["points/dt"][...] = f["points/dt"][()] * (1 + 1e-9 * np.arange(rows))
    tile_table(f, "work_precision", 4)  # a row per dt
    tile_table(f, "stability", 7)  # a row per zeta
    tile_table(f, "stability_theory", 201, methods=20)
    for i in range(1, TRACED):
        f.copy("traces/euler", f"traces/m{i:02d}")


class Counted(np.ndarray):
    """A table column that counts the elements every numpy operation on it reads."""
    elements = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        Counted.elements += sum(x.size for x in inputs if isinstance(x, Counted))
        inputs = [x.view(np.ndarray) if isinstance(x, Counted) else x for x in inputs]
        return getattr(ufunc, method)(*inputs, **kw)


class CountedName(str):
    """A method name that counts its comparisons (list membership, sorting)."""
    compared = 0

    def __eq__(self, other):
        CountedName.compared += 1
        return str.__eq__(self, other)

    def __lt__(self, other):
        CountedName.compared += 1
        return str.__lt__(self, other)

    __hash__ = str.__hash__


def counted_table(table):
    def counted(f, name):
        cols = table(f, name)
        if cols is None:
            return None
        for key, col in cols.items():
            if col.dtype.kind == "O":
                col = np.array([CountedName(s) for s in col], dtype=object)
            cols[key] = col.view(Counted)
        return cols
    return counted


@contextlib.contextmanager
def recorded(plot, on_grid, on_save):
    """The block draws with plot's plt.subplots calling on_grid(nrows, ncols) before it makes a
    grid, and Figure.savefig calling on_save(fig) instead of writing a file; both are put back
    and every figure closed after it."""
    subplots, savefig = plot.plt.subplots, plot.plt.Figure.savefig

    def gridded(nrows=1, ncols=1, **kw):
        on_grid(nrows, ncols)
        return subplots(nrows, ncols, **kw)
    plot.plt.subplots = gridded
    plot.plt.Figure.savefig = lambda fig, *a, **kw: on_save(fig)
    try:
        yield
    finally:
        plot.plt.subplots, plot.plt.Figure.savefig = subplots, savefig
        plot.plt.close("all")


def few_panels(nrows, ncols):
    """Refuses a grid with more rows than a figure's methods fill (before it is made: a
    thousand panels would take minutes)."""
    assert (nrows - 1) * ncols < FIGURE_METHODS, f"{nrows} x {ncols} panels asked for"


def drawn_methods(fig):
    """The most methods a drawn figure shows: its panels (not a colour bar), legend entries."""
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    return max([len(axes)] + [len(ax.get_legend_handles_labels()[1]) for ax in axes])


def load_script():
    """oscbench_plot.py of this source tree, as a module."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "harness",
                          "plot", "oscbench_plot.py")
    spec = importlib.util.spec_from_file_location("oscbench_plot", script)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    return plot


def metered(figure, costs, shown):
    """figure, recording what drawing it cost: (elements read + names compared, the most
    methods it shows)."""
    def drawn(f, stem, note):
        Counted.elements = CountedName.compared = 0
        shown.clear()
        path = figure(f, stem, note)
        costs.append((Counted.elements + CountedName.compared, max(shown, default=0), path))
        return path
    return drawn


def check_groups(d):
    """The foreign file drawn by the script itself (the figures laid out, not saved): for each
    figure, the elements numpy reads from the tables' columns plus the comparisons of their
    names are at most a few sorts' worth (n log2 n of the longest table), where one pass over a
    table per method or dt is GROUPS (or 4096 dt) times its rows; at most FIGURE_METHODS methods
    shown; on stderr one note per figure naming those left off, and nothing else (no warning)."""
    plot = load_script()
    plot.table = counted_table(plot.table)
    costs, shown = [], []
    plot.FIGURES = tuple((what, metered(figure, costs, shown)) for what, figure in plot.FIGURES)
    err = io.StringIO()
    with h5py.File(os.path.join(d, "groups.h5"), "r") as f, \
            recorded(plot, few_panels, lambda fig: shown.append(drawn_methods(fig))), \
            contextlib.redirect_stderr(err), warnings.catch_warnings(record=True) as warned:
        plot.check_results(f)
        rows = max(g["method"].shape[0] for g in f.values() if "method" in g)
        try:
            plot.draw(f, os.path.join(d, "groups"), "groups.h5")
        except AssertionError as exc:
            print(f"FAIL groups: {exc}")
            return [False]
    budget = 4 * rows * math.log2(rows)
    ok = []
    for (what, _), (cost, methods, path) in zip(plot.FIGURES, costs):
        good = path is not None and cost <= budget and methods <= FIGURE_METHODS
        print(f"{'ok  ' if good else 'FAIL'} groups: {what}: {cost} elements read and names "
              f"compared, at most {budget:.0f}; {methods} methods shown")
        ok.append(good)
    tables = [("convergence", "convergence", GROUPS), ("stability", "stability", GROUPS),
              ("stability map", "points", GROUPS), ("traces", "traces", TRACED),
              ("work-precision", "work_precision", GROUPS)]
    want = [f"oscbench plot: groups.h5: note: {what} figure: the first {FIGURE_METHODS} of the "
            f"{n} methods of /{table} drawn, {n - FIGURE_METHODS} left off "
            f"(m{FIGURE_METHODS} to m{n - 1})" for what, table, n in tables]
    good = len(costs) == 5 and err.getvalue().splitlines() == want and not warned
    print(f"{'ok  ' if good else 'FAIL'} groups: {len(costs)} figures, a note each: "
          f"{err.getvalue()!r}, warnings {[str(w.message) for w in warned]}")
    return ok + [good]


def check_noted(exe, d, name, figure, note):
    """`oscbench plot NAME.h5` exits 0 with `note` as its only stderr line and draws `figure`."""
    r = run(exe, "plot", f"{name}.h5", "-o", f"figs_{name}", cwd=d)
    want = f"oscbench plot: {name}.h5: note: {note}\n"
    return check(r.returncode == 0 and r.stderr == want and
                 os.path.exists(os.path.join(d, f"figs_{name}", f"{name}_{figure}.png")),
                 f"{name}: {figure} drawn with a note", r)


def check_drag_panels(exe, d):
    """A drag sweep of 40 values: the convergence figure has 16 panels (8 rows of 2), the least
    and the largest drag among them, and the one note saying so; the run's other figures are
    drawn."""
    ok = [check_noted(exe, d, "drags", "convergence", "convergence figure: 16 of the 40 drag "
                      "values of /convergence drawn, spread from 0 to 0.5, 24 left off")]
    plot, grids, titles = load_script(), [], []
    with h5py.File(os.path.join(d, "drags.h5"), "r") as f, \
            recorded(plot, lambda nrows, ncols: grids.append((nrows, ncols)),
                     lambda fig: titles.extend(ax.get_title() for ax in fig.axes
                                               if ax.get_visible())):
        plot.check_results(f)
        plot.plot_convergence(f, os.path.join(d, "drags_module"), lambda text: None)
    ends = all(any(f"drag = {x}\n" in t for t in titles) for x in ("0", "0.5"))
    panels_ok = grids == [(8, 2)] and len(titles) == 16 and ends
    print(f"{'ok  ' if panels_ok else 'FAIL'} drags: grids {grids}, {len(titles)} panels, "
          f"the least and largest drag {'' if ends else 'not '}among them")
    _, panels = convergence_titles(plot, os.path.join(d, "close_drags.h5"))
    drags = [t.split("drag = ")[1].split("\n")[0] for t, _ in panels]
    apart = drags == ["1.999999", "2", "2.000001"]
    print(f"{'ok  ' if apart else 'FAIL'} close drags: panel titles {drags}")
    return ok + [panels_ok, apart]


def convergence_titles(plot, path):
    """The convergence figure's grids and its visible panels' (title, legend labels), drawn
    through the module."""
    grids, panels = [], []
    with h5py.File(path, "r") as f, \
            recorded(plot, lambda nrows, ncols: grids.append((nrows, ncols)),
                     lambda fig: panels.extend((ax.get_title(), ax.get_legend_handles_labels()[1])
                                               for ax in fig.axes if ax.get_visible())):
        plot.check_results(f)
        plot.plot_convergence(f, path + "_module", lambda text: None)
    return grids, panels


def check_zeta_panels(exe, d):
    """A zeta sweep (20 zetas x 5 omega0: each spring its own drag): the convergence figure has
    a panel per zeta, 16 of the 20 spread from 0 to 1 with a note, each of the spring nearest
    omega0 = 1 (k = 1.25743^2) and drawn; the file without /convergence/zeta (as written before
    it) still draws, a panel per drag, 16 of the 96."""
    ok = [check_noted(exe, d, "zetas", "convergence", "convergence figure: 16 of the 20 zeta "
                      "values of /convergence drawn, spread from 0 to 1, 4 left off")]
    plot = load_script()
    grids, panels = convergence_titles(plot, os.path.join(d, "zetas.h5"))
    ends = all(any(f"zeta = {x}, drag = " in t for t, _ in panels) for x in ("0", "1"))
    spring = all(t.startswith("convergence, k = 1.58114, zeta = ") and labels
                 for t, labels in panels)
    good = grids == [(8, 2)] and len(panels) == 16 and ends and spring
    print(f"{'ok  ' if good else 'FAIL'} zetas: grids {grids}, {len(panels)} panels, the least "
          f"and largest zeta {'' if ends else 'not '}among them, "
          f"{'each' if spring else 'not each'} of k = 1.58114 and drawn")
    damage(d, "zetas_old", lambda f: f.__delitem__("convergence/zeta"), source="zetas")
    ok.append(check_noted(exe, d, "zetas_old", "convergence", "convergence figure: 16 of the 96 "
                          "drag values of /convergence drawn, spread from 0 to 40, 80 left off"))
    return ok + [good]


def check_traces_cap(exe, d):
    """80 traced rows, 40 of each of two methods: the traces figure draws the 16 lowest of each
    (32 legend entries), with the one note saying so."""
    ok = [check_noted(exe, d, "traced", "traces", "traces figure: the first 16 traced rows of "
                      "each method drawn (of those with more), 48 of 80 left off")]
    plot, labels = load_script(), []
    with h5py.File(os.path.join(d, "traced.h5"), "r") as f, \
            recorded(plot, lambda nrows, ncols: None,
                     lambda fig: labels.extend(fig.axes[0].get_legend_handles_labels()[1])):
        plot.check_results(f)
        plot.plot_traces(f, os.path.join(d, "traced_module"), lambda text: None)
        pts = plot.table(f, "points")
        lowest = [plot.trace_label(pts, m, row) for m in ("euler", "rk4")
                  for row in sorted(int(r) for r in f["traces"][m])[:16]]
    good = labels == lowest
    print(f"{'ok  ' if good else 'FAIL'} traced: {len(labels)} traces drawn, "
          f"{'' if good else 'not '}the 16 lowest rows of each method in order")
    # 1 traced row of one method and 40 of another: the share the one leaves goes to the other
    notes, rows = [], {"a": {"7": None}, "b": {str(r): None for r in range(40, 0, -1)}}
    drawn = plot.first_traces({"traces": rows}, ["a", "b"], notes.append)
    uneven = drawn == [("a", "7")] + [("b", str(r)) for r in range(1, 32)] and notes == [
        "traces figure: the first 31 traced rows of each method drawn (of those with more), "
        "9 of 41 left off"]
    print(f"{'ok  ' if uneven else 'FAIL'} traced, 1 and 40 rows: {len(drawn)} drawn, {notes}")
    return ok + [good, uneven]


def figure_texts(plot, d, name):
    """Every figure of a run drawn through the module: per figure, its legend labels, axis
    labels and texts."""
    texts = []
    def saved(fig):
        seen = []
        for ax in fig.axes:
            seen += ax.get_legend_handles_labels()[1] + [ax.get_ylabel()]
            seen += [t.get_text() for t in ax.texts]
        texts.append(seen)
    with h5py.File(os.path.join(d, f"{name}.h5"), "r") as f, \
            recorded(plot, lambda nrows, ncols: None, saved):
        plot.check_results(f)
        for figure in (plot.plot_convergence, plot.plot_stability, plot.plot_traces,
                       plot.plot_work_precision):
            figure(f, os.path.join(d, f"{name}_module"), lambda text: None)
    return texts


def check_labels(d):
    """A method named '_heun' is in every figure's legend (matplotlib drops labels that start
    with '_': it was drawn in all four and named in none); with maxima: audits the convergence
    axis says its maxima are the audits'; a run with no stable lane says so in its convergence
    panels instead of leaving them blank."""
    plot = load_script()
    figures = figure_texts(plot, d, "underscore")
    named = [any("_heun" in t for t in fig) for fig in figures]
    audits = any("max |x - x_exact| over the audits" in t for t in figures[0])
    empty = figure_texts(plot, d, "unstable")
    said = bool(empty) and any(t.startswith("no error to draw") for t in empty[0])
    good = len(figures) == 4 and all(named) and audits and said
    print(f"{'ok  ' if good else 'FAIL'} labels: '_heun' in the legends of {sum(named)} of "
          f"{len(figures)} figures; convergence axis {'of' if audits else 'not of'} the audits; "
          f"no stable lane {'said' if said else 'not said'}")
    return [good]


def main():
    exe = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        for name, text in CONFIGS.items():
            with open(os.path.join(d, f"{name}.yaml"), "w") as fp:
                fp.write(f"name: {name}\n{text}")
            r = run(exe, "run", f"{name}.yaml", "-q", "-o", f"{name}.h5", cwd=d)
            if r.returncode != 0:
                print(f"FAIL run {name}: exit {r.returncode}: {r.stderr}")
                return 1
        ok = [check_drawn(exe, d, "inf"), check_drawn(exe, d, "tiny")]
        for name, (how, word) in DAMAGES.items():
            damage(d, name, how)
            ok.append(check_refused(exe, d, name, word))
        with h5py.File(os.path.join(d, "other.h5"), "w") as f:
            f["x"] = np.arange(3)
        ok.append(check_refused(exe, d, "other", "not an oscbench results file"))
        ok.append(check_refused(exe, d, "missing", "cannot open", outdir="newdir/sub"))
        made = os.path.exists(os.path.join(d, "newdir"))
        print(f"{'FAIL' if made else 'ok  '} missing: -o newdir/sub {'' if made else 'not '}made")
        ok.append(not made)
        damage(d, "long", long_names)
        ok.append(check_drawn(exe, d, "long"))
        damage(d, "one_long", one_long_name, source="many")
        ok.append(check_drawn(exe, d, "one_long", memory=PLOT_MEMORY))
        ok += check_coordinates(exe, d)
        ok += check_drag_panels(exe, d)
        ok += check_zeta_panels(exe, d)
        ok += check_traces_cap(exe, d)
        ok += check_labels(d)
        damage(d, "groups", groups_file, source="grouped")
        ok += check_groups(d)
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
