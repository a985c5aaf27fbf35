/* Unit tests for format/dglfile.c and config.c against the partitions
 * DGL 1.1.3 wrote from Cora (shared/fixtures/dgl-cora). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "harness.h"

#define GRAPH_HEADER_LEN 4096 /* save_graphs v2 reserves the first 4 KiB */

static char tmpdir[] = "/tmp/dglpart-dglfile.XXXXXX";
static char fixtures[4096];

static const char *const cases[] = { "one-part", "metis2-hops2",
                                     "metis4-train-edges" };
#define NCASES 3

static char *fix(const char *c, const char *rel)
{
    static char buf[8][4200];
    static int k;
    char *p = buf[k++ % 8];

    snprintf(p, 4200, "%s/%s/%s", fixtures, c, rel);
    return p;
}

static char *tmp(const char *name)
{
    static char buf[8][4200];
    static int k;
    char *p = buf[k++ % 8];

    snprintf(p, 4200, "%s/%s", tmpdir, name);
    return p;
}

static int read_all(const char *path, char **data, size_t *len)
{
    return dp_read_file(path, (size_t)1 << 30, data, len);
}

/* Known facts of every fixture: counts, ids, inner flags, features. */
static void test_fixture_facts(void)
{
    int c;

    for (c = 0; c < NCASES; c++) {
        struct dp_part_config cfg;
        struct dp_npy onids, oeids, feat;
        int64_t total_inner_nodes = 0, total_inner_edges = 0;
        int i;

        if (dp_config_load(&cfg, fix(cases[c], "cora.json"))) {
            TH_FAIL("%s: %s", cases[c], dp_errmsg());
            continue;
        }
        CHECK_STR(cfg.graph_name, "cora");
        CHECK_EQ(cfg.num_nodes, 2708);
        CHECK_EQ(cfg.num_edges, 5429);
        CHECK_EQ(cfg.num_parts, c == 0 ? 1 : c == 1 ? 2 : 4);
        CHECK_EQ(cfg.halo_hops, c == 1 ? 2 : 1);
        CHECK_EQ(dp_npy_open(&onids, fix(cases[c], "orig_nids.npy")), 0);
        CHECK_EQ(dp_npy_open(&oeids, fix(cases[c], "orig_eids.npy")), 0);
        CHECK_EQ(dp_npy_open(&feat, fix("input", "feat.npy")), 0);
        for (i = 0; i < cfg.num_parts; i++) {
            struct dp_graph_file g;
            struct dp_tensors nf, ef;
            const struct dp_ndarray *id, *inner, *eid, *iedge;
            const struct dp_tensor *t;
            char *p = dp_config_part_file(&cfg, i, "part_graph");
            int64_t nstart = cfg.node_map[i][0], nend = cfg.node_map[i][1];
            int64_t estart = cfg.edge_map[i][0], eend = cfg.edge_map[i][1];
            int64_t k, ninner = 0, einner = 0, bad = 0;

            CHECK(p && strstr(p, "graph.dgl"));
            if (!p || dp_graph_load(&g, p)) {
                TH_FAIL("%s part %d: %s", cases[c], i, dp_errmsg());
                free(p);
                continue;
            }
            free(p);
            CHECK_EQ(g.saved_formats, DP_FMT_COO);
            if (c == 0) {
                CHECK_EQ(g.num_nodes, 2708);
                CHECK_EQ(g.num_edges, 5429);
                CHECK(dp_graph_ndata(&g, "_TYPE") != NULL);
            } else {
                CHECK(g.num_nodes > nend - nstart);
                CHECK(dp_graph_ndata(&g, "part_id") != NULL);
            }
            id = dp_graph_ndata(&g, "_ID");
            inner = dp_graph_ndata(&g, "inner_node");
            eid = dp_graph_edata(&g, "_ID");
            iedge = dp_graph_edata(&g, "inner_edge");
            CHECK(id && inner && eid && iedge);
            if (!id || !inner || !eid || !iedge) {
                dp_graph_release(&g);
                continue;
            }
            CHECK_EQ(id->dtype, DP_I64);
            CHECK_EQ(inner->dtype, DP_U8);
            for (k = 0; k < g.num_nodes; k++) {
                int in = (int)dp_ndarray_get_i64(inner, (uint64_t)k);

                ninner += in;
                if (k < nend - nstart &&
                    (!in || dp_ndarray_get_i64(id, (uint64_t)k) != nstart + k))
                    bad++;
                if (k >= nend - nstart && in)
                    bad++;
            }
            CHECK_EQ(bad, 0);
            CHECK_EQ(ninner, nend - nstart);
            for (k = 0; k < g.num_edges; k++) {
                int in = (int)dp_ndarray_get_i64(iedge, (uint64_t)k);

                einner += in;
                if (k < eend - estart &&
                    (!in || dp_ndarray_get_i64(eid, (uint64_t)k) != estart + k))
                    bad++;
            }
            CHECK_EQ(bad, 0);
            CHECK_EQ(einner, eend - estart);
            total_inner_nodes += ninner;
            total_inner_edges += einner;

            p = dp_config_part_file(&cfg, i, "node_feats");
            if (!p || dp_tensors_load(&nf, p)) {
                TH_FAIL("%s: %s", p, dp_errmsg());
            } else {
                CHECK_EQ(nf.count, 5);
                t = dp_tensors_find(&nf, "_N/feat");
                CHECK(t != NULL);
                if (t) {
                    const float *want = feat.data;
                    int64_t orig = dp_npy_get_i64(&onids, (uint64_t)nstart);

                    CHECK_EQ(t->a.dtype, DP_F32);
                    CHECK_EQ(t->a.ndim, 2);
                    CHECK_EQ(t->a.shape[0], ninner);
                    CHECK_EQ(t->a.shape[1], 1433);
                    /* the first inner node's row is its input node's row */
                    CHECK(!memcmp(t->a.data, want + orig * 1433, 1433 * 4));
                }
                t = dp_tensors_find(&nf, "_N/train_mask");
                CHECK(t && t->a.dtype == DP_U8 && t->a.shape[0] == ninner);
                CHECK(dp_tensors_find(&nf, "_N/nope") == NULL);
                dp_tensors_release(&nf);
            }
            free(p);

            p = dp_config_part_file(&cfg, i, "edge_feats");
            if (!p || dp_tensors_load(&ef, p)) {
                TH_FAIL("%s: %s", p, dp_errmsg());
            } else {
                t = dp_tensors_find(&ef, "_N:_E:_N/weight");
                CHECK(t && t->a.dtype == DP_F32 && t->a.shape[0] == einner);
                for (k = 0; t && k < t->a.shape[0]; k++) {
                    float w;

                    memcpy(&w, (const char *)t->a.data + k * 4, 4);
                    if ((int64_t)w !=
                        dp_npy_get_i64(&oeids, (uint64_t)(estart + k)))
                        bad++;
                }
                CHECK_EQ(bad, 0);
                dp_tensors_release(&ef);
            }
            free(p);
            dp_graph_release(&g);
        }
        CHECK_EQ(total_inner_nodes, 2708);
        CHECK_EQ(total_inner_edges, 5429);
        dp_npy_release(&onids);
        dp_npy_release(&oeids);
        dp_npy_release(&feat);
        dp_config_release(&cfg);
    }
}

/* Rewrite each fixture graph from its loaded arrays: the bytes must be
 * DGL's, apart from the garbage DGL leaves in its 4 KiB header. */
static void test_graph_roundtrip(void)
{
    static const char *const parts[] = {
        "one-part/part0/graph.dgl",
        "metis2-hops2/part0/graph.dgl",
        "metis2-hops2/part1/graph.dgl",
        "metis4-train-edges/part0/graph.dgl",
        "metis4-train-edges/part1/graph.dgl",
        "metis4-train-edges/part2/graph.dgl",
        "metis4-train-edges/part3/graph.dgl",
    };
    size_t i;

    for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        struct dp_graph_file g;
        struct dp_graph_part w = { 0 };
        int64_t *src = NULL, *dst = NULL, *nid = NULL, *eid = NULL, *pid = NULL;
        int32_t *nt = NULL, *et = NULL;
        const struct dp_ndarray *a;
        char *mine = NULL, *theirs = NULL;
        size_t ml = 0, tl = 0;
        char path[4200];

        snprintf(path, sizeof(path), "%s/%s", fixtures, parts[i]);
        if (dp_graph_load(&g, path)) {
            TH_FAIL("%s", dp_errmsg());
            continue;
        }
        w.num_nodes = g.num_nodes;
        w.num_edges = g.num_edges;
        w.src = src = dp_ndarray_i64(&g.coo_row);
        w.dst = dst = dp_ndarray_i64(&g.coo_col);
        w.nid = nid = dp_ndarray_i64(dp_graph_ndata(&g, "_ID"));
        w.eid = eid = dp_ndarray_i64(dp_graph_edata(&g, "_ID"));
        w.inner_node = dp_graph_ndata(&g, "inner_node")->data;
        w.inner_edge = dp_graph_edata(&g, "inner_edge")->data;
        if ((a = dp_graph_ndata(&g, "part_id")) != NULL)
            w.part_id = pid = dp_ndarray_i64(a);
        if ((a = dp_graph_ndata(&g, "_TYPE")) != NULL) {
            w.ntype = nt = malloc(a->nbytes);
            memcpy(nt, a->data, a->nbytes);
        }
        if ((a = dp_graph_edata(&g, "_TYPE")) != NULL) {
            w.etype = et = malloc(a->nbytes);
            memcpy(et, a->data, a->nbytes);
        }
        CHECK_EQ(dp_graph_write(tmp("g.dgl"), &w), 0);
        CHECK_EQ(read_all(tmp("g.dgl"), &mine, &ml), 0);
        CHECK_EQ(read_all(path, &theirs, &tl), 0);
        CHECK_EQ(ml, tl);
        if (mine && theirs && ml == tl) {
            CHECK(!memcmp(mine, theirs, 32));
            CHECK(!memcmp(mine + 4096, theirs + 4096, ml - 4096));
        }
        free(mine);
        free(theirs);
        free(src);
        free(dst);
        free(nid);
        free(eid);
        free(pid);
        free(nt);
        free(et);
        dp_graph_release(&g);
    }
}

static void test_config_roundtrip(void)
{
    int c;

    for (c = 0; c < NCASES; c++) {
        struct dp_part_config cfg;
        char *mine = NULL, *theirs = NULL;
        size_t ml = 0, tl = 0;

        if (dp_config_load(&cfg, fix(cases[c], "cora.json"))) {
            TH_FAIL("%s", dp_errmsg());
            continue;
        }
        CHECK_EQ(dp_config_write(tmp("cora.json"), &cfg), 0);
        CHECK_EQ(read_all(tmp("cora.json"), &mine, &ml), 0);
        CHECK_EQ(read_all(fix(cases[c], "cora.json"), &theirs, &tl), 0);
        CHECK(mine && theirs && ml == tl && !memcmp(mine, theirs, ml));
        free(mine);
        free(theirs);
        dp_config_release(&cfg);
    }
}

static void test_config_legacy_and_errors(void)
{
    struct dp_part_config cfg;
    const char *legacy =
        "{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 7,"
        " \"num_parts\": 2, \"node_map\": [4, 10], \"edge_map\": [3, 7],"
        " \"part-0\": {\"node_feats\": \"a/n\", \"edge_feats\": \"a/e\","
        " \"part_graph\": \"/abs/g.dgl\"},"
        " \"part-1\": {\"node_feats\": \"b/n\", \"edge_feats\": \"b/e\","
        " \"part_graph\": \"b/g\"}}";
    char *p;

    CHECK_EQ(dp_write_file(tmp("legacy.json"), legacy, strlen(legacy)), 0);
    CHECK_EQ(dp_config_load(&cfg, tmp("legacy.json")), 0);
    CHECK_EQ(cfg.num_parts, 2);
    CHECK_EQ(cfg.halo_hops, 1);
    CHECK_EQ(cfg.node_map[1][0], 4);
    CHECK_EQ(cfg.node_map[1][1], 10);
    CHECK_EQ(cfg.edge_map[0][1], 3);
    p = dp_config_part_file(&cfg, 0, "part_graph");
    CHECK_STR(p, "/abs/g.dgl");
    free(p);
    p = dp_config_part_file(&cfg, 1, "node_feats");
    CHECK_STR(p, tmp("b/n"));
    free(p);
    CHECK(dp_config_part_file(&cfg, 2, "node_feats") == NULL);
    dp_config_release(&cfg);

    /* a gap in node_map, a wrong total, bad JSON, a missing part */
    {
        static const char *const bad[][2] = {
            { "{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 7,"
              " \"num_parts\": 2, \"node_map\": {\"_N\": [[0, 4], [5, 10]]},"
              " \"edge_map\": [3, 7]}",
              "node_map part 1 is [5, 10)" },
            { "{\"graph_name\": \"g\", \"num_nodes\": 11, \"num_edges\": 7,"
              " \"num_parts\": 2, \"node_map\": [4, 10], \"edge_map\": [3, 7]}",
              "node_map ends at 10, expected num_nodes = 11" },
            { "{\"graph_name\": \"g\", ", "invalid JSON" },
            { "{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 7,"
              " \"num_parts\": 1, \"node_map\": [10], \"edge_map\": [7]}",
              "\"part-0\" is missing" },
            { "{\"graph_name\": \"g\", \"num_nodes\": 1.5, \"num_edges\": 7}",
              "num_nodes is 1.5" },
            { "[1, 2]", "expected a JSON object" },
        };
        size_t i;

        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            CHECK_EQ(
                dp_write_file(tmp("bad.json"), bad[i][0], strlen(bad[i][0])),
                0);
            CHECK_EQ(dp_config_load(&cfg, tmp("bad.json")), DP_EFORMAT);
            CHECK_CONTAINS(dp_errmsg(), bad[i][1]);
        }
    }
}

/* What dglpart does not read: GraphBolt parts. */
static void test_config_unsupported(void)
{
    static const char *const bad =
        "{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 7,"
        " \"num_parts\": 1, \"node_map\": [10], \"edge_map\": [7],"
        " \"part-0\": {\"node_feats\": \"n\", \"edge_feats\": \"e\","
        " \"part_graph_graphbolt\": \"part0/fused_csc_sampling_graph.pt\"}}";
    struct dp_part_config cfg;

    CHECK_EQ(dp_write_file(tmp("u.json"), bad, strlen(bad)), 0);
    CHECK_EQ(dp_config_load(&cfg, tmp("u.json")), DP_EUNSUPPORTED);
    CHECK_CONTAINS(dp_errmsg(), "holds a GraphBolt graph");
}

/* Typed configs: DGL's own files read and written back byte for byte, and
 * typed ranges or type ids that do not fit refused by name. */
static void test_config_typed(void)
{
    static const char *const sets[] = { "hetero-metis4-train",
                                        "hetero-metis2-edges",
                                        "hetero-one-part" };
#define TYPED(nm, ids)                                                         \
    "{\"graph_name\": \"g\", \"num_nodes\": 10, \"num_edges\": 7,"             \
    " \"num_parts\": 2, \"node_map\": " nm ", \"edge_map\": [3, 7], " ids      \
    " \"part-0\": {\"node_feats\": \"n\", \"edge_feats\": \"e\","              \
    " \"part_graph\": \"g\"}, \"part-1\": {\"node_feats\": \"n\","             \
    " \"edge_feats\": \"e\", \"part_graph\": \"g\"}}"
    static const char *const bad[][2] = {
        { TYPED("{\"a\": [[0, 2], [2, 4]], \"b\": [[4, 7], [7, 10]]}", ""),
          "node_map[\"b\"] part 0 is [4, 7), expected a range starting at 2" },
        { TYPED("{\"a\": [[0, 2], [5, 7]], \"b\": [[2, 5], [7, 10]]}",
                "\"ntypes\": {\"a\": 0, \"b\": 0},"),
          "ntypes gives id 0 twice" },
        { TYPED("{\"a\": [[0, 2], [5, 7]], \"b\": [[2, 5], [7, 10]]}",
                "\"ntypes\": {\"a\": 0},"),
          "ntypes names 1 types, node_map has 2" },
        { TYPED("{\"a\": [[0, 2], [5, 7]], \"b\": [[2, 5], [7, 10]]}",
                "\"ntypes\": {\"a\": 0, \"b\": 2},"),
          "ntypes[\"b\"] is 2, expected an integer in [0, 1]" },
        { TYPED("{\"a\": [[0, 2], [5, 7]], \"b\": [[2, 5]]}", ""),
          "node_map[\"b\"] has 1 ranges, expected one per part (2)" },
    };
    struct dp_part_config cfg;
    size_t i;

    for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        char in[256], *mine = NULL, *theirs = NULL;
        size_t ml = 0, tl = 0;

        snprintf(in, sizeof(in),
                 "../shared/fixtures/dgl-cora-hetero/%s/cora_hetero.json",
                 sets[i]);
        if (dp_config_load(&cfg, in)) {
            TH_FAIL("%s", dp_errmsg());
            continue;
        }
        CHECK_EQ(cfg.num_ntypes, 2);
        CHECK_EQ(cfg.num_etypes, 3);
        CHECK_EQ(cfg.node_map[cfg.num_parts - 1][1], 4141);
        CHECK_EQ(dp_config_write(tmp("typed.json"), &cfg), 0);
        CHECK_EQ(read_all(tmp("typed.json"), &mine, &ml), 0);
        CHECK_EQ(read_all(in, &theirs, &tl), 0);
        CHECK(mine && theirs && ml == tl && !memcmp(mine, theirs, ml));
        free(mine);
        free(theirs);
        dp_config_release(&cfg);
    }
    /* a valid typed file: each part's whole range spans its types */
    {
        const char *ok =
            TYPED("{\"a\": [[0, 2], [5, 7]], \"b\": [[2, 5], [7, 10]]}",
                  "\"ntypes\": {\"b\": 1, \"a\": 0},");
        CHECK_EQ(dp_write_file(tmp("t.json"), ok, strlen(ok)), 0);
        CHECK_EQ(dp_config_load(&cfg, tmp("t.json")), 0);
        CHECK_EQ(cfg.node_map[0][1], 5);
        CHECK_EQ(cfg.node_map[1][0], 5);
        CHECK_STR(cfg.ntypes[1], "b");
        CHECK_EQ(cfg.ntype_map[3][0], 7);
        CHECK_EQ(dp_config_ntype_of(&cfg, 6), 0);
        CHECK_EQ(dp_config_ntype_of(&cfg, 7), 1);
        CHECK_STR(cfg.etypes[0], "_N:_E:_N");
        dp_config_release(&cfg);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ(dp_write_file(tmp("bad.json"), bad[i][0], strlen(bad[i][0])),
                 0);
        CHECK_EQ(dp_config_load(&cfg, tmp("bad.json")), DP_EFORMAT);
        CHECK_CONTAINS(dp_errmsg(), bad[i][1]);
    }
#undef TYPED
}

static void test_config_write_escapes(void)
{
    int64_t nm[1][2] = { { 0, 3 } }, em[1][2] = { { 0, 2 } };
    struct dp_part_config c = { 0 };
    char *text = NULL;
    size_t len;

    c.graph_name = "caf\xc3\xa9 \"q\"\t\xf0\x9f\x98\x80";
    c.part_method = "random";
    c.num_nodes = 3;
    c.num_edges = 2;
    c.num_parts = 1;
    c.halo_hops = 0;
    c.node_map = nm;
    c.edge_map = em;
    CHECK_EQ(dp_config_write(tmp("esc.json"), &c), 0);
    CHECK_EQ(read_all(tmp("esc.json"), &text, &len), 0);
    CHECK_CONTAINS(
        text, "\"graph_name\": \"caf\\u00e9 \\\"q\\\"\\t\\ud83d\\ude00\",");
    CHECK_CONTAINS(text, "\"part_graph\": \"part0/graph.dgl\"\n    }\n}");
    free(text);
    c.graph_name = "bad\xff";
    CHECK_EQ(dp_config_write(tmp("esc.json"), &c), DP_EINVAL);
}

/* Stream an entry in pieces, add whole ones, read them back. */
static void test_tensors_stream(void)
{
    struct dp_tensor_writer w;
    struct dp_tensors t;
    float rows[6] = { 1, 2, 3, 4, 5, 6 };
    int64_t shape[2] = { 3, 2 }, one = 4, ids[4] = { 9, 8, 7, 6 };
    const struct dp_tensor *e;

    CHECK_EQ(dp_tensor_writer_open(&w, tmp("t.dgl"), 3), 0);
    CHECK_EQ(dp_tensor_writer_begin(&w, "_N/feat", DP_F32, 2, shape), 0);
    CHECK_EQ(dp_tensor_writer_write(&w, rows, 8), 0);
    CHECK_EQ(dp_tensor_writer_write(&w, rows + 2, 16), 0);
    CHECK_EQ(dp_tensor_writer_write(&w, rows, 1), DP_EINVAL); /* too much */
    CHECK_EQ(dp_tensor_writer_end(&w), 0);
    CHECK_EQ(dp_tensor_writer_add(&w, "_N/id", DP_I64, 1, &one, ids), 0);
    CHECK_EQ(dp_tensor_writer_commit(&w), DP_EINVAL); /* 2 of 3 */
    CHECK(!dp_exists(tmp("t.dgl")) && !dp_exists(tmp("t.dgl.tmp")));

    CHECK_EQ(dp_tensor_writer_open(&w, tmp("t.dgl"), 2), 0);
    CHECK_EQ(dp_tensor_writer_begin(&w, "_N/feat", DP_F32, 2, shape), 0);
    CHECK_EQ(dp_tensor_writer_write(&w, rows, 20), 0);
    CHECK_EQ(dp_tensor_writer_end(&w), DP_EINVAL); /* 4 bytes short */
    CHECK_EQ(dp_tensor_writer_write(&w, rows + 5, 4), 0);
    CHECK_EQ(dp_tensor_writer_end(&w), 0);
    CHECK_EQ(dp_tensor_writer_add(&w, "_N/mask", DP_BOOL, 1, &one, "\1\0\1\0"),
             0);
    CHECK_EQ(dp_tensor_writer_commit(&w), 0);
    CHECK_EQ(dp_tensors_load(&t, tmp("t.dgl")), 0);
    CHECK_EQ(t.count, 2);
    e = dp_tensors_find(&t, "_N/feat");
    CHECK(e && e->a.dtype == DP_F32 && e->a.ndim == 2 && e->a.shape[1] == 2 &&
          e->a.nbytes == 24 && !memcmp(e->a.data, rows, 24));
    e = dp_tensors_find(&t, "_N/mask");
    /* bools are stored as DGL's uint8 */
    CHECK(e && e->a.dtype == DP_U8 && dp_ndarray_get_i64(&e->a, 2) == 1);
    dp_tensors_release(&t);

    CHECK_EQ(dp_orig_ids_write(tmp("orig_nids.dgl"), DP_ORIG_NIDS_KEY, ids, 4),
             0);
    CHECK_EQ(dp_tensors_load(&t, tmp("orig_nids.dgl")), 0);
    e = dp_tensors_find(&t, "_N");
    CHECK(e && e->a.dtype == DP_I64 && e->a.shape[0] == 4 &&
          dp_ndarray_get_i64(&e->a, 3) == 6);
    dp_tensors_release(&t);

    /* the empty dict DGL writes for graphs without edge features */
    CHECK_EQ(dp_tensor_writer_open(&w, tmp("empty.dgl"), 0), 0);
    CHECK_EQ(dp_tensor_writer_commit(&w), 0);
    {
        struct stat st;

        CHECK(stat(tmp("empty.dgl"), &st) == 0 && st.st_size == 24);
    }
    CHECK_EQ(dp_tensors_load(&t, tmp("empty.dgl")), 0);
    CHECK_EQ(t.count, 0);
    dp_tensors_release(&t);
}

/* CSR and CSC built by the writer agree with the COO. */
static void test_graph_formats(void)
{
    int64_t src[5] = { 0, 2, 1, 2, 3 }, dst[5] = { 1, 1, 0, 3, 3 };
    int64_t nid[4] = { 10, 11, 12, 13 }, eid[5] = { 20, 21, 22, 23, 24 };
    uint8_t in_n[4] = { 1, 1, 0, 0 }, in_e[5] = { 1, 1, 1, 0, 0 };
    struct dp_graph_part w = {
        4,    5,    src, dst,  nid,
        in_n, NULL, eid, in_e, DP_FMT_COO | DP_FMT_CSR | DP_FMT_CSC,
        NULL, NULL
    };
    struct dp_graph_file g;
    int64_t k, j;

    CHECK_EQ(dp_graph_write(tmp("f.dgl"), &w), 0);
    CHECK_EQ(dp_graph_load(&g, tmp("f.dgl")), 0);
    CHECK_EQ(g.saved_formats, 7);
    CHECK_EQ(g.num_nodes, 4);
    CHECK_EQ(g.num_edges, 5);
    CHECK(g.coo_data.data == NULL);
    CHECK(g.csr_data.data != NULL && g.csc_data.data != NULL);
    for (k = 0; k < 4; k++) {
        for (j = dp_ndarray_get_i64(&g.csr_indptr, (uint64_t)k);
             j < dp_ndarray_get_i64(&g.csr_indptr, (uint64_t)k + 1); j++) {
            int64_t e = dp_ndarray_get_i64(&g.csr_data, (uint64_t)j);

            CHECK_EQ(src[e], k);
            CHECK_EQ(dst[e], dp_ndarray_get_i64(&g.csr_indices, (uint64_t)j));
        }
        for (j = dp_ndarray_get_i64(&g.csc_indptr, (uint64_t)k);
             j < dp_ndarray_get_i64(&g.csc_indptr, (uint64_t)k + 1); j++) {
            int64_t e = dp_ndarray_get_i64(&g.csc_data, (uint64_t)j);

            CHECK_EQ(dst[e], k);
            CHECK_EQ(src[e], dp_ndarray_get_i64(&g.csc_indices, (uint64_t)j));
        }
    }
    CHECK_EQ(dp_ndarray_get_i64(dp_graph_edata(&g, "_ID"), 4), 24);
    CHECK(dp_graph_ndata(&g, "part_id") == NULL);
    dp_graph_release(&g);

    w.formats = DP_FMT_CSC;
    CHECK_EQ(dp_graph_write(tmp("f.dgl"), &w), 0);
    CHECK_EQ(dp_graph_load(&g, tmp("f.dgl")), 0);
    CHECK_EQ(g.saved_formats, DP_FMT_CSC);
    CHECK(g.coo_row.data == NULL && g.csr_indptr.data == NULL);
    CHECK_EQ(g.num_edges, 5);
    dp_graph_release(&g);

    dst[4] = 4; /* out of range */
    CHECK_EQ(dp_graph_write(tmp("f.dgl"), &w), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "edge 4 (3 -> 4) is outside the 4 nodes");
}

/* A CSC the source fills, in CSC order, with csc_no_data: its data array
 * is DGL's null array (shape [0]), read back as edge id = position. */
static const int64_t nd_indptr[4] = { 0, 1, 3, 3 }, nd_indices[3] = { 2, 0, 1 };

static int nd_fill(void *arg, int col, int64_t at, int64_t n, void *out)
{
    int64_t i, *o = out;
    uint8_t *b = out;

    (void)arg;
    for (i = 0; i < n; i++) {
        int64_t r = at + i;

        if (col == DP_COL_CSC_INDPTR)
            o[i] = nd_indptr[r];
        else if (col == DP_COL_CSC_INDICES)
            o[i] = nd_indices[r];
        else if (col == DP_COL_INNER_EDGE || col == DP_COL_INNER_NODE)
            b[i] = 1;
        else
            o[i] = r; /* _ID, and the CSC data when it is written */
    }
    return 0;
}

static void test_csc_no_data(void)
{
    struct dp_graph_src src;
    struct dp_graph_file g;
    struct stat st;
    off_t with;

    memset(&src, 0, sizeof(src));
    src.num_nodes = 3;
    src.num_edges = 3;
    src.formats = DP_FMT_CSC;
    src.has_csc = 1;
    src.fill = nd_fill;
    CHECK_EQ(dp_graph_write_src(tmp("nd.dgl"), &src), 0);
    CHECK(stat(tmp("nd.dgl"), &st) == 0);
    with = st.st_size;
    src.csc_no_data = 1;
    CHECK_EQ(dp_graph_write_src(tmp("nd.dgl"), &src), 0);
    CHECK(stat(tmp("nd.dgl"), &st) == 0);
    CHECK_EQ((int64_t)(with - st.st_size), 3 * 8);
    CHECK_EQ(dp_graph_load(&g, tmp("nd.dgl")), 0);
    CHECK_EQ(g.num_edges, 3);
    CHECK(g.csc_data.data == NULL && g.csc_data.nbytes == 0);
    CHECK_EQ(g.csc_data.ndim, 1);
    CHECK_EQ(g.csc_data.shape[0], 0);
    CHECK_EQ(dp_ndarray_get_i64(&g.csc_indices, 2), 1);
    dp_graph_release(&g);
}

/* Sizes read from the file never overflow: a CSR whose row count is
 * INT64_MAX (its indptr would have n + 1 entries), and a shape whose zero
 * dimension hides a product of the others past 2^63 (verify multiplies a
 * row's dimensions, the server its bytes). */
static void test_size_overflow(void)
{
    static const uint64_t csr = 0xDD6CD31205DFF127ULL;
    int64_t src[2] = { 0, 1 }, dst[2] = { 1, 0 }, nid[2] = { 0, 1 };
    int64_t eid[2] = { 0, 1 }, shape[3] = { 0, INT64_C(1) << 62, 4 };
    uint8_t in[2] = { 1, 1 };
    struct dp_graph_part w = { 2,    2,   src, dst,        nid,  in,
                               NULL, eid, in,  DP_FMT_CSR, NULL, NULL };
    struct dp_tensor_writer tw;
    struct dp_graph_file g;
    struct dp_tensors t;
    char *data = NULL;
    size_t len = 0, at, patched = 0;

    CHECK_EQ(dp_graph_write(tmp("rows.dgl"), &w), 0);
    CHECK_EQ(read_all(tmp("rows.dgl"), &data, &len), 0);
    /* the unit graph's CSR header (magic, columns, rows), not the
     * metagraph's (magic, 1, 1) */
    for (at = GRAPH_HEADER_LEN; data && at + 24 <= len; at++) {
        uint64_t v[3], big = INT64_MAX;

        memcpy(v, data + at, 24);
        if (v[0] == csr && v[1] == 2 && v[2] == 2) {
            memcpy(data + at + 8, &big, 8);
            memcpy(data + at + 16, &big, 8);
            patched++;
        }
    }
    CHECK_EQ(patched, 1);
    CHECK_EQ(dp_write_file(tmp("rows.dgl"), data, len), 0);
    CHECK_EQ(dp_graph_load(&g, tmp("rows.dgl")), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "CSR has 3 indptr and 2 indices entries, "
                                "expected 9223372036854775808 and 2");
    free(data);

    CHECK_EQ(dp_tensor_writer_open(&tw, tmp("zero.dgl"), 1), 0);
    CHECK_EQ(dp_tensor_writer_add(&tw, "_N/feat", DP_F32, 3, shape, NULL), 0);
    CHECK_EQ(dp_tensor_writer_commit(&tw), 0);
    CHECK_EQ(dp_tensors_load(&t, tmp("zero.dgl")), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "tensor 0 shape overflows");
}

/* Every truncation of a real graph.dgl and tensors file fails cleanly. */
static void test_truncated(void)
{
    static const char *const files[] = {
        "metis4-train-edges/part1/graph.dgl",
        "metis4-train-edges/part1/edge_feat.dgl"
    };
    size_t f;

    for (f = 0; f < 2; f++) {
        char *data = NULL;
        size_t len = 0, cut, step;
        int fails = 0, tries = 0;

        CHECK_EQ(read_all(fix(".", files[f]), &data, &len), 0);
        if (!data)
            continue;
        step = len / 400 + 1;
        for (cut = 0; cut < len; cut += (cut < 5000 ? 7 : step)) {
            struct dp_graph_file g;
            struct dp_tensors t;
            int rc;

            CHECK_EQ(dp_write_file(tmp("cut.dgl"), data, cut), 0);
            rc = f == 0 ? dp_graph_load(&g, tmp("cut.dgl"))
                        : dp_tensors_load(&t, tmp("cut.dgl"));
            tries++;
            if (rc == DP_EFORMAT)
                fails++;
            else
                TH_FAIL("cut at %zu: rc %d %s", cut, rc, dp_errmsg());
        }
        CHECK_EQ(fails, tries);
        /* the message says where */
        if (f == 0) {
            struct dp_graph_file g;

            CHECK_EQ(dp_write_file(tmp("cut.dgl"), data, 5000), 0);

            CHECK_EQ(dp_graph_load(&g, tmp("cut.dgl")), DP_EFORMAT);
            CHECK_CONTAINS(dp_errmsg(), "is truncated");
        }
        free(data);
    }
}

/* Garbage in sizes and magics: errors, never crashes (ASan build). */
static void test_garbage(void)
{
    char *data = NULL;
    size_t len = 0;
    unsigned seed = 12345;
    int i, ok = 0;

    CHECK_EQ(
        read_all(fix("metis4-train-edges", "part1/graph.dgl"), &data, &len), 0);
    if (!data)
        return;
    for (i = 0; i < 300; i++) {
        char *copy = malloc(len);
        struct dp_graph_file g;
        int j;

        memcpy(copy, data, len);
        for (j = 0; j < 4; j++) {
            size_t at;

            seed = seed * 1103515245u + 12345u;
            at = 4096 + (seed >> 4) % (len - 4096);
            seed = seed * 1103515245u + 12345u;
            copy[at] = (char)(seed >> 16);
        }
        CHECK_EQ(dp_write_file(tmp("junk.dgl"), copy, len), 0);
        if (dp_graph_load(&g, tmp("junk.dgl")) == 0) {
            ok++;
            dp_graph_release(&g);
        }
        free(copy);
    }
    CHECK(ok < 300);
    free(data);
    /* not a DGL file at all */
    CHECK_EQ(dp_write_file(tmp("junk.dgl"), "hello", 5), 0);
    {
        struct dp_graph_file g;
        struct dp_tensors t;

        CHECK_EQ(dp_graph_load(&g, tmp("junk.dgl")), DP_EFORMAT);
        CHECK_EQ(dp_tensors_load(&t, tmp("junk.dgl")), DP_EFORMAT);
        CHECK_EQ(dp_graph_load(&g, tmp("missing.dgl")), DP_ENOENT);
    }
}

int main(void)
{
    const char *shared = getenv("DGLPART_SHARED");

    snprintf(fixtures, sizeof(fixtures), "%s/fixtures/dgl-cora",
             shared ? shared : "../shared");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_fixture_facts);
    RUN(test_graph_roundtrip);
    RUN(test_config_roundtrip);
    RUN(test_config_legacy_and_errors);
    RUN(test_config_unsupported);
    RUN(test_config_typed);
    RUN(test_config_write_escapes);
    RUN(test_tensors_stream);
    RUN(test_graph_formats);
    RUN(test_csc_no_data);
    RUN(test_size_overflow);
    RUN(test_truncated);
    RUN(test_garbage);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
