/* Unit tests of the convert stage: line splitting across blocks and gzip
 * members, the edge-list and METIS parsers, the edge store, and the CSC
 * with --undirected, --dedup and --no_self_loops checked entry by entry. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../convert/cv.h"
#include "dglpart/convert.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
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

/* Lines with 40 bytes after them take the SWAR path: ids of every length
 * it reads (1-15 digits, 8 and 16 on a load's edge), CRLF, each separator,
 * and the longer ids and bad tokens it leaves to the general path. */
static void test_edgelist_swar(void)
{
    static const int64_t ids[] = { 0,
                                   7,
                                   42,
                                   12345678,
                                   123456789,
                                   99999999,
                                   100000000,
                                   1234567890123,
                                   999999999999999,
                                   1000000000000000,
                                   4611686018427387903 };
    char text[4096], *p = text;
    struct cv_graph g;
    struct dp_convert_opts o;
    size_t i, n = sizeof(ids) / sizeof(ids[0]);

    for (i = 0; i < n; i++)
        p += sprintf(p, "%" PRId64 "%c%" PRId64 "%s", ids[i], ",\t "[i % 3],
                     ids[n - 1 - i], i % 2 ? "\r\n" : "\n");
    p += sprintf(p, "# padding so that every line above has 40 bytes after"
                    " it\n");
    CHECK_EQ(parse_edges(text, &g, &o), 0);
    CHECK_EQ(g.edges.n, n);
    for (i = 0; i < n && g.edges.n == n; i++) {
        CHECK_EQ(cv_edges_src(&g.edges, i), ids[i]);
        CHECK_EQ(cv_edges_dst(&g.edges, i), ids[n - 1 - i]);
    }
    cv_edges_release(&g.edges);

    /* A bad token deep in a SWAR run names its own line. */
    p = text;
    for (i = 0; i < 50; i++)
        p += sprintf(p, "%zu,%zu\r\n", i * 1000003, i);
    p += sprintf(p, "17,1x\n");
    for (i = 0; i < 50; i++)
        p += sprintf(p, "%zu,%zu\n", i, i);
    CHECK_EQ(parse_edges(text, &g, &o), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), "'t.txt' line 51: column 2: expected a node "
                                "id (non-negative integer), found '1x'");
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

/* Chunks of a bucket store read back as written, whether the writer took
 * them or it fell behind and they stayed in memory; a folder on tmpfs is
 * refused with a reason. */
static void test_chunks(void)
{
    struct cv_chunks *s;
    struct {
        uint32_t *mem;
        uint64_t at;
    } ch[300];
    size_t words = 4096 / 4, i, k, bad = 0, kept = 0;
    uint32_t *back;
    int rc = cv_chunks_open(&s, tmpdir, 4096, 2);

    if (rc) { /* the folder is in memory or refuses direct I/O */
        CHECK_EQ(rc, DP_EUNSUPPORTED);
        return;
    }
    for (i = 0; i < 300; i++) {
        uint32_t *b = cv_chunks_buf(s);

        CHECK(b != NULL);
        for (k = 0; k < words; k++)
            b[k] = (uint32_t)(i * 7919 + k);
        ch[i].mem = NULL;
        CHECK_EQ(cv_chunks_put(s, b, &ch[i].at), 0);
        if (ch[i].at == UINT64_MAX) {
            ch[i].mem = b;
            kept++;
        }
    }
    CHECK_EQ(cv_chunks_sync(s), 0);
    CHECK(kept < 300);
    CHECK_EQ(posix_memalign((void **)&back, 4096, 4096), 0);
    for (i = 0; i < 300; i++) {
        const uint32_t *v = ch[i].mem;

        if (!v) {
            CHECK_EQ(cv_chunks_read(s, ch[i].at, back), 0);
            v = back;
        }
        for (k = 0; k < words; k++)
            bad += v[k] != (uint32_t)(i * 7919 + k);
        free(ch[i].mem);
    }
    CHECK_EQ(bad, 0);
    /* past the end of the file: an error naming the folder */
    CHECK(cv_chunks_read(s, 1000, back) != 0);
    CHECK_CONTAINS(dp_errmsg(), tmpdir);
    free(back);
    cv_chunks_close(s);
    if (access("/dev/shm", W_OK) == 0) {
        CHECK(cv_chunks_open(&s, "/dev/shm", 4096, 2) != 0);
        CHECK_CONTAINS(dp_errmsg(), "/dev/shm");
    }
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

/* Convert a small edge list and compare every CSC entry, twice: with
 * --num_nodes the parser counts the degrees and the CSC fills the second
 * half of the edges backwards, without it the CSC counts them itself. */
static void convert_and_check(const char *flags, int64_t n, const int64_t *ip,
                              const int64_t *ix, const int64_t *eid, int64_t e)
{
    struct dp_convert_opts o;
    struct dp_dataset d;
    int64_t i;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        dp_convert_opts_init(&o);
        o.input = tpath("g.txt");
        o.out = tpath("out");
        o.overwrite = 1;
        o.undirected = strchr(flags, 'u') != NULL;
        o.dedup = strchr(flags, 'd') != NULL;
        o.no_self_loops = strchr(flags, 'l') != NULL;
        o.num_nodes = pass ? n : -1;
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

/* meta.json records each input's size and sha256, or with no_input_hash
 * (a scratch conversion) its size alone: for a streamed text input and
 * for an .npy folder, whose files are recorded whole. */
static void tmkdirs(const char *path);

static void test_input_hash(void)
{
    static const char *ins[2] = { "h.txt", "hn" };
    const int64_t src[] = { 1, 2, 0 }, dst[] = { 0, 0, 2 }, shape = 3;
    struct dp_convert_opts o;
    struct dp_dataset_meta m;
    int i, skip;

    write_text(tpath("h.txt"), "1 0\n2 0\n0 2\n");
    tmkdirs(tpath("hn/src.npy"));
    CHECK_EQ(dp_npy_write(tpath("hn/src.npy"), DP_I64, 1, &shape, src), 0);
    CHECK_EQ(dp_npy_write(tpath("hn/dst.npy"), DP_I64, 1, &shape, dst), 0);
    for (i = 0; i < 2; i++)
        for (skip = 0; skip < 2; skip++) {
            char want[65], *f = dp_path_join(tpath(ins[i]), "src.npy");
            const char *first = i ? f : tpath(ins[i]);
            uint64_t size = 0;
            int64_t k;

            dp_convert_opts_init(&o);
            o.input = tpath(ins[i]);
            o.out = tpath("ih-out");
            o.overwrite = 1;
            o.no_input_hash = skip;
            CHECK_EQ(dp_convert(&o), 0);
            CHECK_EQ(dp_sha256_file(first, want, &size), 0);
            CHECK_EQ(dp_dataset_read_meta(tpath("ih-out"), &m), 0);
            CHECK_EQ(m.ninputs, i ? 2 : 1);
            for (k = 0; k < m.ninputs; k++)
                if (!strcmp(m.inputs[k].path, first)) {
                    CHECK_EQ(m.inputs[k].size, size);
                    CHECK_STR(m.inputs[k].sha256, skip ? "" : want);
                    break;
                }
            CHECK(k < m.ninputs);
            dp_dataset_meta_release(&m);
            free(f);
        }
}

/* The typed Cora of shared/fixtures/dgl-cora-hetero/README.md, built from
 * the fixture's input arrays: paper (2708) and word (1433) nodes, edge
 * types paper:cites:paper, paper:has:word and word:rev_has:paper. */
struct tcora {
    int64_t np, nw, nc, nh;
    int64_t *cs, *cd;    /* cites */
    int64_t *hp, *hw;    /* has: paper, word (row-major nonzeros) */
    float *pfeat, *wcnt; /* [np, 8], [nw] */
    int64_t *label;      /* [np] */
    uint8_t *mask[3];    /* train, val, test */
};

static struct tcora tc;

static const char *fixture(const char *name)
{
    static char buf[4096];
    const char *shared = getenv("DGLPART_SHARED");

    snprintf(buf, sizeof(buf), "%s/fixtures/dgl-cora/input/%s",
             shared ? shared : "../shared", name);
    return buf;
}

static int tcora_load(void)
{
    static const char *const mk[3] = { "train_mask.npy", "val_mask.npy",
                                       "test_mask.npy" };
    struct dp_npy a[4];
    const float *f;
    int64_t i, j, k = 0;
    int m;

    if (tc.np)
        return 0;
    if (dp_npy_open(&a[0], fixture("src.npy")) ||
        dp_npy_open(&a[1], fixture("dst.npy")) ||
        dp_npy_open(&a[2], fixture("feat.npy")) ||
        dp_npy_open(&a[3], fixture("label.npy")))
        return -1;
    tc.np = a[2].h.shape[0];
    tc.nw = a[2].h.shape[1];
    tc.nc = a[0].h.shape[0];
    f = a[2].data;
    for (i = 0; i < tc.np * tc.nw; i++)
        tc.nh += f[i] == 1;
    tc.cs = malloc(tc.nc * 8);
    tc.cd = malloc(tc.nc * 8);
    tc.hp = malloc(tc.nh * 8);
    tc.hw = malloc(tc.nh * 8);
    tc.pfeat = calloc(tc.np * 8, 4);
    tc.wcnt = calloc(tc.nw, 4);
    tc.label = malloc(tc.np * 8);
    memcpy(tc.cs, a[0].data, tc.nc * 8);
    memcpy(tc.cd, a[1].data, tc.nc * 8);
    memcpy(tc.label, a[3].data, tc.np * 8);
    for (i = 0; i < tc.np; i++)
        for (j = 0; j < tc.nw; j++)
            if (f[i * tc.nw + j] == 1) {
                tc.hp[k] = i;
                tc.hw[k++] = j;
                tc.pfeat[i * 8 + j % 8] += 1;
                tc.wcnt[j] += 1;
            }
    for (m = 0; m < 4; m++)
        dp_npy_release(&a[m]);
    for (m = 0; m < 3; m++) {
        if (dp_npy_open(&a[0], fixture(mk[m])))
            return -1;
        tc.mask[m] = malloc(tc.np);
        memcpy(tc.mask[m], a[0].data, tc.np);
        dp_npy_release(&a[0]);
    }
    return 0;
}

static void tcora_free(void)
{
    int m;

    free(tc.cs);
    free(tc.cd);
    free(tc.hp);
    free(tc.hw);
    free(tc.pfeat);
    free(tc.wcnt);
    free(tc.label);
    for (m = 0; m < 3; m++)
        free(tc.mask[m]);
    memset(&tc, 0, sizeof(tc));
}

/* A text file written through zlib when its name ends in .gz. */
struct tout {
    FILE *fp;
    gzFile gz;
};

static void tmkdirs(const char *path)
{
    char *d = dp_path_dirname(path);

    dp_mkdir_p(d, 0755);
    free(d);
}

static void topen(struct tout *t, const char *path)
{
    size_t l = strlen(path);

    tmkdirs(path);
    memset(t, 0, sizeof(*t));
    if (l > 3 && !strcmp(path + l - 3, ".gz"))
        t->gz = gzopen(path, "wb");
    else
        t->fp = fopen(path, "wb");
}

static void tprintf(struct tout *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void tprintf(struct tout *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (t->gz)
        gzputs(t->gz, buf);
    else
        fputs(buf, t->fp);
}

static void tclose(struct tout *t)
{
    if (t->gz)
        gzclose(t->gz);
    else
        fclose(t->fp);
}

static const char *const rel_dirs[3] = { "paper___cites___paper",
                                         "paper___has___word",
                                         "word___rev_has___paper" };

/* ogbn-mag's layout: counts, triplets (not in order: OGB sorts them),
 * relations, node-feat, node-label, split/<scheme>/<ntype>/. */
static void write_ogb_hetero(const char *dir)
{
    static const char *const sp[3] = { "train", "valid", "test" };
    struct tout t;
    char p[1024];
    int64_t k, i;
    int r, m;

    snprintf(p, sizeof(p), "%s/raw/num-node-dict.csv.gz", dir);
    topen(&t, p);
    tprintf(&t, "word,paper\n%" PRId64 ",%" PRId64 "\n", tc.nw, tc.np);
    tclose(&t);
    snprintf(p, sizeof(p), "%s/raw/triplet-type-list.csv.gz", dir);
    topen(&t, p);
    tprintf(&t, "word,rev_has,paper\npaper,cites,paper\npaper,has,word\n");
    tclose(&t);
    for (r = 0; r < 3; r++) {
        int64_t n = r ? tc.nh : tc.nc;

        snprintf(p, sizeof(p), "%s/raw/relations/%s/edge.csv%s", dir,
                 rel_dirs[r], r == 1 ? "" : ".gz");
        topen(&t, p);
        for (k = 0; k < n; k++)
            tprintf(&t, "%" PRId64 ",%" PRId64 "\n",
                    r == 0   ? tc.cs[k]
                    : r == 1 ? tc.hp[k]
                             : tc.hw[k],
                    r == 0   ? tc.cd[k]
                    : r == 1 ? tc.hw[k]
                             : tc.hp[k]);
        tclose(&t);
        snprintf(p, sizeof(p), "%s/raw/relations/%s/num-edge-list.csv.gz", dir,
                 rel_dirs[r]);
        topen(&t, p);
        tprintf(&t, "%" PRId64 "\n", n);
        tclose(&t);
        snprintf(p, sizeof(p), "%s/raw/relations/%s/edge_reltype.csv.gz", dir,
                 rel_dirs[r]);
        topen(&t, p);
        for (k = 0; k < n; k++)
            tprintf(&t, "%d\n", r);
        tclose(&t);
    }
    snprintf(p, sizeof(p), "%s/raw/relations/%s/edge-feat.csv.gz", dir,
             rel_dirs[0]);
    topen(&t, p);
    for (k = 0; k < tc.nc; k++)
        tprintf(&t, "%" PRId64 "\n", k);
    tclose(&t);
    snprintf(p, sizeof(p), "%s/raw/node-feat/paper/node-feat.csv.gz", dir);
    topen(&t, p);
    for (i = 0; i < tc.np; i++)
        for (k = 0; k < 8; k++)
            tprintf(&t, "%g%s", tc.pfeat[i * 8 + k], k < 7 ? "," : "\n");
    tclose(&t);
    snprintf(p, sizeof(p), "%s/raw/node-feat/word/node-feat.csv.gz", dir);
    topen(&t, p);
    for (i = 0; i < tc.nw; i++)
        tprintf(&t, "%g\n", tc.wcnt[i]);
    tclose(&t);
    snprintf(p, sizeof(p), "%s/raw/node-label/paper/node-label.csv.gz", dir);
    topen(&t, p);
    for (i = 0; i < tc.np; i++)
        tprintf(&t, "%" PRId64 "\n", tc.label[i]);
    tclose(&t);
    snprintf(p, sizeof(p), "%s/split/random/nodetype-has-split.csv.gz", dir);
    topen(&t, p);
    tprintf(&t, "paper,word\nTrue,False\n");
    tclose(&t);
    for (m = 0; m < 3; m++) {
        snprintf(p, sizeof(p), "%s/split/random/paper/%s.csv.gz", dir, sp[m]);
        topen(&t, p);
        for (i = 0; i < tc.np; i++)
            if (tc.mask[m][i])
                tprintf(&t, "%" PRId64 "\n", i);
        tclose(&t);
    }
}

static const struct dp_npy *ndata_of(const struct dp_dataset *d, const char *nt,
                                     const char *name)
{
    return dp_dataset_ndata(d, dp_dataset_find_ntype(&d->meta, nt), name);
}

/* Row x of a, a per-type array of d, wherever its rows are. */
static const char *row_of(const struct dp_dataset *d, const struct dp_npy *a,
                          int64_t x)
{
    int edge = !(d->ndata && a >= d->ndata && a < d->ndata + d->meta.num_ndata);
    struct dp_rows r;
    int hint = 0;

    dp_dataset_rows(d, edge, (int)(edge ? a - d->edata : a - d->ndata), &r);
    return dp_rows_at(&r, x, &hint);
}

/* Whether per-type array a of d holds the rows at want, rb bytes each. */
static int rows_are(const struct dp_dataset *d, const struct dp_npy *a,
                    const void *want, size_t rb)
{
    int64_t x;

    for (x = 0; a && x < a->h.shape[0]; x++)
        if (memcmp(row_of(d, a, x), (const char *)want + (size_t)x * rb, rb))
            return 0;
    return a != NULL;
}

/* Every count, edge and array of dir against the construction. */
static void check_typed_cora(const char *dir, int has_reltype)
{
    static const char *const masks[3] = { "train_mask", "val_mask",
                                          "test_mask" };
    static const char *const et[3] = { "paper:cites:paper", "paper:has:word",
                                       "word:rev_has:paper" };
    struct dp_dataset d;
    const struct dp_npy *a;
    const int64_t *ip;
    int64_t v, i, bad = 0, seen = 0;
    int m;

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    CHECK_EQ(dp_dataset_open(&d, dir), 0);
    if (!d.dir) {
        fprintf(stderr, "%s\n", dp_errmsg());
        return;
    }
    CHECK_EQ(d.meta.num_ntypes, 2);
    CHECK_EQ(d.meta.num_etypes, 3);
    if (d.meta.num_ntypes != 2 || d.meta.num_etypes != 3)
        goto out;
    CHECK_STR(d.meta.ntypes[0].name, "paper");
    CHECK_STR(d.meta.ntypes[1].name, "word");
    CHECK_EQ(d.meta.ntypes[0].count, tc.np);
    CHECK_EQ(d.meta.ntypes[1].count, tc.nw);
    for (m = 0; m < 3; m++)
        CHECK_STR(d.meta.etypes[m].name, et[m]);
    CHECK_EQ(d.meta.etypes[0].count, tc.nc);
    CHECK_EQ(d.meta.etypes[1].count, tc.nh);
    CHECK_EQ(d.meta.etypes[2].count, tc.nh);
    CHECK_EQ(d.meta.num_edges, tc.nc + 2 * tc.nh);
    ip = dp_dataset_indptr(&d);
    for (v = 0; v < d.meta.num_nodes; v++)
        for (i = ip[v]; i < ip[v + 1]; i++) {
            int64_t e = dp_dataset_eid(&d, i), s, t;

            if (e < tc.nc) {
                s = tc.cs[e];
                t = tc.cd[e];
            } else if (e < tc.nc + tc.nh) {
                s = tc.hp[e - tc.nc];
                t = tc.np + tc.hw[e - tc.nc];
            } else {
                s = tc.np + tc.hw[e - tc.nc - tc.nh];
                t = tc.hp[e - tc.nc - tc.nh];
            }
            bad += dp_dataset_src(&d, i) != s || v != t;
            seen++;
        }
    CHECK_EQ(bad, 0);
    CHECK_EQ(seen, tc.nc + 2 * tc.nh);
    a = ndata_of(&d, "paper", "feat");
    CHECK(a && a->h.dtype == DP_F32 && a->h.shape[1] == 8 &&
          rows_are(&d, a, tc.pfeat, 8 * 4));
    a = ndata_of(&d, "word", "feat");
    CHECK(a && a->h.dtype == DP_F32 && a->h.count == (uint64_t)tc.nw &&
          rows_are(&d, a, tc.wcnt, 4));
    a = ndata_of(&d, "paper", "label");
    CHECK(a && a->h.dtype == DP_I64 && a->data &&
          !memcmp(a->data, tc.label, tc.np * 8));
    for (m = 0; m < 3; m++) {
        a = ndata_of(&d, "paper", masks[m]);
        CHECK(a && a->h.dtype == DP_U8 && a->data &&
              !memcmp(a->data, tc.mask[m], tc.np));
        CHECK(ndata_of(&d, "word", masks[m]) == NULL);
    }
    a = dp_dataset_edata(&d, 0, "feat");
    CHECK(a && a->h.dtype == DP_F32 && a->h.count == (uint64_t)tc.nc);
    for (i = 0, bad = 0; a && i < tc.nc; i++) {
        float f;

        memcpy(&f, row_of(&d, a, i), sizeof(f));
        bad += f != (float)i;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(d.meta.feat_dim, 0);
    CHECK_EQ(d.meta.num_classes, 0);
    CHECK(!d.meta.has_train);
    if (has_reltype)
        for (m = 0; m < 3; m++) {
            a = dp_dataset_edata(&d, m, "reltype");
            CHECK(a && a->h.dtype == DP_I64);
            CHECK(a && dp_npy_get_i64(a, a->h.count - 1) == m);
        }
out:
    dp_dataset_release(&d);
}

static int convert_to(const char *in, const char *out, const char *fmt)
{
    struct dp_convert_opts o;
    int rc;

    dp_convert_opts_init(&o);
    o.input = in;
    o.out = out;
    o.overwrite = 1;
    if (fmt)
        o.format = fmt;
    rc = dp_convert(&o);
    if (rc)
        fprintf(stderr, "convert '%s': %s\n", in, dp_errmsg());
    return rc;
}

static void test_ogb_hetero(void)
{
    char in[600], out[600];

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    snprintf(in, sizeof(in), "%s", tpath("mag"));
    snprintf(out, sizeof(out), "%s", tpath("mag-out"));
    write_ogb_hetero(in);
    CHECK_EQ(convert_to(in, out, NULL), 0);
    check_typed_cora(out, 1);
}

static void wnpy(const char *path, enum dp_dtype t, int ndim, int64_t d0,
                 int64_t d1, const void *data)
{
    int64_t shape[2] = { d0, d1 };

    tmkdirs(path);
    CHECK_EQ(dp_npy_write(path, t, ndim, shape, data), 0);
}

/* Rows [lo, lo + n) of the cites edge feature (its id, as float32). */
static float *cites_feat(int64_t lo, int64_t n)
{
    float *f = malloc((size_t)n * 4 + 4);
    int64_t k;

    for (k = 0; k < n; k++)
        f[k] = (float)(lo + k);
    return f;
}

/* DGL's chunked format: paper in two chunks, word in one; cites in two
 * chunks, the other edge types in one. */
static void write_chunked(const char *dir)
{
    static const char *const mk[3] = { "train_mask", "val_mask", "test_mask" };
    int64_t p0 = tc.np / 2, p1 = tc.np - p0, c0 = tc.nc / 2, c1 = tc.nc - c0;
    struct tout t;
    char p[1024];
    float *f;
    int64_t k;
    int m, r;

    snprintf(p, sizeof(p), "%s/metadata.json", dir);
    topen(&t, p);
    tprintf(&t,
            "{\"graph_name\": \"cora_hetero\", "
            "\"node_type\": [\"paper\", \"word\"], "
            "\"num_nodes_per_chunk\": [[%" PRId64 ", %" PRId64 "], "
            "[%" PRId64 "]], ",
            p0, p1, tc.nw);
    tprintf(&t,
            "\"edge_type\": [\"paper:cites:paper\", \"paper:has:word\", "
            "\"word:rev_has:paper\"], \"num_edges_per_chunk\": "
            "[[%" PRId64 ", %" PRId64 "], [%" PRId64 "], [%" PRId64 "]], ",
            c0, c1, tc.nh, tc.nh);
    tprintf(&t, "\"edges\": {\"paper:cites:paper\": {\"format\": {\"name\": "
                "\"csv\", \"delimiter\": \" \"}, \"data\": "
                "[\"edge_index/cites0.txt\", \"edge_index/cites1.txt\"]}, ");
    tprintf(&t,
            "\"paper:has:word\": {\"format\": {\"name\": \"csv\", "
            "\"delimiter\": \" \"}, \"data\": [\"edge_index/has0.txt\"]}, "
            "\"word:rev_has:paper\": {\"format\": {\"name\": \"csv\", "
            "\"delimiter\": \" \"}, \"data\": [\"%s/edge_index/rev0.txt\"]}}, ",
            dir);
    tprintf(&t, "\"node_data\": {\"paper\": {");
    tprintf(
        &t,
        "\"feat\": {\"format\": {\"name\": \"numpy\"}, \"data\": "
        "[\"node_data/paper-feat-0.npy\", \"node_data/paper-feat-1.npy\"]}, ");
    tprintf(
        &t,
        "\"label\": {\"format\": {\"name\": \"numpy\"}, \"data\": "
        "[\"node_data/paper-label-0.npy\", \"node_data/paper-label-1.npy\"]}");
    for (m = 0; m < 3; m++)
        tprintf(&t,
                ", \"%s\": {\"format\": {\"name\": \"numpy\"}, \"data\": "
                "[\"node_data/paper-%s-0.npy\", \"node_data/paper-%s-1.npy\"]}",
                mk[m], mk[m], mk[m]);
    tprintf(&t, "}, \"word\": {\"feat\": {\"format\": {\"name\": \"numpy\"}, "
                "\"data\": [\"node_data/word-feat-0.npy\"]}}}, ");
    tprintf(&t, "\"edge_data\": {\"paper:cites:paper\": {\"feat\": "
                "{\"format\": {\"name\": \"numpy\"}, \"data\": "
                "[\"edge_data/cites-feat-0.npy\", "
                "\"edge_data/cites-feat-1.npy\"]}}}}\n");
    tclose(&t);
    for (r = 0; r < 4; r++) {
        static const char *const fn[4] = { "cites0", "cites1", "has0", "rev0" };
        int64_t lo = r == 1 ? c0 : 0, hi = r == 0 ? c0 : r == 1 ? tc.nc : tc.nh;

        snprintf(p, sizeof(p), "%s/edge_index/%s.txt", dir, fn[r]);
        topen(&t, p);
        for (k = lo; k < hi; k++)
            tprintf(&t, "%" PRId64 " %" PRId64 "\n",
                    r < 2    ? tc.cs[k]
                    : r == 2 ? tc.hp[k]
                             : tc.hw[k],
                    r < 2    ? tc.cd[k]
                    : r == 2 ? tc.hw[k]
                             : tc.hp[k]);
        tclose(&t);
    }
    for (r = 0; r < 2; r++) {
        int64_t lo = r ? p0 : 0, n = r ? p1 : p0;

        snprintf(p, sizeof(p), "%s/node_data/paper-feat-%d.npy", dir, r);
        wnpy(p, DP_F32, 2, n, 8, tc.pfeat + lo * 8);
        snprintf(p, sizeof(p), "%s/node_data/paper-label-%d.npy", dir, r);
        wnpy(p, DP_I64, 1, n, 0, tc.label + lo);
        for (m = 0; m < 3; m++) {
            snprintf(p, sizeof(p), "%s/node_data/paper-%s-%d.npy", dir, mk[m],
                     r);
            wnpy(p, DP_U8, 1, n, 0, tc.mask[m] + lo);
        }
        f = cites_feat(r ? c0 : 0, r ? c1 : c0);
        snprintf(p, sizeof(p), "%s/edge_data/cites-feat-%d.npy", dir, r);
        wnpy(p, DP_F32, 2, r ? c1 : c0, 1, f);
        free(f);
    }
    snprintf(p, sizeof(p), "%s/node_data/word-feat-0.npy", dir);
    wnpy(p, DP_F32, 2, tc.nw, 1, tc.wcnt);
}

/* The typed npy folder: nodes/<ntype>/, edges/<src:rel:dst>/; has as
 * int32 ids, the masks as bool. */
static void write_typed_npy(const char *dir)
{
    static const char *const mk[3] = { "train_mask", "val_mask", "test_mask" };
    static const char *const et[3] = { "paper:cites:paper", "paper:has:word",
                                       "word:rev_has:paper" };
    char p[1024];
    int32_t *a = malloc(tc.nh * 4), *b = malloc(tc.nh * 4);
    float *f = cites_feat(0, tc.nc);
    int64_t k;
    int m;

    snprintf(p, sizeof(p), "%s/nodes/paper/feat.npy", dir);
    wnpy(p, DP_F32, 2, tc.np, 8, tc.pfeat);
    snprintf(p, sizeof(p), "%s/nodes/paper/label.npy", dir);
    wnpy(p, DP_I64, 1, tc.np, 0, tc.label);
    for (m = 0; m < 3; m++) {
        snprintf(p, sizeof(p), "%s/nodes/paper/%s.npy", dir, mk[m]);
        wnpy(p, DP_BOOL, 1, tc.np, 0, tc.mask[m]);
    }
    snprintf(p, sizeof(p), "%s/nodes/word/feat.npy", dir);
    wnpy(p, DP_F32, 2, tc.nw, 1, tc.wcnt);
    snprintf(p, sizeof(p), "%s/edges/%s/src.npy", dir, et[0]);
    wnpy(p, DP_I64, 1, tc.nc, 0, tc.cs);
    snprintf(p, sizeof(p), "%s/edges/%s/dst.npy", dir, et[0]);
    wnpy(p, DP_I64, 1, tc.nc, 0, tc.cd);
    snprintf(p, sizeof(p), "%s/edges/%s/feat.npy", dir, et[0]);
    wnpy(p, DP_F32, 2, tc.nc, 1, f);
    for (k = 0; k < tc.nh; k++) {
        a[k] = (int32_t)tc.hp[k];
        b[k] = (int32_t)tc.hw[k];
    }
    snprintf(p, sizeof(p), "%s/edges/%s/src.npy", dir, et[1]);
    wnpy(p, DP_I32, 1, tc.nh, 0, a);
    snprintf(p, sizeof(p), "%s/edges/%s/dst.npy", dir, et[1]);
    wnpy(p, DP_I32, 1, tc.nh, 0, b);
    snprintf(p, sizeof(p), "%s/edges/%s/src.npy", dir, et[2]);
    wnpy(p, DP_I64, 1, tc.nh, 0, tc.hw);
    snprintf(p, sizeof(p), "%s/edges/%s/dst.npy", dir, et[2]);
    wnpy(p, DP_I64, 1, tc.nh, 0, tc.hp);
    free(a);
    free(b);
    free(f);
}

static int same_npy(const struct dp_npy *a, const struct dp_npy *b)
{
    return a && b && a->h.dtype == b->h.dtype && a->h.ndim == b->h.ndim &&
           !memcmp(a->h.shape, b->h.shape, sizeof(a->h.shape)) &&
           !memcmp(a->data, b->data, a->h.count * dp_dtype_size(a->h.dtype));
}

/* Per-type array pa of a equals pb of b row by row. */
static int same_data(const struct dp_dataset *a, const struct dp_npy *pa,
                     const struct dp_dataset *b, const struct dp_npy *pb)
{
    size_t rb = dp_dtype_size(pa ? pa->h.dtype : DP_U8);
    int64_t x;
    int j;

    if (!pa || !pb || pa->h.dtype != pb->h.dtype || pa->h.ndim != pb->h.ndim ||
        memcmp(pa->h.shape, pb->h.shape, sizeof(pa->h.shape)))
        return 0;
    for (j = 1; j < pa->h.ndim; j++)
        rb *= (size_t)pa->h.shape[j];
    for (x = 0; x < pa->h.shape[0]; x++)
        if (memcmp(row_of(a, pa, x), row_of(b, pb, x), rb))
            return 0;
    return 1;
}

/* b's CSC and every per-type array of b equal a's. */
static void check_same(const char *da, const char *db)
{
    struct dp_dataset a, b;
    int i;

    CHECK_EQ(dp_dataset_open(&a, da), 0);
    CHECK_EQ(dp_dataset_open(&b, db), 0);
    if (!a.dir || !b.dir)
        goto out;
    CHECK_EQ(a.meta.num_nodes, b.meta.num_nodes);
    CHECK_EQ(a.meta.num_edges, b.meta.num_edges);
    CHECK(same_npy(&a.indptr, &b.indptr));
    CHECK(same_npy(&a.indices, &b.indices));
    CHECK(same_npy(&a.eids, &b.eids));
    CHECK_EQ(a.meta.num_ndata, b.meta.num_ndata);
    for (i = 0; i < b.meta.num_ndata; i++) {
        const struct dp_dataset_data *x = &b.meta.ndata[i];

        CHECK(same_data(&a, dp_dataset_ndata(&a, x->type, x->name), &b,
                        &b.ndata[i]));
    }
    for (i = 0; i < b.meta.num_edata; i++) {
        const struct dp_dataset_data *x = &b.meta.edata[i];

        CHECK(same_data(&a, dp_dataset_edata(&a, x->type, x->name), &b,
                        &b.edata[i]));
    }
out:
    dp_dataset_release(&a);
    dp_dataset_release(&b);
}

/* Which arrays of dir stay in the input's files (features, not label or
 * masks); chunked: paper's feat in two chunks. */
static void check_kept(const char *dir, int chunked)
{
    struct dp_dataset d;
    int i, kept = 0;

    CHECK_EQ(dp_dataset_open(&d, dir), 0);
    for (i = 0; d.dir && i < d.meta.num_ndata; i++) {
        const struct dp_dataset_data *x = &d.meta.ndata[i];
        int feat = !strcmp(x->name, "feat");

        CHECK_EQ(x->nchunks > 0, feat);
        CHECK_EQ(d.nchunks[i].n, x->nchunks);
        CHECK((d.ndata[i].data == NULL) == feat);
        if (feat && x->type == 0)
            CHECK_EQ(x->nchunks, chunked ? 2 : 1);
        kept += feat;
    }
    CHECK_EQ(kept, 2);
    dp_dataset_release(&d);
}

static void test_chunked(void)
{
    char in[600], out[600], ogb[600];

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    snprintf(in, sizeof(in), "%s", tpath("chunked"));
    snprintf(out, sizeof(out), "%s", tpath("chunked-out"));
    snprintf(ogb, sizeof(ogb), "%s", tpath("mag-out"));
    write_chunked(in);
    CHECK_EQ(convert_to(in, out, NULL), 0);
    check_typed_cora(out, 0);
    check_same(ogb, out);
    check_kept(out, 1);
}

static void test_typed_npy(void)
{
    char in[600], out[600], ogb[600];

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    snprintf(in, sizeof(in), "%s", tpath("tnpy"));
    snprintf(out, sizeof(out), "%s", tpath("tnpy-out"));
    snprintf(ogb, sizeof(ogb), "%s", tpath("mag-out"));
    write_typed_npy(in);
    CHECK_EQ(convert_to(in, out, NULL), 0);
    check_typed_cora(out, 0);
    check_same(ogb, out);
    check_kept(out, 0);
}

/* Replace the first "from" in file path with "to". */
static void edit_file(const char *path, const char *from, const char *to)
{
    char *text = NULL, *p, *out;
    size_t len;

    CHECK_EQ(dp_read_file(path, 1 << 24, &text, &len), 0);
    p = text ? strstr(text, from) : NULL;
    CHECK(p != NULL);
    if (!p) {
        free(text);
        return;
    }
    out = malloc(len + strlen(to) + 1);
    memcpy(out, text, (size_t)(p - text));
    strcpy(out + (p - text), to);
    strcat(out, p + strlen(from));
    write_text(path, out);
    free(out);
    free(text);
}

static void expect_convert_fails(const char *in, int code, const char *msg)
{
    struct dp_convert_opts o;

    dp_convert_opts_init(&o);
    o.input = in;
    o.out = tpath("bad-typed-out");
    CHECK_EQ(dp_convert(&o), code);
    CHECK_CONTAINS(dp_errmsg(), msg);
    CHECK(!dp_exists(tpath("bad-typed-out")));
    CHECK(!dp_exists(tpath("bad-typed-out.tmp")));
}

/* Chunk counts disagreeing with the files, ids beyond their type's count,
 * an empty node type, parquet: one line naming the file and what was
 * expected. */
static void test_typed_errors(void)
{
    char in[600], meta[700], p[700], num[64];

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    snprintf(in, sizeof(in), "%s", tpath("chunked-bad"));
    snprintf(meta, sizeof(meta), "%s/metadata.json", in);
    write_chunked(in);
    /* the second cites chunk is said to hold one edge more */
    snprintf(num, sizeof(num), "[[%" PRId64 ", %" PRId64 "]", tc.nc / 2,
             tc.nc - tc.nc / 2);
    snprintf(p, sizeof(p), "[[%" PRId64 ", %" PRId64 "]", tc.nc / 2,
             tc.nc - tc.nc / 2 + 1);
    edit_file(meta, num, p);
    expect_convert_fails(in, DP_EFORMAT, "cites1.txt': ");
    snprintf(p, sizeof(p),
             "edges, expected %" PRId64 " (metadata.json "
             "num_edges_per_chunk of 'paper:cites:paper', chunk 1)",
             tc.nc - tc.nc / 2 + 1);
    CHECK_CONTAINS(dp_errmsg(), p);
    dp_rm_rf(in);
    /* a paper chunk of node data one row short of num_nodes_per_chunk */
    write_chunked(in);
    snprintf(p, sizeof(p), "%s/node_data/paper-label-1.npy", in);
    wnpy(p, DP_I64, 1, tc.np - tc.np / 2 - 1, 0, tc.label);
    expect_convert_fails(in, DP_EFORMAT, "paper-label-1.npy': ");
    snprintf(p, sizeof(p),
             "%" PRId64 " rows, expected %" PRId64
             " (\"node_data\" paper/label, chunk 1)",
             tc.np - tc.np / 2 - 1, tc.np - tc.np / 2);
    CHECK_CONTAINS(dp_errmsg(), p);
    dp_rm_rf(in);
    /* a word id beyond the 1433 words, on line 3 */
    write_chunked(in);
    snprintf(p, sizeof(p), "%s/edge_index/has0.txt", in);
    snprintf(num, sizeof(num), "%" PRId64 " %" PRId64 "\n", tc.hp[2], tc.hw[2]);
    edit_file(p, num, "7 1433\n");
    expect_convert_fails(in, DP_ERANGE,
                         "has0.txt' line 3: destination id "
                         "1433 out of range [0, 1433) (node type 'word' of "
                         "edge type 'paper:has:word')");
    dp_rm_rf(in);
    /* an empty node type is kept, but edges into it have no ids to reach */
    write_chunked(in);
    snprintf(num, sizeof(num), "[%" PRId64 "]], ", tc.nw);
    edit_file(meta, num, "[0]], ");
    expect_convert_fails(in, DP_ERANGE,
                         "out of range [0, 0) (node type 'word' of edge type");
    dp_rm_rf(in);
    /* parquet chunks are refused by name */
    write_chunked(in);
    edit_file(meta, "\"name\": \"numpy\"", "\"name\": \"parquet\"");
    expect_convert_fails(in, DP_EUNSUPPORTED,
                         "parquet chunks are not "
                         "supported (no parquet library)");
    dp_rm_rf(in);
    /* OGB: a count that disagrees, a source id beyond its type */
    snprintf(in, sizeof(in), "%s", tpath("mag-bad"));
    write_ogb_hetero(in);
    snprintf(p, sizeof(p), "%s/raw/relations/paper___has___word/edge.csv", in);
    snprintf(num, sizeof(num), "%" PRId64 ",%" PRId64 "\n", tc.hp[0], tc.hw[0]);
    edit_file(p, num, "2708,0\n");
    expect_convert_fails(in, DP_ERANGE,
                         "edge.csv' line 1: source id 2708 "
                         "out of range [0, 2708) (node type 'paper' of edge "
                         "type 'paper:has:word')");
    dp_rm_rf(in);
    write_ogb_hetero(in);
    snprintf(p, sizeof(p),
             "%s/raw/relations/paper___has___word/"
             "num-edge-list.csv.gz",
             in);
    write_text(p, "49217\n");
    expect_convert_fails(in, DP_EFORMAT,
                         "num-edge-list.csv.gz' line 1: says "
                         "49217 edges, but");
    dp_rm_rf(in);
    /* typed-npy: a type folder with nothing to count its nodes by */
    snprintf(in, sizeof(in), "%s", tpath("tnpy-bad"));
    write_typed_npy(in);
    snprintf(p, sizeof(p), "%s/nodes/venue", in);
    dp_mkdir_p(p, 0755);
    expect_convert_fails(in, DP_EFORMAT,
                         "nodes/venue': no num_nodes file "
                         "and no arrays");
    snprintf(p, sizeof(p), "%s/nodes/venue/num_nodes", in);
    write_text(p, "-1\n");
    expect_convert_fails(in, DP_EFORMAT, "num_nodes");
    /* a type of no nodes is kept, as dgl.heterograph keeps it */
    write_text(p, "0\n");
    {
        struct dp_convert_opts o;
        struct dp_dataset d;
        int t;

        dp_convert_opts_init(&o);
        o.input = in;
        o.out = tpath("empty-type-out");
        CHECK_EQ(dp_convert(&o), 0);
        CHECK_EQ(dp_dataset_open(&d, o.out), 0);
        t = dp_dataset_find_ntype(&d.meta, "venue");
        CHECK(t >= 0);
        if (t >= 0)
            CHECK_EQ(d.meta.ntypes[t].count, 0);
        CHECK_EQ(d.meta.num_nodes, tc.np + tc.nw);
        dp_dataset_release(&d);
        dp_rm_rf(o.out);
    }
    dp_rm_rf(in);
}

/* --add_reverse_edges: dst:rel-rev:src per type, edges reversed, types in
 * (src, rel, dst) order, edge data left on the forward type. */
static void test_add_reverse(void)
{
    static const char *const et[6] = {
        "paper:cites:paper",      "paper:cites-rev:paper", "paper:has:word",
        "paper:rev_has-rev:word", "word:has-rev:paper",    "word:rev_has:paper"
    };
    /* forward type of each, and whether reversed */
    static const int from[6] = { 0, 0, 1, 2, 1, 2 },
                     rev[6] = { 0, 1, 0, 1, 1, 0 };
    struct dp_convert_opts o;
    struct dp_dataset d;
    const int64_t *ip;
    int64_t v, i, bad = 0;
    int t;

    if (tcora_load()) {
        TH_FAIL("cannot read the fixture's input arrays");
        return;
    }
    dp_convert_opts_init(&o);
    o.input = tpath("tnpy");
    o.out = tpath("rev-out");
    o.add_reverse_edges = 1;
    CHECK_EQ(dp_convert(&o), 0);
    CHECK_EQ(dp_dataset_open(&d, o.out), 0);
    if (!d.dir)
        return;
    CHECK_EQ(d.meta.num_etypes, 6);
    for (t = 0; t < 6 && t < d.meta.num_etypes; t++)
        CHECK_STR(d.meta.etypes[t].name, et[t]);
    CHECK_EQ(d.meta.num_edges, 2 * (tc.nc + 2 * tc.nh));
    ip = dp_dataset_indptr(&d);
    for (v = 0; d.meta.num_etypes == 6 && v < d.meta.num_nodes; v++)
        for (i = ip[v]; i < ip[v + 1]; i++) {
            int ty = dp_dataset_etype_of(&d, dp_dataset_eid(&d, i));
            int64_t k = dp_dataset_eid(&d, i) - d.meta.etypes[ty].offset, s, x;

            s = from[ty] == 0   ? tc.cs[k]
                : from[ty] == 1 ? tc.hp[k]
                                : tc.np + tc.hw[k];
            x = from[ty] == 0   ? tc.cd[k]
                : from[ty] == 1 ? tc.np + tc.hw[k]
                                : tc.hp[k];
            bad += rev[ty] ? dp_dataset_src(&d, i) != x || v != s
                           : dp_dataset_src(&d, i) != s || v != x;
        }
    CHECK_EQ(bad, 0);
    CHECK_EQ(d.meta.num_edata, 1);
    CHECK(dp_dataset_edata(&d, 0, "feat") != NULL);
    CHECK(dp_dataset_edata(&d, 1, "feat") == NULL);
    dp_dataset_release(&d);
    /* a homogeneous graph has no types to reverse */
    write_text(tpath("h.txt"), "0 1\n");
    o.input = tpath("h.txt");
    o.out = tpath("h-out");
    CHECK_EQ(dp_convert(&o), DP_EINVAL);
    CHECK_CONTAINS(dp_errmsg(), "--add_reverse_edges needs a typed graph");
    o.input = tpath("tnpy");
    o.add_reverse_edges = 0;
    o.undirected = 1;
    CHECK_EQ(dp_convert(&o), DP_EINVAL);
    CHECK_CONTAINS(dp_errmsg(), "--undirected does not apply to typed");
}

/* The estimate of a convert against the convert itself: exact where the
 * input says (METIS header, OGB counts, .npy headers, a small file read
 * whole), bounded where it is sampled (a gzip edge list past 1 MiB). */
static void estimate_vs_convert(const char *in, int undirected)
{
    struct dp_convert_estimate est;
    struct dp_convert_opts o;
    struct dp_dataset d;
    struct dp_dataset_shape s;

    dp_convert_opts_init(&o);
    o.input = in;
    o.undirected = undirected;
    CHECK_EQ(dp_convert_estimate(&o, &est), 0);
    CHECK(est.exact);
    o.out = tpath("est-out");
    o.overwrite = 1;
    CHECK_EQ(dp_convert(&o), 0);
    CHECK_EQ(dp_dataset_open(&d, o.out), 0);
    dp_dataset_shape(&d, &s);
    CHECK_EQ(est.shape.num_nodes, s.num_nodes);
    CHECK_EQ(est.shape.num_edges, s.num_edges);
    CHECK_EQ(est.shape.directed, s.directed);
    CHECK_EQ(est.shape.ncon, s.ncon);
    CHECK_EQ(est.shape.node_bytes, s.node_bytes);
    CHECK_EQ(est.shape.edge_weight, s.edge_weight);
    CHECK_EQ(est.shape.indices, s.indices);
    CHECK_EQ(est.shape.total, s.total);
    dp_dataset_release(&d);
}

static void test_estimate(void)
{
    struct dp_convert_estimate est;
    struct dp_convert_opts o;
    struct tout t;
    int64_t k;

    write_text(tpath("small.txt"), "# a comment\n0 1\n1 2\n2 5\n5 0\n");
    estimate_vs_convert(tpath("small.txt"), 0);
    estimate_vs_convert(tpath("small.txt"), 1);
    /* edge weights and two vertex weights */
    write_text(tpath("w.graph"), "% c\n3 2 011 2\n1 1 2 5\n1 2 1 5 3 7\n"
                                 "4 4 2 7\n");
    estimate_vs_convert(tpath("w.graph"), 0);
    tmkdirs(tpath("og/raw/x"));
    write_text(tpath("og/raw/num-node-list.csv"), "7\n");
    write_text(tpath("og/raw/num-edge-list.csv"), "3\n");
    write_text(tpath("og/raw/edge.csv"), "0,1\n1,2\n6,0\n");
    write_text(tpath("og/raw/node-feat.csv"),
               "0.5,1,2\n0,0,0\n1,1,1\n2,2,2\n3,3,3\n4,4,4\n5,5,5\n");
    estimate_vs_convert(tpath("og"), 1);

    /* 400,000 edges gzipped, past the sample: within 5%, N from the
     * sample's largest id (here every id appears early) */
    topen(&t, tpath("big.txt.gz"));
    for (k = 0; k < 400000; k++)
        tprintf(&t, "%" PRId64 " %" PRId64 "\n", (k * 7919) % 100000,
                k % 100000);
    tclose(&t);
    dp_convert_opts_init(&o);
    o.input = tpath("big.txt.gz");
    CHECK_EQ(dp_convert_estimate(&o, &est), 0);
    CHECK(!est.exact);
    CHECK(est.shape.num_edges > 380000 && est.shape.num_edges < 420000);
    CHECK_EQ(est.shape.num_nodes, 100000);
    CHECK(est.mem > 8 * 380000);

    /* a zip with no directory: planned after converting, which names
     * what is wrong */
    tmkdirs(tpath("z/g.npz"));
    write_text(tpath("z/g.npz"), "PK");
    o.input = tpath("z");
    CHECK_EQ(dp_convert_estimate(&o, &est), DP_EUNSUPPORTED);
}

/* A chunked input's shares: every edge chunk to exactly one rank, ranks'
 * chunks one after the other in rank order (so each rank's edges are a
 * range of input edge ids starting at its e_lo), no rank past its part
 * of all edges by more than a chunk; data chunks round robin. */
static void test_chunk_shares(void)
{
    static const int64_t sizes[][8] = {
        { 5, 5, 5, 5, 5, 5, 5, 5 },
        { 100, 0, 1, 0, 0, 3, 50, 0 },
        { 0, 0, 0, 0, 0, 0, 0, 0 },
        { 1, 2, 3, 4, 5, 6, 7, 1000 },
    };
    size_t t;
    int P, r, k;

    for (t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++)
        for (P = 1; P <= 10; P++) {
            int64_t total = 0, pos, got[10] = { 0 }, big = 0;
            int owner[8], last = 0;

            for (k = 0; k < 8; k++) {
                total += sizes[t][k];
                big = sizes[t][k] > big ? sizes[t][k] : big;
            }
            for (k = 0; k < 8; k++)
                owner[k] = -1;
            for (r = 0; r < P; r++) {
                struct cv_share sh;

                memset(&sh, 0, sizeof(sh));
                sh.rank = r;
                sh.size = P;
                sh.total = total;
                sh.e_lo = -1;
                for (k = 0, pos = 0; k < 8; k++) {
                    int mine = cv_share_edges(&sh, sizes[t][k]);

                    if (mine) {
                        CHECK_EQ(owner[k], -1);
                        owner[k] = r;
                        if (got[r] == 0 && sizes[t][k])
                            CHECK_EQ(sh.e_lo, pos);
                        got[r] += sizes[t][k];
                    }
                    pos += sizes[t][k];
                }
                CHECK_EQ(sh.pos, total);
                CHECK_EQ(cv_share_data(&sh), r == 0);
            }
            for (k = 0; k < 8; k++) {
                CHECK(owner[k] >= last && owner[k] < P);
                last = owner[k];
            }
            for (r = 0; r < P; r++)
                CHECK(got[r] <= total / P + big);
        }
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
    RUN(test_edgelist_swar);
    RUN(test_widen);
    RUN(test_spilled_edges);
    RUN(test_chunks);
    RUN(test_metis);
    RUN(test_csc);
    RUN(test_no_output_on_error);
    RUN(test_meta_sizes);
    RUN(test_input_hash);
    RUN(test_ogb_hetero);
    RUN(test_chunked);
    RUN(test_chunk_shares);
    RUN(test_typed_npy);
    RUN(test_typed_errors);
    RUN(test_add_reverse);
    RUN(test_estimate);
    tcora_free();
    dp_rm_rf(tmpdir);
    return TH_DONE();
}
