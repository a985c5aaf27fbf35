/* Test helper: a one-part set in DGL's format big enough to measure memory
 * with (a few hundred MB), written in a few seconds: NODES nodes, EDGES
 * edges with random sources and destinations in id order (edge id =
 * position), DIM float32 features, labels and a train mask on 1 node in
 * 64, all a function of the ids. usage: rt_bigpart OUTDIR NODES EDGES DIM
 * (graph name "big", config OUTDIR/big.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/parse.h"
#include "dglpart/runtime.h"

struct big {
    int64_t n, m;
};

static int64_t src_of(const struct big *g, int64_t e)
{
    return (int64_t)(dp_mix64((uint64_t)e) % (uint64_t)g->n);
}

static int fill(void *arg, int col, int64_t at, int64_t n, void *out)
{
    const struct big *g = arg;
    int64_t *o = out, i;

    for (i = 0; i < n; i++) {
        int64_t k = at + i;
        switch (col) {
        case DP_COL_SRC:
            o[i] = src_of(g, k);
            break;
        case DP_COL_DST:
            o[i] = (int64_t)((unsigned __int128)k * (uint64_t)g->n /
                             (uint64_t)g->m);
            break;
        case DP_COL_EID:
        case DP_COL_NID:
            o[i] = k;
            break;
        case DP_COL_INNER_EDGE:
        case DP_COL_INNER_NODE:
            ((uint8_t *)out)[i] = 1;
            break;
        default:
            return dp_error(DP_EINVAL, "column %d not written", col);
        }
    }
    return 0;
}

static int write_feats(const char *path, int64_t n, int dim)
{
    struct dp_tensor_writer w;
    int64_t shape[2] = { n, dim }, i, chunk = 1 << 16;
    float *f = dp_malloc_array((size_t)chunk * (size_t)dim, 4);
    int64_t *lab = dp_malloc_array((size_t)chunk, 8);
    uint8_t *mask = dp_malloc((size_t)chunk);
    int rc = DP_ENOMEM, k, j;

    if (!f || !lab || !mask)
        goto out;
    if ((rc = dp_tensor_writer_open(&w, path, 3)))
        goto out;
    for (k = 0; k < 3 && !rc; k++) {
        static const char *const names[3] = { "_N/features", "_N/labels",
                                              "_N/train_mask" };
        static const enum dp_dtype types[3] = { DP_F32, DP_I64, DP_U8 };
        rc = dp_tensor_writer_begin(&w, names[k], types[k], k ? 1 : 2, shape);
        for (i = 0; !rc && i < n; i += chunk) {
            int64_t c = n - i < chunk ? n - i : chunk, v;
            for (v = 0; v < c; v++) {
                uint64_t h = dp_mix64((uint64_t)(i + v));
                for (j = 0; k == 0 && j < dim; j++)
                    f[v * dim + j] = (float)((h >> (j % 48)) & 0xffff) / 65536;
                lab[v] = (int64_t)(h % 47);
                mask[v] = (h >> 50) % 64 == 0;
            }
            rc = k == 0 ? dp_tensor_writer_write(&w, f, (uint64_t)(c * dim) * 4)
                 : k == 1 ? dp_tensor_writer_write(&w, lab, (uint64_t)c * 8)
                          : dp_tensor_writer_write(&w, mask, (uint64_t)c);
        }
        if (!rc)
            rc = dp_tensor_writer_end(&w);
    }
    if (!rc)
        rc = dp_tensor_writer_commit(&w);
    else
        dp_tensor_writer_abort(&w);
out:
    free(f);
    free(lab);
    free(mask);
    return rc;
}

int main(int argc, char **argv)
{
    struct big g;
    struct dp_graph_src src;
    struct dp_part_config c;
    struct dp_tensor_writer w;
    int64_t node_map[1][2], edge_map[1][2];
    char path[4096];
    int dim, rc;

    dp_set_progname("rt_bigpart");
    if (argc != 5 || dp_parse_i64("NODES", argv[2], 1, 1ll << 40, &g.n) ||
        dp_parse_i64("EDGES", argv[3], 1, 1ll << 40, &g.m) ||
        dp_parse_int("DIM", argv[4], 1, 4096, &dim)) {
        fprintf(stderr, "usage: rt_bigpart OUTDIR NODES EDGES DIM\n");
        return 2;
    }
    snprintf(path, sizeof(path), "%s/part0", argv[1]);
    if ((rc = dp_mkdir_p(path, 0755)))
        goto fail;
    memset(&src, 0, sizeof(src));
    src.num_nodes = g.n;
    src.num_edges = g.m;
    src.fill = fill;
    src.arg = &g;
    snprintf(path, sizeof(path), "%s/part0/graph.dgl", argv[1]);
    if ((rc = dp_graph_write_src(path, &src)))
        goto fail;
    snprintf(path, sizeof(path), "%s/part0/node_feat.dgl", argv[1]);
    if ((rc = write_feats(path, g.n, dim)))
        goto fail;
    snprintf(path, sizeof(path), "%s/part0/edge_feat.dgl", argv[1]);
    if ((rc = dp_tensor_writer_open(&w, path, 0)) ||
        (rc = dp_tensor_writer_commit(&w)))
        goto fail;
    memset(&c, 0, sizeof(c));
    node_map[0][0] = edge_map[0][0] = 0;
    node_map[0][1] = g.n;
    edge_map[0][1] = g.m;
    c.graph_name = "big";
    c.part_method = "random";
    c.num_nodes = g.n;
    c.num_edges = g.m;
    c.num_parts = 1;
    c.halo_hops = 1;
    c.node_map = node_map;
    c.edge_map = edge_map;
    snprintf(path, sizeof(path), "%s/big.json", argv[1]);
    if ((rc = dp_config_write(path, &c)))
        goto fail;
    return 0;
fail:
    fprintf(stderr, "rt_bigpart: %s\n", dp_errmsg());
    return 1;
}
