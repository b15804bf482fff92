/*
 * Load-time start and clean close.  Kept apart so the unit tests link the
 * rest of the tracer without starting it.
 */
#include "preload/tracer.h"

/* Lets the first instrumented call start the tracer when another object's
 * constructor runs before ours. */
const int ct_autostart = 1;

__attribute__((constructor)) static void ct_init(void)
{
    ct_process_start();
}

__attribute__((destructor)) static void ct_fini(void)
{
    ct_process_finish();
}
