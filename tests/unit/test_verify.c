/* Unit tests for partition/verify.c: DGL's dgl-cora partitions pass, with
 * stats checked against an independent count; rewritten copies with one
 * defect each (halo edge dropped, wrong hop count, flags, part_id, orig
 * ids) fail with a line naming the file. */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/verify.h"
#include "harness.h"

static char tmpdir[] = "/tmp/dglpart-verify.XXXXXX";
static char fixtures[PATH_MAX];
static char errbuf[1 << 16];

static char *fix(const char *c, const char *rel)
{
    static char buf[4][PATH_MAX + 200];
    static int k;
    char *p = buf[k++ % 4];

    snprintf(p, sizeof(buf[0]), "%s/%s/%s", fixtures, c, rel);
    return p;
}

/* Run verify with problem lines captured in errbuf. */
static int verify(const char *config, struct dp_verify_stats *s)
{
    struct dp_verify_opts o = { config, NULL, NULL, 1000, NULL, NULL };
    FILE *err = fmemopen(errbuf, sizeof(errbuf) - 1, "w");
    int rc;

    memset(errbuf, 0, sizeof(errbuf));
    o.err = err;
    rc = dp_verify(&o, s);
    fclose(err);
    return rc;
}

/* Edge cut counted from the input arrays, DGL's orig ids and node_map. */
static int64_t cut_from_input(const char *c, const struct dp_part_config *cfg)
{
    struct dp_npy src, dst, onid;
    int64_t *owner_of = NULL, cut = -1, k;
    int p;

    if (dp_npy_open(&src, fix("input", "src.npy")) ||
        dp_npy_open(&dst, fix("input", "dst.npy")) ||
        dp_npy_open(&onid, fix(c, "orig_nids.npy")))
        return -1;
    owner_of = calloc((size_t)cfg->num_nodes, 8);
    if (owner_of) {
        for (p = 0; p < cfg->num_parts; p++)
            for (k = cfg->node_map[p][0]; k < cfg->node_map[p][1]; k++)
                owner_of[dp_npy_get_i64(&onid, (uint64_t)k)] = p;
        cut = 0;
        for (k = 0; k < (int64_t)src.h.count; k++)
            cut += owner_of[dp_npy_get_i64(&src, (uint64_t)k)] !=
                   owner_of[dp_npy_get_i64(&dst, (uint64_t)k)];
    }
    free(owner_of);
    dp_npy_release(&src);
    dp_npy_release(&dst);
    dp_npy_release(&onid);
    return cut;
}

static void test_dgl_fixtures_pass(void)
{
    static const char *const cases[] = { "one-part", "metis2-hops2",
                                         "metis4-train-edges" };
    int c;

    for (c = 0; c < 3; c++) {
        struct dp_verify_stats s;
        struct dp_part_config cfg;
        int i;

        CHECK_EQ(verify(fix(cases[c], "cora.json"), &s), 0);
        CHECK_STR(errbuf, "");
        CHECK_EQ(s.problems, 0);
        CHECK_EQ(s.orig_ids, 1);
        if (dp_config_load(&cfg, fix(cases[c], "cora.json")) == 0) {
            CHECK_EQ(s.num_parts, cfg.num_parts);
            for (i = 0; s.parts && i < cfg.num_parts; i++) {
                CHECK_EQ(s.parts[i].inner_nodes,
                         cfg.node_map[i][1] - cfg.node_map[i][0]);
                CHECK_EQ(s.parts[i].inner_edges,
                         cfg.edge_map[i][1] - cfg.edge_map[i][0]);
            }
            CHECK_EQ(s.edge_cut, cut_from_input(cases[c], &cfg));
            dp_config_release(&cfg);
        }
        if (c == 0) {
            CHECK_EQ(s.edge_cut, 0);
            CHECK_EQ(s.parts[0].halo_nodes, 0);
            CHECK_EQ(s.parts[0].train_nodes, 140);
        }
        if (c == 2)
            CHECK(s.node_balance > 1.2 && s.node_balance < 1.21);
        dp_verify_stats_release(&s);
    }
}

/* What a test changes in a rewritten copy. */
struct damage {
    int halo_hops;       /* -1 keeps the fixture's */
    int formats;         /* graph formats to write */
    int drop_last_edge;  /* part 0 loses its last (halo) edge */
    int flip_inner_edge; /* part 0 edge 0 flagged as halo */
    int bad_part_id;     /* part 1's last node claims part 1 */
    int part_orig_ids;   /* 1 per-part orig ids, 2 with a wrong key, 3
                            node ids only (no orig_eids.dgl) */
    int64_t bad_nid;     /* part 1's first and last node get this _ID */
    int bend_halo_edge;  /* part 0's last (halo) edge gets another source */
};

/* Copy a fixture into dir: config rewritten, graphs rewritten from their
 * loaded arrays with the damage applied, features linked. */
static int make_copy(const char *c, const char *dir, const struct damage *d)
{
    struct dp_part_config cfg;
    struct dp_npy onid, oeid;
    char path[PATH_MAX + 200];
    int i, rc;

    if ((rc = dp_config_load(&cfg, fix(c, "cora.json"))) != 0)
        return rc;
    if (d->halo_hops >= 0)
        cfg.halo_hops = d->halo_hops;
    snprintf(path, sizeof(path), "%s/cora.json", dir);
    if ((rc = dp_mkdir_p(dir, 0755)) || (rc = dp_config_write(path, &cfg)) ||
        (rc = dp_npy_open(&onid, fix(c, "orig_nids.npy"))))
        goto out;
    if ((rc = dp_npy_open(&oeid, fix(c, "orig_eids.npy")))) {
        dp_npy_release(&onid);
        goto out;
    }
    for (i = 0; !rc && i < cfg.num_parts; i++) {
        struct dp_graph_file g;
        struct dp_graph_part w = { 0 };
        int64_t *src, *dst, *nid, *eid, *pid = NULL, n0, n1;
        uint8_t *in_n, *in_e;
        const struct dp_ndarray *a;
        char rel[64];

        snprintf(path, sizeof(path), "%s/part%d", dir, i);
        dp_mkdir_p(path, 0755);
        snprintf(rel, sizeof(rel), "part%d/node_feat.dgl", i);
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        if (symlink(fix(c, rel), path) != 0)
            rc = DP_EIO;
        snprintf(rel, sizeof(rel), "part%d/edge_feat.dgl", i);
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        if (symlink(fix(c, rel), path) != 0)
            rc = DP_EIO;
        snprintf(rel, sizeof(rel), "part%d/graph.dgl", i);
        if (rc || (rc = dp_graph_load(&g, fix(c, rel))) != 0)
            break;
        w.num_nodes = g.num_nodes;
        w.num_edges = g.num_edges;
        w.src = src = dp_ndarray_i64(&g.coo_row);
        w.dst = dst = dp_ndarray_i64(&g.coo_col);
        w.nid = nid = dp_ndarray_i64(dp_graph_ndata(&g, "_ID"));
        w.eid = eid = dp_ndarray_i64(dp_graph_edata(&g, "_ID"));
        a = dp_graph_ndata(&g, "inner_node");
        in_n = malloc(a->nbytes);
        memcpy(in_n, a->data, a->nbytes);
        a = dp_graph_edata(&g, "inner_edge");
        in_e = malloc(a->nbytes + 1);
        memcpy(in_e, a->data, a->nbytes);
        w.inner_node = in_n;
        w.inner_edge = in_e;
        if ((a = dp_graph_ndata(&g, "part_id")) != NULL)
            w.part_id = pid = dp_ndarray_i64(a);
        w.formats = d->formats;
        if (i == 0 && d->drop_last_edge)
            w.num_edges--;
        if (i == 0 && d->flip_inner_edge)
            in_e[0] = 0;
        if (i == 0 && d->bend_halo_edge)
            src[w.num_edges - 1] = src[w.num_edges - 1] ? 0 : 1;
        if (i == 1 && d->bad_part_id && pid)
            pid[w.num_nodes - 1] = 1;
        if (i == 1 && d->bad_nid)
            nid[0] = nid[w.num_nodes - 1] = d->bad_nid;
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        rc = dp_graph_write(path, &w);
        n0 = cfg.node_map[i][0];
        n1 = cfg.node_map[i][1];
        if (!rc && d->part_orig_ids) {
            snprintf(path, sizeof(path), "%s/part%d/orig_nids.dgl", dir, i);
            rc = dp_orig_ids_write(path, DP_ORIG_NIDS_KEY,
                                   (const int64_t *)onid.data + n0, n1 - n0);
            snprintf(path, sizeof(path), "%s/part%d/orig_eids.dgl", dir, i);
            if (!rc && d->part_orig_ids != 3)
                rc = dp_orig_ids_write(
                    path,
                    d->part_orig_ids == 2 && i == 1 ? "_E" : DP_ORIG_EIDS_KEY,
                    (const int64_t *)oeid.data + cfg.edge_map[i][0],
                    cfg.edge_map[i][1] - cfg.edge_map[i][0]);
        }
        free(src);
        free(dst);
        free(nid);
        free(eid);
        free(pid);
        free(in_n);
        free(in_e);
        dp_graph_release(&g);
    }
    dp_npy_release(&onid);
    dp_npy_release(&oeid);
out:
    dp_config_release(&cfg);
    return rc;
}

static const char *copy_dir(const char *name)
{
    static char buf[PATH_MAX];

    snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
    return buf;
}

static int verify_copy(const char *name, struct dp_verify_stats *s)
{
    char cfg[PATH_MAX + 20];

    snprintf(cfg, sizeof(cfg), "%s/cora.json", copy_dir(name));
    return verify(cfg, s);
}

static void test_rewritten_copies_pass(void)
{
    struct damage d = { -1, 0, 0, 0, 0, 0, 0, 0 };
    struct dp_verify_stats s;

    /* our writer's COO, CSC only, and all three formats */
    CHECK_EQ(make_copy("metis2-hops2", copy_dir("coo"), &d), 0);
    CHECK_EQ(verify_copy("coo", &s), 0);
    CHECK_STR(errbuf, "");
    CHECK_EQ(s.orig_ids, 0); /* none copied */
    dp_verify_stats_release(&s);
    d.formats = DP_FMT_CSC;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("csc"), &d), 0);
    CHECK_EQ(verify_copy("csc", &s), 0);
    CHECK_STR(errbuf, "");
    dp_verify_stats_release(&s);
    d.formats = DP_FMT_COO | DP_FMT_CSR | DP_FMT_CSC;
    d.part_orig_ids = 1;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("all"), &d), 0);
    CHECK_EQ(verify_copy("all", &s), 0);
    CHECK_STR(errbuf, "");
    CHECK_EQ(s.orig_ids, 2); /* ours: per part */
    CHECK_EQ(s.no_orig_eids, 0);
    dp_verify_stats_release(&s);
    d.part_orig_ids = 3; /* partition --no_orig_eids */
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("nids"), &d), 0);
    CHECK_EQ(verify_copy("nids", &s), 0);
    CHECK_STR(errbuf, "");
    CHECK_EQ(s.orig_ids, 2);
    CHECK_EQ(s.no_orig_eids, 1);
    dp_verify_stats_release(&s);
}

static void test_halo_damage(void)
{
    struct damage d = { -1, 0, 1, 0, 0, 0, 0, 0 };
    struct dp_verify_stats s;

    CHECK_EQ(make_copy("metis2-hops2", copy_dir("drop"), &d), 0);
    CHECK_EQ(verify_copy("drop", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "part0/graph.dgl: edge _ID ");
    CHECK_CONTAINS(errbuf, "belongs to the 2-hop halo but is missing");
    dp_verify_stats_release(&s);

    /* the same files claimed to be 1-hop: the second level is extra */
    d.drop_last_edge = 0;
    d.halo_hops = 1;
    CHECK_EQ(make_copy("metis2-hops2", copy_dir("hops1"), &d), 0);
    CHECK_EQ(verify_copy("hops1", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "is not within 1 hops of the part");
    CHECK_CONTAINS(errbuf, "is not in the 1-hop halo");
    CHECK_EQ(s.halo_hops, 1);
    dp_verify_stats_release(&s);

    /* 1-hop files claimed to be 2-hop: the second level is missing */
    d.halo_hops = 2;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("hops2"), &d), 0);
    CHECK_EQ(verify_copy("hops2", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "is within 2 hops but missing");
    dp_verify_stats_release(&s);

    /* a halo copy joining other nodes than its original: the copy sums
     * of its edge_map part disagree, and the lookup names it */
    d.halo_hops = -1;
    d.bend_halo_edge = 1;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("bend"), &d), 0);
    CHECK_EQ(verify_copy("bend", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf,
                   "part0/graph.dgl: halo edge 1741 (_ID 5389) joins 0 -> ");
    CHECK_CONTAINS(errbuf, ", part 3 has it as 301 -> ");
    dp_verify_stats_release(&s);
}

static void test_flag_and_id_damage(void)
{
    struct damage d = { -1, 0, 0, 1, 0, 0, 0, 0 };
    struct dp_verify_stats s;

    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("flag"), &d), 0);
    CHECK_EQ(verify_copy("flag", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "part0/graph.dgl: edge 0 is not inner");
    CHECK_CONTAINS(errbuf, "edge 0 has inner_edge 0 but its destination");
    dp_verify_stats_release(&s);

    d.flip_inner_edge = 0;
    d.bad_part_id = 1;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("pid"), &d), 0);
    CHECK_EQ(verify_copy("pid", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "part1/graph.dgl: local node 442 (_ID ");
    CHECK_CONTAINS(errbuf, ") has part_id 1, node_map says ");
    CHECK_EQ(s.problems, 1);
    CHECK_CONTAINS(dp_errmsg(), "1 problem found");
    dp_verify_stats_release(&s);

    d.bad_part_id = 0;
    d.part_orig_ids = 2;
    CHECK_EQ(make_copy("metis4-train-edges", copy_dir("key"), &d), 0);
    CHECK_EQ(verify_copy("key", &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "part1/orig_eids.dgl: expected an entry "
                           "'_N:_E:_N' of 717 integer ids");
    dp_verify_stats_release(&s);
}

/* _IDs outside the graph are reported, never used as indexes */
static void test_bad_ids(void)
{
    static const int64_t bad[] = { 2708, -3, INT64_MAX };
    struct damage d = { -1, 0, 0, 0, 0, 0, 0, 0 };
    struct dp_verify_stats s;
    size_t k;

    for (k = 0; k < 3; k++) {
        char name[32];

        d.bad_nid = bad[k];
        snprintf(name, sizeof(name), "badnid%zu", k);
        CHECK_EQ(make_copy("metis4-train-edges", copy_dir(name), &d), 0);
        CHECK_EQ(verify_copy(name, &s), DP_EFORMAT);
        CHECK_CONTAINS(errbuf, "part1/graph.dgl: local node 0 has _ID ");
        CHECK_CONTAINS(errbuf, ", outside [0, 2708) (and 1 more like it)");
        dp_verify_stats_release(&s);
    }
}

static void test_unreadable_config(void)
{
    struct dp_verify_stats s;
    char path[PATH_MAX + 20];

    snprintf(path, sizeof(path), "%s/nope.json", tmpdir);
    CHECK_EQ(verify(path, &s), DP_EFORMAT);
    CHECK_CONTAINS(errbuf, "cannot open");
    CHECK(s.parts == NULL);
    dp_verify_stats_release(&s);
}

int main(void)
{
    const char *shared = getenv("DGLPART_SHARED");
    char rel[PATH_MAX];

    snprintf(rel, sizeof(rel), "%s/fixtures/dgl-cora",
             shared ? shared : "../shared");
    /* absolute, because the copies link to it */
    if (!realpath(rel, fixtures) || !mkdtemp(tmpdir)) {
        perror(rel);
        return 1;
    }
    dp_set_progname("verify");
    RUN(test_dgl_fixtures_pass);
    RUN(test_rewritten_copies_pass);
    RUN(test_halo_damage);
    RUN(test_flag_and_id_damage);
    RUN(test_bad_ids);
    RUN(test_unreadable_config);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
