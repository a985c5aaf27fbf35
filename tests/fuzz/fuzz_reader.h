/* Shared body of the text-reader fuzz targets (fuzz_edgelist, fuzz_metis):
 * one convert reader on the input, then the CSC build on whatever edges it
 * accepted. The input's size picks the --undirected/--dedup/--no_self_loops
 * flags. */
#ifndef DGLPART_FUZZ_READER_H
#define DGLPART_FUZZ_READER_H

#include <string.h>

#include "../../convert/cv.h"
#include "dglpart/error.h"
#include "fuzz.h"

static inline int fuzz_reader(const uint8_t *data, size_t size,
                              int (*parse)(struct cv_graph *, struct cv_src *))
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
    rc = parse(&g, &s);
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

#endif
