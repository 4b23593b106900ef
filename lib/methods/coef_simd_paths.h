/* coef_simd.h instantiated for both SIMD paths, x86-64-v4 then v3, by a family's kernel header
 * (once per precision, with everything coef_simd.h asks for defined but CS_LEVEL); then the
 * family's parameters are undefined, so that the next pass or family starts clean. */
#define CS_LEVEL 4
#include "coef_simd.h"
#undef CS_LEVEL
#define CS_LEVEL 3
#include "coef_simd.h"
#undef CS_LEVEL

#undef CS_PFX
#undef CS_SCALED
#undef CS_CHAIN_HEADER
#undef CS_BLOCK_VECTORS
#undef CS_MAX_BLOCK_VECTORS
#undef CS_CHAIN_VECTORS
#undef CS_MAX_STAGES
#undef CS_PATTERNS
#undef CS_PATTERN_OF
#undef CS_PATTERN_SET
