/* Each part's local graph, DGL's halo subgraph (GetSubgraphWithHalo,
 * reference/dgl.md 1c), built from the shuffled CSC, and its graph.dgl
 * columns generated from it as the writer reads them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "phases.h"

/* Edges held as three columns (local source, local destination, shuffled
 * id), each int32 where its ids fit: 12 bytes an edge below 2^31. */
struct ecols {
    struct dp_ids src, dst, eid;
    size_t n, cap;
    /* edges [0, e0) have ids ebase + i and no room in eid, which holds
     * those of [e0, n): an untyped part's inner edges, put in place */
    size_t e0;
    int64_t ebase;
};

static inline int64_t ecols_eid(const struct ecols *c, size_t i)
{
    return i < c->e0 ? c->ebase + (int64_t)i : dp_ids_get(&c->eid, i - c->e0);
}

static void ecols_init(struct ecols *c, int wide_nodes, int wide_edges)
{
    memset(c, 0, sizeof(*c));
    c->src.wide = c->dst.wide = wide_nodes;
    c->eid.wide = wide_edges;
}

static void ecols_release(struct ecols *c)
{
    dp_ids_release(&c->src);
    dp_ids_release(&c->dst);
    dp_ids_release(&c->eid);
    c->n = c->cap = 0;
}

/* Room for exactly cap edges in all three columns. */
static int ecols_resize(struct ecols *c, size_t cap)
{
    struct dp_ids *col[3] = { &c->src, &c->dst, &c->eid };
    int k;

    for (k = 0; k < 3; k++) {
        size_t n = k == 2 ? cap - c->e0 : cap;
        void *a = realloc(col[k]->a, n * (col[k]->wide ? 8 : 4) + 1);

        if (!a)
            return dp_error(DP_ENOMEM, "out of memory for %zu edges", cap);
        col[k]->a = a;
    }
    c->cap = cap;
    return 0;
}

static int ecols_push(struct ecols *c, int64_t s, int64_t d, int64_t j)
{
    int rc;

    if (c->n == c->cap && (rc = ecols_resize(c, dp_alloc_nr(c->cap, c->n + 1))))
        return rc;
    dp_ids_set(&c->src, c->n, s);
    dp_ids_set(&c->dst, c->n, d);
    dp_ids_set(&c->eid, c->n - c->e0, j);
    c->n++;
    return 0;
}

/* One part's local graph (DGL's GetSubgraphWithHalo, reference/dgl.md 1c):
 * nodes inner first, then halo nodes in discovery order; edges inner by
 * id, then halo by id. An untyped part with K > 1 holds no edge: each
 * column the writer reads is generated again from the reshuffled CSC, the
 * lid map, the halo nodes and the halo edge ids (ascending, as varint
 * gaps: about a byte each). Typed parts, whose ids do not follow the CSC,
 * hold their edges (24 bytes each); the standalone layout holds src and
 * dst by edge id (4 bytes each below 2^31 nodes). */
struct local {
    const struct part_job *jb;
    const struct shuffle *c; /* jb->sh */
    int p;
    int64_t s, e; /* inner nodes: shuffled [s, e) */
    int wide;     /* ids below are int64, else int32 (n > INT32_MAX) */
    void *lid;    /* [n] shuffled id -> local id, else -1 (one per
                     thread, borrowed) */
    void *hn;     /* halo nodes, shuffled ids, in discovery order */
    size_t nh, caph;
    int64_t nexp;  /* hn[0, nexp): halo nodes whose in-edges from outside
                      the part are halo edges (num_hops >= 2) */
    uint8_t *gaps; /* halo edge ids, varint gaps */
    size_t ngaps, capg;
    int64_t ninner_edges, num_edges;
    int64_t lv0;       /* local_begin_leaving: the first leaving edge */
    int held;          /* the edges are in src, dst and eid (typed, or from
                          local_from_edges), not generated from the CSC */
    struct ecols ed;   /* held: all local edges */
    void *ssrc, *sdst; /* standalone: by edge id */
    /* where the column being read is: its next row, CSC entry,
     * destination and gap */
    int64_t at, j, v;
    size_t gpos;
    /* CSC of an untyped part: the position among the halo edges of each
     * halo node's first one (its edges are consecutive in id order), and
     * a cursor (row, CSC entry, edges of the row so far, indptr sum) */
    int64_t *hstart;
    int64_t crow, cj, ck, csum;
};

/* The scans of a part's sources ask for the id map's entry of the source
 * this many edges ahead: the map is the whole graph's, a miss an entry. */
#define LID_AHEAD 16

/* Where lid[] holds the source of edge j + LID_AHEAD: NULL past end or
 * for an inner source. The caller prefetches it: GCC drops a prefetch
 * that is all a called function does. */
static inline const void *lid_ahead(const struct local *l, int64_t j,
                                    int64_t end)
{
    int64_t u;

    if (j + LID_AHEAD >= end)
        return NULL;
    u = dp_ids_get(&l->c->esrc, (size_t)(j + LID_AHEAD));
    if (u >= l->s && u < l->e)
        return NULL;
    return (const char *)l->lid + (size_t)u * (l->wide ? 8 : 4);
}

#define LID(l, g)                                                              \
    ((l)->wide ? ((const int64_t *)(l)->lid)[g]                                \
               : (int64_t)((const int32_t *)(l)->lid)[g])
#define HNODE(l, i)                                                            \
    ((l)->wide ? ((const int64_t *)(l)->hn)[i]                                 \
               : (int64_t)((const int32_t *)(l)->hn)[i])

void local_free(struct local *l)
{
    size_t i;

    if (!l)
        return;

    for (i = 0; l->lid && i < l->nh; i++) {
        int64_t g = HNODE(l, i);

        if (l->wide)
            ((int64_t *)l->lid)[g] = -1;
        else
            ((int32_t *)l->lid)[g] = -1;
    }
    free(l->hn);
    free(l->gaps);
    free(l->hstart);
    ecols_release(&l->ed);
    free(l->ssrc);
    free(l->sdst);
    free(l);
}

static int local_id(struct local *l, int64_t g, int64_t *out)
{
    int64_t x;
    int rc;

    if (g >= l->s && g < l->e) {
        *out = g - l->s;
        return 0;
    }
    x = LID(l, g);
    if (x < 0) {
        x = (l->e - l->s) + (int64_t)l->nh;
        if ((rc = dp_grow_array(&l->hn, l->wide ? 8 : 4, l->nh + 1, &l->caph)))
            return rc;
        if (l->wide) {
            ((int64_t *)l->lid)[g] = x;
            ((int64_t *)l->hn)[l->nh++] = g;
        } else {
            ((int32_t *)l->lid)[g] = (int32_t)x;
            ((int32_t *)l->hn)[l->nh++] = (int32_t)g;
        }
    }
    *out = x;
    return 0;
}

static int push_edge(struct local *l, int64_t s, int64_t d, int64_t j)
{
    return ecols_push(&l->ed, s, d, j);
}

static int push_gap(struct local *l, uint64_t g)
{
    int rc = DP_ALLOC_GROW(l->gaps, l->ngaps + 10, l->capg);

    if (rc)
        return rc;
    while (g >= 0x80) {
        l->gaps[l->ngaps++] = (uint8_t)(g | 0x80);
        g >>= 7;
    }
    l->gaps[l->ngaps++] = (uint8_t)g;
    return 0;
}

static uint64_t next_gap(struct local *l)
{
    uint64_t g = 0;
    int sh = 0;

    while (l->gaps[l->gpos] & 0x80) {
        g |= (uint64_t)(l->gaps[l->gpos++] & 0x7f) << sh;
        sh += 7;
    }
    return g | (uint64_t)l->gaps[l->gpos++] << sh;
}

static void local_init(struct local *l, const struct part_job *jb, int p,
                       void *lid)
{
    const struct shuffle *c = jb->sh;

    memset(l, 0, sizeof(*l));
    l->jb = jb;
    l->c = c;
    l->p = p;
    l->s = c->nstart[p];
    l->e = c->nstart[p + 1];
    l->wide = c->n > INT32_MAX;
    l->lid = lid;
    ecols_init(&l->ed, l->wide, c->e > INT32_MAX);
}

/* An untyped part's nodes and edge counts: the halo nodes in DGL's order
 * ((a) sources of inner in-edges, (b) further hops, (c) destinations of
 * inner out-edges) and the ids of the halo edges. --halo_edges in skips
 * (c): then (b) takes every in-edge of an expanded halo node, those from
 * inside too (which (c) brings in DGL's layout), so each node within the
 * hops has all its in-edges. */
static int discover(struct local *l)
{
    const struct shuffle *c = l->c;
    int64_t s = l->s, e = l->e, v, j, x, prev = -1;
    int64_t e0 = c->estart[l->p], e1 = c->estart[l->p + 1];
    int hops = l->jb->o->num_hops, h, rc;
    size_t lvl0, lvl1, i;

    /* (a) in-edges of inner nodes */
    for (j = e0; j < e1; j++) {
        int64_t u = dp_ids_get(&c->esrc, (size_t)(j));
        const void *ahead = lid_ahead(l, j, e1);

        if (ahead)
            __builtin_prefetch(ahead, 1);
        if (u >= s && u < e)
            l->ninner_edges++;
        else if (hops > 0) {
            if ((rc = local_id(l, u, &x)))
                return rc;
            l->ninner_edges++;
        }
    }
    l->num_edges = l->ninner_edges;
    if (hops == 0)
        return 0;
    /* (b) further hops: sources outside the part of the previous level */
    lvl0 = 0;
    lvl1 = l->nh;
    for (h = 1; h < hops; h++) {
        for (i = lvl0; i < lvl1; i++) {
            int64_t g = HNODE(l, i);

            for (j = c->nptr[g]; j < c->nptr[g + 1]; j++) {
                int64_t u = dp_ids_get(&c->esrc, (size_t)(j));

                if ((u < s || u >= e) && (rc = local_id(l, u, &x)))
                    return rc;
            }
        }
        lvl0 = lvl1;
        lvl1 = l->nh;
    }
    l->nexp = (int64_t)lvl0;
    /* in: no halo edges at one hop, nothing to scan */
    if (l->jb->o->halo_in && !l->nexp)
        return 0;
    /* halo edges in id order: the out-edges of inner nodes (c), whose
     * destinations are numbered as met, and (b)'s in-edges of the
     * expanded halo nodes from outside (in: all of them) */
    for (v = 0; v < c->n; v++) {
        if (v == s && e > s) {
            v = e - 1;
            continue;
        }
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = dp_ids_get(&c->esrc, (size_t)(j));

            if (u >= s && u < e && !l->jb->o->halo_in) {
                if ((rc = local_id(l, v, &x)))
                    return rc;
            } else if (!l->nexp || (x = LID(l, v)) < 0 ||
                       x - (e - s) >= l->nexp) {
                continue;
            }
            if ((rc = push_gap(l, (uint64_t)(j - prev - 1))))
                return rc;
            prev = j;
            l->num_edges++;
        }
    }
    return 0;
}

struct hedge {
    int64_t eid, src, dst;
};

static int cmp_hedge(const void *a, const void *b)
{
    const struct hedge *x = a, *y = b;

    return (x->eid > y->eid) - (x->eid < y->eid);
}

/* Typed ids do not follow the CSC: put the inner edges, whose ids are
 * exactly [first, first + count), in id order. */
static int order_inner(struct local *l, int64_t first)
{
    struct ecols o;
    size_t i;
    int rc;

    ecols_init(&o, l->ed.src.wide, l->ed.eid.wide);
    if ((rc = ecols_resize(&o, l->ed.n))) {
        ecols_release(&o);
        return rc;
    }
    for (i = 0; i < l->ed.n; i++) {
        int64_t j = dp_ids_get(&l->ed.eid, i);
        size_t at = (size_t)(j - first);

        dp_ids_set(&o.src, at, dp_ids_get(&l->ed.src, i));
        dp_ids_set(&o.dst, at, dp_ids_get(&l->ed.dst, i));
        dp_ids_set(&o.eid, at, j);
    }
    o.n = l->ed.n;
    ecols_release(&l->ed);
    l->ed = o;
    return 0;
}

/* Edges put in id order (typed ids). */
static int sort_by_eid(struct ecols *c)
{
    struct hedge *h = dp_malloc_array(c->n + 1, sizeof(*h));
    size_t i;

    if (!h)
        return DP_ENOMEM;
    for (i = 0; i < c->n; i++)
        h[i] = (struct hedge){ dp_ids_get(&c->eid, i), dp_ids_get(&c->src, i),
                               dp_ids_get(&c->dst, i) };
    qsort(h, c->n, sizeof(*h), cmp_hedge);
    for (i = 0; i < c->n; i++) {
        dp_ids_set(&c->eid, i, h[i].eid);
        dp_ids_set(&c->src, i, h[i].src);
        dp_ids_set(&c->dst, i, h[i].dst);
    }
    free(h);
    return 0;
}

/* A typed part's local edges, held (reference/dgl.md 1c on typed ids). */
static int build_typed(struct local *l)
{
    const struct shuffle *c = l->c;
    int p = l->p;
    int64_t s = l->s, e = l->e, v, j, sl, dl, i;
    int hops = l->jb->o->num_hops, rc = 0, h;
    struct hedge *b = NULL;
    size_t nb = 0, capb = 0, lvl0, lvl1, ia, ib, nc;
    struct ecols ce;

    ecols_init(&ce, l->ed.src.wide, l->ed.eid.wide);
    /* (a) in-edges of inner nodes */
    for (v = s; v < e; v++) {
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = dp_ids_get(&c->esrc, (size_t)(j));

            if (hops == 0 && (u < s || u >= e))
                continue;
            if ((rc = local_id(l, u, &sl)) ||
                (rc = push_edge(l, sl, v - s, shuffle_eid(c, j))))
                goto out;
        }
    }
    l->ninner_edges = (int64_t)l->ed.n;
    /* --num_hops 0 keeps only some in-edges: then sort */
    if ((rc = l->ninner_edges == c->estart[p + 1] - c->estart[p]
                  ? order_inner(l, c->estart[p])
                  : sort_by_eid(&l->ed)))
        goto out;
    if (hops == 0)
        goto out;
    /* (b) further hops: in-edges of the previous level from outside */
    lvl0 = 0;
    lvl1 = l->nh;
    for (h = 1; h < hops; h++) {
        for (i = (int64_t)lvl0; i < (int64_t)lvl1; i++) {
            int64_t g = HNODE(l, i);

            for (j = c->nptr[g]; j < c->nptr[g + 1]; j++) {
                int64_t u = dp_ids_get(&c->esrc, (size_t)(j));

                /* from inside: (c) brings it, unless --halo_edges in */
                if (u >= s && u < e && !l->jb->o->halo_in)
                    continue;
                if ((rc = local_id(l, u, &sl)))
                    goto out;
                if ((rc = DP_ALLOC_GROW(b, nb + 1, capb)))
                    goto out;
                b[nb++] = (struct hedge){ shuffle_eid(c, j), sl, LID(l, g) };
            }
        }
        lvl0 = lvl1;
        lvl1 = l->nh;
    }
    if (nb)
        qsort(b, nb, sizeof(*b), cmp_hedge);
    /* (c) out-edges of inner nodes leaving the part */
    for (v = 0; v < c->n && !l->jb->o->halo_in; v++) {
        if (v == s && e > s) {
            v = e - 1;
            continue;
        }
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = dp_ids_get(&c->esrc, (size_t)(j));

            if (u < s || u >= e)
                continue;
            if ((rc = local_id(l, v, &dl)) ||
                (rc = ecols_push(&ce, u - s, dl, shuffle_eid(c, j))))
                goto out;
        }
    }
    if ((rc = sort_by_eid(&ce)))
        goto out;
    /* halo edges: merge (b) and (c) by edge id */
    nc = ce.n;
    ia = ib = 0;
    while (ia < nb || ib < nc) {
        int64_t jb = ib < nc ? dp_ids_get(&ce.eid, ib) : 0;

        if (ib == nc || (ia < nb && b[ia].eid < jb)) {
            rc = push_edge(l, b[ia].src, b[ia].dst, b[ia].eid);
            ia++;
        } else {
            rc = push_edge(l, dp_ids_get(&ce.src, ib), dp_ids_get(&ce.dst, ib),
                           jb);
            ib++;
        }
        if (rc)
            goto out;
    }
out:
    free(b);
    ecols_release(&ce);
    l->num_edges = (int64_t)l->ed.n;
    return rc;
}

/* The standalone layout: the whole graph, input ids, edges by input id. */
static int build_standalone(struct local *l)
{
    const struct shuffle *c = l->c;
    size_t w = l->wide ? 8 : 4;
    int64_t v, k;

    l->ssrc = dp_malloc_array((size_t)c->e + 1, w);
    l->sdst = dp_malloc_array((size_t)c->e + 1, w);
    if (!l->ssrc || !l->sdst)
        return DP_ENOMEM;
    for (v = 0; v < c->n; v++)
        for (k = c->ip[v]; k < c->ip[v + 1]; k++) {
            int64_t x = dp_dataset_eid(l->jb->d, k);

            if (l->wide) {
                ((int64_t *)l->ssrc)[x] = dp_dataset_src(l->jb->d, k);
                ((int64_t *)l->sdst)[x] = v;
            } else {
                ((int32_t *)l->ssrc)[x] = (int32_t)dp_dataset_src(l->jb->d, k);
                ((int32_t *)l->sdst)[x] = (int32_t)v;
            }
        }
    l->ninner_edges = l->num_edges = c->e;
    return 0;
}

/* Rows [at, at + n) of an untyped part's src, dst or eid column, generated
 * from the CSC: inner edges are the part's own range of ids (those from
 * inside alone at --num_hops 0), halo edges follow the gaps. */
static void gen_edges(struct local *l, int col, int64_t at, int64_t n,
                      int64_t *out)
{
    const struct shuffle *c = l->c;
    int64_t s = l->s, e = l->e, r;

    if (at == 0) {
        l->j = c->estart[l->p];
        l->v = s;
    }
    for (r = at; r < at + n; r++) {
        int64_t u, j;

        if (r == l->ninner_edges) {
            l->j = -1;
            l->v = 0;
            l->gpos = 0;
        }
        if (r < l->ninner_edges) {
            for (;;) {
                u = dp_ids_get(&c->esrc, (size_t)(l->j));
                if (l->jb->o->num_hops > 0 || (u >= s && u < e))
                    break;
                l->j++;
            }
            j = l->j++;
        } else {
            /* l->j is the previous halo edge here */
            l->j += 1 + (int64_t)next_gap(l);
            j = l->j;
            u = dp_ids_get(&c->esrc, (size_t)(j));
        }
        while (c->nptr[l->v + 1] <= j)
            l->v++;
        if (col == DP_COL_SRC)
            out[r - at] = u >= s && u < e ? u - s : LID(l, u);
        else if (col == DP_COL_DST)
            out[r - at] = l->v >= s && l->v < e ? l->v - s : LID(l, l->v);
        else
            out[r - at] = j;
    }
}

/* hstart from the halo edge ids. */
static int halo_starts(struct local *l)
{
    const struct shuffle *c = l->c;
    int64_t j = -1, v = 0, last = -1, k, nh = l->num_edges - l->ninner_edges;

    l->hstart = dp_malloc_array(l->nh + 1, sizeof(*l->hstart));
    if (!l->hstart)
        return DP_ENOMEM;
    l->gpos = 0;
    for (k = 0; k < nh; k++) {
        j += 1 + (int64_t)next_gap(l);
        while (c->nptr[v + 1] <= j)
            v++;
        if (v != last)
            l->hstart[LID(l, v) - (l->e - l->s)] = k;
        last = v;
    }
    return 0;
}

/* The shuffled node of local row r. */
static int64_t row_node(const struct local *l, int64_t r)
{
    return r < l->e - l->s ? l->s + r : HNODE(l, r - (l->e - l->s));
}

/* Whether the in-edge from u of local row r's node is a local edge: every
 * in-edge of an inner node (at --num_hops 0 those from inside) or of an
 * expanded halo node, those from inside for other halo nodes (none with
 * --halo_edges in). */
static int csc_keeps(const struct local *l, int64_t r, int64_t u)
{
    int64_t ninner = l->e - l->s;
    int inside = u >= l->s && u < l->e;

    if (r < ninner)
        return inside || l->jb->o->num_hops > 0;
    return r - ninner < l->nexp || (inside && !l->jb->o->halo_in);
}

/* Local row r keeps none of its in-edges, whatever their sources: a halo
 * row not expanded under --halo_edges in. Its sources are not read: they
 * lie anywhere in the reshuffled CSC, which may be a file whose pages
 * come and go (rmat 27: parts took minutes, not seconds, faulting them). */
static int row_keeps_none(const struct local *l, int64_t r)
{
    int64_t ninner = l->e - l->s;

    return r >= ninner && r - ninner >= l->nexp && l->jb->o->halo_in;
}

/* Rows [at, at + n) of an untyped part's CSC: rows are local
 * destinations, inner rows first, whose edges are the inner edges in
 * order; a halo row's edges are its halo edges, in id order. */
static void gen_csc(struct local *l, int col, int64_t at, int64_t n,
                    int64_t *out)
{
    const struct shuffle *c = l->c;
    int64_t ninner = l->e - l->s, i, j, g, u;

    if (col == DP_COL_CSC_INDPTR) {
        for (i = at; i < at + n; i++) {
            int64_t r = i - 1;

            /* rows that keep every in-edge: no source read */
            if (i == 0)
                l->csum = 0;
            else if (r < ninner ? l->jb->o->num_hops > 0 : r - ninner < l->nexp)
                l->csum +=
                    c->nptr[row_node(l, r) + 1] - c->nptr[row_node(l, r)];
            else if (!row_keeps_none(l, i - 1))
                for (g = row_node(l, i - 1), j = c->nptr[g]; j < c->nptr[g + 1];
                     j++)
                    l->csum +=
                        csc_keeps(l, i - 1, dp_ids_get(&c->esrc, (size_t)(j)));
            out[i - at] = l->csum;
        }
        return;
    }
    if (at == 0) {
        l->crow = l->ck = 0;
        l->cj = c->nptr[row_node(l, 0)];
    }
    for (i = 0; i < n; i++) {
        for (;;) {
            g = row_node(l, l->crow);
            if (l->cj < c->nptr[g + 1] && !row_keeps_none(l, l->crow)) {
                /* inner rows' edges are one run, the part's */
                const void *ahead =
                    col != DP_COL_CSC_INDICES
                        ? NULL
                        : lid_ahead(l, l->cj,
                                    l->crow < ninner ? c->nptr[l->e]
                                                     : c->nptr[g + 1]);

                if (ahead)
                    __builtin_prefetch(ahead);
                u = dp_ids_get(&c->esrc, (size_t)(l->cj));
                if (csc_keeps(l, l->crow, u))
                    break;
                l->cj++;
                continue;
            }
            l->crow++;
            l->ck = 0;
            l->cj = c->nptr[row_node(l, l->crow)];
        }
        if (col == DP_COL_CSC_INDICES)
            out[i] = u >= l->s && u < l->e ? u - l->s : LID(l, u);
        else if (l->crow < ninner)
            out[i] = at + i; /* inner edges are in row order */
        else
            out[i] = l->ninner_edges + l->hstart[l->crow - ninner] + l->ck;
        l->ck++;
        l->cj++;
    }
}

static int local_fill(void *arg, int col, int64_t at, int64_t n, void *out)
{
    struct local *l = arg;
    const struct shuffle *c = l->c;
    int64_t ninner = l->e - l->s, r, *o64 = out;
    int32_t *o32 = out;
    uint8_t *o8 = out;

    if (col <= DP_COL_EID && l->ssrc) {
        const void *a = col == DP_COL_SRC ? l->ssrc : l->sdst;

        for (r = 0; r < n; r++)
            o64[r] = col == DP_COL_EID ? at + r
                     : l->wide         ? ((const int64_t *)a)[at + r]
                                       : ((const int32_t *)a)[at + r];
        return 0;
    }
    if (col >= DP_COL_CSC_INDPTR) {
        gen_csc(l, col, at, n, out);
        return 0;
    }
    if (col <= DP_COL_EID && !l->held) {
        if (at != 0 && at != l->at)
            return dp_error(DP_EINVAL, "part %d: column read out of order",
                            l->p);
        gen_edges(l, col, at, n, out);
        l->at = at + n;
        return 0;
    }
    for (r = 0; r < n; r++) {
        int64_t i = at + r, nid = 0;

        if (col >= DP_COL_NID)
            nid = i < ninner ? l->s + i : HNODE(l, i - ninner);

        switch (col) {
        case DP_COL_SRC:
            o64[r] = dp_ids_get(&l->ed.src, (size_t)i);
            break;
        case DP_COL_DST:
            o64[r] = dp_ids_get(&l->ed.dst, (size_t)i);
            break;
        case DP_COL_EID:
            o64[r] = ecols_eid(&l->ed, (size_t)i);
            break;
        case DP_COL_INNER_EDGE:
            o8[r] = i < l->ninner_edges;
            break;
        case DP_COL_ETYPE:
            /* _TYPE as DGL 1.1.3 writes it: int32 for nodes and edges */
            o32[r] = dp_range_of(c->etstart, c->K * c->ET,
                                 l->ssrc ? i : ecols_eid(&l->ed, (size_t)i)) %
                     c->ET;
            break;
        case DP_COL_NID:
            o64[r] = nid;
            break;
        case DP_COL_PART_ID:
            o64[r] = i < ninner ? l->p : dp_range_of(c->nstart, c->K, nid);
            break;
        case DP_COL_INNER_NODE:
            o8[r] = i < ninner;
            break;
        default:
            o32[r] = dp_range_of(c->tstart, c->K * c->T, nid) % c->T;
        }
    }
    return 0;
}

int local_build(const struct part_job *jb, int p, void *lid, struct local **lp)
{
    struct local *l = dp_malloc(sizeof(*l));
    int rc;

    if (!l)
        return DP_ENOMEM;
    local_init(l, jb, p, lid);
    l->held = jb->sh->T > 0;
    rc = jb->sh->K == 1 ? build_standalone(l)
         : jb->sh->T    ? build_typed(l)
                        : discover(l);
    if (rc) {
        local_free(l);
        return rc;
    }
    *lp = l;
    return 0;
}

int local_write_graph(struct local *l, const char *path, struct part_stats *ps)
{
    const struct shuffle *c = l->c;
    const struct dp_partition_opts *o = l->jb->o;
    struct dp_graph_src g;
    int64_t ninner = l->e - l->s;
    int rc;

    memset(&g, 0, sizeof(g));
    g.num_nodes = ninner + (int64_t)l->nh;
    g.num_edges = l->num_edges;
    g.formats = o->graph_formats;
    g.has_part_id = c->K > 1;
    g.has_ntype = g.has_etype = c->T > 0;
    g.fill = local_fill;
    g.arg = l;
    /* an untyped part's CSC is its CSC order: stream it, sort nothing */
    if (c->K > 1 && !l->held && (o->graph_formats & DP_FMT_CSC)) {
        g.has_csc = 1;
        /* no halo edges: local ids are in CSC order, data is the identity,
         * which DGL stores as a null array (dglfile.h); only for in, so
         * that all stays partition_graph's bytes */
        g.csc_no_data = o->halo_in && l->num_edges == l->ninner_edges;
        if ((rc = halo_starts(l)))
            return rc;
    }
    if ((rc = dp_graph_write_src(path, &g)))
        return rc;
    ps->nodes = ninner;
    ps->edges = l->ninner_edges;
    ps->halo_nodes = (int64_t)l->nh;
    ps->halo_edges = l->num_edges - l->ninner_edges;
    return 0;
}

/* Records sorted by (destination, place) or by id, in either width. */
#define PE_CMP(name, type, f1, f2)                                             \
    static int name(const void *a, const void *b)                              \
    {                                                                          \
        const type *x = a, *y = b;                                             \
                                                                               \
        if (x->f1 != y->f1)                                                    \
            return (x->f1 > y->f1) - (x->f1 < y->f1);                          \
        return (x->f2 > y->f2) - (x->f2 < y->f2);                              \
    }
PE_CMP(cmp_place64, struct part_edge, dst, k)
PE_CMP(cmp_place32, struct part_edge32, dst, k)
PE_CMP(cmp_eid64, struct part_edge, eid, eid)
PE_CMP(cmp_eid32, struct part_edge32, eid, eid)

/* qsort unless already in order, as an untyped part's inner edges come
 * (its ids follow the destinations and their in-edges): glibc's qsort
 * takes a buffer beside records this large. */
static void sort_edges(struct part_edges *e, int by_eid)
{
    size_t w =
        e->narrow ? sizeof(struct part_edge32) : sizeof(struct part_edge);
    int (*cmp)(const void *, const void *) =
        by_eid ? (e->narrow ? cmp_eid32 : cmp_eid64)
               : (e->narrow ? cmp_place32 : cmp_place64);
    const char *v = e->v;
    int64_t i;

    for (i = 1; i < e->n && cmp(v + (i - 1) * w, v + i * w) <= 0; i++)
        ;
    if (i < e->n)
        qsort(e->v, (size_t)e->n, w, cmp);
}

/* Room for exactly n more: a part's edges are counted before they come,
 * and growing by half would hold up to half again of them. */
static int reserve(struct ecols *c, size_t n)
{
    return c->n + n <= c->cap ? 0 : ecols_resize(c, c->n + n);
}

/* Does edge x go into the part (inner: x is an in-edge of its node). */
static int kept(const struct local *l, const struct part_edge *x, int inner)
{
    return !inner || l->jb->o->num_hops > 0 ||
           (x->src >= l->s && x->src < l->e);
}

/* Push the edges e whose halo ends are numbered as met in (dst, k) order,
 * in id order: e is numbered first, then sorted by id and pushed, so no
 * second copy of the edges is made to sort them. */
static int push_held(struct local *l, struct part_edges *e, int inner)
{
    int64_t i, x, y;
    int rc;

    sort_edges(e, 0);
    for (i = 0; i < e->n; i++) {
        struct part_edge r = part_edge_at(e, i);

        if (kept(l, &r, inner) && (rc = local_id(l, inner ? r.src : r.dst, &x)))
            return rc;
    }
    sort_edges(e, 1);
    if ((rc = reserve(&l->ed, (size_t)e->n)))
        return rc;
    for (i = 0; i < e->n; i++) {
        struct part_edge r = part_edge_at(e, i);

        if (!kept(l, &r, inner))
            continue;
        if (inner) {
            if ((rc = local_id(l, r.src, &x)))
                return rc;
            y = r.dst - l->s;
        } else {
            if ((rc = local_id(l, r.dst, &y)))
                return rc;
            x = r.src - l->s;
        }
        if ((rc = push_edge(l, x, y, r.eid)))
            return rc;
    }
    return 0;
}

/* A new local graph that holds its edges. */
static struct local *local_new_held(const struct part_job *jb, int p, void *lid)
{
    struct local *l = dp_malloc(sizeof(*l));

    if (l) {
        local_init(l, jb, p, lid);
        l->held = 1;
    }
    return l;
}

int local_from_edges(const struct part_job *jb, int p, void *lid,
                     struct part_edges *in, struct local **lp)
{
    struct local *l = local_new_held(jb, p, lid);
    int rc;

    if (!l)
        return DP_ENOMEM;
    if ((rc = push_held(l, in, 1))) {
        local_free(l);
        return rc;
    }
    l->ninner_edges = l->num_edges = (int64_t)l->ed.n;
    *lp = l;
    return 0;
}

int local_begin_inner(const struct part_job *jb, int p, void *lid, int64_t n,
                      struct local **lp)
{
    struct local *l = local_new_held(jb, p, lid);
    int rc;

    if (!l)
        return DP_ENOMEM;
    /* their ids are their places: none held */
    l->ed.e0 = (size_t)n;
    l->ed.ebase = l->c->estart[p];
    if ((rc = ecols_resize(&l->ed, (size_t)n))) {
        local_free(l);
        return rc;
    }
    /* all ones: -1 in either width, an edge not come yet */
    memset(l->ed.src.a, 0xff, (size_t)n * (l->ed.src.wide ? 8 : 4));
    l->ed.n = (size_t)n;
    *lp = l;
    return 0;
}

int local_set_inner(struct local *l, int64_t i, int64_t s, int64_t d)
{
    if (dp_ids_get(&l->ed.src, (size_t)i) >= 0)
        return DP_EPROTO;
    dp_ids_set(&l->ed.src, (size_t)i, s);
    dp_ids_set(&l->ed.dst, (size_t)i, d - l->s);
    return 0;
}

int local_end_inner(struct local *l)
{
    size_t i;
    int64_t x;
    int rc;

    /* halo sources numbered as met in id order, DGL's (dst, place) order
     * for untyped ids */
    for (i = 0; i < l->ed.n; i++) {
        int64_t s = dp_ids_get(&l->ed.src, i);

        if (s < 0)
            return dp_error(DP_EPROTO,
                            "part %d: inner edge %" PRId64 " never came", l->p,
                            l->c->estart[l->p] + (int64_t)i);
        if ((rc = local_id(l, s, &x)))
            return rc;
        dp_ids_set(&l->ed.src, i, x);
    }
    l->ninner_edges = l->num_edges = (int64_t)l->ed.n;
    return 0;
}

int local_begin_leaving(struct local *l, int64_t n)
{
    size_t at = l->ed.n;
    int rc;

    l->lv0 = (int64_t)at;
    if ((rc = reserve(&l->ed, (size_t)n)))
        return rc;
    memset((char *)l->ed.src.a + at * (l->ed.src.wide ? 8 : 4), 0xff,
           (size_t)n * (l->ed.src.wide ? 8 : 4));
    l->ed.n = at + (size_t)n;
    return 0;
}

int local_set_leaving(struct local *l, int64_t i, int64_t s, int64_t d,
                      int64_t eid)
{
    size_t at = (size_t)(l->lv0 + i);

    if (dp_ids_get(&l->ed.src, at) >= 0)
        return DP_EPROTO;
    dp_ids_set(&l->ed.src, at, s - l->s);
    dp_ids_set(&l->ed.dst, at, d);
    dp_ids_set(&l->ed.eid, at - l->ed.e0, eid);
    return 0;
}

int local_end_leaving(struct local *l)
{
    size_t i;
    int64_t y;
    int rc;

    /* destinations numbered as met in id order, DGL's (dst, place) order
     * for untyped ids */
    for (i = (size_t)l->lv0; i < l->ed.n; i++) {
        if (dp_ids_get(&l->ed.src, i) < 0)
            return dp_error(DP_EPROTO, "part %d: a leaving edge never came",
                            l->p);
        if (i > (size_t)l->lv0 &&
            ecols_eid(&l->ed, i) <= ecols_eid(&l->ed, i - 1))
            return dp_error(DP_EPROTO, "part %d: leaving edges out of order",
                            l->p);
        if ((rc = local_id(l, dp_ids_get(&l->ed.dst, i), &y)))
            return rc;
        dp_ids_set(&l->ed.dst, i, y);
    }
    l->num_edges = (int64_t)l->ed.n;
    return 0;
}

int local_add_leaving(struct local *l, struct part_edges *out)
{
    int rc;

    if (l->jb->o->num_hops == 0 || l->jb->o->halo_in)
        return 0;
    if ((rc = push_held(l, out, 0)))
        return rc;
    l->num_edges = (int64_t)l->ed.n;
    return 0;
}
