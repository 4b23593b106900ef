/* getopt_long from a table of cli_option (see options.h). */
#define _GNU_SOURCE /* getopt_long, with GNU's argument permutation: options after operands */
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "oscbench.h"

#define MAX_OPTIONS 32
enum { OPT_HELP = 1000, OPT_VERSION, OPT_LONG0 = 2000 };

void cli_begin(cli_parser *p, const cli_command *cmd, int argc, char **argv)
{
    *p = (cli_parser){.cmd = cmd, .argc = argc, .argv = argv};
    optind = 0; /* glibc: start afresh */
    opterr = 0; /* errors are reported here, in one line */
}

int cli_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "oscbench %s: ", cmd->name);
    vprint_shown(stderr, fmt, ap); /* whole: it may quote a long argument */
    fprintf(stderr, " (see oscbench %s --help)\n", cmd->name);
    va_end(ap);
    return EXIT_BADINPUT;
}

void cli_help(FILE *out, const cli_command *cmd)
{
    fprintf(out, "usage: oscbench %s\n\n%s\n\noptions:\n", cmd->usage, cmd->about);
    for (int i = 0; i < cmd->noptions; i++) {
        const cli_option *o = &cmd->options[i];
        char flag[64], letter[8] = "    ";
        if (o->short_name)
            snprintf(letter, sizeof letter, "-%c, ", o->short_name);
        snprintf(flag, sizeof flag, "%s--%s%s%s", letter, o->name, o->arg ? "=" : "",
                 o->arg ? o->arg : "");
        fprintf(out, "  %-24s", flag);
        for (const char *line = o->help; *line;) {
            size_t len = strcspn(line, "\n");
            fprintf(out, "%s%.*s\n", line == o->help ? "" : "                          ",
                    (int)len, line);
            line += len + (line[len] == '\n');
        }
    }
    fprintf(out, "  %-24s%s\n  %-24s%s\n", "-h, --help", "this help, then exit 0",
            "-V, --version", "the version, then exit 0");
    fprintf(out, "\nexit status:\n%s",
            cmd->exit_codes ? cmd->exit_codes
                            : "  0  success\n  1  runtime failure (e.g. an unwritable output)\n"
                              "  2  bad input (an option, an argument, a config)\n");
}

/* getopt_long's tables from cmd->options: a short option's value is its letter, a long-only
 * one's OPT_LONG0 + index. */
static void build_tables(const cli_command *cmd, struct option *longopts, char *shortopts)
{
    int n = 0, s = 0;
    shortopts[s++] = ':'; /* a missing argument returns ':' */
    for (int i = 0; i < cmd->noptions && i < MAX_OPTIONS; i++) {
        const cli_option *o = &cmd->options[i];
        int val = o->short_name ? o->short_name : OPT_LONG0 + i;
        longopts[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                        val};
        if (o->short_name) {
            shortopts[s++] = o->short_name;
            if (o->arg)
                shortopts[s++] = ':';
        }
    }
    longopts[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    longopts[n++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    longopts[n] = (struct option){0};
    memcpy(shortopts + s, "hV", 3);
}

static int option_index(const cli_command *cmd, int val)
{
    if (val >= OPT_LONG0)
        return val - OPT_LONG0;
    for (int i = 0; i < cmd->noptions; i++)
        if (cmd->options[i].short_name == val)
            return i;
    return -1;
}

/* The option as the user wrote it, for an error. */
static const char *offending(const cli_parser *p)
{
    int at = optind - 1;
    return at >= 1 && at < p->argc ? p->argv[at] : "?";
}

static int check_args(cli_parser *p)
{
    const cli_command *cmd = p->cmd;
    int count = p->argc - optind;
    if (count < cmd->min_args || count > cmd->max_args) {
        const char *args = strchr(cmd->usage, ' ') + 1; /* "CONFIG.yaml [options]" */
        if (count < cmd->min_args)
            p->status = cli_error(cmd, "missing %.*s", (int)strcspn(args, " ["), args);
        else if (cmd->max_args == 0)
            p->status = cli_error(cmd, "takes no arguments, got '%s'", p->argv[optind]);
        else
            p->status = cli_error(cmd, "unexpected argument '%s'", p->argv[optind + cmd->max_args]);
        return CLI_EXIT;
    }
    return CLI_DONE;
}

/* getopt_long rejects an abbreviation that several long options begin with as it rejects an
 * unknown one: say which it could be ("--out": --output, --output-dir). True if reported. */
static bool report_ambiguous(cli_parser *p, const char *given)
{
    size_t len = strcspn(given, "=");
    char names[256] = "";
    int matches = 0;
    for (int i = 0; i < p->cmd->noptions + 2; i++) {
        const char *name = i < p->cmd->noptions ? p->cmd->options[i].name
                           : i == p->cmd->noptions ? "help" : "version";
        if (len > 0 && strncmp(name, given, len) == 0) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s--%s", matches ? ", " : "", name);
            matches++;
        }
    }
    if (matches < 2)
        return false;
    p->status = cli_error(p->cmd, "ambiguous option '--%.*s' (could be %s)", (int)len, given,
                          names);
    return true;
}

int cli_next(cli_parser *p, const char **arg)
{
    struct option longopts[MAX_OPTIONS + 3];
    char shortopts[2 * MAX_OPTIONS + 4];
    build_tables(p->cmd, longopts, shortopts);
    int val = getopt_long(p->argc, p->argv, shortopts, longopts, NULL);
    *arg = optarg;
    if (val == -1)
        return check_args(p);
    p->status = 0;
    if (val == 'h' || val == OPT_HELP) {
        cli_help(stdout, p->cmd);
        return CLI_EXIT;
    }
    if (val == 'V' || val == OPT_VERSION) {
        printf("oscbench %s\n", OSC_VERSION);
        return CLI_EXIT;
    }
    if (val == ':') {
        p->status = cli_error(p->cmd, "%s: expected an argument", offending(p));
        return CLI_EXIT;
    }
    int i = val == '?' ? -1 : option_index(p->cmd, val);
    const char *given = offending(p);
    /* getopt_long names a known option given a value it does not take by its value in optopt */
    if (i < 0 && optopt && strncmp(given, "--", 2) == 0 && strchr(given, '=')) {
        p->status = cli_error(p->cmd, "option '%.*s' takes no argument",
                              (int)strcspn(given, "="), given);
        return CLI_EXIT;
    }
    if (i < 0 && strncmp(given, "--", 2) == 0 && report_ambiguous(p, given + 2))
        return CLI_EXIT;
    if (i < 0) {
        p->status = optopt && optopt < OPT_LONG0
                        ? cli_error(p->cmd, "unknown option '-%c'", optopt)
                        : cli_error(p->cmd, "unknown option '%s'", given);
        return CLI_EXIT;
    }
    return i;
}

char **cli_args(const cli_parser *p, int *count)
{
    *count = p->argc - optind;
    return p->argv + optind;
}

int cli_unreadable(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int err = fd < 0 || fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (fd >= 0)
        close(fd);
    return err;
}

int cli_make_parent(const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (cli_make_dirs(dir) == 0)
        return 0;
    snprintf(err, errlen, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
    return -1;
}

int cli_make_dirs(const char *dir)
{
    char path[4096];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, len + 1);
    for (char *slash = path + 1; (slash = strchr(slash, '/')); slash++) {
        *slash = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *slash = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
