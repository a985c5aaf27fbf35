/* Fuzz target: .npy files through dp_npy_open (header parse + size). */
#include "dglpart/npy.h"
#include "fuzz.h"

static volatile uint64_t sink; /* keeps the reads */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_npy a;
    const char *path = fuzz_path(data, size);
    uint64_t sum = 0;

    if (!path || dp_npy_open(&a, path) != 0)
        return 0;
    /* dp_npy_get_i64 is for integer arrays; touch floats as bytes */
    if (a.h.count && dp_dtype_is_int(a.h.dtype))
        sum = (uint64_t)dp_npy_get_i64(&a, a.h.count - 1) +
              (uint64_t)dp_npy_get_i64(&a, 0);
    else if (a.h.count)
        sum =
            ((const uint8_t *)a.data)[a.h.count * dp_dtype_size(a.h.dtype) - 1];
    dp_npy_release(&a);
    sink = sum;
    return 0;
}
