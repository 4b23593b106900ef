"""Peer: Numba stepping the oscillators oscbench-bench steps, as a performance-minded Python
user would write it: parallel over blocks of lanes (prange), many steps per block while it sits
in cache, the lane loop innermost so that LLVM vectorizes it (fastmath: contraction into FMAs
allowed). a = -k x - c v - g, k = 1 + 0.1 (i mod 13), c = 0.01, g = 0, dt = 0.002.
Usage: numba_peer.py METHOD N STEPS (euler | semi-implicit). Prints osc-steps/s, compile
time excluded, the best of block sizes 256, 1024 and 4096 lanes."""
import sys
import time

import numba as nb
import numpy as np


@nb.njit(parallel=True, fastmath=True)
def semi_implicit(x, v, k, c, g, dt, steps, block):
    n = x.shape[0]
    for b in nb.prange((n + block - 1) // block):
        lo = b * block
        hi = min(lo + block, n)
        for _ in range(steps):
            for i in range(lo, hi):
                v[i] += (-k[i] * x[i] - c[i] * v[i] - g[i]) * dt
                x[i] += v[i] * dt


@nb.njit(parallel=True, fastmath=True)
def euler(x, v, k, c, g, dt, steps, block):
    n = x.shape[0]
    for b in nb.prange((n + block - 1) // block):
        lo = b * block
        hi = min(lo + block, n)
        for _ in range(steps):
            for i in range(lo, hi):
                a = -k[i] * x[i] - c[i] * v[i] - g[i]
                x[i] += v[i] * dt
                v[i] += a * dt


method = sys.argv[1] if len(sys.argv) > 1 else "semi-implicit"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 100
step = {"semi-implicit": semi_implicit, "euler": euler}[method]
k = 1.0 + 0.1 * (np.arange(n) % 13)
c, g = np.full(n, 0.01), np.zeros(n)
x, v = np.ones(n), np.zeros(n)
step(x[:1024].copy(), v[:1024].copy(), k[:1024], c[:1024], g[:1024], 0.002, 1, 512)  # compile
best = 0.0
for block in (256, 1024, 4096):
    xx, vv = x.copy(), v.copy()
    t0 = time.perf_counter()
    step(xx, vv, k, c, g, 0.002, steps, block)
    best = max(best, n * steps / (time.perf_counter() - t0))
print(f"numba {method} n={n} steps={steps} threads={nb.get_num_threads()} {best:.3e} osc-steps/s "
      f"(x0={xx[0]:.6f})")
