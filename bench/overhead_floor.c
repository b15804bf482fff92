/*
 * The floor under any timestamping tracer: each hook reads the clock the
 * tracer reads (rdtsc) and stores 8 bytes into a per-thread ring of 4 KiB,
 * which stays in the L1 cache.  Nothing is kept: no encoding, no shadow
 * stack, no file.  A tracer's cost over the empty hooks, divided by this
 * preload's, is how far it is from the floor.
 */
#include <stdint.h>
#include <x86intrin.h>

#define FLOOR_RING 512u /* events: 4 KiB */

/* Not static, so the stores cannot be dropped as never read. */
__attribute__((visibility("default"))) __thread uint64_t floor_ring[FLOOR_RING]
    __attribute__((tls_model("initial-exec")));
__attribute__((visibility("default"))) __thread uint32_t floor_pos
    __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) void floor_event(void)
{
    uint32_t p = floor_pos;
    floor_ring[p] = __rdtsc();
    floor_pos = (p + 1) & (FLOOR_RING - 1);
}

__attribute__((visibility("default"))) void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn;
    (void)site;
    floor_event();
}

__attribute__((visibility("default"))) void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    floor_event();
}
