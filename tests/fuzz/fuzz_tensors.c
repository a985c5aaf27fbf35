/* Fuzz target: save_tensors files (node_feat.dgl ...) via dp_tensors_load. */
#include "dglpart/dglfile.h"
#include "fuzz.h"

static volatile uint64_t sink; /* keeps the reads */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_tensors t;
    const char *path = fuzz_path(data, size);
    uint64_t sum = 0;
    int i;

    if (!path || dp_tensors_load(&t, path) != 0)
        return 0;
    for (i = 0; i < t.count; i++) {
        const struct dp_ndarray *a = &t.items[i].a;
        uint64_t n = a->nbytes / dp_dtype_size(a->dtype);

        if (n)
            sum += (uint64_t)dp_ndarray_get_i64(a, n - 1);
        sum += dp_tensors_find(&t, t.items[i].name) == &t.items[i];
    }
    dp_tensors_release(&t);
    sink = sum;
    return 0;
}
