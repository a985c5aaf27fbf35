/* The trainer driver behind `dglpart sample`: DGL's environment, node_split,
 * mini-batch neighbour sampling and feature gathers, and an order-free
 * checksum of everything fetched (the sum mod 2^64 of one hash per item). */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "dglpart/buf.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"
#include "dglpart/runtime.h"

/* ---- environment ---- */

static int env_int(const char *name, int *out)
{
    int64_t v = -1;
    int rc = dp_env_int(name, &v);

    *out = (int)v;
    return rc;
}

int dp_dist_env(struct dp_dist_env *e)
{
    const char *role = dp_env_str("DGL_ROLE");
    const char *mode = dp_env_str("DGL_DIST_MODE");
    int rc;

    memset(e, 0, sizeof(*e));
    e->is_server = role && !strcmp(role, "server");
    e->standalone = !strcmp(mode, "standalone");
    if ((rc = env_int("DGL_SERVER_ID", &e->server_id)) ||
        (rc = env_int("DGL_NUM_SERVER", &e->num_servers)) ||
        (rc = env_int("DGL_NUM_CLIENT", &e->num_clients)))
        return rc;
    e->ip_config = dp_env_str("DGL_IP_CONFIG");
    e->conf_path = dp_env_str("DGL_CONF_PATH");
    return 0;
}

int dp_dist_init(int *served)
{
    struct dp_dist_env e;
    struct dp_server_opts o;
    int rc;

    *served = 0;
    if ((rc = dp_dist_env(&e)))
        return rc;
    if (!e.is_server)
        return 0;
    if (e.server_id < 0 || e.num_servers < 1 || e.num_clients < 0 ||
        !e.ip_config || !e.conf_path)
        return dp_error(DP_EINVAL,
                        "DGL_ROLE=server needs DGL_SERVER_ID, "
                        "DGL_NUM_SERVER, DGL_NUM_CLIENT, DGL_IP_CONFIG and "
                        "DGL_CONF_PATH");
    memset(&o, 0, sizeof(o));
    o.conf_path = e.conf_path;
    o.ip_config = e.ip_config;
    o.server_id = e.server_id;
    o.num_servers = e.num_servers;
    o.num_clients = e.num_clients;
    *served = 1;
    return dp_serve(&o);
}

/* ---- node_split ---- */

int dp_node_split(const int64_t *train, int64_t n, int rank, int world_size,
                  int64_t **out, int64_t *count)
{
    int64_t size, rem, lo, hi;

    if (world_size < 1 || rank < 0 || rank >= world_size)
        return dp_error(DP_ERANGE, "trainer rank %d of %d", rank, world_size);
    size = n / world_size;
    rem = n % world_size;
    lo = rank * size + (rank < rem ? rank : rem);
    hi = lo + size + (rank < rem ? 1 : 0);
    if (!(*out = dp_malloc_array((size_t)(hi - lo) + 1, 8)))
        return DP_ENOMEM;
    memcpy(*out, train + lo, (size_t)(hi - lo) * 8);
    *count = hi - lo;
    return 0;
}

/* ---- checksums ---- */

static uint64_t hash_bytes(const void *p, uint64_t n)
{
    const unsigned char *q = p;
    uint64_t h = n * 0x9E3779B97F4A7C15ull, w;

    for (; n >= 8; n -= 8, q += 8) {
        memcpy(&w, q, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    if (n) {
        w = 0;
        memcpy(&w, q, (size_t)n);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    return dp_mix64(h);
}

static uint64_t edge_hash(uint32_t epoch, uint32_t layer, int64_t dst,
                          int64_t src, int64_t eid)
{
    uint64_t h = dp_mix64(0xED6Eull ^ ((uint64_t)epoch << 16) ^ layer);
    h = dp_mix64(h ^ (uint64_t)dst);
    h = dp_mix64(h ^ (uint64_t)src);
    return dp_mix64(h ^ (uint64_t)eid);
}

static uint64_t row_hash(uint64_t tag, uint32_t epoch, int64_t id,
                         const void *row, uint64_t rb)
{
    uint64_t h = dp_mix64(tag ^ ((uint64_t)epoch << 16));
    h = dp_mix64(h ^ (uint64_t)id);
    return dp_mix64(h ^ hash_bytes(row, rb));
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the train set ---- */

static int nonzero(const unsigned char *row, uint64_t rb)
{
    uint64_t i;

    for (i = 0; i < rb; i++)
        if (row[i])
            return 1;
    return 0;
}

/* Train nodes in ascending global id: rows of the mask feature, asked of
 * each part in pieces; every node when the set has no such feature. */
/* The ids of part p that the trainer's node type holds (all of the part's
 * in an untyped set). */
static void type_range(const struct dp_rt *rt, int ntype, int64_t p,
                       int64_t *lo, int64_t *hi)
{
    const struct dp_part_config *c = &rt->cfg;

    if (ntype < 0) {
        *lo = rt->book.node_start[p];
        *hi = rt->book.node_start[p + 1];
        return;
    }
    *lo = c->ntype_map[p * c->num_ntypes + ntype][0];
    *hi = c->ntype_map[p * c->num_ntypes + ntype][1];
}

static int train_nodes(struct dp_rt *rt, const char *name, int ntype,
                       int64_t **out, int64_t *count)
{
    struct dp_buf acc;
    int64_t p, lo, *ids = NULL, chunk = 1 << 20, i;
    int rc = 0;

    dp_buf_init(&acc, 0);
    if (!(ids = dp_malloc_array((size_t)chunk, 8)))
        return DP_ENOMEM;
    for (p = 0; p < rt->cfg.num_parts && !rc; p++) {
        int64_t start, end;
        type_range(rt, ntype, p, &start, &end);
        for (lo = start; lo < end && !rc; lo += chunk) {
            int64_t n = end - lo < chunk ? end - lo : chunk;
            void *rows = NULL;
            uint64_t rb;
            enum dp_dtype dt;
            for (i = 0; i < n; i++)
                ids[i] = lo + i;
            rc = dp_rt_gather(rt, 0, name, ids, n, &rows, &rb, &dt);
            if (rc == DP_ENOENT && ntype < 0 && p == 0 && lo == 0) {
                dp_warn("no node feature '%s': every node is a train node",
                        name);
                free(ids);
                dp_buf_release(&acc);
                if (!(*out = dp_malloc_array((size_t)rt->cfg.num_nodes + 1, 8)))
                    return DP_ENOMEM;
                for (i = 0; i < rt->cfg.num_nodes; i++)
                    (*out)[i] = i;
                *count = rt->cfg.num_nodes;
                return 0;
            }
            for (i = 0; !rc && i < n; i++)
                if (nonzero((const unsigned char *)rows + (uint64_t)i * rb, rb))
                    rc = dp_buf_add(&acc, &ids[i], 8);
            free(rows);
        }
    }
    free(ids);
    if (rc) {
        dp_buf_release(&acc);
        return rc;
    }
    *count = (int64_t)(acc.len / 8);
    if (!acc.data && !(acc.data = dp_malloc(8)))
        return DP_ENOMEM;
    *out = (int64_t *)(void *)dp_buf_detach(&acc, NULL);
    return 0;
}

/* ---- the loop ---- */

struct stats {
    uint64_t batches, seeds, edges, feat_bytes;
    double t_sample, t_gather; /* seconds inside the runtime's calls */
};

/* Names and node type the trainer reads: in a typed set, the seeds' type
 * and "<type>/<name>" keys, and only input nodes of that type have rows;
 * and the fanout of each layer. */
struct names {
    int ntype; /* -1: untyped */
    char *feat, *label, *train;
    struct dp_fanout *layers; /* [num_layers] */
    int64_t *by_etype;        /* [num_layers * num_etypes] when typed */
    int num_layers;
};

/* The edge type a --fanouts name means: canonical, or a unique short name
 * (the middle of src:etype:dst). */
static int etype_named(const struct dp_part_config *c, const char *name,
                       size_t len, int *out)
{
    int t, found = -1, many = 0;

    for (t = 0; t < c->num_etypes; t++) {
        const char *n = c->etypes[t], *a = strchr(n, ':'),
                   *b = a ? strchr(a + 1, ':') : NULL;
        if (strlen(n) == len && !memcmp(n, name, len)) {
            *out = t;
            return 0;
        }
        if (a && b && (size_t)(b - a - 1) == len && !memcmp(a + 1, name, len)) {
            many |= found >= 0;
            found = t;
        }
    }
    if (found >= 0 && !many) {
        *out = found;
        return 0;
    }
    return dp_error(DP_EINVAL,
                    many ? "--fanouts: edge type '%.*s' is ambiguous (give "
                           "src:etype:dst)"
                         : "--fanouts: no edge type '%.*s' in '%s'",
                    (int)len, name, c->path);
}

/* One layer of a per-type spec: "ETYPE=K,...[,K]" into by[num_etypes]. */
static int typed_layer(const struct dp_part_config *c, const char *spec,
                       size_t len, int layer, int64_t *by)
{
    int64_t dflt = INT64_MIN;
    int t, rc;

    for (t = 0; t < c->num_etypes; t++)
        by[t] = INT64_MIN;
    while (len) {
        const char *comma = memchr(spec, ',', len), *eq;
        size_t tl = comma ? (size_t)(comma - spec) : len;
        char num[32];
        int64_t k;
        eq = memchr(spec, '=', tl);
        if (tl - (eq ? (size_t)(eq - spec) + 1 : 0) >= sizeof(num))
            return dp_error(DP_EINVAL, "--fanouts layer %d: bad fanout '%.*s'",
                            layer, (int)tl, spec);
        snprintf(num, sizeof(num), "%.*s",
                 (int)(tl - (eq ? (size_t)(eq - spec) + 1 : 0)),
                 eq ? eq + 1 : spec);
        if ((rc = dp_parse_i64("--fanouts", num, -1, 1 << 20, &k)))
            return rc;
        if (!eq) {
            dflt = k;
        } else {
            if ((rc = etype_named(c, spec, (size_t)(eq - spec), &t)))
                return rc;
            by[t] = k;
        }
        spec += tl + (comma ? 1 : 0);
        len -= tl + (comma ? 1 : 0);
    }
    for (t = 0; t < c->num_etypes; t++) {
        if (by[t] == INT64_MIN && dflt == INT64_MIN)
            return dp_error(DP_EINVAL,
                            "--fanouts layer %d: no fanout for edge type "
                            "'%s' (name every type, or add a number for the "
                            "rest)",
                            layer, c->etypes[t]);
        if (by[t] == INT64_MIN)
            by[t] = dflt;
    }
    return 0;
}

/* DGL's dict form as JSON: a list of layers, each {"ETYPE": K, ...}
 * naming every edge type as DGL requires, or one K for all types. */
static int json_layers(const struct dp_part_config *c, const char *s,
                       struct names *nm)
{
    cJSON *root = cJSON_Parse(s);
    const cJSON *layer, *it;
    int T = c->num_etypes, n, l = 0, t, rc = 0;

    if (!root || (!cJSON_IsArray(root) && !cJSON_IsObject(root))) {
        cJSON_Delete(root);
        return dp_error(DP_EINVAL,
                        "--fanouts '%s': expected JSON: a list "
                        "of {\"etype\": fanout} layers",
                        s);
    }
    if (cJSON_IsObject(root)) { /* one layer given bare */
        cJSON *list = cJSON_CreateArray();

        if (!list || !cJSON_AddItemToArray(list, root)) {
            cJSON_Delete(root);
            cJSON_Delete(list);
            return DP_ENOMEM;
        }
        root = list;
    }
    n = cJSON_GetArraySize(root);
    if (n < 1 || !(nm->layers = dp_calloc((size_t)n, sizeof(*nm->layers))) ||
        !(nm->by_etype = dp_malloc_array((size_t)n * (size_t)T, 8))) {
        rc = n < 1 ? dp_error(DP_EINVAL, "--fanouts: empty list") : DP_ENOMEM;
        goto out;
    }
    cJSON_ArrayForEach(layer, root)
    {
        int64_t *by = nm->by_etype + (size_t)l * T;
        const cJSON *obj = cJSON_IsObject(layer) ? layer : NULL;

        for (t = 0; t < T; t++)
            by[t] =
                cJSON_IsNumber(layer) ? (int64_t)layer->valuedouble : INT64_MIN;
        if (!cJSON_IsNumber(layer) && !cJSON_IsObject(layer)) {
            rc = dp_error(DP_EINVAL,
                          "--fanouts layer %d: expected "
                          "{\"etype\": fanout} or a number",
                          l);
            goto out;
        }
        cJSON_ArrayForEach(it, obj)
        {
            if ((rc = etype_named(c, it->string, strlen(it->string), &t)))
                goto out;
            if (!cJSON_IsNumber(it) ||
                it->valuedouble != (int64_t)it->valuedouble) {
                rc = dp_error(DP_EINVAL,
                              "--fanouts layer %d: '%s': expected "
                              "an integer fanout",
                              l, it->string);
                goto out;
            }
            by[t] = (int64_t)it->valuedouble;
        }
        for (t = 0; t < T; t++) {
            if (by[t] == INT64_MIN) {
                rc = dp_error(DP_EINVAL,
                              "--fanouts layer %d: no fanout for "
                              "edge type '%s' (DGL's dict form names every "
                              "type)",
                              l, c->etypes[t]);
                goto out;
            }
            if (by[t] < -1 || by[t] > 1 << 20) {
                rc = dp_error(DP_ERANGE,
                              "--fanouts layer %d: fanout %" PRId64
                              " of '%s' out of range [-1, %d]",
                              l, by[t], c->etypes[t], 1 << 20);
                goto out;
            }
        }
        nm->layers[l].by_etype = by;
        nm->layers[l].num_etypes = T;
        l++;
    }
    nm->num_layers = n;
out:
    cJSON_Delete(root);
    return rc;
}

static int pick_fanouts(const struct dp_rt *rt, const struct dp_train_opts *o,
                        struct names *nm)
{
    const struct dp_part_config *c = &rt->cfg;
    const char *s = o->typed_fanouts, *semi;
    int l, n = 1, T = c->num_etypes, rc;

    if (!s) {
        if (!(nm->layers =
                  dp_calloc((size_t)o->num_fanouts, sizeof(*nm->layers))))
            return DP_ENOMEM;
        for (l = 0; l < o->num_fanouts; l++)
            nm->layers[l].all = o->fanouts[l];
        nm->num_layers = o->num_fanouts;
        return 0;
    }
    if (T <= 1 || !c->etype_map)
        return dp_error(DP_EINVAL,
                        "--fanouts '%s': '%s' has no edge types to name", s,
                        c->path);
    if (s[strspn(s, " ")] == '[' || s[strspn(s, " ")] == '{')
        return json_layers(c, s, nm);
    for (semi = s; (semi = strchr(semi, ';')); semi++)
        n++;
    if (!(nm->layers = dp_calloc((size_t)n, sizeof(*nm->layers))) ||
        !(nm->by_etype = dp_malloc_array((size_t)n * (size_t)T, 8)))
        return DP_ENOMEM;
    for (l = 0; l < n; l++) {
        size_t len = (semi = strchr(s, ';')) ? (size_t)(semi - s) : strlen(s);
        if ((rc = typed_layer(c, s, len, l, nm->by_etype + (size_t)l * T)))
            return rc;
        nm->layers[l].by_etype = nm->by_etype + (size_t)l * T;
        nm->layers[l].num_etypes = T;
        s += len + 1;
    }
    nm->num_layers = n;
    return 0;
}

static int run_batch(struct dp_rt *rt, const struct dp_train_opts *o,
                     const struct names *nm, uint32_t epoch,
                     const int64_t *seeds, int64_t nseeds, struct stats *st,
                     uint64_t *sum)
{
    struct dp_blocks bs = { 0, NULL };
    const struct dp_block *in;
    void *rows = NULL;
    int64_t *deg = NULL, *typed = NULL, nin;
    const int64_t *inputs;
    uint64_t rb;
    enum dp_dtype dt;
    int64_t i;
    int l, rc;
    double t0 = now();

    if ((rc = dp_rt_sample_blocks_typed(rt, seeds, nseeds, nm->layers,
                                        nm->num_layers, o->seed, epoch, &bs)))
        goto out;
    st->t_sample += now() - t0;
    for (l = 0; l < bs.num_layers; l++) {
        const struct dp_block *b = &bs.b[l];
        st->edges += (uint64_t)b->num_edges;
        for (i = 0; i < b->num_edges; i++)
            *sum += edge_hash(epoch, (uint32_t)l, b->edge_dst[i],
                              b->edge_src[i], b->edge_id[i]);
    }
    /* Input features of the first block, labels of the seeds. */
    in = &bs.b[0];
    inputs = in->src_nodes;
    nin = in->num_src;
    if (nm->ntype >= 0) {
        if (!(typed = dp_malloc_array((size_t)nin + 1, sizeof(*typed)))) {
            rc = DP_ENOMEM;
            goto out;
        }
        for (i = 0, nin = 0; i < in->num_src; i++)
            if (dp_config_ntype_of(&rt->cfg, in->src_nodes[i]) == nm->ntype)
                typed[nin++] = in->src_nodes[i];
        inputs = typed;
    }
    t0 = now();
    if ((rc = dp_rt_gather(rt, 0, nm->feat, inputs, nin, &rows, &rb, &dt)))
        goto out;
    st->t_gather += now() - t0;
    for (i = 0; i < nin; i++)
        *sum += row_hash(0xFEA7, epoch, inputs[i],
                         (const char *)rows + (uint64_t)i * rb, rb);
    st->feat_bytes += (uint64_t)nin * rb;
    free(rows);
    rows = NULL;
    if ((rc = dp_rt_gather(rt, 0, nm->label, seeds, nseeds, &rows, &rb, &dt)))
        goto out;
    for (i = 0; i < nseeds; i++)
        *sum += row_hash(0x1AB, epoch, seeds[i],
                         (const char *)rows + (uint64_t)i * rb, rb);
    /* In-degrees of the seeds, as a GCN layer normalises by them. */
    free(rows);
    rows = NULL;
    if (!(deg = dp_malloc_array((size_t)nseeds + 1, sizeof(*deg)))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = dp_rt_in_degree(rt, seeds, nseeds, deg)))
        goto out;
    for (i = 0; i < nseeds; i++)
        *sum += row_hash(0xDE6, epoch, seeds[i], (const char *)&deg[i],
                         sizeof(deg[i]));
    st->batches++;
    st->seeds += (uint64_t)nseeds;
out:
    free(rows);
    free(deg);
    free(typed);
    dp_blocks_release(&bs);
    return rc;
}

static char *type_key(const char *type, const char *name)
{
    size_t n = strlen(type) + strlen(name) + 2;
    char *k = dp_malloc(n);

    if (k)
        snprintf(k, n, "%s/%s", type, name);
    return k;
}

/* 0 when node feature key can be read for one node of type t, DP_ENOENT
 * when no part has it, or another error. */
static int probe(struct dp_rt *rt, int t, const char *key)
{
    const struct dp_part_config *c = &rt->cfg;
    int p, rc = DP_ENOENT;

    for (p = 0; p < c->num_parts && rc == DP_ENOENT; p++) {
        int64_t id, end;
        void *rows = NULL;
        uint64_t rb;
        enum dp_dtype dt;
        type_range(rt, t, p, &id, &end);
        if (id == end)
            continue; /* no node of the type in this part */
        rc = dp_rt_gather(rt, 0, key, &id, 1, &rows, &rb, &dt);
        free(rows);
    }
    return rc;
}

/* "<type>/<name>", or with DGL's other name for it when only that exists
 * (a typed key is exact: "paper/features" is not "paper/feat"). */
static int typed_key(struct dp_rt *rt, int t, const char *name, char **out)
{
    const char *twin = dp_feature_twin(name);
    char *k = type_key(rt->cfg.ntypes[t], name), *k2;

    if (!k)
        return DP_ENOMEM;
    if (twin && probe(rt, t, k) == DP_ENOENT) {
        if (!(k2 = type_key(rt->cfg.ntypes[t], twin))) {
            free(k);
            return DP_ENOMEM;
        }
        if (!probe(rt, t, k2)) {
            free(k);
            k = k2;
        } else {
            free(k2);
        }
    }
    *out = k;
    return 0;
}

/* In a typed set: the seeds' node type (--ntype, else the first type whose
 * "<type>/<train_name>" feature exists), and the keys to read. */
static int pick_names(struct dp_rt *rt, const struct dp_train_opts *o,
                      struct names *nm)
{
    const struct dp_part_config *c = &rt->cfg;
    int t, rc;

    nm->ntype = -1;
    if (c->num_ntypes <= 1 || !c->ntype_map) {
        nm->feat = dp_strdup(o->feat_name);
        nm->label = dp_strdup(o->label_name);
        nm->train = dp_strdup(o->train_name);
        return nm->feat && nm->label && nm->train ? 0 : DP_ENOMEM;
    }
    for (t = 0; t < c->num_ntypes && nm->ntype < 0; t++) {
        char *key;
        if (o->ntype && strcmp(o->ntype, c->ntypes[t]))
            continue;
        if (!(key = type_key(c->ntypes[t], o->train_name)))
            return DP_ENOMEM;
        rc = probe(rt, t, key);
        free(key);
        if (!rc || o->ntype)
            nm->ntype = t;
        else if (rc != DP_ENOENT)
            return rc;
    }
    if (nm->ntype < 0)
        return dp_error(DP_ENOENT,
                        o->ntype ? "'%s': no node type '%s'"
                                 : "'%s': no node type has a '%s' feature "
                                   "(name the seeds' type with --ntype)",
                        c->path, o->ntype ? o->ntype : o->train_name);
    if ((rc = typed_key(rt, nm->ntype, o->feat_name, &nm->feat)) ||
        (rc = typed_key(rt, nm->ntype, o->label_name, &nm->label)))
        return rc;
    nm->train = type_key(c->ntypes[nm->ntype], o->train_name);
    return nm->train ? 0 : DP_ENOMEM;
}

int dp_train_run(const struct dp_train_opts *o, uint64_t *checksum)
{
    struct dp_rt rt;
    struct names nm = { -1, NULL, NULL, NULL, NULL, NULL, 0 };
    int64_t *train = NULL, ntrain = 0, *mine = NULL, nmine = 0, *order = NULL;
    uint64_t sum = 0;
    int rc, epoch, local;

    if (o->batch_size < 1 || o->num_fanouts < 1 || o->epochs < 0)
        return dp_error(DP_EINVAL, "bad batch size, fanouts or epochs");
    dp_rt_tune_malloc();
    if (o->standalone) {
        rc = dp_rt_open_standalone(&rt, o->conf_path);
    } else {
        struct dp_part_config c;
        if (!o->ip_config)
            return dp_error(DP_EINVAL, "distributed mode needs an ip_config "
                                       "(DGL_IP_CONFIG or --ip_config)");
        /* The local part: this trainer's machine, rank * parts / trainers. */
        local = o->local_part;
        if (local == -2) {
            if ((rc = dp_config_load(&c, o->conf_path)))
                return rc;
            local = (int)((int64_t)o->rank * c.num_parts / o->world_size);
            dp_config_release(&c);
        }
        rc = dp_rt_open_dist(&rt, o->conf_path, o->ip_config, o->num_servers,
                             local, (uint32_t)o->rank);
    }
    if (rc)
        return rc;
    if ((rc = pick_names(&rt, o, &nm)) || (rc = pick_fanouts(&rt, o, &nm)) ||
        (rc = train_nodes(&rt, nm.train, nm.ntype, &train, &ntrain)) ||
        (rc = dp_node_split(train, ntrain, o->rank, o->world_size, &mine,
                            &nmine)))
        goto out;
    fprintf(stderr,
            "%s: trainer %d of %d: %lld of %lld train nodes%s%s, %s, "
            "%d parts",
            dp_progname(), o->rank, o->world_size, (long long)nmine,
            (long long)ntrain, nm.ntype >= 0 ? " of type " : "",
            nm.ntype >= 0 ? rt.cfg.ntypes[nm.ntype] : "",
            o->standalone ? "standalone" : "distributed", rt.cfg.num_parts);
    if (!o->standalone && rt.local >= 0)
        fprintf(stderr, ", part %d local\n", rt.local);
    else
        fprintf(stderr, o->standalone ? "\n" : ", none local\n");
    rc = DP_ENOMEM;
    if (!(order = dp_malloc_array((size_t)nmine + 1, 8)))
        goto out;
    rc = 0;
    for (epoch = 0; epoch < o->epochs && !rc; epoch++) {
        struct stats st = { 0, 0, 0, 0, 0, 0 };
        uint64_t base =
            dp_mix64(o->seed ^ dp_mix64(0x5EED0000ull + (uint64_t)epoch)) ^
            dp_mix64((uint64_t)o->rank);
        double t0 = now(), dt;
        int64_t i;
        memcpy(order, mine, (size_t)nmine * 8);
        for (i = nmine - 1; i > 0; i--) {
            uint64_t r = dp_mix64(base + (uint64_t)i);
            int64_t j =
                (int64_t)(((unsigned __int128)r * (uint64_t)(i + 1)) >> 64);
            int64_t x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (i = 0; i < nmine && !rc; i += o->batch_size) {
            int64_t nb = nmine - i < o->batch_size ? nmine - i : o->batch_size;
            rc = run_batch(&rt, o, &nm, (uint32_t)epoch, order + i, nb, &st,
                           &sum);
        }
        dt = now() - t0;
        /* Rates over the time spent in sampling / gather calls; the
         * rest is this driver's dedup and checksum hashing. */
        if (!rc)
            fprintf(stderr,
                    "%s: epoch %d: %llu batches, %llu seeds, %llu "
                    "sampled edges, %.1f MB of features in %.3f s "
                    "(sampling %.3f s: %.0f edges/s; gather %.3f s: %.3f "
                    "GB/s)\n",
                    dp_progname(), epoch, (unsigned long long)st.batches,
                    (unsigned long long)st.seeds, (unsigned long long)st.edges,
                    st.feat_bytes / 1e6, dt, st.t_sample,
                    st.t_sample > 0 ? st.edges / st.t_sample : 0.0, st.t_gather,
                    st.t_gather > 0 ? st.feat_bytes / st.t_gather / 1e9 : 0.0);
    }
    if (!rc && !o->standalone)
        fprintf(stderr,
                "%s: %llu requests to servers, %llu bytes sent, "
                "%llu received\n",
                dp_progname(), (unsigned long long)rt.requests,
                (unsigned long long)rt.bytes_sent,
                (unsigned long long)rt.bytes_recv);
    if (!rc)
        *checksum = sum;
out:
    free(train);
    free(mine);
    free(order);
    free(nm.feat);
    free(nm.label);
    free(nm.train);
    free(nm.layers);
    free(nm.by_etype);
    dp_rt_close(&rt);
    return rc;
}
