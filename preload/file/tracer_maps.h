/*
 * MAPS blocks: the objects loaded, for symbolization (maps.c).
 *
 * One part of tracer.h, the tracer's internal interface: the files of
 * the tracer include tracer.h, which includes every part; a part compiles
 * alone too, with the parts it needs.
 */
#ifndef CT_TRACER_MAPS_H
#define CT_TRACER_MAPS_H

#include "preload/tracer_base.h"

#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------------ maps */

/* Collects loaded objects as MAPS entries into buf; returns bytes used. */
size_t ct_maps_collect(uint8_t *buf, size_t cap);
/* Writes a MAPS block with the objects loaded now. */
void ct_maps_write(void);
/* At close: only when objects were loaded or unloaded since the last. */
void ct_maps_write_if_changed(void);
/* After a dlclose (rc its result): a MAPS block without what it unloaded. */
void ct_maps_after_unload(int rc);

#pragma GCC visibility pop

#endif /* CT_TRACER_MAPS_H */
