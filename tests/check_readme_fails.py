#!/usr/bin/env python3
"""check_readme.py can fail: a copy of README.md, doctored with one mistake of each kind, and a
docs/x.md beside it, in a temporary directory; each mode must exit 1 with each mistake's line.

    check_readme_fails.py check_readme.py README.md oscbench oscbench-bench
"""
import os
import subprocess
import sys
import tempfile

# (old text, new text) in README.md; each old text must be there once.
EDITS = [("| `gravity` |", "| `gravitee` |"),
         ("`--rounds N` runs N", "`--round N` runs N"),
         ("`OSCBENCH_PLOT_SCRIPT` names", "`OSCBENCH_PLOT_SCRIP` names"),
         ("`stability.yaml`, `damping.yaml` (the three",
          "`stability.yaml`, `damped.yaml` (the three"),
         # --outputs: the synopsis, the methods table, a block of output, the summary's columns,
         # the results file's names (a root attribute, a column, a trace column, a group's
         # attribute)
         ("    oscbench methods [--config CONFIG.yaml]", "    oscbench methods [--config FILE]"),
         ("| 4 / 4 | 4 | 22 | no | no / no |", "| 4 / 4 | 4 | 21 | no | no / no |"),
         ("  rk4                     86.2%   138/160         1.789e-03      4.616e-03",
          "  rk4                     86.2%   138/160         1.788e-03      4.616e-03"),
         ("rule38               rk                 4                 4            4      4    28",
          "rule38               rk                 4                 4            3      4    28"),
         ("`common_lanes`, `worst_error_common`", "`worst_error_common`, `common_lanes`"),
         ("each with `lanes_match` too", "each with `lane_match` too"),
         ("`mpi_ranks` (1 without MPI)", "`mpi_rank` (1 without MPI)"),
         ("`method`, `zeta`, `limit` (as `limit_theory`)", "`method`, `zeta`, `limits`"),
         ("`energy`, `drift`, `error` (x, v", "`energy`, `error` (x, v"),
         ("`/stability_theory` `about`", "`/stability_theory` `abut`"),
         ("`/work_precision` `common_set`", "`/work_precisions` `common_set`"),
         # a yaml block that does not load
         ('    b: ["1/6", "2/3", "1/6"]     # the weights',
          '    b: ["1/6", "2/3", "1/3"]     # the weights')]
APPENDED = """
    oscbench run c.yaml --no-such-option
    oscbench summary r.h5 -q
    python3 harness/bench/ab.py --no-such A B
    harness/bench/peers/run.sh -x build
    OMP_NUM_THREADS=1 build/oscbench-bench --benchmark_filtr='^(a|b)$' --benchmark_repetiton 3
    meson setup b -Dmulti_version=false -Db_sanitize=address -DOSC_NOT_MESON
"""
DOCS = """`oscbench --threads 2`, `summary --quiet`, and

    build/oscbench plot r.h5 --format csv

Pass --resum to go on, or `--threds N`; Google Benchmark writes JSON with
`--benchmark_out=r.json --benchmark_out_fromat=json`.

ab.py repeats with `--round N`.

# Prose

--resumee at the start of a line of prose.

Then oscbench summary -q, `plot` -c plots, and -Dbuild_type=release, not -Dbuildtype.

Where ab.py -z and loop_alone.py -n.
"""
# The line number, in the doctored README, of the line holding each text: {name} in EXPECTED.
LINES = {"synopsis": "    oscbench methods [--config FILE]", "rk4": "| 4 / 4 | 4 | 21 |",
         "springs": "138/160         1.788e-03", "rule38": "4            3      4    28",
         "summary": "one row per (dt, method) with", "results": "| path | rows | columns |",
         "attributes": "carry text attributes", "configs": "`configs/` has commented examples",
         "weights": '"2/3", "1/3"]     # the weights'}
# In the expected lines, {0}-{5} are the line numbers of APPENDED's six lines.
UNKNOWN = "check_readme: documented, not in the program: "
UNDOCUMENTED = "check_readme: {readme}: not documented: "
EXPECTED = {
    "oscbench": [UNKNOWN + "README.md:{0}: oscbench run takes no option --no-such-option",
                 UNKNOWN + "README.md:{1}: oscbench summary takes no option -q",
                 UNKNOWN + "x.md:1: oscbench takes no option --threads",
                 UNKNOWN + "x.md:1: oscbench summary takes no option --quiet",
                 UNKNOWN + "x.md:3: oscbench plot takes no option --format",
                 UNKNOWN + "x.md:5: oscbench (any command) takes no option --resum",
                 UNKNOWN + "x.md:5: oscbench (any command) takes no option --threds",
                 UNKNOWN + "x.md:12: oscbench (any command) takes no option --resumee",
                 UNKNOWN + "x.md:14: oscbench summary takes no option -q",
                 UNKNOWN + "x.md:14: oscbench plot takes no option -c",
                 UNKNOWN + "README.md:{5}: meson has no option -Dmulti_version",
                 UNKNOWN + "x.md:14: meson has no option -Dbuild_type",
                 UNKNOWN + "README's key table: config key gravitee: the loader does not know it",
                 UNKNOWN + "README.md:{configs}: configs/damped.yaml: no such example config",
                 UNDOCUMENTED + "config key gravity: no row in the key table",
                 UNDOCUMENTED + "README.md:{configs}: configs/damping.yaml: not in the list of "
                                "configs/'s examples"],
    "--scripts": [UNKNOWN + "README.md:{2}: ab.py takes no option --no-such",
                  UNKNOWN + "README.md:{3}: peers takes no option -x",
                  UNKNOWN + "x.md:8: ab.py takes no option --round",
                  UNKNOWN + "x.md:16: ab.py takes no option -z",
                  UNKNOWN + "x.md:16: loop_alone.py takes no option -n",
                  UNDOCUMENTED + "ab.py --help: option --rounds"],
    "--bench": [UNKNOWN + "README.md: environment variable OSCBENCH_PLOT_SCRIP",
                UNKNOWN + "README.md:{4}: oscbench-bench takes no option --benchmark_filtr",
                UNKNOWN + "README.md:{4}: oscbench-bench takes no option --benchmark_repetiton",
                UNKNOWN + "x.md:6: oscbench-bench takes no option --benchmark_out_fromat",
                UNDOCUMENTED + "environment variable OSCBENCH_PLOT_SCRIPT"],
    "--outputs": [
        UNKNOWN + "README.md:{synopsis}: the synopsis line is not oscbench --help's "
                  "'oscbench methods [--config CONFIG.yaml]'",
        UNKNOWN + "README.md:{rk4}: rk4: fma 21, oscbench methods: 22",
        UNKNOWN + "README.md:{springs}: oscbench run configs/springs.yaml prints '  rk4"
                  "                     86.2%   138/160         1.789e-03      4.616e-03' here, "
                  "not '  rk4                     86.2%   138/160         1.788e-03      "
                  "4.616e-03'",
        UNKNOWN + "README.md:{rule38}: oscbench methods --config configs/my_methods.yaml prints "
                  "'rule38               rk                 4                 4            4      "
                  "4    28' here, not 'rule38               rk                 4                 4"
                  "            3      4    28'",
        UNKNOWN + "README.md:{summary}: summary --format csv's column 7 is ['common_lanes'], "
                  "README's ['worst_error_common']",
        UNKNOWN + "README.md:{summary}: summary --format json: ['per_dt'] of objects with "
                  "['lanes_match'] not in README, README's ['lane_match'] not there",
        UNKNOWN + "README.md:{results}: root attributes: README ['mpi_rank'] not in the file, the "
                  "file's ['mpi_ranks'] not in README",
        UNKNOWN + "README.md:{results}: /stability_theory's columns: README ['limits'] not in the "
                  "file, the file's ['limit'] not in README",
        UNKNOWN + "README.md:{results}: /traces/euler/0's columns: README [] not in the file, the "
                  "file's ['drift'] not in README",
        UNKNOWN + "README.md:{attributes}: /stability_theory's attributes: README ['abut'] not in "
                  "the file, the file's ['about'] not in README",
        UNKNOWN + "README.md:{attributes}: /work_precision's attributes: README [] not in the "
                  "file, the file's ['common_set'] not in README",
        UNKNOWN + "README.md:{attributes}: no group /work_precisions in the file, whose "
                  "attributes it names",
        UNKNOWN + "README.md:{weights}: the yaml block does not load: methods[1].b: the "
                  "weights b do not sum to 1: they sum to 1.1666666666666665"],
}


def main(argv):
    if len(argv) != 5:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    check, readme, oscbench, bench = argv[1:]
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    for old, new in EDITS:
        if text.count(old) != 1:
            sys.exit(f"check_readme_fails: {readme}: no single {old!r} to doctor")
        text = text.replace(old, new)
    lines = (text + APPENDED).splitlines()
    numbers = [lines.index(line) + 1 for line in APPENDED.strip("\n").splitlines()]
    named = {name: next(n for n, line in enumerate(lines, 1) if part in line)
             for name, part in LINES.items()}
    failed = []
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "README.md")
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text + APPENDED)
        os.mkdir(os.path.join(d, "docs"))
        with open(os.path.join(d, "docs", "x.md"), "w", encoding="utf-8") as f:
            f.write(DOCS)
        modes = {"oscbench": [oscbench], "--scripts": ["--scripts"], "--bench": ["--bench", bench],
                 "--outputs": ["--outputs", oscbench]}
        for mode, expected in EXPECTED.items():
            p = subprocess.run([sys.executable, check, copy] + modes[mode],
                               capture_output=True, text=True, timeout=120)
            if mode == "--outputs" and p.returncode == 77:  # no h5dump
                print(f"check_readme_fails: {mode}: {p.stdout.strip()}")
                continue
            missing = [e.format(*numbers, readme=copy, **named) for e in expected
                       if e.format(*numbers, readme=copy, **named) not in p.stderr.splitlines()]
            if p.returncode != 1 or missing:
                failed.append(f"{mode}: exit {p.returncode}, lines missing: {missing}\n"
                              f"stderr:\n{p.stderr}")
    for f in failed:
        print(f"check_readme_fails: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
