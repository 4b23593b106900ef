// Peer: Boost.odeint stepping N independent damped oscillators, the ones oscbench-bench steps:
// a = -k x - c v - g with k = 1 + 0.1 (i mod 13), c = 0.01, g = 0, dt = 0.002, x0 = 1, v0 = 0.
// Usage: odeint_peer METHOD N STEPS   (METHOD: euler | semi-implicit | verlet | rk4)
// Prints one line: the method, N, steps and oscillator-steps per second (one thread).
// semi-implicit is odeint's symplectic_euler, whose momentum function sees only the
// coordinates: it cannot carry the drag, so that row steps the undamped oscillators (the same
// operations less one multiply-add per step: a flattering comparison for odeint).
#include <boost/numeric/odeint.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace boost::numeric::odeint;
typedef std::vector<double> vec;

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "semi-implicit";
    const size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000000;
    const long steps = argc > 3 ? std::atol(argv[3]) : 100;
    const double dt = 0.002, c = 0.01, g = 0;
    vec k(n);
    for (size_t i = 0; i < n; i++)
        k[i] = 1 + 0.1 * (double)(i % 13);
    vec x(n, 1.0), v(n, 0.0);
    auto t0 = std::chrono::steady_clock::now();
    if (!std::strcmp(m, "semi-implicit")) {
        symplectic_euler<vec> st;
        auto coor = [](const vec &p, vec &dq) { for (size_t i = 0; i < p.size(); i++) dq[i] = p[i]; };
        auto mom = [&](const vec &q, vec &dp) {
            for (size_t i = 0; i < q.size(); i++) dp[i] = -k[i] * q[i] - g;
        };
        for (long s = 0; s < steps; s++)
            st.do_step(std::make_pair(coor, mom), std::make_pair(std::ref(x), std::ref(v)), 0.0, dt);
    } else if (!std::strcmp(m, "verlet")) {
        velocity_verlet<vec> st;
        auto acc = [&](const vec &q, const vec &p, vec &a, double) {
            for (size_t i = 0; i < q.size(); i++) a[i] = -k[i] * q[i] - c * p[i] - g;
        };
        for (long s = 0; s < steps; s++)
            st.do_step(acc, std::make_pair(std::ref(x), std::ref(v)), 0.0, dt);
    } else {
        vec y(2 * n);
        for (size_t i = 0; i < n; i++)
            y[2 * i] = 1, y[2 * i + 1] = 0;
        auto rhs = [&](const vec &s, vec &ds, double) {
            for (size_t i = 0; i < n; i++) {
                ds[2 * i] = s[2 * i + 1];
                ds[2 * i + 1] = -k[i] * s[2 * i] - c * s[2 * i + 1] - g;
            }
        };
        if (!std::strcmp(m, "rk4")) {
            runge_kutta4<vec> st;
            for (long s = 0; s < steps; s++) st.do_step(rhs, y, 0.0, dt);
        } else {
            euler<vec> st;
            for (long s = 0; s < steps; s++) st.do_step(rhs, y, 0.0, dt);
        }
        x[0] = y[0];
    }
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("odeint %s n=%zu steps=%ld threads=1 %.3e osc-steps/s (x0=%g)\n", m, n, steps,
                (double)n * (double)steps / t, x[0]);
    return 0;
}
