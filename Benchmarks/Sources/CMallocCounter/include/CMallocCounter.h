#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) since start.
uint64_t cmc_allocations(void);
/// Calls of free with a non-null pointer since start.
uint64_t cmc_frees(void);
/// Bytes requested by the counted allocations since start.
uint64_t cmc_allocated_bytes(void);
/// 1 when a malloc is counted (Linux/glibc), else 0.
int cmc_counting_works(void);

#endif
