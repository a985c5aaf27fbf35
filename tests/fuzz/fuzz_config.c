/* Fuzz target: the partition config JSON through dp_config_load. */
#include <stdlib.h>

#include "dglpart/dglfile.h"
#include "fuzz.h"

static volatile uint64_t sink; /* keeps the reads */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dp_part_config c;
    const char *path = fuzz_path(data, size);
    uint64_t sum = 0;
    int i;

    if (!path || dp_config_load(&c, path) != 0)
        return 0;
    for (i = 0; i < c.num_parts; i++) {
        char *p = dp_config_part_file(&c, i, "part_graph");

        sum += (uint64_t)c.node_map[i][1] + (uint64_t)c.edge_map[i][0] +
               (p != NULL);
        free(p);
    }
    dp_config_release(&c);
    sink = sum;
    return 0;
}
