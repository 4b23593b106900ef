// The C shim over Google Benchmark: the only C++ in oscbench. See bench_shim.h.
#include "bench_shim.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <cstdlib>
#include <exception>
#include <string>

namespace {
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
// CPU time of the whole process (std::clock is that on POSIX systems).
double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Whether a run failed (osc_bench_error): the exit status says so.
std::atomic<bool> any_failed{false};

// --benchmark_format and --benchmark_out_format take console, json or csv; Google Benchmark
// prints its usage and exits 0 for another value. The offending argument, or nullptr.
const char *bad_format(int argc, char **argv)
{
    static const char *const flags[] = {"--benchmark_format=", "--benchmark_out_format="};
    for (int i = 1; i < argc; i++)
        for (const char *flag : flags)
            if (!std::strncmp(argv[i], flag, std::strlen(flag))) {
                const char *v = argv[i] + std::strlen(flag);
                if (std::strcmp(v, "console") && std::strcmp(v, "json") && std::strcmp(v, "csv"))
                    return argv[i];
            }
    return nullptr;
}

// A repetition count Google Benchmark would take: an integer from 1 to 2^31 - 1.
bool good_repetitions(const char *v)
{
    if (*v == '+')
        v++;
    if (!*v || std::strlen(v) > 10)
        return false;
    long long n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return false;
        n = n * 10 + (*v - '0');
    }
    return n >= 1 && n <= 2147483647LL;
}

// --benchmark_repetitions (the last one given; else the BENCHMARK_REPETITIONS environment
// variable, its default) takes an integer of at least 1: Google Benchmark runs nothing and exits 0
// for 0, fails with no message for a negative count, and prints two lines for a non-integer. The
// offending setting as flag=value or NAME=value, or nullptr.
const char *bad_repetitions(int argc, char **argv)
{
    static const char flag[] = "--benchmark_repetitions=";
    const char *last = nullptr;
    for (int i = 1; i < argc; i++)
        if (!std::strncmp(argv[i], flag, sizeof flag - 1))
            last = argv[i];
    if (last)
        return good_repetitions(last + sizeof flag - 1) ? nullptr : last;
    static std::string env;
    const char *v = std::getenv("BENCHMARK_REPETITIONS");
    if (!v || good_repetitions(v))
        return nullptr;
    env = std::string("BENCHMARK_REPETITIONS=") + v;
    return env.c_str();
}
} // namespace

// What a C callback sees: the benchmark::State and the shim's own wall clock of the timed loop.
struct osc_bench_state {
    benchmark::State &st;
    Clock::time_point t0{};
    double elapsed = 0; // seconds of timed loop, up to t0 while running
    double cpu0 = 0, cpu_elapsed = 0; // the same in process CPU seconds
    bool running = false;
};

static benchmark::internal::Benchmark *B(osc_bench *b)
{
    return reinterpret_cast<benchmark::internal::Benchmark *>(b);
}

extern "C" {

osc_bench *osc_bench_register(const char *name, osc_bench_fn fn, void *arg)
{
    if (!name || !fn)
        return nullptr;
    try {
        benchmark::internal::Benchmark *b =
            benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
                osc_bench_state s{st};
                fn(&s, arg);
            });
        return reinterpret_cast<osc_bench *>(b);
    } catch (...) {
        return nullptr;
    }
}

void osc_bench_use_real_time(osc_bench *b) { B(b)->UseRealTime(); }
void osc_bench_set_iterations(osc_bench *b, int64_t iterations) { B(b)->Iterations(iterations); }
void osc_bench_set_min_time(osc_bench *b, double seconds) { B(b)->MinTime(seconds); }
void osc_bench_set_unit_ms(osc_bench *b) { B(b)->Unit(benchmark::kMillisecond); }

static void stop_clocks(osc_bench_state *s)
{
    if (s->running) {
        s->elapsed += since(s->t0);
        s->cpu_elapsed += cpu_now() - s->cpu0;
    }
    s->running = false;
}

static void start_clocks(osc_bench_state *s)
{
    s->running = true;
    s->cpu0 = cpu_now();
    s->t0 = Clock::now();
}

bool osc_bench_keep_running(osc_bench_state *s)
{
    stop_clocks(s);
    bool more = s->st.KeepRunning();
    if (more)
        start_clocks(s);
    return more;
}

int64_t osc_bench_iterations(const osc_bench_state *s) { return s->st.iterations(); }

double osc_bench_seconds(const osc_bench_state *s)
{
    return s->elapsed + (s->running ? since(s->t0) : 0.0);
}

double osc_bench_cpu_seconds(const osc_bench_state *s)
{
    return s->cpu_elapsed + (s->running ? cpu_now() - s->cpu0 : 0.0);
}

void osc_bench_pause(osc_bench_state *s)
{
    stop_clocks(s);
    s->st.PauseTiming();
}

void osc_bench_resume(osc_bench_state *s)
{
    s->st.ResumeTiming();
    start_clocks(s);
}

void osc_bench_error(osc_bench_state *s, const char *message)
{
    any_failed = true;
    s->st.SkipWithError(message);
}

void osc_bench_counter(osc_bench_state *s, const char *name, double value, int flags)
{
    if (flags & (OSC_BENCH_RATE | OSC_BENCH_CPU_RATE)) {
        double t = (flags & OSC_BENCH_RATE) ? osc_bench_seconds(s) : osc_bench_cpu_seconds(s);
        value = t > 0 ? value / t : 0;
    }
    s->st.counters[name] = benchmark::Counter(value);
}

void osc_bench_items(osc_bench_state *s, double items)
{
    s->st.SetItemsProcessed(static_cast<int64_t>(items));
}

void osc_bench_label(osc_bench_state *s, const char *label) { s->st.SetLabel(label); }

void osc_bench_context(const char *key, const char *value)
{
    try {
        benchmark::AddCustomContext(key, value);
    } catch (...) {
    }
}

int osc_bench_main(int argc, char **argv)
{
    try {
        if (const char *bad = bad_format(argc, argv)) {
            std::fprintf(stderr, "oscbench-bench: %s: expected console, json or csv\n", bad);
            return 2;
        }
        if (const char *bad = bad_repetitions(argc, argv)) {
            std::fprintf(stderr, "oscbench-bench: %s: expected a whole number of repetitions, 1 "
                                 "or more\n", bad);
            return 2;
        }
        benchmark::Initialize(&argc, argv);
        if (benchmark::ReportUnrecognizedArguments(argc, argv))
            return 2;
        const size_t ran = benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        if (!ran) {
            std::fputs("oscbench-bench: no benchmark ran (a --benchmark_filter that matches none "
                       "or does not compile, or a flag refused above)\n", stderr);
            return 2;
        }
        return any_failed ? 1 : 0;
    } catch (const std::exception &e) {
        std::string what = e.what(); // on one line: a control character shown as '?'
        for (char &c : what)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                c = '?';
        std::fprintf(stderr, "oscbench-bench: %s\n", what.c_str());
        return 1;
    }
}

} // extern "C"
