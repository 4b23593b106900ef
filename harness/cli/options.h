/* Option parsing shared by the subcommands: getopt_long driven by one table entry per option,
 * from which the --help text is printed too, so an option is added in one place.
 *
 * Every subcommand also takes -h/--help (its usage, options with defaults, exit codes; exit 0)
 * and -V/--version. `--output=PATH` and `-o PATH` are the same; long options may be abbreviated
 * while unambiguous (getopt_long). Errors are one line on stderr naming the subcommand and the
 * way to its help, exit 2. */
#ifndef OSCBENCH_OPTIONS_H
#define OSCBENCH_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_option {
    const char *name;  /* long name, without "--" */
    char short_name;   /* 0: long only */
    const char *arg;   /* the argument's placeholder, e.g. "PATH"; NULL: a flag */
    const char *help;  /* one or more lines; say the default */
} cli_option;

typedef struct cli_command {
    const char *name;        /* "run" */
    const char *usage;       /* after "usage: oscbench ", e.g. "run CONFIG.yaml [options]" */
    const char *about;       /* what it does, a few lines */
    const cli_option *options;
    int noptions;
    int min_args, max_args;  /* positional arguments */
    const char *exit_codes;  /* lines after "exit status:", NULL: the standard three */
} cli_command;

enum { CLI_DONE = -1, CLI_EXIT = -2 };

typedef struct cli_parser {
    const cli_command *cmd;
    int argc;
    char **argv;
    int status; /* exit status when CLI_EXIT was returned */
} cli_parser;

void cli_begin(cli_parser *p, const cli_command *cmd, int argc, char **argv);
/* The next option given: its index in cmd->options (its argument in *arg, NULL for a flag),
 * CLI_DONE at the end (positional arguments then checked: cli_args gives them), or CLI_EXIT when
 * the command must stop with p->status (help and version printed: 0; an error printed: 2). */
int cli_next(cli_parser *p, const char **arg);
/* The positional arguments after CLI_DONE. */
char **cli_args(const cli_parser *p, int *count);
/* One line "oscbench CMD: what (see oscbench CMD --help)"; returns 2. */
int cli_error(const cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_help(FILE *out, const cli_command *cmd);

/* 0 if `path` opens for reading and is not a directory, else why not as an errno value
 * (EISDIR for a directory): how plot and summary refuse a results file they cannot read. */
int cli_unreadable(const char *path);

/* Create `dir` and its missing parents (mode 0777 less the umask), as `plot -o DIR` and
 * `run -o DIR/x.h5` both do: 0, or -1 with errno set (e.g. ENOTDIR when a part is a file). */
int cli_make_dirs(const char *dir);
/* The directory of the file `path` (up to its last '/'), created if missing; 0, or -1 with the
 * reason in err ("PATH: cannot create directory DIR: why"). */
int cli_make_parent(const char *path, char *err, size_t errlen);

#endif
