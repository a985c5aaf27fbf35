/* Fuzz target: graph.dgl (save_graphs v2) through dp_graph_load. */
#include "dglpart/dglfile.h"
#include "fuzz.h"

static volatile uint64_t sink; /* keeps the reads */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_graph_file g;
    const char *path = fuzz_path(data, size);
    uint64_t sum = 0;
    int64_t i;
    const struct dp_ndarray *a;

    if (!path || dp_graph_load(&g, path) != 0)
        return 0;
    /* touch what loaders read: every promised element must be in bounds */
    for (i = 0; i < g.num_edges && g.coo_row.data; i++)
        sum += (uint64_t)dp_ndarray_get_i64(&g.coo_row, (uint64_t)i) +
               (uint64_t)dp_ndarray_get_i64(&g.coo_col, (uint64_t)i);
    if ((a = dp_graph_ndata(&g, "_ID")) != NULL && a->nbytes)
        sum += (uint64_t)dp_ndarray_get_i64(
            a, a->nbytes / dp_dtype_size(a->dtype) - 1);
    if ((a = dp_graph_edata(&g, "inner_edge")) != NULL && a->nbytes)
        sum += (uint64_t)dp_ndarray_get_i64(
            a, a->nbytes / dp_dtype_size(a->dtype) - 1);
    dp_graph_release(&g);
    sink = sum;
    return 0;
}
