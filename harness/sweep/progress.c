/* A progress line on stderr while a sweep runs: only when stderr is a terminal and not --quiet. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* The terminal's width: asked at every draw (a resized window is followed), else $COLUMNS,
 * else 80. */
static int terminal_columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    int n = env ? atoi(env) : 0;
    return n > 0 ? n : 80;
}

/* What fits, by priority: the percentage and ETA always, then a bar (10 to 24 wide), then the
 * rate, then as much of the label as is left. */
int progress_format(const progress *p, double now, int columns, char *line, size_t len)
{
    double done = (double)atomic_load(&p->done), frac = done / p->total;
    double elapsed = now - p->start, rate = elapsed > 0 ? done / elapsed : 0;
    char eta[32] = "?", core[64], rate_text[64], bar[32] = "";
    if (rate > 0)
        format_seconds(eta, sizeof eta, (p->total - done) / rate);
    snprintf(core, sizeof core, "%3.0f%%  ETA %-7s", 100 * frac, eta);
    snprintf(rate_text, sizeof rate_text, "%.2e %s/s  ", rate, p->unit);
    /* the last column stays empty: a character there wraps the line on many terminals */
    int room = (columns > 1 ? columns : 2) - 1 - (int)strlen(core);
    int width = room - 3 < 24 ? room - 3 : 24; /* bar[] holds 24 and its brackets */
    if (width >= 10) {
        int filled = (int)(frac * width + 0.5);
        bar[0] = '[';
        for (int i = 0; i < width; i++)
            bar[i + 1] = i < filled ? '#' : '.';
        memcpy(bar + width + 1, "] ", 3);
        room -= width + 3;
    }
    if ((int)strlen(rate_text) > room)
        rate_text[0] = '\0';
    room -= (int)strlen(rate_text);
    int label = room > 1 ? room - 1 : 0;
    int n = snprintf(line, len, "%s%s%s%s%.*s", bar, rate_text, core, label ? " " : "", label,
                     p->label);
    int most = columns > 1 ? columns - 1 : 1; /* a terminal narrower than the core: cut it */
    if (n > most && (size_t)most < len)
        line[n = most] = '\0';
    return n;
}

static void draw(const progress *p, double now)
{
    char line[256];
    int columns = terminal_columns();
    int n = progress_format(p, now, columns, line, sizeof line);
    /* pad to the previous line's end within the width, so nothing of it is left over */
    fprintf(stderr, "\r%s%*s", line, columns - 1 - n > 0 ? columns - 1 - n : 0, "");
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
        fprintf(stderr, "\r%*s\r", terminal_columns() - 1, "");
}
