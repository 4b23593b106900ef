#!/usr/bin/env python3
"""README.md against the program, both ways: what the program takes, the README names, and what
the README (or a docs/*.md beside it) gives the program, the program takes.

    check_readme.py README.md oscbench          options of oscbench and its subcommands, config keys
    check_readme.py README.md --bench oscbench-bench
                                                OSCBENCH_* environment variables, its flags
    check_readme.py README.md --scripts         options of harness/bench's helper scripts
    check_readme.py README.md --outputs oscbench
                                                what README shows oscbench print and write

Options: every option of `oscbench [COMMAND] --help` is a word of README.md (`--threads`, `-q`),
and every option written in a command line of code (a code block, or an inline span such as
`oscbench run X -q` or `run --quiet`) is one that line's command takes: the subcommand's
--help for `oscbench run|summary|plot|methods ...`, the top-level help's `oscbench --help |
--version | -V` otherwise. The same for ab.py and loop_alone.py (their argparse --help; an
option they take must be named in the README's paragraphs about the script) and the peers
(harness/bench/peers/*: positional arguments only, so no option at all). And oscbench-bench: an
option on its command lines is a --flag its --help names (its own, and Google Benchmark's list
printed after them: --benchmark_filter=REGEX ...), or --help, -h; the README need not name them all.
Loose options: a --option written without its command (in prose, "pass --resume"; or in code
whose segment, cut at &&, ; and |, begins with an option, `--threads N`) is a --benchmark_ flag
of oscbench-bench's, an option of the script(s) its paragraph is about (as above), or else an
option of some oscbench command. A -x in prose is checked only right after its command's name
("oscbench summary -f csv", "`plot` -o"). An option after another tool's name (`meson test
--benchmark`, `mpirun --bind-to none`) is that tool's and not checked: name the tool to write one.
Meson options: a -Dname[=value] anywhere in README.md or docs/ (code or prose; not an upper-case
-DMACRO, a C macro) is declared in meson_options.txt (or meson.options) or is one of meson's own.
Config keys: the README's key table has a row for every key the loader knows, and no other.
Example configs: the paragraph listing configs/'s examples names every configs/**.yaml, no other.
Variables: every OSCBENCH_* that `oscbench-bench --help` lists or the sources under harness/
and lib/ read (a quoted "OSCBENCH_..." there) is named in README.md, and no other is named.
Outputs (--outputs, with h5dump): the synopsis under "Running a sweep" is `oscbench --help`'s
usage lines; the methods table has `oscbench methods`' rows (orders, forces, FMAs, symplectic,
symmetric); the blocks of output OUTPUT_BLOCKS names are lines the command prints (the springs
table, `methods --config configs/my_methods.yaml`); the summary's columns are `summary --format
csv`'s header and, with those named for JSON, its objects' keys; every ```yaml block loads as
a config (a list of methods alone as `methods:`, with the keys a run needs); a results file of a run
with every table has the paths, columns, root and group attributes the "Results file" section
gives it, every column `units` and `long_name`, every trace column but `t` `coordinates`.
Exit 1 with one line per mismatch; 2 on a usage error or a program that cannot be run; 77 (a
skip) for --outputs without h5dump.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = ["run", "summary", "plot", "methods"]
SCRIPTS = {"ab.py": "harness/bench/ab.py", "loop_alone.py": "harness/bench/loop_alone.py"}
PEERS = r"run\.sh|table\.py|\w+_peer(?:\.py|\.cc)?"
# A command and the rest of its segment (up to &&, ;, or a pipe; "| --version" is alternation).
COMMAND_LINE = re.compile(r"(?<![\w.-])(oscbench-bench|oscbench|ab\.py|loop_alone\.py|" + PEERS +
                          r")(?![\w.-])((?:[^&;|]|\|(?=\s*-))*)")
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
LONG_OPTION = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)")
# In prose, a command's name (a subcommand's alone is oscbench's) and a -x (not a --option).
PROSE_COMMAND = (r"(?:(oscbench-bench|ab\.py|loop_alone\.py|%s)|(?:oscbench\s+)?(%s)|(oscbench))"
                 % (PEERS, "|".join(COMMANDS)))
PROSE_SHORT_OPTION = re.compile(r"(?<![\w.-])" + PROSE_COMMAND + r"\s+(-[A-Za-z]\w*)(?![\w-])")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
ANY_COMMAND = "oscbench (any command)"
VARIABLE = re.compile(r"\bOSCBENCH_[A-Z0-9_]+")
# -Dname or -Dname=value, a meson option; an upper-case -DNAME is a C macro (-DOSC_FORCE_ISA).
MESON_OPTION = re.compile(r"(?<![\w-])-D([a-z][\w.:-]*)")
# meson's own options (`meson introspect --buildoptions` of meson 1.0 and the later ones of its
# Built-in options page); compiler options for the languages this project builds (C, C++).
MESON_BUILTINS = {
    "auto_features", "backend", "backend_max_links", "buildtype", "cmake_prefix_path", "debug",
    "default_both_libraries", "default_library", "errorlogs", "force_fallback_for", "genvslite",
    "install_umask", "layout", "optimization", "pkg_config_path", "prefer_static", "stdsplit",
    "strip", "unity", "unity_size", "vsenv", "warning_level", "werror", "wrap_mode",
    "prefix", "bindir", "datadir", "includedir", "infodir", "libdir", "libexecdir", "licensedir",
    "localedir", "localstatedir", "mandir", "sbindir", "sharedstatedir", "sysconfdir",
    "b_asneeded", "b_bitcode", "b_colorout", "b_coverage", "b_lto", "b_lto_mode", "b_lto_threads",
    "b_lundef", "b_ndebug", "b_pch", "b_pgo", "b_pie", "b_sanitize", "b_staticpic",
    "b_thinlto_cache", "b_thinlto_cache_dir", "b_vscrt",
    "c_args", "c_link_args", "c_std", "c_winlibs", "c_thread_count",
    "cpp_args", "cpp_link_args", "cpp_std", "cpp_debugstl", "cpp_eh", "cpp_rtti", "cpp_winlibs",
    "cpp_thread_count",
    "pkgconfig.relocatable", "python.install_env", "python.platlibdir", "python.purelibdir",
    "python.bytecompile", "python.allow_limited_api",
}


def run(argv, timeout=60, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    except OSError as e:
        sys.exit(f"check_readme: {argv[0]}: {e}")


def help_of(argv):
    p = run(argv + ["--help"])
    if p.returncode != 0:
        sys.exit(f"check_readme: {' '.join(argv)} --help: exit {p.returncode}")
    return p.stdout


def word_in(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def listed_options(help_text):
    """The options of a --help's option list: "  -o, --output=PATH ..." or "      --threads=N"."""
    return {f for pair in re.findall(r"^\s+(?:(-\w), )?(--[\w-]+)", help_text, re.M)
            for f in pair if f}


def parts_of(text):
    """(line number, is code, text) of a markdown text: code block lines (a line ending in \\
    joined to the next), inline spans (which may run over a line break in their paragraph), and
    the prose between the spans, line by line."""
    fenced, held, paragraph = False, "", []
    for n, line in enumerate(text.splitlines() + [""], 1):
        if line.startswith("```") or fenced or line.startswith("    ") or held or not line.strip():
            yield from paragraph_parts(paragraph)
            paragraph = []
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    ") or held:
            first, held = first if held else n, held + " " + line.strip().rstrip("\\")
            if not line.endswith("\\"):
                yield first, True, held
                held = ""
        elif line.strip():
            paragraph.append((n, line))


def paragraph_parts(lines):
    """The spans (a command's name added to one that begins with a subcommand) and prose lines of
    a paragraph's (line number, line)s."""
    text = "\n".join(line for _, line in lines)
    for m in re.finditer(r"`([^`]+)`|[^`\n]+", text):
        n = lines[0][0] + text.count("\n", 0, m.start()) if lines else 0
        span = m.group(1)
        if span is None:
            yield n, False, m.group(0)
        else:
            span = span.replace("\n", " ")
            command = re.match(r"(%s)\s" % "|".join(COMMANDS), span)
            yield n, True, "oscbench " + span if command else span


def code_of(text):
    """(line number, code) of a markdown text's code blocks and inline spans."""
    return ((n, code) for n, is_code, code in parts_of(text) if is_code)


def given_options(text):
    """(line number, program, option) for every option a command line of the text's code gives."""
    for n, code in code_of(text):
        for m in COMMAND_LINE.finditer(QUOTED.sub("''", code)):
            program, rest = m.group(1), m.group(2).split(" -- ")[0]
            if re.fullmatch(PEERS, program):
                program = "peers"
            elif program == "oscbench":
                words = rest.split()
                program = "oscbench " + (words[0] if words and words[0] in COMMANDS else "")
            for option in OPTION.findall(rest):
                yield n, program.strip(), option


def prose_short_options(text):
    """(line number, program, option) for a -x written in prose right after its command's name:
    "oscbench summary -f csv", or "`summary` -f" (a span that is only the name, the option first
    in the prose after it). Elsewhere a prose "-x" is more often arithmetic (-dt, -g m/k)."""
    name, name_line = None, None
    for n, is_code, part in parts_of(text):
        if not is_code:
            joined = name + part if name and name_line == n else part
            for m in PROSE_SHORT_OPTION.finditer(joined):
                tool, command, top = m.group(1, 2, 3)
                program = "oscbench " + command if command else tool or top
                yield n, "peers" if re.fullmatch(PEERS, program) else program, m.group(4)
        whole = is_code and re.fullmatch(PROSE_COMMAND, part.strip())
        name, name_line = (part.strip(), n) if whole else (None, None)


def loose_tokens(text):
    """(line number, --option) for every --option written without its command: in prose, or in
    code where its segment (cut at &&, ;, |) begins with an option, not a command's name."""
    for n, is_code, part in parts_of(text):
        segments = re.split(r"&&|;|\|", QUOTED.sub("''", part)) if is_code else [part]
        for segment in segments:
            if not is_code or segment.lstrip().startswith("-"):
                yield from ((n, option) for option in LONG_OPTION.findall(segment))


def loose_options(text):
    """(line number, owners, option) of loose_tokens: the owner of a --benchmark_ flag is
    oscbench-bench, of another option the scripts its paragraph is about, else oscbench."""
    about = scripts_by_line(text)
    for n, option in loose_tokens(text):
        if option.startswith("--benchmark_"):
            yield n, ("oscbench-bench",), option
        else:
            yield n, about.get(n) or (ANY_COMMAND,), option


def loose_mismatches(taken, texts):
    """A loose option none of its owners (if all in taken) takes."""
    return [f"{where}:{n}: {' or '.join(owners)} takes no option {option}"
            for where, text in texts for n, owners, option in sorted(set(loose_options(text)))
            if set(owners) <= taken.keys() and not any(option in taken[o] for o in owners)]


def oscbench_options(exe):
    """Options per command line: "oscbench run", ..., and "oscbench" alone (top-level help)."""
    taken = {f"oscbench {c}": listed_options(help_of([exe, c])) for c in COMMANDS}
    taken["oscbench"] = {o for _, p, o in given_options("```\n" + help_of([exe]) + "```")
                         if p == "oscbench"}
    return taken


def bench_flags(bench):
    """oscbench-bench's flags: every --flag its --help names (its own, and Google Benchmark's list
    it prints after them), and --help, -h (its main reads them)."""
    return set(LONG_OPTION.findall(help_of([bench]))) | {"--help", "-h"}


def script_options():
    taken = {}
    for name, path in SCRIPTS.items():
        out = help_of([sys.executable, os.path.join(SOURCE, path)])
        options = listed_options(re.split(r"\n(?:options|optional arguments):\n", out)[-1])
        taken[name] = options - {"-h", "--help"}  # argparse's own, not documented per script
    taken["peers"] = set()
    return taken


def config_keys(exe):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.yaml")
        with open(path, "w") as f:
            f.write("zzzzzzzzzzzz: 1\n")
        p = run([exe, "run", path, "-o", os.path.join(d, "o.h5"), "-q"])
    m = re.search(r"unknown key \(known keys: ([^)]*)\)", p.stderr)
    if p.returncode != 2 or not m:
        sys.exit(f"check_readme: no list of known keys from an unknown key: {p.stderr.strip()}")
    return {k.strip() for k in m.group(1).split(",")}


def key_table_rows(text):
    table = re.search(r"^\| key \|.*\n((?:\|.*\n)*)", text, re.M)
    rows = re.findall(r"^\| `(\w+)`(?:, `(\w+)`)? \|", table.group(1) if table else "", re.M)
    return {k for row in rows for k in row if k}


def variables_read():
    names = set()
    for path in glob.glob(os.path.join(SOURCE, "harness/**/*.[ch]*"), recursive=True) + \
            glob.glob(os.path.join(SOURCE, "lib/**/*.[ch]"), recursive=True):
        with open(path, encoding="utf-8") as f:
            names |= set(re.findall(r'"(OSCBENCH_[A-Z0-9_]+)"', f.read()))
    return names


PARAGRAPH = re.compile(r".*\S.*(?:\n.*\S.*)*")


def scripts_by_line(text):
    """{line number: the scripts its paragraph is about}: a paragraph naming scripts is about them,
    one naming none about what the paragraph before is about, up to a heading."""
    about, scripts = {}, ()
    for m in PARAGRAPH.finditer(text):
        named = tuple(s for s in SCRIPTS if s in m.group(0))
        scripts = named or (() if m.group(0).startswith("#") else scripts)
        first = text.count("\n", 0, m.start()) + 1
        about.update((n, scripts) for n in range(first, first + m.group(0).count("\n") + 1))
    return about


def text_about(text, script):
    """The paragraphs from one that names the script to a heading or one naming another script."""
    about = scripts_by_line(text)
    return "\n".join(line for n, line in enumerate(text.splitlines(), 1)
                     if script in about.get(n, ()))


def variable_mismatches(bench, readme, texts):
    known = set(VARIABLE.findall(help_of([bench]))) | variables_read()
    undocumented = [f"environment variable {v}" for v in sorted(known) if not word_in(readme, v)]
    unknown = [f"{where}: environment variable {v}" for where, text in texts
               for v in sorted(set(VARIABLE.findall(text)) - known)]
    return undocumented, unknown


def option_mismatches(taken, about, texts):
    """taken: {program: its options}; about(program): the README text that must name them."""
    undocumented = [f"{program} --help: option {o}" for program, options in sorted(taken.items())
                    for o in sorted(options) if not word_in(about(program), o)]
    return undocumented, unknown_options(taken, texts)


def unknown_options(taken, texts):
    """An option a command line of the texts gives that its program (if in taken) does not take."""
    return [f"{where}:{n}: {program} takes no option {option}" for where, text in texts
            for n, program, option in sorted(set(given_options(text)) |
                                             set(prose_short_options(text)))
            if program in taken and option not in taken[program]]


def key_mismatches(exe, readme):
    keys, rows = config_keys(exe), key_table_rows(readme)
    return ([f"config key {k}: no row in the key table" for k in sorted(keys - rows)],
            [f"README's key table: config key {k}: the loader does not know it"
             for k in sorted(rows - keys)])


def bench_mismatches(bench, readme, texts):
    undocumented, unknown = variable_mismatches(bench, readme, texts)
    taken = {"oscbench-bench": bench_flags(bench)}
    return undocumented, unknown + unknown_options(taken, texts) + loose_mismatches(taken, texts)


def scripts_mismatches(readme, texts):
    taken = script_options()
    undocumented, unknown = option_mismatches(taken, lambda s: text_about(readme, s), texts)
    return undocumented, unknown + loose_mismatches(taken, texts)


def project_meson_options():
    """The options meson_options.txt (or meson.options) declares."""
    names = set()
    for name in ("meson_options.txt", "meson.options"):
        path = os.path.join(SOURCE, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                names |= set(re.findall(r"\boption\(\s*'([^']+)'", f.read()))
    return names


def meson_option_mismatches(texts):
    """A -Dname, anywhere in the texts (code or prose), that is no option of meson's or ours."""
    known = MESON_BUILTINS | project_meson_options()
    return [f"{where}:{n}: meson has no option -D{name}" for where, text in texts
            for n, line in enumerate(text.splitlines(), 1)
            for name in (m.rstrip(".:-") for m in MESON_OPTION.findall(line))
            if re.sub(r"^build\.", "", name) not in known]


def example_config_mismatches(readme):
    """Every config under configs/ is named in README's paragraph listing configs/'s examples
    (as its path below configs/), and that paragraph names no config that is not there."""
    m = re.search(r"^`configs/` has commented examples.*?(?:\n\n|\Z)", readme, re.M | re.S)
    n = readme.count("\n", 0, m.start()) + 1 if m else 0
    named = {s for s in spans(m.group(0) if m else "") if s.endswith(".yaml")}
    there = {os.path.relpath(p, os.path.join(SOURCE, "configs"))
             for p in glob.glob(os.path.join(SOURCE, "configs", "**", "*.yaml"), recursive=True)}
    return ([f"README.md:{n}: configs/{c}: not in the list of configs/'s examples"
             for c in sorted(there - named)],
            [f"README.md:{n}: configs/{c}: no such example config" for c in sorted(named - there)])


def oscbench_mismatches(exe, readme, texts):
    taken = oscbench_options(exe)
    undocumented, unknown = option_mismatches(taken, lambda _: readme, texts)
    keys_undocumented, keys_unknown = key_mismatches(exe, readme)
    configs_undocumented, configs_unknown = example_config_mismatches(readme)
    loose = loose_mismatches({ANY_COMMAND: set().union(*taken.values())}, texts)
    meson = meson_option_mismatches(texts)
    return (undocumented + keys_undocumented + configs_undocumented,
            unknown + keys_unknown + configs_unknown + loose + meson)


# ---- --outputs: what README shows the program print or write, against the program ----------

# A README block of output, by its first line, and the oscbench command (run in a temporary
# directory, the source tree's configs/ given by absolute path) whose stdout holds its lines.
# (A run writes springs.h5 there, which the summary's columns are then read from.) A run's
# config is run without its analyses (without_analyses): a block shows the sweep's summary,
# which they do not change, and springs.yaml's stability analysis took 2 of its 2 minutes
# under AddressSanitizer.
OUTPUT_BLOCKS = {"dt = 0.0166667 (60 Hz)": ["run", "configs/springs.yaml"],
                 "method               family": ["methods", "--config", "configs/my_methods.yaml"]}
# A small run that writes every table: a method from an included file (config_includes), both
# analyses, traces, and dim 2 (the traces' axis scale).
RESULTS_CONFIG = """name: names
methods: [euler, {include: m.yaml}]
dim: 2
stiffness: 1
drag: [0, 0.5]
dt: [0.2, 0.1, 0.05, 0.025]
t_end: 2
analyses: [convergence, stability]
stability: {zeta: [0, 1]}
trace: {every: 4, points: [0]}
"""
RESULTS_INCLUDE = "- {name: heun, family: rk, order: 2, a: [[0], [1]], b: [0.5, 0.5]}\n"
SCALES = {"row", "axis"}  # dimension scales, not columns


def blocks_of(text):
    """(line number, lines) of each code block: fenced, or indented by four spaces."""
    lines, n = text.splitlines(), 0
    while n < len(lines):
        if lines[n].startswith("```"):
            end = next((m for m in range(n + 1, len(lines)) if lines[m].startswith("```")),
                       len(lines))
            yield n + 2, lines[n + 1:end]
            n = end + 1
        elif lines[n].startswith("    ") and (n == 0 or not lines[n - 1].strip()):
            end = next((m for m in range(n, len(lines)) if not lines[m].startswith("    ")),
                       len(lines))
            yield n + 1, [line[4:] for line in lines[n:end]]
            n = end
        else:
            n += 1


def without_parentheses(text):
    """The text with every parenthesised part (nested ones too) left out; a half-open interval
    such as (0, h] is no parenthesis."""
    text = re.sub(r"\(([^()\[\]]*)\]", r"[\1]", text)
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


def spans(text):
    return re.findall(r"`([^`]+)`", text)


def oscbench_out(exe, args, cwd):
    p = run([exe] + args, timeout=240, cwd=cwd)  # the springs run: seconds, minutes sanitized
    if p.returncode != 0:
        sys.exit(f"check_readme: oscbench {' '.join(args)}: exit {p.returncode}: "
                 f"{p.stderr.strip()[-300:]}")
    return p.stdout


def first_difference(lines, want):
    """The index of the first line where lines differ from want, None if they do not."""
    return next((k for k in range(max(len(lines), len(want)))
                 if lines[k:k + 1] != want[k:k + 1]), None)


def synopsis_mismatches(exe, readme):
    """The synopsis under "Running a sweep" is `oscbench --help`'s usage lines."""
    usage = [re.sub(r"^(usage:)?\s+", "", line).split("   (")[0]
             for line in help_of([exe]).split("\n\n")[0].splitlines()]
    for n, lines in blocks_of(readme):
        if lines and lines[0].startswith(usage[0].split(" [")[0]):
            k = first_difference(lines, usage)
            return [] if k is None else [
                f"README.md:{n + k}: the synopsis line is not oscbench --help's "
                f"{usage[k] if k < len(usage) else '(nothing)'!r}"]
    return [f"README.md: no synopsis block beginning {usage[0]!r}"]


REGISTRY_FIELDS = ("order", "damped order", "forces", "fma", "symplectic", "symmetric")


def registry_rows(text, table):
    """{method: (line number, (order, damped order, forces, fma, symplectic, symmetric
    undamped/damped))} of the README's registry table (table) or `oscbench methods`' output."""
    rows = {}
    if table:
        found = re.finditer(r"^\| `([\w-]+)` \| .* \| (\d+)[^|/]*/ (\d+) \| (\d+) \| (\d+) \| "
                            r"(yes|no) \| (yes|no) / (yes|no)[^|]* \|$", text, re.M)
        for m in found:
            rows[m.group(1)] = (text.count("\n", 0, m.start()) + 1,
                                m.group(2, 3, 4, 5, 6) + (m.group(7) + "/" + m.group(8),))
    else:
        for m in re.finditer(r"^([\w-]+) +(\d+) +(\d+) +(\d+) +(\d+) +(yes|no) +((?:yes|no)/"
                             r"(?:yes|no)) ", text, re.M):
            rows[m.group(1)] = (0, m.group(2, 3, 4, 5, 6, 7))
    return rows


def registry_mismatches(exe, readme):
    """README's table of the methods has `oscbench methods`' rows: the same methods, orders,
    force evaluations, FMAs per step, symplecticity and symmetry."""
    table = re.search(r"^\| method \| one step \|.*\n(?:\|.*\n)*", readme, re.M)
    start = table.start() if table else len(readme)
    documented = registry_rows(readme[:start] + (table.group(0) if table else ""), True)
    listed = registry_rows(oscbench_out(exe, ["methods"], None), False)
    out = [f"README.md:{documented[m][0]}: {m} is not in oscbench methods"
           for m in sorted(set(documented) - set(listed))]
    out += [f"README.md: oscbench methods lists {m}, the methods table does not"
            for m in sorted(set(listed) - set(documented))]
    for m in sorted(set(documented) & set(listed)):
        (n, mine), (_, theirs) = documented[m], listed[m]
        out += [f"README.md:{n}: {m}: {field} {a}, oscbench methods: {b}"
                for field, a, b in zip(REGISTRY_FIELDS, mine, theirs) if a != b]
    return out


def without_analyses(config, work):
    """A copy of config in work, without its top-level analyses and stability keys (and their
    indented or flow continuation lines), as the path to give `oscbench run`."""
    kept, dropping = [], False
    with open(config, encoding="utf-8") as f:
        for line in f:
            top = line[:1] not in (" ", "\t", "\n", "#", "-", "]", "}")
            if top:
                dropping = re.match(r"(analyses|stability)\s*:", line) is not None
            if not dropping:
                kept.append(line)
    path = os.path.join(work, "analyses_off_" + os.path.basename(config))
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(kept)
    return path


def block_mismatches(exe, readme, work):
    """Each README block OUTPUT_BLOCKS names is a run of whole lines of its command's stdout."""
    found, out = {}, []
    for n, lines in blocks_of(readme):
        for first, args in OUTPUT_BLOCKS.items():
            if lines and lines[0].startswith(first):
                found[first] = (n, lines)
    for first, args in OUTPUT_BLOCKS.items():
        if first not in found:
            out.append(f"README.md: no block of output beginning {first!r}")
            continue
        n, lines = found[first]
        argv = [os.path.join(SOURCE, a) if a.startswith("configs/") else a for a in args]
        if args[0] == "run":
            argv[1] = without_analyses(argv[1], work)
            argv += ["-o", os.path.splitext(os.path.basename(args[1]))[0] + ".h5"]
        got = oscbench_out(exe, argv, work).splitlines()
        if not any(got[i:i + len(lines)] == lines for i in range(len(got))):
            start = next((i for i, line in enumerate(got) if line == lines[0]), len(got))
            k = next(k for k in range(len(lines)) if got[start + k:start + k + 1] != [lines[k]])
            shown = got[start + k] if start + k < len(got) else "(nothing)"
            out.append(f"README.md:{n + k}: oscbench {' '.join(args)} prints {shown!r} here, "
                       f"not {lines[k]!r}")
    return out


def summary_columns_mismatches(exe, readme, work):
    """The columns README's summary paragraph lists are `summary --format csv`'s header, in its
    order, and with lanes_match the keys of each JSON per_dt object."""
    m = re.search(r"one row per \(dt, method\) with (.*?) in JSON the list `per_dt` of such\s+"
                  r"objects, each with (.*?) too", readme, re.S)
    if not m:
        return ["README.md: no sentence listing the summary's columns (one row per (dt, method) "
                "with ... in JSON the list `per_dt` of such objects, each with ... too)"]
    documented, n = spans(m.group(1)), readme.count("\n", 0, m.start()) + 1
    header = oscbench_out(exe, ["summary", "springs.h5", "-f", "csv"], work).splitlines()[0]
    k = first_difference(documented, header.split(","))
    out = [] if k is None else [f"README.md:{n}: summary --format csv's column {k + 1} is "
                                f"{header.split(',')[k:k + 1]}, README's {documented[k:k + 1]}"]
    doc = json.loads(oscbench_out(exe, ["summary", "springs.h5", "-f", "json"], work))
    keys = {k for row in doc.get("per_dt", []) for k in row}
    want = set(documented + spans(m.group(2)))
    if list(doc) != ["per_dt"] or keys != want:
        out.append(f"README.md:{n}: summary --format json: {list(doc)} of objects with "
                   f"{sorted(keys - want)} not in README, README's {sorted(want - keys)} not there")
    return out


def h5_objects(path):
    """{object path: (kind, {attribute names})} of an HDF5 file, from `h5dump -H`."""
    p = run(["h5dump", "-H", path])
    if p.returncode != 0:
        sys.exit(f"check_readme: h5dump -H {path}: exit {p.returncode}")
    objects, stack = {}, []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("}"):
            stack.pop()
            continue
        m = re.match(r'(GROUP|DATASET|ATTRIBUTE|DATATYPE) "([^"]*)"', line)
        if not line.endswith("{"):
            continue
        names = [s[1] for s in stack if s and s[0] != "ATTRIBUTE"]
        where = "/".join(x for x in names if x != "/")
        if m and m.group(1) == "ATTRIBUTE":
            objects["/" + where][1].add(m.group(2))
        elif m and m.group(2) != "/":
            objects["/" + "/".join(filter(None, [where, m.group(2)]))] = (m.group(1), set())
        elif m:
            objects["/"] = ("GROUP", set())
        stack.append(m.group(1, 2) if m else None)
    return objects


def results_table(readme):
    """(line number, {README path: [the names its columns cell gives]}) of the results table."""
    table = re.search(r"^\| path \| rows \| columns \|\n\|.*\n((?:\|.*\n)*)", readme, re.M)
    if not table:
        return 0, {}
    rows = {}
    for row in table.group(1).splitlines():
        cells = row.strip("|").split(" | ")
        path = spans(cells[0])[0] if spans(cells[0]) else cells[0]  # "/" for the root attributes
        rows[path] = [s for s in spans(without_parentheses(cells[-1])) if re.fullmatch(r"\w+", s)]
    return readme.count("\n", 0, table.start()) + 1, rows


def group_attributes(readme):
    """(line number, {group: [attribute names]}) of README's paragraph on the table groups'
    text attributes."""
    m = re.search(r"carry text attributes[^:]*:(.*?)(?:\n\n|$)", readme, re.S)
    out, group = {}, None
    for span in spans(without_parentheses(m.group(1) if m else "")):
        if span.startswith("/"):
            group = span
            out[group] = []
        elif group and re.fullmatch(r"\w+", span):
            out[group].append(span)
    return (readme.count("\n", 0, m.start()) + 1 if m else 0), out


def results_mismatches(exe, readme, work):
    """README's "Results file" table, attributes and column attributes against a real file."""
    with open(os.path.join(work, "names.yaml"), "w") as f:
        f.write(RESULTS_CONFIG)
    with open(os.path.join(work, "m.yaml"), "w") as f:
        f.write(RESULTS_INCLUDE)
    oscbench_out(exe, ["run", "names.yaml", "-o", "names.h5", "-q"], work)
    objects = h5_objects(os.path.join(work, "names.h5"))
    n, table = results_table(readme)
    out = []

    def compare(what, documented, written, n=n):
        if sorted(documented) != sorted(written):
            out.append(f"README.md:{n}: {what}: README {sorted(set(documented) - set(written))}"
                       f" not in the file, the file's {sorted(set(written) - set(documented))}"
                       " not in README")

    def columns(group):
        return [p.rsplit("/", 1)[1] for p, (kind, _) in objects.items()
                if kind == "DATASET" and p.rsplit("/", 1)[0] == group and
                p.rsplit("/", 1)[1] not in SCALES]

    compare("root attributes", table.get("/", []), objects["/"][1])
    tops = {"/" + p.split("/")[1] for p in objects if p != "/"}
    compare("top-level groups", {"/" + p.split("/")[1] for p in table if p.startswith("/")
                                 and p != "/"}, tops)
    for path, names in table.items():
        if path == "/":
            continue
        if "<" in path:  # /traces/<method>/<row>: every trace
            pattern = re.sub(r"<\w+>", "[^/]+", path)
            groups = [p for p, (kind, _) in objects.items()
                      if kind == "GROUP" and re.fullmatch(pattern, p)]
            if not groups:
                out.append(f"README.md:{n}: no group {path} in the file")
            for g in groups:
                compare(f"{g}'s columns", names, columns(g))
        elif path.count("/") == 2 and objects.get(path, ("",))[0] == "DATATYPE":
            continue
        elif objects.get(path, ("",))[0] != "GROUP":
            out.append(f"README.md:{n}: {path}: no such table (or type) in the file")
        else:
            compare(f"{path}'s columns", names, columns(path))
    where, attributes = group_attributes(readme)
    for g, (kind, attrs) in sorted(objects.items()):
        if kind == "GROUP" and g != "/" and (attrs or g in attributes):
            compare(f"{g}'s attributes", attributes.get(g, []), attrs, where)
    out += [f"README.md:{where}: no group {g} in the file, whose attributes it names"
            for g in sorted(set(attributes) - set(objects))]
    for p, (kind, attrs) in sorted(objects.items()):
        group, name = p.rsplit("/", 1)
        if kind != "DATASET" or objects[group or "/"][0] != "GROUP":
            continue
        need = {"units", "long_name"} | ({"coordinates"} if group.startswith("/traces/") and
                                         name not in SCALES | {"t"} else set())
        if need - attrs:
            out.append(f"README.md:{n}: {p} has no attribute {', '.join(sorted(need - attrs))}")
    return out


def snippet_mismatches(exe, readme, work):
    """Each ```yaml block of README loads as a config (`oscbench methods --config`): a list of
    methods alone is the value of `methods:`; the keys a run needs besides are added, and the
    source tree's configs/methods/ is beside it for its includes."""
    out = []
    shutil.copytree(os.path.join(SOURCE, "configs", "methods"), os.path.join(work, "methods"))
    for m in re.finditer(r"^```yaml\n(.*?)^```", readme, re.M | re.S):
        n, text = readme.count("\n", 0, m.start()) + 2, m.group(1)
        head = "methods:\n" if text.startswith(" ") else ""
        with open(os.path.join(work, "snippet.yaml"), "w") as f:
            f.write(head + text + "stiffness: 1\ndt: 0.1\nsteps: 1\n")
        p = run([exe, "methods", "--config", "snippet.yaml"], cwd=work)
        if p.returncode != 0:
            e = re.match(r"snippet\.yaml:(\d+):\d+: (.*)", p.stderr)
            line = n + int(e.group(1)) - 1 - bool(head) if e else n
            out.append(f"README.md:{line}: the yaml block does not load: "
                       f"{e.group(2) if e else p.stderr.strip()}")
    return out


def outputs_mismatches(exe, readme):
    exe = os.path.abspath(exe)
    if not shutil.which("h5dump"):
        print("skipped: no h5dump (hdf5-tools)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        return [], (synopsis_mismatches(exe, readme) + registry_mismatches(exe, readme) +
                    block_mismatches(exe, readme, work) +
                    summary_columns_mismatches(exe, readme, work) +
                    snippet_mismatches(exe, readme, work) +
                    results_mismatches(exe, readme, work))


def mismatches(mode, arg, texts):
    """Lines "not documented: ..." and "documented, not in the program: ..."."""
    readme = texts[0][1]
    if mode == "bench":
        return bench_mismatches(arg, readme, texts)
    if mode == "scripts":
        return scripts_mismatches(readme, texts)
    if mode == "outputs":
        return outputs_mismatches(arg, readme)
    return oscbench_mismatches(arg, readme, texts)


def main(argv):
    if len(argv) == 4 and argv[2] == "--bench":
        mode, arg = "bench", argv[3]
    elif len(argv) == 4 and argv[2] == "--outputs":
        mode, arg = "outputs", argv[3]
    elif len(argv) == 3 and argv[2] == "--scripts":
        mode, arg = "scripts", None
    elif len(argv) == 3 and not argv[2].startswith("-"):
        mode, arg = "oscbench", argv[2]
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    paths = [argv[1]] + sorted(glob.glob(os.path.join(os.path.dirname(argv[1]), "docs", "*.md")))
    texts = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            texts.append((os.path.basename(path), f.read()))
    undocumented, unknown = mismatches(mode, arg, texts)
    for m in undocumented:
        print(f"check_readme: {argv[1]}: not documented: {m}", file=sys.stderr)
    for m in unknown:
        print(f"check_readme: documented, not in the program: {m}", file=sys.stderr)
    return 1 if undocumented or unknown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
