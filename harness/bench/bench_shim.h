/* A small C API over Google Benchmark (bench_shim.cc), so that oscbench's benchmarks are written
 * in C. Register benchmarks before osc_bench_main; each is a callback that loops
 *
 *     while (osc_bench_keep_running(st)) { ...timed work... }
 *
 * and then sets its counters. The work is OpenMP-parallel, so the calling thread's CPU time would
 * mislead: the shim keeps its own wall-clock time of the timed loop (pauses excluded), and rate
 * counters are divided by that. (Google Benchmark's UseRealTime would do the same but appends
 * "/real_time" to every name, and the names are a public interface (README, "Performance"): see
 * osc_bench_use_real_time.) */
#ifndef OSC_BENCH_SHIM_H
#define OSC_BENCH_SHIM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct osc_bench_state osc_bench_state; /* a benchmark::State */
typedef struct osc_bench osc_bench;             /* a registered benchmark */
typedef void (*osc_bench_fn)(osc_bench_state *st, void *arg);

/* Register `fn(st, arg)` under `name` (copied). NULL on failure. */
osc_bench *osc_bench_register(const char *name, osc_bench_fn fn, void *arg);
/* Let Google Benchmark also report and size its runs by real time (its name gets "/real_time"). */
void osc_bench_use_real_time(osc_bench *b);
/* Optional per-benchmark settings (before osc_bench_main): a fixed iteration count, or the
 * minimum time to run (seconds); at most one of the two. */
void osc_bench_set_iterations(osc_bench *b, int64_t iterations);
void osc_bench_set_min_time(osc_bench *b, double seconds);
/* Report times in milliseconds rather than nanoseconds. */
void osc_bench_set_unit_ms(osc_bench *b);

/* The timed loop: true while another iteration is wanted. */
bool osc_bench_keep_running(osc_bench_state *st);
/* Iterations run so far (the total, once the loop is over). */
int64_t osc_bench_iterations(const osc_bench_state *st);
/* Wall-clock seconds spent in the timed loop so far, pauses excluded. */
double osc_bench_seconds(const osc_bench_state *st);
/* CPU seconds of the whole process (all threads) over the same spans: on a machine shared with
 * other work, this is the time the benchmark actually had the cores. */
double osc_bench_cpu_seconds(const osc_bench_state *st);
/* Exclude work from the timing (setup inside the loop). */
void osc_bench_pause(osc_bench_state *st);
void osc_bench_resume(osc_bench_state *st);
/* Mark the run failed, with a message; call before the loop or return right after. */
void osc_bench_error(osc_bench_state *st, const char *message);

enum osc_bench_counter_flags {
    OSC_BENCH_VALUE = 0, /* reported as given */
    OSC_BENCH_RATE = 1,     /* reported divided by osc_bench_seconds() */
    OSC_BENCH_CPU_RATE = 2, /* reported divided by osc_bench_cpu_seconds() */
};
/* Set a counter of the current run by name (after the timed loop, for a rate). */
void osc_bench_counter(osc_bench_state *st, const char *name, double value, int flags);
/* A label shown beside the run. */
/* Items processed in the whole run (Google Benchmark reports items_per_second, over its own
 * time: the main thread's CPU time, or real time with osc_bench_use_real_time). */
void osc_bench_items(osc_bench_state *st, double items);
void osc_bench_label(osc_bench_state *st, const char *label);

/* A key/value pair in the report's context (the header, or "context" in JSON). */
void osc_bench_context(const char *key, const char *value);

/* Google Benchmark's main: parse its flags (exit 2 on an unknown one, a format other than
 * console, json or csv, or a repetition count that is not a whole number from 1), run what the filter selects, shut down. Returns the exit status: 0, 1
 * when a run failed (osc_bench_error), 2 when no benchmark ran (a filter matching none, or one
 * that does not compile; a flag refused), 1 with a one-line message on an exception. */
int osc_bench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
