/* Unit tests of the convert stage: line splitting across blocks and gzip
 * members, the edge-list and METIS parsers, the edge store, and the CSC
 * with --undirected, --dedup and --no_self_loops checked entry by entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../convert/cv.h"
#include "dglpart/convert.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "harness.h"

static char tmpdir[256];

static char *tpath(const char *name)
{
    static char buf[4][512];
    static int i;

    i = (i + 1) % 4;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
    return buf[i];
}

static void write_text(const char *path, const char *s)
{
    FILE *fp = fopen(path, "wb");

    fputs(s, fp);
    fclose(fp);
}

static void init_graph(struct cv_graph *g, struct dp_convert_opts *o)
{
    memset(g, 0, sizeof(*g));
    dp_convert_opts_init(o);
    g->o = o;
    g->num_nodes = -1;
    g->edges.max_id = -1;
    g->dir = tmpdir;
    snprintf(g->nodes_from, sizeof(g->nodes_from), "test");
}

static void test_lines(void)
{
    static const char text[] = "a b\r\n\n  c\r\nlast";
    struct cv_src s;
    char *line;
    size_t len;

    CHECK_EQ(cv_src_open_mem(&s, text, sizeof(text) - 1, "mem"), 0);
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_STR(line, "a b");
    CHECK_EQ(len, 3);
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_STR(line, "");
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_STR(line, "  c");
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_STR(line, "last");
    CHECK_EQ(s.line, 4);
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK(line == NULL);
    cv_src_close(&s, NULL, NULL);
}

/* A line longer than a block is carried across blocks intact. */
static void test_long_line(void)
{
    size_t n = CV_BLOCK + CV_BLOCK / 2, i;
    char *text = malloc(n + 16), *line;
    struct cv_src s;
    size_t len;

    for (i = 0; i < n; i++)
        text[i] = (char)('a' + i % 26);
    memcpy(text + n, "\r\n1 2\n", 6);
    CHECK_EQ(cv_src_open_mem(&s, text, n + 6, "mem"), 0);
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_EQ(len, n);
    CHECK(line && line[n - 1] == text[n - 1] && line[n] == '\0');
    CHECK_EQ(cv_src_line(&s, &line, &len), 0);
    CHECK_STR(line, "1 2");
    cv_src_close(&s, NULL, NULL);
    free(text);
}

/* Two gzip members (gzip -c a b), read by the producer thread, with the
 * sha256 of the raw file; then the same file cut short. */
static void test_gzip_members(void)
{
    const char *p = tpath("two.gz");
    struct cv_graph g;
    struct dp_convert_opts o;
    struct cv_src s;
    char sha[65], want[65], *line;
    uint64_t size, k;
    size_t len;
    gzFile z;
    int i, rc;
    FILE *fp;
    long full;

    fp = fopen(p, "wb");
    for (i = 0; i < 2; i++) {
        char part[64];

        snprintf(part, sizeof(part), "%s.part", p);
        z = gzopen(part, "wb");
        for (k = 0; k < 300000; k++)
            gzprintf(z, "%d %d\n", (int)(k % 1000) + i, (int)k % 77);
        gzclose(z);
        {
            FILE *in = fopen(part, "rb");
            char buf[65536];
            size_t n;

            while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
                fwrite(buf, 1, n, fp);
            fclose(in);
        }
        unlink(part);
    }
    full = ftell(fp);
    fclose(fp);
    init_graph(&g, &o);
    CHECK_EQ(cv_src_open_file(&s, p, 1), 0);
    CHECK_EQ(cv_parse_edgelist(&g, &s), 0);
    cv_src_close(&s, sha, &size);
    CHECK_EQ(g.edges.n, 600000);
    CHECK_EQ(g.edges.max_id, 1000);
    CHECK_EQ(cv_edges_src(&g.edges, 300000), 1);
    CHECK_EQ(size, full);
    dp_sha256_file(p, want, NULL);
    CHECK_STR(sha, want);
    cv_edges_release(&g.edges);

    CHECK_EQ(truncate(p, full - 10), 0);
    CHECK_EQ(cv_src_open_file(&s, p, 0), 0);
    do
        rc = cv_src_line(&s, &line, &len);
    while (!rc && line);
    CHECK_EQ(rc, DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "truncated gzip data at byte offset");
    cv_src_close(&s, NULL, NULL);
}

static int parse_edges(const char *text, struct cv_graph *g,
                       struct dp_convert_opts *o)
{
    struct cv_src s;
    int rc;

    init_graph(g, o);
    if ((rc = cv_src_open_mem(&s, text, strlen(text), "t.txt")))
        return rc;
    rc = cv_parse_edgelist(g, &s);
    cv_src_close(&s, NULL, NULL);
    return rc;
}

static void test_edgelist(void)
{
    struct cv_graph g;
    struct dp_convert_opts o;

    CHECK_EQ(parse_edges("# c\n% c\n1\t2\n3,4\r\n 5  6 \n\n7 8 9\n", &g, &o),
             0);
    CHECK_EQ(g.edges.n, 4);
    CHECK_EQ(cv_edges_src(&g.edges, 1), 3);
    CHECK_EQ(cv_edges_dst(&g.edges, 2), 6);
    CHECK_EQ(cv_edges_dst(&g.edges, 3), 8);
    CHECK_EQ(g.edges.max_id, 8);
    cv_edges_release(&g.edges);

    CHECK_EQ(parse_edges("1 2\n3 x4\n", &g, &o), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "'t.txt' line 2: column 2: expected a node id");
    cv_edges_release(&g.edges);
    CHECK_EQ(parse_edges("1 2\n3\n", &g, &o), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "line 2: expected 2 columns");
    cv_edges_release(&g.edges);
    CHECK_EQ(parse_edges("-1 2\n", &g, &o), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "line 1: column 1: expected a non-negative");
    cv_edges_release(&g.edges);
    CHECK_EQ(parse_edges("99999999999999999999 1\n", &g, &o), DP_ERANGE);
    CHECK_CONTAINS(dp_errmsg(), "too large");
    cv_edges_release(&g.edges);
}

/* Ids past 2^32 switch the store to 64-bit without losing earlier edges. */
static void test_widen(void)
{
    struct cv_graph g;
    struct dp_convert_opts o;

    CHECK_EQ(parse_edges("1 2\n4294967295 3\n5 4294967296\n", &g, &o), 0);
    CHECK_EQ(g.edges.wide, 1);
    CHECK_EQ(cv_edges_src(&g.edges, 0), 1);
    CHECK_EQ(cv_edges_src(&g.edges, 1), 4294967295LL);
    CHECK_EQ(cv_edges_dst(&g.edges, 2), 4294967296LL);
    cv_edges_release(&g.edges);
}

/* Edges that pass the spill point move to scratch files mid-read, grow,
 * widen to 64-bit ids there, and read back as pushed. */
static void test_spilled_edges(void)
{
    struct cv_edges e;
    uint64_t k, n = 300000, bad = 0;

    memset(&e, 0, sizeof(e));
    e.max_id = -1;
    e.spill_dir = tmpdir;
    e.spill_at = 64 << 10; /* past 8192 edges of two u32 arrays */
    for (k = 0; k < n; k++)
        CHECK_EQ(cv_edges_push(&e, (int64_t)(k * 7 % 1000003), (int64_t)k, k),
                 0);
    CHECK_EQ(e.spilled, 1);
    CHECK_EQ(e.wide, 0);
    CHECK_EQ(cv_edges_push(&e, (int64_t)1 << 33, 5, n), 0);
    CHECK_EQ(e.wide, 1);
    for (k = 0; k < n; k++)
        bad += cv_edges_src(&e, k) != (int64_t)(k * 7 % 1000003) ||
               cv_edges_dst(&e, k) != (int64_t)k;
    CHECK_EQ(bad, 0);
    CHECK_EQ(cv_edges_src(&e, n), (int64_t)1 << 33);
    CHECK_EQ(cv_edges_dst(&e, n), 5);
    CHECK_EQ(e.max_id, (int64_t)1 << 33);
    cv_edges_release(&e);
    CHECK_EQ(e.spilled, 0);
    /* an unusable folder is an error, not a crash */
    memset(&e, 0, sizeof(e));
    e.spill_dir = "/nonexistent/dir";
    e.spill_at = 1;
    CHECK(cv_edges_push(&e, 1, 2, 1) != 0);
    CHECK_CONTAINS(dp_errmsg(), "scratch file for the edges");
    cv_edges_release(&e);
}

static void test_metis(void)
{
    /* fmt 11: vertex weight, then (neighbour, edge weight) pairs. */
    static const char text[] = "% comment\n3 2 11\n5 2 7\n6 1 7 3 8\n"
                               "% inside\n7 2 8\n\n";
    struct cv_graph g;
    struct dp_convert_opts o;
    struct cv_src s;

    init_graph(&g, &o);
    CHECK_EQ(cv_src_open_mem(&s, text, sizeof(text) - 1, "t.graph"), 0);
    CHECK_EQ(cv_parse_metis(&g, &s), 0);
    cv_src_close(&s, NULL, NULL);
    CHECK_EQ(g.num_nodes, 3);
    CHECK_EQ(g.edges.n, 4);
    CHECK_EQ(g.meta.ncon, 1);
    /* Entry 2 on vertex 1's line is the edge 1 -> 0 (0-based). */
    CHECK_EQ(cv_edges_src(&g.edges, 0), 1);
    CHECK_EQ(cv_edges_dst(&g.edges, 0), 0);
    CHECK_EQ(cv_edges_src(&g.edges, 2), 2);
    CHECK_EQ(cv_edges_dst(&g.edges, 2), 1);
    CHECK_EQ(g.edges.weight[2], 8);
    cv_edges_release(&g.edges);

    init_graph(&g, &o);
    CHECK_EQ(cv_src_open_mem(&s, "2 1\n2\n", 6, "short.graph"), 0);
    CHECK_EQ(cv_parse_metis(&g, &s), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(),
                   "'short.graph' line 3: expected 2 vertex lines");
    cv_src_close(&s, NULL, NULL);
    cv_edges_release(&g.edges);
}

/* Convert a small edge list and compare every CSC entry. */
static void convert_and_check(const char *flags, int64_t n, const int64_t *ip,
                              const int64_t *ix, const int64_t *eid, int64_t e)
{
    struct dp_convert_opts o;
    struct dp_dataset d;
    int64_t i;

    dp_convert_opts_init(&o);
    o.input = tpath("g.txt");
    o.out = tpath("out");
    o.overwrite = 1;
    o.undirected = strchr(flags, 'u') != NULL;
    o.dedup = strchr(flags, 'd') != NULL;
    o.no_self_loops = strchr(flags, 'l') != NULL;
    CHECK_EQ(dp_convert(&o), 0);
    if (dp_dataset_open(&d, o.out)) {
        TH_FAIL("dp_dataset_open: %s", dp_errmsg());
        return;
    }
    CHECK_EQ(d.meta.num_nodes, n);
    CHECK_EQ(d.meta.num_edges, e);
    CHECK_EQ(d.meta.directed, !o.undirected);
    for (i = 0; i <= n && d.meta.num_nodes == n; i++)
        CHECK_EQ(dp_dataset_indptr(&d)[i], ip[i]);
    for (i = 0; i < e && d.meta.num_edges == e; i++) {
        CHECK_EQ(dp_dataset_src(&d, i), ix[i]);
        CHECK_EQ(dp_dataset_eid(&d, i), eid[i]);
    }
    dp_dataset_release(&d);
}

static void test_csc(void)
{
    /* Edges: 0:1->0 1:2->0 2:1->1 3:1->0 4:0->2 */
    write_text(tpath("g.txt"), "1 0\n2 0\n1 1\n1 0\n0 2\n");
    {
        const int64_t ip[] = { 0, 3, 4, 5 }, ix[] = { 1, 2, 1, 1, 0 };
        const int64_t eid[] = { 0, 1, 3, 2, 4 };

        convert_and_check("", 3, ip, ix, eid, 5);
    }
    {
        /* Without the self-loop (edge 2) and the repeat (edge 3), edges are
         * renumbered 0:1->0 1:2->0 2:0->2. */
        const int64_t ip[] = { 0, 2, 2, 3 }, ix[] = { 1, 2, 0 };
        const int64_t eid[] = { 0, 1, 2 };

        convert_and_check("dl", 3, ip, ix, eid, 3);
    }
    {
        /* Undirected: edge 2k = line k, 2k+1 its reverse. */
        const int64_t ip[] = { 0, 4, 8, 10 };
        const int64_t ix[] = { 1, 2, 1, 2, 0, 1, 1, 0, 0, 0 };
        const int64_t eid[] = { 0, 2, 6, 9, 1, 4, 5, 7, 3, 8 };

        convert_and_check("u", 3, ip, ix, eid, 10);
    }
    {
        /* Undirected + dedup: 0<-1 (eid 0), 0<-2 (2), 0<-2 (9 drop),
         * 1<-0 (1), 1<-1 (4), 1<-1 (5 drop), 1<-0 (7 drop), 2<-0 (3),
         * 0<-1 (6 drop), 2<-0 (8 drop). Kept old ids 0 1 2 3 4 -> same. */
        const int64_t ip[] = { 0, 2, 4, 5 }, ix[] = { 1, 2, 0, 1, 0 };
        const int64_t eid[] = { 0, 2, 1, 4, 3 };

        convert_and_check("ud", 3, ip, ix, eid, 5);
    }
}

/* Failing conversions leave neither OUT nor OUT.tmp. */
static void test_no_output_on_error(void)
{
    struct dp_convert_opts o;

    write_text(tpath("bad.txt"), "1 2\n3 4\nfive 6\n");
    dp_convert_opts_init(&o);
    o.input = tpath("bad.txt");
    o.out = tpath("bad-out");
    CHECK_EQ(dp_convert(&o), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(),
                   "bad.txt' line 3: column 1: expected a node id");
    CHECK(!dp_exists(tpath("bad-out")));
    CHECK(!dp_exists(tpath("bad-out.tmp")));
    o.input = tpath("nothing-here");
    CHECK_EQ(dp_convert(&o), DP_ENOENT);
    o.input = tpath("bad.txt");
    o.format = "parquet";
    CHECK_EQ(dp_convert(&o), DP_EINVAL);
}

/* meta.json's input sizes out of uint64's range are left unknown (0):
 * converting a negative or huge double to uint64 is undefined. */
static void test_meta_sizes(void)
{
    struct dp_dataset_meta m;

    write_text(tpath("meta.json"),
               "{\"format\": \"" DP_DATASET_FORMAT "\", \"version\": 1, "
               "\"num_nodes\": 2, \"num_edges\": 1, \"feat_dim\": 0, "
               "\"num_classes\": 0, \"node_weights\": 0, \"inputs\": ["
               "{\"path\": \"a\", \"size\": -1, \"sha256\": \"\"}, "
               "{\"path\": \"b\", \"size\": 1e30, \"sha256\": \"\"}, "
               "{\"path\": \"c\", \"size\": 12345, \"sha256\": \"\"}]}");
    CHECK_EQ(dp_dataset_read_meta(tmpdir, &m), 0);
    CHECK_EQ(m.ninputs, 3);
    if (m.ninputs == 3) {
        CHECK_EQ(m.inputs[0].size, 0);
        CHECK_EQ(m.inputs[1].size, 0);
        CHECK_EQ(m.inputs[2].size, 12345);
    }
    dp_dataset_meta_release(&m);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "%s/dglpart-unit-convert.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_lines);
    RUN(test_long_line);
    RUN(test_gzip_members);
    RUN(test_edgelist);
    RUN(test_widen);
    RUN(test_spilled_edges);
    RUN(test_metis);
    RUN(test_csc);
    RUN(test_no_output_on_error);
    RUN(test_meta_sizes);
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
