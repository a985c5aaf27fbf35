/* DGL's chunked graph format (tools/chunk_graph.py, the input of its
 * distributed partitioning pipeline): a folder with metadata.json naming
 * node types and their chunk sizes, edge types with csv chunks of
 * "src dst" per-type ids, and numpy chunks of node and edge data. Paths in
 * metadata.json are relative to its folder (or absolute). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"

struct chunked {
    struct cv_graph *g;
    const char *dir;
    char *meta; /* metadata.json's path */
    cJSON *root;
};

/* A list of chunk sizes, one per chunk, for type i of key. */
static int chunk_sizes(struct chunked *c, const char *key, int i,
                       const char *tname, int64_t **out, int *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);
    const cJSON *l = cJSON_GetArrayItem(v, i), *it;
    int k = 0;

    if (!cJSON_IsArray(l) || !cJSON_GetArraySize(l))
        return dp_error(DP_EFORMAT,
                        "'%s': \"%s\" entry %d (type '%s'): "
                        "expected a list of chunk sizes",
                        c->meta, key, i, tname);
    *n = cJSON_GetArraySize(l);
    if (!(*out = dp_calloc((size_t)*n, sizeof(**out))))
        return DP_ENOMEM;
    cJSON_ArrayForEach(it, l)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
            it->valuedouble > 9.007199254740992e15 ||
            it->valuedouble != (double)(int64_t)it->valuedouble)
            return dp_error(DP_EFORMAT,
                            "'%s': \"%s\" entry %d (type '%s') "
                            "chunk %d: expected a non-negative integer",
                            c->meta, key, i, tname, k);
        (*out)[k++] = (int64_t)it->valuedouble;
    }
    return 0;
}

/* The files of {"format": {...}, "data": [...]} as paths (owned). */
static int chunk_files(struct chunked *c, const cJSON *o, const char *what,
                       const char *want, char ***out, int *n)
{
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(fmt, "name");
    const cJSON *delim = cJSON_GetObjectItemCaseSensitive(fmt, "delimiter");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data"), *it;
    int k = 0;

    if (!cJSON_IsString(name))
        return dp_error(DP_EFORMAT,
                        "'%s': %s: expected \"format\": "
                        "{\"name\": \"%s\"}",
                        c->meta, what, want);
    if (!strcmp(name->valuestring, "parquet"))
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': %s: parquet chunks are not "
                        "supported (no parquet library); write them as %s",
                        c->meta, what, want);
    if (strcmp(name->valuestring, want))
        return dp_error(DP_EFORMAT, "'%s': %s: format '%s', expected '%s'",
                        c->meta, what, name->valuestring, want);
    /* cv_parse_edgelist splits at spaces, tabs and commas */
    if (cJSON_IsString(delim) && strcmp(delim->valuestring, " ") &&
        strcmp(delim->valuestring, ",") && strcmp(delim->valuestring, "\t"))
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': %s: delimiter '%s' is not "
                        "supported (expected \" \", \",\" or a tab)",
                        c->meta, what, delim->valuestring);
    if (!cJSON_IsArray(data) || !cJSON_GetArraySize(data))
        return dp_error(DP_EFORMAT,
                        "'%s': %s: expected a non-empty list "
                        "\"data\" of files",
                        c->meta, what);
    *n = cJSON_GetArraySize(data);
    if (!(*out = dp_calloc((size_t)*n, sizeof(**out))))
        return DP_ENOMEM;
    cJSON_ArrayForEach(it, data)
    {
        if (!cJSON_IsString(it) || !it->valuestring[0])
            return dp_error(DP_EFORMAT,
                            "'%s': %s: \"data\" entry %d: "
                            "expected a file name",
                            c->meta, what, k);
        (*out)[k] = it->valuestring[0] == '/'
                        ? dp_strdup(it->valuestring)
                        : dp_path_join(c->dir, it->valuestring);
        if (!(*out)[k++])
            return DP_ENOMEM;
    }
    return 0;
}

static void free_files(char **f, int n)
{
    int i;

    for (i = 0; f && i < n; i++)
        free(f[i]);
    free(f);
}

static const cJSON *type_list(struct chunked *c, const char *key, int *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key);

    *n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    return v;
}

static int node_types(struct chunked *c)
{
    const cJSON *v, *it;
    int n, i = 0, rc = 0, nsz;
    int64_t *sz = NULL;

    v = type_list(c, "node_type", &n);
    if (!n)
        return dp_error(DP_EFORMAT,
                        "'%s': expected a non-empty list "
                        "\"node_type\"",
                        c->meta);
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
            c->root, "num_nodes_per_chunk")) != n)
        return dp_error(DP_EFORMAT,
                        "'%s': \"num_nodes_per_chunk\" needs one "
                        "list per node type (%d)",
                        c->meta, n);
    cJSON_ArrayForEach(it, v)
    {
        int64_t total = 0;
        int k;

        if (!cJSON_IsString(it))
            return dp_error(DP_EFORMAT,
                            "'%s': \"node_type\" entry %d: "
                            "expected a string",
                            c->meta, i);
        if ((rc = chunk_sizes(c, "num_nodes_per_chunk", i, it->valuestring, &sz,
                              &nsz)))
            break;
        /* each size is below 2^53: a sum past 2^62 is refused below */
        for (k = 0; k < nsz && total < CV_MAX_NODES; k++)
            total += sz[k];
        free(sz);
        sz = NULL;
        if ((rc = cv_typed_add_ntype(c->g, it->valuestring, total, c->meta)))
            break;
        i++;
    }
    free(sz);
    return rc;
}

/* The edges of every type, for a rank's share: which chunks are whose
 * depends on where each starts among all. */
static void all_edges(struct chunked *c)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(c->root, "num_edges_per_chunk");
    const cJSON *l, *it;
    int64_t total = 0;

    cJSON_ArrayForEach(l, v)
    {
        cJSON_ArrayForEach(it, l)
        {
            /* chunk_sizes names a bad entry when its type is read */
            if (cJSON_IsNumber(it) && it->valuedouble > 0 &&
                it->valuedouble < 9.007199254740992e15 && total < CV_MAX_NODES)
                total += (int64_t)it->valuedouble;
        }
    }
    c->g->share->total = total;
}

/* Lines of every chunk of edge type i against num_edges_per_chunk. */
static int edge_type(struct chunked *c, int i, const char *name)
{
    struct cv_graph *g = c->g;
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(c->root, "edges"), name);
    char **files = NULL, what[600], sha[65];
    int64_t *sz = NULL;
    int n = 0, nsz = 0, k, rc;

    snprintf(what, sizeof(what), "\"edges\" of '%s'", name);
    if (!o)
        return dp_error(DP_EFORMAT,
                        "'%s': no \"edges\" entry for edge type "
                        "'%s'",
                        c->meta, name);
    if ((rc = chunk_files(c, o, what, "csv", &files, &n)) ||
        (rc = chunk_sizes(c, "num_edges_per_chunk", i, name, &sz, &nsz)))
        goto out;
    if (nsz != n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': edge type '%s' has %d chunk files "
                      "but %d entries in \"num_edges_per_chunk\"",
                      c->meta, name, n, nsz);
        goto out;
    }
    if ((rc = cv_typed_begin_etype(g, name, c->meta)))
        goto out;
    for (k = 0; k < n && !rc; k++) {
        struct cv_src s;
        uint64_t before = g->edges.n, got, size;

        if (g->share && !cv_share_edges(g->share, sz[k])) {
            rc = cv_graph_add_input(g, files[k], 0, NULL);
            continue;
        }
        if (!dp_exists(files[k])) {
            rc = dp_error(DP_ENOENT, "'%s' is missing (%s)", files[k], what);
            break;
        }
        if ((rc = cv_src_open_file(&s, files[k], cv_hashing(g))))
            break;
        if (sz[k] > 0 && sz[k] < (INT64_C(1) << 40))
            rc = cv_edges_grow(&g->edges, before + (uint64_t)sz[k]);
        if (!rc)
            rc = cv_parse_edgelist(g, &s);
        got = g->edges.n - before;
        if (!rc && got != (uint64_t)sz[k])
            rc = dp_error(DP_EFORMAT,
                          "'%s': %" PRIu64 " edges, expected %" PRId64
                          " (metadata.json num_edges_per_chunk of "
                          "'%s', chunk %d)",
                          files[k], got, sz[k], name, k);
        cv_src_close(&s, rc ? NULL : sha, &size);
        if (!rc)
            rc = cv_graph_add_input(g, files[k], size, sha);
    }
    if (!rc)
        cv_typed_end_etype(g);
    if (!rc && g->share) { /* the other ranks' chunks count too */
        int64_t all = 0;

        for (k = 0; k < n; k++)
            all += sz[k];
        g->meta.etypes[g->cur_etype].count = all;
    }
out:
    free_files(files, n);
    free(sz);
    return rc;
}

/* node_data / edge_data: {type: {name: {format, data}}}. */
static int data_arrays(struct chunked *c, int edge)
{
    const char *key = edge ? "edge_data" : "node_data";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->root, key), *t, *a;
    int rc = 0;

    if (v && !cJSON_IsObject(v))
        return dp_error(DP_EFORMAT, "'%s': expected an object \"%s\"", c->meta,
                        key);
    cJSON_ArrayForEach(t, v)
    {
        const struct dp_dataset_meta *m = &c->g->meta;
        int type = edge ? dp_dataset_find_etype(m, t->string)
                        : dp_dataset_find_ntype(m, t->string);
        int64_t *sz = NULL;
        int nsz = 0;

        if (type < 0)
            return dp_error(DP_EFORMAT,
                            "'%s': \"%s\" names %s type '%s', "
                            "which is not in \"%s\"",
                            c->meta, key, edge ? "edge" : "node", t->string,
                            edge ? "edge_type" : "node_type");
        /* chunk k of an array holds the rows of chunk k of its type */
        if ((rc = chunk_sizes(
                 c, edge ? "num_edges_per_chunk" : "num_nodes_per_chunk", type,
                 t->string, &sz, &nsz))) {
            free(sz);
            return rc;
        }
        cJSON_ArrayForEach(a, t)
        {
            char **files = NULL, what[600];
            int n = 0;

            snprintf(what, sizeof(what), "\"%s\" %s/%s", key, t->string,
                     a->string);
            rc = chunk_files(c, a, what, "numpy", &files, &n);
            if (!rc && n != nsz)
                rc = dp_error(DP_EFORMAT,
                              "'%s': %s has %d chunk files, "
                              "expected %d (as in \"%s\")",
                              c->meta, what, n, nsz,
                              edge ? "num_edges_per_chunk"
                                   : "num_nodes_per_chunk");
            if (!rc)
                rc = cv_typed_concat(c->g, edge, type, a->string, files, n, sz,
                                     what);
            free_files(files, n);
            if (rc)
                break;
        }
        free(sz);
        if (rc)
            return rc;
    }
    return 0;
}

int cv_read_chunked(struct cv_graph *g, const char *dir)
{
    struct chunked c;
    const cJSON *v, *it;
    char *text = NULL;
    size_t len;
    int rc, n, i = 0;

    memset(&c, 0, sizeof(c));
    c.g = g;
    c.dir = dir;
    if (!(c.meta = dp_path_join(dir, "metadata.json")))
        return DP_ENOMEM;
    if ((rc = dp_read_file(c.meta, 64 << 20, &text, &len)))
        goto out;
    if (!(c.root = cJSON_Parse(text))) {
        rc = dp_error(DP_EFORMAT, "'%s': not valid JSON", c.meta);
        goto out;
    }
    if ((rc = cv_graph_add_file(g, c.meta)))
        goto out;
    v = cJSON_GetObjectItemCaseSensitive(c.root, "graph_name");
    if (cJSON_IsString(v) && v->valuestring[0] &&
        (!g->o->name || g->o->name_fallback)) {
        free(g->meta.name);
        if (!(g->meta.name = dp_strdup(v->valuestring))) {
            rc = DP_ENOMEM;
            goto out;
        }
    }
    if ((rc = node_types(&c)))
        goto out;
    if (g->share)
        all_edges(&c);
    v = type_list(&c, "edge_type", &n);
    if (!n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected a non-empty list "
                      "\"edge_type\"",
                      c.meta);
        goto out;
    }
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
            c.root, "num_edges_per_chunk")) != n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': \"num_edges_per_chunk\" needs one "
                      "list per edge type (%d)",
                      c.meta, n);
        goto out;
    }
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it)) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': \"edge_type\" entry %d: "
                          "expected a string",
                          c.meta, i);
            goto out;
        }
        if ((rc = edge_type(&c, i++, it->valuestring)))
            goto out;
    }
    if ((rc = data_arrays(&c, 0)) || (rc = data_arrays(&c, 1)))
        goto out;
out:
    cJSON_Delete(c.root);
    free(text);
    free(c.meta);
    return rc;
}
