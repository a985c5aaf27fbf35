/* Test helper: turn plain arrays (src.npy, dst.npy, feat.npy, label.npy,
 * {train,val,test}_mask.npy, as in fixtures/dgl-cora/input) into the
 * converted dataset folder of dataset.h, so verify --dataset can be tested
 * without the convert stage. usage: mkdataset INPUT_DIR OUTPUT_DIR
 * mkdataset --typed-cora INPUT_DIR OUTPUT_DIR writes the typed Cora of
 * fixtures/dgl-cora-hetero/README.md (dataset format version 2). */
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

/* An npy file under out, its folder made first. */
static int put(const char *out, const char *rel, enum dp_dtype dt, int ndim,
               const int64_t *shape, const void *data)
{
    char *p = dp_path_join(out, rel), *dir = p ? dp_path_dirname(p) : NULL;
    int rc = p && dir ? 0 : DP_ENOMEM;

    if (!rc)
        rc = dp_mkdir_p(dir, 0755);
    if (!rc)
        rc = dp_npy_write(p, dt, ndim, shape, data);
    free(p);
    free(dir);
    return rc;
}

static int copy_typed(const char *in, const char *out, const char *name,
                      const char *rel)
{
    char *src = dp_path_join(in, name);
    struct dp_npy a;
    int rc = src ? dp_npy_open(&a, src) : DP_ENOMEM;

    free(src);
    if (rc)
        return rc;
    rc = put(out, rel, a.h.dtype, a.h.ndim, a.h.shape, a.data);
    dp_npy_release(&a);
    return rc;
}

/* paper i = Cora node i, word j = node 2708 + j; edges cites, has, rev_has
 * with input ids in that order (fixtures/dgl-cora-hetero/README.md). */
static int build_typed(const char *in, const char *out)
{
    struct dp_npy s, d, f;
    struct dp_dataset_meta m;
    struct dp_dataset_type nt[2], et[3];
    struct dp_dataset_data nd[6], ed[1];
    char *sp = dp_path_join(in, "src.npy"), *dp = dp_path_join(in, "dst.npy");
    char *fp = dp_path_join(in, "feat.npy");
    int64_t np_, nw, ec, eh = 0, n, e, i, j, k, at, sh[2];
    int64_t *src = NULL, *dst = NULL, *indptr = NULL, *indices = NULL;
    int64_t *eids = NULL;
    float *pfeat = NULL, *wcount = NULL, *weight = NULL;
    int rc, opened = 0;

    memset(&m, 0, sizeof(m));
    if ((rc = dp_npy_open(&s, sp)))
        goto out0;
    opened = 1;
    if ((rc = dp_npy_open(&d, dp)))
        goto out0;
    opened = 2;
    if ((rc = dp_npy_open(&f, fp)))
        goto out0;
    opened = 3;
    np_ = f.h.shape[0];
    nw = f.h.shape[1];
    ec = (int64_t)s.h.count;
    for (k = 0; k < np_ * nw; k++)
        eh += ((const float *)f.data)[k] != 0;
    n = np_ + nw;
    e = ec + 2 * eh;
    src = dp_malloc_array((size_t)e + 1, 8);
    dst = dp_malloc_array((size_t)e + 1, 8);
    indptr = dp_calloc((size_t)n + 1, 8);
    indices = dp_malloc_array((size_t)e + 1, 8);
    eids = dp_malloc_array((size_t)e + 1, 8);
    pfeat = dp_calloc((size_t)np_ * 8 + 1, sizeof(float));
    wcount = dp_calloc((size_t)nw + 1, sizeof(float));
    weight = dp_malloc_array((size_t)ec + 1, sizeof(float));
    if (!src || !dst || !indptr || !indices || !eids || !pfeat || !wcount ||
        !weight) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (k = 0; k < ec; k++) {
        src[k] = dp_npy_get_i64(&s, (uint64_t)k);
        dst[k] = dp_npy_get_i64(&d, (uint64_t)k);
        weight[k] = (float)k;
    }
    k = 0;
    for (i = 0; i < np_; i++)
        for (j = 0; j < nw; j++) {
            if (((const float *)f.data)[i * nw + j] == 0)
                continue;
            src[ec + k] = i;
            dst[ec + k] = np_ + j;
            src[ec + eh + k] = np_ + j;
            dst[ec + eh + k] = i;
            pfeat[i * 8 + j % 8] += 1;
            wcount[j] += 1;
            k++;
        }
    /* in-edge CSC, input order kept inside a destination */
    for (k = 0; k < e; k++)
        indptr[dst[k] + 1]++;
    for (k = 0; k < n; k++)
        indptr[k + 1] += indptr[k];
    for (k = 0; k < e; k++) {
        at = indptr[dst[k]]++;
        indices[at] = src[k];
        eids[at] = k;
    }
    for (k = n; k > 0; k--)
        indptr[k] = indptr[k - 1];
    indptr[0] = 0;
    sh[0] = n + 1;
    if ((rc = put(out, "indptr.npy", DP_I64, 1, sh, indptr)))
        goto out;
    sh[0] = e;
    if ((rc = put(out, "indices.npy", DP_I64, 1, sh, indices)) ||
        (rc = put(out, "eids.npy", DP_I64, 1, sh, eids)))
        goto out;
    sh[0] = np_;
    sh[1] = 8;
    if ((rc = put(out, "ndata/paper/feat.npy", DP_F32, 2, sh, pfeat)))
        goto out;
    sh[0] = nw;
    sh[1] = 1;
    if ((rc = put(out, "ndata/word/count.npy", DP_F32, 2, sh, wcount)))
        goto out;
    sh[0] = ec;
    if ((rc = put(out, "edata/paper:cites:paper/weight.npy", DP_F32, 1, sh,
                  weight)) ||
        (rc = copy_typed(in, out, "label.npy", "ndata/paper/label.npy")) ||
        (rc = copy_typed(in, out, "train_mask.npy",
                         "ndata/paper/train_mask.npy")) ||
        (rc =
             copy_typed(in, out, "val_mask.npy", "ndata/paper/val_mask.npy")) ||
        (rc =
             copy_typed(in, out, "test_mask.npy", "ndata/paper/test_mask.npy")))
        goto out;
    nt[0] = (struct dp_dataset_type){ "paper", np_, 0, 0, 0 };
    nt[1] = (struct dp_dataset_type){ "word", nw, 0, 0, 0 };
    et[0] = (struct dp_dataset_type){ "paper:cites:paper", ec, 0, 0, 0 };
    et[1] = (struct dp_dataset_type){ "paper:has:word", eh, 0, 0, 0 };
    et[2] = (struct dp_dataset_type){ "word:rev_has:paper", eh, 0, 0, 0 };
    nd[0] = (struct dp_dataset_data){ 0, "feat", 0, NULL };
    nd[1] = (struct dp_dataset_data){ 0, "label", 0, NULL };
    nd[2] = (struct dp_dataset_data){ 0, "train_mask", 0, NULL };
    nd[3] = (struct dp_dataset_data){ 0, "val_mask", 0, NULL };
    nd[4] = (struct dp_dataset_data){ 0, "test_mask", 0, NULL };
    nd[5] = (struct dp_dataset_data){ 1, "count", 0, NULL };
    ed[0] = (struct dp_dataset_data){ 0, "weight", 0, NULL };
    m.name = "cora_hetero";
    m.source_format = "npy";
    m.num_nodes = n;
    m.num_edges = e;
    m.directed = 1;
    m.num_ntypes = 2;
    m.ntypes = nt;
    m.num_etypes = 3;
    m.etypes = et;
    m.num_ndata = 6;
    m.ndata = nd;
    m.num_edata = 1;
    m.edata = ed;
    rc = dp_dataset_write_meta(out, &m);
out:
    free(src);
    free(dst);
    free(indptr);
    free(indices);
    free(eids);
    free(pfeat);
    free(wcount);
    free(weight);
out0:
    if (opened > 2)
        dp_npy_release(&f);
    if (opened > 1)
        dp_npy_release(&d);
    if (opened > 0)
        dp_npy_release(&s);
    free(sp);
    free(dp);
    free(fp);
    return rc;
}

int main(int argc, char **argv)
{
    int rc;

    dp_set_progname("mkdataset");
    if (argc == 4 && !strcmp(argv[1], "--typed-cora")) {
        rc = build_typed(argv[2], argv[3]);
    } else if (argc == 3) {
        rc = build(argv[1], argv[2]);
    } else {
        fprintf(stderr, "usage: mkdataset [--typed-cora] INPUT_DIR "
                        "OUTPUT_DIR\n");
        return 2;
    }
    if (rc) {
        dp_report(rc);
        return 1;
    }
    return 0;
}
