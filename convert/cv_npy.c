/* A folder of NumPy arrays: src.npy and dst.npy (int32 or int64 [E]) and
 * optional feat.npy (float32 [N, D]), label.npy (int [N]) and
 * train/val/test_mask.npy (bool or uint8 [N]), e.g. DGL's Cora arrays. */
#include <inttypes.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

struct arr {
    const char *name;
    char *path;
    struct dp_npy a;
    int present;
};

static int open_arr(const char *dir, struct arr *x, int required)
{
    int rc;

    x->path = dp_path_join(dir, x->name);
    if (!x->path)
        return DP_ENOMEM;
    if (!dp_exists(x->path)) {
        if (required)
            return dp_error(DP_ENOENT,
                            "'%s' is missing (an npy folder needs "
                            "src.npy and dst.npy)",
                            x->path);
        return 0;
    }
    if ((rc = dp_npy_open(&x->a, x->path)))
        return rc;
    x->present = 1;
    return 0;
}

static int add_input(struct cv_graph *g, struct arr *x)
{
    return cv_graph_add_file(g, x->path);
}

int cv_read_npy(struct cv_graph *g, const char *dir)
{
    static const enum dp_dtype ids[] = { DP_I64, DP_I32 };
    static const enum dp_dtype ints[] = { DP_I64, DP_I32 };
    static const enum dp_dtype masks[] = { DP_U8, DP_BOOL, DP_I8 };
    static const char *const names[7] = {
        "src.npy",        "dst.npy",      "feat.npy",      "label.npy",
        "train_mask.npy", "val_mask.npy", "test_mask.npy",
    };
    struct arr x[7];
    int64_t e, n = g->num_nodes, shape[2], k;
    const char *nfrom = "--num_nodes";
    int rc = 0, i;
    int64_t *label = NULL;
    uint8_t *mask = NULL;

    memset(x, 0, sizeof(x));
    for (i = 0; i < 7; i++)
        x[i].name = names[i];
    for (i = 0; i < 7 && !rc; i++)
        rc = open_arr(dir, &x[i], i < 2);
    if (rc)
        goto out;
    shape[0] = -1;
    if ((rc = dp_npy_expect(&x[0].a, x[0].path, 2, ids, 1, shape)))
        goto out;
    e = x[0].a.h.shape[0];
    shape[0] = e;
    if ((rc = dp_npy_expect(&x[1].a, x[1].path, 2, ids, 1, shape)))
        goto out;
    /* The node count comes from the node arrays when there are any. */
    for (i = 2; i < 7 && n < 0; i++)
        if (x[i].present && x[i].a.h.ndim >= 1) {
            n = x[i].a.h.shape[0];
            nfrom = x[i].name;
        }
    if (n >= 0) {
        g->num_nodes = n;
        snprintf(g->nodes_from, sizeof(g->nodes_from),
                 "%s has %" PRId64 " rows", nfrom, n);
    }
    g->edge_src = dp_strdup(x[0].path);
    if (!g->edge_src || (rc = cv_edges_grow(&g->edges, e ? (uint64_t)e : 1)))
        goto out;
    for (k = 0; k < e; k++) {
        int64_t s = dp_npy_get_i64(&x[0].a, (uint64_t)k);
        int64_t d = dp_npy_get_i64(&x[1].a, (uint64_t)k);
        /* without node arrays the count is max id + 1: ids stay below
         * 2^62 so it cannot overflow */
        int bad = s < 0               ? 0
                  : d < 0             ? 1
                  : n >= 0 && s >= n  ? 0
                  : n >= 0 && d >= n  ? 1
                  : s >= CV_MAX_NODES ? 0
                  : d >= CV_MAX_NODES ? 1
                                      : -1;

        if (bad >= 0) {
            int64_t id = bad ? d : s;

            if (id < 0)
                rc = dp_error(DP_ERANGE,
                              "'%s' entry %" PRId64 ": expected a "
                              "non-negative node id, found %" PRId64,
                              x[bad].path, k, id);
            else if (n < 0)
                rc = dp_error(DP_ERANGE,
                              "'%s' entry %" PRId64 ": node id %" PRId64
                              " too large (ids must be below 2^62)",
                              x[bad].path, k, id);
            else
                rc = dp_error(DP_ERANGE,
                              "'%s' entry %" PRId64 ": node id %" PRId64
                              " out of range [0, %" PRId64 ") (%s)",
                              x[bad].path, k, id, n, g->nodes_from);
            goto out;
        }
        if ((rc = cv_edges_push(&g->edges, s, d, (uint64_t)k)))
            goto out;
    }
    if (n < 0)
        n = g->edges.max_id + 1;
    if (x[2].present) {
        static const enum dp_dtype f32 = DP_F32;
        char *out;

        shape[0] = n;
        shape[1] = -1;
        if ((rc = dp_npy_expect(&x[2].a, x[2].path, 1, &f32, 2, shape)))
            goto out;
        shape[1] = x[2].a.h.shape[1];
        out = cv_graph_path(g, "feat.npy");
        rc = out ? dp_npy_write(out, DP_F32, 2, shape, x[2].a.data) : DP_ENOMEM;
        free(out);
        if (rc)
            goto out;
        g->meta.feat_dim = shape[1];
    }
    if (x[3].present) {
        int64_t maxl = -1;

        shape[0] = n;
        if ((rc = dp_npy_expect(&x[3].a, x[3].path, 2, ints, 1, shape)))
            goto out;
        if (!(label = dp_malloc_array((size_t)n + 1, sizeof(*label)))) {
            rc = DP_ENOMEM;
            goto out;
        }
        for (k = 0; k < n; k++) {
            label[k] = dp_npy_get_i64(&x[3].a, (uint64_t)k);
            if (label[k] < -1) {
                rc = dp_error(DP_ERANGE,
                              "'%s' entry %" PRId64 ": label %" PRId64
                              " (expected >= 0, or -1 for none)",
                              x[3].path, k, label[k]);
                goto out;
            }
            if (label[k] >= CV_MAX_LABEL) {
                rc = dp_error(DP_ERANGE,
                              "'%s' entry %" PRId64 ": label %" PRId64
                              " too large (labels must be below 2^53)",
                              x[3].path, k, label[k]);
                goto out;
            }
            if (label[k] > maxl)
                maxl = label[k];
        }
        if ((rc = cv_graph_write_i64(g, "label.npy", label, n)))
            goto out;
        g->meta.num_classes = maxl + 1 > 0 ? maxl + 1 : 1;
    }
    for (i = 4; i < 7; i++) {
        static const char *const outn[] = { "train_mask.npy", "val_mask.npy",
                                            "test_mask.npy" };

        if (!x[i].present)
            continue;
        shape[0] = n;
        if ((rc = dp_npy_expect(&x[i].a, x[i].path, 3, masks, 1, shape)))
            goto out;
        if (!mask && !(mask = dp_malloc(n ? (size_t)n : 1))) {
            rc = DP_ENOMEM;
            goto out;
        }
        for (k = 0; k < n; k++)
            mask[k] = ((const uint8_t *)x[i].a.data)[k] != 0;
        if ((rc = cv_graph_write_mask(g, outn[i - 4], mask, n)))
            goto out;
        *(i == 4   ? &g->meta.has_train
          : i == 5 ? &g->meta.has_val
                   : &g->meta.has_test) = 1;
    }
    for (i = 0; i < 7 && !rc; i++)
        if (x[i].present)
            rc = add_input(g, &x[i]);
out:
    for (i = 0; i < 7; i++) {
        dp_npy_release(&x[i].a);
        free(x[i].path);
    }
    free(label);
    free(mask);
    return rc;
}
