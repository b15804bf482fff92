/*
 * CALLTRACE_CLOCK=tsc-fenced: each loaded object's calls of the hooks go
 * to the fenced hooks (ct_fenced_enter, ct_fenced_exit in hot.c) by its
 * GOT slots, at start and after each dlopen, so that their first fence is
 * the first thing a hook does.  The TSC hooks themselves stay as they
 * are, at their cost, for every other clock; an object whose slots could
 * not be pointed still reaches the fenced hooks, by the TSC hooks' test
 * that its thread's stop bit fails (one test later, the fence after it).
 * The argument rules (args/site.c) point the same slots after this, at
 * their own trampolines, which reach the fenced hooks that second way.
 */
#include <errno.h>
#include <link.h>

#include "preload/filters/filter.h"
#include "preload/libcalls/plt.h"
#include "preload/tracer.h"

static int point_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name;
    if (name && *name && ct_elf_is_loader(name))
        return 0;
    ct_plt_point_import(info, "__cyg_profile_func_enter",
                        (uintptr_t)ct_fenced_enter);
    ct_plt_point_import(info, "__cyg_profile_func_exit",
                        (uintptr_t)ct_fenced_exit);
    return 0;
}

void ct_clock_hooks_point(void)
{
    if (!ct_clock_fenced)
        return;
    int saved = errno;
    dl_iterate_phdr(point_object, NULL);
    errno = saved;
}
