/* verify: a part's nodes and edges against the config's maps (ids, local
 * order, inner flags, types), and its share of what joins the parts. */
#include <inttypes.h>
#include <string.h>

#include "dglpart/error.h"

#include "verify_int.h"

void vf_check_nodes(struct vwork *w, int i, struct lpart *lp)
{
    struct vctx *v = w->v;
    struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, ninner = p->end - p->start, k;
    int64_t nn = v->cfg.num_nodes;
    struct tally range = { 0 }, flag = { 0 }, id = { 0 }, halo = { 0 },
                 dup = { 0 }, pid = { 0 }, ty = { 0 };

    if (n < ninner) {
        vf_problem(w,
                   "%s: %" PRId64 " nodes, fewer than the %" PRId64
                   " inner nodes node_map gives part %d",
                   gfile(v, i), n, ninner, i);
        p->graph_ok = 0;
        return;
    }
    for (k = 0; k < n; k++) {
        int64_t gid = at(lp->nid, k);
        int inner = at(lp->inner_node, k) != 0;

        if (k < ninner && !inner)
            vf_tally(&flag,
                     "local node %" PRId64 " is not inner, expected the"
                     " first %" PRId64 " nodes to be the inner ones",
                     k, ninner);
        if (k >= ninner && inner)
            vf_tally(&flag,
                     "local node %" PRId64 " is inner, but node_map gives"
                     " part %d only %" PRId64 " nodes",
                     k, i, ninner);
        if (gid < 0 || gid >= nn) {
            vf_tally(&range,
                     "local node %" PRId64 " has _ID %" PRId64
                     ", outside [0, %" PRId64 ")",
                     k, gid, nn);
            continue;
        }
        if (k < ninner && gid != p->start + k)
            vf_tally(&id,
                     "inner node %" PRId64 " has _ID %" PRId64 ", expected"
                     " %" PRId64 " (node_map start + local id)",
                     k, gid, p->start + k);
        if (k >= ninner && gid >= p->start && gid < p->end)
            vf_tally(&halo,
                     "halo node %" PRId64 " has _ID %" PRId64 ", inside"
                     " the part's own range [%" PRId64 ", %" PRId64 ")",
                     k, gid, p->start, p->end);
        if (bit_test_set(w->nbits, gid))
            vf_tally(&dup,
                     "_ID %" PRId64
                     " appears twice (again at local node %" PRId64 ")",
                     gid, k);
        if (lp->part_id && at(lp->part_id, k) != owner(&v->cfg, gid))
            vf_tally(&pid,
                     "local node %" PRId64 " (_ID %" PRId64 ") has part_id"
                     " %" PRId64 ", node_map says %d",
                     k, gid, at(lp->part_id, k), owner(&v->cfg, gid));
        if (lp->ntype && at(lp->ntype, k) != dp_config_ntype_of(&v->cfg, gid))
            vf_tally(&ty,
                     "local node %" PRId64 " (_ID %" PRId64 ") has _TYPE"
                     " %" PRId64 ", node_map puts it in type %d ('%s')",
                     k, gid, at(lp->ntype, k), dp_config_ntype_of(&v->cfg, gid),
                     v->cfg.ntypes[dp_config_ntype_of(&v->cfg, gid)]);
    }
    for (k = 0; k < n; k++) {
        int64_t gid = at(lp->nid, k);

        if (gid >= 0 && gid < nn)
            bit_clear(w->nbits, gid);
    }
    vf_flush(w, &range, gfile(v, i));
    vf_flush(w, &flag, gfile(v, i));
    vf_flush(w, &id, gfile(v, i));
    vf_flush(w, &halo, gfile(v, i));
    vf_flush(w, &dup, gfile(v, i));
    vf_flush(w, &pid, gfile(v, i));
    vf_flush(w, &ty, gfile(v, i));
    if (v->cfg.halo_hops == 0 && n > ninner)
        vf_problem(w, "%s: %" PRId64 " halo nodes, but halo_hops is 0",
                   gfile(v, i), n - ninner);
}

/* Problems a part's edges can show, one line each. */
struct edge_tallies {
    struct tally range, flag, id, dup, halo, dstin, ty;
};

/* Local edge k (_ID e) where its flags and the edge_map put it: the first
 * minner edges inner and numbered from estart, the rest halo copies; with
 * no halo, inner edges in increasing order (*prev: the last one's _ID). */
static void edge_place(const struct part *p, int i, int64_t k, int64_t e,
                       int inner, int hops0, int64_t *prev,
                       struct edge_tallies *t)
{
    int64_t minner = p->eend - p->estart;
    int own = e >= p->estart && e < p->eend;

    if (hops0) {
        /* DGL drops cut edges with no halo: ids may have gaps */
        if (!inner || !own || e <= *prev)
            vf_tally(&t->id,
                     "edge %" PRId64 " (_ID %" PRId64 ") is not an"
                     " inner edge in increasing order within [%" PRId64
                     ", %" PRId64 ")",
                     k, e, p->estart, p->eend);
        *prev = e;
    } else if (k < minner) {
        if (!inner)
            vf_tally(&t->flag,
                     "edge %" PRId64 " is not inner, expected the"
                     " first %" PRId64 " edges to be the inner ones",
                     k, minner);
        if (e != p->estart + k)
            vf_tally(&t->id,
                     "inner edge %" PRId64 " has _ID %" PRId64
                     ", expected %" PRId64 " (edge_map start + local id)",
                     k, e, p->estart + k);
    } else {
        if (inner)
            vf_tally(&t->flag,
                     "edge %" PRId64 " is inner, but edge_map gives"
                     " part %d only %" PRId64 " edges",
                     k, i, minner);
        if (own)
            vf_tally(&t->halo,
                     "halo edge %" PRId64 " has _ID %" PRId64
                     ", inside the part's own range",
                     k, e);
    }
}

/* What the other parts need of local edge k (_ID e; again: the part
 * held it before): an original counts in the degrees and the edge cut, a
 * halo copy is counted and hashed for its edge_map part to confirm. The
 * counts and bits are shared with the other thread; the sums are this
 * thread's. */
static void edge_share(struct vwork *w, int i, const struct lpart *lp,
                       int64_t k, int64_t e, int inner, int again)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[i];
    int64_t s, d;
    int j;

    if (e >= p->estart && e < p->eend) {
        /* bad _IDs were reported; keep them out of the arrays that later
         * checks index with */
        if (inner && gends(v, lp, k, &s, &d) &&
            !bit_test_set_shared(v->fbits, e)) {
            v->p[i].found++;
            counts_inc_shared(&v->indeg, d);
            counts_inc_shared(&v->outdeg, s);
            w->edge_cut += owner(&v->cfg, s) != owner(&v->cfg, d);
        }
        return;
    }
    if (again)
        return;
    j = edge_owner(&v->cfg, e);
    s = at(lp->nid, lsrc(lp, k));
    d = at(lp->nid, ldst(lp, k));
    counts_inc_shared(&v->copies, e);
    edge_hash_add(w->hcopy[j], 1, e, s, d);
    w->ncopy[j]++;
}

/* The part's edges on their own, and its share of what joins the parts.
 * The first part of the part's work for the bar. */
void vf_check_edges(struct vwork *w, int i, struct lpart *lp)
{
    struct vctx *v = w->v;
    struct part *p = &v->p[i];
    int64_t m = lp->g.num_edges, minner = p->eend - p->estart, k;
    int64_t ninner = p->end - p->start, ee = v->cfg.num_edges, prev = -1;
    int hops0 = v->cfg.halo_hops == 0, et;
    struct edge_tallies t;

    if (!hops0 && m < minner) {
        vf_problem(w,
                   "%s: %" PRId64 " edges, fewer than the %" PRId64
                   " inner edges edge_map gives part %d",
                   gfile(v, i), m, minner, i);
        p->graph_ok = 0;
        return;
    }
    memset(&t, 0, sizeof(t));
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k), dl = ldst(lp, k);
        int inner = at(lp->inner_edge, k) != 0, again;

        sweep(lp, k);
        if ((k & PROGRESS_STEP) == 0)
            vf_progress(w, 0.8 * (double)k / (double)m);
        if (inner != (dl < ninner))
            vf_tally(&t.dstin,
                     "edge %" PRId64 " has inner_edge %d but its"
                     " destination (local %" PRId64 ") is %s",
                     k, inner, dl, dl < ninner ? "inner" : "a halo node");
        if (e < 0 || e >= ee) {
            vf_tally(&t.range,
                     "edge %" PRId64 " has _ID %" PRId64
                     ", outside [0, %" PRId64 ")",
                     k, e, ee);
            continue;
        }
        edge_place(p, i, k, e, inner, hops0, &prev, &t);
        if ((again = bit_test_set(w->ebits, e)))
            vf_tally(&t.dup,
                     "edge _ID %" PRId64 " appears twice (again at local"
                     " edge %" PRId64 ")",
                     e, k);
        if (lp->etype &&
            at(lp->etype, k) != (et = dp_config_etype_of(&v->cfg, e)))
            vf_tally(&t.ty,
                     "edge %" PRId64 " (_ID %" PRId64 ") has _TYPE %" PRId64
                     ", edge_map puts it in type %d ('%s')",
                     k, e, at(lp->etype, k), et, v->cfg.etypes[et]);
        edge_share(w, i, lp, k, e, inner, again);
    }
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k);

        if (e >= 0 && e < ee)
            bit_clear(w->ebits, e);
    }
    vf_flush(w, &t.range, gfile(v, i));
    vf_flush(w, &t.flag, gfile(v, i));
    vf_flush(w, &t.id, gfile(v, i));
    vf_flush(w, &t.halo, gfile(v, i));
    vf_flush(w, &t.dup, gfile(v, i));
    vf_flush(w, &t.dstin, gfile(v, i));
    vf_flush(w, &t.ty, gfile(v, i));
}
