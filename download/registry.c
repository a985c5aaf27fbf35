/* The dataset registry: datasets/registry.json is assembled into the binary
 * (.incbin), so dglpart knows its datasets from any working directory; a
 * file named by $DGLPART_REGISTRY adds or replaces entries. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/download.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

/* The Makefile runs the compiler from the top of the tree, where the
 * assembler finds this path; the object depends on the file (Makefile). */
__asm__(".section .rodata\n"
        ".balign 16\n"
        "dp_registry_json_start:\n"
        ".incbin \"datasets/registry.json\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char dp_registry_json_start[] __asm__("dp_registry_json_start");

static void entry_release(struct dp_registry_entry *e)
{
    int i;

    free(e->name);
    free(e->description);
    for (i = 0; i < e->nurls; i++)
        free(e->urls[i]);
    free(e->urls);
    free(e->archive);
    free(e->layout);
    free(e->folder);
    free(e->format);
    free(e->bundled);
    memset(e, 0, sizeof(*e));
}

void dp_registry_release(struct dp_registry *r)
{
    int i;

    if (!r)
        return;
    for (i = 0; i < r->n; i++)
        entry_release(&r->e[i]);
    free(r->e);
    r->e = NULL;
    r->n = 0;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int get_u64(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    *out = 0;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9e18)
        return -1;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

static int is_hex64(const char *s)
{
    size_t i;

    if (strlen(s) != 64)
        return 0;
    for (i = 0; i < 64; i++)
        if (!strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

/* A folder name used under the data dir must stay one plain component. */
static int plain_component(const char *s)
{
    return s && *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

static int parse_entry(const cJSON *o, struct dp_registry_entry *e,
                       const char *what)
{
    const cJSON *urls = cJSON_GetObjectItemCaseSensitive(o, "urls");
    const char *s;
    uint64_t v;
    char *p;
    int i, n;

    memset(e, 0, sizeof(*e));
    e->nodes = e->edges = e->dgl_edges = -1;
    s = get_str(o, "name");
    if (!s || !*s)
        return dp_error(DP_EFORMAT, "'%s': a dataset has no \"name\"", what);
    if (!(e->name = dp_strdup(s)))
        return DP_ENOMEM;
    if (get_u64(o, "size", &e->size) || get_u64(o, "unpacked", &e->unpacked))
        return dp_error(DP_EFORMAT, "'%s': dataset '%s': bad size", what,
                        e->name);
    e->size_exact =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "size_exact"));
    e->undirected =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "undirected"));
    e->dedup = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "dedup"));
    e->no_self_loops =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "no_self_loops"));
    if (!get_u64(o, "nodes", &v) && v)
        e->nodes = (int64_t)v;
    if (!get_u64(o, "edges", &v) && v)
        e->edges = (int64_t)v;
    if (!get_u64(o, "dgl_edges", &v) && v)
        e->dgl_edges = (int64_t)v;
    s = get_str(o, "sha256");
    if (s) {
        if (!is_hex64(s))
            return dp_error(DP_EFORMAT,
                            "'%s': dataset '%s': sha256 must be 64 lowercase "
                            "hex digits",
                            what, e->name);
        memcpy(e->sha256, s, 65);
    }
    s = get_str(o, "folder");
    if (s && !plain_component(s))
        return dp_error(DP_EFORMAT, "'%s': dataset '%s': bad folder '%s'", what,
                        e->name, s);
    if (s)
        e->folder = dp_strdup(s);
    else if ((e->folder = dp_strdup(e->name)) != NULL)
        for (p = e->folder; *p; p++)
            if (*p == '-')
                *p = '_';
    if (e->folder && !plain_component(e->folder))
        return dp_error(DP_EFORMAT,
                        "'%s': dataset '%s' needs a \"folder\" (its name "
                        "is not a plain folder name)",
                        what, e->name);
    s = get_str(o, "bundled");
    if (s && !plain_component(s))
        return dp_error(DP_EFORMAT, "'%s': dataset '%s': bad bundled '%s'",
                        what, e->name, s);
    e->bundled = dp_strdup(s);
    e->description =
        dp_strdup(get_str(o, "description") ? get_str(o, "description") : "");
    e->archive =
        dp_strdup(get_str(o, "archive") ? get_str(o, "archive") : "zip");
    e->layout = dp_strdup(get_str(o, "layout") ? get_str(o, "layout") : "");
    e->format = dp_strdup(get_str(o, "format") ? get_str(o, "format") : "auto");
    if (!e->folder || (s && !e->bundled) || !e->description || !e->archive ||
        !e->layout || !e->format)
        return DP_ENOMEM;
    if (strcmp(e->archive, "zip") && strcmp(e->archive, "tar") &&
        strcmp(e->archive, "none"))
        return dp_error(DP_EFORMAT,
                        "'%s': dataset '%s': archive must be zip, tar or none",
                        what, e->name);
    n = cJSON_GetArraySize(urls);
    if (!e->bundled && (!cJSON_IsArray(urls) || n == 0))
        return dp_error(DP_EFORMAT, "'%s': dataset '%s' has no \"urls\"", what,
                        e->name);
    if (n > 0) {
        e->urls = dp_calloc((size_t)n, sizeof(*e->urls));
        if (!e->urls)
            return DP_ENOMEM;
        for (i = 0; i < n; i++) {
            const cJSON *u = cJSON_GetArrayItem(urls, i);

            if (!cJSON_IsString(u) || !strstr(u->valuestring, "://"))
                return dp_error(DP_EFORMAT, "'%s': dataset '%s': bad url", what,
                                e->name);
            if (!(e->urls[i] = dp_strdup(u->valuestring)))
                return DP_ENOMEM;
            e->nurls = i + 1;
        }
    }
    return 0;
}

int dp_registry_parse(struct dp_registry *r, const char *json, size_t len,
                      const char *what)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *list, *item;
    struct dp_registry_entry e;
    int rc = 0, i;

    if (!root)
        return dp_error(DP_EFORMAT, "'%s': not valid JSON", what);
    if (!get_str(root, "format") ||
        strcmp(get_str(root, "format"), "dglpart-registry")) {
        rc = dp_error(DP_EFORMAT, "'%s': format is not \"dglpart-registry\"",
                      what);
        goto out;
    }
    list = cJSON_GetObjectItemCaseSensitive(root, "datasets");
    if (!cJSON_IsArray(list)) {
        rc = dp_error(DP_EFORMAT, "'%s': no \"datasets\" array", what);
        goto out;
    }
    cJSON_ArrayForEach(item, list)
    {
        struct dp_registry_entry *grown;

        rc = parse_entry(item, &e, what);
        if (rc) {
            entry_release(&e);
            goto out;
        }
        for (i = 0; i < r->n; i++)
            if (!strcmp(r->e[i].name, e.name))
                break;
        if (i < r->n) {
            entry_release(&r->e[i]);
            r->e[i] = e;
            continue;
        }
        grown = dp_realloc_array(r->e, (size_t)r->n + 1, sizeof(*r->e));
        if (!grown) {
            entry_release(&e);
            rc = DP_ENOMEM;
            goto out;
        }
        r->e = grown;
        r->e[r->n++] = e;
    }
out:
    cJSON_Delete(root);
    return rc;
}

int dp_registry_load(struct dp_registry *r)
{
    const char *extra = dp_env_str("DGLPART_REGISTRY");
    char *text = NULL;
    size_t len;
    int rc;

    r->e = NULL;
    r->n = 0;
    rc = dp_registry_parse(r, dp_registry_json_start,
                           strlen(dp_registry_json_start), "built-in registry");
    if (!rc && extra) {
        rc = dp_read_file(extra, 16 << 20, &text, &len);
        if (!rc)
            rc = dp_registry_parse(r, text, len, extra);
        free(text);
    }
    if (rc)
        dp_registry_release(r);
    return rc;
}

const struct dp_registry_entry *dp_registry_find(const struct dp_registry *r,
                                                 const char *name)
{
    int i;

    for (i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].name, name))
            return &r->e[i];
    for (i = 0; i < r->n; i++)
        if (!strcmp(r->e[i].folder, name))
            return &r->e[i];
    return NULL;
}

char *dp_bundled_dir(void)
{
    static const char *const rel[] = { "datasets", "../share/dglpart/datasets",
                                       "../../datasets" };
    const char *env = dp_env_str("DGLPART_DATASETS");
    char exe[PATH_MAX], *dir, *cand;
    ssize_t n;
    size_t i;

    if (env)
        return dp_strdup(env);
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        dp_error(DP_ENOENT, "cannot find the bundled datasets: "
                            "/proc/self/exe unreadable; set DGLPART_DATASETS");
        return NULL;
    }
    exe[n] = '\0';
    dir = dp_path_dirname(exe);
    if (!dir)
        return NULL;
    for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char *probe;

        cand = dp_path_join(dir, rel[i]);
        probe = cand ? dp_path_join(cand, "registry.json") : NULL;
        if (probe && dp_is_dir(cand) && dp_exists(probe)) {
            free(probe);
            free(dir);
            return cand;
        }
        free(probe);
        free(cand);
    }
    dp_error(DP_ENOENT,
             "cannot find the bundled datasets next to '%s'; "
             "set DGLPART_DATASETS",
             exe);
    free(dir);
    return NULL;
}
