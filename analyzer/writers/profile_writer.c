/* Writers of the finished profile alone (export.h, ct_profile_writer). */
#include <stdlib.h>

#include "analyzer/writers/export.h"
#include "analyzer/util.h"

static int pass_event(struct ct_sink *self, const struct ct_event *ev)
{
    (void)self;
    (void)ev;
    return 0;
}

static void free_writer(struct ct_exporter *ex)
{
    free(ex);
}

void *ct_profile_writer_new(size_t size, FILE *out, struct ct_trace_info *info,
                            int (*finish)(struct ct_exporter *,
                                          struct ct_profile *))
{
    struct ct_profile_writer *w = ct_xcalloc(1, size);
    w->ex.sink.event = pass_event;
    w->ex.finish = finish;
    w->ex.free = free_writer;
    w->out = out;
    w->info = info;
    return w;
}
