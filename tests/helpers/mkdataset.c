/* Test helper: turn plain arrays (src.npy, dst.npy, feat.npy, label.npy,
 * {train,val,test}_mask.npy, as in fixtures/dgl-cora/input) into the
 * converted dataset folder of dataset.h, so verify --dataset can be tested
 * without the convert stage. usage: mkdataset INPUT_DIR OUTPUT_DIR */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"

static int copy_array(const char *in, const char *out, const char *name,
                      int *present)
{
    char *src = dp_path_join(in, name), *dst = dp_path_join(out, name);
    struct dp_npy a;
    int rc = 0;

    *present = 0;
    if (!src || !dst) {
        rc = DP_ENOMEM;
    } else if (dp_exists(src)) {
        rc = dp_npy_open(&a, src);
        if (!rc) {
            rc = dp_npy_write(dst, a.h.dtype, a.h.ndim, a.h.shape, a.data);
            dp_npy_release(&a);
            *present = !rc;
        }
    }
    free(src);
    free(dst);
    return rc;
}

static int build(const char *in, const char *out)
{
    struct dp_npy s, d, lab;
    struct dp_dataset_meta m;
    char *sp = dp_path_join(in, "src.npy"), *dp = dp_path_join(in, "dst.npy");
    char *p = NULL;
    int64_t n = 0, e, k, *indptr = NULL, *indices = NULL, *eids = NULL;
    int rc, has_feat = 0, has_label = 0, tr = 0, va = 0, te = 0;

    memset(&m, 0, sizeof(m));
    if ((rc = dp_npy_open(&s, sp)) != 0)
        return rc;
    if ((rc = dp_npy_open(&d, dp)) != 0) {
        dp_npy_release(&s);
        return rc;
    }
    e = (int64_t)s.h.count;
    for (k = 0; k < e; k++) {
        int64_t a = dp_npy_get_i64(&s, (uint64_t)k);
        int64_t b = dp_npy_get_i64(&d, (uint64_t)k);

        n = a >= n ? a + 1 : n;
        n = b >= n ? b + 1 : n;
    }
    if ((rc = dp_mkdir_p(out, 0755)) != 0 ||
        (rc = copy_array(in, out, "feat.npy", &has_feat)) != 0 ||
        (rc = copy_array(in, out, "label.npy", &has_label)) != 0 ||
        (rc = copy_array(in, out, "train_mask.npy", &tr)) != 0 ||
        (rc = copy_array(in, out, "val_mask.npy", &va)) != 0 ||
        (rc = copy_array(in, out, "test_mask.npy", &te)) != 0)
        goto out;
    if (has_feat) {
        struct dp_npy f;

        p = dp_path_join(out, "feat.npy");
        if ((rc = dp_npy_open(&f, p)) != 0)
            goto out;
        m.feat_dim = f.h.shape[1];
        if (f.h.shape[0] > n)
            n = f.h.shape[0];
        dp_npy_release(&f);
        free(p);
        p = NULL;
    }
    if (has_label) {
        p = dp_path_join(out, "label.npy");
        if ((rc = dp_npy_open(&lab, p)) != 0)
            goto out;
        for (k = 0; k < (int64_t)lab.h.count; k++)
            if (dp_npy_get_i64(&lab, (uint64_t)k) >= m.num_classes)
                m.num_classes = dp_npy_get_i64(&lab, (uint64_t)k) + 1;
        dp_npy_release(&lab);
        free(p);
        p = NULL;
    }
    /* in-edge CSC: edges grouped by destination, input order kept */
    indptr = dp_calloc((size_t)n + 1, 8);
    indices = dp_malloc_array((size_t)e + 1, 8);
    eids = dp_malloc_array((size_t)e + 1, 8);
    if (!indptr || !indices || !eids) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (k = 0; k < e; k++)
        indptr[dp_npy_get_i64(&d, (uint64_t)k) + 1]++;
    for (k = 0; k < n; k++)
        indptr[k + 1] += indptr[k];
    for (k = 0; k < e; k++) {
        int64_t at = indptr[dp_npy_get_i64(&d, (uint64_t)k)]++;

        indices[at] = dp_npy_get_i64(&s, (uint64_t)k);
        eids[at] = k;
    }
    for (k = n; k > 0; k--)
        indptr[k] = indptr[k - 1];
    indptr[0] = 0;
    {
        int64_t np1 = n + 1;

        free(p);
        p = dp_path_join(out, "indptr.npy");
        if ((rc = dp_npy_write(p, DP_I64, 1, &np1, indptr)) != 0)
            goto out;
        free(p);
        p = dp_path_join(out, "indices.npy");
        if ((rc = dp_npy_write(p, DP_I64, 1, &e, indices)) != 0)
            goto out;
        free(p);
        p = dp_path_join(out, "eids.npy");
        if ((rc = dp_npy_write(p, DP_I64, 1, &e, eids)) != 0)
            goto out;
    }
    m.name = dp_strdup("test");
    m.source_format = dp_strdup("npy");
    if (!m.name || !m.source_format) {
        rc = DP_ENOMEM;
        goto out;
    }
    m.num_nodes = n;
    m.num_edges = e;
    m.directed = 1;
    m.has_train = tr;
    m.has_val = va;
    m.has_test = te;
    rc = dp_dataset_write_meta(out, &m);
out:
    dp_dataset_meta_release(&m);
    free(indptr);
    free(indices);
    free(eids);
    free(p);
    free(sp);
    free(dp);
    dp_npy_release(&s);
    dp_npy_release(&d);
    return rc;
}

int main(int argc, char **argv)
{
    int rc;

    dp_set_progname("mkdataset");
    if (argc != 3) {
        fprintf(stderr, "usage: mkdataset INPUT_DIR OUTPUT_DIR\n");
        return 2;
    }
    rc = build(argv[1], argv[2]);
    if (rc) {
        dp_report(rc);
        return 1;
    }
    return 0;
}
