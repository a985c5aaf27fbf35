/* The distributed graph's plumbing: owners of global ids, local ids of
 * owned nodes and ghosts, the ghosts' exchange plan, and personalised
 * exchanges of fixed-size items. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dataset.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dist.h"

void dist_graph_release(struct dist_graph *g)
{
    free(g->vtx);
    free(g->xadj);
    free(g->adj);
    free(g->adjw);
    free(g->vw);
    free(g->ghost);
    free(g->sidx);
    free(g->soff);
    free(g->roff);
    memset(g, 0, sizeof(*g));
}

int32_t dist_local(const struct dist_graph *g, int64_t x)
{
    int64_t v0 = g->vtx[g->rank], lo = 0, hi = g->ng;

    if (x >= v0 && x < v0 + g->n)
        return (int32_t)(x - v0);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if (g->ghost[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->ng && g->ghost[lo] == x ? (int32_t)(g->n + lo) : -1;
}

int dist_route(struct dp_comm *c, const void *items, size_t width,
               const int *to, int64_t n, void **out, int64_t *nout,
               int64_t *from)
{
    int P = dp_comm_size(c), r, rc;
    size_t *sc = dp_calloc((size_t)P, sizeof(*sc));
    size_t *rcnt = dp_calloc((size_t)P, sizeof(*rcnt));
    size_t *at = dp_calloc((size_t)P + 1, sizeof(*at)), total = 0;
    char *buf = NULL;
    int64_t i;

    *out = NULL;
    *nout = 0;
    if (!sc || !rcnt || !at) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++)
        sc[to[i]] += width;
    for (r = 0; r < P; r++)
        at[r + 1] = at[r] + sc[r];
    if (!(buf = dp_malloc(at[P] ? at[P] : 1))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++) {
        memcpy(buf + at[to[i]], (const char *)items + (size_t)i * width, width);
        at[to[i]] += width;
    }
    rc = dp_comm_alltoallv(c, buf, sc, out, rcnt);
    for (r = 0; !rc && r < P; r++) {
        total += rcnt[r];
        if (from)
            from[r] = (int64_t)(rcnt[r] / width);
    }
    if (!rc)
        *nout = (int64_t)(total / width);
out:
    free(sc);
    free(rcnt);
    free(at);
    free(buf);
    return rc;
}

void dist_check_filled(struct dp_comm *c, const char *what, const int64_t *next,
                       const int64_t *xadj, int64_t n)
{
    int64_t r;

    for (r = 0; r < n; r++)
        if (next[r] != xadj[r + 1])
            dp_comm_bad(c, what, next[r] - xadj[r], xadj[r + 1] - xadj[r],
                        xadj[r + 1] - xadj[r] + 1);
}

int dist_wide(int64_t N)
{
    int wide = 0;

    dp_env_bool("DGLPART_TEST_WIDE_IDS", &wide);
    return wide || N > INT32_MAX;
}

/* Global ids in rows: int32 when every id fits, else int64. */
static inline int64_t gid_get(const void *a, int wide, int64_t k)
{
    return wide ? ((const int64_t *)a)[k] : ((const int32_t *)a)[k];
}

static inline void gid_put(void *a, int wide, int64_t k, int64_t x)
{
    if (wide)
        ((int64_t *)a)[k] = x;
    else
        ((int32_t *)a)[k] = (int32_t)x;
}

/* The ghosts as a bitmap over the global ids: bits[] marks them, rank[w]
 * counts the marks before word w, so a ghost's index is one popcount
 * away (no search, no copy of the rows to sort). N / 8 + N / 16 bytes. */
struct ghost_map {
    uint64_t *bits;
    int32_t *rank;
};

static int32_t ghost_index(const struct ghost_map *m, int64_t x)
{
    uint64_t below = m->bits[x >> 6] & ((UINT64_C(1) << (x & 63)) - 1);

    return m->rank[x >> 6] + (int32_t)__builtin_popcountll(below);
}

/* The ghosts: global ids outside the owned range, ascending, once each. */
static int find_ghosts(struct dist_graph *g, const void *gadj, int wide,
                       struct ghost_map *gm)
{
    int64_t v0 = g->vtx[g->rank], v1 = v0 + g->n, m = g->xadj[g->n], k, ng = 0;
    int64_t words = g->N / 64 + 1, w;

    gm->bits = dp_calloc((size_t)words, sizeof(*gm->bits));
    gm->rank = dp_malloc_array((size_t)words, sizeof(*gm->rank));
    if (!gm->bits || !gm->rank)
        return DP_ENOMEM;
    for (k = 0; k < m; k++) {
        int64_t x = gid_get(gadj, wide, k);

        if (x < v0 || x >= v1)
            gm->bits[x >> 6] |= UINT64_C(1) << (x & 63);
    }
    for (w = 0; w < words; w++) {
        if (ng > INT32_MAX - g->n)
            break;
        gm->rank[w] = (int32_t)ng;
        ng += __builtin_popcountll(gm->bits[w]);
    }
    if (ng > INT32_MAX - g->n)
        return dp_error(DP_ETOOBIG, "rank %d: %lld ghost nodes", g->rank,
                        (long long)ng);
    g->ng = (int32_t)ng;
    if (!(g->ghost = dp_malloc_array((size_t)ng + 1, sizeof(*g->ghost))))
        return DP_ENOMEM;
    for (ng = 0, w = 0; w < words; w++) {
        uint64_t b = gm->bits[w];

        for (; b; b &= b - 1)
            g->ghost[ng++] = w * 64 + __builtin_ctzll(b);
    }
    return 0;
}

/* Each owner learns which of its nodes this rank holds, in this rank's
 * order (ghosts by owner are consecutive, as they are sorted): that is
 * the order it sends them in. */
static int ghost_plan(struct dist_graph *g)
{
    int64_t k, *req = NULL, nreq = 0;
    void *got = NULL;
    int *to = dp_malloc_array((size_t)g->ng + 1, sizeof(*to)), r, rc;

    g->roff = dp_calloc((size_t)g->P + 1, sizeof(*g->roff));
    g->soff = dp_calloc((size_t)g->P + 1, sizeof(*g->soff));
    if (!g->roff || !g->soff || !to) {
        free(to);
        return DP_ENOMEM;
    }
    for (k = 0; k < g->ng; k++) {
        to[k] = (int)dp_range_of(g->vtx, g->P, g->ghost[k]);
        g->roff[to[k] + 1]++;
    }
    for (r = 0; r < g->P; r++)
        g->roff[r + 1] += g->roff[r];
    rc = dist_route(g->comm, g->ghost, sizeof(int64_t), to, g->ng, &got, &nreq,
                    g->soff + 1);
    free(to);
    if (rc)
        return rc;
    req = got;
    for (r = 0; r < g->P; r++)
        g->soff[r + 1] += g->soff[r];
    if (!(g->sidx = dp_malloc_array((size_t)nreq + 1, sizeof(*g->sidx)))) {
        free(got);
        return DP_ENOMEM;
    }
    for (k = 0; k < nreq; k++) {
        dp_comm_check(g->comm, "a node id", req[k], g->vtx[g->rank],
                      g->vtx[g->rank] + g->n);
        g->sidx[k] = (int32_t)(req[k] - g->vtx[g->rank]);
    }
    free(got);
    return 0;
}

int dist_graph_localise(struct dist_graph *g, void *gadj, int wide)
{
    int64_t m = g->xadj[g->n], k, v0 = g->vtx[g->rank];
    struct ghost_map gm = { NULL, NULL };
    int rc;

    if ((rc = find_ghosts(g, gadj, wide, &gm)))
        goto out;
    /* int32 rows become the local ids in place */
    if (!wide)
        g->adj = gadj;
    else if (!(g->adj = dp_malloc_array((size_t)m + 1, sizeof(*g->adj)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (k = 0; k < m; k++) {
        int64_t x = gid_get(gadj, wide, k);

        g->adj[k] = x >= v0 && x < v0 + g->n ? (int32_t)(x - v0)
                                             : g->n + ghost_index(&gm, x);
    }
    free(gm.bits);
    free(gm.rank);
    gm.bits = NULL;
    gm.rank = NULL;
    rc = ghost_plan(g);
out:
    free(gm.bits);
    free(gm.rank);
    if (wide || !g->adj)
        free(gadj);
    return rc;
}

int dist_halo_exchange(const struct dist_graph *g, const void *vals,
                       size_t width, void *ghost_vals)
{
    size_t *sc = dp_calloc((size_t)g->P, sizeof(*sc));
    size_t *rc_ = dp_calloc((size_t)g->P, sizeof(*rc_));
    char *buf = dp_malloc_array((size_t)g->soff[g->P] + 1, width);
    void *got = NULL;
    int64_t k;
    int r, rc = DP_ENOMEM;

    if (!sc || !rc_ || !buf)
        goto out;
    for (k = 0; k < g->soff[g->P]; k++)
        memcpy(buf + (size_t)k * width,
               (const char *)vals + (size_t)g->sidx[k] * width, width);
    for (r = 0; r < g->P; r++)
        sc[r] = (size_t)(g->soff[r + 1] - g->soff[r]) * width;
    if ((rc = dp_comm_alltoallv(g->comm, buf, sc, &got, rc_)))
        goto out;
    for (r = 0; r < g->P; r++)
        dp_comm_check(g->comm, "a ghost count", (int64_t)(rc_[r] / width),
                      g->roff[r + 1] - g->roff[r],
                      g->roff[r + 1] - g->roff[r] + 1);
    /* by owner rank, each in this rank's ghost order */
    memcpy(ghost_vals, got, (size_t)g->ng * width);
out:
    free(sc);
    free(rc_);
    free(buf);
    free(got);
    return rc;
}

int dist_ask(struct dp_comm *c, const void *req, size_t req_w, const int *to,
             int64_t n, dist_answer_fn answer, void *arg, size_t ans_w,
             void *ans)
{
    int P = dp_comm_size(c), r, rc;
    int64_t *from = dp_calloc((size_t)P, sizeof(*from)), nreq = 0, nback = 0;
    int64_t *at = dp_calloc((size_t)P + 1, sizeof(*at)), i, k = 0;
    int *bto = NULL;
    void *got = NULL, *back = NULL, *mine = NULL;

    rc = DP_ENOMEM;
    if (!from || !at)
        goto out;
    if ((rc = dist_route(c, req, req_w, to, n, &got, &nreq, from)))
        goto out;
    rc = DP_ENOMEM;
    if (!(mine = dp_malloc_array((size_t)nreq + 1, ans_w)) ||
        !(bto = dp_malloc_array((size_t)nreq + 1, sizeof(*bto))))
        goto out;
    if ((rc = answer(arg, got, nreq, mine)))
        goto out;
    /* the answers go back in the order the requests came */
    for (r = 0; r < P; r++)
        for (i = 0; i < from[r]; i++)
            bto[k++] = r;
    if ((rc = dist_route(c, mine, ans_w, bto, nreq, &back, &nback, from)))
        goto out;
    /* as many answers from each rank as this one asked it */
    for (i = 0; i < n; i++)
        at[to[i] + 1]++;
    for (r = 0; r < P; r++)
        dp_comm_check(c, "an answer count", from[r], at[r + 1], at[r + 1] + 1);
    memset(at, 0, ((size_t)P + 1) * sizeof(*at));
    /* by responder rank, each in this rank's order of asking */
    for (i = 0; i < n; i++)
        at[to[i] + 1]++;
    for (r = 0; r < P; r++)
        at[r + 1] += at[r];
    for (i = 0; i < n; i++)
        memcpy((char *)ans + (size_t)i * ans_w,
               (const char *)back + (size_t)at[to[i]]++ * ans_w, ans_w);
out:
    free(from);
    free(at);
    free(bto);
    free(got);
    free(back);
    free(mine);
    return rc;
}

/* Owned ranges of about equal nodes plus in-entries: rank r's starts
 * where indptr[v] + v passes r / P of the whole. */
static int64_t range_start(const int64_t *ip, int64_t N, int r, int P)
{
    int64_t want = (int64_t)((double)(N + ip[N]) * r / P), lo = 0, hi = N;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;

        if (ip[mid] + mid < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return (x > y) - (x < y);
}

void dist_sort_ids(void *a, int wide, int64_t b, int64_t e)
{
    int64_t i, j;

    if (e - b > 24) {
        qsort(wide ? (void *)((int64_t *)a + b) : (void *)((int32_t *)a + b),
              (size_t)(e - b), wide ? 8 : 4, wide ? cmp_i64 : cmp_i32);
        return;
    }
    for (i = b + 1; i < e; i++) {
        int64_t x = gid_get(a, wide, i);

        for (j = i; j > b && gid_get(a, wide, j - 1) > x; j--)
            gid_put(a, wide, j, gid_get(a, wide, j - 1));
        gid_put(a, wide, j, x);
    }
}

/* Row [b, e) of ids sorted, repeats dropped, moved down to m; the new m. */
static int64_t sort_row(void *a, int wide, int64_t b, int64_t e, int64_t m)
{
    int64_t i;

    dist_sort_ids(a, wide, b, e);
    for (i = b; i < e; i++)
        if (i == b || gid_get(a, wide, i) != gid_get(a, wide, i - 1))
            gid_put(a, wide, m++, gid_get(a, wide, i));
    return m;
}

struct gr_emit {
    const struct dist_graph *g;
    const struct dp_dataset *d;
    int wide;
};

/* Row v's in-edges (u, v) to u's owner, who holds them as u's out-edges. */
static void emit_pairs(void *arg, int64_t row, struct dp_comm_batch *b)
{
    const struct gr_emit *e = arg;
    const int64_t *ip = dp_dataset_indptr(e->d);
    int64_t v = e->g->vtx[e->g->rank] + row, k;

    for (k = ip[v]; k < ip[v + 1]; k++) {
        int64_t u = dp_dataset_src(e->d, k);
        void *x;

        if (u != v && (x = dp_comm_batch_put(
                           b, (int)dp_range_of(e->g->vtx, e->g->P, u)))) {
            gid_put(x, e->wide, 0, u);
            gid_put(x, e->wide, 1, v);
        }
    }
}

/* What comes of emit_pairs, taken twice: counted into xadj, then placed
 * at at[] (a peer sending more the second time is stopped). */
struct gr_take {
    struct dist_graph *g;
    int wide, place;
    int64_t *at;
    void *gadj;
};

static void take_pairs(void *arg, int from, const void *items, int64_t n)
{
    struct gr_take *t = arg;
    struct dist_graph *g = t->g;
    int64_t v0 = g->vtx[g->rank], k;

    (void)from;
    for (k = 0; k < n; k++) {
        int64_t v = gid_get(items, t->wide, 2 * k);
        int64_t u = gid_get(items, t->wide, 2 * k + 1);

        dp_comm_check(g->comm, "a node id", v, v0, v0 + g->n);
        dp_comm_check(g->comm, "a neighbour id", u, 0, g->N);
        if (!t->place) {
            g->xadj[v - v0 + 1]++;
            continue;
        }
        dp_comm_check(g->comm, "an entry of a row", t->at[v - v0],
                      g->xadj[v - v0], g->xadj[v - v0 + 1]);
        gid_put(t->gadj, t->wide, t->at[v - v0]++, u);
    }
}

/* Every owned node's in-neighbours and, sent by their owners in rounds,
 * its out-neighbours: rows g->xadj of global ids *gadjp (int32 unless
 * wide), each sorted and without repeats. The rows are laid out by
 * counts, never by a sort of the whole: the in-neighbours come grouped
 * from the CSC, the out-neighbours are sent twice, counted the first
 * time and put in place the second, so they are never held apart. */
static int gather_rows(struct dist_graph *g, const struct dp_dataset *d,
                       int wide, void **gadjp)
{
    const int64_t *ip = dp_dataset_indptr(d);
    struct gr_emit em = { g, d, wide };
    struct gr_take t = { g, wide, 0, NULL, NULL };
    int64_t v0 = g->vtx[g->rank], v1 = g->vtx[g->rank + 1], v, k, m;
    size_t width = 2 * (size_t)(wide ? 8 : 4);
    int rc = DP_ENOMEM;

    if (!(g->xadj = dp_calloc((size_t)g->n + 1, sizeof(*g->xadj))))
        goto out;
    for (v = v0; v < v1; v++)
        for (k = ip[v]; k < ip[v + 1]; k++)
            g->xadj[v - v0 + 1] += dp_dataset_src(d, k) != v;
    if ((rc = dp_comm_route_rows_each(g->comm, width, g->n, ip + v0, emit_pairs,
                                      &em, take_pairs, &t)))
        goto out;
    for (v = 0; v < g->n; v++)
        g->xadj[v + 1] += g->xadj[v];
    rc = DP_ENOMEM;
    t.gadj = dp_malloc_array((size_t)g->xadj[g->n] + 1, wide ? 8 : 4);
    t.at = dp_malloc_array((size_t)g->n + 1, sizeof(*t.at));
    if (!t.gadj || !t.at)
        goto out;
    memcpy(t.at, g->xadj, (size_t)g->n * sizeof(*t.at));
    for (v = v0; v < v1; v++)
        for (k = ip[v]; k < ip[v + 1]; k++) {
            int64_t u = dp_dataset_src(d, k);

            if (u != v)
                gid_put(t.gadj, wide, t.at[v - v0]++, u);
        }
    t.place = 1;
    if ((rc = dp_comm_route_rows_each(g->comm, width, g->n, ip + v0, emit_pairs,
                                      &em, take_pairs, &t)))
        goto out;
    /* and none sent fewer */
    dist_check_filled(g->comm, "entries of a row", t.at, g->xadj, g->n);
    for (m = 0, v = 0; v < g->n; v++) {
        int64_t b = g->xadj[v];

        g->xadj[v] = m;
        m = sort_row(t.gadj, wide, b, g->xadj[v + 1], m);
    }
    g->xadj[g->n] = m;
    *gadjp = t.gadj;
    t.gadj = NULL;
    rc = 0;
out:
    free(t.at);
    free(t.gadj);
    return rc;
}

int dist_graph_from_dataset(struct dp_comm *c, const struct dp_dataset *d,
                            int ncon, int edges, struct dist_graph *g)
{
    const int64_t *ip = dp_dataset_indptr(d);
    int64_t N = d->meta.num_nodes;
    int r, rc = DP_ENOMEM, wide = dist_wide(N);
    void *gadj = NULL;

    memset(g, 0, sizeof(*g));
    g->comm = c;
    g->P = dp_comm_size(c);
    g->rank = dp_comm_rank(c);
    g->N = N;
    g->ncon = ncon;
    if (!(g->vtx = dp_calloc((size_t)g->P + 1, sizeof(*g->vtx))))
        goto out;
    for (r = 0; r < g->P; r++)
        g->vtx[r] = range_start(ip, N, r, g->P);
    g->vtx[g->P] = N;
    if (g->vtx[g->rank + 1] - g->vtx[g->rank] > INT32_MAX) {
        rc = dp_error(DP_ETOOBIG, "rank %d: more than 2^31 nodes", g->rank);
        goto out;
    }
    g->n = (int32_t)(g->vtx[g->rank + 1] - g->vtx[g->rank]);
    /* each rank checks the columns it reads (dp_dataset_open_unchecked) */
    if ((rc = dp_comm_agree(c, dp_dataset_check_columns(d, g->vtx[g->rank],
                                                        g->vtx[g->rank + 1]))))
        goto out;
    if (!edges) {
        rc = 0;
        goto out;
    }
    if ((rc = gather_rows(g, d, wide, &gadj)))
        goto out;
    g->entries = g->xadj[g->n];
    if ((rc = dp_comm_allreduce_i64(c, &g->entries, 1, DP_COMM_SUM))) {
        free(gadj);
        goto out;
    }
    rc = dist_graph_localise(g, gadj, wide);
out:
    if (rc)
        dist_graph_release(g);
    return rc;
}

void dist_graph_release_edges(struct dist_graph *g)
{
    free(g->xadj);
    free(g->adj);
    free(g->adjw);
    free(g->vw);
    free(g->ghost);
    free(g->sidx);
    free(g->soff);
    free(g->roff);
    g->xadj = NULL;
    g->adj = g->adjw = g->vw = g->sidx = NULL;
    g->ghost = g->soff = g->roff = NULL;
    g->ng = 0;
}
