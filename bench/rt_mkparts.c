/* Benchmark input for bench/runtime.sh: a DGL-format partition set from an
 * OGB-layout raw graph (gengraph's rmat21) without running METIS: nodes
 * split into contiguous id ranges (so shuffled id = input id), edges
 * numbered by destination as DGL does, 1-hop halo of in-edges (the runtime
 * reads only those). Node features: D float32 columns from a hash of (node,
 * column); labels from node-label.csv.gz; train_mask = split/random/train.
 *   rt_mkparts RAWDIR OUTDIR NPARTS [DIM [NAME]]   (NAME: graph name, rmat21)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/runtime.h"

static void die(int rc)
{
    fprintf(stderr, "rt_mkparts: %s\n", dp_errmsg());
    exit(rc ? rc : 1);
}

/* p, or the end of the run when it is NULL (its DP_ENOMEM recorded). */
static void *need(void *p)
{
    if (!p)
        die(DP_ENOMEM);
    return p;
}

static int64_t *read_ints(const char *path, int per_line, int64_t *count)
{
    gzFile f = gzopen(path, "rb");
    static char buf[1 << 20];
    int64_t n = 0, cap = 1 << 20, v = 0;
    int64_t *out = need(dp_malloc((size_t)cap * 8));
    int have = 0, k, i;

    if (!f || !out) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    gzbuffer(f, 1 << 20);
    while ((k = gzread(f, buf, sizeof(buf))) > 0) {
        for (i = 0; i < k; i++) {
            char c = buf[i];
            if (c >= '0' && c <= '9') {
                v = v * 10 + (c - '0');
                have = 1;
            } else if (have) {
                if (n == cap) {
                    cap *= 2;
                    out = need(dp_realloc_array(out, (size_t)cap, 8));
                }
                out[n++] = v;
                v = 0;
                have = 0;
            }
        }
    }
    if (have)
        out[n++] = v;
    gzclose(f);
    if (n % per_line) {
        fprintf(stderr, "%s: %lld numbers, not a multiple of %d\n", path,
                (long long)n, per_line);
        exit(1);
    }
    *count = n / per_line;
    return out;
}

int main(int argc, char **argv)
{
    char path[4096];
    int64_t n, m, i, *edges, *lab, nlab, *tr, ntr, *nn, one;
    int64_t *indptr, *esrc; /* edges sorted by destination */
    int nparts, dim, p;
    struct dp_part_config c;

    if (argc < 4) {
        fprintf(stderr,
                "usage: rt_mkparts RAWDIR OUTDIR NPARTS [DIM [NAME]]\n");
        return 2;
    }
    nparts = atoi(argv[3]);
    dim = argc > 4 ? atoi(argv[4]) : 100;
    snprintf(path, sizeof(path), "%s/raw/num-node-list.csv.gz", argv[1]);
    nn = read_ints(path, 1, &one);
    n = nn[0];
    free(nn);
    snprintf(path, sizeof(path), "%s/raw/edge.csv.gz", argv[1]);
    edges = read_ints(path, 2, &m);
    fprintf(stderr, "rt_mkparts: %lld nodes, %lld edges\n", (long long)n,
            (long long)m);
    snprintf(path, sizeof(path), "%s/raw/node-label.csv.gz", argv[1]);
    lab = read_ints(path, 1, &nlab);
    snprintf(path, sizeof(path), "%s/split/random/train.csv.gz", argv[1]);
    tr = read_ints(path, 1, &ntr);

    /* counting sort by destination: edge id = position (DGL's order) */
    indptr = need(dp_calloc((size_t)n + 1, 8));
    esrc = need(dp_malloc((size_t)m * 8));
    for (i = 0; i < m; i++)
        indptr[edges[2 * i + 1] + 1]++;
    for (i = 0; i < n; i++)
        indptr[i + 1] += indptr[i];
    {
        int64_t *cur = need(dp_malloc((size_t)n * 8));
        memcpy(cur, indptr, (size_t)n * 8);
        for (i = 0; i < m; i++)
            esrc[cur[edges[2 * i + 1]]++] = edges[2 * i];
        free(cur);
    }
    free(edges);

    memset(&c, 0, sizeof(c));
    c.graph_name = argc > 5 ? argv[5] : "rmat21";
    c.part_method = "range";
    c.num_nodes = n;
    c.num_edges = m;
    c.num_parts = nparts;
    c.halo_hops = 1;
    c.node_map = need(dp_calloc((size_t)nparts, sizeof(*c.node_map)));
    c.edge_map = need(dp_calloc((size_t)nparts, sizeof(*c.edge_map)));
    for (p = 0; p < nparts; p++) {
        int64_t lo = n * p / nparts, hi = n * (p + 1) / nparts;
        c.node_map[p][0] = lo;
        c.node_map[p][1] = hi;
        c.edge_map[p][0] = indptr[lo];
        c.edge_map[p][1] = indptr[hi];
    }
    dp_mkdir_p(argv[2], 0755);
    for (p = 0; p < nparts; p++) {
        int64_t lo = c.node_map[p][0], hi = c.node_map[p][1], ni = hi - lo;
        int64_t elo = indptr[lo], ne = indptr[hi] - elo, nl = ni, e;
        int64_t *local = need(dp_malloc((size_t)n * 8)), *nid, *src, *dst, *eid;
        uint8_t *inner, *einner, *mask;
        float *feat;
        int64_t *plab, shape[2];
        struct dp_graph_part g;
        struct dp_tensor_writer w;
        int rc;

        for (i = 0; i < n; i++)
            local[i] = i >= lo && i < hi ? i - lo : -1;
        nid = need(dp_malloc((size_t)(ni + ne) * 8));
        for (i = 0; i < ni; i++)
            nid[i] = lo + i;
        src = need(dp_malloc((size_t)ne * 8));
        dst = need(dp_malloc((size_t)ne * 8));
        eid = need(dp_malloc((size_t)ne * 8));
        einner = need(dp_malloc((size_t)ne));
        for (e = 0; e < ne; e++) {
            int64_t s = esrc[elo + e];
            if (local[s] < 0) {
                local[s] = nl;
                nid[nl++] = s;
            }
            src[e] = local[s];
            eid[e] = elo + e;
            einner[e] = 1;
        }
        for (i = lo; i < hi; i++)
            for (e = indptr[i]; e < indptr[i + 1]; e++)
                dst[e - elo] = i - lo;
        inner = need(dp_calloc((size_t)nl, 1));
        memset(inner, 1, (size_t)ni);
        memset(&g, 0, sizeof(g));
        g.num_nodes = nl;
        g.num_edges = ne;
        g.src = src;
        g.dst = dst;
        g.nid = nid;
        g.inner_node = inner;
        g.eid = eid;
        g.inner_edge = einner;
        snprintf(path, sizeof(path), "%s/part%d", argv[2], p);
        dp_mkdir_p(path, 0755);
        snprintf(path, sizeof(path), "%s/part%d/graph.dgl", argv[2], p);
        if ((rc = dp_graph_write(path, &g)))
            die(rc);
        free(src);
        free(dst);
        free(eid);
        free(einner);
        free(inner);
        free(nid);
        free(local);

        feat = need(dp_malloc((size_t)ni * (size_t)dim * 4));
        for (i = 0; i < ni; i++) {
            int j;
            for (j = 0; j < dim; j++)
                feat[i * dim + j] =
                    (float)(dp_mix64((uint64_t)(lo + i) * 1000 + (uint64_t)j) >>
                            40) /
                    (float)(1 << 24);
        }
        plab = need(dp_malloc((size_t)ni * 8));
        for (i = 0; i < ni; i++)
            plab[i] = lo + i < nlab ? lab[lo + i] : 0;
        mask = need(dp_calloc((size_t)ni, 1));
        for (i = 0; i < ntr; i++)
            if (tr[i] >= lo && tr[i] < hi)
                mask[tr[i] - lo] = 1;
        snprintf(path, sizeof(path), "%s/part%d/node_feat.dgl", argv[2], p);
        shape[0] = ni;
        shape[1] = dim;
        if ((rc = dp_tensor_writer_open(&w, path, 3)) ||
            (rc =
                 dp_tensor_writer_add(&w, "_N/feat", DP_F32, 2, shape, feat)) ||
            (rc = dp_tensor_writer_add(&w, "_N/label", DP_I64, 1, shape,
                                       plab)) ||
            (rc = dp_tensor_writer_add(&w, "_N/train_mask", DP_U8, 1, shape,
                                       mask)) ||
            (rc = dp_tensor_writer_commit(&w)))
            die(rc);
        free(feat);
        free(plab);
        free(mask);
        snprintf(path, sizeof(path), "%s/part%d/edge_feat.dgl", argv[2], p);
        if ((rc = dp_tensor_writer_open(&w, path, 0)) ||
            (rc = dp_tensor_writer_commit(&w)))
            die(rc);
        fprintf(stderr,
                "rt_mkparts: part %d: %lld inner nodes, %lld nodes, "
                "%lld edges\n",
                p, (long long)ni, (long long)nl, (long long)ne);
    }
    snprintf(path, sizeof(path), "%s/%s.json", argv[2], c.graph_name);
    if (dp_config_write(path, &c))
        die(1);
    free(c.node_map);
    free(c.edge_map);
    free(indptr);
    free(esrc);
    free(lab);
    free(tr);
    return 0;
}
