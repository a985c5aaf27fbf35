/* Test helper for the convert stage:
 *   dscheck open DIR           open a dataset folder with dp_dataset_open
 *                              and print "nodes N edges E feat D classes C"
 *   dscheck coo DIR OUT        write OUT/src.npy, OUT/dst.npy (int64, by
 *                              edge id) from the CSC, to compare with inputs
 *   dscheck npycmp A B         same dtype, shape and data bytes (headers
 *                              may differ in padding) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

static int cmd_open(const char *dir)
{
    struct dp_dataset d;
    int rc = dp_dataset_open(&d, dir);

    if (rc) {
        dp_report(rc);
        return 1;
    }
    printf("nodes %" PRId64 " edges %" PRId64 " feat %" PRId64 " classes %"
           PRId64 " ncon %" PRId64 " ew %d splits %d%d%d directed %d\n",
           d.meta.num_nodes, d.meta.num_edges, d.meta.feat_dim,
           d.meta.num_classes, d.meta.ncon, d.meta.has_edge_weight,
           d.meta.has_train, d.meta.has_val, d.meta.has_test,
           d.meta.directed);
    dp_dataset_release(&d);
    return 0;
}

static int cmd_coo(const char *dir, const char *out)
{
    struct dp_dataset d;
    int64_t *src, *dst, v, i, e;
    char path[4096];
    int rc = dp_dataset_open(&d, dir);

    if (rc) {
        dp_report(rc);
        return 1;
    }
    e = d.meta.num_edges;
    src = calloc((size_t)e + 1, 8);
    dst = calloc((size_t)e + 1, 8);
    for (v = 0; v < d.meta.num_nodes; v++)
        for (i = dp_dataset_indptr(&d)[v]; i < dp_dataset_indptr(&d)[v + 1];
             i++) {
            src[dp_dataset_eids(&d)[i]] = dp_dataset_indices(&d)[i];
            dst[dp_dataset_eids(&d)[i]] = v;
        }
    snprintf(path, sizeof(path), "%s/src.npy", out);
    rc = dp_npy_write(path, DP_I64, 1, &e, src);
    snprintf(path, sizeof(path), "%s/dst.npy", out);
    if (!rc)
        rc = dp_npy_write(path, DP_I64, 1, &e, dst);
    free(src);
    free(dst);
    dp_dataset_release(&d);
    dp_report(rc);
    return rc ? 1 : 0;
}

static int cmd_npycmp(const char *a, const char *b)
{
    struct dp_npy x, y;
    int rc = dp_npy_open(&x, a), same;

    if (rc || (rc = dp_npy_open(&y, b))) {
        dp_report(rc);
        return 1;
    }
    same = x.h.dtype == y.h.dtype && x.h.ndim == y.h.ndim &&
           !memcmp(x.h.shape, y.h.shape, sizeof(x.h.shape)) &&
           !memcmp(x.data, y.data, x.h.count * dp_dtype_size(x.h.dtype));
    if (!same)
        fprintf(stderr, "dscheck: '%s' and '%s' differ\n", a, b);
    dp_npy_release(&x);
    dp_npy_release(&y);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    dp_set_progname("dscheck");
    if (argc == 3 && !strcmp(argv[1], "open"))
        return cmd_open(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "coo"))
        return cmd_coo(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "npycmp"))
        return cmd_npycmp(argv[2], argv[3]);
    fprintf(stderr, "usage: dscheck open DIR | coo DIR OUT | npycmp A B\n");
    return 2;
}
