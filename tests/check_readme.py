#!/usr/bin/env python3
"""README.md against the program, both ways: what the program takes, the README names, and what
the README (or a docs/*.md beside it) gives the program, the program takes.

    check_readme.py README.md oscbench          options of oscbench and its subcommands, config keys
    check_readme.py README.md --bench oscbench-bench
                                                OSCBENCH_* environment variables, its flags
    check_readme.py README.md --scripts         options of harness/bench's helper scripts

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
Variables: every OSCBENCH_* that `oscbench-bench --help` lists or the sources under harness/
and lib/ read (a quoted "OSCBENCH_..." there) is named in README.md, and no other is named.
Exit 1 with one line per mismatch; 2 on a usage error or a program that cannot be run.
"""
import glob
import os
import re
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


def run(argv, **kw):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)
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


def oscbench_mismatches(exe, readme, texts):
    taken = oscbench_options(exe)
    undocumented, unknown = option_mismatches(taken, lambda _: readme, texts)
    keys_undocumented, keys_unknown = key_mismatches(exe, readme)
    loose = loose_mismatches({ANY_COMMAND: set().union(*taken.values())}, texts)
    meson = meson_option_mismatches(texts)
    return undocumented + keys_undocumented, unknown + keys_unknown + loose + meson


def mismatches(mode, arg, texts):
    """Lines "not documented: ..." and "documented, not in the program: ..."."""
    readme = texts[0][1]
    if mode == "bench":
        return bench_mismatches(arg, readme, texts)
    if mode == "scripts":
        return scripts_mismatches(readme, texts)
    return oscbench_mismatches(arg, readme, texts)


def main(argv):
    if len(argv) == 4 and argv[2] == "--bench":
        mode, arg = "bench", argv[3]
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
