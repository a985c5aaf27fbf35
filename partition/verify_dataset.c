/* verify --dataset: the converted input opened and checked against the
 * config, and each part's inner edges matched with the dataset's, by input
 * edge id or by endpoints. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"

#include "verify_int.h"

/* The dataset and DGL's orig ids are read in sweeps, a part's worth at a
 * time: their pages leave the resident set after each, so a graph larger
 * than memory verifies as well as a small one. */
void vf_drop_inputs(struct vctx *v)
{
    if (v->d_open)
        dp_dataset_drop(&v->d);
    dp_map_drop(&v->onid_npy.map);
    dp_map_drop(&v->oeid_npy.map);
}

/* A typed dataset's rows are found through orig ids that add up the
 * earlier types' counts in the config's order, so its types must be the
 * config's: same names, order and counts. 1 when they are. */
static int same_types(struct vwork *w, int edge)
{
    struct vctx *v = w->v;
    const struct dp_dataset_meta *m = &v->d.meta;
    const struct dp_dataset_type *dt = edge ? m->etypes : m->ntypes;
    int nt = edge ? m->num_etypes : m->num_ntypes, t, q;
    int ct = edge ? v->cfg.num_etypes : v->cfg.num_ntypes;
    char **names = edge ? v->cfg.etypes : v->cfg.ntypes;
    int64_t(*map)[2] = edge ? v->cfg.etype_map : v->cfg.ntype_map;
    const char *what = edge ? "edge" : "node";

    if (ct != nt) {
        vf_problem(w,
                   "dataset '%s' has %d %s types, the config %d: cannot compare"
                   " typed data",
                   v->o->dataset, nt, what, ct);
        return 0;
    }
    for (t = 0; t < nt; t++) {
        int64_t n = 0;

        for (q = 0; map && q < v->cfg.num_parts; q++)
            n += map[q * nt + t][1] - map[q * nt + t][0];
        if (!map)
            n = edge ? v->cfg.num_edges : v->cfg.num_nodes;
        if (strcmp(names[t], dt[t].name) || n != dt[t].count) {
            vf_problem(
                w,
                "%s type %d is '%s' of %" PRId64 " in the config, '%s' of"
                " %" PRId64 " in dataset '%s': cannot compare typed data",
                what, t, names[t], n, dt[t].name, dt[t].count, v->o->dataset);
            return 0;
        }
    }
    return 1;
}

void vf_open_dataset(struct vwork *w)
{
    struct vctx *v = w->v;
    int64_t nn = v->cfg.num_nodes, ne = v->cfg.num_edges;

    if (dp_dataset_open(&v->d, v->o->dataset) != 0) {
        vf_problem(w, "%s", dp_errmsg());
        return;
    }
    v->d_open = 1;
    vf_drop_inputs(v); /* opening read every index */
    if (v->d.meta.num_nodes != nn || v->d.meta.num_edges != ne) {
        vf_problem(w,
                   "dataset '%s' has %" PRId64 " nodes and %" PRId64
                   " edges, the config %" PRId64 " and %" PRId64,
                   v->o->dataset, v->d.meta.num_nodes, v->d.meta.num_edges, nn,
                   ne);
        return;
    }
    if (!v->onid_ok || (!v->oeid_ok && !v->s->no_orig_eids)) {
        vf_problem(w, "no orig ids (orig_nids.npy or part*/orig_nids.dgl):"
                      " cannot compare with the dataset");
        return;
    }
    v->s->dataset_checked = 1;
    v->ds_edges = 1;
    /* without input edge ids on one side an edge is known by its ends */
    v->s->edges_by_ends = v->s->no_orig_eids ? 1 : !v->d.eids.data ? 2 : 0;
    v->s->edge_data_skipped =
        v->s->no_orig_eids &&
        (v->d.meta.num_ntypes ? v->d.meta.num_edata > 0
                              : v->d.edge_weight.data != NULL);
    if (dp_rename_parse("--ndata_name",
                        v->o->ndata_name ? v->o->ndata_name : "", &v->ren) ||
        dp_rename_parse("--edata_name",
                        v->o->edata_name ? v->o->edata_name : "", &v->eren)) {
        vf_problem(w, "%s", dp_errmsg());
        return;
    }
    v->ds_feats = 1;
    v->ds_typed =
        v->d.meta.num_ntypes > 0 && same_types(w, 0) && same_types(w, 1);
}

static int push_iedge(struct ivec *a, int64_t in, int64_t x, int64_t y,
                      int64_t s)
{
    if (a->n >= IVEC_CAP) {
        a->dropped++;
        return 0;
    }
    if (DP_ALLOC_GROW(a->p, a->n + 1, a->alloc))
        return DP_ENOMEM;
    a->p[a->n].in = in;
    a->p[a->n].a = x;
    a->p[a->n].b = y;
    a->p[a->n].s = s;
    a->n++;
    return 0;
}

static int cmp_in(const void *a, const void *b)
{
    const struct iedge *x = a, *y = b;

    return (x->in > y->in) - (x->in < y->in);
}

static void sort_in(struct iedge *p, size_t n)
{
    size_t i;

    for (i = 1; i < n && p[i - 1].in <= p[i].in; i++)
        ;
    if (i < n)
        qsort(p, n, sizeof(*p), cmp_in);
}

static void edge_differs(struct tally *t, const struct iedge *d,
                         const struct iedge *s)
{
    vf_tally(t,
             "input edge %" PRId64 " (%" PRId64 " -> %" PRId64
             ") is stored as edge %" PRId64 " joining input nodes %" PRId64
             " -> %" PRId64,
             d->in, d->a, d->b, s->s, s->a, s->b);
}

static int cmp_byin(const void *a, const void *b)
{
    const struct byin *x = a, *y = b;

    return (x->in > y->in) - (x->in < y->in);
}

static int part_order(struct vctx *v, int i, struct byin **out, size_t *n)
{
    const struct part *p = &v->p[i];
    int64_t r, x;
    struct byin *o =
        dp_malloc_array((size_t)(p->end - p->start) + 1, sizeof(*o));
    size_t k = 0;

    if (!o)
        return DP_ENOMEM;
    for (r = 0; r < p->end - p->start; r++) {
        x = onid_of(v, p->start + r);
        if (x >= 0 && x < v->cfg.num_nodes) {
            o[k].in = x;
            o[k++].row = r;
        }
    }
    qsort(o, k, sizeof(*o), cmp_byin);
    *out = o;
    *n = k;
    return 0;
}

/* The stored originals into local node x, as input edges keyed by their
 * input id or, compared by endpoints, by their input source. */
static int stored_in(struct vwork *w, int i, const struct lpart *lp, int64_t x,
                     int64_t gin, const struct ids *oe, struct ivec *a)
{
    struct vctx *v = w->v;
    int64_t j, k, e, s, d, in;
    int rc = 0;

    for (j = lp->iptr[x]; j < lp->iptr[x + 1] && !rc; j++) {
        k = ids_get(&lp->ilist, j);
        if (!original(v, i, lp, k, &e, &s, &d))
            continue;
        s = onid_of(v, s);
        in = v->s->edges_by_ends ? s
             : oe                ? ids_get(oe, e - v->p[i].estart)
                                 : dp_npy_get_i64(&v->oeid_npy, (uint64_t)e);
        rc = push_iedge(a, in, s, gin, e);
    }
    return rc;
}

static void ends_add(struct ends *t, const struct iedge *x)
{
    if (t->n < ENDS_NAMED)
        t->first[t->n] = *x;
    t->n++;
}

/* A column's edges on one side only: into ud and us by input id, to be
 * matched across columns; by endpoints they are simply missing or extra
 * (an edge moved to another column has other endpoints). */
static int unmatched(const struct vctx *v, struct edgefind *f,
                     const struct iedge *x, int stored)
{
    if (v->s->edges_by_ends) {
        ends_add(stored ? &f->extra : &f->missing, x);
        return 0;
    }
    return push_iedge(stored ? &f->us : &f->ud, x->in, x->a, x->b, x->s);
}

void vf_edgefind_add(struct edgefind *to, const struct edgefind *from)
{
    const struct ivec *v[2] = { &from->ud, &from->us };
    struct ivec *t[2] = { &to->ud, &to->us };
    const struct ends *e[2] = { &from->missing, &from->extra };
    struct ends *te[2] = { &to->missing, &to->extra };
    size_t k;
    int j;

    if (!to->dedges.n)
        to->dedges = from->dedges;
    else
        to->dedges.n += from->dedges.n;
    for (j = 0; j < 2; j++) {
        /* as if pushed here: the same ones kept, the rest counted */
        for (k = 0; k < v[j]->n; k++)
            if (push_iedge(t[j], v[j]->p[k].in, v[j]->p[k].a, v[j]->p[k].b,
                           v[j]->p[k].s))
                t[j]->dropped++; /* no memory: one fewer named */
        t[j]->dropped += v[j]->dropped;
        for (k = 0; k < (size_t)e[j]->n && k < ENDS_NAMED; k++)
            ends_add(te[j], &e[j]->first[k]);
        if (e[j]->n > ENDS_NAMED)
            te[j]->n += e[j]->n - ENDS_NAMED;
    }
}

void vf_edgefind_release(struct edgefind *f)
{
    free(f->ud.p);
    free(f->us.p);
    memset(f, 0, sizeof(*f));
}

/* The part's inner edges against the dataset, one destination at a time:
 * its stored in-edges through the orig ids, and the dataset's column of
 * its input node, both by input edge id or both by input source (the
 * column's multiset of sources, multi-edges counted). What one column
 * lacks is matched across columns at the end. oe: the part's orig_eids,
 * or NULL for DGL's top-level one. */
static int compare_edges(struct vwork *w, int i, const struct lpart *lp,
                         const struct ids *oe, const struct byin *ord,
                         size_t nord, double from, double span)
{
    struct vctx *v = w->v;
    struct edgefind *f = w->out ? &w->out->ef : &v->ef;
    const struct part *p = &v->p[i];
    const int64_t *ip = dp_dataset_indptr(&v->d);
    int64_t n = lp->g.num_nodes, x, j, gx, gin, dropped = 0;
    struct ivec a = { 0 }, b = { 0 };
    uint8_t *done = dp_calloc(n ? (size_t)n : 1, 1);
    size_t q, ia, ib;
    int rc = 0;

    if (!done)
        return DP_ENOMEM;
    for (q = 0; q < nord && !rc; q++) {
        gin = ord[q].in;
        x = ord[q].row; /* inner node x is row x when the order is right */
        sweep(lp, (int64_t)q << 4);
        if ((q & PROGRESS_STEP) == 0)
            vf_progress(w, from + span * (double)q / (double)nord);
        a.n = b.n = 0;
        if (x < n && at(lp->nid, x) == p->start + x) {
            done[x] = 1;
            rc = stored_in(w, i, lp, x, gin, oe, &a);
        }
        for (j = ip[gin]; j < ip[gin + 1] && !rc; j++) {
            int64_t src = dp_dataset_src(&v->d, j);

            rc = push_iedge(
                &b, v->s->edges_by_ends ? src : dp_dataset_eid(&v->d, j), src,
                gin, -1);
        }
        if ((ip[gin] - dropped) * 16 > SWEEP_DROP) {
            dp_map_drop(&v->d.indices.map);
            dp_map_drop(&v->d.eids.map);
            dropped = ip[gin];
        }
        sort_in(a.p, a.n);
        sort_in(b.p, b.n);
        for (ia = ib = 0; !rc && (ia < a.n || ib < b.n);) {
            if (ia < a.n && ib < b.n && a.p[ia].in == b.p[ib].in) {
                if (a.p[ia].a != b.p[ib].a || a.p[ia].b != b.p[ib].b)
                    edge_differs(&f->dedges, &b.p[ib], &a.p[ia]);
                ia++;
                ib++;
            } else if (ib == b.n || (ia < a.n && a.p[ia].in < b.p[ib].in)) {
                rc = unmatched(v, f, &a.p[ia++], 1);
            } else {
                rc = unmatched(v, f, &b.p[ib++], 0);
            }
        }
    }
    /* originals into any other local node have no column to meet */
    for (x = 0; x < n && !rc; x++) {
        gx = at(lp->nid, x);
        if (done[x] || gx < 0 || gx >= v->cfg.num_nodes)
            continue;
        a.n = 0;
        rc = stored_in(w, i, lp, x, onid_of(v, gx), oe, &a);
        for (ia = 0; ia < a.n && !rc; ia++)
            rc = unmatched(v, f, &a.p[ia], 1);
    }
    free(done);
    free(a.p);
    free(b.p);
    return rc;
}

/* One line for the edges one side holds more often than the other, the
 * first few named by their input endpoints (and stored edge id): "N
 * <noun>s <rest> (by endpoints): a -> b, ...". */
static void flush_ends(struct vwork *w, const struct ends *t, const char *noun,
                       const char *rest)
{
    char names[ENDS_NAMED * 80] = "";
    size_t len = 0;
    int k;

    if (!t->n)
        return;
    for (k = 0; k < ENDS_NAMED && k < t->n && len < sizeof(names); k++) {
        const struct iedge *x = &t->first[k];
        int c =
            snprintf(names + len, sizeof(names) - len,
                     "%s%" PRId64 " -> %" PRId64, k ? ", " : "", x->a, x->b);

        if (c > 0 && x->s >= 0 && (size_t)c < sizeof(names) - len)
            c += snprintf(names + len + (size_t)c,
                          sizeof(names) - len - (size_t)c, " (_ID %" PRId64 ")",
                          x->s);
        len += c > 0 ? (size_t)c : 0;
    }
    vf_problem(w, "edges: %" PRId64 " %s%s %s (by endpoints): %s%s", t->n, noun,
               t->n == 1 ? "" : "s", rest, names,
               t->n > ENDS_NAMED ? ", ..." : "");
}

/* Input edges stored under another destination than the dataset's. */
void vf_finish_edges(struct vwork *w)
{
    struct vctx *v = w->v;
    struct edgefind *f = &v->ef;
    size_t i = 0, j = 0;

    if (v->s->edges_by_ends) {
        flush_ends(w, &f->missing, "input edge", "stored in no part");
        flush_ends(w, &f->extra, "stored edge",
                   "not in the dataset or stored too often");
        return;
    }

    sort_in(f->ud.p, f->ud.n);
    sort_in(f->us.p, f->us.n);
    while (i < f->ud.n && j < f->us.n) {
        if (f->ud.p[i].in == f->us.p[j].in)
            edge_differs(&f->dedges, &f->ud.p[i++], &f->us.p[j++]);
        else if (f->ud.p[i].in < f->us.p[j].in)
            i++; /* stored nowhere: a bad permutation or a lost edge */
        else
            j++;
    }
    if (f->dedges.n && f->ud.dropped)
        f->dedges.n += f->ud.dropped;
    else if (f->ud.dropped && f->us.dropped)
        vf_tally(&f->dedges,
                 "more than %zu input edges are stored under another"
                 " destination node",
                 IVEC_CAP);
    vf_flush(w, &f->dedges, "edges");
}

/* Part i's dataset checks, with its graph loaded: from on the way through
 * the part's work. */
int vf_check_against_dataset(struct vwork *w, int i, const struct lpart *lp,
                             double from)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[i];
    struct ids oe = { NULL, 0 };
    struct byin *ord = NULL;
    size_t nord = 0;
    int rc = 0;

    if (v->s->orig_ids == 2 && !v->s->no_orig_eids) {
        if (vf_ids_alloc(&oe, p->eend - p->estart, v->cfg.num_edges - 1))
            return DP_ENOMEM;
        if (!vf_read_part_ids(w, i, 1, 0, NULL, NULL, &oe, p->estart))
            goto out; /* reported when the orig ids were read */
    }
    rc = part_order(v, i, &ord, &nord);
    if (!rc)
        rc = compare_edges(w, i, lp, oe.p ? &oe : NULL, ord, nord, from,
                           (1 - from) * 0.8);
    if (rc || !v->ds_feats)
        goto out;
    if (p->nf_ok)
        rc = vf_compare_data(w, i, 0, ord, nord, NULL);
    if (!rc && !v->s->no_orig_eids) /* edge data is by input edge id */
        rc = vf_compare_data(w, i, 1, NULL, 0, oe.p ? &oe : NULL);
out:
    free(oe.p);
    free(ord);
    return rc;
}
