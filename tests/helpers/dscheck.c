/* Test helper for the convert stage:
 *   dscheck open DIR           open a dataset folder with dp_dataset_open
 *                              and print "nodes N edges E feat D classes C"
 *   dscheck coo DIR OUT        write OUT/src.npy, OUT/dst.npy (int64, by
 *                              edge id) from the CSC, to compare with inputs
 *   dscheck npycmp A B         same dtype, shape and data bytes (headers
 *                              may differ in padding)
 *   dscheck stack A B OUT      int64 [2, E] from two int arrays [E]
 *   dscheck types T V S OUT    int64 node_types (1/2/3) from three masks
 *   dscheck flabel L OUT       float32 [N, 1] labels, NaN for every 7th
 *   dscheck f64 A OUT          float64 copy of a float32 2-D array
 *   dscheck ints OUT V...      int64 [n] of the given values */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
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
    printf("nodes %" PRId64 " edges %" PRId64 " feat %" PRId64
           " classes %" PRId64 " ncon %" PRId64
           " ew %d splits %d%d%d directed %d\n",
           d.meta.num_nodes, d.meta.num_edges, d.meta.feat_dim,
           d.meta.num_classes, d.meta.ncon, d.meta.has_edge_weight,
           d.meta.has_train, d.meta.has_val, d.meta.has_test, d.meta.directed);
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
    src = dp_calloc((size_t)e + 1, 8);
    dst = dp_calloc((size_t)e + 1, 8);
    if (!src || !dst) {
        free(src);
        free(dst);
        dp_dataset_release(&d);
        dp_report(DP_ENOMEM);
        return 1;
    }
    for (v = 0; v < d.meta.num_nodes; v++)
        for (i = dp_dataset_indptr(&d)[v]; i < dp_dataset_indptr(&d)[v + 1];
             i++) {
            src[dp_dataset_eid(&d, i)] = dp_dataset_src(&d, i);
            dst[dp_dataset_eid(&d, i)] = v;
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

static int open3(struct dp_npy *a, char **paths, int n)
{
    int i, rc;

    for (i = 0; i < n; i++)
        if ((rc = dp_npy_open(&a[i], paths[i]))) {
            dp_report(rc);
            while (i-- > 0)
                dp_npy_release(&a[i]);
            return 1;
        }
    return 0;
}

static int cmd_make(const char *what, char **in, int nin, const char *out)
{
    struct dp_npy a[3];
    int64_t n, i, shape[2];
    void *buf;
    int rc;

    if (open3(a, in, nin))
        return 1;
    n = (int64_t)a[0].h.count;
    buf = dp_calloc((size_t)n * 2 + 1, 8);
    if (!buf) {
        rc = DP_ENOMEM;
    } else if (!strcmp(what, "stack")) {
        for (i = 0; i < n; i++) {
            ((int64_t *)buf)[i] = dp_npy_get_i64(&a[0], (uint64_t)i);
            ((int64_t *)buf)[n + i] = dp_npy_get_i64(&a[1], (uint64_t)i);
        }
        shape[0] = 2;
        shape[1] = n;
        rc = dp_npy_write(out, DP_I64, 2, shape, buf);
    } else if (!strcmp(what, "types")) {
        for (i = 0; i < n; i++)
            ((int64_t *)buf)[i] = dp_npy_get_i64(&a[0], (uint64_t)i)   ? 1
                                  : dp_npy_get_i64(&a[1], (uint64_t)i) ? 2
                                  : dp_npy_get_i64(&a[2], (uint64_t)i) ? 3
                                                                       : 0;
        rc = dp_npy_write(out, DP_I64, 1, &n, buf);
    } else if (!strcmp(what, "flabel")) {
        for (i = 0; i < n; i++)
            ((float *)buf)[i] =
                i % 7 ? (float)dp_npy_get_i64(&a[0], (uint64_t)i) : (float)NAN;
        shape[0] = n;
        shape[1] = 1;
        rc = dp_npy_write(out, DP_F32, 2, shape, buf);
    } else {
        free(buf);
        buf = dp_calloc(a[0].h.count + 1, 8);
        for (i = 0; buf && i < (int64_t)a[0].h.count; i++)
            ((double *)buf)[i] = ((const float *)a[0].data)[i];
        rc = buf ? dp_npy_write(out, DP_F64, 2, a[0].h.shape, buf) : DP_ENOMEM;
    }
    free(buf);
    for (i = 0; i < nin; i++)
        dp_npy_release(&a[i]);
    dp_report(rc);
    return rc ? 1 : 0;
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
    if (argc >= 4 && !strcmp(argv[1], "ints")) {
        int64_t v[16], n = 0;

        for (n = 0; n < argc - 3 && n < 16; n++)
            v[n] = strtoll(argv[3 + n], NULL, 10);
        return dp_npy_write(argv[2], DP_I64, 1, &n, v) ? 1 : 0;
    }
    if (argc == 5 && !strcmp(argv[1], "stack"))
        return cmd_make("stack", argv + 2, 2, argv[4]);
    if (argc == 6 && !strcmp(argv[1], "types"))
        return cmd_make("types", argv + 2, 3, argv[5]);
    if (argc == 4 && (!strcmp(argv[1], "flabel") || !strcmp(argv[1], "f64")))
        return cmd_make(argv[1], argv + 2, 1, argv[3]);
    fprintf(stderr,
            "usage: dscheck open DIR | coo DIR OUT | npycmp A B | "
            "stack A B OUT | types T V S OUT | flabel L OUT | f64 A OUT\n");
    return 2;
}
