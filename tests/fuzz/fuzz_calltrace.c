/* libFuzzer harness: calltrace's own binary reader (header, block index,
 * MAPS blocks, varint records) on arbitrary bytes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_reader(&ct_reader_calltrace, data, size);
}
