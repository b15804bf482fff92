/* libFuzzer harness: following a calltrace trace while it grows
 * (calltrace_follow.c) on arbitrary bytes, fed as a stream that arrives in
 * pieces, then as a file whose writer is gone, into the profile. */
#include <stdlib.h>
#include <string.h>

#include "analyzer/readers/calltrace_follow.h"
#include "analyzer/model/profile.h"
#include "analyzer/model/profile_live.h"
#include "analyzer/readers/reader.h"
#include "analyzer/model/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ct_trace_info info;
    ct_trace_info_init(&info, "fuzz.raw", "calltrace");
    struct ct_profile_opts po = {0};
    struct ct_profile *p = ct_profile_new(&info, &po);
    struct ct_follow *f = ct_follow_new(&info, ct_profile_sink(p));
    /* Cut points from the input's own bytes, so that the fuzzer steers
     * them too; each piece an exact-size copy for ASan. */
    size_t cut = 0;
    for (int i = 0; i < 4 && cut < size; i++) {
        cut += 1 + (size_t)data[(cut * 7 + 13) % size] * 97;
        if (cut > size)
            cut = size;
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, data, cut);
        struct ct_input in = {"fuzz.raw", copy, cut};
        ct_follow_feed(f, &in, i % 2 ? CT_WRITER_RUNNING : CT_WRITER_UNKNOWN);
        uint32_t n = ct_functab_count(info.funcs);
        struct ct_live_fstats *live = calloc(n ? n : 1, sizeof *live);
        ct_profile_live(p, live, n);
        free(live);
        free(copy);
    }
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    struct ct_input in = {"fuzz.raw", copy, size};
    ct_follow_feed(f, &in, CT_WRITER_GONE);
    free(copy);
    ct_profile_finish(p);
    ct_follow_free(f);
    ct_profile_free(p);
    ct_trace_info_free(&info);
    return 0;
}
