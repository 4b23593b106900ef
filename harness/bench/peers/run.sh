#!/usr/bin/env bash
# The README's performance comparison, in one command: oscbench-bench's headline benchmarks
# (its own FMA/add probe, sampled beside every benchmark, with the spread), then the peers a
# user would pick instead, stepping the same oscillators in the same session:
#     harness/bench/peers/run.sh BUILD_DIR [OUT_DIR]
# Needs: a release build with oscbench-bench; g++ and Boost (Debian libboost-dev) for odeint;
# python3-numpy and python3-numba for those peers (each peer is skipped if missing).
# Writes OUT_DIR/bench.json (Google Benchmark JSON: every repetition and the aggregates, so that
# table.py can judge a row by all its repetitions), OUT_DIR/bench.txt (the aggregates),
# OUT_DIR/table.md (the README's table, table.py) and OUT_DIR/peers.txt.
# pipefail: a failing oscbench-bench or table.py fails the script with its status, not tee's 0.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [OUT_DIR]}
out=${2:-$(mktemp -d)}
py=${PYTHON:-/usr/bin/python3} # Debian's python3, where python3-numpy and python3-numba install
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
n=1048576
{ date -u; uptime; nproc; grep -m1 'model name' /proc/cpuinfo || true; } > "$out/machine.txt"
"$build/oscbench-bench" \
    --benchmark_filter='^(step/[a-z0-9-]+/(double|float)/1048576(/threads:1)?|baseline/naive/(double|float)/1048576)$' \
    --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json | tee "$out/bench.txt"
"$py" "$here/table.py" "$out/bench.json" | tee "$out/table.md"
{
    if command -v g++ >/dev/null && [ -e /usr/include/boost/numeric/odeint.hpp ]; then
        g++ -O3 -march=native -o "$out/odeint_peer" "$here/odeint_peer.cc"
        for m in euler semi-implicit verlet rk4; do "$out/odeint_peer" $m $n 100; done
    else
        echo "odeint peer skipped: needs g++ and libboost-dev"
    fi
    if "$py" -c 'import numpy' 2>/dev/null; then
        for m in euler semi-implicit verlet rk4; do "$py" "$here/numpy_peer.py" $m $n 50; done
    else
        echo "numpy peer skipped: needs python3-numpy"
    fi
    if "$py" -c 'import numba' 2>/dev/null; then
        for m in euler semi-implicit; do "$py" "$here/numba_peer.py" $m $n 200; done
    else
        echo "numba peer skipped: needs python3-numba"
    fi
    uptime
} | tee "$out/peers.txt"
echo "results in $out"
