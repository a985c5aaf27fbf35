/* Runtime tests on DGL's own cora partitions: partition book, in-degrees
 * and features against the input arrays, sampling only true in-neighbours
 * within the fanout, determinism, the request handler's answers to
 * malformed requests, the machine's shared copy of a part and the sampler
 * pool. */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../runtime/rt_int.h"
#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/runtime.h"
#include "harness.h"

#define FIX "../shared/fixtures/dgl-cora"

struct input {
    struct dp_npy src, dst, feat, label;
    int64_t *indeg; /* by input node id */
};

static int load_input(struct input *in)
{
    uint64_t e;

    memset(in, 0, sizeof(*in));
    if (dp_npy_open(&in->src, FIX "/input/src.npy") ||
        dp_npy_open(&in->dst, FIX "/input/dst.npy") ||
        dp_npy_open(&in->feat, FIX "/input/feat.npy") ||
        dp_npy_open(&in->label, FIX "/input/label.npy"))
        return -1;
    in->indeg = calloc((size_t)in->feat.h.shape[0], 8);
    for (e = 0; e < in->dst.h.count; e++)
        in->indeg[dp_npy_get_i64(&in->dst, e)]++;
    return 0;
}

static void release_input(struct input *in)
{
    dp_npy_release(&in->src);
    dp_npy_release(&in->dst);
    dp_npy_release(&in->feat);
    dp_npy_release(&in->label);
    free(in->indeg);
}

/* orig[k] = input id of global id k; identity for one-part sets. */
static int64_t *load_orig(const char *dir, const char *which, int64_t n)
{
    char path[512];
    struct dp_npy a;
    int64_t *o = malloc((size_t)n * 8), i;

    snprintf(path, sizeof(path), "%s/%s", dir, which);
    if (dp_npy_open(&a, path)) {
        for (i = 0; i < n; i++)
            o[i] = i;
        return o;
    }
    for (i = 0; i < n; i++)
        o[i] = dp_npy_get_i64(&a, (uint64_t)i);
    dp_npy_release(&a);
    return o;
}

static void check_set(const char *dir)
{
    char cfgpath[512];
    struct input in;
    struct dp_rt rt;
    int64_t n, i, *ids, *deg, *onid, *oeid, k, pos;
    void *rows = NULL;
    uint64_t rb;
    enum dp_dtype dt;
    struct dp_edges e;
    struct dp_sample_key key = { 42, 0, 1 };
    int rc, bad = 0;

    snprintf(cfgpath, sizeof(cfgpath), "%s/cora.json", dir);
    CHECK_EQ(load_input(&in), 0);
    rc = dp_rt_open_standalone(&rt, cfgpath);
    CHECK_EQ(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", dp_errmsg());
        release_input(&in);
        return;
    }
    n = rt.cfg.num_nodes;
    CHECK_EQ(n, in.feat.h.shape[0]);
    onid = load_orig(dir, "orig_nids.npy", n);
    oeid = load_orig(dir, "orig_eids.npy", rt.cfg.num_edges);
    ids = malloc((size_t)n * 8);
    deg = malloc((size_t)n * 8);
    for (i = 0; i < n; i++)
        ids[i] = i;

    /* in-degrees equal the input's */
    CHECK_EQ(dp_rt_in_degree(&rt, ids, n, deg), 0);
    for (i = 0; i < n; i++)
        bad += deg[i] != in.indeg[onid[i]];
    CHECK_EQ(bad, 0);

    /* features and labels equal the input rows */
    CHECK_EQ(dp_rt_gather(&rt, 0, "feat", ids, n, &rows, &rb, &dt), 0);
    CHECK_EQ(rb, 1433 * 4);
    CHECK_EQ(dt, DP_F32);
    for (i = 0, bad = 0; rows && i < n; i++)
        bad += memcmp((char *)rows + i * rb,
                      (const char *)in.feat.data + onid[i] * rb, rb) != 0;
    CHECK_EQ(bad, 0);
    free(rows);
    rows = NULL;
    CHECK_EQ(dp_rt_gather(&rt, 0, "_N/label", ids, n, &rows, &rb, &dt), 0);
    for (i = 0, bad = 0; rows && i < n; i++)
        bad += ((int64_t *)rows)[i] !=
               dp_npy_get_i64(&in.label, (uint64_t)onid[i]);
    CHECK_EQ(bad, 0);
    free(rows);
    rows = NULL;
    /* edge feature 'weight' = float32 input edge id */
    {
        int64_t m = rt.cfg.num_edges, *eids = malloc((size_t)m * 8);
        for (i = 0; i < m; i++)
            eids[i] = i;
        CHECK_EQ(dp_rt_gather(&rt, 1, "weight", eids, m, &rows, &rb, &dt), 0);
        for (i = 0, bad = 0; rows && i < m; i++)
            bad += ((float *)rows)[i] != (float)oeid[i];
        CHECK_EQ(bad, 0);
        free(rows);
        rows = NULL;
        free(eids);
    }

    /* fanout 3: min(deg, 3) distinct true in-edges per node */
    CHECK_EQ(dp_rt_sample(&rt, ids, n, 3, &key, &e), 0);
    for (i = 0, pos = 0, bad = 0; i < n; i++) {
        bad += e.counts[i] != (deg[i] < 3 ? deg[i] : 3);
        for (k = 0; k < e.counts[i]; k++, pos++) {
            int64_t ie = oeid[e.eid[pos]], j;
            bad += dp_npy_get_i64(&in.dst, (uint64_t)ie) != onid[i];
            bad += dp_npy_get_i64(&in.src, (uint64_t)ie) != onid[e.src[pos]];
            for (j = pos - k; j < pos; j++)
                bad += e.eid[j] == e.eid[pos];
        }
    }
    CHECK_EQ(pos, e.total);
    CHECK_EQ(bad, 0);
    dp_edges_release(&e);

    /* fanout -1: every in-edge */
    CHECK_EQ(dp_rt_sample(&rt, ids, n, -1, &key, &e), 0);
    CHECK_EQ(e.total, rt.cfg.num_edges);
    for (i = 0, bad = 0; i < n; i++)
        bad += e.counts[i] != deg[i];
    CHECK_EQ(bad, 0);
    dp_edges_release(&e);

    /* a node's sample does not depend on its batch: reversed order */
    {
        struct dp_edges a, b;
        int64_t *rev = malloc((size_t)n * 8), pa = 0,
                *pb = calloc((size_t)n + 1, 8);
        for (i = 0; i < n; i++)
            rev[i] = n - 1 - i;
        CHECK_EQ(dp_rt_sample(&rt, ids, n, 2, &key, &a), 0);
        CHECK_EQ(dp_rt_sample(&rt, rev, n, 2, &key, &b), 0);
        for (i = 0; i < n; i++) /* offsets into b, in b's order */
            pb[i + 1] = pb[i] + b.counts[i];
        for (i = 0, bad = 0; i < n; i++) {
            bad += a.counts[i] != b.counts[n - 1 - i];
            bad += memcmp(a.eid + pa, b.eid + pb[n - 1 - i],
                          (size_t)a.counts[i] * 8) != 0;
            pa += a.counts[i];
        }
        CHECK_EQ(bad, 0);
        dp_edges_release(&a);
        dp_edges_release(&b);
        free(rev);
        free(pb);
    }

    /* unknown ids are errors, not crashes */
    ids[0] = n;
    CHECK_EQ(dp_rt_in_degree(&rt, ids, 1, deg), DP_ERANGE);
    ids[0] = -1;
    CHECK(dp_rt_gather(&rt, 0, "feat", ids, 1, &rows, &rb, &dt) != 0);
    ids[0] = 0;
    CHECK_EQ(dp_rt_gather(&rt, 0, "nosuch", ids, 1, &rows, &rb, &dt),
             DP_ENOENT);

    free(ids);
    free(deg);
    free(onid);
    free(oeid);
    dp_rt_close(&rt);
    release_input(&in);
}

static void test_one_part(void)
{
    check_set(FIX "/one-part");
}
static void test_metis4(void)
{
    check_set(FIX "/metis4-train-edges");
}
static void test_metis2_hops2(void)
{
    check_set(FIX "/metis2-hops2");
}

static int64_t find(const int64_t *v, int64_t n, int64_t x)
{
    int64_t i;

    for (i = 0; i < n; i++)
        if (v[i] == x)
            return i;
    return -1;
}

static void test_blocks(void)
{
    struct dp_rt rt;
    struct dp_blocks bs;
    int64_t seeds[50], fan[3] = { 4, -1, 2 }, i, j, bad = 0, *deg, *cnt;
    int l;

    CHECK_EQ(dp_rt_open_standalone(&rt, FIX "/metis4-train-edges/cora.json"),
             0);
    for (i = 0; i < 50; i++)
        seeds[i] = i * 53;
    CHECK_EQ(dp_rt_sample_blocks(&rt, seeds, 50, fan, 3, 9, 1, &bs), 0);
    CHECK_EQ(bs.num_layers, 3);
    CHECK_EQ(bs.b[2].num_dst, 50);
    CHECK(!memcmp(bs.b[2].src_nodes, seeds, sizeof(seeds)));
    for (l = 0; l < 3; l++) {
        const struct dp_block *b = &bs.b[l];
        if (l < 2) {
            bad += b->num_dst != bs.b[l + 1].num_src;
            bad += memcmp(b->src_nodes, bs.b[l + 1].src_nodes,
                          (size_t)b->num_dst * 8) != 0;
        }
        for (i = 0; i < b->num_src; i++) /* distinct sources */
            bad += find(b->src_nodes, i, b->src_nodes[i]) >= 0;
        deg = calloc((size_t)b->num_dst, 8);
        cnt = calloc((size_t)b->num_dst, 8);
        CHECK_EQ(dp_rt_in_degree(&rt, b->src_nodes, b->num_dst, deg), 0);
        for (j = 0; j < b->num_edges; j++) {
            int64_t d = find(b->src_nodes, b->num_dst, b->edge_dst[j]);
            bad += d < 0 || find(b->src_nodes, b->num_src, b->edge_src[j]) < 0;
            if (d >= 0)
                cnt[d]++;
        }
        for (i = 0; i < b->num_dst; i++)
            bad += cnt[i] != (fan[l] < 0 || deg[i] < fan[l] ? deg[i] : fan[l]);
        free(deg);
        free(cnt);
    }
    CHECK_EQ(bad, 0);
    dp_blocks_release(&bs);
    dp_rt_close(&rt);
}

static void test_book(void)
{
    struct dp_part_config c;
    struct dp_book b;
    int64_t i;
    int p, bad = 0;

    CHECK_EQ(dp_config_load(&c, FIX "/metis4-train-edges/cora.json"), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    for (i = 0; i < c.num_nodes; i++) {
        for (p = 0; p < c.num_parts; p++)
            if (i >= c.node_map[p][0] && i < c.node_map[p][1])
                break;
        bad += dp_book_node_part(&b, i) != p;
    }
    for (i = 0; i < c.num_edges; i++) {
        for (p = 0; p < c.num_parts; p++)
            if (i >= c.edge_map[p][0] && i < c.edge_map[p][1])
                break;
        bad += dp_book_edge_part(&b, i) != p;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(dp_book_node_part(&b, -1), -1);
    CHECK_EQ(dp_book_node_part(&b, c.num_nodes), -1);
    CHECK_EQ(dp_book_edge_part(&b, c.num_edges), -1);
    dp_book_release(&b);
    dp_config_release(&c);
}

static void test_choose(void)
{
    struct dp_sample_key key = { 1, 2, 3 };
    int64_t out[3000], *scratch = NULL, counts[10] = { 0 }, i, j, v;
    size_t cap = 0;
    int bad = 0;

    /* distinct, ascending, in range; also the complement and big paths */
    for (v = 0; v < 200; v++) {
        int64_t n = 5 + v * 13, k = v % 7 == 0 ? n - 2 : 1 + v % 25;
        CHECK_EQ(dp_sample_choose(&key, v, n, k, out, &scratch, &cap), 0);
        for (j = 0; j < k; j++)
            bad += out[j] < 0 || out[j] >= n || (j && out[j] <= out[j - 1]);
    }
    CHECK_EQ(dp_sample_choose(&key, 9, 5000, 2000, out, &scratch, &cap), 0);
    for (j = 1; j < 2000; j++)
        bad += out[j] <= out[j - 1] || out[j] >= 5000;
    CHECK_EQ(bad, 0);
    /* same key, same choice; roughly uniform over keys */
    {
        int64_t a[3], b[3];
        dp_sample_choose(&key, 77, 10, 3, a, &scratch, &cap);
        dp_sample_choose(&key, 77, 10, 3, b, &scratch, &cap);
        CHECK(!memcmp(a, b, sizeof(a)));
    }
    for (v = 0; v < 20000; v++) {
        dp_sample_choose(&key, v, 10, 3, out, &scratch, &cap);
        for (j = 0; j < 3; j++)
            counts[out[j]]++;
    }
    for (i = 0; i < 10; i++)
        CHECK(counts[i] > 5700 && counts[i] < 6300);
    free(scratch);
}

static void test_node_split(void)
{
    int64_t train[10] = { 1, 3, 5, 7, 9, 11, 13, 15, 17, 19 }, *o, n;
    int64_t total = 0, r;

    for (r = 0; r < 3; r++) {
        CHECK_EQ(dp_node_split(train, 10, (int)r, 3, &o, &n), 0);
        CHECK_EQ(n, r == 0 ? 4 : 3);
        CHECK_EQ(o[0], train[total]);
        total += n;
        free(o);
    }
    CHECK_EQ(total, 10);
    CHECK(dp_node_split(train, 10, 3, 3, &o, &n) != 0);
}

/* Run one request payload through the handler; returns the reply type and
 * the error code in *code for error replies. */
static int ask(const struct dp_part *p, uint16_t type, const void *pl,
               size_t len, int *code, struct dp_buf *reply)
{
    struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, type, 9,
                                 len },
                           rh;
    dp_buf_reset(reply);
    if (dp_serve_request(p, &h, pl, reply))
        return -1;
    if (dp_frame_header_decode((unsigned char *)reply->data, DP_PROTO_MAX_REPLY,
                               &rh) ||
        rh.len + DP_PROTO_HEADER != reply->len || rh.id != 9)
        return -2;
    *code = 0;
    if (rh.type == DP_MSG_ERROR) {
        struct dp_rd r = { (unsigned char *)reply->data + DP_PROTO_HEADER,
                           (size_t)rh.len, 0, 0 };
        *code = (int)dp_rd_u32(&r);
    }
    return rh.type;
}

static void test_requests(void)
{
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part p;
    struct dp_buf req, reply;
    int code = 0;

    CHECK_EQ(dp_config_load(&c, FIX "/metis4-train-edges/cora.json"), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_part_load(&p, &c, &b, 1), 0);
    dp_buf_init(&req, 0);
    dp_buf_init(&reply, 0);

    /* a valid sample of two owned nodes */
    dp_wr_u64(&req, 5);
    dp_wr_u32(&req, 0);
    dp_wr_u32(&req, 0);
    dp_wr_u64(&req, 2);
    dp_wr_u64(&req, 2);
    dp_wr_u64(&req, (uint64_t)c.node_map[1][0]);
    dp_wr_u64(&req, (uint64_t)c.node_map[1][0] + 1);
    CHECK_EQ(ask(&p, DP_MSG_SAMPLE, req.data, req.len, &code, &reply),
             DP_MSG_SAMPLE);
    /* every truncation of it is an error reply */
    {
        size_t cut;
        int bad = 0;
        for (cut = 0; cut < req.len; cut++)
            bad += ask(&p, DP_MSG_SAMPLE, req.data, cut, &code, &reply) !=
                       DP_MSG_ERROR ||
                   code != DP_EPROTO;
        CHECK_EQ(bad, 0);
    }
    /* a node of another part */
    dp_buf_reset(&req);
    dp_wr_u64(&req, 1);
    dp_wr_u64(&req, 0);
    CHECK_EQ(ask(&p, DP_MSG_DEGREE, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_ERANGE);
    /* a huge count with no ids behind it */
    dp_buf_reset(&req);
    dp_wr_u64(&req, UINT64_MAX);
    CHECK_EQ(ask(&p, DP_MSG_DEGREE, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_ETOOBIG);
    dp_buf_reset(&req);
    dp_wr_u64(&req, 1000);
    CHECK_EQ(ask(&p, DP_MSG_DEGREE, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_EPROTO);
    /* gather: unknown feature, bad name length, a good one */
    dp_buf_reset(&req);
    dp_wr_u8(&req, 0);
    dp_wr_u16(&req, 4);
    dp_buf_add(&req, "nope", 4);
    dp_wr_u64(&req, 1);
    dp_wr_u64(&req, (uint64_t)c.node_map[1][0]);
    CHECK_EQ(ask(&p, DP_MSG_GATHER, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_ENOENT);
    memcpy(req.data + 3, "feat", 4);
    CHECK_EQ(ask(&p, DP_MSG_GATHER, req.data, req.len, &code, &reply),
             DP_MSG_GATHER);
    CHECK_EQ(reply.len, DP_PROTO_HEADER + 20 + 1433 * 4);
    req.data[1] = (char)0xff;
    CHECK_EQ(ask(&p, DP_MSG_GATHER, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    /* bad fanout, unknown type, trailing bytes */
    dp_buf_reset(&req);
    dp_wr_u64(&req, 5);
    dp_wr_u32(&req, 0);
    dp_wr_u32(&req, 0);
    dp_wr_u64(&req, (uint64_t)-7);
    dp_wr_u64(&req, 0);
    CHECK_EQ(ask(&p, DP_MSG_SAMPLE, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_ERANGE);
    CHECK_EQ(ask(&p, 999, req.data, req.len, &code, &reply), DP_MSG_ERROR);
    CHECK_EQ(code, DP_EPROTO);
    /* the largest fanout allocates by degree, not by fanout; INT64_MIN ids
     * are refused without overflow */
    dp_buf_reset(&req);
    dp_wr_u64(&req, 5);
    dp_wr_u32(&req, 0);
    dp_wr_u32(&req, 0);
    dp_wr_u64(&req, (uint64_t)1 << 31);
    dp_wr_u64(&req, 1);
    dp_wr_u64(&req, (uint64_t)c.node_map[1][0]);
    CHECK_EQ(ask(&p, DP_MSG_SAMPLE, req.data, req.len, &code, &reply),
             DP_MSG_SAMPLE);
    memset(req.data + req.len - 8, 0, 8);
    req.data[req.len - 1] = (char)0x80;
    CHECK_EQ(ask(&p, DP_MSG_SAMPLE, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);
    CHECK_EQ(code, DP_ERANGE);
    dp_buf_reset(&req);
    dp_wr_u32(&req, DP_PROTO_VERSION);
    CHECK_EQ(ask(&p, DP_MSG_HELLO, req.data, req.len, &code, &reply),
             DP_MSG_ERROR); /* no client id */
    dp_wr_u32(&req, 3);
    CHECK_EQ(ask(&p, DP_MSG_HELLO, req.data, req.len, &code, &reply),
             DP_MSG_HELLO);
    {
        uint32_t client = 0;
        CHECK_EQ(dp_hello_client(req.data, req.len, &client), 0);
        CHECK_EQ(client, 3);
        CHECK(dp_hello_client(req.data, 4, &client) != 0);
    }
    dp_wr_u8(&req, 1);
    CHECK_EQ(ask(&p, DP_MSG_HELLO, req.data, req.len, &code, &reply),
             DP_MSG_ERROR);

    /* frame headers */
    {
        unsigned char hdr[DP_PROTO_HEADER];
        struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, 2, 1,
                                     100 },
                               d;
        dp_frame_header_encode(hdr, &h);
        CHECK_EQ(dp_frame_header_decode(hdr, 100, &d), 0);
        CHECK_EQ(d.len, 100);
        CHECK_EQ(dp_frame_header_decode(hdr, 99, &d), DP_EPROTO);
        hdr[4] = 9;
        CHECK_EQ(dp_frame_header_decode(hdr, 100, &d), DP_EPROTO);
        hdr[4] = 1;
        hdr[0] ^= 1;
        CHECK_EQ(dp_frame_header_decode(hdr, 100, &d), DP_EPROTO);
    }
    dp_buf_release(&req);
    dp_buf_release(&reply);
    dp_part_release(&p);
    dp_book_release(&b);
    dp_config_release(&c);
}

/* A reply produced a few bytes at a time, as the server does for a slow
 * socket, is byte for byte the reply made whole. */
static void check_streamed(const struct dp_part *p, uint16_t type,
                           const void *pl, size_t len, size_t room)
{
    struct dp_frame_header h = { DP_PROTO_MAGIC, DP_PROTO_VERSION, type, 7,
                                 len };
    struct dp_reply_stream st = { 0 };
    struct dp_buf whole, parts;
    int fills = 0, rc = 0;

    dp_buf_init(&whole, 0);
    dp_buf_init(&parts, 0);
    CHECK_EQ(dp_serve_request(p, &h, pl, &whole), 0);
    CHECK_EQ(dp_serve_request_start(p, &h, pl, &parts, &st, room), 0);
    while (st.type && !rc && fills < 1000000) {
        CHECK(dp_reply_stream_held(&st) > 0);
        rc = dp_reply_stream_fill(p, &st, &parts, room);
        fills++;
    }
    CHECK_EQ(rc, 0);
    CHECK_EQ(st.type, 0);
    CHECK(fills > 2);
    CHECK_EQ(parts.len, whole.len);
    CHECK(parts.len == whole.len && !memcmp(parts.data, whole.data, whole.len));
    dp_reply_stream_release(&st);
    dp_buf_release(&whole);
    dp_buf_release(&parts);
}

static void test_streamed(void)
{
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part p;
    struct dp_buf req;
    int64_t v, n;

    CHECK_EQ(dp_config_load(&c, FIX "/metis4-train-edges/cora.json"), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_part_load(&p, &c, &b, 1), 0);
    dp_buf_init(&req, 0);
    n = p.num_inner;
    /* every inner node twice, fanout 3 and all */
    dp_wr_u64(&req, 11);
    dp_wr_u32(&req, 2);
    dp_wr_u32(&req, 1);
    dp_wr_u64(&req, 3);
    dp_wr_u64(&req, (uint64_t)(2 * n));
    for (v = 0; v < 2 * n; v++)
        dp_wr_u64(&req, (uint64_t)(p.node_start + v % n));
    check_streamed(&p, DP_MSG_SAMPLE, req.data, req.len, 100);
    memset(req.data + 16, 0xff, 8);
    check_streamed(&p, DP_MSG_SAMPLE, req.data, req.len, 1000);
    /* degrees of the same ids, past one chunk of the handler */
    check_streamed(&p, DP_MSG_DEGREE, req.data + 24, req.len - 24, 64);
    /* feature rows */
    dp_buf_reset(&req);
    dp_wr_u8(&req, 0);
    dp_wr_u16(&req, 4);
    dp_buf_add(&req, "feat", 4);
    dp_wr_u64(&req, (uint64_t)n);
    for (v = 0; v < n; v++)
        dp_wr_u64(&req, (uint64_t)(p.node_start + (v * 7) % n));
    check_streamed(&p, DP_MSG_GATHER, req.data, req.len, 10000);
    dp_buf_release(&req);
    dp_part_release(&p);
    dp_book_release(&b);
    dp_config_release(&c);
}

/* DGL's typed cora partitions: each typed feature row is the one of its
 * node. paper/feat[b] counts the words j % 8 == b of the paper, word/count
 * the papers using the word (the fixture's README); per-type ids follow
 * the type's ranges in part order, and orig_nids_<type>.npy maps them to
 * input ids. */
static void check_typed_set(const char *dir)
{
    char path[512];
    struct dp_part_config c;
    struct dp_book b;
    struct dp_npy feat, orig[2];
    const char *const tname[2] = { "paper", "word" };
    int64_t per_type[2] = { 0, 0 }, bad = 0, checked = 0;
    int p, t;

    snprintf(path, sizeof(path), "%s/cora_hetero.json", dir);
    CHECK_EQ(dp_config_load(&c, path), 0);
    CHECK_EQ(c.num_ntypes, 2);
    CHECK_EQ(c.num_etypes, 3);
    CHECK(!strcmp(c.ntypes[0], "paper") && !strcmp(c.ntypes[1], "word"));
    CHECK(!strcmp(c.etypes[1], "paper:has:word"));
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_npy_open(&feat, FIX "/input/feat.npy"), 0);
    for (t = 0; t < 2; t++) {
        snprintf(path, sizeof(path), "%s/orig_nids_%s.npy", dir, tname[t]);
        CHECK_EQ(dp_npy_open(&orig[t], path), 0);
    }
    for (p = 0; p < c.num_parts; p++) {
        struct dp_part part;
        CHECK_EQ(dp_part_load(&part, &c, &b, p), 0);
        for (t = 0; t < 2; t++) {
            const struct dp_ndarray *a =
                dp_part_feature(&part, 0, t ? "word/count" : "paper/feat");
            const int64_t *r = c.ntype_map[p * 2 + t];
            int64_t g, start = 0, rows = 0;
            float row[8];
            CHECK(a != NULL);
            CHECK_EQ(dp_config_feature_range(&c, p, 0,
                                             t ? "word/count" : "paper/feat",
                                             &start, &rows),
                     t);
            CHECK_EQ(start, r[0]);
            CHECK_EQ(dp_part_feature_start(&part, 0, a), r[0]);
            for (g = r[0]; a && g < r[1]; g++) {
                int64_t o = dp_npy_get_i64(&orig[t], (uint64_t)per_type[t]++);
                const float *x = feat.data;
                float want[8] = { 0 };
                int64_t j, k;
                CHECK_EQ(dp_config_ntype_of(&c, g), t);
                CHECK_EQ(dp_part_gather(&part, 0, a, &g, 1, row), 0);
                if (t == 0) {
                    for (j = 0; j < 1433; j++)
                        want[j % 8] += x[o * 1433 + j] != 0;
                } else {
                    for (k = 0; k < 2708; k++)
                        want[0] += x[k * 1433 + o] != 0;
                }
                for (j = 0; j < (t ? 1 : 8); j++)
                    bad += row[j] != want[j];
                checked++;
            }
            /* an id of the other type is not a row of this feature */
            if (a && r[1] > r[0]) {
                int64_t other = t ? r[0] - 1 : r[1];
                CHECK(dp_config_ntype_of(&c, other) != t);
                CHECK(dp_part_gather(&part, 0, a, &other, 1, row) != 0);
            }
        }
        dp_part_release(&part);
    }
    CHECK_EQ(checked, 4141);
    CHECK_EQ(bad, 0);
    CHECK_EQ(per_type[0], 2708);
    CHECK_EQ(per_type[1], 1433);
    CHECK_EQ(dp_config_ntype_of(&c, -1), -1);
    CHECK_EQ(dp_config_ntype_of(&c, 4141), -1);
    CHECK(dp_config_feature_range(&c, 0, 0, "author/feat", &checked, &checked) <
          0);
    for (t = 0; t < 2; t++)
        dp_npy_release(&orig[t]);
    dp_npy_release(&feat);
    dp_book_release(&b);
    dp_config_release(&c);
}

/* A fanout per edge type: each seed gets min(degree of the type, fanout)
 * distinct in-edges of each type, only of the types asked for, the same
 * from the handler in small pieces as whole. */
static void test_typed_fanouts(void)
{
    const char *dir = "../shared/fixtures/dgl-cora-hetero/hetero-metis4-train";
    char path[512];
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part p;
    struct dp_sample_key key = { 5, 1, 0 };
    int64_t by[3] = { 2, 0, 3 }, *seeds, n, i, o = 0, bad = 0, total = 0;
    struct dp_fanout f = { 0, by, 3 };
    struct dp_edges e = { 0 };

    snprintf(path, sizeof(path), "%s/cora_hetero.json", dir);
    CHECK_EQ(dp_config_load(&c, path), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_part_load(&p, &c, &b, 1), 0);
    CHECK_EQ(p.num_etypes, 3);
    n = p.num_inner;
    seeds = malloc((size_t)n * 8);
    for (i = 0; i < n; i++)
        seeds[i] = p.node_start + i;
    CHECK_EQ(dp_part_sample_typed(&p, seeds, n, &f, &key, INT64_MAX, &e), 0);
    for (i = 0; i < n; i++) {
        int64_t lo = p.indptr[i], hi = p.indptr[i + 1], deg[3] = { 0 };
        int64_t got[3] = { 0 }, j, k, t;
        for (j = lo; j < hi; j++) {
            t = dp_config_etype_of(&c, p.eid[j]);
            deg[t]++;
            bad += j > lo && p.etype[j] < p.etype[j - 1]; /* grouped */
            bad += p.etype[j] != t;
        }
        for (k = o; k < o + e.counts[i]; k++) {
            int found = 0;
            t = dp_config_etype_of(&c, e.eid[k]);
            got[t]++;
            for (j = lo; j < hi; j++)
                found |= p.eid[j] == e.eid[k] && p.src[j] == e.src[k];
            for (j = o; j < k; j++)
                bad += e.eid[j] == e.eid[k]; /* without replacement */
            bad += !found;
        }
        for (t = 0; t < 3; t++)
            bad += got[t] != (deg[t] < by[t] ? deg[t] : by[t]);
        o += e.counts[i];
    }
    CHECK_EQ(o, e.total);
    CHECK_EQ(bad, 0);
    total = e.total;
    CHECK(total > 0);
    dp_edges_release(&e);
    /* one fanout for every type of a typed part still samples all types */
    f.by_etype = NULL;
    f.all = -1;
    CHECK_EQ(dp_part_sample_typed(&p, seeds, n, &f, &key, INT64_MAX, &e), 0);
    CHECK_EQ(e.total, p.indptr[n]);
    dp_edges_release(&e);
    /* a wrong number of type fanouts is refused */
    f.by_etype = by;
    f.num_etypes = 2;
    CHECK(dp_part_sample_typed(&p, seeds, n, &f, &key, INT64_MAX, &e) != 0);
    {
        struct dp_buf req;
        dp_buf_init(&req, 0);
        dp_wr_u64(&req, 5);
        dp_wr_u32(&req, 1);
        dp_wr_u32(&req, 0);
        dp_wr_u16(&req, 3);
        for (i = 0; i < 3; i++)
            dp_wr_u64(&req, (uint64_t)by[i]);
        dp_wr_u64(&req, (uint64_t)n);
        for (i = 0; i < n; i++)
            dp_wr_u64(&req, (uint64_t)seeds[i]);
        check_streamed(&p, DP_MSG_SAMPLE_TYPED, req.data, req.len, 200);
        dp_buf_release(&req);
    }
    free(seeds);
    dp_part_release(&p);
    dp_book_release(&b);
    dp_config_release(&c);
}

static void test_typed(void)
{
    check_typed_set("../shared/fixtures/dgl-cora-hetero/hetero-metis4-train");
    check_typed_set("../shared/fixtures/dgl-cora-hetero/hetero-metis2-edges");
    check_typed_set("../shared/fixtures/dgl-cora-hetero/hetero-one-part");
}

/* A feature whose type prefix names no type of the config: the loader
 * wraps the config's message with the file's name, both whole. */
static void test_feature_no_type(void)
{
    const char *dir = "../shared/fixtures/dgl-cora-hetero/hetero-metis4-train";
    char tmp[] = "/tmp/dglpart-unit-runtime.XXXXXX", path[512], want[1024];
    struct dp_tensor_writer w;
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part p;
    float row[4] = { 0 };
    int64_t shape[1] = { 4 };

    if (!mkdtemp(tmp)) {
        TH_FAIL("mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/cora_hetero.json", dir);
    CHECK_EQ(dp_config_load(&c, path), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    snprintf(path, sizeof(path), "%s/node_feat.dgl", tmp);
    CHECK_EQ(dp_tensor_writer_open(&w, path, 1), 0);
    CHECK_EQ(dp_tensor_writer_add(&w, "author/feat", DP_F32, 1, shape, row), 0);
    CHECK_EQ(dp_tensor_writer_commit(&w), 0);
    free(c.node_feats[0]);
    c.node_feats[0] = dp_strdup(path);
    CHECK_EQ(dp_part_load(&p, &c, &b, 0), DP_EFORMAT);
    snprintf(want, sizeof(want),
             "'%s': '%s': feature 'author/feat' names no node type of '%s'",
             path, c.path, c.path);
    CHECK_STR(dp_errmsg(), want);
    dp_book_release(&b);
    dp_config_release(&c);
    dp_rm_rf(tmp);
}

static void test_env(void)
{
    struct dp_dist_env e;
    int served = 1;

    setenv("DGL_ROLE", "server", 1);
    setenv("DGL_DIST_MODE", "distributed", 1);
    setenv("DGL_SERVER_ID", "3", 1);
    setenv("DGL_NUM_SERVER", "2", 1);
    setenv("DGL_NUM_CLIENT", "4", 1);
    setenv("DGL_IP_CONFIG", "ip.txt", 1);
    unsetenv("DGL_CONF_PATH");
    CHECK_EQ(dp_dist_env(&e), 0);
    CHECK(e.is_server && !e.standalone);
    CHECK_EQ(e.server_id, 3);
    CHECK_EQ(e.num_servers, 2);
    CHECK_EQ(e.num_clients, 4);
    CHECK_STR(e.ip_config, "ip.txt");
    CHECK(e.conf_path == NULL);
    /* a server without its config is refused before serving */
    CHECK_EQ(dp_dist_init(&served), DP_EINVAL);
    setenv("DGL_SERVER_ID", "x1", 1);
    CHECK(dp_dist_env(&e) != 0);
    unsetenv("DGL_ROLE");
    unsetenv("DGL_DIST_MODE");
    unsetenv("DGL_SERVER_ID");
    CHECK_EQ(dp_dist_env(&e), 0);
    CHECK(!e.is_server && e.standalone);
    CHECK_EQ(e.server_id, -1);
    CHECK_EQ(dp_dist_init(&served), 0);
    CHECK_EQ(served, 0);
    unsetenv("DGL_NUM_SERVER");
    unsetenv("DGL_NUM_CLIENT");
    unsetenv("DGL_IP_CONFIG");
}

/* ---- the shared copy ---- */

static char shm_dir[256];

static void make_shm_dir(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(shm_dir, sizeof(shm_dir), "%s/dp-unit-shm-XXXXXX",
             t && *t ? t : "/tmp");
    if (!mkdtemp(shm_dir))
        shm_dir[0] = 0;
}

/* Files in shm_dir, or -1. */
static int shm_files(void)
{
    DIR *d = opendir(shm_dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void remove_shm_dir(void)
{
    DIR *d = opendir(shm_dir);
    struct dirent *e;
    char path[512];

    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", shm_dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(shm_dir);
}

static void put_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0)
            TH_FAIL("cannot write '%s'", path);
        close(fd);
    }
}

/* The same arrays and answers as a private load. */
static void check_same_part(const struct dp_part *a, const struct dp_part *q)
{
    struct dp_sample_key key = { 9, 1, 0 };
    struct dp_edges x = { 0 }, y = { 0 };
    int64_t *seeds = malloc((size_t)q->num_inner * 8 + 8), i, total;

    CHECK_EQ(a->num_inner, q->num_inner);
    CHECK_EQ(a->num_etypes, q->num_etypes);
    total = q->indptr[q->num_inner];
    CHECK(!memcmp(a->indptr, q->indptr, ((size_t)q->num_inner + 1) * 8));
    CHECK(!memcmp(a->src, q->src, (size_t)total * 8));
    CHECK(!memcmp(a->eid, q->eid, (size_t)total * 8));
    CHECK(!q->etype || !memcmp(a->etype, q->etype, (size_t)total * 2));
    for (i = 0; i < q->num_inner; i++)
        seeds[i] = q->node_start + i;
    CHECK_EQ(dp_part_sample(a, seeds, q->num_inner, 3, &key, INT64_MAX, &x), 0);
    CHECK_EQ(dp_part_sample(q, seeds, q->num_inner, 3, &key, INT64_MAX, &y), 0);
    CHECK_EQ(x.total, y.total);
    CHECK(x.total > 0 && !memcmp(x.src, y.src, (size_t)x.total * 8));
    dp_edges_release(&x);
    dp_edges_release(&y);
    free(seeds);
}

static void shared_set(const char *cfg, int part)
{
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part q, a, a2;
    int built = -1;
    char path[512];

    CHECK_EQ(dp_config_load(&c, cfg), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_part_load(&q, &c, &b, part), 0);
    CHECK(!dp_part_shm_path(&q));
    CHECK_EQ(dp_part_load_shared(&a, &c, &b, part, shm_dir, &built), 0);
    CHECK_EQ(built, 1);
    CHECK(dp_part_shm_path(&a) &&
          !strncmp(dp_part_shm_path(&a), shm_dir, strlen(shm_dir)));
    snprintf(path, sizeof(path), "%s", dp_part_shm_path(&a));
    CHECK_EQ(dp_part_load_shared(&a2, &c, &b, part, shm_dir, &built), 0);
    CHECK_EQ(built, 0);
    CHECK_STR(dp_part_shm_path(&a2), path);
    CHECK(a2.indptr != a.indptr); /* two mappings of one file */
    check_same_part(&a, &q);
    check_same_part(&a2, &q);
    CHECK(dp_part_feature(&a2, 0, "feat") ||
          dp_part_feature(&a2, 0, "features") || a2.nfeat.count > 0);
    CHECK_EQ(shm_files(), 2); /* the copy and its lock */
    dp_part_release(&a);
    CHECK_EQ(access(path, F_OK), 0); /* a2 still uses it */
    dp_part_release(&a2);
    CHECK(access(path, F_OK) != 0); /* the last one out removed it */
    CHECK_EQ(shm_files(), 0);
    dp_part_release(&q);
    dp_book_release(&b);
    dp_config_release(&c);
}

static void test_shared(void)
{
    make_shm_dir();
    CHECK(shm_dir[0]);
    shared_set(FIX "/metis2-hops2/cora.json", 1);
    shared_set(FIX "/one-part/cora.json", 0);
    shared_set("../shared/fixtures/dgl-cora-hetero/hetero-metis4-train/"
               "cora_hetero.json",
               2);
    remove_shm_dir();
}

/* Files of dead runs go; a copy someone holds stays; a file under the
 * copy's name that is not one is refused; an unusable folder falls back
 * to a private copy. */
static void test_shared_faults(void)
{
    struct dp_part_config c;
    struct dp_book b;
    struct dp_part a;
    int built = -1, held;
    char path[512], other[600], tmp[600], keep[600];

    make_shm_dir();
    CHECK_EQ(dp_config_load(&c, FIX "/metis2-hops2/cora.json"), 0);
    CHECK_EQ(dp_book_init(&b, &c), 0);
    CHECK_EQ(dp_part_load_shared(&a, &c, &b, 1, shm_dir, &built), 0);
    snprintf(path, sizeof(path), "%s", dp_part_shm_path(&a));
    dp_part_release(&a);
    snprintf(other, sizeof(other), "%s/dglpart-cora-part1-0123456789abcdef",
             shm_dir);
    snprintf(keep, sizeof(keep), "%s/dglpart-cora-part1-fedcba9876543210",
             shm_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp99999999", path);
    put_file(other, "an old run's copy");
    put_file(tmp, "half a copy");
    put_file(keep, "a copy in use");
    held = open(keep, O_RDONLY);
    CHECK(held >= 0 && !flock(held, LOCK_SH));
    CHECK_EQ(dp_part_load_shared(&a, &c, &b, 1, shm_dir, &built), 0);
    CHECK_EQ(built, 1);
    CHECK(access(other, F_OK) != 0);
    CHECK(access(tmp, F_OK) != 0);
    CHECK_EQ(access(keep, F_OK), 0);
    dp_part_release(&a);
    CHECK_EQ(access(keep, F_OK), 0);
    close(held);

    /* under the copy's name, but not a copy: refused, named */
    put_file(path, "not a copy of anything, but long enough to have a "
                   "header's worth of bytes in it, more or less, maybe");
    CHECK_EQ(dp_part_load_shared(&a, &c, &b, 1, shm_dir, &built), DP_EFORMAT);
    CHECK_CONTAINS(dp_errmsg(), path);
    CHECK_CONTAINS(dp_errmsg(), "not a complete shared copy");
    unlink(path);

    /* no such folder: a private copy */
    CHECK_EQ(dp_part_load_shared(&a, &c, &b, 1, "/nonexistent/dp-shm", &built),
             0);
    CHECK_EQ(built, 1);
    CHECK(!dp_part_shm_path(&a) && a.indptr);
    dp_part_release(&a);
    dp_book_release(&b);
    dp_config_release(&c);
    remove_shm_dir();
}

/* ---- the sampler pool ---- */

#define POOL_SLOTS 2

struct pool_test {
    int fail_at, kill_at; /* index whose make fails / is killed, or -1 */
    uint64_t *started;    /* [workers], shared with the workers */
    int64_t buf[64];
    struct dp_batch_layer layer;
};

/* Batch g: a little of everything, each value a function of g. */
static int pool_make(void *arg, uint64_t g, struct dp_batch *b)
{
    struct pool_test *t = arg;
    int64_t i, n = (int64_t)(g % 5) + 1;

    __atomic_add_fetch(&t->started[g % 3], 1, __ATOMIC_SEQ_CST);
    if ((int)g == t->fail_at)
        return dp_error(DP_EIO, "no batch %d today", (int)g);
    if ((int)g == t->kill_at)
        raise(SIGKILL);
    for (i = 0; i < 64; i++)
        t->buf[i] = (int64_t)g * 1000 + i;
    t->layer.num_edges = n;
    t->layer.dst = t->buf;
    t->layer.src = t->buf + 8;
    t->layer.eid = t->buf + 16;
    b->index = g;
    b->epoch = (uint32_t)(g / 10);
    b->num_layers = 1;
    b->layers = &t->layer;
    b->num_inputs = n;
    b->inputs = t->buf + 24;
    b->feat = t->buf + 32;
    b->feat_bytes = 8;
    b->num_seeds = 2;
    b->seeds = t->buf + 40;
    b->labels = t->buf + 48;
    b->label_bytes = 4;
    b->deg = t->buf + 56;
    return 0;
}

static void pool_drop(void *arg, struct dp_batch *b)
{
    (void)arg;
    (void)b;
}

/* Run a 3-worker pool over count batches; 0 or the first error. */
static int pool_run(struct pool_test *t, uint64_t count, uint64_t *taken)
{
    struct dp_pool_job job = { t,    NULL,  pool_make, pool_drop,
                               NULL, count, 1,         "sampler" };
    struct dp_pool *p = NULL;
    struct dp_pool_stats st;
    struct dp_batch_layer l;
    uint64_t g, freed[3] = { 0 };
    int rc, bad = 0;

    *taken = 0;
    memset(t->started, 0, 3 * sizeof(*t->started));
    if ((rc = dp_pool_start(&p, &job, 3, POOL_SLOTS)))
        return rc;
    for (g = 0; g < count && !rc; g++) {
        struct dp_batch b;
        int w = (int)(g % 3);
        b.layers = &l;
        if (g)
            freed[(g - 1) % 3]++; /* handed back by this call */
        if ((rc = dp_pool_next(p, g, &b)))
            break;
        (*taken)++;
        bad += b.index != g || b.epoch != g / 10 ||
               l.num_edges != (int64_t)(g % 5) + 1 ||
               l.src[0] != (int64_t)g * 1000 + 8 ||
               ((const int64_t *)b.feat)[l.num_edges - 1] !=
                   (int64_t)g * 1000 + 32 + l.num_edges - 1 ||
               b.deg[1] != (int64_t)g * 1000 + 57;
        /* a worker never starts more than its slots beyond what it got
         * back (the one just returned is still held) */
        bad += __atomic_load_n(&t->started[w], __ATOMIC_SEQ_CST) >
               freed[w] + POOL_SLOTS;
        if (g == 50 && count == 100) {
            /* let every worker run into its bound, then look again */
            int k, spins;
            for (k = 0; k < 3; k++)
                for (spins = 0;
                     __atomic_load_n(&t->started[k], __ATOMIC_SEQ_CST) <
                         freed[k] + POOL_SLOTS &&
                     spins < 30000000;
                     spins++)
                    sched_yield();
            for (k = 0; k < 3; k++)
                bad += __atomic_load_n(&t->started[k], __ATOMIC_SEQ_CST) !=
                       freed[k] + POOL_SLOTS;
        }
    }
    CHECK_EQ(bad, 0);
    if (!rc)
        rc = dp_pool_finish(p, &st);
    dp_pool_free(p);
    return rc;
}

static void test_pool(void)
{
    struct pool_test t;
    uint64_t taken;

    memset(&t, 0, sizeof(t));
    t.started = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(t.started != MAP_FAILED);
    t.fail_at = t.kill_at = -1;
    CHECK_EQ(pool_run(&t, 100, &taken), 0);
    CHECK_EQ(taken, 100);
    CHECK_EQ(t.started[0] + t.started[1] + t.started[2], 100);
    CHECK_EQ(pool_run(&t, 0, &taken), 0); /* nothing to make */
    CHECK_EQ(t.started[0] + t.started[1] + t.started[2], 0);
    CHECK_EQ(pool_run(&t, 2, &taken), 0); /* a worker with none */
    /* a worker's error comes back whole, with its number */
    t.fail_at = 40;
    CHECK_EQ(pool_run(&t, 100, &taken), DP_EREMOTE);
    CHECK_CONTAINS(dp_errmsg(), "sampler 1: no batch 40 today");
    CHECK(taken <= 40);
    /* one killed: named with its signal */
    t.fail_at = -1;
    t.kill_at = 20;
    CHECK_EQ(pool_run(&t, 100, &taken), DP_EREMOTE);
    CHECK_CONTAINS(dp_errmsg(), "sampler 2 (pid ");
    CHECK_CONTAINS(dp_errmsg(), "killed by signal 9");
    CHECK(taken <= 20);
    munmap(t.started, 4096);
}

int main(void)
{
    RUN(test_env);
    RUN(test_book);
    RUN(test_blocks);
    RUN(test_choose);
    RUN(test_node_split);
    RUN(test_one_part);
    RUN(test_metis4);
    RUN(test_metis2_hops2);
    RUN(test_requests);
    RUN(test_streamed);
    RUN(test_typed);
    RUN(test_typed_fanouts);
    RUN(test_feature_no_type);
    RUN(test_shared);
    RUN(test_shared_faults);
    RUN(test_pool);
    return TH_DONE();
}
