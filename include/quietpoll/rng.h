/* splitmix64: the one generator quietpoll uses, for per-trial seeds and
 * random tapes. Explicit state, no globals. */
#ifndef QUIETPOLL_RNG_H
#define QUIETPOLL_RNG_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t qp_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Fills buf with size random bytes from state. */
static inline void qp_random_bytes(uint64_t *state, uint8_t *buf, size_t size)
{
    for (size_t i = 0; i < size; i += 8) {
        uint64_t word = qp_splitmix64(state);
        for (size_t j = 0; j < 8 && i + j < size; j++)
            buf[i + j] = (uint8_t)(word >> (8 * j));
    }
}

#endif
