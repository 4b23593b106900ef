#!/usr/bin/env python3
"""README.md against the program: what the program says it takes, the README must name.

    check_readme.py README.md oscbench          every option of `oscbench [COMMAND] --help`
                                                and every config key the loader knows
    check_readme.py README.md --bench oscbench-bench
                                                every OSCBENCH_* variable its --help lists

An option counts as documented when README.md has it as a word of its own (`--threads`,
`-q`), a config key when the key table has a row for it (| `key` |, or `x0`, `v0` in one row).
Exit 1 with one line per name missing; 2 on a usage error or a program that cannot be run.
Only that direction is checked: names the README gives that the program does not take would
need the README parsed for commands, which this script does not try.
"""
import os
import re
import subprocess
import sys
import tempfile

COMMANDS = ["", "run", "summary", "plot", "methods"]


def run(argv, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)
    except OSError as e:
        sys.exit(f"check_readme: {argv[0]}: {e}")


def word_in(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def options_of(exe, command):
    p = run([exe] + ([command] if command else []) + ["--help"])
    if p.returncode != 0:
        sys.exit(f"check_readme: {exe} {command} --help: exit {p.returncode}")
    # lines of the options list: "  -o, --output=PATH ..." or "      --threads=N ..."; the
    # top-level help's synopsis names its options in brackets: [--threads N]
    flags = {f for pair in re.findall(r"^\s+(?:(-\w), )?(--[\w-]+)", p.stdout, re.M)
             for f in pair if f}
    flags |= set(re.findall(r"\[(--?[\w-]+)", p.stdout))
    return flags


def config_keys(exe):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.yaml")
        with open(path, "w") as f:
            f.write("zzzzzzzzzzzz: 1\n")
        p = run([exe, "run", path, "-o", os.path.join(d, "o.h5"), "-q"])
    m = re.search(r"unknown key \(known keys: ([^)]*)\)", p.stderr)
    if p.returncode != 2 or not m:
        sys.exit(f"check_readme: no list of known keys from an unknown key: {p.stderr.strip()}")
    return [k.strip() for k in m.group(1).split(",")]


def main(argv):
    if len(argv) == 4 and argv[2] == "--bench":
        readme, exe, bench = argv[1], argv[3], True
    elif len(argv) == 3:
        readme, exe, bench = argv[1], argv[2], False
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    missing = []
    if bench:
        p = run([exe, "--help"])
        if p.returncode != 0:
            sys.exit(f"check_readme: {exe} --help: exit {p.returncode}")
        for var in sorted(set(re.findall(r"\bOSCBENCH_[A-Z_]+", p.stdout))):
            if not word_in(text, var):
                missing.append(f"oscbench-bench --help: environment variable {var}")
    else:
        for command in COMMANDS:
            for flag in sorted(options_of(exe, command)):
                if not word_in(text, flag):
                    missing.append(f"oscbench {command or ''} --help: option {flag}".replace("  ", " "))
        rows = set(re.findall(r"^\| `([\w]+)`(?:, `([\w]+)`)? \|", text, re.M))
        documented = {k for row in rows for k in row if k}
        for key in config_keys(exe):
            if key not in documented:
                missing.append(f"config key {key}: no row in README's key table")
    for m in missing:
        print(f"check_readme: {readme}: not documented: {m}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
