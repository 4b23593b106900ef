/* Progress of a long sweep: amount done of a total (oscillator-steps), rate and ETA. */
#ifndef OSCBENCH_PROGRESS_H
#define OSCBENCH_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct progress {
    atomic_llong done;
    double total;
    bool enabled;
    double start, last_draw;
    char label[64];
    const char *unit; /* what is counted, e.g. "osc-steps" */
} progress;

void progress_init(progress *p, double total, const char *unit, bool enabled);
/* Thread-safe; only the master thread draws, at most five times a second. */
void progress_add(progress *p, double amount);
void progress_label(progress *p, const char *label);
void progress_finish(progress *p);
/* The line drawn at time `now` for a terminal `columns` wide: at most columns - 1 characters
 * (the bar shrinks, then goes, then the label is cut); returns its length. */
int progress_format(const progress *p, double now, int columns, char *line, size_t len);

#endif
