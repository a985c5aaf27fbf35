/* verify: a part's nodes and edges against the config's maps (ids, local
 * order, inner flags, types), and its share of what joins the parts. */
#include <inttypes.h>
#include <string.h>

#include "dglpart/error.h"

#include "verify_int.h"

void vf_check_nodes(struct vctx *v, int i, struct lpart *lp)
{
    struct part *p = &v->p[i];
    int64_t n = lp->g.num_nodes, ninner = p->end - p->start, k;
    int64_t nn = v->cfg.num_nodes;
    struct tally range = { 0 }, flag = { 0 }, id = { 0 }, halo = { 0 },
                 dup = { 0 }, pid = { 0 }, ty = { 0 };

    if (n < ninner) {
        vf_problem(v,
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
        if (bit_test_set(v->nbits, gid))
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
            bit_clear(v->nbits, gid);
    }
    vf_flush(v, &range, gfile(v, i));
    vf_flush(v, &flag, gfile(v, i));
    vf_flush(v, &id, gfile(v, i));
    vf_flush(v, &halo, gfile(v, i));
    vf_flush(v, &dup, gfile(v, i));
    vf_flush(v, &pid, gfile(v, i));
    vf_flush(v, &ty, gfile(v, i));
    if (v->cfg.halo_hops == 0 && n > ninner)
        vf_problem(v, "%s: %" PRId64 " halo nodes, but halo_hops is 0",
                   gfile(v, i), n - ninner);
}

/* The part's edges on their own, and what the other parts need of them:
 * each original counted in the degrees and the edge cut, each halo copy
 * counted and hashed for its edge_map part to confirm. */
void vf_check_edges(struct vctx *v, int i, struct lpart *lp)
{
    struct part *p = &v->p[i];
    int64_t m = lp->g.num_edges, minner = p->eend - p->estart, k;
    int64_t ninner = p->end - p->start, ee = v->cfg.num_edges, prev = -1;
    int hops0 = v->cfg.halo_hops == 0;
    struct tally range = { 0 }, flag = { 0 }, id = { 0 }, dup = { 0 },
                 halo = { 0 }, dstin = { 0 }, ty = { 0 };

    if (!hops0 && m < minner) {
        vf_problem(v,
                   "%s: %" PRId64 " edges, fewer than the %" PRId64
                   " inner edges edge_map gives part %d",
                   gfile(v, i), m, minner, i);
        p->graph_ok = 0;
        return;
    }
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k), s, d, dl = ldst(lp, k);
        int inner = at(lp->inner_edge, k) != 0;
        int dinner = dl < ninner, own, again;

        sweep(lp, k);
        if (inner != dinner)
            vf_tally(&dstin,
                     "edge %" PRId64 " has inner_edge %d but its"
                     " destination (local %" PRId64 ") is %s",
                     k, inner, dl, dinner ? "inner" : "a halo node");
        if (e < 0 || e >= ee) {
            vf_tally(&range,
                     "edge %" PRId64 " has _ID %" PRId64
                     ", outside [0, %" PRId64 ")",
                     k, e, ee);
            continue;
        }
        own = e >= p->estart && e < p->eend;
        if (hops0) {
            /* DGL drops cut edges with no halo: ids may have gaps */
            if (!inner || !own || e <= prev)
                vf_tally(&id,
                         "edge %" PRId64 " (_ID %" PRId64 ") is not an"
                         " inner edge in increasing order within [%" PRId64
                         ", %" PRId64 ")",
                         k, e, p->estart, p->eend);
            prev = e;
        } else if (k < minner) {
            if (!inner)
                vf_tally(&flag,
                         "edge %" PRId64 " is not inner, expected the"
                         " first %" PRId64 " edges to be the inner ones",
                         k, minner);
            if (e != p->estart + k)
                vf_tally(&id,
                         "inner edge %" PRId64 " has _ID %" PRId64
                         ", expected %" PRId64 " (edge_map start + local id)",
                         k, e, p->estart + k);
        } else {
            if (inner)
                vf_tally(&flag,
                         "edge %" PRId64 " is inner, but edge_map gives"
                         " part %d only %" PRId64 " edges",
                         k, i, minner);
            if (own)
                vf_tally(&halo,
                         "halo edge %" PRId64 " has _ID %" PRId64
                         ", inside the part's own range",
                         k, e);
        }
        again = bit_test_set(v->ebits, e);
        if (again)
            vf_tally(&dup,
                     "edge _ID %" PRId64 " appears twice (again at local"
                     " edge %" PRId64 ")",
                     e, k);
        if (lp->etype && at(lp->etype, k) != dp_config_etype_of(&v->cfg, e))
            vf_tally(&ty,
                     "edge %" PRId64 " (_ID %" PRId64 ") has _TYPE %" PRId64
                     ", edge_map puts it in type %d ('%s')",
                     k, e, at(lp->etype, k), dp_config_etype_of(&v->cfg, e),
                     v->cfg.etypes[dp_config_etype_of(&v->cfg, e)]);
        if (own && inner) {
            /* bad _IDs were reported above; keep them out of the arrays
             * that later checks index with */
            if (gends(v, lp, k, &s, &d) && !bit_test_set(v->fbits, e)) {
                p->found++;
                counts_inc(&v->indeg, d);
                counts_inc(&v->outdeg, s);
                v->s->edge_cut += owner(&v->cfg, s) != owner(&v->cfg, d);
            }
        } else if (!own && !again) {
            int j = edge_owner(&v->cfg, e);

            s = at(lp->nid, lsrc(lp, k));
            d = at(lp->nid, dl);
            counts_inc(&v->copies, e);
            edge_hash_add(v->hcopy[j], 1, e, s, d);
            v->ncopy[j]++;
        }
    }
    for (k = 0; k < m; k++) {
        int64_t e = at(lp->eid, k);

        if (e >= 0 && e < ee)
            bit_clear(v->ebits, e);
    }
    vf_flush(v, &range, gfile(v, i));
    vf_flush(v, &flag, gfile(v, i));
    vf_flush(v, &id, gfile(v, i));
    vf_flush(v, &halo, gfile(v, i));
    vf_flush(v, &dup, gfile(v, i));
    vf_flush(v, &dstin, gfile(v, i));
    vf_flush(v, &ty, gfile(v, i));
}
