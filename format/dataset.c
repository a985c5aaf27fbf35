/* The converted dataset folder: meta.json through cJSON, arrays through the
 * npy module, with every shape checked before partition trusts it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

void dp_dataset_meta_release(struct dp_dataset_meta *m)
{
    int i;

    free(m->name);
    free(m->source_format);
    for (i = 0; i < m->ninputs; i++)
        free(m->inputs[i].path);
    free(m->inputs);
    memset(m, 0, sizeof(*m));
}

int dp_dataset_write_meta(const char *dir, const struct dp_dataset_meta *m)
{
    cJSON *root = cJSON_CreateObject(), *splits, *inputs;
    char *text = NULL, *path = NULL;
    int i, rc = DP_ENOMEM;

    if (!root)
        goto out;
    cJSON_AddStringToObject(root, "format", DP_DATASET_FORMAT);
    cJSON_AddNumberToObject(root, "version", DP_DATASET_VERSION);
    cJSON_AddStringToObject(root, "name", m->name ? m->name : "graph");
    cJSON_AddStringToObject(root, "source_format",
                            m->source_format ? m->source_format : "");
    cJSON_AddNumberToObject(root, "num_nodes", (double)m->num_nodes);
    cJSON_AddNumberToObject(root, "num_edges", (double)m->num_edges);
    cJSON_AddBoolToObject(root, "directed", m->directed);
    cJSON_AddNumberToObject(root, "feat_dim", (double)m->feat_dim);
    cJSON_AddNumberToObject(root, "num_classes", (double)m->num_classes);
    splits = cJSON_AddArrayToObject(root, "splits");
    if (m->has_train)
        cJSON_AddItemToArray(splits, cJSON_CreateString("train"));
    if (m->has_val)
        cJSON_AddItemToArray(splits, cJSON_CreateString("val"));
    if (m->has_test)
        cJSON_AddItemToArray(splits, cJSON_CreateString("test"));
    cJSON_AddNumberToObject(root, "node_weights", (double)m->ncon);
    cJSON_AddBoolToObject(root, "edge_weight", m->has_edge_weight);
    inputs = cJSON_AddArrayToObject(root, "inputs");
    for (i = 0; i < m->ninputs; i++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddStringToObject(o, "path", m->inputs[i].path);
        cJSON_AddNumberToObject(o, "size", (double)m->inputs[i].size);
        cJSON_AddStringToObject(o, "sha256", m->inputs[i].sha256);
        cJSON_AddItemToArray(inputs, o);
    }
    text = cJSON_Print(root);
    path = dp_path_join(dir, "meta.json");
    if (!text || !path)
        goto out;
    rc = dp_write_file(path, text, strlen(text));
out:
    if (rc == DP_ENOMEM && !text)
        dp_error(rc, "out of memory writing meta.json");
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

static int get_i64(const cJSON *root, const char *path, const char *key,
                   int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);

    if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
        v->valuedouble > 9.007199254740992e15)
        return dp_error(DP_EFORMAT,
                        "'%s': expected a non-negative integer "
                        "\"%s\"",
                        path, key);
    *out = (int64_t)v->valuedouble;
    return 0;
}

static char *get_str(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);

    return dp_strdup(cJSON_IsString(v) ? v->valuestring : "");
}

int dp_dataset_read_meta(const char *dir, struct dp_dataset_meta *out)
{
    struct dp_dataset_meta m;
    char *path = dp_path_join(dir, "meta.json"), *text = NULL;
    const cJSON *v, *it;
    cJSON *root = NULL;
    size_t len;
    int rc;

    memset(&m, 0, sizeof(m));
    if (!path)
        return DP_ENOMEM;
    rc = dp_read_file(path, 16 << 20, &text, &len);
    if (rc)
        goto out;
    root = cJSON_Parse(text);
    if (!root) {
        rc = dp_error(DP_EFORMAT, "'%s': not valid JSON", path);
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, DP_DATASET_FORMAT)) {
        rc = dp_error(DP_EFORMAT, "'%s': expected \"format\": \"%s\"", path,
                      DP_DATASET_FORMAT);
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!cJSON_IsNumber(v) || v->valueint != DP_DATASET_VERSION) {
        rc = dp_error(DP_EFORMAT, "'%s': unsupported version (expected %d)",
                      path, DP_DATASET_VERSION);
        goto out;
    }
    if ((rc = get_i64(root, path, "num_nodes", &m.num_nodes)) ||
        (rc = get_i64(root, path, "num_edges", &m.num_edges)) ||
        (rc = get_i64(root, path, "feat_dim", &m.feat_dim)) ||
        (rc = get_i64(root, path, "num_classes", &m.num_classes)) ||
        (rc = get_i64(root, path, "node_weights", &m.ncon)))
        goto out;
    m.directed =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "directed"));
    m.has_edge_weight =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "edge_weight"));
    m.name = get_str(root, "name");
    m.source_format = get_str(root, "source_format");
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "splits"))
    {
        if (!cJSON_IsString(it))
            continue;
        m.has_train |= !strcmp(it->valuestring, "train");
        m.has_val |= !strcmp(it->valuestring, "val");
        m.has_test |= !strcmp(it->valuestring, "test");
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "inputs");
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0) {
        int n = cJSON_GetArraySize(v), i = 0;

        m.inputs = dp_calloc((size_t)n, sizeof(*m.inputs));
        if (!m.inputs) {
            rc = DP_ENOMEM;
            goto out;
        }
        cJSON_ArrayForEach(it, v)
        {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "sha256");
            const cJSON *z = cJSON_GetObjectItemCaseSensitive(it, "size");

            m.inputs[i].path = get_str(it, "path");
            if (cJSON_IsString(s) && strlen(s->valuestring) == 64)
                memcpy(m.inputs[i].sha256, s->valuestring, 65);
            /* a double outside [0, 2^64) has no uint64 value (the cast
             * is undefined): the size stays unknown */
            if (cJSON_IsNumber(z) && z->valuedouble >= 0 &&
                z->valuedouble < 18446744073709551616.0)
                m.inputs[i].size = (uint64_t)z->valuedouble;
            i++;
        }
        m.ninputs = n;
    }
    if (!m.name || !m.source_format) {
        rc = DP_ENOMEM;
        goto out;
    }
    *out = m;
    memset(&m, 0, sizeof(m));
out:
    dp_dataset_meta_release(&m);
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

/* Map DIR/name and check it; absent optional arrays leave a->data NULL. */
static int open_array(const char *dir, const char *name, int required,
                      enum dp_dtype dtype, int ndim, const int64_t *shape,
                      struct dp_npy *a)
{
    char *path = dp_path_join(dir, name);
    int rc;

    memset(a, 0, sizeof(*a));
    if (!path)
        return DP_ENOMEM;
    if (!required && !dp_exists(path)) {
        free(path);
        return 0;
    }
    rc = dp_npy_open(a, path);
    if (rc == DP_ENOENT)
        rc = dp_error(DP_ENOENT, "'%s' is missing (meta.json lists it)", path);
    if (!rc) {
        rc = dp_npy_expect(a, path, 1, &dtype, ndim, shape);
        if (rc)
            dp_npy_release(a);
    }
    free(path);
    return rc;
}

void dp_dataset_release(struct dp_dataset *d)
{
    dp_npy_release(&d->indptr);
    dp_npy_release(&d->indices);
    dp_npy_release(&d->eids);
    dp_npy_release(&d->feat);
    dp_npy_release(&d->label);
    dp_npy_release(&d->train_mask);
    dp_npy_release(&d->val_mask);
    dp_npy_release(&d->test_mask);
    dp_npy_release(&d->node_weight);
    dp_npy_release(&d->edge_weight);
    dp_dataset_meta_release(&d->meta);
    free(d->dir);
    d->dir = NULL;
}

static int check_csc(const struct dp_dataset *d)
{
    const int64_t *ip = dp_dataset_indptr(d), *ix = dp_dataset_indices(d);
    const int64_t *eid = dp_dataset_eids(d);
    int64_t n = d->meta.num_nodes, e = d->meta.num_edges, i;

    if (ip[0] != 0 || ip[n] != e)
        return dp_error(DP_EFORMAT,
                        "'%s/indptr.npy': must start at 0 and end "
                        "at num_edges %" PRId64,
                        d->dir, e);
    for (i = 0; i < n; i++)
        if (ip[i + 1] < ip[i])
            return dp_error(DP_EFORMAT,
                            "'%s/indptr.npy': decreases at entry %" PRId64,
                            d->dir, i + 1);
    for (i = 0; i < e; i++) {
        if (ix[i] < 0 || ix[i] >= n)
            return dp_error(DP_EFORMAT,
                            "'%s/indices.npy': entry %" PRId64 " = %" PRId64
                            " out of range [0, %" PRId64 ")",
                            d->dir, i, ix[i], n);
        if (eid[i] < 0 || eid[i] >= e)
            return dp_error(DP_EFORMAT,
                            "'%s/eids.npy': entry %" PRId64 " = %" PRId64
                            " out of range [0, %" PRId64 ")",
                            d->dir, i, eid[i], e);
    }
    return 0;
}

int dp_dataset_open(struct dp_dataset *d, const char *dir)
{
    int64_t n, e, s1[1], s2[2];
    int rc;

    memset(d, 0, sizeof(*d));
    if (!dp_is_dir(dir))
        return dp_error(DP_ENOENT, "'%s' is not a dataset folder", dir);
    d->dir = dp_strdup(dir);
    if (!d->dir)
        return DP_ENOMEM;
    rc = dp_dataset_read_meta(dir, &d->meta);
    if (rc)
        goto fail;
    n = d->meta.num_nodes;
    e = d->meta.num_edges;
    s1[0] = n + 1;
    if ((rc = open_array(dir, "indptr.npy", 1, DP_I64, 1, s1, &d->indptr)))
        goto fail;
    s1[0] = e;
    if ((rc = open_array(dir, "indices.npy", 1, DP_I64, 1, s1, &d->indices)) ||
        (rc = open_array(dir, "eids.npy", 1, DP_I64, 1, s1, &d->eids)))
        goto fail;
    s2[0] = n;
    s2[1] = d->meta.feat_dim;
    if (d->meta.feat_dim &&
        (rc = open_array(dir, "feat.npy", 1, DP_F32, 2, s2, &d->feat)))
        goto fail;
    s1[0] = n;
    if (d->meta.num_classes &&
        (rc = open_array(dir, "label.npy", 1, DP_I64, 1, s1, &d->label)))
        goto fail;
    if ((d->meta.has_train && (rc = open_array(dir, "train_mask.npy", 1, DP_U8,
                                               1, s1, &d->train_mask))) ||
        (d->meta.has_val && (rc = open_array(dir, "val_mask.npy", 1, DP_U8, 1,
                                             s1, &d->val_mask))) ||
        (d->meta.has_test && (rc = open_array(dir, "test_mask.npy", 1, DP_U8, 1,
                                              s1, &d->test_mask))))
        goto fail;
    s2[1] = d->meta.ncon;
    if (d->meta.ncon && (rc = open_array(dir, "node_weight.npy", 1, DP_I64, 2,
                                         s2, &d->node_weight)))
        goto fail;
    s1[0] = e;
    if (d->meta.has_edge_weight &&
        (rc = open_array(dir, "edge_weight.npy", 1, DP_I64, 1, s1,
                         &d->edge_weight)))
        goto fail;
    rc = check_csc(d);
    if (rc)
        goto fail;
    return 0;
fail:
    dp_dataset_release(d);
    return rc;
}

int dp_dataset_open_feat(struct dp_dataset *d)
{
    struct dp_dataset_meta m;
    int64_t s2[2];
    int rc;

    if (d->feat.data)
        return 0;
    if ((rc = dp_dataset_read_meta(d->dir, &m)))
        return rc;
    s2[0] = d->meta.num_nodes;
    s2[1] = m.feat_dim;
    if (m.feat_dim &&
        !(rc = open_array(d->dir, "feat.npy", 1, DP_F32, 2, s2, &d->feat)))
        d->meta.feat_dim = m.feat_dim;
    dp_dataset_meta_release(&m);
    return rc;
}
