// Counts heap allocations for courier-bench by interposing the malloc family in the executable.
// Each wrapper bumps a relaxed atomic counter and forwards to glibc's own entry points
// (__libc_malloc & co.), so no dlsym bootstrap is needed. Linux/glibc only; elsewhere it is empty.
#include "CMallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Atomic uint64_t allocations;
static _Atomic uint64_t frees;
static _Atomic uint64_t bytes;

static inline void count(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
}

void *malloc(size_t size) {
    count(size);
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count(count_ * size);
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count(size);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __libc_free(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count(size);
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

uint64_t cmc_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
uint64_t cmc_frees(void) { return atomic_load_explicit(&frees, memory_order_relaxed); }
uint64_t cmc_allocated_bytes(void) { return atomic_load_explicit(&bytes, memory_order_relaxed); }

int cmc_counting_works(void) {
    uint64_t before = cmc_allocations();
    // volatile: the compiler may otherwise drop a malloc/free pair whose result is unused.
    void *volatile pointer = malloc(64);
    free(pointer);
    return cmc_allocations() > before;
}

#else
uint64_t cmc_allocations(void) { return 0; }
uint64_t cmc_frees(void) { return 0; }
uint64_t cmc_allocated_bytes(void) { return 0; }
int cmc_counting_works(void) { return 0; }
#endif
