/* Private to the library (kernel_loops.h); tests/test_methods.c checks the rule. */
#ifndef OSC_TILE_LANES_H
#define OSC_TILE_LANES_H

#include <stddef.h>

#include "oscbench.h"

/* Tiles (osc_kernels.tile_lanes). osc_batch_run steps a batch in tiles of at most OSC_TILE_LANES
 * lanes; a tile that is not whole blocks ends in remainder blocks, and a remainder block of few
 * vectors takes about the time of a whole block (its vectors wait out the step's latency with
 * nothing beside them): 96-lane blocks in a 512-lane tile are 5 blocks and a 32-lane remainder,
 * 6 blocks' time for 5.33 blocks' work, 12% lost. A smaller tile costs a few % of its own
 * (Zen 5, 2 threads, 2^20 lanes, medians of 4 rounds: euler's 64-lane AVX-512 blocks 0.89 ->
 * 0.86 of the ceiling in tiles of 384; its 24-lane AVX2 blocks, OSCBENCH_ISA=v3, 0.83 -> 0.79
 * in whole tiles of 384 against 512 with an 8-lane remainder), so the tile is cut to the
 * largest multiple of OSC_LANE_ALIGN that is whole blocks (384 for 96 lanes) only when the
 * remainder wastes more than 1/16 of a full tile; 24-lane blocks (16 lanes' time wasted per
 * 512, 3%) keep 512. Blocks of 80 lanes (and 160 floats) are whole in no multiple of 128 up to
 * 512, and their 32-lane remainder cost as much as the larger block gained (stormer and
 * implicit-midpoint on a Zen 5, 2 threads, 2^20 lanes: double 1.02x, float 0.93x of 64-lane
 * blocks in tiles of 512): such blocks get the smallest whole tile up to OSC_TILE_LANES_MAX
 * (640: 1.06-1.08x). */
static inline size_t osc_tile_for_block(size_t block_lanes)
{
    const size_t rest = OSC_TILE_LANES % block_lanes;
    if (rest == 0 || 16 * (block_lanes - rest) <= OSC_TILE_LANES)
        return OSC_TILE_LANES;
    for (size_t t = OSC_TILE_LANES / OSC_LANE_ALIGN * OSC_LANE_ALIGN; t > 0; t -= OSC_LANE_ALIGN)
        if (t % block_lanes == 0)
            return t;
    for (size_t t = OSC_TILE_LANES + OSC_LANE_ALIGN; t <= OSC_TILE_LANES_MAX; t += OSC_LANE_ALIGN)
        if (t % block_lanes == 0)
            return t;
    return OSC_TILE_LANES;
}

#endif
