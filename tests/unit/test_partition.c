/* Unit tests of the partition stage: assignments, vertex weights, the METIS
 * input graph, and DGL's halo subgraphs on a graph small enough to work out
 * by hand. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../partition/cgraph.h"
#include "../../partition/ml.h"
#include "../../partition/phases.h"
#include "dglpart/dataset.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/partition.h"
#include "harness.h"

static char tmpdir[] = "/tmp/dglpart-unit-partXXXXXX";
static char *ds; /* the tiny dataset folder */

static char *tpath(const char *name)
{
    return dp_path_join(tmpdir, name);
}

/* Write dir/name as an npy array. */
static void write_npy(const char *dir, const char *name, enum dp_dtype dt,
                      int nd, const int64_t *shape, const void *data)
{
    char *p = dp_path_join(dir, name);

    CHECK_EQ(dp_npy_write(p, dt, nd, shape, data), 0);
    free(p);
}

/* Input edges e0..e7: 0->1 1->2 2->3 3->4 4->5 5->0 2->2 1->2; train
 * nodes 0 and 3. In-edge CSC by destination. */
static void make_dataset(const char *dir)
{
    int64_t indptr[7] = { 0, 1, 2, 5, 6, 7, 8 };
    int64_t indices[8] = { 5, 0, 1, 2, 1, 2, 3, 4 };
    int64_t eids[8] = { 5, 0, 1, 6, 7, 2, 3, 4 };
    int64_t label[6] = { 0, 1, 2, 0, 1, 2 };
    int64_t ew[8] = { 100, 101, 102, 103, 104, 105, 106, 107 };
    uint8_t train[6] = { 1, 0, 0, 1, 0, 0 };
    float feat[12];
    int64_t s7[1] = { 7 }, s8[1] = { 8 }, s6[1] = { 6 }, s62[2] = { 6, 2 };
    struct dp_dataset_meta m;
    int i;

    for (i = 0; i < 12; i++)
        feat[i] = (float)i;
    dp_mkdir_p(dir, 0777);
    write_npy(dir, "indptr.npy", DP_I64, 1, s7, indptr);
    write_npy(dir, "indices.npy", DP_I64, 1, s8, indices);
    write_npy(dir, "eids.npy", DP_I64, 1, s8, eids);
    write_npy(dir, "label.npy", DP_I64, 1, s6, label);
    write_npy(dir, "train_mask.npy", DP_U8, 1, s6, train);
    write_npy(dir, "feat.npy", DP_F32, 2, s62, feat);
    write_npy(dir, "edge_weight.npy", DP_I64, 1, s8, ew);
    memset(&m, 0, sizeof(m));
    m.name = "tiny";
    m.source_format = "test";
    m.num_nodes = 6;
    m.num_edges = 8;
    m.directed = 1;
    m.feat_dim = 2;
    m.num_classes = 3;
    m.has_train = 1;
    m.has_edge_weight = 1;
    CHECK_EQ(dp_dataset_write_meta(dir, &m), 0);
}

/* Typed: nodes a0 a1 a2 (0-2) and b0 b1 b2 (3-5); edges a:x:b e0 0->3,
 * e1 1->4, e2 2->4 and b:y:a e3 5->0. */
static int typed_dataset(const char *dir, int64_t bad_src)
{
    int64_t indptr[7] = { 0, 1, 1, 1, 2, 4, 4 };
    int64_t indices[4] = { 5, 0, 1, 2 };
    int64_t eids[4] = { 3, 0, 1, 2 };
    float feat[3] = { 1, 2, 3 };
    int64_t s7[1] = { 7 }, s4[1] = { 4 }, s31[2] = { 3, 1 };
    struct dp_dataset_type nt[2] = { { "a", 3, 0, 0, 0 }, { "b", 3, 0, 0, 0 } };
    struct dp_dataset_type et[2] = { { "a:x:b", 3, 0, 0, 0 },
                                     { "b:y:a", 1, 0, 0, 0 } };
    struct dp_dataset_data nd[1] = { { 1, "feat", 0, NULL } };
    struct dp_dataset_meta m;
    char *p;

    indices[1] = bad_src >= 0 ? bad_src : 0;
    dp_mkdir_p(dir, 0777);
    p = dp_path_join(dir, "ndata/b");
    dp_mkdir_p(p, 0777);
    free(p);
    write_npy(dir, "indptr.npy", DP_I64, 1, s7, indptr);
    write_npy(dir, "indices.npy", DP_I64, 1, s4, indices);
    write_npy(dir, "eids.npy", DP_I64, 1, s4, eids);
    write_npy(dir, "ndata/b/feat.npy", DP_F32, 2, s31, feat);
    memset(&m, 0, sizeof(m));
    m.name = "typed";
    m.source_format = "test";
    m.num_nodes = 6;
    m.num_edges = 4;
    m.directed = 1;
    m.num_ntypes = m.num_etypes = 2;
    m.ntypes = nt;
    m.etypes = et;
    m.num_ndata = 1;
    m.ndata = nd;
    return dp_dataset_write_meta(dir, &m);
}

static void test_typed_dataset(void)
{
    char *dir = tpath("typed"), *bad = tpath("typed-bad");
    struct dp_dataset d;

    CHECK_EQ(typed_dataset(dir, -1), 0);
    CHECK_EQ(dp_dataset_open(&d, dir), 0);
    CHECK_EQ(d.meta.num_ntypes, 2);
    CHECK_EQ(d.meta.ntypes[1].offset, 3);
    CHECK_EQ(d.meta.etypes[1].offset, 3);
    CHECK_EQ(d.meta.etypes[0].src, 0);
    CHECK_EQ(d.meta.etypes[0].dst, 1);
    CHECK_EQ(dp_dataset_ntype_of(&d, 2), 0);
    CHECK_EQ(dp_dataset_ntype_of(&d, 3), 1);
    CHECK_EQ(dp_dataset_etype_of(&d, 3), 1);
    CHECK_EQ(dp_dataset_find_etype(&d.meta, "y"), 1);
    CHECK_EQ(dp_dataset_find_etype(&d.meta, "z"), -1);
    CHECK(dp_dataset_ndata(&d, 1, "feat") != NULL);
    CHECK(dp_dataset_ndata(&d, 0, "feat") == NULL);
    {
        /* DGL's default for a heterograph: the node type is the class */
        struct dp_vweights vw;

        CHECK_EQ(dp_vweights_build(&d, 0, 1, NULL, &vw), 0);
        CHECK_EQ(vw.ncon, 4);
        CHECK_STR(vw.names[1], "b nodes");
        CHECK_STR(vw.names[3], "in-edges of b nodes");
        CHECK_EQ(vw.w[0 * 4 + 0], 1); /* node 0: an 'a', in-degree 1 */
        CHECK_EQ(vw.w[0 * 4 + 2], 1);
        CHECK_EQ(vw.w[4 * 4 + 1], 1); /* node 4: a 'b', in-degree 2 */
        CHECK_EQ(vw.w[4 * 4 + 3], 2);
        dp_vweights_release(&vw);
        CHECK_EQ(dp_vweights_build(&d, 1, 0, NULL, &vw), DP_EINVAL);
        CHECK_CONTAINS(dp_errmsg(), "no node type with a train_mask");
        CHECK_EQ(dp_vweights_build(&d, 1, 0, "c", &vw), DP_EINVAL);
        CHECK_CONTAINS(dp_errmsg(), "has no such node type");
    }
    dp_dataset_release(&d);
    /* edge 0 is a:x:b but its source would be node 4, a 'b' node */
    CHECK_EQ(typed_dataset(bad, 4), 0);
    CHECK_EQ(dp_dataset_open(&d, bad), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "expected a 'a' node to a 'b' node");
    free(dir);
    free(bad);
}

static void test_random(void)
{
    int32_t a[103], b[103], c[103];
    int cnt[4] = { 0, 0, 0, 0 }, i, same = 1;

    dp_random_assign(103, 4, 7, a);
    dp_random_assign(103, 4, 7, b);
    dp_random_assign(103, 4, 8, c);
    for (i = 0; i < 103; i++) {
        CHECK(a[i] >= 0 && a[i] < 4);
        cnt[a[i]]++;
        CHECK_EQ(a[i], b[i]);
        same &= a[i] == c[i];
    }
    CHECK(!same);
    for (i = 0; i < 4; i++)
        CHECK(cnt[i] == 25 || cnt[i] == 26);
    /* not just round robin */
    for (i = 0, same = 1; i < 103; i++)
        same &= a[i] == i % 4;
    CHECK(!same);
}

static void test_assign_read(void)
{
    char *t = tpath("a.txt"), *n = tpath("a.npy");
    int32_t parts[4];
    int32_t ids[4] = { 1, 0, 2, 1 };
    int64_t shape[1] = { 4 };

    dp_write_file(t, "# comment\n1\n0\n  2\n1\n", 20);
    CHECK_EQ(dp_assign_read(t, 4, 3, parts), 0);
    CHECK_EQ(parts[0], 1);
    CHECK_EQ(parts[2], 2);
    CHECK_EQ(parts[3], 1);
    CHECK(dp_assign_read(t, 5, 3, parts) == DP_EFORMAT);
    CHECK(strstr(dp_errmsg(), "4 part ids for 5 nodes") != NULL);
    CHECK(dp_assign_read(t, 4, 2, parts) == DP_ERANGE);
    CHECK(strstr(dp_errmsg(), "part id 2 of node 2") != NULL);
    dp_write_file(t, "1 0 -1 1\n", 9);
    CHECK(dp_assign_read(t, 4, 3, parts) == DP_ERANGE);
    dp_write_file(t, "1 0 1.5 1\n", 10);
    CHECK(dp_assign_read(t, 4, 3, parts) == DP_EFORMAT);
    CHECK_EQ(dp_npy_write(n, DP_I32, 1, shape, ids), 0);
    memset(parts, 0, sizeof(parts));
    CHECK_EQ(dp_assign_read(n, 4, 3, parts), 0);
    CHECK_EQ(parts[0], 1);
    CHECK_EQ(parts[2], 2);
    CHECK(dp_assign_read(n, 3, 3, parts) == DP_EFORMAT);
    free(t);
    free(n);
}

static void test_formats(void)
{
    int f = 0;

    CHECK_EQ(dp_parse_graph_formats("coo,csc,csr", &f), 0);
    CHECK_EQ(f, DP_FMT_COO | DP_FMT_CSC | DP_FMT_CSR);
    CHECK_EQ(dp_parse_graph_formats("csc", &f), 0);
    CHECK_EQ(f, DP_FMT_CSC);
    CHECK(dp_parse_graph_formats("coo,x", &f) != 0);
    CHECK(dp_parse_graph_formats("", &f) != 0);
}

static void test_vweights(void)
{
    struct dp_dataset d;
    struct dp_vweights vw;

    CHECK_EQ(dp_dataset_open(&d, ds), 0);
    CHECK_EQ(dp_vweights_build(&d, 0, 0, NULL, &vw), 0);
    CHECK_EQ(vw.ncon, 1);
    CHECK(vw.w == NULL);
    dp_vweights_release(&vw);
    CHECK_EQ(dp_vweights_build(&d, 1, 0, NULL, &vw), 0);
    CHECK_EQ(vw.ncon, 2); /* non-train, train */
    CHECK_EQ(vw.w[0], 0);
    CHECK_EQ(vw.w[1], 1);
    CHECK_EQ(vw.w[2], 1);
    CHECK_EQ(vw.w[3], 0);
    dp_vweights_release(&vw);
    CHECK_EQ(dp_vweights_build(&d, 0, 1, NULL, &vw), 0);
    CHECK_EQ(vw.ncon, 2); /* nodes (beyond DGL), in-degree */
    CHECK_STR(vw.names[0], "nodes");
    CHECK_EQ(vw.w[2 * 2], 1);
    CHECK_EQ(vw.w[2 * 2 + 1], 3);
    dp_vweights_release(&vw);
    CHECK_EQ(dp_vweights_build(&d, 1, 1, NULL, &vw), 0);
    CHECK_EQ(vw.ncon, 4);
    CHECK_EQ(vw.w[0 * 4 + 0], 0); /* node 0: train, in-degree 1 */
    CHECK_EQ(vw.w[0 * 4 + 1], 1);
    CHECK_EQ(vw.w[0 * 4 + 2], 0);
    CHECK_EQ(vw.w[0 * 4 + 3], 1);
    CHECK_EQ(vw.w[2 * 4 + 0], 1); /* node 2: not train, in-degree 3 */
    CHECK_EQ(vw.w[2 * 4 + 2], 3);
    CHECK_EQ(vw.w[2 * 4 + 3], 0);
    dp_vweights_release(&vw);
    dp_dataset_release(&d);
}

static void test_metis(void)
{
    struct dp_dataset d;
    struct dp_vweights vw;
    char *g = tpath("tiny.graph"), *text = NULL;
    size_t len = 0;
    int32_t parts[6];
    int64_t obj = -1;
    int i, seen[2] = { 0, 0 };

    CHECK_EQ(dp_dataset_open(&d, ds), 0);
    CHECK_EQ(dp_vweights_build(&d, 0, 0, NULL, &vw), 0);
    CHECK_EQ(dp_metis_write_graph(&d, &vw, g), 0);
    CHECK_EQ(dp_read_file(g, 1024, &text, &len), 0);
    /* symmetric, no self-loop, no repeated 1-2; each row lists
     * in-neighbours first (node 6: 5 -> 6, then 6 -> 1), as DGL does */
    CHECK_STR(text, "6 6\n6 2\n1 3\n2 4\n3 5\n4 6\n5 1\n");
    CHECK_EQ(dp_metis_assign(&d, &vw, 2, 1.03, 0, -1, NULL, 0, parts, &obj,
                             DP_METIS_EXACT, NULL),
             0);
    for (i = 0; i < 6; i++) {
        CHECK(parts[i] == 0 || parts[i] == 1);
        seen[parts[i] & 1] = 1;
    }
    CHECK(seen[0] && seen[1]);
    CHECK_EQ(obj, 2); /* a ring cut in two halves */
    /* the graph in a scratch file (read-only: METIS must not write it),
     * for both objectives, from a path whose last part does not exist */
    for (i = 0; i < 2; i++) {
        char *out = dp_path_join(ds, "not-yet/out");
        int32_t again[6];
        int64_t obj2 = -1, obj1 = -1;

        CHECK_EQ(dp_metis_assign(&d, &vw, 2, 1.03, i, 7, NULL, 0, parts, &obj1,
                                 DP_METIS_EXACT, NULL),
                 0);
        CHECK_EQ(dp_metis_assign(&d, &vw, 2, 1.03, i, 7, out, 0, again, &obj2,
                                 DP_METIS_EXACT, NULL),
                 0);
        CHECK(!memcmp(parts, again, sizeof(parts)));
        CHECK_EQ(obj2, obj1);
        CHECK(!dp_exists(out));
        free(out);
    }
    dp_vweights_release(&vw);
    dp_dataset_release(&d);
    free(text);
    free(g);
}

/* Narrowing to METIS's 32-bit idx_t fails clearly, saying how large. */
static void test_too_large(void)
{
    struct dp_dataset d;
    struct dp_vweights vw;
    int32_t parts[1];
    int64_t obj, big[12], shape[2] = { 6, 2 };
    char *nw = dp_path_join(ds, "node_weight.npy");
    int i;

    /* a node count past idx_t: refused before any array is touched */
    memset(&d, 0, sizeof(d));
    memset(&vw, 0, sizeof(vw));
    vw.ncon = 1;
    d.meta.num_nodes = 3000000000LL;
    CHECK(dp_metis_assign(&d, &vw, 4, 1.03, 0, -1, NULL, 0, parts, &obj,
                          DP_METIS_EXACT, NULL) == DP_ETOOBIG);
    CHECK_CONTAINS(dp_errmsg(), "3000000000 nodes");
    CHECK_CONTAINS(dp_errmsg(), "32-bit idx_t");
    /* vertex weights whose sum passes idx_t */
    for (i = 0; i < 12; i++)
        big[i] = i % 2 ? 1 : 1LL << 30;
    CHECK_EQ(dp_npy_write(nw, DP_I64, 2, shape, big), 0);
    CHECK_EQ(dp_dataset_open(&d, ds), 0);
    d.meta.ncon = 2; /* as if meta.json listed the weights */
    CHECK_EQ(dp_npy_open(&d.node_weight, nw), 0);
    CHECK(dp_vweights_build(&d, 0, 0, NULL, &vw) == DP_ETOOBIG);
    CHECK_CONTAINS(dp_errmsg(), "weight[0] weights add up to more than");
    dp_dataset_release(&d);
    unlink(nw);
    free(nw);
}

/* Check one part's graph.dgl against expected arrays (global node ids,
 * global edge ids, inner flags, COO in local ids). */
static void check_part(const char *out, int p, int nn, const int64_t *nid,
                       int ninner, int ne, const int64_t *eid,
                       const int64_t *src, const int64_t *dst, int ninner_e)
{
    struct dp_graph_file g;
    char rel[64], *path;
    const struct dp_ndarray *a;
    int i;

    snprintf(rel, sizeof(rel), "part%d/graph.dgl", p);
    path = dp_path_join(out, rel);
    CHECK_EQ(dp_graph_load(&g, path), 0);
    free(path);
    CHECK_EQ(g.num_nodes, nn);
    CHECK_EQ(g.num_edges, ne);
    if (g.num_nodes != nn || g.num_edges != ne) {
        dp_graph_release(&g);
        return;
    }
    a = dp_graph_ndata(&g, "_ID");
    for (i = 0; a && i < nn; i++)
        CHECK_EQ(dp_ndarray_get_i64(a, (uint64_t)i), nid[i]);
    a = dp_graph_ndata(&g, "inner_node");
    for (i = 0; a && i < nn; i++)
        CHECK_EQ(dp_ndarray_get_i64(a, (uint64_t)i), i < ninner);
    a = dp_graph_edata(&g, "_ID");
    for (i = 0; a && i < ne; i++)
        CHECK_EQ(dp_ndarray_get_i64(a, (uint64_t)i), eid[i]);
    a = dp_graph_edata(&g, "inner_edge");
    for (i = 0; a && i < ne; i++)
        CHECK_EQ(dp_ndarray_get_i64(a, (uint64_t)i), i < ninner_e);
    for (i = 0; i < ne; i++) {
        CHECK_EQ(dp_ndarray_get_i64(&g.coo_row, (uint64_t)i), src[i]);
        CHECK_EQ(dp_ndarray_get_i64(&g.coo_col, (uint64_t)i), dst[i]);
    }
    dp_graph_release(&g);
}

static void run_part(const char *out, int hops)
{
    struct dp_partition_opts o;
    char *a = tpath("halves.txt");

    dp_write_file(a, "0\n0\n0\n1\n1\n1\n", 12);
    dp_partition_opts_init(&o);
    o.dataset = ds;
    o.out = out;
    o.num_parts = 2;
    o.part_assign = a;
    o.num_hops = hops;
    o.overwrite = 1;
    o.quiet = 1;
    CHECK_EQ(dp_partition(&o), 0);
    free(a);
}

/* Shuffled edge ids walk destinations: j0 = e5 (5->0), j1 = e0, j2 = e1,
 * j3 = e6 (2->2), j4 = e7, j5 = e2 (2->3), j6 = e3, j7 = e4. */
static void test_halo(void)
{
    char *out = tpath("out");
    struct dp_tensors t;
    char *p;

    run_part(out, 1);
    {
        int64_t nid[] = { 0, 1, 2, 5, 3 }, eid[] = { 0, 1, 2, 3, 4, 5 };
        int64_t src[] = { 3, 0, 1, 2, 1, 2 }, dst[] = { 0, 1, 2, 2, 2, 4 };

        check_part(out, 0, 5, nid, 3, 6, eid, src, dst, 5);
    }
    {
        int64_t nid[] = { 3, 4, 5, 2, 0 }, eid[] = { 5, 6, 7, 0 };
        int64_t src[] = { 3, 0, 1, 2 }, dst[] = { 0, 1, 2, 4 };

        check_part(out, 1, 5, nid, 3, 4, eid, src, dst, 3);
    }
    /* orig ids: input edge of each inner edge; features by input row */
    p = dp_path_join(out, "part0/orig_eids.dgl");
    CHECK_EQ(dp_tensors_load(&t, p), 0);
    {
        const struct dp_tensor *e = dp_tensors_find(&t, DP_ORIG_EIDS_KEY);
        int64_t want[] = { 5, 0, 1, 6, 7 };
        int i;

        CHECK(e != NULL);
        for (i = 0; e && i < 5; i++)
            CHECK_EQ(dp_ndarray_get_i64(&e->a, (uint64_t)i), want[i]);
    }
    dp_tensors_release(&t);
    free(p);
    p = dp_path_join(out, "part1/edge_feat.dgl");
    CHECK_EQ(dp_tensors_load(&t, p), 0);
    {
        const struct dp_tensor *e = dp_tensors_find(&t, "_N:_E:_N/weight");

        CHECK(e != NULL);
        if (e) {
            CHECK_EQ(e->a.shape[0], 3);
            CHECK_EQ(dp_ndarray_get_i64(&e->a, 0), 102); /* e2 */
            CHECK_EQ(dp_ndarray_get_i64(&e->a, 2), 104); /* e4 */
        }
    }
    dp_tensors_release(&t);
    free(p);
    p = dp_path_join(out, "part1/node_feat.dgl");
    CHECK_EQ(dp_tensors_load(&t, p), 0);
    {
        const struct dp_tensor *e = dp_tensors_find(&t, "_N/feat");
        float f[6];

        CHECK(e != NULL && e->a.nbytes == sizeof(f));
        if (e && e->a.nbytes == sizeof(f)) {
            memcpy(f, e->a.data, sizeof(f));
            CHECK(f[0] == 6.0f && f[5] == 11.0f); /* rows of nodes 3..5 */
        }
        CHECK(dp_tensors_find(&t, "_N/train_mask") != NULL);
        CHECK(dp_tensors_find(&t, "_N/label") != NULL);
    }
    dp_tensors_release(&t);
    free(p);

    run_part(out, 2);
    {
        /* in-edges of halo 5 from outside: 4->5 (j7) brings node 4 */
        int64_t nid[] = { 0, 1, 2, 5, 4, 3 };
        int64_t eid[] = { 0, 1, 2, 3, 4, 5, 7 };
        int64_t src[] = { 3, 0, 1, 2, 1, 2, 4 };
        int64_t dst[] = { 0, 1, 2, 2, 2, 5, 3 };

        check_part(out, 0, 6, nid, 3, 7, eid, src, dst, 5);
    }
    run_part(out, 0);
    {
        int64_t nid[] = { 0, 1, 2 }, eid[] = { 1, 2, 3, 4 };
        int64_t src[] = { 0, 1, 2, 1 }, dst[] = { 1, 2, 2, 2 };

        check_part(out, 0, 3, nid, 3, 4, eid, src, dst, 4);
    }
    free(out);
}

/* A ring of n nodes with chords (u, u+7): every node has degree 4; vertex
 * weights: column 0 all ones, column 1 one in every five nodes. */
static void ring(struct ml_graph *g, idx_t n)
{
    idx_t v, k = 0;

    g->n = n;
    g->xadj = malloc(((size_t)n + 1) * sizeof(*g->xadj));
    g->adj = malloc((size_t)n * 4 * sizeof(idx_t));
    g->adjw = NULL;
    g->vw = malloc((size_t)n * 2 * sizeof(idx_t));
    for (v = 0; v < n; v++) {
        g->xadj[v] = k;
        g->adj[k++] = (v + 1) % n;
        g->adj[k++] = (v + n - 1) % n;
        g->adj[k++] = (v + 7) % n;
        g->adj[k++] = (v + n - 7) % n;
        g->vw[2 * v] = 1;
        g->vw[2 * v + 1] = v % 5 == 0;
    }
    g->xadj[n] = k;
}

static void test_ml_levels(void)
{
    struct ml_graph g = { 0 }, c;
    idx_t n = 2000, *clus = malloc(n * sizeof(idx_t)),
          *map = malloc(n * sizeof(idx_t));
    int64_t cap[2] = { 6, 2 }, cw[2000][2], s0 = 0, s1 = 0, ew = 0;
    idx_t v, k;

    ring(&g, n);
    CHECK_EQ(ml_cluster(&g, NULL, 2, cap, 7, clus, NULL), 0);
    memset(cw, 0, sizeof(cw));
    for (v = 0; v < n; v++) {
        CHECK(clus[v] >= 0 && clus[v] < n);
        cw[clus[v]][0] += g.vw[2 * v];
        cw[clus[v]][1] += g.vw[2 * v + 1];
    }
    for (v = 0; v < n; v++) {
        CHECK(cw[v][0] <= cap[0]);
        CHECK(cw[v][1] <= cap[1]);
    }
    CHECK_EQ(ml_contract(&g, 2, clus, 1.0, 1.0, 0, NULL, 0, 0, NULL, &c, map),
             0);
    CHECK(c.n < n / 2); /* label propagation did merge */
    /* the cluster ids were written over with the coarse ones */
    CHECK(!memcmp(clus, map, n * sizeof(idx_t)));
    for (v = 0; v < c.n; v++) {
        s0 += c.vw[2 * v];
        s1 += c.vw[2 * v + 1];
        for (k = c.xadj[v]; k < c.xadj[v + 1]; k++) {
            CHECK(c.adj[k] != v); /* no self-loops */
            ew += c.adjw[k];
        }
    }
    CHECK_EQ(s0, n);     /* vertex weights conserved */
    CHECK_EQ(s1, n / 5); /* on every constraint */
    /* edge weights conserved: every fine edge across clusters, once */
    for (v = 0; v < n; v++)
        for (k = g.xadj[v]; k < g.xadj[v + 1]; k++)
            ew -= clus[v] != clus[g.adj[k]];
    CHECK_EQ(ew, 0);
    for (v = 0; v < n; v++)
        CHECK(map[v] >= 0 && map[v] < c.n);
    ml_graph_release(&c);
    free(clus);
    free(map);
    ml_graph_release(&g);
}

/* Two coarse graphs are the same, array for array. */
static int same_graph(const struct ml_graph *a, const struct ml_graph *b,
                      int ncon)
{
    size_t m = (size_t)a->xadj[a->n];

    return a->n == b->n &&
           !memcmp(a->xadj, b->xadj, ((size_t)a->n + 1) * sizeof(*a->xadj)) &&
           !memcmp(a->adj, b->adj, m * sizeof(idx_t)) &&
           !memcmp(a->adjw, b->adjw, m * sizeof(idx_t)) &&
           !memcmp(a->vw, b->vw, (size_t)a->n * ncon * sizeof(idx_t));
}

static void spill_free(struct ml_graph *c, struct dp_spill *sp)
{
    if (sp->fd >= 0) {
        c->adj = c->adjw = NULL;
        dp_spill_close(sp);
    }
    ml_graph_release(c);
}

/* A contraction built in a scratch file (two threads, each through many
 * buffers, a hub row longer than one) is the graph built in memory, two
 * levels deep (the second with edge weights); so are the parts. */
/* Where the ml tests stop coarsening: small, so small graphs get levels;
 * and whether label propagation decodes compressed levels. */
static int nodes_per_part, ml_compress;

/* ml_partition as dp_metis_assign calls it on a small graph: every level
 * in a scratch file when scratch is given. */
static int mlp(const struct ml_graph *g, int ncon, int K, int64_t seed,
               const char *scratch, idx_t *part, int *levels)
{
    struct ml_params pr = { ncon, K, 1.03, seed };
    struct ml_policy pol = {
        scratch, 0, NULL, NULL, ml_level_rss_cap(), nodes_per_part, ml_compress
    };

    int64_t cut = -1, swept = -2;
    int rc = ml_partition(g, &pr, &pol, part, levels, &cut);

    /* the cut FM kept through every move is the one a sweep finds */
    if (!rc) {
        CHECK_EQ(ml_cut(g, part, &swept), 0);
        CHECK_EQ(cut, swept);
    }
    return rc;
}

static void test_ml_spill(void)
{
    struct ml_graph g = { 0 }, c[2], d[2];
    struct dp_spill sp[2], probe;
    idx_t n = 100000, v, k = 0, *clus = malloc(n * sizeof(idx_t)),
          *clus2 = malloc(n * sizeof(idx_t)), *map[4],
          *p1 = malloc(n * sizeof(idx_t)), *p2 = malloc(n * sizeof(idx_t));
    int64_t cap[2] = { 6, 2 }, cap2[2] = { 30, 8 };
    int can = dp_spill_open(&probe, tmpdir) == 0, i;
    /* in the file or read back, rows read at random or in bands (many of
     * 4 KiB, the hub alone in one past them; or a few) */
    size_t mins[4] = { 0, (size_t)1 << 30, 0, (size_t)1 << 30 },
           bands[4] = { 0, 0, 4096, (size_t)1 << 20 };

    dp_spill_close(&probe);
    for (i = 0; i < 4; i++)
        map[i] = malloc(n * sizeof(idx_t));
    g.n = n;
    g.xadj = malloc(((size_t)n + 1) * sizeof(*g.xadj));
    g.adj = malloc((size_t)n * 6 * sizeof(idx_t));
    g.adjw = NULL;
    g.vw = malloc((size_t)n * 2 * sizeof(idx_t));
    for (v = 0; v < n; v++) {
        idx_t u;

        g.xadj[v] = k;
        g.adj[k++] = (v + 1) % n;
        g.adj[k++] = (v + n - 1) % n;
        g.adj[k++] = (v + 7) % n;
        g.adj[k++] = (v + n - 7) % n;
        if (v == 0)
            for (u = 10; u < n; u += 2) /* the hub */
                g.adj[k++] = u;
        else if (v % 2 == 0 && v >= 10)
            g.adj[k++] = 0;
        g.vw[2 * v] = 1;
        g.vw[2 * v + 1] = v % 5 == 0;
    }
    g.xadj[n] = k;
    CHECK_EQ(ml_cluster(&g, NULL, 2, cap, 7, clus, NULL), 0);
    CHECK_EQ(
        ml_contract(&g, 2, clus, 1.0, 1.0, 0, NULL, 0, 0, NULL, &c[0], map[0]),
        0);
    CHECK_EQ(ml_cluster(&c[0], NULL, 2, cap2, 9, clus2, NULL), 0);
    CHECK_EQ(ml_contract(&c[0], 2, clus2, 1.0, 1.0, 0, NULL, 0, 0, NULL, &d[0],
                         map[2]),
             0);
    CHECK(d[0].n < c[0].n / 2);
    CHECK(c[0].xadj[c[0].n] > 6 << 15); /* buffers of 1 << 15 a thread */
    /* spill_min 0: kept in the file; 1 << 30: built there, read back */
    for (i = 0; i < 4; i++) {
        CHECK_EQ(ml_contract(&g, 2, clus, 1.0, 1.0, 0, tmpdir, mins[i],
                             bands[i], &sp[0], &c[1], map[1]),
                 0);
        CHECK_EQ(sp[0].fd >= 0, can && mins[i] == 0);
        CHECK(same_graph(&c[0], &c[1], 2));
        CHECK(!memcmp(map[0], map[1], n * sizeof(idx_t)));
        CHECK_EQ(ml_contract(&c[1], 2, clus2, 1.0, 1.0, 0, tmpdir, mins[i],
                             bands[i], &sp[1], &d[1], map[3]),
                 0);
        CHECK(same_graph(&d[0], &d[1], 2));
        CHECK(!memcmp(map[2], map[3], c[0].n * sizeof(idx_t)));
        spill_free(&d[1], &sp[1]);
        spill_free(&c[1], &sp[0]);
    }
    ml_graph_release(&d[0]);
    ml_graph_release(&c[0]);
    nodes_per_part = 100;
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, p1, NULL), 0);
    CHECK_EQ(mlp(&g, 2, 4, 3, tmpdir, p2, NULL), 0);
    CHECK(!memcmp(p1, p2, n * sizeof(idx_t)));
    nodes_per_part = 0;
    for (i = 0; i < 4; i++)
        free(map[i]);
    free(clus);
    free(clus2);
    free(p1);
    free(p2);
    ml_graph_release(&g);
}

/* The weight of coarse edge v-u in c, 0 when there is none. */
static int64_t edge_w(const struct ml_graph *c, idx_t v, idx_t u)
{
    int64_t k;

    for (k = c->xadj[v]; k < c->xadj[v + 1]; k++)
        if (c->adj[k] == u)
            return c->adjw[k];
    return 0;
}

/* A ring whose nodes also meet v * 577 mod n (both ways): clusters along
 * the ring keep most chords, so contraction sheds few entries and the
 * coarse degree grows, as on graphs without community structure. */
static void scrambled(struct ml_graph *g, idx_t n)
{
    idx_t v, k = 0, *inv = malloc(n * sizeof(idx_t));

    ring(g, n);
    for (v = 0; v < n; v++)
        inv[(int64_t)v * 577 % n] = v;
    for (v = 0; v < n; v++) {
        k = g->xadj[v];
        g->adj[k + 2] = (idx_t)((int64_t)v * 577 % n);
        g->adj[k + 3] = inv[v];
    }
    free(inv);
}

/* A contraction that would keep more than shed of the entries at more
 * than twice the degree samples its unit edges down to about shed: every
 * edge of weight 2 or more stays, both directions of each sampled edge,
 * the nodes and their weights; the same seed samples the same edges, in
 * memory or in a scratch file (in bands); a higher shed samples nothing. Under
 * a stall share of the entries, such a level is not built. */
static void test_ml_sample(void)
{
    struct ml_graph g = { 0 }, c[4];
    struct dp_spill sp;
    idx_t n = 2000, v, *clus = malloc(n * sizeof(idx_t)), *map[4];
    int64_t k, unit[2] = { 0, 0 }, m;
    double shed[4] = { 1.0, 0.3, 0.3, 0.6 };
    int i;

    scrambled(&g, n);
    m = g.xadj[n];
    for (v = 0; v < n; v++) /* runs of 8 along the ring */
        clus[v] = v / 8 * 8;
    for (i = 0; i < 4; i++) {
        map[i] = malloc(n * sizeof(idx_t));
        /* the second sampled one in a scratch file, in bands */
        CHECK_EQ(ml_contract(&g, 2, clus, shed[i], 1.0, 11,
                             i == 2 ? tmpdir : NULL, 0, i == 2 ? 1024 : 0,
                             i == 2 ? &sp : NULL, &c[i], map[i]),
                 0);
    }
    CHECK(same_graph(&c[1], &c[2], 2));
    CHECK(same_graph(&c[0], &c[3], 2));
    /* 54% of the entries would stay: not built under a stall of 50% */
    ml_graph_release(&c[3]);
    CHECK_EQ(
        ml_contract(&g, 2, clus, 1.0, 0.5, 11, NULL, 0, 0, NULL, &c[3], map[3]),
        0);
    CHECK_EQ(c[3].n, 0);
    CHECK(!c[3].xadj && !c[3].adj && !c[3].vw);
    CHECK_EQ(
        ml_contract(&g, 2, clus, 0.6, 0.6, 11, NULL, 0, 0, NULL, &c[3], map[3]),
        0);
    CHECK(same_graph(&c[0], &c[3], 2));
    CHECK(c[0].xadj[c[0].n] > m / 2);
    CHECK(c[1].xadj[c[1].n] > m * 27 / 100 && c[1].xadj[c[1].n] < m * 33 / 100);
    CHECK_EQ(c[1].n, c[0].n);
    CHECK(!memcmp(map[0], map[1], n * sizeof(idx_t)));
    CHECK(!memcmp(c[0].vw, c[1].vw, (size_t)c[0].n * 2 * sizeof(idx_t)));
    for (v = 0; v < c[0].n; v++) {
        for (k = c[0].xadj[v]; k < c[0].xadj[v + 1]; k++) {
            int64_t w = c[0].adjw[k], w1 = edge_w(&c[1], v, c[0].adj[k]);

            CHECK(w1 == w || (w == 1 && w1 == 0));
            unit[0] += w == 1;
        }
        for (k = c[1].xadj[v]; k < c[1].xadj[v + 1]; k++) {
            CHECK_EQ(edge_w(&c[1], c[1].adj[k], v), c[1].adjw[k]);
            unit[1] += c[1].adjw[k] == 1;
        }
    }
    CHECK(unit[1] > unit[0] * 35 / 100 && unit[1] < unit[0] * 55 / 100);
    for (i = 0; i < 4; i++) {
        if (i == 2)
            spill_free(&c[i], &sp);
        else
            ml_graph_release(&c[i]);
    }
    ml_graph_release(&g);
    /* past 1024 coarse nodes every 16th row is rated, in bands too */
    n = 40000;
    free(clus);
    clus = malloc(n * sizeof(idx_t));
    scrambled(&g, n);
    for (v = 0; v < n; v++)
        clus[v] = v / 8 * 8;
    for (i = 0; i < 2; i++) {
        free(map[i]);
        map[i] = malloc(n * sizeof(idx_t));
        CHECK_EQ(ml_contract(&g, 2, clus, 0.4, 1.0, 3, i ? tmpdir : NULL, 0,
                             i ? 4096 : 0, i ? &sp : NULL, &c[i], map[i]),
                 0);
    }
    CHECK(same_graph(&c[0], &c[1], 2));
    CHECK(c[0].xadj[c[0].n] < g.xadj[n] / 2); /* sampled */
    ml_graph_release(&c[0]);
    spill_free(&c[1], &sp);
    for (i = 0; i < 4; i++)
        free(map[i]);
    free(clus);
    ml_graph_release(&g);
}

/* A level that would keep most nodes is not built: nineteen in twenty
 * nodes weigh 100 and the cluster cap (2 W / 1950) is below two of them,
 * so the first clustering keeps over 90% of the nodes and METIS gets the
 * graph itself. */
static void test_ml_stall(void)
{
    struct ml_graph g = { 0 };
    idx_t n = 2000, v, *p = malloc(n * sizeof(idx_t)), *vw;
    int64_t pw[2] = { 0, 0 }, tot = 0;
    int levels = -1;

    ring(&g, n);
    vw = malloc(n * sizeof(idx_t));
    for (v = 0; v < n; v++)
        tot += vw[v] = v % 20 ? 100 : 1;
    free(g.vw);
    g.vw = vw;
    nodes_per_part = 975;
    CHECK_EQ(mlp(&g, 1, 2, 3, NULL, p, &levels), 0);
    nodes_per_part = 0;
    CHECK_EQ(levels, 0);
    for (v = 0; v < n; v++) {
        CHECK(p[v] == 0 || p[v] == 1);
        pw[p[v]] += vw[v];
    }
    CHECK(pw[0] <= (int64_t)(1.03 * tot / 2));
    CHECK(pw[1] <= (int64_t)(1.03 * tot / 2));
    free(p);
    ml_graph_release(&g);
}

/* FM refinement: a 200 x 100 grid in two halves; the best cut is 100
 * edges, and label propagation alone leaves a ragged border */
static void test_ml_refine(void)
{
    struct ml_graph g = { 0 };
    idx_t w = 200, h = 100, n = w * h, v, k = 0, i,
          *p = malloc(n * sizeof(idx_t));
    int64_t cut = 0, pw[2] = { 0, 0 };

    g.n = n;
    g.xadj = malloc(((size_t)n + 1) * sizeof(*g.xadj));
    g.adj = malloc((size_t)n * 4 * sizeof(idx_t));
    g.adjw = NULL;
    g.vw = malloc((size_t)n * sizeof(idx_t));
    for (v = 0; v < n; v++) {
        idx_t x = v % w, y = v / w;

        g.xadj[v] = k;
        if (x > 0)
            g.adj[k++] = v - 1;
        if (x + 1 < w)
            g.adj[k++] = v + 1;
        if (y > 0)
            g.adj[k++] = v - w;
        if (y + 1 < h)
            g.adj[k++] = v + w;
        g.vw[v] = 1;
    }
    g.xadj[n] = k;
    nodes_per_part = 200;
    CHECK_EQ(mlp(&g, 1, 2, 1, NULL, p, NULL), 0);
    nodes_per_part = 0;
    for (v = 0; v < n; v++) {
        pw[p[v]]++;
        for (i = g.xadj[v]; i < g.xadj[v + 1]; i++)
            cut += p[v] != p[g.adj[i]];
    }
    CHECK(pw[0] <= (int64_t)(1.03 * n / 2) && pw[1] <= (int64_t)(1.03 * n / 2));
    CHECK(cut / 2 <= 110);
    free(p);
    ml_graph_release(&g);
}

static void test_ml_partition(void)
{
    struct ml_graph g = { 0 };
    idx_t n = 20000, v, *p1 = malloc(n * sizeof(idx_t)),
          *p2 = malloc(n * sizeof(idx_t));
    int64_t pw[4][2];
    int levels = 0, i;

    ring(&g, n);
    nodes_per_part = 100;
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, p1, &levels), 0);
    CHECK(levels >= 2);
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, p2, NULL), 0);
    CHECK(!memcmp(p1, p2, n * sizeof(idx_t))); /* deterministic */
    memset(pw, 0, sizeof(pw));
    for (v = 0; v < n; v++) {
        CHECK(p1[v] >= 0 && p1[v] < 4);
        pw[p1[v]][0] += g.vw[2 * v];
        pw[p1[v]][1] += g.vw[2 * v + 1];
    }
    for (i = 0; i < 4; i++) {
        CHECK(pw[i][0] <= (int64_t)(1.03 * n / 4));
        CHECK(pw[i][1] <= (int64_t)(1.03 * n / 5 / 4));
    }
    /* a node too heavy for any bound: a one-line error, not a bad split */
    g.vw[0] = n;
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, p1, NULL), DP_EMETIS);
    CHECK(strstr(dp_errmsg(), "cannot be met") != NULL);
    nodes_per_part = 0;
    free(p1);
    free(p2);
    ml_graph_release(&g);
}

/* A symmetric graph of n nodes with four hubs past a compressed list's
 * chunk, random edges of weight 1 to 3 (mostly 1), rows unsorted. */
static void hubby(struct ml_graph *g, idx_t n)
{
    int64_t m = (int64_t)n * 3 + 4 * 6000, e, *at;
    idx_t v, *src = malloc(m * sizeof(idx_t)), *dst = malloc(m * sizeof(idx_t));
    idx_t *w = malloc(m * sizeof(idx_t));
    uint64_t x = 12345;

    for (e = 0; e < m; e++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        src[e] = e < 4 * 6000 ? (idx_t)(e / 6000) : (idx_t)((x >> 33) % n);
        dst[e] = (idx_t)((x >> 13) % n);
        w[e] = (x >> 5) % 8 == 0 ? 2 + (idx_t)((x >> 9) % 2) : 1;
        if (src[e] == dst[e])
            dst[e] = (dst[e] + 1) % n;
    }
    g->n = n;
    g->xadj = calloc((size_t)n + 1, sizeof(*g->xadj));
    g->adj = malloc(2 * m * sizeof(idx_t));
    g->adjw = malloc(2 * m * sizeof(idx_t));
    g->vw = malloc((size_t)n * 2 * sizeof(idx_t));
    for (e = 0; e < m; e++) {
        g->xadj[src[e] + 1]++;
        g->xadj[dst[e] + 1]++;
    }
    for (v = 0; v < n; v++)
        g->xadj[v + 1] += g->xadj[v];
    at = malloc((size_t)n * sizeof(*at));
    memcpy(at, g->xadj, (size_t)n * sizeof(*at));
    for (e = 0; e < m; e++) {
        g->adjw[at[src[e]]] = g->adjw[at[dst[e]]] = w[e];
        g->adj[at[src[e]]++] = dst[e];
        g->adj[at[dst[e]]++] = src[e];
    }
    for (v = 0; v < n; v++) {
        g->vw[2 * v] = 1;
        g->vw[2 * v + 1] = v % 3 == 0;
    }
    free(at);
    free(src);
    free(dst);
    free(w);
}

/* FM's heap pops by key, ties by the lower id, whatever it went through:
 * against a sort, with many equal keys and with all keys distinct. */
static const int64_t *heap_keys;

static int by_key_then_id(const void *a, const void *b)
{
    idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;

    if (heap_keys[x] != heap_keys[y])
        return heap_keys[x] > heap_keys[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static void test_ml_heap(void)
{
    idx_t sizes[] = { 0, 1, 2, 5, 17, 1000, 100003 };
    size_t s;
    int spread;

    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (spread = 0; spread < 2; spread++) {
            idx_t n = sizes[s], v, nd = 0, ne = 0;
            int64_t *keys = malloc(((size_t)n + 1) * sizeof(*keys));
            idx_t *drop = malloc(((size_t)n + 1) * sizeof(idx_t)),
                  *want = malloc(((size_t)n + 1) * sizeof(idx_t)),
                  *got = malloc(((size_t)n + 1) * sizeof(idx_t));
            uint64_t x = 88172645463325252ULL;

            for (v = 0; v < n; v++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                /* a few keys, or (almost) all distinct, some negative */
                keys[v] = spread ? (int64_t)(x >> 20) - ((int64_t)1 << 43)
                                 : (int64_t)(x % 7) - 3;
                if (v % 3 == 1)
                    drop[nd++] = v;
                else
                    want[ne++] = v;
            }
            heap_keys = keys;
            qsort(want, (size_t)ne, sizeof(idx_t), by_key_then_id);
            CHECK_EQ(ml_fm_heap_order(keys, n, drop, nd, got), ne);
            CHECK(!memcmp(want, got, (size_t)ne * sizeof(idx_t)));
            free(keys);
            free(drop);
            free(want);
            free(got);
        }
}

/* Label propagation decoding the compressed lists (issue 36) makes the
 * clusters the plain lists make, and a run that clusters every level so
 * the parts of one that does not. */
/* FM on g and on its compressed copy cg (hubs' rows in chunks, weighted
 * edges), some nodes fixed: the same moves, so the same parts. */
static void fm_on_copy(const struct ml_graph *g, const struct ml_cgraph *cg)
{
    struct ml_graph gc = { g->n, NULL, NULL, NULL, g->vw, cg };
    idx_t n = g->n, v, *p1 = malloc(n * sizeof(idx_t)),
          *p2 = malloc(n * sizeof(idx_t));
    int64_t maxw[4 * 2], pw1[4 * 2] = { 0 }, pw2[4 * 2], cut0 = 0, cut1 = 0;
    int64_t k;
    int j;

    for (v = 0; v < n; v++) {
        p1[v] = (idx_t)((v / 7) % 4);
        for (j = 0; j < 2; j++)
            pw1[p1[v] * 2 + j] += g->vw[(size_t)v * 2 + j];
    }
    for (j = 0; j < 4 * 2; j++)
        maxw[j] = pw1[j] + pw1[j] / 20 + 1;
    memcpy(p2, p1, n * sizeof(idx_t));
    memcpy(pw2, pw1, sizeof(pw1));
    for (v = 0; v < n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            cut0 += p1[v] != p1[g->adj[k]];
    CHECK_EQ(ml_fm_fixed(g, n - 100, 2, 4, maxw, p1, pw1, 3), 0);
    CHECK_EQ(ml_fm_fixed(&gc, n - 100, 2, 4, maxw, p2, pw2, 3), 0);
    for (v = 0; v < n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            cut1 += p1[v] != p1[g->adj[k]];
    CHECK(cut1 < cut0);
    CHECK(!memcmp(p1, p2, n * sizeof(idx_t)));
    CHECK(!memcmp(pw1, pw2, sizeof(pw1)));
    free(p1);
    free(p2);
}

static void test_ml_compressed(void)
{
    struct ml_graph g = { 0 };
    struct ml_cgraph cg;
    idx_t n = 30000, *c1 = malloc(n * sizeof(idx_t)),
          *c2 = malloc(n * sizeof(idx_t));
    int64_t cap[2] = { 8, 3 };
    int l1 = 0, l2 = 0, r1 = 0, r2 = 0;

    hubby(&g, n);
    CHECK_EQ(ml_cg_build(&cg, g.n, g.xadj, g.adj, g.adjw, 1), 0);
    CHECK(ml_cg_nchunks(ml_cg_degree(&cg, 0)) > 1);
    CHECK_EQ(ml_cluster(&g, NULL, 2, cap, 7, c1, &r1), 0);
    CHECK_EQ(ml_cluster(&g, &cg, 2, cap, 7, c2, &r2), 0);
    CHECK_EQ(r1, r2);
    CHECK(!memcmp(c1, c2, n * sizeof(idx_t)));
    fm_on_copy(&g, &cg);
    ml_cg_release(&cg);
    nodes_per_part = 100;
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, c1, &l1), 0);
    ml_compress = 1;
    CHECK_EQ(mlp(&g, 2, 4, 3, NULL, c2, &l2), 0);
    ml_compress = 0;
    nodes_per_part = 0;
    CHECK(l1 >= 2);
    CHECK_EQ(l1, l2);
    CHECK(!memcmp(c1, c2, n * sizeof(idx_t)));
    free(c1);
    free(c2);
    ml_graph_release(&g);
}

/* The paths of graphs past 2^31 entries, on a small one: under
 * DGLPART_TEST_IDX_MAX the coarse edge weights saturate, FM goes without
 * its gain cache, and the coarsest graph's weights are scaled down for
 * METIS; the parts stay valid, balanced and the same run after run. A
 * coarsest graph above the limit is refused in one line. */
static void test_ml_wide(void)
{
    struct ml_graph g = { 0 };
    idx_t n = 20000, v, *p1 = malloc(n * sizeof(idx_t)),
          *p2 = malloc(n * sizeof(idx_t)), *p3 = malloc(n * sizeof(idx_t));
    int64_t pw[4] = { 0 }, k, cut1 = 0, cut2 = 0;

    ring(&g, n);
    g.adjw = malloc((size_t)g.xadj[n] * sizeof(idx_t));
    for (k = 0; k < g.xadj[n]; k++)
        g.adjw[k] = 1000;
    nodes_per_part = 100;
    CHECK_EQ(mlp(&g, 1, 4, 3, NULL, p1, NULL), 0);
    setenv("DGLPART_TEST_IDX_MAX", "20000", 1);
    CHECK_EQ(ml_idx_max(), 20000);
    CHECK_EQ(mlp(&g, 1, 4, 3, NULL, p2, NULL), 0);
    CHECK_EQ(mlp(&g, 1, 4, 3, NULL, p3, NULL), 0);
    CHECK(!memcmp(p2, p3, n * sizeof(idx_t)));
    for (v = 0; v < n; v++) {
        CHECK(p2[v] >= 0 && p2[v] < 4);
        pw[p2[v]]++;
        for (k = g.xadj[v]; k < g.xadj[v + 1]; k++) {
            cut1 += p1[v] != p1[g.adj[k]];
            cut2 += p2[v] != p2[g.adj[k]];
        }
    }
    for (v = 0; v < 4; v++)
        CHECK(pw[v] <= (int64_t)(1.03 * n / 4));
    CHECK(cut2 <= cut1 + cut1 / 2);
    setenv("DGLPART_TEST_IDX_MAX", "100", 1);
    CHECK_EQ(mlp(&g, 1, 4, 3, NULL, p3, NULL), DP_ETOOBIG);
    CHECK_CONTAINS(dp_errmsg(), "the coarsest graph has");
    unsetenv("DGLPART_TEST_IDX_MAX");
    nodes_per_part = 0;
    CHECK_EQ(ml_idx_max(), INT32_MAX);
    free(p1);
    free(p2);
    free(p3);
    ml_graph_release(&g);
}

/* Each phase on its own, on the tiny graph cut in halves: assignment,
 * reshuffle (narrow and wide ids, sources in memory and in a file), the
 * return mapping, one part's halo
 * subgraph, and the config. */
static void test_phases(void)
{
    struct dp_partition_opts o;
    struct dp_dataset d;
    struct assign_in ai;
    struct assign_out ao;
    struct shuffle sh[4];
    struct names nm;
    struct part_stats ps;
    struct local *l = NULL;
    struct summary sm;
    char *a = tpath("halves.txt"), *g = tpath("phase-graph.dgl"), *rel = NULL;
    int64_t esrc[8] = { 5, 0, 1, 2, 1, 2, 3, 4 }, on[6], oe[8], k;
    int64_t want_oe[8] = { 5, 0, 1, 6, 7, 2, 3, 4 };
    int32_t lid[7];
    int w;

    dp_write_file(a, "0\n0\n0\n1\n1\n1\n", 12);
    dp_partition_opts_init(&o);
    o.num_parts = 2;
    o.part_assign = a;
    CHECK_EQ(dp_dataset_open(&d, ds), 0);
    ai = (struct assign_in){ &o, &d, 0, 0 };
    CHECK_EQ(phase_assign(&ai, &ao), 0);
    CHECK(ao.part[2] == 0 && ao.part[3] == 1 && !ao.fine && !ao.has_objval);
    /* narrow and wide, in memory and in a scratch file */
    for (w = 0; w < 4; w++) {
        CHECK_EQ(phase_reshuffle(&d, ao.part, 2, w & 1, w & 2 ? tmpdir : NULL,
                                 &sh[w]),
                 0);
        CHECK_EQ(sh[w].esrc.wide, w & 1);
        CHECK_EQ(sh[w].esrc_in_file, !!(w & 2));
        CHECK(sh[w].nstart[1] == 3 && sh[w].nstart[2] == 6);
        CHECK(sh[w].estart[1] == 5 && sh[w].estart[2] == 8);
        CHECK_EQ(sh[w].cut, 2);
        for (k = 0; k < 8; k++)
            CHECK_EQ(dp_ids_get(&sh[w].esrc, (size_t)k), esrc[k]);
    }
    /* parts interleaved in input order, the sources written to their
     * file a run of one or two at a time: those made in memory */
    {
        char *a2 = tpath("interleaved.txt");
        struct assign_out ao2;
        struct shuffle s2[2];
        int r;

        dp_write_file(a2, "1\n0\n1\n0\n0\n1\n", 12);
        o.part_assign = a2;
        CHECK_EQ(phase_assign(&ai, &ao2), 0);
        for (r = 1; r <= 2; r++) {
            char run[8];

            snprintf(run, sizeof(run), "%d", r);
            setenv("DGLPART_TEST_ESRC_RUN", run, 1);
            CHECK_EQ(phase_reshuffle(&d, ao2.part, 2, 0, NULL, &s2[0]), 0);
            CHECK_EQ(phase_reshuffle(&d, ao2.part, 2, 0, tmpdir, &s2[1]), 0);
            CHECK(s2[1].esrc_in_file && !s2[0].esrc_in_file);
            CHECK_EQ(s2[1].cut, s2[0].cut);
            for (k = 0; k < 8; k++)
                CHECK_EQ(dp_ids_get(&s2[1].esrc, (size_t)k),
                         dp_ids_get(&s2[0].esrc, (size_t)k));
            {
                /* and each is the shuffled id of its entry's source, rows
                 * taken in shuffled order */
                int64_t nid[6], v, e, j = 0;

                for (v = 0; v < 6; v++)
                    nid[dp_ids_get(&s2[0].orig, (size_t)v)] = v;
                for (v = 0; v < 6; v++) {
                    int64_t u = dp_ids_get(&s2[0].orig, (size_t)v);

                    for (e = s2[0].ip[u]; e < s2[0].ip[u + 1]; e++, j++)
                        CHECK_EQ(dp_ids_get(&s2[0].esrc, (size_t)j),
                                 nid[dp_dataset_src(&d, e)]);
                }
                CHECK_EQ(j, 8);
            }
            shuffle_release(&s2[0]);
            shuffle_release(&s2[1]);
        }
        unsetenv("DGLPART_TEST_ESRC_RUN");
        assign_out_release(&ao2);
        o.part_assign = a;
        free(a2);
    }
    CHECK_EQ(shuffle_orig_maps(&d, &sh[0], on, oe), 0);
    for (k = 0; k < 8; k++)
        CHECK_EQ(oe[k], want_oe[k]);
    CHECK(on[0] == 0 && on[5] == 5);
    /* part 0: inner 0-2, halo 5 (source of e5) and 3 (2 -> 3 leaves) */
    CHECK_EQ(names_init(&nm, &d, NULL, NULL), 0);
    memset(lid, 0xff, sizeof(lid));
    {
        struct part_job jb = { &o, &d, &sh[0], NULL, &nm, tmpdir };

        CHECK_EQ(local_build(&jb, 0, lid, &l), 0);
        CHECK_EQ(local_write_graph(l, g, &ps), 0);
        local_free(l);
    }
    CHECK(ps.nodes == 3 && ps.edges == 5 && ps.halo_nodes == 2 &&
          ps.halo_edges == 1);
    for (k = 0; k < 7; k++)
        CHECK_EQ(lid[k], -1); /* left as found, for the next part */
    sm = (struct summary){ &o,     &d,     &sh[0], &ao,  &nm, &ps,
                           "tiny", tmpdir, 2,      NULL, NULL };
    CHECK_EQ(write_config(&sm, &rel), 0);
    CHECK_STR(rel, "tiny.json");
    names_release(&nm);
    for (w = 0; w < 4; w++)
        shuffle_release(&sh[w]);
    assign_out_release(&ao);
    dp_dataset_release(&d);
    free(rel);
    free(a);
    free(g);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    ds = tpath("ds");
    make_dataset(ds);
    RUN(test_typed_dataset);
    RUN(test_random);
    RUN(test_assign_read);
    RUN(test_formats);
    RUN(test_vweights);
    RUN(test_metis);
    RUN(test_halo);
    RUN(test_phases);
    RUN(test_too_large);
    RUN(test_ml_levels);
    RUN(test_ml_partition);
    RUN(test_ml_compressed);
    RUN(test_ml_spill);
    RUN(test_ml_sample);
    RUN(test_ml_stall);
    RUN(test_ml_refine);
    RUN(test_ml_heap);
    RUN(test_ml_wide);
    free(ds);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
