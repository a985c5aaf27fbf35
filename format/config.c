/* The partition config JSON (<graph_name>.json), the one place it is read
 * and written: read through cJSON, written by hand in the exact layout of
 * Python's json.dump(indent=4) so our files match DGL's byte for byte, and
 * rewritten for shipping beside the parts (dglpart copy), keeping whatever
 * else a writer put in it. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

#define CONFIG_MAX (64u << 20) /* a config of 100k parts is ~20 MB */
#define MAX_PARTS (1 << 20)
#define MAX_TYPES (1 << 15) /* DGL stores node type ids as int16 */

static const char *const part_keys[3] = { "node_feats", "edge_feats",
                                          "part_graph" };
static const char *const part_files[3] = { "node_feat.dgl", "edge_feat.dgl",
                                           "graph.dgl" };

/* ---- writing ---- */

/* A JSON string as Python's json.dumps writes it (ensure_ascii=True). */
static int add_json_string(struct dp_buf *b, const char *path, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int rc = dp_buf_add(b, "\"", 1);

    while (!rc && *p) {
        uint32_t cp = *p, extra = 0, i;

        if (cp < 0x80) {
            p++;
            switch (cp) {
            case '"':
                rc = dp_buf_adds(b, "\\\"");
                break;
            case '\\':
                rc = dp_buf_adds(b, "\\\\");
                break;
            case '\n':
                rc = dp_buf_adds(b, "\\n");
                break;
            case '\r':
                rc = dp_buf_adds(b, "\\r");
                break;
            case '\t':
                rc = dp_buf_adds(b, "\\t");
                break;
            case '\b':
                rc = dp_buf_adds(b, "\\b");
                break;
            case '\f':
                rc = dp_buf_adds(b, "\\f");
                break;
            default:
                if (cp < 0x20)
                    rc = dp_buf_addf(b, "\\u%04x", cp);
                else
                    rc = dp_buf_add(b, p - 1, 1);
            }
            continue;
        }
        if ((cp & 0xe0) == 0xc0) {
            cp &= 0x1f;
            extra = 1;
        } else if ((cp & 0xf0) == 0xe0) {
            cp &= 0x0f;
            extra = 2;
        } else if ((cp & 0xf8) == 0xf0) {
            cp &= 0x07;
            extra = 3;
        } else {
            return dp_error(DP_EINVAL, "'%s': '%s' is not valid UTF-8", path,
                            s);
        }
        for (i = 1; i <= extra; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return dp_error(DP_EINVAL, "'%s': '%s' is not valid UTF-8",
                                path, s);
            cp = cp << 6 | (p[i] & 0x3f);
        }
        p += extra + 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            rc = dp_buf_addf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                             0xdc00 + (cp & 0x3ff));
        } else {
            rc = dp_buf_addf(b, "\\u%04x", cp);
        }
    }
    return rc ? rc : dp_buf_add(b, "\"", 1);
}

/* "KEY": {"TYPE": [[s, e], ...], ...} at one level of indentation; type t
 * of part p is r[p * ntypes + t]. */
static int add_ranges(struct dp_buf *b, const char *path, const char *key,
                      int ntypes, char *const *types, int n,
                      const int64_t (*r)[2])
{
    int i, t, rc = dp_buf_addf(b, "    \"%s\": {\n", key);

    for (t = 0; !rc && t < ntypes; t++) {
        rc = dp_buf_adds(b, "        ");
        if (!rc)
            rc = add_json_string(b, path, types[t]);
        if (!rc)
            rc = dp_buf_adds(b, ": [\n");
        for (i = 0; !rc && i < n; i++)
            rc =
                dp_buf_addf(b,
                            "            [\n                %" PRId64
                            ",\n                %" PRId64 "\n            ]%s\n",
                            r[i * ntypes + t][0], r[i * ntypes + t][1],
                            i + 1 < n ? "," : "");
        if (!rc)
            rc =
                dp_buf_adds(b, t + 1 < ntypes ? "        ],\n" : "        ]\n");
    }
    return rc ? rc : dp_buf_adds(b, "    },\n");
}

/* "KEY": {"NAME": id, ...} */
static int add_type_ids(struct dp_buf *b, const char *path, const char *key,
                        int ntypes, char *const *types)
{
    int t, rc = dp_buf_addf(b, "    \"%s\": {\n", key);

    for (t = 0; !rc && t < ntypes; t++) {
        rc = dp_buf_adds(b, "        ");
        if (!rc)
            rc = add_json_string(b, path, types[t]);
        if (!rc)
            rc = dp_buf_addf(b, ": %d%s\n", t, t + 1 < ntypes ? "," : "");
    }
    return rc ? rc : dp_buf_adds(b, "    },\n");
}

int dp_config_write(const char *path, const struct dp_part_config *c)
{
    static char n_name[] = "_N", e_name[] = DP_ORIG_EIDS_KEY;
    char *nn[1] = { n_name }, *en[1] = { e_name };
    /* a typed set keeps its names even with one type */
    int tn = c->ntype_map && c->ntypes, te = c->etype_map && c->etypes;
    int nt = tn ? c->num_ntypes : 1, et = te ? c->num_etypes : 1;
    struct dp_buf b;
    int i, k, rc;

    if (c->num_parts < 1 || !c->node_map || !c->edge_map || !c->graph_name)
        return dp_error(DP_EINVAL, "'%s': incomplete partition config", path);
    dp_buf_init(&b, 0);
    rc = dp_buf_adds(&b, "{\n    \"graph_name\": ");
    if (!rc)
        rc = add_json_string(&b, path, c->graph_name);
    if (!rc)
        rc = dp_buf_addf(&b,
                         ",\n    \"num_nodes\": %" PRId64
                         ",\n    \"num_edges\": %" PRId64
                         ",\n    \"part_method\": ",
                         c->num_nodes, c->num_edges);
    if (!rc)
        rc = add_json_string(&b, path,
                             c->part_method ? c->part_method : "metis");
    if (!rc)
        rc = dp_buf_addf(&b,
                         ",\n    \"num_parts\": %d,\n    \"halo_hops\": %d,\n",
                         c->num_parts, c->halo_hops);
    if (!rc)
        rc = add_ranges(&b, path, "node_map", nt, tn ? c->ntypes : nn,
                        c->num_parts,
                        (const int64_t(*)[2])(tn ? c->ntype_map : c->node_map));
    if (!rc)
        rc = add_ranges(&b, path, "edge_map", et, te ? c->etypes : en,
                        c->num_parts,
                        (const int64_t(*)[2])(te ? c->etype_map : c->edge_map));
    if (!rc)
        rc = add_type_ids(&b, path, "ntypes", nt, tn ? c->ntypes : nn);
    if (!rc)
        rc = add_type_ids(&b, path, "etypes", et, te ? c->etypes : en);
    for (i = 0; !rc && i < c->num_parts; i++) {
        char **given[3] = { c->node_feats, c->edge_feats, c->part_graph };

        rc = dp_buf_addf(&b, "    \"part-%d\": {\n", i);
        for (k = 0; !rc && k < 3; k++) {
            char dflt[64];
            const char *v = given[k] ? given[k][i] : NULL;

            if (!v) {
                snprintf(dflt, sizeof(dflt), "part%d/%s", i, part_files[k]);
                v = dflt;
            }
            rc = dp_buf_addf(&b, "        \"%s\": ", part_keys[k]);
            if (!rc)
                rc = add_json_string(&b, path, v);
            if (!rc)
                rc = dp_buf_adds(&b, k < 2 ? ",\n" : "\n");
        }
        if (!rc)
            rc = dp_buf_adds(&b, i + 1 < c->num_parts ? "    },\n" : "    }\n");
    }
    if (!rc)
        rc = dp_buf_adds(&b, "}");
    if (!rc)
        rc = dp_write_file(path, b.data, b.len);
    dp_buf_release(&b);
    return rc;
}

/* ---- reading ---- */

static int get_i64(const cJSON *v, const char *path, const char *what,
                   int64_t min, int64_t max, int64_t *out)
{
    double d;

    if (!cJSON_IsNumber(v))
        return dp_error(DP_EFORMAT, "'%s': %s is %s, expected an integer", path,
                        what, v ? "not a number" : "missing");
    d = v->valuedouble;
    if (d != floor(d) || d < (double)min || d > (double)max ||
        fabs(d) > 9007199254740992.0)
        return dp_error(DP_EFORMAT,
                        "'%s': %s is %.17g, expected an integer"
                        " in [%" PRId64 ", %" PRId64 "]",
                        path, what, d, min, max);
    *out = (int64_t)d;
    return 0;
}

static int get_string(const cJSON *v, const char *path, const char *what,
                      char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring)
        return dp_error(DP_EFORMAT, "'%s': %s is %s, expected a string", path,
                        what, v ? "not a string" : "missing");
    *out = dp_strdup(v->valuestring);
    return *out ? 0 : DP_ENOMEM;
}

/* The type names of map (an object of typed ranges) in type id order: from
 * ids ("ntypes"/"etypes": {name: id}) when given, else in map's order. */
static int get_type_names(const cJSON *map, const cJSON *ids, const char *path,
                          const char *key, const char *ids_key, int *count,
                          char ***out)
{
    int n = cJSON_GetArraySize(map), i = 0, rc = 0;
    char **names;
    const cJSON *it;

    if (n < 1 || n > MAX_TYPES)
        return dp_error(DP_EFORMAT, "'%s': %s has %d types, expected 1 to %d",
                        path, key, n, MAX_TYPES);
    if (ids && (!cJSON_IsObject(ids) || cJSON_GetArraySize(ids) != n))
        return dp_error(
            DP_EFORMAT, "'%s': %s names %d types, %s has %d", path, ids_key,
            cJSON_IsObject(ids) ? cJSON_GetArraySize(ids) : 0, key, n);
    if (!(names = dp_calloc((size_t)n, sizeof(*names))))
        return DP_ENOMEM;
    cJSON_ArrayForEach(it, map)
    {
        int64_t id = i;
        char what[96];
        snprintf(what, sizeof(what), "%s[\"%.40s\"]", ids_key, it->string);
        if (ids &&
            (rc = get_i64(cJSON_GetObjectItemCaseSensitive(ids, it->string),
                          path, what, 0, n - 1, &id)))
            break;
        if (names[id]) {
            rc = dp_error(DP_EFORMAT, "'%s': %s gives id %" PRId64 " twice",
                          path, ids_key, id);
            break;
        }
        if (!(names[id] = dp_strdup(it->string))) {
            rc = DP_ENOMEM;
            break;
        }
        i++;
    }
    if (rc) {
        for (i = 0; i < n; i++)
            free(names[i]);
        free(names);
        return rc;
    }
    *count = n;
    *out = names;
    return 0;
}

/* One [start, end] pair, or with legacy the cumulative end alone. */
static int get_range(const cJSON *it, const char *path, const char *what,
                     int legacy, int64_t prev, int64_t r[2])
{
    int rc;

    if (legacy) {
        r[0] = prev;
        return get_i64(it, path, what, 0, INT64_MAX, &r[1]);
    }
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
        return dp_error(DP_EFORMAT, "'%s': %s is not a [start, end] pair", path,
                        what);
    if ((rc = get_i64(it->child, path, what, 0, INT64_MAX, &r[0])))
        return rc;
    return get_i64(it->child->next, path, what, 0, INT64_MAX, &r[1]);
}

/* node_map / edge_map: {"type": [[s, e], ...], ...} or the legacy list of
 * cumulative ends. The ranges must tile [0, total) in (part, type id)
 * order, as DGL's loader requires; empty ones are [x, x]. Sets each part's
 * whole range, the typed ranges and the type names. */
static int get_ranges(const cJSON *root, const char *path, const char *key,
                      const char *ids_key, int parts, int64_t total,
                      int64_t (**whole)[2], int *ntypes, char ***names,
                      int64_t (**typed)[2])
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, key), *it;
    const cJSON **lists = NULL;
    int64_t(*r)[2] = NULL, (*w)[2] = NULL;
    int64_t prev = 0;
    int p, t, nt = 1, rc = 0, legacy = !cJSON_IsObject(m);
    char what[160];

    if (!legacy) {
        if ((rc = get_type_names(
                 m, cJSON_GetObjectItemCaseSensitive(root, ids_key), path, key,
                 ids_key, &nt, names)))
            return rc;
    } else if (!cJSON_IsArray(m)) {
        return dp_error(DP_EFORMAT, "'%s': %s is %s", path, key,
                        m ? "neither an object nor a list" : "missing");
    } else {
        if (!(*names = dp_calloc(1, sizeof(**names))) ||
            !(**names = dp_strdup(strcmp(key, "node_map") ? DP_ORIG_EIDS_KEY
                                                          : "_N"))) {
            rc = DP_ENOMEM;
            goto out;
        }
    }
    *ntypes = nt;
    if (!(lists = dp_calloc((size_t)nt, sizeof(*lists)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (t = 0; t < nt; t++) {
        const cJSON *l =
            legacy ? m : cJSON_GetObjectItemCaseSensitive(m, (*names)[t]);
        if (!cJSON_IsArray(l) || cJSON_GetArraySize(l) != parts) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': %s[\"%s\"] has %d ranges, expected one per"
                          " part (%d)",
                          path, key, (*names)[t],
                          cJSON_IsArray(l) ? cJSON_GetArraySize(l) : 0, parts);
            goto out;
        }
        lists[t] = l->child;
    }
    /* parts x types entries were all in the file: the product is small */
    if (!(r = dp_malloc_array((size_t)parts * (size_t)nt, sizeof(*r))) ||
        !(w = dp_calloc((size_t)parts, sizeof(*w)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (p = 0; p < parts; p++) {
        w[p][0] = prev;
        for (t = 0; t < nt; t++) {
            int64_t *x = r[(size_t)p * (size_t)nt + (size_t)t];
            it = lists[t];
            lists[t] = it->next;
            if (nt > 1)
                snprintf(what, sizeof(what), "%s[\"%.60s\"] part %d", key,
                         (*names)[t], p);
            else
                snprintf(what, sizeof(what), "%s part %d", key, p);
            if ((rc = get_range(it, path, what, legacy, prev, x)))
                goto out;
            if (x[0] != prev || x[1] < x[0]) {
                rc = dp_error(DP_EFORMAT,
                              "'%s': %s is [%" PRId64 ", %" PRId64
                              "), expected a range starting at %" PRId64,
                              path, what, x[0], x[1], prev);
                goto out;
            }
            prev = x[1];
        }
        w[p][1] = prev;
    }
    if (prev != total)
        rc = dp_error(DP_EFORMAT,
                      "'%s': %s ends at %" PRId64 ", expected %s"
                      " = %" PRId64,
                      path, key, prev,
                      strcmp(key, "node_map") ? "num_edges" : "num_nodes",
                      total);
out:
    free(lists);
    if (rc) {
        free(r);
        free(w);
        return rc;
    }
    *whole = w;
    *typed = r;
    return 0;
}

/* Every string member of a part's entry, in order. */
static int get_files(const cJSON *p, struct dp_part_files *f)
{
    const cJSON *m;
    int n = 0;

    cJSON_ArrayForEach(m, p) n += cJSON_IsString(m);
    if (!(f->keys = dp_calloc((size_t)n, sizeof(*f->keys))) ||
        !(f->paths = dp_calloc((size_t)n, sizeof(*f->paths))))
        return DP_ENOMEM;
    cJSON_ArrayForEach(m, p)
    {
        if (!cJSON_IsString(m))
            continue;
        f->keys[f->count] = dp_strdup(m->string);
        f->paths[f->count] = dp_strdup(m->valuestring);
        f->count++; /* freed with the rest on failure */
        if (!f->keys[f->count - 1] || !f->paths[f->count - 1])
            return DP_ENOMEM;
    }
    return 0;
}

static int get_parts(const cJSON *root, struct dp_part_config *c)
{
    char ***lists[3] = { &c->node_feats, &c->edge_feats, &c->part_graph };
    int i, k, rc;

    for (k = 0; k < 3; k++) {
        *lists[k] = dp_calloc((size_t)c->num_parts, sizeof(char *));
        if (!*lists[k])
            return DP_ENOMEM;
    }
    if (!(c->files = dp_calloc((size_t)c->num_parts, sizeof(*c->files))))
        return DP_ENOMEM;
    for (i = 0; i < c->num_parts; i++) {
        char key[32];
        const cJSON *p;

        snprintf(key, sizeof(key), "part-%d", i);
        p = cJSON_GetObjectItemCaseSensitive(root, key);
        if (!cJSON_IsObject(p))
            return dp_error(DP_EFORMAT, "'%s': \"%s\" is %s", c->path, key,
                            p ? "not an object" : "missing");
        if (!cJSON_GetObjectItemCaseSensitive(p, "part_graph") &&
            cJSON_GetObjectItemCaseSensitive(p, "part_graph_graphbolt"))
            return dp_error(DP_EUNSUPPORTED,
                            "'%s': \"%s\" holds a GraphBolt graph, not a "
                            "graph.dgl",
                            c->path, key);
        for (k = 0; k < 3; k++) {
            char what[64];

            snprintf(what, sizeof(what), "\"%s\".%s", key, part_keys[k]);
            rc = get_string(cJSON_GetObjectItemCaseSensitive(p, part_keys[k]),
                            c->path, what, &(*lists[k])[i]);
            if (rc)
                return rc;
        }
        if ((rc = get_files(p, &c->files[i])))
            return rc;
    }
    return 0;
}

static int parse_config(struct dp_part_config *c, const cJSON *root)
{
    const char *path = c->path;
    const cJSON *v;
    int64_t x;
    int rc;

    if (!cJSON_IsObject(root))
        return dp_error(DP_EFORMAT, "'%s': expected a JSON object", path);
    if ((rc = get_string(cJSON_GetObjectItemCaseSensitive(root, "graph_name"),
                         path, "graph_name", &c->graph_name)) != 0)
        return rc;
    v = cJSON_GetObjectItemCaseSensitive(root, "part_method");
    if (v && (rc = get_string(v, path, "part_method", &c->part_method)) != 0)
        return rc;
    if ((rc = get_i64(cJSON_GetObjectItemCaseSensitive(root, "num_nodes"), path,
                      "num_nodes", 0, INT64_MAX, &c->num_nodes)) != 0 ||
        (rc = get_i64(cJSON_GetObjectItemCaseSensitive(root, "num_edges"), path,
                      "num_edges", 0, INT64_MAX, &c->num_edges)) != 0 ||
        (rc = get_i64(cJSON_GetObjectItemCaseSensitive(root, "num_parts"), path,
                      "num_parts", 1, MAX_PARTS, &x)) != 0)
        return rc;
    c->num_parts = (int)x;
    v = cJSON_GetObjectItemCaseSensitive(root, "halo_hops");
    x = 1;
    if (v && (rc = get_i64(v, path, "halo_hops", 0, 1000, &x)) != 0)
        return rc;
    c->halo_hops = (int)x;
    if ((rc = get_ranges(root, path, "node_map", "ntypes", c->num_parts,
                         c->num_nodes, &c->node_map, &c->num_ntypes, &c->ntypes,
                         &c->ntype_map)) != 0 ||
        (rc = get_ranges(root, path, "edge_map", "etypes", c->num_parts,
                         c->num_edges, &c->edge_map, &c->num_etypes, &c->etypes,
                         &c->etype_map)) != 0)
        return rc;
    return get_parts(root, c);
}

/* cJSON prints with tabs; DGL's json.dump(indent=4) uses four spaces. */
static int reindent(const char *s, struct dp_buf *b)
{
    int rc = 0, bol = 1;

    for (; *s && !rc; s++) {
        if (*s == '\t' && bol)
            rc = dp_buf_adds(b, "    ");
        else if (*s == '\t')
            rc = dp_buf_adds(b, " ");
        else {
            bol = *s == '\n';
            rc = dp_buf_add(b, s, 1);
        }
    }
    return rc ? rc : dp_buf_adds(b, "\n");
}

/* The parsed config with its parts' paths made part<i>/<basename>. */
static int relocate(cJSON *root, const struct dp_part_config *c, char **out,
                    size_t *len)
{
    char key[32], path[4096], *text;
    cJSON *m;
    struct dp_buf b;
    int i, rc;

    for (i = 0; i < c->num_parts; i++) {
        snprintf(key, sizeof(key), "part-%d", i);
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, key))
        {
            if (!cJSON_IsString(m))
                continue;
            snprintf(path, sizeof(path), "part%d/%s", i,
                     dp_path_basename(m->valuestring));
            if (!cJSON_SetValuestring(m, path))
                return dp_error(DP_ENOMEM, "out of memory");
        }
    }
    if (!(text = cJSON_Print(root)))
        return dp_error(DP_ENOMEM, "out of memory printing '%s'", c->path);
    dp_buf_init(&b, 0);
    if ((rc = reindent(text, &b)) == 0)
        *out = dp_buf_detach(&b, len);
    free(text);
    dp_buf_release(&b);
    return rc;
}

static int load(struct dp_part_config *c, const char *path, char **relocated,
                size_t *len)
{
    char *text = NULL;
    size_t n;
    cJSON *root;
    int rc;

    memset(c, 0, sizeof(*c));
    rc = dp_read_file(path, CONFIG_MAX, &text, &n);
    if (rc)
        return rc;
    root = cJSON_ParseWithLength(text, n);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();

        rc = dp_error(DP_EFORMAT, "'%s': invalid JSON near byte %td", path,
                      at && at >= text && at <= text + n ? at - text
                                                         : (ptrdiff_t)0);
        free(text);
        return rc;
    }
    free(text);
    c->path = dp_strdup(path);
    c->dir = dp_path_dirname(path);
    if (!c->path || !c->dir)
        rc = DP_ENOMEM;
    else
        rc = parse_config(c, root);
    if (!rc && relocated)
        rc = relocate(root, c, relocated, len);
    cJSON_Delete(root);
    if (rc)
        dp_config_release(c);
    return rc;
}

int dp_config_load(struct dp_part_config *c, const char *path)
{
    return load(c, path, NULL, NULL);
}

int dp_config_load_relocated(struct dp_part_config *c, const char *path,
                             char **text, size_t *len)
{
    return load(c, path, text, len);
}

char *dp_config_part_file(const struct dp_part_config *c, int part,
                          const char *which)
{
    char **list = !strcmp(which, "node_feats")   ? c->node_feats
                  : !strcmp(which, "edge_feats") ? c->edge_feats
                  : !strcmp(which, "part_graph") ? c->part_graph
                                                 : NULL;

    if (!list || part < 0 || part >= c->num_parts || !list[part]) {
        dp_error(DP_EINVAL, "no '%s' for part %d", which, part);
        return NULL;
    }
    return dp_path_join(c->dir ? c->dir : ".", list[part]);
}

int dp_config_feature_range(const struct dp_part_config *c, int part, int edge,
                            const char *key, int64_t *start, int64_t *rows)
{
    const char *slash = strrchr(key, '/');
    int nt = edge ? c->num_etypes : c->num_ntypes, t;
    char **names = edge ? c->etypes : c->ntypes;
    int64_t(*typed)[2] = edge ? c->etype_map : c->ntype_map;
    const int64_t *whole = (edge ? c->edge_map : c->node_map)[part];

    if (nt <= 1 || !typed || !names || !slash) {
        *start = whole[0];
        *rows = whole[1] - whole[0];
        return 0;
    }
    for (t = 0; t < nt; t++) {
        size_t n = strlen(names[t]);
        if (n == (size_t)(slash - key) && !memcmp(names[t], key, n)) {
            const int64_t *r = typed[(size_t)part * (size_t)nt + (size_t)t];
            *start = r[0];
            *rows = r[1] - r[0];
            return t;
        }
    }
    dp_error(DP_ENOENT, "'%s': feature '%s' names no %s type of '%s'",
             c->path ? c->path : "config", key, edge ? "edge" : "node",
             c->path ? c->path : "config");
    return -1;
}

static int type_of(const struct dp_part_config *c, int64_t total, int nt,
                   const int64_t (*map)[2], int64_t id)
{
    size_t lo = 0, hi;

    if (id < 0 || id >= total)
        return -1;
    if (nt <= 1 || !map)
        return 0;
    /* The ranges tile [0, total) in order: the first that ends past id
     * holds it. */
    hi = (size_t)c->num_parts * (size_t)nt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (map[mid][1] > id)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (int)(lo % (size_t)nt);
}

int dp_config_ntype_of(const struct dp_part_config *c, int64_t id)
{
    return type_of(c, c->num_nodes, c->num_ntypes,
                   (const int64_t(*)[2])c->ntype_map, id);
}

int dp_config_etype_of(const struct dp_part_config *c, int64_t id)
{
    return type_of(c, c->num_edges, c->num_etypes,
                   (const int64_t(*)[2])c->etype_map, id);
}

void dp_config_release(struct dp_part_config *c)
{
    char **lists[3] = { c->node_feats, c->edge_feats, c->part_graph };
    int i, k;

    for (k = 0; k < 3; k++) {
        if (!lists[k])
            continue;
        for (i = 0; i < c->num_parts; i++)
            free(lists[k][i]);
        free(lists[k]);
    }
    for (i = 0; c->files && i < c->num_parts; i++) {
        for (k = 0; k < c->files[i].count; k++) {
            free(c->files[i].keys[k]);
            free(c->files[i].paths[k]);
        }
        free(c->files[i].keys);
        free(c->files[i].paths);
    }
    free(c->files);
    free(c->path);
    free(c->dir);
    free(c->graph_name);
    free(c->part_method);
    free(c->node_map);
    free(c->edge_map);
    for (i = 0; c->ntypes && i < c->num_ntypes; i++)
        free(c->ntypes[i]);
    for (i = 0; c->etypes && i < c->num_etypes; i++)
        free(c->etypes[i]);
    free(c->ntypes);
    free(c->etypes);
    free(c->ntype_map);
    free(c->etype_map);
    memset(c, 0, sizeof(*c));
}
