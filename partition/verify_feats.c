/* verify: a part's node_feat.dgl and edge_feat.dgl: rows per inner node
 * or edge, the same entries as part 0's, and its training nodes. */
#include <inttypes.h>
#include <string.h>

#include "dglpart/error.h"

#include "verify_int.h"

/* Rows per inner node or edge; names, dtypes and row shapes as part 0's. */
void vf_check_feat_rows(struct vwork *w, int i, const struct dp_tensors *nf,
                        int nf_ok, const struct dp_tensors *ef, int ef_ok)
{
    struct vctx *v = w->v;
    struct part *p = &v->p[i];
    int pass, t;

    for (pass = 0; pass < 2; pass++) {
        const struct dp_tensors *ts = pass ? ef : nf;
        const struct dp_tensors *t0 = pass ? &v->ef0 : &v->nf0;
        const char *file = pass ? v->cfg.edge_feats[i] : v->cfg.node_feats[i];
        int64_t rows = pass ? p->eend - p->estart : p->end - p->start;
        int ok = pass ? ef_ok : nf_ok, ok0 = pass ? v->ef0_ok : v->nf0_ok;

        if (!ok)
            continue;
        for (t = 0; t < ts->count; t++) {
            const struct dp_tensor *e = &ts->items[t], *e0;
            int64_t start;
            int ty = dp_config_feature_range(&v->cfg, i, pass, e->name, &start,
                                             &rows);

            if (ty < 0) {
                vf_problem(w, "%s: '%s' names no %s type of the config", file,
                           e->name, pass ? "edge" : "node");
                continue;
            }
            if (e->a.ndim < 1 || e->a.shape[0] != rows) {
                vf_problem(w,
                           "%s: '%s' has %" PRId64 " rows, expected %" PRId64
                           " (the part's inner %s%s%s)",
                           file, e->name, e->a.ndim ? e->a.shape[0] : 0, rows,
                           pass ? "edges" : "nodes",
                           ty > 0 || strchr(e->name, '/') ? " of type " : "",
                           ty > 0 || strchr(e->name, '/')
                               ? (pass ? v->cfg.etypes : v->cfg.ntypes)[ty]
                               : "");
                continue;
            }
            if (i == 0 || !ok0)
                continue;
            e0 = dp_tensors_find(t0, e->name);
            if (!e0)
                vf_problem(w, "%s: '%s' is not in part 0", file, e->name);
            else if (e0->a.dtype != e->a.dtype || e0->a.ndim != e->a.ndim ||
                     row_items(&e0->a) != row_items(&e->a))
                vf_problem(w,
                           "%s: '%s' differs in dtype or row shape from part"
                           " 0",
                           file, e->name);
        }
        if (i > 0 && ok0 && ts->count != t0->count)
            vf_problem(w, "%s: %d entries, part 0 has %d", file, ts->count,
                       t0->count);
    }
}

int64_t vf_count_train(const struct dp_tensors *nf, int nf_ok)
{
    const struct dp_tensor *t =
        nf_ok ? dp_tensors_find(nf, "_N/train_mask") : NULL;
    uint64_t j, n;
    int64_t c = 0;

    if (!t || t->a.ndim != 1 || !dp_dtype_is_int(t->a.dtype))
        return -1;
    n = t->a.nbytes / dp_dtype_size(t->a.dtype);
    for (j = 0; j < n; j++)
        c += dp_ndarray_get_i64(&t->a, j) != 0;
    return c;
}
