/*
 * The table of readers (reader.h) and the order formats are probed in:
 * --format finds a reader by name; without it, the reader whose probe is
 * the most certain of the input wins.
 */
#include <string.h>

#include "analyzer/readers/reader.h"

const struct ct_reader *const ct_readers[] = {
    &ct_reader_calltrace,
    &ct_reader_openlaszlo,
    &ct_reader_lms,
    &ct_reader_rtl,
    &ct_reader_samplingprof,
    &ct_reader_evlog,
    NULL,
};

const struct ct_reader *ct_reader_find(const char *name)
{
    for (const struct ct_reader *const *r = ct_readers; *r; r++)
        if (strcmp((*r)->name, name) == 0)
            return *r;
    return NULL;
}

const struct ct_reader *ct_reader_detect(const struct ct_input *in)
{
    const struct ct_reader *best = NULL;
    int best_score = 0;
    for (const struct ct_reader *const *r = ct_readers; *r; r++) {
        int s = (*r)->probe(in);
        if (s > best_score) {
            best_score = s;
            best = *r;
        }
    }
    return best;
}
