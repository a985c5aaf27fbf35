/* Unit tests of the compressed neighbour lists (partition/cgraph.c):
 * every graph is encoded, decoded three ways (whole lists, chunk by chunk,
 * to plain arrays) and compared with its rows sorted. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../partition/cgraph.h"
#include "dglpart/memory.h"
#include "harness.h"

static char tmpdir[] = "/tmp/dglpart-unit-cgXXXXXX";

struct csr {
    int32_t n;
    int64_t *xadj;
    int32_t *adj, *adjw; /* adjw may be NULL */
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void csr_alloc(struct csr *c, int32_t n, int64_t m, int weights)
{
    c->n = n;
    c->xadj = calloc((size_t)n + 1, sizeof(*c->xadj));
    c->adj = malloc(((size_t)m + 1) * sizeof(*c->adj));
    c->adjw = weights ? malloc(((size_t)m + 1) * sizeof(*c->adjw)) : NULL;
}

static void csr_free(struct csr *c)
{
    free(c->xadj);
    free(c->adj);
    free(c->adjw);
}

static int cmp_pair(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;

    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Row v of c as sorted (id, weight) pairs into pairs[2 * deg]. */
static int64_t sorted_row(const struct csr *c, int32_t v, int32_t *pairs)
{
    int64_t k, d = c->xadj[v + 1] - c->xadj[v];

    for (k = 0; k < d; k++) {
        pairs[2 * k] = c->adj[c->xadj[v] + k];
        pairs[2 * k + 1] = c->adjw ? c->adjw[c->xadj[v] + k] : 1;
    }
    qsort(pairs, (size_t)d, 2 * sizeof(*pairs), cmp_pair);
    return d;
}

/* Mismatches between v's decoded list and its sorted row: how 0 decodes
 * the whole list, 1 each chunk alone. */
static int64_t check_node(const struct ml_cgraph *g, const struct csr *c,
                          int32_t v, int32_t *pairs, int how)
{
    int64_t d = sorted_row(c, v, pairs), k = 0, bad = 0, ch, nc;
    struct ml_cg_it it;

    bad += ml_cg_degree(g, v) != d;
    nc = how == 1 ? ml_cg_nchunks(d) : 1;
    for (ch = 0; ch < nc; ch++) {
        ml_cg_begin_chunk(&it, g, v, how == 1 ? ch : -1);
        while (ml_cg_next(&it)) {
            bad += k >= d || it.u != pairs[2 * k] || it.w != pairs[2 * k + 1];
            k++;
        }
    }
    return bad + (k != d);
}

/* The stretches of the source a file build says it is done with. */
struct done_log {
    pthread_mutex_t mu;
    const int32_t *lo[1 << 16], *hi[1 << 16];
    int n, over;
};

static void done_note(void *arg, const int32_t *adj, size_t len)
{
    struct done_log *d = arg;

    pthread_mutex_lock(&d->mu);
    if (d->n < (1 << 16)) {
        d->lo[d->n] = adj;
        d->hi[d->n++] = adj + len;
    } else {
        d->over = 1;
    }
    pthread_mutex_unlock(&d->mu);
}

/* Mismatches in what done was told about adj[m]: stretches inside it,
 * apart, each ending on a page, and together all of it but the pages
 * the two threads' regions share at their ends (one at most each). */
static int64_t done_bad(struct done_log *d, const int32_t *adj, int64_t m)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    int64_t bad = d->over, sum = 0;
    int i, k;

    for (i = 0; i < d->n; i++) {
        bad += d->lo[i] < adj || d->hi[i] > adj + m || d->hi[i] <= d->lo[i] ||
               (uintptr_t)d->hi[i] % pg != 0;
        for (k = 0; k < i; k++)
            bad += d->lo[i] < d->hi[k] && d->lo[k] < d->hi[i];
        sum += d->hi[i] - d->lo[i];
    }
    bad += (sum + 3 * (int64_t)(pg / sizeof(*adj))) < m;
    return bad;
}

/* Encode c on one thread and two; both must give the same bytes, and
 * every way of decoding must give c's sorted rows. Returns mismatches. */
/* g built again into a scratch file (buffers of buf bytes; NULL: the
 * usual): the same records, and decoded from there the same rows as xadj
 * and adj. */
static int64_t via_file(const struct csr *c, const struct ml_cgraph *g,
                        const int64_t *xadj, const int32_t *adj,
                        const char *buf)
{
    static struct done_log log = { .mu = PTHREAD_MUTEX_INITIALIZER };
    struct ml_cg_done done = { done_note, &log };
    struct dp_spill sp;
    struct ml_cgraph f;
    int64_t bad = 0, v, m = c->xadj[c->n];
    int64_t *x2 = malloc(((size_t)c->n + 1) * sizeof(*x2));
    const int32_t *a2;

    if (buf)
        setenv("DGLPART_TEST_CG_BUF", buf, 1);
    if (dp_spill_open(&sp, tmpdir))
        return -1;
    log.n = log.over = 0;
    if (ml_cg_build_file(&f, c->n, c->xadj, c->adj, c->adjw, 1, &sp,
                         c->adjw ? NULL : &done)) {
        dp_spill_close(&sp);
        return -1;
    }
    /* told of the whole source (unweighted), in pages, each once */
    if (!c->adjw)
        bad += done_bad(&log, c->adj, m);
    /* each thread's lists in its own region: the same records, the
     * same bytes in all */
    bad += !f.in_file || f.stored != g->nbytes || f.m != g->m;
    for (v = 0; v < c->n; v++) {
        uint64_t len = ml_cg_off(g, v + 1) - ml_cg_off(g, v);

        bad += ml_cg_degree(&f, v) != ml_cg_degree(g, v) ||
               memcmp(f.bytes + ml_cg_off(&f, v), g->bytes + ml_cg_off(g, v),
                      len) != 0;
    }
    if (!(a2 = ml_cg_decode_file(&f, x2, &sp, 1)))
        bad++;
    else
        bad += memcmp(x2, xadj, ((size_t)c->n + 1) * sizeof(*x2)) != 0 ||
               memcmp(a2, adj, (size_t)m * sizeof(*a2)) != 0;
    ml_cg_release(&f); /* nothing of the file's: sp unmaps it */
    dp_spill_close(&sp);
    unsetenv("DGLPART_TEST_CG_BUF");
    free(x2);
    return bad;
}

static int64_t roundtrip(const struct csr *c, struct ml_cgraph *keep)
{
    struct ml_cgraph g, g2;
    int64_t bad = 0, m = c->xadj[c->n], k, maxd = 1;
    int64_t *xadj = malloc(((size_t)c->n + 1) * sizeof(*xadj));
    int32_t *adj = malloc(((size_t)m + 1) * sizeof(*adj));
    int32_t *adjw = malloc(((size_t)m + 1) * sizeof(*adjw)), *pairs, v;

    for (v = 0; v < c->n; v++)
        if (c->xadj[v + 1] - c->xadj[v] > maxd)
            maxd = c->xadj[v + 1] - c->xadj[v];
    pairs = malloc((size_t)maxd * 2 * sizeof(*pairs));
    if (ml_cg_build(&g, c->n, c->xadj, c->adj, c->adjw, 0) ||
        ml_cg_build(&g2, c->n, c->xadj, c->adj, c->adjw, 1))
        return -1;
    bad += g.nbytes != g2.nbytes || memcmp(g.bytes, g2.bytes, g.nbytes);
    bad += g.m != m;
    for (v = 0; v < c->n; v++)
        bad += check_node(&g, c, v, pairs, 0) + check_node(&g, c, v, pairs, 1);
    ml_cg_decode(&g, xadj, adj, adjw, 1);
    for (v = 0; v < c->n; v++) {
        int64_t d = sorted_row(c, v, pairs);

        bad += xadj[v + 1] - xadj[v] != d;
        for (k = 0; k < d && xadj[v + 1] - xadj[v] == d; k++)
            bad += adj[xadj[v] + k] != pairs[2 * k] ||
                   adjw[xadj[v] + k] != pairs[2 * k + 1];
    }
    bad += via_file(c, &g, xadj, adj, NULL) + via_file(c, &g, xadj, adj, "8");
    ml_cg_release(&g2);
    if (keep)
        *keep = g;
    else
        ml_cg_release(&g);
    free(xadj);
    free(adj);
    free(adjw);
    free(pairs);
    return bad;
}

/* A random graph: power-law-ish degrees, rows unsorted, some with runs
 * and repeats; weights (when asked) mostly 1. */
static void random_graph(struct csr *c, int32_t n, int weights)
{
    int64_t m = 0, k;
    int32_t v;

    csr_alloc(c, n, (int64_t)n * 64, weights);
    for (v = 0; v < n; v++) {
        int64_t d = (int64_t)(rnd() % 64) >> (rnd() % 6);
        int32_t base = (int32_t)(rnd() % (uint64_t)n);

        for (k = 0; k < d; k++) {
            uint64_t r = rnd();

            c->adj[m + k] = r % 4 == 0 ? (int32_t)((base + k) % n)
                                       : (int32_t)((r >> 8) % (uint64_t)n);
            if (weights)
                c->adjw[m + k] = r % 8 == 1 ? (int32_t)(r >> 40) : 1;
        }
        m += d;
        c->xadj[v + 1] = m;
    }
}

static void test_zero_nodes(void)
{
    struct csr c;
    struct ml_cgraph g;

    csr_alloc(&c, 0, 0, 0);
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK_EQ(g.n, 0);
    CHECK_EQ(g.nbytes, 0);
    CHECK_EQ(ml_cg_size(&g), sizeof(uint32_t));
    ml_cg_release(&g);
    ml_cg_release(NULL);
    csr_free(&c);
}

static void test_single_node(void)
{
    struct csr c;
    struct ml_cgraph g;

    csr_alloc(&c, 1, 2, 0);
    CHECK_EQ(roundtrip(&c, &g), 0); /* no neighbours: no bytes */
    CHECK_EQ(g.nbytes, 0);
    ml_cg_release(&g);
    c.xadj[1] = 2; /* a self loop, twice */
    c.adj[0] = c.adj[1] = 0;
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK_EQ(ml_cg_degree(&g, 0), 2);
    CHECK_EQ(g.nbytes, 3);
    ml_cg_release(&g);
    csr_free(&c);
}

/* Empty lists between full ones take no bytes and break nothing. */
static void test_empty_lists(void)
{
    struct csr c;
    struct ml_cgraph g;
    int32_t v;

    csr_alloc(&c, 10, 10, 0);
    for (v = 0; v < 10; v++) {
        c.xadj[v + 1] = c.xadj[v] + (v % 3 == 1);
        if (v % 3 == 1)
            c.adj[c.xadj[v]] = 9 - v;
    }
    CHECK_EQ(roundtrip(&c, &g), 0);
    for (v = 0; v < 10; v++)
        CHECK_EQ(ml_cg_off(&g, v + 1) == ml_cg_off(&g, v), v % 3 != 1);
    ml_cg_release(&g);
    csr_free(&c);
}

/* Ids at both ends of the 31 bits, far from the node in both directions:
 * lists encoded alone, since a graph of 2^31 nodes does not fit here. */
static void test_max_ids(void)
{
    int32_t ids[4] = { 0, 1, INT32_MAX - 1, INT32_MAX };
    int32_t ws[4] = { 1, INT32_MAX, -1, 7 };
    int32_t vs[3] = { 0, INT32_MAX - 1, INT32_MAX };
    uint8_t buf[64];
    struct ml_cg_it it;
    int i, k, weighted;

    for (weighted = 0; weighted < 2; weighted++)
        for (i = 0; i < 3; i++) {
            const int32_t *w = weighted ? ws : NULL;
            size_t len = ml_cg_put_list(buf, vs[i], ids, w, 4);

            CHECK_EQ(len, ml_cg_put_list(NULL, vs[i], ids, w, 4));
            ml_cg_list_begin(&it, buf, len, vs[i], -1);
            for (k = 0; ml_cg_next(&it); k++) {
                CHECK_EQ(it.u, ids[k]);
                CHECK_EQ(it.w, weighted ? ws[k] : 1);
            }
            CHECK_EQ(k, 4);
        }
}

/* Self loops and repeats, with and without runs around them. */
static void test_self_loops(void)
{
    int32_t adj[] = { 0, 0, 1, 2, 3, 4, 1, 1, 1, 2, 2, 5, 6, 7 };
    int64_t xadj[] = { 0, 6, 11, 11, 14, 14, 14, 14, 14 };
    struct csr c = { 8, xadj, adj, NULL };

    CHECK_EQ(roundtrip(&c, NULL), 0);
}

/* Node 5's list 6..9 is one interval: header, first token, length. */
static void test_run_bytes(void)
{
    int32_t ids[12], ws[12], i;
    uint8_t buf[64];

    for (i = 0; i < 12; i++) {
        ids[i] = 6 + i;
        ws[i] = 1;
    }
    CHECK_EQ(ml_cg_put_list(buf, 5, ids, NULL, 4), 3);
    CHECK_EQ(ml_cg_put_list(buf, 5, ids, NULL, 12), 3);
    CHECK_EQ(ml_cg_put_list(buf, 5, ids, ws, 12), 3); /* weights all 1 */
    /* two ids: plain gaps, as short as an interval would be */
    CHECK_EQ(ml_cg_put_list(buf, 5, ids, NULL, 2), 3);
    ws[3] = 2;
    CHECK_EQ(ml_cg_put_list(buf, 5, ids, ws, 12), 3 + 12);
}

/* Runs of every length from 1 to past ML_CG_RUN_MIN, gaps between, some
 * runs long enough to cross a hub's chunk boundaries. */
static void test_runs(void)
{
    struct csr c;
    int64_t m = 0, len;
    int32_t id = 3, v;

    csr_alloc(&c, 4, 40000, 1);
    for (len = 1; len <= ML_CG_RUN_MIN + 2; len++)
        for (v = 0; v < len * 3; v++, m++) {
            c.adj[m] = id++;
            c.adjw[m] = 1;
            id += (v % len == len - 1) * 2;
        }
    c.xadj[1] = m;
    for (len = 0; len < 3 * ML_CG_CHUNK + 5; len++, m++) {
        c.adj[m] = (int32_t)(1000 + len + (len % 3000 == 2999));
        c.adjw[m] = 1 + (len % 1000 == 0);
    }
    c.xadj[2] = c.xadj[3] = m;
    for (len = 0; len < 20000; len++, m++) {
        c.adj[m] = (int32_t)len;
        c.adjw[m] = 1;
    }
    c.xadj[4] = m;
    CHECK_EQ(roundtrip(&c, NULL), 0);
    csr_free(&c);
}

/* Hubs at and around the chunking thresholds, scattered and with
 * repeats, rows unsorted. */
static void test_hubs(void)
{
    int64_t degs[] = { ML_CG_HUB - 1, ML_CG_HUB,           ML_CG_HUB + 1,
                       2 * ML_CG_HUB, 3 * ML_CG_CHUNK + 1, 100000 };
    struct csr c;
    int64_t m = 0, k;
    int32_t v, n = 6;
    struct ml_cgraph g;

    csr_alloc(&c, n, 200000, 1);
    for (v = 0; v < n; v++) {
        for (k = 0; k < degs[v]; k++, m++) {
            c.adj[m] = (int32_t)(rnd() % (uint64_t)(v == 5 ? 50000 : 1u << 30));
            c.adjw[m] = v % 2 ? 1 : (int32_t)(rnd() % 5);
        }
        c.xadj[v + 1] = m;
    }
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK_EQ(g.weighted, 1);
    CHECK_EQ(ml_cg_nchunks(ml_cg_degree(&g, 0)), 1);
    CHECK_EQ(ml_cg_nchunks(ml_cg_degree(&g, 1)), 2);
    CHECK_EQ(ml_cg_nchunks(ml_cg_degree(&g, 4)), 4);
    ml_cg_release(&g);
    csr_free(&c);
}

/* Long rows with no weights are sorted by radix: ids over every digit
 * (an odd number of passes), in one, in two (an even number), all equal
 * (none). */
static void test_radix(void)
{
    int64_t degs[] = { 5000, 300, 1000, 300, 255 };
    struct csr c;
    int64_t m = 0, k;
    int32_t v, n = 5;

    csr_alloc(&c, n, 8000, 0);
    for (v = 0; v < n; v++) {
        for (k = 0; k < degs[v]; k++, m++) {
            uint64_t r = rnd();

            c.adj[m] = v == 0   ? (int32_t)(r % (1u << 31))
                       : v == 1 ? (int32_t)(r % 256)
                       : v == 2 ? (int32_t)((1u << 24) + r % 65536)
                       : v == 3 ? 7
                                : (int32_t)(r % 100);
        }
        c.xadj[v + 1] = m;
    }
    CHECK(c.adjw == NULL);
    CHECK_EQ(roundtrip(&c, NULL), 0);
    csr_free(&c);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return x < y ? -1 : x > y;
}

/* ml_cg_sort_ids against qsort: every length around the switch to radix,
 * long rows of small, repeated and the largest ids. */
static void test_sort_ids(void)
{
    int64_t lens[] = { 0, 1, 2, 17, 255, 256, 257, 2047, 2048, 70000 };
    int32_t *a = malloc(70000 * sizeof(*a)), *want = malloc(70000 * sizeof(*a));
    int32_t *out = malloc(70000 * sizeof(*a)),
            *tmp = malloc(70000 * sizeof(*a));
    size_t i, kind;
    int64_t k;

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (kind = 0; kind < 3; kind++) {
            for (k = 0; k < lens[i]; k++) {
                uint64_t r = rnd();

                a[k] = kind == 0   ? (int32_t)(r % (1u << 31))
                       : kind == 1 ? (int32_t)(r % 37)
                                   : INT32_MAX - (int32_t)(r % 3);
            }
            memcpy(want, a, (size_t)lens[i] * sizeof(*a));
            qsort(want, (size_t)lens[i], sizeof(*a), cmp_i32);
            ml_cg_sort_ids(a, out, tmp, lens[i]);
            CHECK(!memcmp(out, want, (size_t)lens[i] * sizeof(*a)));
        }
    free(a);
    free(want);
    free(out);
    free(tmp);
}

/* Weights all 1 encode as no weights at all; mixed ones round trip. */
static void test_weights(void)
{
    struct csr c, u;
    struct ml_cgraph g, h;
    int64_t k;

    random_graph(&c, 3000, 1);
    u = c;
    u.adjw = NULL;
    for (k = 0; k < c.xadj[c.n]; k++)
        c.adjw[k] = 1;
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK_EQ(roundtrip(&u, &h), 0);
    CHECK_EQ(g.weighted, 0);
    CHECK_EQ(g.nbytes, h.nbytes);
    CHECK(!memcmp(g.bytes, h.bytes, g.nbytes));
    ml_cg_release(&g);
    c.adjw[c.xadj[c.n] / 2] = 3;
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK_EQ(g.weighted, 1);
    CHECK(g.nbytes > h.nbytes);
    ml_cg_release(&g);
    ml_cg_release(&h);
    csr_free(&c);
}

/* Lists past what 32-bit offsets address take 64-bit ones: the knob
 * lowers the limit so a small graph goes that way. */
static void test_wide_offsets(void)
{
    struct csr c;
    struct ml_cgraph g;

    random_graph(&c, 20000, 1);
    setenv("DGLPART_TEST_CG_OFF32_MAX", "1000", 1);
    CHECK_EQ(roundtrip(&c, &g), 0);
    unsetenv("DGLPART_TEST_CG_OFF32_MAX");
    CHECK(g.off64 != NULL && g.off32 == NULL);
    CHECK_EQ(ml_cg_size(&g), g.nbytes + 8 * (size_t)(g.n + 1));
    ml_cg_release(&g);
    CHECK_EQ(roundtrip(&c, &g), 0);
    CHECK(g.off32 != NULL && g.off64 == NULL);
    ml_cg_release(&g);
    csr_free(&c);
}

/* Random graphs big enough for two threads, weighted and not. */
static void test_random(void)
{
    struct csr c;
    int i;

    for (i = 0; i < 6; i++) {
        random_graph(&c, i < 3 ? 200 + i * 1000 : 20000, i % 2);
        CHECK_EQ(roundtrip(&c, NULL), 0);
        csr_free(&c);
    }
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(test_zero_nodes);
    RUN(test_single_node);
    RUN(test_empty_lists);
    RUN(test_max_ids);
    RUN(test_self_loops);
    RUN(test_run_bytes);
    RUN(test_runs);
    RUN(test_hubs);
    RUN(test_radix);
    RUN(test_sort_ids);
    RUN(test_weights);
    RUN(test_wide_offsets);
    RUN(test_random);
    rmdir(tmpdir);
    return TH_DONE();
}
