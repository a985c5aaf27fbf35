/* Fuzz target: edge-list text (and gzip) through the convert reader, then
 * the CSC build on whatever edges it accepted. */
#include <string.h>

#include "../../convert/cv.h"
#include "dglpart/error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct dp_convert_opts o;
    struct cv_graph g;
    struct cv_src s;
    char dir[] = "/tmp/dglpart-fuzz-XXXXXX";
    int rc;

    dp_convert_opts_init(&o);
    o.undirected = size & 1;
    o.dedup = (size >> 1) & 1;
    o.no_self_loops = (size >> 2) & 1;
    memset(&g, 0, sizeof(g));
    g.o = &o;
    g.num_nodes = -1;
    g.edges.max_id = -1;
    if (!mkdtemp(dir))
        return 0;
    g.dir = dir;
    if (cv_src_open_mem(&s, data, size, "fuzz")) {
        dp_rm_rf(dir);
        return 0;
    }
    rc = cv_parse_edgelist(&g, &s);
    cv_src_close(&s, NULL, NULL);
    if (g.num_nodes < 0)
        g.num_nodes = g.edges.max_id + 1;
    /* Keep the CSC small: ids come from the input. */
    if (!rc && g.num_nodes <= (1 << 20))
        cv_graph_write_csc(&g);
    dp_rm_rf(dir);
    cv_edges_release(&g.edges);
    dp_dataset_meta_release(&g.meta);
    return 0;
}
