/* `oscbench run`: placeholder until the sweep harness lands (issue 3). */
#include "cli.h"

int cmd_run(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "oscbench run: not built yet\n");
    return EXIT_RUNTIME;
}
