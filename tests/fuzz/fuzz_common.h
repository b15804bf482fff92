/* Shared by the reader harnesses (tests/fuzz/run.sh builds them). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/reader.h"
#include "analyzer/model/trace.h"

static int fuzz_null_event(struct ct_sink *self, const struct ct_event *ev)
{
    (void)self;
    /* touch what a sink may read, so ASan sees bad pointers */
    volatile size_t sum = 0;
    if (ev->text)
        for (size_t i = 0; i < ev->text_len; i++)
            sum += (unsigned char)ev->text[i];
    if (ev->stack)
        for (uint32_t i = 0; i < ev->depth; i++)
            sum += ev->stack[i];
    (void)sum;
    return 0;
}

static int fuzz_reader(const struct ct_reader *r, const uint8_t *data,
                       size_t size)
{
    /* an exact-size copy: reads past the end are caught */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    for (int lenient = 0; lenient < 2; lenient++) {
        struct ct_input in = {"fuzz", copy, size};
        struct ct_trace_info info;
        ct_trace_info_init(&info, "fuzz", r->name);
        struct ct_sink sink = {fuzz_null_event};
        struct ct_read_opts o = {.lenient = lenient};
        r->probe(&in);
        r->read(&in, &info, &sink, &o);
        ct_trace_info_free(&info);
    }
    free(copy);
    return 0;
}

#endif /* FUZZ_COMMON_H */
