/* The parts under mpirun: shuffled ids from every rank's counts, then,
 * part by part (part p is written by rank p % P, DGL's order of machines),
 * its nodes' and edges' records and its data rows sent by the ranks that
 * hold them to the rank that writes it, in bounded rounds, straight into
 * its files: nothing is gathered on one rank. The files are those the
 * single-machine writers make for the same assignment, byte for byte. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"
#include "dist.h"
#include "dist_write.h"

#define ROUND_BYTES ((size_t)16 << 20) /* rows a writer takes a round */

/* Block keys: untyped, a part; typed, (part, type). */
static int64_t nkey(const struct dist_out *w, int p, int64_t v)
{
    return w->T ? (int64_t)p * w->T + dp_dataset_ntype_of(w->d, v) : p;
}

static int64_t ekey(const struct dist_out *w, int p, int64_t eid)
{
    return w->ET ? (int64_t)p * w->ET + dp_dataset_etype_of(w->d, eid) : p;
}

/* starts[nk + 1] (global) and base[nk] (this rank's first id in each
 * block) from every rank's counts cnt[nk]. */
static int block_tables(struct dp_comm *c, const int64_t *cnt, int64_t nk,
                        int64_t *starts, int64_t *base)
{
    int P = dp_comm_size(c), me = dp_comm_rank(c), r;
    int64_t *all = dp_malloc_array((size_t)P * (size_t)nk + 1, sizeof(*all));
    int64_t k;
    int rc;

    if (!all)
        return DP_ENOMEM;
    if ((rc = dp_comm_allgather(c, cnt, (size_t)nk * sizeof(*cnt), all))) {
        free(all);
        return rc;
    }
    starts[0] = 0;
    for (k = 0; k < nk; k++) {
        int64_t sum = 0;

        for (r = 0; r < P; r++) {
            if (r == me)
                base[k] = starts[k] + sum;
            sum += all[(int64_t)r * nk + k];
        }
        starts[k + 1] = starts[k] + sum;
    }
    free(all);
    return 0;
}

/* Shuffled node ids: by block, in input id order inside (each rank's
 * nodes after those of the ranks before). */
static int node_ids(struct dist_out *w)
{
    int64_t nk = (int64_t)w->K * (w->T ? w->T : 1), v, *cnt, *base, *st;
    int p, t, rc = DP_ENOMEM;

    cnt = dp_calloc((size_t)nk + 1, sizeof(*cnt));
    base = dp_calloc((size_t)nk + 1, sizeof(*base));
    st = dp_calloc((size_t)nk + 1, sizeof(*st));
    w->newid = dp_malloc_array((size_t)w->n + 1, sizeof(*w->newid));
    if (!cnt || !base || !st || !w->newid)
        goto out;
    for (v = 0; v < w->n; v++)
        cnt[nkey(w, w->part[v], w->v0 + v)]++;
    if ((rc = block_tables(w->c, cnt, nk, st, base)))
        goto out;
    for (v = 0; v < w->n; v++)
        w->newid[v] = base[nkey(w, w->part[v], w->v0 + v)]++;
    for (p = 0; p <= w->K; p++)
        w->sh.nstart[p] = st[(int64_t)p * (w->T ? w->T : 1)];
    if (w->T)
        memcpy(w->sh.tstart, st, ((size_t)nk + 1) * sizeof(*st));
    (void)t;
    rc = 0;
out:
    free(cnt);
    free(base);
    free(st);
    return rc;
}

struct src_ask {
    const struct dist_out *w;
};

static int newid_of(void *arg, const void *reqs, int64_t n, void *ans)
{
    const struct dist_out *w = ((const struct src_ask *)arg)->w;
    const int64_t *u = reqs;
    int64_t *out = ans, i;

    for (i = 0; i < n; i++) {
        dp_comm_check(w->c, "a node id", u[i], w->v0, w->v0 + w->n);
        out[i] = w->newid[u[i] - w->v0];
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The shuffled source of each owned in-edge, from the sources' owners. */
static int edge_sources(struct dist_out *w)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    int64_t k0 = ip[w->v0], m = ip[w->v0 + w->n] - k0, k, nu = 0;
    int64_t *u = dp_malloc_array((size_t)m + 1, sizeof(*u)), *ans = NULL;
    int *to = NULL, rc = DP_ENOMEM;
    struct src_ask sa = { w };

    if (!u || dp_ids_alloc(&w->esrc, (size_t)m, w->N > INT32_MAX))
        goto out;
    for (k = 0; k < m; k++)
        u[k] = dp_dataset_src(w->d, k0 + k);
    qsort(u, (size_t)m, sizeof(*u), cmp_i64);
    for (k = 0; k < m; k++)
        if (!nu || u[nu - 1] != u[k])
            u[nu++] = u[k];
    to = dp_malloc_array((size_t)nu + 1, sizeof(*to));
    ans = dp_malloc_array((size_t)nu + 1, sizeof(*ans));
    if (!to || !ans)
        goto out;
    for (k = 0; k < nu; k++)
        to[k] = (int)dp_range_of(w->vtx, w->P, u[k]);
    if ((rc = dist_ask(w->c, u, sizeof(*u), to, nu, newid_of, &sa, sizeof(*ans),
                       ans)))
        goto out;
    for (k = 0; k < m; k++) {
        int64_t x = dp_dataset_src(w->d, k0 + k);
        int64_t *at = bsearch(&x, u, (size_t)nu, sizeof(*u), cmp_i64);

        dp_ids_set(&w->esrc, (size_t)k, ans[at - u]);
    }
out:
    free(u);
    free(to);
    free(ans);
    return rc;
}

/* Shuffled edge ids: by block of the destination's part (and edge type),
 * then destination, then in-edge order. */
static int edge_ids(struct dist_out *w)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    int64_t nk = (int64_t)w->K * (w->ET ? w->ET : 1), v, k, k0 = ip[w->v0];
    int64_t m = ip[w->v0 + w->n] - k0, *cnt, *base, *st;
    int p, rc = DP_ENOMEM;

    cnt = dp_calloc((size_t)nk + 1, sizeof(*cnt));
    base = dp_calloc((size_t)nk + 1, sizeof(*base));
    st = dp_calloc((size_t)nk + 1, sizeof(*st));
    if (!cnt || !base || !st)
        goto out;
    /* untyped, a row's edges are one run of ids: its first is enough */
    if (!w->ET
            ? !(w->erow = dp_malloc_array((size_t)w->n + 1, sizeof(*w->erow)))
            : dp_ids_alloc(&w->eid, (size_t)m, w->E > INT32_MAX) != 0)
        goto out;
    for (v = 0; v < w->n; v++)
        for (k = ip[w->v0 + v]; k < ip[w->v0 + v + 1]; k++)
            cnt[ekey(w, w->part[v], dp_dataset_eid(w->d, k))]++;
    if ((rc = block_tables(w->c, cnt, nk, st, base)))
        goto out;
    for (v = 0; v < w->n; v++) {
        if (w->erow) {
            w->erow[v] = base[w->part[v]];
            base[w->part[v]] += ip[w->v0 + v + 1] - ip[w->v0 + v];
            continue;
        }
        for (k = ip[w->v0 + v]; k < ip[w->v0 + v + 1]; k++)
            dp_ids_set(&w->eid, (size_t)(k - k0),
                       base[ekey(w, w->part[v], dp_dataset_eid(w->d, k))]++);
    }
    for (p = 0; p <= w->K; p++)
        w->sh.estart[p] = st[(int64_t)p * (w->ET ? w->ET : 1)];
    if (w->ET)
        memcpy(w->sh.etstart, st, ((size_t)nk + 1) * sizeof(*st));
    (void)m;
    rc = 0;
out:
    free(cnt);
    free(base);
    free(st);
    return rc;
}

int dist_out_ids(struct dist_out *w)
{
    int64_t nk = (int64_t)w->K * (w->T ? w->T : 1);
    int64_t ek = (int64_t)w->K * (w->ET ? w->ET : 1);
    int rc;

    w->sh.K = w->K;
    w->sh.T = w->T;
    w->sh.ET = w->ET;
    w->sh.n = w->N;
    w->sh.e = w->E;
    w->sh.nstart = dp_calloc((size_t)w->K + 1, sizeof(int64_t));
    w->sh.estart = dp_calloc((size_t)w->K + 1, sizeof(int64_t));
    if (w->T && !(w->sh.tstart = dp_calloc((size_t)nk + 1, sizeof(int64_t))))
        return DP_ENOMEM;
    if (w->ET && !(w->sh.etstart = dp_calloc((size_t)ek + 1, sizeof(int64_t))))
        return DP_ENOMEM;
    if (!w->sh.nstart || !w->sh.estart)
        return DP_ENOMEM;
    if ((rc = node_ids(w)) || (rc = edge_sources(w)) || (rc = edge_ids(w)))
        return rc;
    return 0;
}

void dist_out_release(struct dist_out *w)
{
    free(w->newid);
    dp_ids_release(&w->esrc);
    dp_ids_release(&w->eid);
    free(w->erow);
    shuffle_release(&w->sh);
}

/* ---- the parts, one wave of P at a time ---- */

struct node_rec {
    int64_t newid, orig;
    int32_t fine, pad;
};

/* The part this rank writes in a wave, and what it was sent. */
struct wpart {
    int p; /* -1: none this wave */
    int64_t nn;
    int64_t *orig; /* [nn] input id of each inner node, shuffled order */
    int32_t *fine; /* [nn] their trainer parts, or NULL */
    struct part_edges in, out;
};

static void wpart_free(struct wpart *wp)
{
    free(wp->orig);
    free(wp->fine);
    free(wp->in.v);
    free(wp->out.v);
    memset(wp, 0, sizeof(*wp));
    wp->p = -1;
}

/* Is part p written in wave i, and by which rank. */
static int in_wave(const struct dist_out *w, int i, int p)
{
    return p >= i * w->P && p < (i + 1) * w->P;
}

static int nodes_to_writers(struct dist_out *w, int i, struct wpart *wp)
{
    struct node_rec *r = dp_malloc_array((size_t)w->n + 1, sizeof(*r));
    int *to = dp_malloc_array((size_t)w->n + 1, sizeof(*to));
    int64_t v, nr = 0, ng = 0, k;
    void *got = NULL;
    int rc = DP_ENOMEM;

    if (!r || !to)
        goto out;
    for (v = 0; v < w->n; v++) {
        if (!in_wave(w, i, w->part[v]))
            continue;
        r[nr] = (struct node_rec){ w->newid[v], w->v0 + v,
                                   w->fine ? w->fine[v] : 0, 0 };
        to[nr++] = w->part[v] % w->P;
    }
    if ((rc = dist_route(w->c, r, sizeof(*r), to, nr, &got, &ng, NULL)) ||
        wp->p < 0)
        goto out;
    rc = DP_ENOMEM;
    wp->nn = w->sh.nstart[wp->p + 1] - w->sh.nstart[wp->p];
    if (!(wp->orig = dp_malloc_array((size_t)wp->nn + 1, sizeof(*wp->orig))) ||
        (w->fine &&
         !(wp->fine = dp_malloc_array((size_t)wp->nn + 1, sizeof(int32_t)))))
        goto out;
    for (k = 0; k < ng; k++) {
        const struct node_rec *x = (const struct node_rec *)got + k;
        int64_t at = x->newid - w->sh.nstart[wp->p];

        dp_comm_check(w->c, "a node of the part", at, 0, wp->nn);
        dp_comm_check(w->c, "an input node id", x->orig, 0, w->N);
        dp_comm_check(w->c, "a trainer part", x->fine, 0,
                      (int64_t)w->K * w->o->num_trainers);

        wp->orig[at] = x->orig;
        if (wp->fine)
            wp->fine[at] = x->fine;
    }
    rc = ng == wp->nn ? 0
                      : dp_error(DP_EPROTO,
                                 "part %d: %" PRId64
                                 " node records for %" PRId64 " nodes",
                                 wp->p, ng, wp->nn);
out:
    free(r);
    free(to);
    free(got);
    return rc;
}

/* The shuffled id of in-edge x (from the first owned node's) of owned
 * node v. */
static int64_t shuffled_eid(const struct dist_out *w, int64_t v, int64_t x)
{
    const int64_t *ip = dp_dataset_indptr(w->d);

    return w->erow ? w->erow[v] + (x - (ip[w->v0 + v] - ip[w->v0]))
                   : dp_ids_get(&w->eid, (size_t)x);
}

struct ew_emit {
    const struct dist_out *w;
    int i, side; /* side 0: inner edges, 1: leaving edges */
    int narrow;  /* struct part_edge32 records */
};

/* Wave i's edges of a side, as records of int32 fields below 2^31. */
static struct ew_emit edge_emit(const struct dist_out *w, int i, int side)
{
    struct ew_emit em = { w, i, side, !dist_wide(w->N > w->E ? w->N : w->E) };

    return em;
}

static size_t edge_width(const struct ew_emit *em)
{
    return em->narrow ? sizeof(struct part_edge32) : sizeof(struct part_edge);
}

static void emit_edges(void *arg, int64_t v, struct dp_comm_batch *b)
{
    const struct ew_emit *em = arg;
    const struct dist_out *w = em->w;
    const int64_t *ip = dp_dataset_indptr(w->d);
    int64_t k0 = ip[w->v0], k;
    int pv = w->part[v];

    if (!em->side && !in_wave(w, em->i, pv))
        return;
    for (k = ip[w->v0 + v]; k < ip[w->v0 + v + 1]; k++) {
        int64_t s = dp_ids_get(&w->esrc, (size_t)(k - k0));
        int ps = em->side ? dp_range_of(w->sh.nstart, w->K, s) : pv;
        struct part_edge x;
        void *to;

        if (em->side && (ps == pv || !in_wave(w, em->i, ps)))
            continue;
        if (!(to = dp_comm_batch_put(b, ps % w->P)))
            continue;
        x = (struct part_edge){ s, w->newid[v], shuffled_eid(w, v, k - k0),
                                dp_dataset_eid(w->d, k), k - ip[w->v0 + v] };
        if (em->narrow)
            *(struct part_edge32 *)to =
                (struct part_edge32){ (int32_t)x.src, (int32_t)x.dst,
                                      (int32_t)x.eid, (int32_t)x.orig,
                                      (int32_t)x.k };
        else
            *(struct part_edge *)to = x;
    }
}

/* A received edge checked: an inner one (side 0) ends in part p, a
 * leaving one starts there. */
static void check_edge(const struct dist_out *w, int p, int side,
                       const struct part_edge *x)
{
    dp_comm_check(w->c, "an edge's source", x->src, 0, w->N);
    dp_comm_check(w->c, "an edge's destination", x->dst, 0, w->N);
    dp_comm_check(w->c, "an input edge id", x->orig, 0, w->E);
    dp_comm_check(w->c, "an edge's place", x->k, 0, INT64_MAX);
    if (side) {
        dp_comm_check(w->c, "a leaving edge's source", x->src, w->sh.nstart[p],
                      w->sh.nstart[p + 1]);
    } else {
        dp_comm_check(w->c, "an inner edge id", x->eid, w->sh.estart[p],
                      w->sh.estart[p + 1]);
        dp_comm_check(w->c, "an inner edge's destination", x->dst,
                      w->sh.nstart[p], w->sh.nstart[p + 1]);
    }
}

/* Side 0: each owned in-edge to the writer of its destination's part;
 * side 1 (--halo_edges all, one hop): to the writer of its source's part
 * when that differs, the edges leaving a part being its halo. Sent in
 * rounds, received straight into *e[*ne]. */
static int edges_to_writer(struct dist_out *w, int i, int side,
                           const struct wpart *wp, struct part_edges *e)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    struct ew_emit em = edge_emit(w, i, side);
    int64_t k;
    int rc;

    e->narrow = em.narrow;
    if ((rc = dp_comm_route_rows(w->c, edge_width(&em), w->n, ip + w->v0,
                                 emit_edges, &em, &e->v, &e->n)))
        return rc;
    for (k = 0; wp->p >= 0 && k < e->n; k++) {
        struct part_edge x = part_edge_at(e, k);

        check_edge(w, wp->p, side, &x);
    }
    return 0;
}

/* An untyped part's inner edges taken as they come, each put at its id's
 * place in the local graph l (NULL: checked and dropped) with what the
 * data rows need of it: neither the records nor a sort are held. */
struct inner_take {
    const struct dist_out *w;
    struct wpart *wp;
    struct local *l;
    int narrow;
};

static void take_inner(void *arg, int from, const void *items, int64_t n)
{
    struct inner_take *t = arg;
    const struct dist_out *w = t->w;
    struct wpart *wp = t->wp;
    struct part_edges e = { (void *)(uintptr_t)items, n, t->narrow };
    int64_t k, e0 = wp->p >= 0 ? w->sh.estart[wp->p] : 0;

    (void)from;
    for (k = 0; wp->p >= 0 && k < n; k++) {
        struct part_edge x = part_edge_at(&e, k);
        int64_t at = x.eid - e0;

        check_edge(w, wp->p, 0, &x);
        if (!t->l)
            continue;
        if (local_set_inner(t->l, at, x.src, x.dst))
            dp_comm_bad(w->c, "an inner edge sent twice", x.eid, x.eid, x.eid);
    }
}

/* The inner edges of an untyped part with halos into a new *lp (NULL when
 * this rank writes none this wave, or on *werr). */
static int inner_in_place(struct dist_out *w, struct part_job *jb, int i,
                          struct wpart *wp, void *lid, struct local **lp,
                          int *werr)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    struct ew_emit em = edge_emit(w, i, 0);
    struct inner_take t = { w, wp, NULL, em.narrow };
    int64_t n = wp->p >= 0 ? w->sh.estart[wp->p + 1] - w->sh.estart[wp->p] : 0;
    int rc;

    if (wp->p >= 0 && !*werr)
        *werr = local_begin_inner(jb, wp->p, lid, n, &t.l);
    rc = dp_comm_route_rows_each(w->c, edge_width(&em), w->n, ip + w->v0,
                                 emit_edges, &em, take_inner, &t);
    if (!rc && t.l && !*werr)
        *werr = local_end_inner(t.l);
    if (rc || *werr) {
        local_free(t.l);
        t.l = NULL;
    }
    *lp = t.l;
    return rc;
}

/* The edges leaving an untyped part, put in place as they come: in id
 * order they are grouped by their destination's part, then by sender (a
 * part's ids follow the ranks), each sender's in the order it sends
 * them, so every sender's counts by (writer, destination part) give each
 * edge its place. off[pd * P + q] is the next place of sender q's edges
 * into part pd, end[] where they stop. */
struct leave_take {
    const struct dist_out *w;
    struct wpart *wp;
    struct local *l;
    int64_t *off, *end;
    int narrow;
};

static void take_leaving(void *arg, int from, const void *items, int64_t n)
{
    struct leave_take *t = arg;
    const struct dist_out *w = t->w;
    struct part_edges e = { (void *)(uintptr_t)items, n, t->narrow };
    int64_t k;

    for (k = 0; t->wp->p >= 0 && k < n; k++) {
        struct part_edge x = part_edge_at(&e, k);
        int pd;
        size_t g;

        check_edge(w, t->wp->p, 1, &x);
        pd = dp_range_of(w->sh.nstart, w->K, x.dst);
        g = (size_t)pd * (size_t)w->P + (size_t)from;
        dp_comm_check(w->c, "a leaving edge of a rank", t->off[g], 0,
                      t->end[g]);
        if (t->l && local_set_leaving(t->l, t->off[g], x.src, x.dst, x.eid))
            dp_comm_bad(w->c, "a leaving edge sent twice", x.eid, x.eid, x.eid);
        t->off[g]++;
    }
}

/* Each writer's share of this rank's leaving edges, by destination part:
 * cnt[q * K + pd] for the part written by rank q this wave. */
static void count_leaving(const struct dist_out *w, int i, int64_t *cnt)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    int64_t k0 = ip[w->v0], v, k;

    for (v = 0; v < w->n; v++) {
        int pv = w->part[v];

        for (k = ip[w->v0 + v]; k < ip[w->v0 + v + 1]; k++) {
            int64_t s = dp_ids_get(&w->esrc, (size_t)(k - k0));
            int ps = dp_range_of(w->sh.nstart, w->K, s);

            if (ps != pv && in_wave(w, i, ps))
                cnt[(size_t)(ps % w->P) * (size_t)w->K + (size_t)pv]++;
        }
    }
}

static int leaving_in_place(struct dist_out *w, int i, struct wpart *wp,
                            struct local *l, int *werr)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    struct ew_emit em = edge_emit(w, i, 1);
    struct leave_take t = { w, wp, l, NULL, NULL, em.narrow };
    size_t PK = (size_t)w->P * (size_t)w->K, g;
    int64_t *cnt = dp_calloc(PK + 1, sizeof(*cnt)), *all = NULL, at = 0;
    int rc = DP_ENOMEM, q, pd;

    all = dp_malloc_array(PK * (size_t)w->P + 1, sizeof(*all));
    t.off = dp_malloc_array(PK + 1, sizeof(*t.off));
    t.end = dp_malloc_array(PK + 1, sizeof(*t.end));
    if (!cnt || !all || !t.off || !t.end)
        goto out;
    count_leaving(w, i, cnt);
    if ((rc = dp_comm_allgather(w->c, cnt, PK * sizeof(*cnt), all)))
        goto out;
    for (pd = 0; pd < w->K; pd++)
        for (q = 0; q < w->P; q++) {
            int64_t c = all[(size_t)q * PK + (size_t)w->rank * w->K + pd];

            dp_comm_check(w->c, "a count of leaving edges", c, 0,
                          w->E - at + 1);
            g = (size_t)pd * (size_t)w->P + (size_t)q;
            t.off[g] = at;
            t.end[g] = at += c;
        }
    if (l && !*werr && (*werr = local_begin_leaving(l, at)))
        t.l = NULL;
    if ((rc = dp_comm_route_rows_each(w->c, edge_width(&em), w->n, ip + w->v0,
                                      emit_edges, &em, take_leaving, &t)))
        goto out;
    for (g = 0; wp->p >= 0 && g < PK; g++)
        if (t.off[g] != t.end[g])
            dp_comm_bad(w->c, "leaving edges from a rank", t.off[g], t.end[g],
                        t.end[g] + 1);
    if (t.l && !*werr)
        *werr = local_end_leaving(t.l);
out:
    free(cnt);
    free(all);
    free(t.off);
    free(t.end);
    return rc;
}

/* graph.dgl of the part this rank writes (if any) from the edges sent to
 * it: the inner ones first (untyped, put in place as they come; typed,
 * held until the graph has them), then the leaving ones, so the two are
 * never held whole together. A failure to write goes to *werr: the
 * exchanges go on. */
static int write_graph(struct dist_out *w, struct part_job *jb, int i,
                       struct wpart *wp, void *lid, int *werr)
{
    struct local *l = NULL;
    char *dir = NULL, *path = NULL;
    int rc, in_place = !w->T && !w->ET && w->o->num_hops > 0;

    if (wp->p >= 0 && !*werr) {
        dir = part_path(jb, wp->p, NULL);
        path = part_path(jb, wp->p, "graph.dgl");
        if (!dir || !path)
            *werr = DP_ENOMEM;
        else
            *werr = dp_mkdir_p(dir, 0777);
    }
    if (in_place) {
        if ((rc = inner_in_place(w, jb, i, wp, lid, &l, werr)))
            goto out;
    } else {
        if ((rc = edges_to_writer(w, i, 0, wp, &wp->in)))
            goto out;
        if (wp->p >= 0 && !*werr)
            *werr = local_from_edges(jb, wp->p, lid, &wp->in, &l);
        free(wp->in.v);
        wp->in.v = NULL;
    }
    if (in_place && !w->o->halo_in) {
        if ((rc = leaving_in_place(w, i, wp, *werr ? NULL : l, werr)))
            goto out;
    } else if (w->o->num_hops > 0 && !w->o->halo_in) {
        if ((rc = edges_to_writer(w, i, 1, wp, &wp->out)))
            goto out;
        if (l && !*werr)
            *werr = local_add_leaving(l, &wp->out);
    }
    free(wp->out.v);
    wp->out.v = NULL;
    if (l && !*werr)
        *werr = local_write_graph(l, path, &w->ps[wp->p]);
out:
    free(wp->out.v);
    wp->out.v = NULL;
    local_free(l);
    free(dir);
    free(path);
    return rc;
}

/* ---- data rows ---- */

enum { ROW_DATA, ROW_FINE, ROW_ORIG };

/* One entry of node_feat.dgl / edge_feat.dgl (or orig ids): its rows are
 * the part's (of type type; -1: all), read at base + (id - off) * rb by
 * the ranks holding them, or made by the writer (ROW_FINE, ROW_ORIG). */
struct spec {
    char key[512];
    enum dp_dtype dtype;
    int ndim;
    int64_t shape[DP_NPY_MAXDIM];
    size_t rb;
    int type;
    struct dp_rows rows; /* ROW_DATA */
    int64_t off;
    int kind;
};

struct specs {
    struct spec *s;
    int n;
    size_t cap;
};

static int add_spec(struct specs *l, const char *prefix,
                    const struct dp_rename *r, const char *name,
                    enum dp_dtype dt, const struct dp_npy *a, int type,
                    int64_t off, int kind)
{
    struct spec *s;
    int j, rc;

    if ((rc = DP_ALLOC_GROW(l->s, (size_t)l->n + 1, l->cap)))
        return rc;
    s = &l->s[l->n++];
    memset(s, 0, sizeof(*s));
    names_key(s->key, sizeof(s->key), prefix, r, name);
    s->dtype = a ? a->h.dtype : dt;
    s->ndim = a ? a->h.ndim : 1;
    s->rb = dp_dtype_size(s->dtype);
    for (j = 1; a && j < a->h.ndim; j++) {
        s->shape[j] = a->h.shape[j];
        s->rb *= (size_t)a->h.shape[j];
    }
    s->type = type;
    if (a)
        dp_rows_of(a, &s->rows);
    s->off = off;
    s->kind = kind;
    if (!s->rb)
        return dp_error(DP_EUNSUPPORTED, "'%s': %s data '%s' has empty rows",
                        "dataset", prefix, name);
    return 0;
}

/* Per-type array i (of the dataset's node_data or edge_data list). */
static int add_data(struct specs *l, const char *prefix,
                    const struct dp_rename *r, const struct dp_dataset *d,
                    int edge, int i, int type, int64_t off)
{
    const struct dp_dataset_data *x =
        edge ? &d->meta.edata[i] : &d->meta.ndata[i];
    int rc = add_spec(l, prefix, r, x->name, 0,
                      edge ? &d->edata[i] : &d->ndata[i], type, off, ROW_DATA);

    if (!rc)
        dp_dataset_rows(d, edge, i, &l->s[l->n - 1].rows);
    return rc;
}

/* The entries the single-machine writers make, in their order. */
static int node_specs(const struct dist_out *w, struct specs *l)
{
    const struct dp_dataset *d = w->d;
    const struct dp_dataset_meta *m = &d->meta;
    const struct dp_rename *r = &w->nm->nren;
    int i, rc = 0;

    if (w->T) {
        for (i = 0; !rc && i < m->num_ndata; i++)
            rc = add_data(l, m->ntypes[m->ndata[i].type].name, r, d, 0, i,
                          m->ndata[i].type, m->ntypes[m->ndata[i].type].offset);
        for (i = 0; !rc && w->fine && i < w->T; i++)
            rc = add_spec(l, m->ntypes[i].name, r, "trainer_id", DP_I64, NULL,
                          i, 0, ROW_FINE);
        return rc;
    }
    if (d->feat.data)
        rc = add_spec(l, "_N", r, "feat", 0, &d->feat, -1, 0, ROW_DATA);
    if (!rc && d->label.data)
        rc = add_spec(l, "_N", r, "label", 0, &d->label, -1, 0, ROW_DATA);
    if (!rc && d->train_mask.data)
        rc = add_spec(l, "_N", r, "train_mask", 0, &d->train_mask, -1, 0,
                      ROW_DATA);
    if (!rc && d->val_mask.data)
        rc = add_spec(l, "_N", r, "val_mask", 0, &d->val_mask, -1, 0, ROW_DATA);
    if (!rc && d->test_mask.data)
        rc = add_spec(l, "_N", r, "test_mask", 0, &d->test_mask, -1, 0,
                      ROW_DATA);
    for (i = 0; !rc && i < m->num_ndata; i++)
        rc = add_data(l, "_N", r, d, 0, i, -1, 0);
    if (!rc && w->fine)
        rc = add_spec(l, "_N", r, "trainer_id", DP_I64, NULL, -1, 0, ROW_FINE);
    return rc;
}

static int edge_specs(const struct dist_out *w, struct specs *l)
{
    const struct dp_dataset *d = w->d;
    const struct dp_dataset_meta *m = &d->meta;
    const struct dp_rename *r = &w->nm->eren;
    int i, rc = 0;

    if (w->ET) {
        for (i = 0; !rc && i < m->num_edata; i++)
            rc = add_data(l, m->etypes[m->edata[i].type].name, r, d, 1, i,
                          m->edata[i].type, m->etypes[m->edata[i].type].offset);
        for (i = 0; !rc && w->fine && i < w->ET; i++)
            rc = add_spec(l, m->etypes[i].name, r, "trainer_id", DP_I64, NULL,
                          i, 0, ROW_FINE);
        return rc;
    }
    if (d->edge_weight.data)
        rc = add_spec(l, DP_ETYPE_HOM, r, "weight", 0, &d->edge_weight, -1, 0,
                      ROW_DATA);
    for (i = 0; !rc && i < m->num_edata; i++)
        rc = add_data(l, DP_ETYPE_HOM, r, d, 1, i, -1, 0);
    if (!rc && w->fine)
        rc = add_spec(l, DP_ETYPE_HOM, r, "trainer_id", DP_I64, NULL, -1, 0,
                      ROW_FINE);
    return rc;
}

/* First shuffled id and count of the rows of s in part p. */
static int64_t spec_rows(const struct dist_out *w, const struct spec *s,
                         int edge, int p, int64_t *first)
{
    const int64_t *st = edge ? (w->ET ? w->sh.etstart : w->sh.estart)
                             : (w->T ? w->sh.tstart : w->sh.nstart);
    int64_t k = s->type < 0 ? p : (int64_t)p * (edge ? w->ET : w->T) + s->type;

    *first = st[k];
    return st[k + 1] - st[k];
}

/* A row on its way to its writer; rows of any width follow each other,
 * so the header is copied in and out, never accessed in place. */
struct row_hdr {
    int64_t at; /* row of the part's entry */
};

/* This rank's rows of s in the wave's parts, round by round: each writer
 * gets the rows [k * B, (k + 1) * B) of its part; the items walk forward
 * through cur[] (per writer: owned nodes or in-edges in shuffled order;
 * for in-edges, cur[P + q] is the owned node whose they are). */
static int send_round(struct dist_out *w, const struct spec *s, int edge, int i,
                      int64_t k, int64_t B, int64_t *cur, void **got,
                      int64_t *ngot)
{
    const int64_t *ip = dp_dataset_indptr(w->d);
    int64_t k0 = ip[w->v0], m = ip[w->v0 + w->n] - k0, cap = 0, nr = 0;
    size_t item = sizeof(struct row_hdr) + s->rb;
    char *buf = NULL;
    int *to = NULL, q, rc, hint = 0;

    for (q = 0; q < w->P; q++) {
        int p = i * w->P + q;
        int64_t first, rows;

        if (p >= w->K)
            continue;
        rows = spec_rows(w, s, edge, p, &first);
        (void)rows;
        for (; cur[q] < (edge ? m : w->n); cur[q]++) {
            int64_t x = cur[q], id, at, dst = 0;
            int pp, ty;

            if (edge) {
                /* the in-edge's destination */
                int64_t v = cur[w->P + q];

                while (ip[w->v0 + v + 1] <= k0 + x)
                    v++;
                cur[w->P + q] = v;

                id = dp_dataset_eid(w->d, k0 + x);
                at = shuffled_eid(w, v, x);
                /* the destination's part: the edge's block */
                pp = dp_range_of(w->sh.estart, w->K, at);
                ty = w->ET ? dp_dataset_etype_of(w->d, id) : -1;
                dst = v;
            } else {
                id = w->v0 + x;
                at = w->newid[x];
                pp = w->part[x];
                ty = w->T ? dp_dataset_ntype_of(w->d, id) : -1;
            }
            if (pp != p || (s->type >= 0 && ty != s->type))
                continue;
            if (at - first >= (k + 1) * B)
                break;
            if (nr == cap) {
                int64_t nc = cap ? 2 * cap : 1024;
                char *nb = dp_realloc_array(buf, (size_t)nc, item);
                int *nt = dp_realloc_array(to, (size_t)nc, sizeof(*to));

                if (nb)
                    buf = nb;
                if (nt)
                    to = nt;
                if (!nb || !nt) {
                    free(buf);
                    free(to);
                    return DP_ENOMEM;
                }
                cap = nc;
            }
            {
                struct row_hdr h = { at - first };

                memcpy(buf + (size_t)nr * item, &h, sizeof(h));
            }
            if (s->kind == ROW_DATA) {
                memcpy(buf + (size_t)nr * item + sizeof(struct row_hdr),
                       dp_rows_at(&s->rows, id - s->off, &hint), s->rb);
            } else {
                /* an edge's input id within its type, or its
                 * destination's trainer */
                int64_t val = s->kind == ROW_ORIG ? id - s->off : w->fine[dst];

                memcpy(buf + (size_t)nr * item + sizeof(struct row_hdr), &val,
                       sizeof(val));
            }
            to[nr++] = q;
        }
    }
    rc = dist_route(w->c, buf, item, to, nr, got, ngot, NULL);
    free(buf);
    free(to);
    return rc;
}

/* A part's node rows the writer makes itself: trainer ids and orig ids
 * (input ids within the type), from its node records. */
static void own_rows(const struct dist_out *w, const struct wpart *wp,
                     const struct spec *s, int64_t first, int64_t from,
                     int64_t n, int64_t *out)
{
    int64_t r;

    for (r = 0; r < n; r++) {
        int64_t x = first + from + r - w->sh.nstart[wp->p];

        out[r] = s->kind == ROW_FINE ? wp->fine[x] : wp->orig[x] - s->off;
    }
}

/* One entry of the writer's file, every rank sending its rows. A failure
 * to write stops the writing, not the rounds (*werr gets it): the other
 * ranks go on sending. */
static int write_entry(struct dist_out *w, int i, struct wpart *wp,
                       const struct spec *s, int edge,
                       struct dp_tensor_writer *tw, int *werr)
{
    int64_t B = (int64_t)(ROUND_BYTES / s->rb) + 1, rounds = 0, k, first = 0;
    int64_t rows = 0, *cur = dp_calloc(2 * (size_t)w->P, sizeof(*cur));
    size_t item = sizeof(struct row_hdr) + s->rb;
    int writing = wp->p >= 0 && !*werr, q, rc = 0;
    char *buf = NULL;

    if (!cur)
        return DP_ENOMEM;
    /* every rank runs as many rounds as the largest part of the wave */
    for (q = 0; q < w->P && i * w->P + q < w->K; q++) {
        int64_t f, n = spec_rows(w, s, edge, i * w->P + q, &f);

        if ((n + B - 1) / B > rounds)
            rounds = (n + B - 1) / B;
    }
    if (wp->p >= 0)
        rows = spec_rows(w, s, edge, wp->p, &first);
    if (writing) {
        int64_t shape[DP_NPY_MAXDIM];

        memcpy(shape, s->shape, sizeof(shape));
        shape[0] = rows;
        if ((*werr = dp_tensor_writer_begin(tw, s->key, s->dtype, s->ndim,
                                            shape)) ||
            (!(buf = dp_malloc_array((size_t)B + 1, s->rb)) &&
             (*werr = DP_ENOMEM)))
            writing = 0;
    }
    /* data rows, and an edge's orig and trainer ids, come from the ranks
     * holding the edge */
    for (k = 0; (s->kind == ROW_DATA || edge) && k < rounds; k++) {
        void *got = NULL;
        int64_t ng = 0, j, n = rows - k * B < B ? rows - k * B : B;

        if ((rc = send_round(w, s, edge, i, k, B, cur, &got, &ng)))
            break;
        for (j = 0; j < ng && writing; j++) {
            const char *x = (const char *)got + (size_t)j * item;
            struct row_hdr h;
            int64_t at;

            memcpy(&h, x, sizeof(h));
            at = h.at - k * B;

            dp_comm_check(w->c, "a data row", at, 0, n);

            memcpy(buf + (size_t)at * s->rb, x + sizeof(struct row_hdr), s->rb);
        }
        free(got);
        if (writing && n > 0 && ng != n)
            *werr = dp_error(DP_EPROTO,
                             "part %d, '%s': %" PRId64 " rows for %" PRId64,
                             wp->p, s->key, ng, n);
        else if (writing && n > 0)
            *werr = dp_tensor_writer_write(tw, buf, (size_t)n * s->rb);
        writing = writing && !*werr;
    }
    for (k = 0; writing && s->kind != ROW_DATA && !edge && k * B < rows; k++) {
        int64_t n = rows - k * B < B ? rows - k * B : B;

        own_rows(w, wp, s, first, k * B, n, (int64_t *)(void *)buf);
        writing = !(*werr = dp_tensor_writer_write(tw, buf, (size_t)n * s->rb));
    }
    if (writing)
        *werr = dp_tensor_writer_end(tw);
    free(buf);
    free(cur);
    return rc;
}

/* A file of entries: node_feat.dgl, edge_feat.dgl or the orig ids. */
static int write_file(struct dist_out *w, struct part_job *jb, int i,
                      struct wpart *wp, const struct specs *l, int edge,
                      const char *name, int *werr)
{
    struct dp_tensor_writer tw;
    char *path = wp->p >= 0 && !*werr ? part_path(jb, wp->p, name) : NULL;
    int rc = 0, e, open = 0;

    if (wp->p >= 0 && !*werr) {
        *werr =
            path ? dp_tensor_writer_open(&tw, path, (uint64_t)l->n) : DP_ENOMEM;
        open = !*werr;
    }
    for (e = 0; !rc && e < l->n; e++)
        rc = write_entry(w, i, wp, &l->s[e], edge, &tw, werr);
    if (open && !*werr && !rc)
        *werr = dp_tensor_writer_commit(&tw);
    else if (open)
        dp_tensor_writer_abort(&tw);
    free(path);
    return rc;
}

/* The orig ids' entries: one of all ids untyped, one per type typed. */
static int orig_specs(const struct dist_out *w, int edge, struct specs *l)
{
    const struct dp_dataset_meta *m = &w->d->meta;
    int nt = edge ? w->ET : w->T, t, rc = 0;

    for (t = 0; !rc && t < (nt ? nt : 1); t++) {
        const struct dp_dataset_type *ty =
            nt ? (edge ? &m->etypes[t] : &m->ntypes[t]) : NULL;

        if ((rc = add_spec(l, "x", NULL, "x", DP_I64, NULL, nt ? t : -1,
                           ty ? ty->offset : 0, ROW_ORIG)))
            break;
        snprintf(l->s[l->n - 1].key, sizeof(l->s[0].key), "%s",
                 ty     ? ty->name
                 : edge ? DP_ORIG_EIDS_KEY
                        : DP_ORIG_NIDS_KEY);
    }
    return rc;
}

/* Wave i: the parts i * P .. i * P + P - 1, each on rank p % P. */
static int wave(struct dist_out *w, struct part_job *jb, int i,
                const struct specs *sp, void *lid, int *werr)
{
    struct wpart wp;
    int rc;

    memset(&wp, 0, sizeof(wp));
    wp.p = i * w->P + w->rank < w->K ? i * w->P + w->rank : -1;
    if ((rc = nodes_to_writers(w, i, &wp)) ||
        (rc = write_graph(w, jb, i, &wp, lid, werr)))
        goto out;
    if ((rc = write_file(w, jb, i, &wp, &sp[0], 0, "node_feat.dgl", werr)) ||
        (rc = write_file(w, jb, i, &wp, &sp[1], 1, "edge_feat.dgl", werr)))
        goto out;
    if (!w->o->no_orig_ids &&
        ((rc = write_file(w, jb, i, &wp, &sp[2], 0, "orig_nids.dgl", werr)) ||
         (!w->o->no_orig_eids &&
          (rc = write_file(w, jb, i, &wp, &sp[3], 1, "orig_eids.dgl", werr)))))
        goto out;
out:
    wpart_free(&wp);
    return rc;
}

int dist_out_parts(struct dist_out *w)
{
    struct part_job jb = { w->o, w->d, &w->sh, NULL, w->nm, w->tmp };
    struct specs sp[4];
    int waves = (w->K + w->P - 1) / w->P, i, k, rc = 0, werr = 0;
    size_t width = w->N > INT32_MAX ? 8 : 4;
    void *lid = dp_malloc_array((size_t)w->N + 1, width);

    memset(sp, 0, sizeof(sp));
    if (!lid)
        rc = DP_ENOMEM;
    else
        /* all ones is -1 in either width */
        memset(lid, 0xff, ((size_t)w->N + 1) * width);
    if (!rc &&
        ((rc = node_specs(w, &sp[0])) || (rc = edge_specs(w, &sp[1])) ||
         (rc = orig_specs(w, 0, &sp[2])) || (rc = orig_specs(w, 1, &sp[3]))))
        goto out;
    /* the specs come from the dataset, the same on every rank */
    for (i = 0; !rc && i < waves; i++) {
        double t0 = dp_now();

        if ((rc = dp_check_interrupt()) ||
            (rc = wave(w, &jb, i, sp, lid, &werr)))
            break;
        if ((rc = dp_comm_agree(w->c, werr)))
            break;
        if (w->rank == 0)
            dp_log(DP_LOG_V, "parts %d-%d written: %.2f s", i * w->P,
                   (i + 1) * w->P < w->K ? (i + 1) * w->P - 1 : w->K - 1,
                   dp_now() - t0);
    }
out:
    for (k = 0; k < 4; k++)
        free(sp[k].s);
    free(lid);
    return rc;
}
