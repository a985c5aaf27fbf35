/* verify: one part's graph.dgl mapped and checked on its own terms (the
 * arrays DGL's loader needs, every stored format alike), its in-edges, its
 * feature files, and the arrays verify sizes by the config. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"

#include "verify_int.h"

int vf_ids_alloc(struct ids *a, int64_t n, int64_t max_id)
{
    a->wide = max_id > INT32_MAX;
    a->p = dp_malloc_array(n ? (size_t)n : 1, a->wide ? 8 : 4);
    return a->p ? 0 : DP_ENOMEM;
}

int vf_counts_alloc(struct counts *c, int64_t n, uint64_t max)
{
    c->w = max <= UINT8_MAX    ? 1
           : max <= UINT16_MAX ? 2
           : max <= UINT32_MAX ? 4
                               : 8;
    c->p = dp_calloc(n ? (size_t)n : 1, (size_t)c->w);
    return c->p ? 0 : DP_ENOMEM;
}

uint64_t *vf_bits_alloc(int64_t n)
{
    return dp_calloc((size_t)(n / 64 + 1), 8);
}

int vf_int_1d(const struct dp_ndarray *a, int64_t len)
{
    return a && a->ndim == 1 && a->shape[0] == len && dp_dtype_is_int(a->dtype);
}

void vf_release_part(struct lpart *lp)
{
    if (lp->loaded)
        dp_graph_release(&lp->g);
    free(lp->s.p);
    free(lp->d.p);
    free(lp->iptr);
    free(lp->ilist.p);
    memset(lp, 0, sizeof(*lp));
}

static inline void visit(struct lpart *lp, int64_t k, int64_t s, int64_t d,
                         int fill, uint64_t *seen, int64_t *got, int *differ)
{
    if (k < 0 || k >= lp->g.num_edges || bit_test_set(seen, k))
        return;
    (*got)++;
    if (fill) {
        ids_set(&lp->s, k, s);
        ids_set(&lp->d, k, d);
    } else if (lsrc(lp, k) != s || ldst(lp, k) != d) {
        *differ = 1;
    }
}

/* Walk one stored format (data arrays give edge ids, a null data array
 * means position = id): fill s and d, or compare with them. Returns the
 * number of ids not given exactly once. */
static int64_t walk(struct lpart *lp, int fmt, int fill, uint64_t *seen,
                    int *differ)
{
    const struct dp_graph_file *g = &lp->g;
    int64_t m = g->num_edges, n = g->num_nodes, got = 0, j, r;

    memset(seen, 0, (size_t)(m / 64 + 1) * 8);
    *differ = 0;
    if (fmt == DP_FMT_COO) {
        for (j = 0; j < m; j++) {
            sweep(lp, j);
            visit(lp, g->coo_data.data ? at(&g->coo_data, j) : j,
                  at(&g->coo_row, j), at(&g->coo_col, j), fill, seen, &got,
                  differ);
        }
    } else {
        int csr = fmt == DP_FMT_CSR;
        const struct dp_ndarray *ip = csr ? &g->csr_indptr : &g->csc_indptr;
        const struct dp_ndarray *ix = csr ? &g->csr_indices : &g->csc_indices;
        const struct dp_ndarray *d = csr ? &g->csr_data : &g->csc_data;

        for (r = 0; r < n; r++) {
            int64_t a = at(ip, r), b = at(ip, r + 1);

            for (j = a; j < b; j++) {
                int64_t k = d->data ? at(d, j) : j, c = at(ix, j);

                sweep(lp, j);
                visit(lp, k, csr ? r : c, csr ? c : r, fill, seen, &got,
                      differ);
            }
        }
    }
    return m - got;
}

/* Map part i's graph.dgl and check it on its own terms: the arrays DGL's
 * loader needs, and every stored format describing the same edges.
 * lp->ok says whether the rest can use it; the return is 0 or DP_ENOMEM. */
int vf_load_graph(struct vwork *w, int i, struct lpart *lp)
{
    struct vctx *v = w->v;
    struct dp_graph_file *g = &lp->g;
    char *path = dp_config_part_file(&v->cfg, i, "part_graph");
    static const int fmts[3] = { DP_FMT_COO, DP_FMT_CSC, DP_FMT_CSR };
    uint64_t *seen = NULL;
    int64_t bad;
    int f, first = 1, differ, rc = 0;

    memset(lp, 0, sizeof(*lp));
    if (!path)
        return DP_ENOMEM;
    if (dp_graph_load(g, path) != 0) {
        vf_problem(w, "%s: %s", gfile(v, i), dp_errmsg());
        free(path);
        return 0;
    }
    free(path);
    lp->loaded = 1;
    lp->nid = dp_graph_ndata(g, "_ID");
    lp->eid = dp_graph_edata(g, "_ID");
    lp->inner_node = dp_graph_ndata(g, "inner_node");
    lp->inner_edge = dp_graph_edata(g, "inner_edge");
    lp->part_id = dp_graph_ndata(g, "part_id");
    if (!vf_int_1d(lp->nid, g->num_nodes) ||
        !vf_int_1d(lp->eid, g->num_edges) ||
        !vf_int_1d(lp->inner_node, g->num_nodes) ||
        !vf_int_1d(lp->inner_edge, g->num_edges)) {
        vf_problem(w,
                   "%s: lacks integer ndata _ID/inner_node or edata"
                   " _ID/inner_edge",
                   gfile(v, i));
        return 0;
    }
    if (lp->part_id && !vf_int_1d(lp->part_id, g->num_nodes)) {
        vf_problem(w, "%s: ndata part_id is not 1-D integers", gfile(v, i));
        lp->part_id = NULL;
    }
    /* Types: DGL's servers read the edges' _TYPE; the nodes' is optional */
    if (v->cfg.num_ntypes > 1 || v->cfg.num_etypes > 1) {
        lp->ntype = dp_graph_ndata(g, "_TYPE");
        lp->etype = dp_graph_edata(g, "_TYPE");
        if (lp->ntype && !vf_int_1d(lp->ntype, g->num_nodes)) {
            vf_problem(w, "%s: ndata _TYPE is not 1-D integers", gfile(v, i));
            lp->ntype = NULL;
        }
        if (!vf_int_1d(lp->etype, g->num_edges)) {
            vf_problem(w,
                       "%s: edata _TYPE is %s, expected the edge type of each "
                       "edge (the config has edge types)",
                       gfile(v, i), lp->etype ? "not 1-D integers" : "missing");
            lp->etype = NULL;
        }
    }
    /* DGL's usual layout, COO in edge id order, is read in place */
    if ((g->saved_formats & DP_FMT_COO) && !g->coo_data.data) {
        lp->direct = 1;
        first = 0;
    }
    seen = vf_bits_alloc(g->num_edges);
    if (!seen)
        return DP_ENOMEM;
    /* every stored format must describe the same edges */
    for (f = 0; f < 3; f++) {
        if (!(g->saved_formats & fmts[f]) ||
            (fmts[f] == DP_FMT_COO && lp->direct))
            continue;
        if (first && (vf_ids_alloc(&lp->s, g->num_edges, g->num_nodes - 1) ||
                      vf_ids_alloc(&lp->d, g->num_edges, g->num_nodes - 1))) {
            rc = DP_ENOMEM;
            goto out;
        }
        bad = walk(lp, fmts[f], first, seen, &differ);
        if (bad) {
            vf_problem(w,
                       "%s: %" PRId64 " edge ids of its %s are missing or"
                       " repeated",
                       gfile(v, i), bad,
                       fmts[f] == DP_FMT_COO   ? "COO"
                       : fmts[f] == DP_FMT_CSR ? "CSR"
                                               : "CSC");
            goto out;
        }
        if (differ) {
            vf_problem(w, "%s: its %s and COO/CSC disagree about the edges",
                       gfile(v, i), fmts[f] == DP_FMT_CSR ? "CSR" : "CSC");
            goto out;
        }
        first = 0;
    }
    lp->ok = 1;
out:
    free(seen);
    return rc;
}

/* The stored in-edges of each local node, for the halo and dataset
 * checks. */
int vf_build_in(struct lpart *lp)
{
    int64_t n = lp->g.num_nodes, m = lp->g.num_edges, k;

    lp->iptr = dp_calloc((size_t)n + 1, 8);
    if (!lp->iptr || vf_ids_alloc(&lp->ilist, m, m - 1))
        return DP_ENOMEM;
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        lp->iptr[ldst(lp, k) + 1]++;
    }
    for (k = 0; k < n; k++)
        lp->iptr[k + 1] += lp->iptr[k];
    for (k = 0; k < m; k++) {
        sweep(lp, k);
        ids_set(&lp->ilist, lp->iptr[ldst(lp, k)]++, k);
    }
    for (k = n; k > 0; k--)
        lp->iptr[k] = lp->iptr[k - 1];
    lp->iptr[0] = 0;
    return 0;
}

void vf_load_feats(struct vwork *w, int i, struct dp_tensors *nf, int *nf_ok,
                   struct dp_tensors *ef, int *ef_ok)
{
    struct vctx *v = w->v;
    char *nfp = dp_config_part_file(&v->cfg, i, "node_feats");
    char *efp = dp_config_part_file(&v->cfg, i, "edge_feats");

    *nf_ok = nfp && dp_tensors_load(nf, nfp) == 0;
    if (!*nf_ok)
        vf_problem(w, "%s: %s", v->cfg.node_feats[i], dp_errmsg());
    if (ef) {
        *ef_ok = efp && dp_tensors_load(ef, efp) == 0;
        if (!*ef_ok)
            vf_problem(w, "%s: %s", v->cfg.edge_feats[i], dp_errmsg());
    }
    free(nfp);
    free(efp);
}

/* Load part j again, quietly: it loaded once, its problems are out. */
int vf_reload(struct vwork *w, int j, struct lpart *lp)
{
    int rc;

    w->quiet++;
    rc = vf_load_graph(w, j, lp);
    w->quiet--;
    if (rc || !lp->ok)
        vf_release_part(lp);
    return rc;
}
