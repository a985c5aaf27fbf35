/* verify: halo copies against their originals, and each part's halo
 * against DGL's rules for the stored hop count; what is missing or extra
 * is named by loading the other parts again. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"

#include "verify_int.h"

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Sorted, each id once. */
static void sort_unique(struct dp_i64vec *a)
{
    size_t i, k = 0;

    if (!a->n)
        return; /* p may be NULL: qsort must not see it */
    qsort(a->v, a->n, sizeof(*a->v), cmp64);
    for (i = 0; i < a->n; i++)
        if (!k || a->v[k - 1] != a->v[i])
            a->v[k++] = a->v[i];
    a->n = k;
}

static int has(const struct dp_i64vec *a, int64_t x)
{
    return a->n && bsearch(&x, a->v, a->n, sizeof(x), cmp64) != NULL;
}

/* Part j's originals by edge id - estart (-1 where it holds none): what
 * the halo copies of its edges must join. lp NULL: part j is unusable. */
int vf_originals(const struct vctx *v, int j, const struct lpart *lp,
                 struct ids *ts, struct ids *td)
{
    const struct part *p = &v->p[j];
    int64_t len = p->eend - p->estart, k, e, s, d;

    if (vf_ids_alloc(ts, len, v->cfg.num_nodes - 1) ||
        vf_ids_alloc(td, len, v->cfg.num_nodes - 1))
        return DP_ENOMEM;
    for (k = 0; k < len; k++)
        ids_set(ts, k, -1);
    for (k = 0; lp && k < lp->g.num_edges; k++)
        if (original(v, j, lp, k, &e, &s, &d) &&
            ids_get(ts, e - p->estart) < 0) {
            ids_set(ts, e - p->estart, s);
            ids_set(td, e - p->estart, d);
        }
    return 0;
}

/* The sums of part j's edges disagreed: find the copies that join other
 * nodes than their originals, or have none, in every other part. */
int vf_find_bad_copies(struct vwork *w, int j, const struct ids *ts,
                       const struct ids *td)
{
    struct vctx *v = w->v;
    const struct part *pj = &v->p[j];
    int h, rc = 0;

    for (h = 0; h < v->cfg.num_parts && !rc; h++) {
        struct tally orphan = { 0 }, differ = { 0 };
        struct lpart lp;
        int64_t k, e, s, d, x;

        if (h == j || !v->p[h].graph_ok)
            continue;
        if ((rc = vf_reload(w, h, &lp)) != 0 || !lp.ok)
            continue;
        for (k = 0; k < lp.g.num_edges; k++) {
            e = at(lp.eid, k);
            if (e < pj->estart || e >= pj->eend || bit_test_set(w->ebits, e))
                continue;
            s = at(lp.nid, lsrc(&lp, k));
            d = at(lp.nid, ldst(&lp, k));
            x = e - pj->estart;
            if (ids_get(ts, x) < 0)
                vf_tally(&orphan,
                         "halo edge %" PRId64 " (_ID %" PRId64 ") is an"
                         " inner edge of no part",
                         k, e);
            else if (ids_get(ts, x) != s || ids_get(td, x) != d)
                vf_tally(&differ,
                         "halo edge %" PRId64 " (_ID %" PRId64
                         ") joins %" PRId64 " -> %" PRId64
                         ", part %d has it as %" PRId64 " -> %" PRId64,
                         k, e, s, d, owner(&v->cfg, ids_get(td, x)),
                         ids_get(ts, x), ids_get(td, x));
        }
        for (k = 0; k < lp.g.num_edges; k++) {
            e = at(lp.eid, k);
            if (e >= pj->estart && e < pj->eend)
                bit_clear(w->ebits, e);
        }
        vf_flush(w, &orphan, gfile(v, h));
        vf_flush(w, &differ, gfile(v, h));
        vf_release_part(&lp);
    }
    return rc;
}

void vf_deficit_release(struct deficit *df)
{
    dp_i64vec_release(&df->in);
    dp_i64vec_release(&df->out);
    dp_i64vec_release(&df->eids);
    dp_i64vec_release(&df->nodes);
    memset(df, 0, sizeof(*df));
}

/* Each local node's level: 1 inner, h + 1 a source of the stored in-edges
 * of a level-h node (h <= hops), 0 neither. Needs lp->iptr past one hop. */
static void halo_levels(const struct vctx *v, int i, const struct lpart *lp,
                        int32_t *lev)
{
    const struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, k, x, j, u;
    int hop;

    for (k = 0; k < n; k++) {
        x = at(lp->nid, k);
        lev[k] = x >= p->start && x < p->end;
    }
    for (hop = 1; hop <= v->cfg.halo_hops; hop++)
        for (x = 0; x < n; x++) {
            if (lev[x] != hop)
                continue;
            for (j = lp->iptr[x]; j < lp->iptr[x + 1]; j++) {
                sweep(lp, j);
                u = lsrc(lp, ids_get(&lp->ilist, j));
                if (!lev[u])
                    lev[u] = hop + 1;
            }
        }
}

/* Local edges of part i from an inner node to a node outside the hops:
 * only DGL's out-edge halo brings them. One hop needs no levels. */
int vf_count_out_only(struct vwork *w, int i, struct lpart *lp)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, k, x, y;
    int hops = v->cfg.halo_hops, rc;
    int32_t *lev;

    if (hops == 1) {
        for (k = 0; k < m; k++) {
            sweep(lp, k);
            x = at(lp->nid, lsrc(lp, k));
            y = at(lp->nid, ldst(lp, k));
            w->out_only +=
                x >= p->start && x < p->end && (y < p->start || y >= p->end);
        }
        return 0;
    }
    if ((rc = vf_build_in(lp)) != 0)
        return rc;
    lev = dp_calloc(n ? (size_t)n : 1, 4);
    if (!lev)
        return DP_ENOMEM;
    halo_levels(v, i, lp, lev);
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        y = lev[ldst(lp, k)];
        w->out_only += lev[lsrc(lp, k)] == 1 && !(y >= 1 && y <= hops);
    }
    free(lev);
    free(lp->iptr);
    lp->iptr = NULL;
    free(lp->ilist.p);
    lp->ilist.p = NULL;
    return 0;
}

/* The loaded part i against DGL's halo rules: the inner nodes, then for
 * each hop the sources of the in-edges of the level before, every
 * in-edge of the nodes within halo_hops, and the out-edges of the inner
 * nodes. Levels come from the part's own edges; a node within the hops
 * whose in-degree here is below its global in-degree (or an inner node
 * short of out-edges) lacks edges, and when none does, the levels are
 * the true ones, so what lies outside them is extra. */
int vf_check_part_halo(struct vwork *w, int i, const struct lpart *lp,
                       struct deficit *df)
{
    struct vctx *v = w->v;
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, nn = v->cfg.num_nodes;
    int64_t k, x, e, u, y;
    int hops = v->cfg.halo_hops, rc = 0;
    int32_t *lev = dp_calloc(n ? (size_t)n : 1, 4);
    int64_t *odeg = dp_calloc(n ? (size_t)n : 1, 8);
    uint8_t *head = dp_calloc(n ? (size_t)n : 1, 1);
    struct tally extra_n = { 0 }, extra_e = { 0 };

    if (!lev || !odeg || !head) {
        rc = DP_ENOMEM;
        goto out;
    }
    halo_levels(v, i, lp, lev);
    for (k = 0; k < m && !v->in_layout; k++) {
        sweep(lp, k);
        u = lsrc(lp, k);
        if (lev[u] == 1) {
            odeg[u]++;
            head[ldst(lp, k)] = 1;
        }
    }
    for (k = 0; k < n; k++) {
        x = at(lp->nid, k);
        if (x < 0 || x >= nn)
            continue;
        if (!lev[k] && !head[k])
            vf_tally(&extra_n,
                     "halo node %" PRId64 " (_ID %" PRId64 ") is"
                     " not within %d hops of the part",
                     k, x, hops);
        if (lev[k] >= 1 && lev[k] <= hops &&
            (uint64_t)(lp->iptr[k + 1] - lp->iptr[k]) <
                counts_get(&v->indeg, x) &&
            (rc = dp_i64vec_push(&df->in, x)) != 0)
            goto out;
        if (lev[k] == 1 && !v->in_layout &&
            (uint64_t)odeg[k] < counts_get(&v->outdeg, x) &&
            (rc = dp_i64vec_push(&df->out, x)) != 0)
            goto out;
    }
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        e = at(lp->eid, k);
        if (e < 0 || e >= v->cfg.num_edges)
            continue;
        u = lsrc(lp, k);
        y = ldst(lp, k);
        if (!(lev[y] >= 1 && lev[y] <= hops) && (lev[u] != 1 || v->in_layout))
            vf_tally(&extra_e,
                     "edge %" PRId64 " (_ID %" PRId64 ", %" PRId64
                     " -> %" PRId64 ") is not in the %d-hop halo%s",
                     k, e, at(lp->nid, u), at(lp->nid, y), hops,
                     v->in_layout ? " (in-edges only)" : "");
    }
    vf_flush(w, &extra_n, gfile(v, i));
    vf_flush(w, &extra_e, gfile(v, i));
    /* what the part holds, to tell the missing from the rest later */
    for (k = 0; (df->in.n || df->out.n) && k < m; k++) {
        e = at(lp->eid, k);
        if (e >= 0 && e < v->cfg.num_edges &&
            (rc = dp_i64vec_push(&df->eids, e)))
            goto out;
    }
    for (k = 0; (df->in.n || df->out.n) && k < n; k++) {
        x = at(lp->nid, k);
        if (x >= 0 && x < nn && (rc = dp_i64vec_push(&df->nodes, x)))
            goto out;
    }
out:
    free(lev);
    free(odeg);
    free(head);
    return rc;
}

/* Name what part i lacks: the originals of the edges its deficient nodes
 * miss, found in every part, and their other ends it does not hold. */
int vf_find_missing(struct vwork *w, int i, struct deficit *df)
{
    struct vctx *v = w->v;
    struct tally miss_n = { 0 }, miss_e = { 0 };
    struct dp_i64vec nodes = { NULL, 0, 0 };
    int hops = v->cfg.halo_hops, j, rc = 0;
    int64_t first = df->in.n ? df->in.v[0] : df->out.v[0];
    size_t q;

    sort_unique(&df->in);
    sort_unique(&df->out);
    sort_unique(&df->eids);
    sort_unique(&df->nodes);
    for (j = 0; j < v->cfg.num_parts && !rc; j++) {
        struct lpart lp;
        int64_t k, e, s, d;

        if (!v->p[j].graph_ok)
            continue;
        if ((rc = vf_reload(w, j, &lp)) != 0 || !lp.ok)
            continue;
        for (k = 0; k < lp.g.num_edges && !rc; k++) {
            int ind, outd;

            if (!original(v, j, &lp, k, &e, &s, &d))
                continue;
            ind = has(&df->in, d);
            outd = has(&df->out, s);
            if (!ind && !outd)
                continue;
            if (!has(&df->eids, e))
                vf_tally(&miss_e,
                         "edge _ID %" PRId64 " (%" PRId64 " -> %" PRId64
                         ") belongs to the %d-hop halo but is missing",
                         e, s, d, hops);
            if (ind && !has(&df->nodes, s))
                rc = dp_i64vec_push(&nodes, s);
            if (!rc && outd && !has(&df->nodes, d))
                rc = dp_i64vec_push(&nodes, d);
        }
        vf_release_part(&lp);
    }
    if (!rc) {
        sort_unique(&nodes);
        for (q = 0; q < nodes.n; q++)
            vf_tally(&miss_n,
                     "node _ID %" PRId64 " is within %d hops but missing",
                     nodes.v[q], hops);
        if (!miss_n.n && !miss_e.n) /* copies with wrong ends: named above */
            vf_problem(w,
                       "%s: %zu nodes within %d hops lack some of their edges"
                       " (first _ID %" PRId64 ")",
                       gfile(v, i), df->in.n + df->out.n, hops, first);
    }
    vf_flush(w, &miss_n, gfile(v, i));
    vf_flush(w, &miss_e, gfile(v, i));
    dp_i64vec_release(&nodes);
    return rc;
}
