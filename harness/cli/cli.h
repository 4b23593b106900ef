/* The oscbench command line: one function per subcommand. Exit codes: 0 success, 1 runtime
 * failure, 2 bad input (flags, config). */
#ifndef OSCBENCH_CLI_H
#define OSCBENCH_CLI_H

#include <stdio.h>

#include "diag.h" /* print_line: what the user typed, on one line */

enum { EXIT_RUNTIME = 1, EXIT_BADINPUT = 2 };

int cmd_methods(int argc, char **argv, FILE *out);
int cmd_run(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_summary(int argc, char **argv);

#endif
