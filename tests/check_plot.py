#!/usr/bin/python3
"""`oscbench plot` on what a run can leave and on damaged files: runs whose omega0*dt overflows
to inf, or whose every stable drift is below round-off, are drawn (exit 0, a stability map, no
message); a results file damaged with h5py, an HDF5 file that is not a results file and a
missing one are each one line on stderr naming the file, exit status 2, no figure and, for the
missing one, no -o directory made; an over-long method name is cut in the labels and drawn,
and one long name among many rows is drawn in bounded memory (it once asked for every row to be
as wide as the longest: 22 GB for the default job's file).

usage: check_plot.py OSCBENCH   (run with Debian's python3, which has h5py and matplotlib)
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

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


def run(exe, *args, cwd):
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=240)


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
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
