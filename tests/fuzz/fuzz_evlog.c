/* libFuzzer harness: the evlog reader on arbitrary bytes, strict and lenient,
 * into a sink that ignores everything. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(&ct_reader_evlog, data, size);
}
