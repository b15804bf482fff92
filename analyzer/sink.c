/* Batch sinks (trace.h) fed one event at a time, e.g. through a tee. */
#include "trace.h"

int ct_batch_sink_event(struct ct_sink *self, const struct ct_event *ev)
{
    struct ct_batch_sink *b = (struct ct_batch_sink *)self;
    return b->events(b, ev, 1);
}
