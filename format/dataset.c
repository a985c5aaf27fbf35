/* The converted dataset folder: meta.json through cJSON, arrays through the
 * npy module, with every shape checked before partition trusts it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dataset.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/ids.h"
#include "dglpart/thread.h"

void dp_dataset_meta_release(struct dp_dataset_meta *m)
{
    int i;

    free(m->name);
    free(m->source_format);
    for (i = 0; i < m->ninputs; i++)
        free(m->inputs[i].path);
    free(m->inputs);
    for (i = 0; i < m->num_ntypes; i++)
        free(m->ntypes[i].name);
    for (i = 0; i < m->num_etypes; i++)
        free(m->etypes[i].name);
    free(m->ntypes);
    free(m->etypes);
    for (i = 0; i < m->num_ndata + m->num_edata; i++) {
        struct dp_dataset_data *x =
            i < m->num_ndata ? &m->ndata[i] : &m->edata[i - m->num_ndata];
        int k;

        free(x->name);
        for (k = 0; k < x->nchunks; k++)
            free(x->chunks[k]);
        free(x->chunks);
    }
    free(m->ndata);
    free(m->edata);
    memset(m, 0, sizeof(*m));
}

int dp_dataset_find_ntype(const struct dp_dataset_meta *m, const char *name)
{
    int i;

    for (i = 0; i < m->num_ntypes; i++)
        if (!strcmp(m->ntypes[i].name, name))
            return i;
    return -1;
}

int dp_dataset_find_etype(const struct dp_dataset_meta *m, const char *name)
{
    int i, found = -1;

    for (i = 0; i < m->num_etypes; i++)
        if (!strcmp(m->etypes[i].name, name))
            return i;
    /* a bare relation name, when no other edge type shares it */
    for (i = 0; i < m->num_etypes; i++) {
        const char *a = strchr(m->etypes[i].name, ':');
        const char *b = a ? strchr(a + 1, ':') : NULL;

        if (b && (size_t)(b - a - 1) == strlen(name) &&
            !strncmp(a + 1, name, (size_t)(b - a - 1))) {
            if (found >= 0)
                return -1;
            found = i;
        }
    }
    return found;
}

int dp_dataset_set_types(struct dp_dataset_meta *m, const char *what)
{
    int64_t off = 0;
    int i;

    if (m->num_ntypes < 1 || m->num_etypes < 1)
        return dp_error(DP_EFORMAT,
                        "'%s': a typed graph needs at least one "
                        "node type and one edge type",
                        what);
    for (i = 0; i < m->num_ntypes; i++) {
        if (!m->ntypes[i].name[0] || strchr(m->ntypes[i].name, ':') ||
            strchr(m->ntypes[i].name, '/'))
            return dp_error(DP_EFORMAT,
                            "'%s': node type %d: expected a "
                            "non-empty name without ':' or '/'",
                            what, i);
        if (dp_dataset_find_ntype(m, m->ntypes[i].name) != i)
            return dp_error(DP_EFORMAT, "'%s': node type '%s' appears twice",
                            what, m->ntypes[i].name);
        m->ntypes[i].offset = off;
        if (m->ntypes[i].count < 0 || m->ntypes[i].count > INT64_MAX - off)
            return dp_error(DP_EFORMAT, "'%s': node type '%s': bad count", what,
                            m->ntypes[i].name);
        off += m->ntypes[i].count;
    }
    if (off != m->num_nodes)
        return dp_error(DP_EFORMAT,
                        "'%s': node type counts add up to %" PRId64
                        ", expected num_nodes %" PRId64,
                        what, off, m->num_nodes);
    off = 0;
    for (i = 0; i < m->num_etypes; i++) {
        struct dp_dataset_type *t = &m->etypes[i];
        const char *a = strchr(t->name, ':');
        const char *b = a ? strchr(a + 1, ':') : NULL;
        char src[256], dst[256];

        if (!a || !b || strchr(b + 1, ':') || a == t->name || b == a + 1 ||
            !b[1] || strchr(t->name, '/') ||
            (size_t)(a - t->name) >= sizeof(src) ||
            strlen(b + 1) >= sizeof(dst))
            return dp_error(DP_EFORMAT,
                            "'%s': edge type '%s': expected "
                            "\"src:relation:dst\"",
                            what, t->name);
        memcpy(src, t->name, (size_t)(a - t->name));
        src[a - t->name] = 0;
        strcpy(dst, b + 1);
        t->src = dp_dataset_find_ntype(m, src);
        t->dst = dp_dataset_find_ntype(m, dst);
        if (t->src < 0 || t->dst < 0)
            return dp_error(DP_EFORMAT,
                            "'%s': edge type '%s' names a node "
                            "type that is not in \"ntypes\"",
                            what, t->name);
        if (dp_dataset_find_etype(m, t->name) != i)
            return dp_error(DP_EFORMAT, "'%s': edge type '%s' appears twice",
                            what, t->name);
        t->offset = off;
        if (t->count < 0 || t->count > INT64_MAX - off)
            return dp_error(DP_EFORMAT, "'%s': edge type '%s': bad count", what,
                            t->name);
        off += t->count;
    }
    if (off != m->num_edges)
        return dp_error(DP_EFORMAT,
                        "'%s': edge type counts add up to %" PRId64
                        ", expected num_edges %" PRId64,
                        what, off, m->num_edges);
    return 0;
}

char *dp_dataset_data_path(const struct dp_dataset_meta *m, int edge,
                           const struct dp_dataset_data *x)
{
    const struct dp_dataset_type *t =
        edge ? &m->etypes[x->type] : &m->ntypes[x->type];

    struct dp_buf b;

    dp_buf_init(&b, 0);
    if (dp_buf_addf(&b, "%s/%s/%s.npy", edge ? "edata" : "ndata", t->name,
                    x->name)) {
        dp_buf_release(&b);
        return NULL;
    }
    return dp_buf_detach(&b, NULL);
}

static int add_types(cJSON *root, const struct dp_dataset_meta *m)
{
    cJSON *nt = cJSON_AddArrayToObject(root, "ntypes");
    cJSON *et = cJSON_AddArrayToObject(root, "etypes");
    cJSON *nd = cJSON_AddArrayToObject(root, "node_data");
    cJSON *ed = cJSON_AddArrayToObject(root, "edge_data");
    int i;

    if (!nt || !et || !nd || !ed)
        return DP_ENOMEM;
    for (i = 0; i < m->num_ntypes + m->num_etypes; i++) {
        const struct dp_dataset_type *t =
            i < m->num_ntypes ? &m->ntypes[i] : &m->etypes[i - m->num_ntypes];
        cJSON *o = cJSON_CreateObject();

        if (!o)
            return DP_ENOMEM;
        cJSON_AddStringToObject(o, "name", t->name);
        cJSON_AddNumberToObject(
            o, i < m->num_ntypes ? "num_nodes" : "num_edges", (double)t->count);
        cJSON_AddItemToArray(i < m->num_ntypes ? nt : et, o);
    }
    for (i = 0; i < m->num_ndata + m->num_edata; i++) {
        int edge = i >= m->num_ndata;
        const struct dp_dataset_data *x =
            edge ? &m->edata[i - m->num_ndata] : &m->ndata[i];
        cJSON *o = cJSON_CreateObject();

        if (!o)
            return DP_ENOMEM;
        cJSON_AddStringToObject(o, edge ? "etype" : "ntype",
                                edge ? m->etypes[x->type].name
                                     : m->ntypes[x->type].name);
        cJSON_AddStringToObject(o, "name", x->name);
        if (x->nchunks) {
            cJSON *l = cJSON_AddArrayToObject(o, "chunks");
            int k;

            for (k = 0; l && k < x->nchunks; k++)
                cJSON_AddItemToArray(l, cJSON_CreateString(x->chunks[k]));
        }
        cJSON_AddItemToArray(edge ? ed : nd, o);
    }
    return 0;
}

int dp_dataset_write_meta(const char *dir, const struct dp_dataset_meta *m)
{
    cJSON *root = cJSON_CreateObject(), *splits, *inputs;
    char *text = NULL, *path = NULL;
    int i, rc = DP_ENOMEM;

    if (!root)
        goto out;
    cJSON_AddStringToObject(root, "format", DP_DATASET_FORMAT);
    /* version 1 stays for what version 1 readers understand */
    cJSON_AddNumberToObject(root, "version",
                            m->num_ntypes || m->ids32 || m->no_eids
                                ? DP_DATASET_VERSION_TYPED
                                : DP_DATASET_VERSION);
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
        /* none for a scratch conversion (no_input_hash) */
        if (m->inputs[i].sha256[0])
            cJSON_AddStringToObject(o, "sha256", m->inputs[i].sha256);
        cJSON_AddItemToArray(inputs, o);
    }
    if (m->ids32)
        cJSON_AddStringToObject(root, "index_dtype", "int32");
    if (m->no_eids)
        cJSON_AddFalseToObject(root, "eids");
    if (m->num_ntypes && add_types(root, m))
        goto out;
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

/* "ntypes"/"etypes" lists of {"name", count key}. */
static int read_type_list(const cJSON *root, const char *path, const char *key,
                          const char *count_key, struct dp_dataset_type **out,
                          int *nout)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key), *it;
    int n = cJSON_GetArraySize(v), i = 0, rc;

    if (!cJSON_IsArray(v) || n < 1)
        return dp_error(DP_EFORMAT, "'%s': expected a non-empty list \"%s\"",
                        path, key);
    *out = dp_calloc((size_t)n, sizeof(**out));
    if (!*out)
        return DP_ENOMEM;
    *nout = n;
    cJSON_ArrayForEach(it, v)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");

        if (!cJSON_IsString(name))
            return dp_error(DP_EFORMAT,
                            "'%s': \"%s\" entry %d: expected a "
                            "string \"name\"",
                            path, key, i);
        if (!((*out)[i].name = dp_strdup(name->valuestring)))
            return DP_ENOMEM;
        if ((rc = get_i64(it, path, count_key, &(*out)[i].count)))
            return rc;
        i++;
    }
    return 0;
}

/* An entry's "chunks": absolute paths of the input's .npy files. */
static int read_chunks(const cJSON *it, const char *path, const char *key,
                       int i, struct dp_dataset_data *x)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(it, "chunks"), *c;
    int n = cJSON_GetArraySize(l);

    if (!l)
        return 0;
    if (!cJSON_IsArray(l) || !n)
        return dp_error(DP_EFORMAT,
                        "'%s': \"%s\" entry %d: expected a non-empty "
                        "list \"chunks\"",
                        path, key, i);
    if (!(x->chunks = dp_calloc((size_t)n, sizeof(*x->chunks))))
        return dp_error(DP_ENOMEM, "out of memory reading '%s'", path);
    cJSON_ArrayForEach(c, l)
    {
        if (!cJSON_IsString(c) || c->valuestring[0] != '/')
            return dp_error(DP_EFORMAT,
                            "'%s': \"%s\" entry %d: chunk %d: expected an "
                            "absolute path",
                            path, key, i, x->nchunks);
        if (!(x->chunks[x->nchunks] = dp_strdup(c->valuestring)))
            return dp_error(DP_ENOMEM, "out of memory reading '%s'", path);
        x->nchunks++;
    }
    return 0;
}

/* "node_data"/"edge_data" lists of {type key, "name", "chunks"?}. */
static int read_data_list(const cJSON *root, const char *path, int edge,
                          struct dp_dataset_meta *m)
{
    const char *key = edge ? "edge_data" : "node_data";
    const char *tkey = edge ? "etype" : "ntype";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key), *it;
    int n = cJSON_GetArraySize(v), i = 0, rc;
    struct dp_dataset_data *x;

    if (!v || !n)
        return 0;
    if (!cJSON_IsArray(v))
        return dp_error(DP_EFORMAT, "'%s': expected a list \"%s\"", path, key);
    x = dp_calloc((size_t)n, sizeof(*x));
    if (!x)
        return DP_ENOMEM;
    if (edge) {
        m->edata = x;
        m->num_edata = n;
    } else {
        m->ndata = x;
        m->num_ndata = n;
    }
    cJSON_ArrayForEach(it, v)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, tkey);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");

        x[i].type = !cJSON_IsString(t) ? -1
                    : edge ? dp_dataset_find_etype(m, t->valuestring)
                           : dp_dataset_find_ntype(m, t->valuestring);
        if (x[i].type < 0 || !cJSON_IsString(name) || !name->valuestring[0] ||
            strchr(name->valuestring, '/'))
            return dp_error(DP_EFORMAT,
                            "'%s': \"%s\" entry %d: expected a "
                            "known \"%s\" and a plain \"name\"",
                            path, key, i, tkey);
        if (!(x[i].name = dp_strdup(name->valuestring)))
            return DP_ENOMEM;
        if ((rc = read_chunks(it, path, key, i, &x[i])))
            return rc;
        i++;
    }
    return 0;
}

static int read_types(const cJSON *root, const char *path,
                      struct dp_dataset_meta *m)
{
    int rc;

    if ((rc = read_type_list(root, path, "ntypes", "num_nodes", &m->ntypes,
                             &m->num_ntypes)) ||
        (rc = read_type_list(root, path, "etypes", "num_edges", &m->etypes,
                             &m->num_etypes)) ||
        (rc = dp_dataset_set_types(m, path)) ||
        (rc = read_data_list(root, path, 0, m)) ||
        (rc = read_data_list(root, path, 1, m)))
        return rc;
    return 0;
}

int dp_dataset_read_meta(const char *dir, struct dp_dataset_meta *out)
{
    struct dp_dataset_meta m;
    char *path = dp_path_join(dir, "meta.json"), *text = NULL;
    const cJSON *v, *it;
    cJSON *root = NULL;
    size_t len;
    int rc, typed;

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
    if (!cJSON_IsNumber(v) || (v->valueint != DP_DATASET_VERSION &&
                               v->valueint != DP_DATASET_VERSION_TYPED)) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': unsupported version (expected %d "
                      "or %d)",
                      path, DP_DATASET_VERSION, DP_DATASET_VERSION_TYPED);
        goto out;
    }
    typed = v->valueint == DP_DATASET_VERSION_TYPED;
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
    if (typed) {
        v = cJSON_GetObjectItemCaseSensitive(root, "index_dtype");
        if (v && !(cJSON_IsString(v) && (!strcmp(v->valuestring, "int32") ||
                                         !strcmp(v->valuestring, "int64")))) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': expected \"index_dtype\": "
                          "\"int32\" or \"int64\"",
                          path);
            goto out;
        }
        m.ids32 = v && !strcmp(v->valuestring, "int32");
        v = cJSON_GetObjectItemCaseSensitive(root, "eids");
        if (v && !cJSON_IsBool(v)) {
            rc = dp_error(DP_EFORMAT, "'%s': expected \"eids\": a boolean",
                          path);
            goto out;
        }
        m.no_eids = v && cJSON_IsFalse(v);
        if (cJSON_GetObjectItemCaseSensitive(root, "ntypes") &&
            (rc = read_types(root, path, &m)))
            goto out;
        /* a type is a range of input edge ids */
        if (m.no_eids && m.num_ntypes) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': a typed dataset needs eids.npy (\"eids\": "
                          "false)",
                          path);
            goto out;
        }
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

static void chunks_release(struct dp_dataset_chunks *c)
{
    int k;

    for (k = 0; c->a && k < c->n; k++)
        dp_npy_release(&c->a[k]);
    free(c->a);
    free(c->first);
    memset(c, 0, sizeof(*c));
}

void dp_dataset_release(struct dp_dataset *d)
{
    int i;

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
    for (i = 0; d->ndata && i < d->meta.num_ndata; i++)
        dp_npy_release(&d->ndata[i]);
    for (i = 0; d->edata && i < d->meta.num_edata; i++)
        dp_npy_release(&d->edata[i]);
    for (i = 0; d->nchunks && i < d->meta.num_ndata; i++)
        chunks_release(&d->nchunks[i]);
    for (i = 0; d->echunks && i < d->meta.num_edata; i++)
        chunks_release(&d->echunks[i]);
    free(d->ndata);
    free(d->edata);
    free(d->nchunks);
    free(d->echunks);
    d->ndata = d->edata = NULL;
    d->nchunks = d->echunks = NULL;
    dp_dataset_meta_release(&d->meta);
    free(d->dir);
    d->dir = NULL;
}

/* Unmap a and remove DIR/name: the disk comes back once nothing maps it. */
static int discard(const struct dp_dataset *d, struct dp_npy *a,
                   const char *name)
{
    char *path;
    int rc = 0;

    if (!a->data)
        return 0;
    dp_npy_release(a);
    if (!(path = dp_path_join(d->dir, name)))
        return DP_ENOMEM;
    if (unlink(path) && errno != ENOENT)
        rc = dp_error(DP_EIO, "cannot remove '%s': %s", path, strerror(errno));
    free(path);
    return rc;
}

int dp_dataset_discard_edges(struct dp_dataset *d, int all)
{
    int rc = discard(d, &d->indices, "indices.npy");

    if (!rc && all)
        rc = discard(d, &d->eids, "eids.npy");
    if (!rc && all)
        rc = discard(d, &d->indptr, "indptr.npy");
    return rc;
}

void dp_dataset_drop(const struct dp_dataset *d)
{
    const struct dp_npy *a[10] = { &d->indptr,      &d->indices,
                                   &d->eids,        &d->feat,
                                   &d->label,       &d->train_mask,
                                   &d->val_mask,    &d->test_mask,
                                   &d->node_weight, &d->edge_weight };
    int i;

    for (i = 0; i < 10; i++)
        dp_map_drop(&a[i]->map);
    for (i = 0; d->ndata && i < d->meta.num_ndata; i++)
        dp_map_drop(&d->ndata[i].map);
    for (i = 0; d->edata && i < d->meta.num_edata; i++)
        dp_map_drop(&d->edata[i].map);
    for (i = 0; i < d->meta.num_ndata + d->meta.num_edata; i++) {
        const struct dp_dataset_chunks *c =
            i < d->meta.num_ndata
                ? (d->nchunks ? &d->nchunks[i] : NULL)
                : (d->echunks ? &d->echunks[i - d->meta.num_ndata] : NULL);
        int k;

        for (k = 0; c && k < c->n; k++)
            dp_map_drop(&c->a[k].map);
    }
}

void dp_rows_of(const struct dp_npy *a, struct dp_rows *r)
{
    int j;

    r->rb = dp_dtype_size(a->h.dtype);
    for (j = 1; j < a->h.ndim; j++)
        r->rb *= (size_t)a->h.shape[j];
    r->base = a->data;
    r->ch = NULL;
}

void dp_dataset_rows(const struct dp_dataset *d, int edge, int i,
                     struct dp_rows *r)
{
    const struct dp_dataset_chunks *c = edge ? d->echunks : d->nchunks;

    dp_rows_of(edge ? &d->edata[i] : &d->ndata[i], r);
    if (c && c[i].n)
        r->ch = &c[i];
}

void dp_rows_drop(const struct dp_rows *r)
{
    int k;

    for (k = 0; r->ch && k < r->ch->n; k++)
        dp_map_drop(&r->ch->a[k].map);
}

const char *dp_rows_chunk(const struct dp_rows *r, int64_t x, int *hint)
{
    const struct dp_dataset_chunks *c = r->ch;
    int h = *hint;

    if (h < 0 || h >= c->n || x < c->first[h] || x >= c->first[h + 1])
        h = *hint = (int)dp_range_of(c->first, c->n, x);
    return (const char *)c->a[h].data + (size_t)(x - c->first[h]) * r->rb;
}

static int search_type(const struct dp_dataset_type *t, int n, int64_t v)
{
    int lo = 0, hi = n - 1;

    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;

        if (t[mid].offset <= v)
            lo = mid;
        else
            hi = mid - 1;
    }
    /* empty types share an offset: take the last type starting at or
     * before v that is not empty */
    while (lo > 0 && !t[lo].count)
        lo--;
    return lo;
}

int dp_dataset_ntype_of(const struct dp_dataset *d, int64_t v)
{
    return search_type(d->meta.ntypes, d->meta.num_ntypes, v);
}

int dp_dataset_etype_of(const struct dp_dataset *d, int64_t e)
{
    return search_type(d->meta.etypes, d->meta.num_etypes, e);
}

static const struct dp_npy *find_data(const struct dp_dataset_data *x,
                                      const struct dp_npy *a, int n, int t,
                                      const char *name)
{
    int i;

    for (i = 0; a && i < n; i++)
        if (x[i].type == t && !strcmp(x[i].name, name))
            return &a[i];
    return NULL;
}

const struct dp_npy *dp_dataset_ndata(const struct dp_dataset *d, int t,
                                      const char *name)
{
    return find_data(d->meta.ndata, d->ndata, d->meta.num_ndata, t, name);
}

const struct dp_npy *dp_dataset_edata(const struct dp_dataset *d, int t,
                                      const char *name)
{
    return find_data(d->meta.edata, d->edata, d->meta.num_edata, t, name);
}

/* Columns [v0, v1), on this thread: their entries in range and, typed,
 * joining the types their edges' types name. */
static int check_range(const struct dp_dataset *d, int64_t v0, int64_t v1)
{
    const int64_t *ip = dp_dataset_indptr(d);
    const struct dp_dataset_type *nt = d->meta.ntypes;
    int64_t n = d->meta.num_nodes, e = d->meta.num_edges, v, i;

    for (v = v0; v < v1; v++)
        for (i = ip[v]; i < ip[v + 1]; i++) {
            int64_t u = dp_dataset_src(d, i),
                    x = d->meta.no_eids ? 0 : dp_dataset_eid(d, i);
            const struct dp_dataset_type *et;

            /* let the checked pages go: at 10^9 edges they are gigabytes,
             * and whoever reads them next does so in its own order */
            if ((i & ((1 << 22) - 1)) == 0 && i) {
                dp_map_drop(&d->indices.map);
                dp_map_drop(&d->eids.map);
            }
            if (u < 0 || u >= n)
                return dp_error(DP_EFORMAT,
                                "'%s/indices.npy': entry %" PRId64 " = %" PRId64
                                " out of range [0, %" PRId64 ")",
                                d->dir, i, u, n);
            if (x < 0 || x >= e)
                return dp_error(DP_EFORMAT,
                                "'%s/eids.npy': entry %" PRId64 " = %" PRId64
                                " out of range [0, %" PRId64 ")",
                                d->dir, i, x, e);
            if (!d->meta.num_ntypes)
                continue;
            x = dp_dataset_eid(d, i);
            et = &d->meta.etypes[dp_dataset_etype_of(d, x)];
            if (et->dst != dp_dataset_ntype_of(d, v) ||
                u < nt[et->src].offset ||
                u - nt[et->src].offset >= nt[et->src].count)
                return dp_error(DP_EFORMAT,
                                "'%s/indices.npy': entry %" PRId64
                                " (input edge %" PRId64 " of type '%s') joins "
                                "nodes %" PRId64 " -> %" PRId64
                                ", expected a '%s' node to a '%s' node",
                                d->dir, i, x, et->name, u, v, nt[et->src].name,
                                nt[et->dst].name);
        }
    return 0;
}

struct check_job {
    const struct dp_dataset *d;
    int64_t v0, v1;
    int rc;
    char msg[1024];
};

static void *check_job_run(void *arg)
{
    struct check_job *j = arg;

    if ((j->rc = check_range(j->d, j->v0, j->v1)))
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
    return NULL;
}

int dp_dataset_check_columns(const struct dp_dataset *d, int64_t v0, int64_t v1)
{
    const int64_t *ip = dp_dataset_indptr(d);
    struct check_job jb[2] = { { d, v0, v0, 0, "" }, { d, v0, v1, 0, "" } };
    int i;

    /* two halves of the entries; the first error in entry order wins */
    if (v1 > v0)
        jb[0].v1 = jb[1].v0 = dp_half_rows(ip, v0, v1);
    dp_run_pair(check_job_run, &jb[0], &jb[1],
                v1 > v0 && ip[v1] - ip[v0] >= (1 << 20));
    dp_map_drop(&d->indices.map);
    dp_map_drop(&d->eids.map);
    for (i = 0; i < 2; i++)
        if (jb[i].rc)
            return dp_error(jb[i].rc, "%s", jb[i].msg);
    return 0;
}

static int check_indptr(const struct dp_dataset *d)
{
    const int64_t *ip = dp_dataset_indptr(d);
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
    return 0;
}

/* Map the chunks of an array kept in the input's files: one dtype and row
 * shape, rows adding up to the type's count; a gets the whole header. */
static int open_chunks(const struct dp_dataset *d,
                       const struct dp_dataset_data *x, int64_t rows,
                       struct dp_dataset_chunks *c, struct dp_npy *a)
{
    int k, j, rc = 0;

    c->a = dp_calloc((size_t)x->nchunks, sizeof(*c->a));
    c->first = dp_calloc((size_t)x->nchunks + 1, sizeof(*c->first));
    if (!c->a || !c->first)
        return DP_ENOMEM;
    for (k = 0; !rc && k < x->nchunks; k++) {
        struct dp_npy *p = &c->a[k];

        rc = dp_npy_open(p, x->chunks[k]);
        if (rc == DP_ENOENT)
            rc = dp_error(DP_ENOENT,
                          "'%s' is missing ('%s/meta.json' reads data '%s' "
                          "from it: convert again)",
                          x->chunks[k], d->dir, x->name);
        if (rc)
            break;
        c->n = k + 1;
        if (!k)
            a->h = p->h;
        for (j = 1; j < p->h.ndim; j++)
            if (p->h.shape[j] != a->h.shape[j])
                break;
        if (p->h.ndim < 1 || p->h.dtype != a->h.dtype ||
            p->h.ndim != a->h.ndim || j < p->h.ndim ||
            p->h.shape[0] > rows - c->first[k])
            rc = dp_error(DP_EFORMAT,
                          "'%s': not the chunk '%s/meta.json' lists for "
                          "data '%s' (its dtype, shape or rows changed: "
                          "convert again)",
                          x->chunks[k], d->dir, x->name);
        else
            c->first[k + 1] = c->first[k] + p->h.shape[0];
    }
    if (!rc && c->first[c->n] != rows)
        rc = dp_error(DP_EFORMAT,
                      "'%s': data '%s' has %" PRId64 " rows in its chunks, "
                      "expected %" PRId64 ", the type's count (they "
                      "changed: convert again)",
                      d->dir, x->name, c->first[c->n], rows);
    if (!rc) {
        a->h.shape[0] = rows;
        a->h.count = (uint64_t)rows;
        for (j = 1; j < a->h.ndim; j++)
            a->h.count *= (uint64_t)a->h.shape[j];
    }
    return rc;
}

/* Map each per-type array; its first dimension is its type's count. */
static int open_typed(struct dp_dataset *d)
{
    const struct dp_dataset_meta *m = &d->meta;
    int i, rc;

    if (m->num_ndata &&
        (!(d->ndata = dp_calloc((size_t)m->num_ndata, sizeof(*d->ndata))) ||
         !(d->nchunks = dp_calloc((size_t)m->num_ndata, sizeof(*d->nchunks)))))
        return DP_ENOMEM;
    if (m->num_edata &&
        (!(d->edata = dp_calloc((size_t)m->num_edata, sizeof(*d->edata))) ||
         !(d->echunks = dp_calloc((size_t)m->num_edata, sizeof(*d->echunks)))))
        return DP_ENOMEM;
    for (i = 0; i < m->num_ndata + m->num_edata; i++) {
        int edge = i >= m->num_ndata;
        const struct dp_dataset_data *x =
            edge ? &m->edata[i - m->num_ndata] : &m->ndata[i];
        struct dp_npy *a = edge ? &d->edata[i - m->num_ndata] : &d->ndata[i];
        int64_t rows =
            edge ? m->etypes[x->type].count : m->ntypes[x->type].count;
        char *rel, *path;

        if (x->nchunks) {
            if ((rc = open_chunks(
                     d, x, rows,
                     edge ? &d->echunks[i - m->num_ndata] : &d->nchunks[i], a)))
                return rc;
            continue;
        }
        rel = dp_dataset_data_path(m, edge, x);
        path = rel ? dp_path_join(d->dir, rel) : NULL;
        free(rel);
        if (!path)
            return DP_ENOMEM;
        rc = dp_npy_open(a, path);
        if (rc == DP_ENOENT)
            rc = dp_error(DP_ENOENT, "'%s' is missing (meta.json lists it)",
                          path);
        if (!rc && (a->h.ndim < 1 || a->h.shape[0] != rows)) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': expected %" PRId64 " rows (the "
                          "type's count)",
                          path, rows);
            dp_npy_release(a);
        }
        free(path);
        if (rc)
            return rc;
    }
    return 0;
}

static int open_checked(struct dp_dataset *d, const char *dir, int columns)
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
    if ((rc = open_array(dir, "indices.npy", 1, d->meta.ids32 ? DP_I32 : DP_I64,
                         1, s1, &d->indices)) ||
        (!d->meta.no_eids &&
         (rc = open_array(dir, "eids.npy", 1, d->meta.ids32 ? DP_I32 : DP_I64,
                          1, s1, &d->eids))))
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
    if ((rc = open_typed(d)) || (rc = check_indptr(d)) ||
        (columns && (rc = dp_dataset_check_columns(d, 0, n))))
        goto fail;
    return 0;
fail:
    dp_dataset_release(d);
    return rc;
}

int dp_dataset_open(struct dp_dataset *d, const char *dir)
{
    return open_checked(d, dir, 1);
}

int dp_dataset_open_unchecked(struct dp_dataset *d, const char *dir)
{
    return open_checked(d, dir, 0);
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

/* Its file's bytes; an array in memory (arrays.h) has no file. */
static int64_t array_bytes(const struct dp_npy *a)
{
    if (!a->data)
        return 0;
    return a->map.size ? (int64_t)a->map.size
                       : (int64_t)(a->h.count * dp_dtype_size(a->h.dtype));
}

void dp_dataset_shape(const struct dp_dataset *d, struct dp_dataset_shape *s)
{
    const struct dp_npy *top[] = { &d->indptr,      &d->indices,
                                   &d->eids,        &d->feat,
                                   &d->label,       &d->train_mask,
                                   &d->val_mask,    &d->test_mask,
                                   &d->node_weight, &d->edge_weight };
    int i;

    memset(s, 0, sizeof(*s));
    s->num_nodes = d->meta.num_nodes;
    s->num_edges = d->meta.num_edges;
    s->directed = d->meta.directed;
    s->typed = d->meta.num_ntypes > 0;
    s->ncon = d->meta.ncon;
    s->node_bytes = d->meta.feat_dim * 4 + (d->meta.num_classes ? 8 : 0) +
                    d->meta.has_train + d->meta.has_val + d->meta.has_test;
    s->edge_weight = d->edge_weight.data ? (int64_t)d->edge_weight.map.size : 0;
    for (i = 0; i < d->meta.num_ndata + d->meta.num_edata; i++) {
        int e = i >= d->meta.num_ndata, k = e ? i - d->meta.num_ndata : i;
        const struct dp_npy *a = e ? &d->edata[k] : &d->ndata[k];
        int64_t b = array_bytes(a);

        /* rows kept in the input's chunks go to the parts, not the folder */
        s->total += b;
        if (!a->data)
            b = (int64_t)(a->h.count * dp_dtype_size(a->h.dtype));
        s->type_data += b;
    }
    s->indices = (int64_t)d->indices.map.size;
    for (i = 0; i < (int)(sizeof(top) / sizeof(top[0])); i++)
        s->total += array_bytes(top[i]);
}
