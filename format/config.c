/* The partition config JSON (<graph_name>.json): read through cJSON,
 * written by hand in the exact layout of Python's json.dump(indent=4) so our
 * files match DGL's byte for byte. */
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

/* "KEY": {"TYPE": [[s, e], ...]} at one level of indentation. */
static int add_ranges(struct dp_buf *b, const char *path, const char *key,
                      const char *type, int n, const int64_t (*r)[2])
{
    int i, rc = dp_buf_addf(b, "    \"%s\": {\n        ", key);

    if (!rc)
        rc = add_json_string(b, path, type);
    if (!rc)
        rc = dp_buf_adds(b, ": [\n");
    for (i = 0; !rc && i < n; i++)
        rc = dp_buf_addf(b,
                         "            [\n                %" PRId64
                         ",\n                %" PRId64 "\n            ]%s\n",
                         r[i][0], r[i][1], i + 1 < n ? "," : "");
    if (!rc)
        rc = dp_buf_adds(b, "        ]\n    },\n");
    return rc;
}

int dp_config_write(const char *path, const struct dp_part_config *c)
{
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
        rc = add_ranges(&b, path, "node_map", "_N", c->num_parts,
                        (const int64_t(*)[2])c->node_map);
    if (!rc)
        rc = add_ranges(&b, path, "edge_map", DP_ORIG_EIDS_KEY, c->num_parts,
                        (const int64_t(*)[2])c->edge_map);
    if (!rc)
        rc = dp_buf_adds(&b, "    \"ntypes\": {\n        \"_N\": 0\n    },\n"
                             "    \"etypes\": {\n        \"_N:_E:_N\": 0\n"
                             "    },\n");
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

/* node_map / edge_map: {"type": [[s, e], ...]} or the legacy list of
 * cumulative ends. Ranges must tile [0, total) in part order. */
static int get_ranges(const cJSON *root, const char *path, const char *key,
                      int parts, int64_t total, int64_t (**out)[2])
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, key), *list, *it;
    int64_t(*r)[2];
    int64_t prev = 0;
    int i = 0, rc = 0, legacy;
    char what[96];

    if (cJSON_IsObject(m)) {
        if (cJSON_GetArraySize(m) != 1)
            return dp_error(DP_EUNSUPPORTED,
                            "'%s': %s has %d types, expected 1 (homogeneous)",
                            path, key, cJSON_GetArraySize(m));
        list = m->child;
        legacy = 0;
    } else if (cJSON_IsArray(m)) {
        list = m;
        legacy = 1;
    } else {
        return dp_error(DP_EFORMAT, "'%s': %s is %s", path, key,
                        m ? "neither an object nor a list" : "missing");
    }
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != parts)
        return dp_error(DP_EFORMAT,
                        "'%s': %s has %d ranges, expected one per"
                        " part (%d)",
                        path, key,
                        cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0,
                        parts);
    r = dp_calloc((size_t)parts, sizeof(*r));
    if (!r)
        return DP_ENOMEM;
    cJSON_ArrayForEach(it, list)
    {
        snprintf(what, sizeof(what), "%s part %d", key, i);
        if (legacy) {
            r[i][0] = prev;
            rc = get_i64(it, path, what, 0, INT64_MAX, &r[i][1]);
        } else if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2) {
            rc = dp_error(DP_EFORMAT, "'%s': %s is not a [start, end] pair",
                          path, what);
        } else {
            rc = get_i64(it->child, path, what, 0, INT64_MAX, &r[i][0]);
            if (!rc)
                rc = get_i64(it->child->next, path, what, 0, INT64_MAX,
                             &r[i][1]);
        }
        if (rc)
            break;
        if (r[i][0] != prev || r[i][1] < r[i][0]) {
            rc = dp_error(DP_EFORMAT,
                          "'%s': %s is [%" PRId64 ", %" PRId64 "), expected a"
                          " range starting at %" PRId64,
                          path, what, r[i][0], r[i][1], prev);
            break;
        }
        prev = r[i][1];
        i++;
    }
    if (!rc && prev != total)
        rc = dp_error(DP_EFORMAT,
                      "'%s': %s ends at %" PRId64 ", expected %s"
                      " = %" PRId64,
                      path, key, prev,
                      strcmp(key, "node_map") ? "num_edges" : "num_nodes",
                      total);
    if (rc) {
        free(r);
        return rc;
    }
    *out = r;
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
    if ((rc = get_ranges(root, path, "node_map", c->num_parts, c->num_nodes,
                         &c->node_map)) != 0 ||
        (rc = get_ranges(root, path, "edge_map", c->num_parts, c->num_edges,
                         &c->edge_map)) != 0)
        return rc;
    return get_parts(root, c);
}

int dp_config_load(struct dp_part_config *c, const char *path)
{
    char *text = NULL;
    size_t len;
    cJSON *root;
    int rc;

    memset(c, 0, sizeof(*c));
    rc = dp_read_file(path, CONFIG_MAX, &text, &len);
    if (rc)
        return rc;
    root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();

        rc = dp_error(DP_EFORMAT, "'%s': invalid JSON near byte %td", path,
                      at && at >= text && at <= text + len ? at - text
                                                           : (ptrdiff_t)0);
        free(text);
        return rc;
    }
    free(text);
    c->path = dp_strdup(path);
    c->dir = dp_path_dirname(path);
    if (!c->path || !c->dir)
        rc = dp_error(DP_ENOMEM, "out of memory");
    else
        rc = parse_config(c, root);
    cJSON_Delete(root);
    if (rc)
        dp_config_release(c);
    return rc;
}

char *dp_config_part_file(const struct dp_part_config *c, int part,
                          const char *which)
{
    char **list = !strcmp(which, "node_feats")   ? c->node_feats
                  : !strcmp(which, "edge_feats") ? c->edge_feats
                  : !strcmp(which, "part_graph") ? c->part_graph
                                                 : NULL;
    char *p;

    if (!list || part < 0 || part >= c->num_parts || !list[part]) {
        dp_error(DP_EINVAL, "no '%s' for part %d", which, part);
        return NULL;
    }
    p = dp_path_join(c->dir ? c->dir : ".", list[part]);
    if (!p)
        dp_error(DP_ENOMEM, "out of memory");
    return p;
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
    free(c->path);
    free(c->dir);
    free(c->graph_name);
    free(c->part_method);
    free(c->node_map);
    free(c->edge_map);
    memset(c, 0, sizeof(*c));
}
