/* Test and bench helper: write a converted dataset folder (dataset.h) as
 * DGL's chunked graph format, K chunks per type: metadata.json, edges as
 * "src dst" csv chunks of per-type ids in input edge order, node and edge
 * data as .npy chunks. An untyped dataset becomes node type _N and edge
 * type _N:_E:_N with its feat, label and masks, as DGL names them.
 * usage: mkchunked DATASET_DIR OUT_DIR K */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"

static int64_t chunk_lo(int64_t n, int k, int K)
{
    return n * k / K;
}

/* {"format": {...}, "data": [files]} */
static cJSON *file_list(const char *fmt, char **files, int K)
{
    cJSON *o = cJSON_CreateObject(), *f = cJSON_CreateObject();
    int k;

    cJSON_AddStringToObject(f, "name", fmt);
    if (!strcmp(fmt, "csv"))
        cJSON_AddStringToObject(f, "delimiter", " ");
    cJSON_AddItemToObject(o, "format", f);
    cJSON_AddItemToObject(o, "data", cJSON_CreateArray());
    for (k = 0; k < K; k++)
        cJSON_AddItemToArray(cJSON_GetObjectItem(o, "data"),
                             cJSON_CreateString(files[k]));
    return o;
}

static cJSON *sizes(int64_t n, int K)
{
    cJSON *a = cJSON_CreateArray();
    int k;

    for (k = 0; k < K; k++)
        cJSON_AddItemToArray(a,
                             cJSON_CreateNumber((double)(chunk_lo(n, k + 1, K) -
                                                         chunk_lo(n, k, K))));
    return a;
}

/* Array a (rows the type's) as K chunks out/data/TAG-k.npy; the list of
 * names goes under parent[name]. */
static int data_chunks(const char *out, const char *tag, const struct dp_npy *a,
                       int K, cJSON *parent, const char *name)
{
    size_t row = dp_dtype_size(a->h.dtype);
    char rel[512], *path, *files[256];
    int64_t shape[DP_NPY_MAXDIM];
    int k, j, rc = 0;

    for (j = 1; j < a->h.ndim; j++)
        row *= (size_t)a->h.shape[j];
    memcpy(shape, a->h.shape, sizeof(shape));
    for (k = 0; k < K && !rc; k++) {
        int64_t lo = chunk_lo(a->h.shape[0], k, K);

        shape[0] = chunk_lo(a->h.shape[0], k + 1, K) - lo;
        snprintf(rel, sizeof(rel), "data/%s-%s-%d.npy", tag, name, k);
        if (!(path = dp_path_join(out, rel)) || !(files[k] = dp_strdup(rel)))
            return DP_ENOMEM;
        rc = dp_npy_write(path, a->h.dtype, a->h.ndim, shape,
                          (const char *)a->data + (size_t)lo * row);
        free(path);
    }
    if (!rc)
        cJSON_AddItemToObject(parent, name, file_list("numpy", files, K));
    while (k-- > 0)
        free(files[k]);
    return rc;
}

static int run(const char *in, const char *out, int K)
{
    static const char *const plain[] = { "feat", "label", "train_mask",
                                         "val_mask", "test_mask" };
    struct dp_dataset d;
    const struct dp_dataset_meta *m = &d.meta;
    const struct dp_npy *top[5];
    int64_t E, v, k, *src = NULL, *dst = NULL, *noff = NULL;
    int typed, nt, et, t, i, rc;
    cJSON *root = cJSON_CreateObject(), *o, *nd, *ed;
    char *text = NULL, *path = NULL;

    if ((rc = dp_dataset_open(&d, in)))
        return rc;
    typed = m->num_ntypes > 0;
    nt = typed ? m->num_ntypes : 1;
    et = typed ? m->num_etypes : 1;
    E = m->num_edges;
    if (m->no_eids) {
        rc = dp_error(DP_EINVAL, "'%s' has no eids.npy", in);
        goto out;
    }
    src = dp_malloc_array((size_t)E + 1, sizeof(*src));
    dst = dp_malloc_array((size_t)E + 1, sizeof(*dst));
    noff = dp_calloc((size_t)nt + 1, sizeof(*noff));
    if (!src || !dst || !noff) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (v = 0; v < m->num_nodes; v++)
        for (k = dp_dataset_indptr(&d)[v]; k < dp_dataset_indptr(&d)[v + 1];
             k++) {
            src[dp_dataset_eid(&d, k)] = dp_dataset_src(&d, k);
            dst[dp_dataset_eid(&d, k)] = v;
        }
    {
        char *ed_dir = dp_path_join(out, "edges"),
             *dd_dir = dp_path_join(out, "data");

        rc = !ed_dir || !dd_dir ? DP_ENOMEM : dp_mkdir_p(ed_dir, 0755);
        if (!rc)
            rc = dp_mkdir_p(dd_dir, 0755);
        free(ed_dir);
        free(dd_dir);
        if (rc)
            goto out;
    }
    cJSON_AddStringToObject(root, "graph_name", m->name);
    o = cJSON_AddArrayToObject(root, "node_type");
    for (t = 0; t < nt; t++)
        cJSON_AddItemToArray(
            o, cJSON_CreateString(typed ? m->ntypes[t].name : "_N"));
    o = cJSON_AddArrayToObject(root, "num_nodes_per_chunk");
    for (t = 0; t < nt; t++) {
        int64_t c = typed ? m->ntypes[t].count : m->num_nodes;

        noff[t + 1] = noff[t] + c;
        cJSON_AddItemToArray(o, sizes(c, K));
    }
    o = cJSON_AddArrayToObject(root, "edge_type");
    for (t = 0; t < et; t++)
        cJSON_AddItemToArray(
            o, cJSON_CreateString(typed ? m->etypes[t].name : "_N:_E:_N"));
    o = cJSON_AddArrayToObject(root, "num_edges_per_chunk");
    ed = cJSON_AddObjectToObject(root, "edges");
    for (t = 0, v = 0; t < et; t++) {
        int64_t c = typed ? m->etypes[t].count : E;
        int s = typed ? m->etypes[t].src : 0, ds = typed ? m->etypes[t].dst : 0;
        char *files[256], rel[64];

        cJSON_AddItemToArray(o, sizes(c, K));
        for (i = 0; i < K && !rc; i++) {
            FILE *f;

            snprintf(rel, sizeof(rel), "edges/e%d-%d.csv", t, i);
            files[i] = dp_strdup(rel);
            path = dp_path_join(out, rel);
            if (!files[i] || !path || !(f = fopen(path, "w"))) {
                rc = dp_error(DP_EIO, "cannot write '%s'", rel);
                break;
            }
            for (k = v + chunk_lo(c, i, K); k < v + chunk_lo(c, i + 1, K); k++)
                fprintf(f, "%" PRId64 " %" PRId64 "\n", src[k] - noff[s],
                        dst[k] - noff[ds]);
            if (fclose(f))
                rc = dp_error(DP_EIO, "cannot write '%s'", rel);
            free(path);
            path = NULL;
        }
        if (!rc)
            cJSON_AddItemToObject(ed, typed ? m->etypes[t].name : "_N:_E:_N",
                                  file_list("csv", files, K));
        while (i-- > 0)
            free(files[i]);
        if (rc)
            goto out;
        v += c;
    }
    nd = cJSON_AddObjectToObject(root, "node_data");
    if (!typed) {
        cJSON *n = cJSON_AddObjectToObject(nd, "_N");

        top[0] = &d.feat;
        top[1] = &d.label;
        top[2] = &d.train_mask;
        top[3] = &d.val_mask;
        top[4] = &d.test_mask;
        for (i = 0; i < 5 && !rc; i++)
            if (top[i]->data)
                rc = data_chunks(out, "_N", top[i], K, n, plain[i]);
    }
    for (i = 0; typed && i < m->num_ndata && !rc; i++) {
        const char *tn = m->ntypes[m->ndata[i].type].name;
        cJSON *n = cJSON_GetObjectItem(nd, tn);

        if (!n)
            n = cJSON_AddObjectToObject(nd, tn);
        rc = data_chunks(out, tn, &d.ndata[i], K, n, m->ndata[i].name);
    }
    ed = cJSON_AddObjectToObject(root, "edge_data");
    for (i = 0; typed && i < m->num_edata && !rc; i++) {
        const char *tn = m->etypes[m->edata[i].type].name;
        char tag[256];
        cJSON *n = cJSON_GetObjectItem(ed, tn);

        if (!n)
            n = cJSON_AddObjectToObject(ed, tn);
        snprintf(tag, sizeof(tag), "e%d", m->edata[i].type);
        rc = data_chunks(out, tag, &d.edata[i], K, n, m->edata[i].name);
    }
    if (rc)
        goto out;
    text = cJSON_Print(root);
    path = dp_path_join(out, "metadata.json");
    rc = !text || !path ? DP_ENOMEM : dp_write_file(path, text, strlen(text));
out:
    cJSON_Delete(root);
    free(text);
    free(path);
    free(src);
    free(dst);
    free(noff);
    dp_dataset_release(&d);
    return rc;
}

int main(int argc, char **argv)
{
    int K = argc == 4 ? atoi(argv[3]) : 0;

    if (K < 1 || K > 256) {
        fprintf(stderr, "usage: mkchunked DATASET_DIR OUT_DIR K (1-256)\n");
        return 2;
    }
    if (dp_mkdir_p(argv[2], 0755) || run(argv[1], argv[2], K)) {
        fprintf(stderr, "mkchunked: %s\n", dp_errmsg());
        return 1;
    }
    return 0;
}
