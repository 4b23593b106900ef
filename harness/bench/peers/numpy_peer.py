"""Peer: NumPy whole-array stepping of the oscillators oscbench-bench steps, as a Python user
would write it: a = -k x - c v - g with k = 1 + 0.1 (i mod 13), c = 0.01, g = 0, dt = 0.002.
Usage: numpy_peer.py METHOD N STEPS (euler | semi-implicit | verlet | rk4). Prints osc-steps/s."""
import sys
import time

import numpy as np

method = sys.argv[1] if len(sys.argv) > 1 else "semi-implicit"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
dt, c, g = 0.002, 0.01, 0.0
k = 1.0 + 0.1 * (np.arange(n) % 13)
x, v = np.ones(n), np.zeros(n)


def accel(x, v):
    return -k * x - c * v - g


t0 = time.perf_counter()
for _ in range(steps):
    if method == "euler":
        a = accel(x, v)
        x = x + v * dt
        v = v + a * dt
    elif method == "semi-implicit":
        v += accel(x, v) * dt
        x += v * dt
    elif method == "verlet":
        a = accel(x, v)
        h = v + a * (dt / 2)
        x += h * dt
        v = h + accel(x, h) * (dt / 2)
    elif method == "rk4":
        k1x, k1v = v, accel(x, v)
        k2x, k2v = v + dt / 2 * k1v, accel(x + dt / 2 * k1x, v + dt / 2 * k1v)
        k3x, k3v = v + dt / 2 * k2v, accel(x + dt / 2 * k2x, v + dt / 2 * k2v)
        k4x, k4v = v + dt * k3v, accel(x + dt * k3x, v + dt * k3v)
        x = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    else:
        sys.exit(f"unknown method {method}")
t = time.perf_counter() - t0
print(f"numpy {method} n={n} steps={steps} threads=1 {n * steps / t:.3e} osc-steps/s (x0={x[0]:.6f})")
