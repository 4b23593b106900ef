/* A progress line on stderr while a sweep runs: only when stderr is a terminal and not --quiet. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

void progress_init(progress *p, double total, const char *unit, bool enabled)
{
    p->unit = unit;
    atomic_init(&p->done, 0);
    p->total = total > 0 ? total : 1;
    p->enabled = enabled && isatty(STDERR_FILENO);
    p->start = p->last_draw = omp_get_wtime();
    p->label[0] = '\0';
}

static void format_seconds(char *buf, size_t len, double s)
{
    if (s < 100)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 6000)
        snprintf(buf, len, "%ldm%02lds", (long)s / 60, (long)s % 60);
    else
        snprintf(buf, len, "%.1fh", s / 3600);
}

static void draw(const progress *p, double now)
{
    double done = (double)atomic_load(&p->done), frac = done / p->total;
    double elapsed = now - p->start, rate = elapsed > 0 ? done / elapsed : 0;
    char eta[32] = "?";
    if (rate > 0)
        format_seconds(eta, sizeof eta, (p->total - done) / rate);
    const int width = 24;
    int filled = (int)(frac * width + 0.5);
    char bar[32];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %3.0f%%  %.2e %s/s  ETA %-7s %-40.40s", bar, 100 * frac, rate,
            p->unit, eta, p->label);
    fflush(stderr);
}

void progress_add(progress *p, double amount)
{
    atomic_fetch_add(&p->done, (long long)amount);
    if (!p->enabled || omp_get_thread_num() != 0)
        return;
    double now = omp_get_wtime();
    if (now - p->last_draw < 0.2)
        return;
    p->last_draw = now;
    draw(p, now);
}

void progress_label(progress *p, const char *label)
{
    snprintf(p->label, sizeof p->label, "%s", label);
    if (p->enabled)
        draw(p, omp_get_wtime());
}

void progress_finish(progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r%*s\r", 110, "");
}
