/* The edge store and the CSC writer. Edges are kept as two id arrays
 * (uint32 while ids fit); the CSC is a counting sort by destination, on two
 * threads, into (eid, source) pairs of the same width. The peak is the edge
 * arrays plus the pairs: 16 bytes per edge, as much as the output's
 * indices.npy and eids.npy; 12 with --no_eids, whose pairs are sources
 * alone. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"
#include "dglpart/progress.h"
#include "dglpart/thread.h"

#define CHUNK 65536
#define HUGE_PAGE (2u << 20)

void cv_hugepages(void *p, size_t n)
{
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);

    /* Big arrays hit at random by the counting sort: 2 MiB pages spare
     * most TLB misses and page faults. Advice only; errors do not matter. */
    if (n >= 4 * HUGE_PAGE && b > a)
        madvise((void *)a, b - a, MADV_HUGEPAGE);
}

#define SPILL_DEFAULT ((uint64_t)4 << 30)

static uint64_t spill_at(const struct cv_edges *e)
{
    const char *v = getenv("DGLPART_EDGE_SPILL");
    char *end;
    unsigned long long x;

    if (e->spill_at)
        return e->spill_at;
    if (v && *v) {
        errno = 0;
        x = strtoull(v, &end, 10);
        if (!errno && !*end)
            return (uint64_t)x;
    }
    return SPILL_DEFAULT;
}

/* An unlinked file of bytes in dir, mapped shared with old's first
 * old_bytes copied in. */
static void *spill_new(const char *dir, const void *old, size_t old_bytes,
                       size_t bytes, int *fd_out)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    void *p;

    if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
        dp_error(DP_EIO, "cannot make a scratch file for the edges in '%s': %s",
                 dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        dp_error(DP_ENOMEM, "cannot map %zu bytes of edges: %s", bytes,
                 strerror(errno));
        close(fd);
        return NULL;
    }
    if (old_bytes)
        memcpy(p, old, old_bytes);
    *fd_out = fd;
    return p;
}

static void *spill_grow(void *p, int fd, size_t old, size_t bytes)
{
    void *q;

    if (ftruncate(fd, (off_t)bytes)) {
        dp_error(DP_EIO, "cannot grow the edges' scratch file to %zu bytes: %s",
                 bytes, strerror(errno));
        return NULL;
    }
    q = mremap(p, old, bytes, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        dp_error(DP_ENOMEM, "cannot map %zu bytes of edges: %s", bytes,
                 strerror(errno));
        return NULL;
    }
    return q;
}

/* src and dst as arrays of cap entries of w bytes (e->cap entries of ew
 * bytes now): in memory, or past the spill point in files. */
static int resize_ids(struct cv_edges *e, uint64_t cap, size_t w, size_t ew)
{
    size_t old = (size_t)e->cap * ew, bytes = (size_t)cap * w;
    void *s, *d;

    if (!e->spilled && e->spill_dir && 2 * (uint64_t)bytes >= spill_at(e)) {
        int sfd = -1, dfd = -1;
        s = spill_new(e->spill_dir, e->src, old, bytes, &sfd);
        d = s ? spill_new(e->spill_dir, e->dst, old, bytes, &dfd) : NULL;
        if (!d) {
            if (s) {
                munmap(s, bytes);
                close(sfd);
            }
            return DP_EIO;
        }
        free(e->src);
        free(e->dst);
        e->src = s;
        e->dst = d;
        e->sfd = sfd;
        e->dfd = dfd;
        e->spilled = 1;
        return 0;
    }
    if (e->spilled) {
        if (!(s = spill_grow(e->src, e->sfd, old, bytes)))
            return DP_ENOMEM;
        e->src = s;
        if (!(d = spill_grow(e->dst, e->dfd, old, bytes)))
            return DP_ENOMEM;
        e->dst = d;
        return 0;
    }
    /* realloc of big blocks is an mremap: no copy, no double peak. */
    s = dp_realloc_array(e->src, (size_t)cap, w);
    if (s)
        e->src = s;
    d = s ? dp_realloc_array(e->dst, (size_t)cap, w) : NULL;
    if (d)
        e->dst = d;
    if (!s || !d)
        return DP_ENOMEM;
    cv_hugepages(e->src, bytes);
    cv_hugepages(e->dst, bytes);
    return 0;
}

#define SPILL_STEP ((uint64_t)1 << 27) /* entries a spilled array grows by */
#define DROP_EVERY ((uint64_t)1 << 22) /* entries read between drops */

/* Spilled entries [lo, hi) out of this process's resident set: their
 * pages stay in the page cache (or go to the file) until read again. */
static void drop_ids(const struct cv_edges *e, uint64_t lo, uint64_t hi)
{
    size_t w = e->wide ? 8 : 4, pg = 4096;
    uintptr_t a, b;
    int i;

    if (!e->spilled)
        return;
    for (i = 0; i < 2; i++) {
        uintptr_t base = (uintptr_t)(i ? e->dst : e->src);
        a = (base + (uintptr_t)lo * w + pg - 1) & ~(uintptr_t)(pg - 1);
        b = (base + (uintptr_t)hi * w) & ~(uintptr_t)(pg - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_DONTNEED);
    }
}

int cv_edges_grow(struct cv_edges *e, uint64_t need)
{
    uint64_t cap = e->cap ? e->cap : 4096;
    size_t w = e->wide ? 8 : 4;
    int rc;

    /* In files, grow in steps and drop what is written: the arrays then
     * hold a step of resident pages, not half their size. */
    if (e->spilled) {
        drop_ids(e, 0, e->n);
        while (cap < need) {
            if (cap > UINT64_MAX / 4)
                return dp_error(DP_ETOOBIG, "too many edges");
            cap += cap < SPILL_STEP ? cap : SPILL_STEP;
        }
    }
    while (cap < need) {
        if (cap > UINT64_MAX / 4)
            return dp_error(DP_ETOOBIG, "too many edges");
        cap *= 2;
    }
    if (cap > SIZE_MAX / 16)
        return dp_error(DP_ETOOBIG, "too many edges (%" PRIu64 ")", cap);
    if ((rc = resize_ids(e, cap, w, w)))
        return rc;
    if (e->has_weight) {
        int64_t *wt = dp_realloc_array(e->weight, (size_t)cap, 8);

        if (!wt)
            return DP_ENOMEM;
        e->weight = wt;
    }
    e->cap = cap;
    return 0;
}

int cv_edges_widen(struct cv_edges *e)
{
    int64_t *s, *d;
    uint64_t k;
    int rc;

    if (e->wide)
        return 0;
    if (!e->cap) {
        e->wide = 1;
        return 0;
    }
    if ((rc = resize_ids(e, e->cap, 8, 4)))
        return rc;
    s = e->src;
    d = e->dst;
    for (k = e->n; k-- > 0;) {
        s[k] = ((uint32_t *)s)[k];
        d[k] = ((uint32_t *)d)[k];
    }
    e->wide = 1;
    return 0;
}

/* Give back src and dst (their files go with them). */
static void free_ids(struct cv_edges *e)
{
    if (e->spilled) {
        size_t bytes = (size_t)e->cap * (e->wide ? 8 : 4);
        munmap(e->src, bytes);
        munmap(e->dst, bytes);
        close(e->sfd);
        close(e->dfd);
        e->spilled = 0;
    } else {
        free(e->src);
        free(e->dst);
    }
    e->src = e->dst = NULL;
}

void cv_edges_release(struct cv_edges *e)
{
    free_ids(e);
    free(e->deg);
    e->deg = NULL;
    free(e->pairs);
    e->pairs = NULL;
    e->counted = 0;
    free(e->weight);
    e->weight = NULL;
    e->n = e->cap = 0;
}

int cv_graph_add_input(struct cv_graph *g, const char *path, uint64_t size,
                       const char *sha)
{
    struct dp_dataset_input *in;
    int n = g->meta.ninputs;

    in = dp_realloc_array(g->meta.inputs, (size_t)n + 1, sizeof(*in));
    if (!in)
        return DP_ENOMEM;
    g->meta.inputs = in;
    memset(&in[n], 0, sizeof(in[n]));
    in[n].path = dp_strdup(path);
    if (!in[n].path)
        return DP_ENOMEM;
    in[n].size = size;
    snprintf(in[n].sha256, sizeof(in[n].sha256), "%s", sha ? sha : "");
    g->meta.ninputs = n + 1;
    return 0;
}

int cv_read_text(struct cv_graph *g, const char *path,
                 int (*parse)(struct cv_graph *g, struct cv_src *s))
{
    struct cv_src s;
    char sha[65];
    uint64_t size;
    int rc;

    if ((rc = cv_src_open_file(&s, path, 1)))
        return rc;
    g->edge_src = dp_strdup(path);
    rc = g->edge_src ? parse(g, &s) : DP_ENOMEM;
    cv_src_close(&s, rc ? NULL : sha, &size);
    if (rc)
        return rc;
    return cv_graph_add_input(g, path, size, sha);
}

char *cv_graph_path(const struct cv_graph *g, const char *name)
{
    return dp_path_join(g->dir, name);
}

int cv_graph_write_i64(struct cv_graph *g, const char *name, const int64_t *v,
                       int64_t n)
{
    char *path = cv_graph_path(g, name);
    int rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_npy_write(path, DP_I64, 1, &n, v);
    free(path);
    return rc;
}

int cv_graph_write_mask(struct cv_graph *g, const char *name, const uint8_t *v,
                        int64_t n)
{
    char *path = cv_graph_path(g, name);
    int rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_npy_write(path, DP_U8, 1, &n, v);
    free(path);
    return rc;
}

/* The CSC under construction. */
struct csc {
    const struct cv_edges *e;
    int und;
    int64_t n;
    uint64_t eout;
    int64_t *ip;    /* N+1; cursors of the first half while scattering */
    int64_t *ip2;   /* N: cursors of the second half */
    int wide;       /* pairs of uint64 (else uint32) */
    int ids32;      /* write indices and eids as int32 */
    int noe;        /* no eids: pairs hold the source alone */
    void *pairs;    /* entry i: old edge id (before filtering), source */
    uint64_t *keep; /* bitmap of kept old ids; NULL: all kept */
    uint64_t *rank; /* kept ids before each 64-id word */
};

/* eids and indices are interleaved (eid, source) pairs, so the scatter
 * misses one cache line per entry instead of two. */
static inline uint64_t get_eid(const struct csc *c, uint64_t i)
{
    return c->wide ? ((const uint64_t *)c->pairs)[2 * i]
                   : ((const uint32_t *)c->pairs)[2 * i];
}

static inline int64_t get_idx(const struct csc *c, uint64_t i)
{
    if (c->noe)
        return c->wide ? ((const int64_t *)c->pairs)[i]
                       : (int64_t)((const uint32_t *)c->pairs)[i];
    return c->wide ? ((const int64_t *)c->pairs)[2 * i + 1]
                   : (int64_t)((const uint32_t *)c->pairs)[2 * i + 1];
}

static inline void put_pair(struct csc *c, uint64_t i, uint64_t eid,
                            int64_t src)
{
    if (c->noe && c->wide) {
        ((int64_t *)c->pairs)[i] = src;
    } else if (c->noe) {
        ((uint32_t *)c->pairs)[i] = (uint32_t)src;
    } else if (c->wide) {
        ((uint64_t *)c->pairs)[2 * i] = eid;
        ((int64_t *)c->pairs)[2 * i + 1] = src;
    } else {
        ((uint32_t *)c->pairs)[2 * i] = (uint32_t)eid;
        ((uint32_t *)c->pairs)[2 * i + 1] = (uint32_t)src;
    }
}

static inline uint64_t new_id(const struct csc *c, uint64_t x)
{
    uint64_t w;

    if (!c->keep)
        return x;
    w = c->keep[x >> 6] & ((UINT64_C(1) << (x & 63)) - 1);
    return c->rank[x >> 6] + (uint64_t)__builtin_popcountll(w);
}

/* The scatter's cursors and slots are loaded this many edges ahead: each
 * is a cache miss, and waiting for them one at a time bounds the sort. */
#define AHEAD 16

static inline void prefetch_slot(const struct csc *c, int64_t i)
{
    size_t w = (size_t)(c->wide ? 8 : 4) * (size_t)(2 - c->noe);

    __builtin_prefetch((char *)c->pairs + (size_t)i * w, 1);
}

/* One half of the counting sort: edges [lo, hi) counted into, and later
 * scattered through, their own cursor array, so two threads never write
 * the same cursor and the eids stay in input order per destination. */
struct half {
    struct csc *c;
    uint64_t lo, hi;
    int64_t *cur;
    int phase; /* 0 count, 1 scatter, 2 scatter backwards from the ends */
};

static void *run_half(void *arg)
{
    struct half *h = arg;
    struct csc *c = h->c;
    const struct cv_edges *e = c->e;
    int64_t *cur = h->cur;
    uint64_t k;

    if (h->phase == 0) {
        for (k = h->lo; k < h->hi; k++) {
            cur[cv_edges_dst(e, k)]++;
            if (c->und)
                cur[cv_edges_src(e, k)]++;
            if (e->spilled && k % DROP_EVERY == DROP_EVERY - 1)
                drop_ids(e, k + 1 - DROP_EVERY, k + 1);
        }
        drop_ids(e, h->lo, h->hi);
        return NULL;
    }
    if (h->phase == 2) {
        /* Last edge first into each run's last free slot: the run still
         * ends up in input order. */
        for (k = h->hi; k-- > h->lo;) {
            int64_t s = cv_edges_src(e, k), d = cv_edges_dst(e, k);

            if (k >= h->lo + AHEAD) {
                prefetch_slot(c, cur[cv_edges_dst(e, k - AHEAD / 2)] - 1);
                __builtin_prefetch(&cur[cv_edges_dst(e, k - AHEAD)], 1);
            }
            if (c->und) {
                put_pair(c, (uint64_t)--cur[s], 2 * k + 1, d);
                put_pair(c, (uint64_t)--cur[d], 2 * k, s);
            } else {
                put_pair(c, (uint64_t)--cur[d], k, s);
            }
            if (e->spilled && (h->hi - k) % DROP_EVERY == 0)
                drop_ids(e, k, k + DROP_EVERY);
        }
        drop_ids(e, h->lo, h->hi);
        return NULL;
    }
    for (k = h->lo; k < h->hi; k++) {
        int64_t s = cv_edges_src(e, k), d = cv_edges_dst(e, k);
        uint64_t p = (uint64_t)cur[d]++;

        if (k + AHEAD < h->hi) {
            prefetch_slot(c, cur[cv_edges_dst(e, k + AHEAD / 2)]);
            __builtin_prefetch(&cur[cv_edges_dst(e, k + AHEAD)], 1);
        }

        if (c->und) {
            put_pair(c, p, 2 * k, s);
            put_pair(c, (uint64_t)cur[s]++, 2 * k + 1, d);
        } else {
            put_pair(c, p, k, s);
        }
        /* spilled edges are read once per phase: let them go behind */
        if (e->spilled && k % DROP_EVERY == DROP_EVERY - 1)
            drop_ids(e, k + 1 - DROP_EVERY, k + 1);
    }
    drop_ids(e, h->lo, h->hi);
    return NULL;
}

static void run_both(struct half *h, int threads)
{
    dp_run_pair(run_half, &h[0], &h[1], threads);
}

/* Degrees a parser counted, if they cover these edges and nodes. */
static const int64_t *parsed_degrees(const struct csc *c)
{
    const struct cv_edges *e = c->e;

    if (e->deg && e->counted == e->n && e->ndeg == c->n && e->deg_und == c->und)
        return e->deg;
    return NULL;
}

static void count_scatter(struct csc *c)
{
    uint64_t ein = c->e->n;
    struct half h[2] = { { c, 0, ein / 2, c->ip, 1 },
                         { c, ein / 2, ein, c->ip2, 1 } };
    int threads = ein > (1u << 20);
    const int64_t *deg = parsed_degrees(c);
    int64_t v, run = 0;

    if (deg) {
        /* No counting pass: the first half fills each node's run from
         * its start, the second from its end, and they meet. */
        for (v = 0; v < c->n; v++) {
            c->ip[v] = run;
            run += deg[v];
            c->ip2[v] = run;
        }
        h[1].phase = 2;
        run_both(h, threads);
        for (v = 0, run = 0; v < c->n; v++) {
            c->ip[v] = run;
            run += deg[v];
        }
        c->ip[c->n] = run;
        return;
    }
    h[0].phase = h[1].phase = 0;
    run_both(h, threads);
    for (v = 0; v < c->n; v++) {
        int64_t a = c->ip[v], b = c->ip2[v];

        c->ip[v] = run;
        c->ip2[v] = run + a;
        run += a + b;
    }
    h[0].phase = h[1].phase = 1;
    run_both(h, threads);
    /* The second half's cursors now sit at each node's end. */
    memmove(c->ip + 1, c->ip2, (size_t)c->n * sizeof(*c->ip));
    c->ip[0] = 0;
}

/* Drop self-loops and repeated (u, v) pairs in place; the first
 * occurrence (smallest input id) of a pair is kept. */
static int filter(struct csc *c, int no_loops, int dedup, uint64_t *dropped)
{
    uint64_t words = (c->eout + 63) / 64, w = 0, i, sum = 0;
    int64_t *mark = NULL, v;
    int64_t *ip = c->ip;

    /* the kept ids renumber eids; without eids nothing needs them */
    if (!c->noe) {
        c->keep = dp_calloc(words ? words : 1, 8);
        c->rank = dp_malloc_array(words ? words : 1, 8);
    }
    if (dedup)
        mark = dp_malloc_array(c->n ? (size_t)c->n : 1, sizeof(*mark));
    if ((!c->noe && (!c->keep || !c->rank)) || (dedup && !mark)) {
        free(mark);
        return DP_ENOMEM;
    }
    if (mark)
        memset(mark, 0xff, (size_t)c->n * sizeof(*mark));
    for (v = 0; v < c->n; v++) {
        uint64_t start = (uint64_t)ip[v], end = (uint64_t)ip[v + 1];

        ip[v] = (int64_t)w;
        for (i = start; i < end; i++) {
            uint64_t x = c->noe ? 0 : get_eid(c, i);
            int64_t s = get_idx(c, i);

            if (no_loops && s == v)
                continue;
            if (dedup) {
                if (mark[s] == v)
                    continue;
                mark[s] = v;
            }
            put_pair(c, w++, x, s);
            if (c->keep)
                c->keep[x >> 6] |= UINT64_C(1) << (x & 63);
        }
    }
    ip[c->n] = (int64_t)w;
    for (i = 0; c->keep && i < words; i++) {
        c->rank[i] = sum;
        sum += (uint64_t)__builtin_popcountll(c->keep[i]);
    }
    *dropped = c->eout - w;
    c->eout = w;
    free(mark);
    return 0;
}

struct job {
    struct csc *c;
    char *path;
    int what; /* 0 indices, 1 eids */
    int rc;
    char msg[1024];
};

static void *write_job(void *arg)
{
    struct job *j = arg;
    struct csc *c = j->c;
    struct dp_npy_writer w;
    int64_t shape = (int64_t)c->eout, *buf = dp_malloc(CHUNK * sizeof(*buf));
    int32_t *b32 = (int32_t *)buf; /* int32 output packs into the front */
    uint64_t i, k;
    int rc;

    if (!buf) {
        j->rc = DP_ENOMEM;
        goto out;
    }
    rc = dp_npy_writer_open(&w, j->path, c->ids32 ? DP_I32 : DP_I64, 1, &shape);
    for (i = 0; !rc && i < c->eout; i += k) {
        uint64_t m = c->eout - i < CHUNK ? c->eout - i : CHUNK;

        if (c->ids32 && j->what == 0)
            for (k = 0; k < m; k++)
                b32[k] = (int32_t)get_idx(c, i + k);
        else if (c->ids32)
            for (k = 0; k < m; k++)
                b32[k] = (int32_t)new_id(c, get_eid(c, i + k));
        else if (j->what == 0)
            for (k = 0; k < m; k++)
                buf[k] = get_idx(c, i + k);
        else
            for (k = 0; k < m; k++)
                buf[k] = (int64_t)new_id(c, get_eid(c, i + k));
        rc = dp_npy_writer_write(&w, buf, m);
    }
    if (!rc)
        rc = dp_npy_writer_commit(&w);
    else
        dp_npy_writer_abort(&w);
    j->rc = rc;
out:
    if (j->rc)
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
    free(buf);
    return NULL;
}

static int write_weights(struct cv_graph *g, struct csc *c, uint64_t total)
{
    struct dp_npy_writer w;
    int64_t shape = (int64_t)c->eout, *buf = NULL;
    char *path = cv_graph_path(g, "edge_weight.npy");
    uint64_t x, m = 0;
    int rc = DP_ENOMEM;

    buf = dp_malloc(CHUNK * sizeof(*buf));
    if (!path || !buf)
        goto out;
    rc = dp_npy_writer_open(&w, path, DP_I64, 1, &shape);
    for (x = 0; !rc && x < total; x++) {
        if (c->keep && !(c->keep[x >> 6] >> (x & 63) & 1))
            continue;
        buf[m++] = g->edges.weight[c->und ? x >> 1 : x];
        if (m == CHUNK) {
            rc = dp_npy_writer_write(&w, buf, m);
            m = 0;
        }
    }
    if (!rc && m)
        rc = dp_npy_writer_write(&w, buf, m);
    if (!rc)
        rc = dp_npy_writer_commit(&w);
    else
        dp_npy_writer_abort(&w);
out:
    free(buf);
    free(path);
    return rc;
}

int cv_graph_write_csc(struct cv_graph *g)
{
    const struct dp_convert_opts *o = g->o;
    struct cv_edges *e = &g->edges;
    struct csc c;
    struct job jobs[2];
    int rc = 0, i;
    uint64_t total, dropped = 0;
    double t0 = dp_now();
    char *path = NULL;

    memset(&c, 0, sizeof(c));
    memset(jobs, 0, sizeof(jobs));
    c.e = e;
    c.und = o->undirected;
    c.n = g->num_nodes;
    if (e->n > UINT64_MAX / 2 || (e->n && e->max_id >= c.n))
        return dp_error(DP_ERANGE,
                        "node id %" PRId64 " out of range [0, %" PRId64 ")",
                        e->max_id, c.n);
    c.eout = total = c.und ? 2 * e->n : e->n;
    c.wide = total > UINT32_MAX || e->wide;
    /* edge weights are stored by input edge id, so they keep the eids */
    c.noe = o->no_eids && !e->has_weight && !g->meta.num_ntypes;
    c.ip = dp_calloc((size_t)c.n + 1, sizeof(*c.ip));
    c.ip2 = dp_calloc((size_t)c.n + 1, sizeof(*c.ip2));
    if (e->pairs && total <= e->pairs_len / ((c.wide ? 8 : 4) * (2 - c.noe))) {
        c.pairs = e->pairs;
        e->pairs = NULL;
    } else {
        c.pairs =
            dp_malloc_array(total ? total : 1, (c.wide ? 8 : 4) * (2 - c.noe));
    }
    if (!c.ip || !c.ip2 || !c.pairs) {
        rc = DP_ENOMEM;
        goto out;
    }
    cv_hugepages(c.ip, ((size_t)c.n + 1) * sizeof(*c.ip));
    cv_hugepages(c.ip2, ((size_t)c.n + 1) * sizeof(*c.ip2));
    cv_hugepages(c.pairs, (size_t)total * (c.wide ? 8 : 4) * (2 - c.noe));
    count_scatter(&c);
    free(c.ip2);
    c.ip2 = NULL;
    /* The edge arrays are not needed any more; give their memory back
     * before the output files fill the page cache. */
    free_ids(e);
    if (dp_verbose)
        dp_timer_report("csc: count and scatter", t0);
    if (o->no_self_loops || o->dedup) {
        if ((rc = filter(&c, o->no_self_loops, o->dedup, &dropped)))
            goto out;
        if (dropped)
            dp_warn("dropped %" PRIu64 " of %" PRIu64 " edges (%s)", dropped,
                    total,
                    o->no_self_loops && o->dedup ? "self-loops and repeats"
                    : o->dedup                   ? "repeats"
                                                 : "self-loops");
    }
    /* eids are below eout and sources below n after filtering too */
    c.ids32 = !o->ids64 && c.n <= INT32_MAX && c.eout <= INT32_MAX;
    path = cv_graph_path(g, "indptr.npy");
    if (!path) {
        rc = DP_ENOMEM;
        goto out;
    }
    {
        int64_t shape = c.n + 1;

        if ((rc = dp_npy_write(path, DP_I64, 1, &shape, c.ip)))
            goto out;
    }
    for (i = 0; i < 2; i++) {
        jobs[i].c = &c;
        jobs[i].what = i;
        jobs[i].path = cv_graph_path(g, i ? "eids.npy" : "indices.npy");
        if (!jobs[i].path) {
            rc = DP_ENOMEM;
            goto out;
        }
    }
    /* Two files written at once: gathering indices is random access, so
     * the second core pays off on big graphs. */
    if (c.noe)
        write_job(&jobs[0]);
    else
        dp_run_pair(write_job, &jobs[0], &jobs[1], c.eout > (1u << 20));
    for (i = 0; i < 2 - c.noe; i++)
        if (jobs[i].rc) {
            rc = dp_error(jobs[i].rc, "%s", jobs[i].msg);
            goto out;
        }
    if (e->has_weight && (rc = write_weights(g, &c, total)))
        goto out;
    g->meta.num_edges = (int64_t)c.eout;
    g->meta.directed = !c.und;
    g->meta.ids32 = c.ids32;
    g->meta.no_eids = c.noe;
    g->meta.has_edge_weight = e->has_weight;
    if (dp_verbose)
        dp_timer_report("csc: written", t0);
out:
    for (i = 0; i < 2; i++)
        free(jobs[i].path);
    free(path);
    free(c.ip);
    free(c.ip2);
    free(c.pairs);
    free(c.keep);
    free(c.rank);
    cv_edges_release(e);
    return rc;
}
