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
#include "rt_int.h"

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
    double t_wait;             /* waiting for the samplers */
    double t_first;            /* of it, for the run's first batch, which
                                  waits for the samplers to start */
    uint64_t work;             /* --compute's result, kept so it is done */
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

/* A batch made in this process, and what its dp_batch points into. */
struct made {
    struct dp_blocks bs;
    struct dp_batch_layer *layers;
    int64_t *typed, *deg;
    void *feat, *labels;
};

static void made_release(struct made *m)
{
    dp_blocks_release(&m->bs);
    free(m->layers);
    free(m->typed);
    free(m->deg);
    free(m->feat);
    free(m->labels);
    memset(m, 0, sizeof(*m));
}

/* Sample the blocks of seeds, gather the input nodes' features and the
 * seeds' labels and in-degrees (a GCN layer normalises by them). */
static int make_batch(struct dp_rt *rt, const struct dp_train_opts *o,
                      const struct names *nm, uint32_t epoch,
                      const int64_t *seeds, int64_t nseeds, struct made *m,
                      struct dp_batch *b)
{
    const struct dp_block *in;
    enum dp_dtype dt;
    int64_t i;
    int l, rc;
    double t0 = now();

    memset(m, 0, sizeof(*m));
    memset(b, 0, sizeof(*b));
    if ((rc =
             dp_rt_sample_blocks_typed(rt, seeds, nseeds, nm->layers,
                                       nm->num_layers, o->seed, epoch, &m->bs)))
        goto out;
    b->t_sample = now() - t0;
    rc = DP_ENOMEM;
    if (!(m->layers = dp_calloc((size_t)m->bs.num_layers, sizeof(*m->layers))))
        goto out;
    for (l = 0; l < m->bs.num_layers; l++) {
        const struct dp_block *k = &m->bs.b[l];
        m->layers[l].num_edges = k->num_edges;
        m->layers[l].dst = k->edge_dst;
        m->layers[l].src = k->edge_src;
        m->layers[l].eid = k->edge_id;
    }
    b->epoch = epoch;
    b->num_layers = m->bs.num_layers;
    b->layers = m->layers;
    /* Input features of the first block; in a typed set only the input
     * nodes of the seeds' type have them. */
    in = &m->bs.b[0];
    b->inputs = in->src_nodes;
    b->num_inputs = in->num_src;
    if (nm->ntype >= 0) {
        if (!(m->typed = dp_malloc_array((size_t)in->num_src + 1, 8)))
            goto out;
        for (i = 0, b->num_inputs = 0; i < in->num_src; i++)
            if (dp_config_ntype_of(&rt->cfg, in->src_nodes[i]) == nm->ntype)
                m->typed[b->num_inputs++] = in->src_nodes[i];
        b->inputs = m->typed;
    }
    t0 = now();
    if ((rc = dp_rt_gather(rt, 0, nm->feat, b->inputs, b->num_inputs, &m->feat,
                           &b->feat_bytes, &dt)))
        goto out;
    b->t_gather = now() - t0;
    b->feat = m->feat;
    if ((rc = dp_rt_gather(rt, 0, nm->label, seeds, nseeds, &m->labels,
                           &b->label_bytes, &dt)))
        goto out;
    b->labels = m->labels;
    b->seeds = seeds;
    b->num_seeds = nseeds;
    if (!(m->deg = dp_malloc_array((size_t)nseeds + 1, 8))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = dp_rt_in_degree(rt, seeds, nseeds, m->deg)))
        goto out;
    b->deg = m->deg;
out:
    if (rc)
        made_release(m);
    return rc;
}

/* What the trainer does with a batch: the checksum of every item, and
 * --compute more passes over its features. */
static void check_batch(const struct dp_batch *b, int compute, struct stats *st,
                        uint64_t *sum)
{
    const char *feat = b->feat, *lab = b->labels;
    uint64_t fb = b->feat_bytes, lb = b->label_bytes;
    int64_t i;
    int l, k;

    for (l = 0; l < b->num_layers; l++) {
        const struct dp_batch_layer *x = &b->layers[l];
        st->edges += (uint64_t)x->num_edges;
        for (i = 0; i < x->num_edges; i++)
            *sum += edge_hash(b->epoch, (uint32_t)l, x->dst[i], x->src[i],
                              x->eid[i]);
    }
    for (i = 0; i < b->num_inputs; i++)
        *sum += row_hash(0xFEA7, b->epoch, b->inputs[i],
                         feat + (uint64_t)i * fb, fb);
    st->feat_bytes += (uint64_t)b->num_inputs * fb;
    for (i = 0; i < b->num_seeds; i++)
        *sum +=
            row_hash(0x1AB, b->epoch, b->seeds[i], lab + (uint64_t)i * lb, lb);
    for (i = 0; i < b->num_seeds; i++)
        *sum += row_hash(0xDE6, b->epoch, b->seeds[i], &b->deg[i], 8);
    for (k = 0; k < compute; k++)
        st->work += hash_bytes(feat, (uint64_t)b->num_inputs * fb);
    st->batches++;
    st->seeds += (uint64_t)b->num_seeds;
    st->t_sample += b->t_sample;
    st->t_gather += b->t_gather;
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

/* The batches of one trainer, numbered epoch-major: batch g holds seeds
 * [(g % per_epoch) * batch_size, ...) of epoch g / per_epoch's shuffle.
 * Samplers and the in-loop path make them alike. */
struct trainer {
    struct dp_rt *rt;
    const struct dp_train_opts *o;
    const struct names *nm;
    const int64_t *mine;
    int64_t nmine, per_epoch;
    int64_t *order;  /* the shuffle of order_epoch */
    int order_epoch; /* -1: none yet */
    struct made m;   /* the batch in the making */
};

static void shuffle(struct trainer *t, int epoch)
{
    const struct dp_train_opts *o = t->o;
    uint64_t base =
        dp_mix64(o->seed ^ dp_mix64(0x5EED0000ull + (uint64_t)epoch)) ^
        dp_mix64((uint64_t)o->rank);
    int64_t i, *order = t->order;

    memcpy(order, t->mine, (size_t)t->nmine * 8);
    for (i = t->nmine - 1; i > 0; i--) {
        uint64_t r = dp_mix64(base + (uint64_t)i);
        int64_t j = (int64_t)(((unsigned __int128)r * (uint64_t)(i + 1)) >> 64);
        int64_t x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    t->order_epoch = epoch;
}

static int make_nth(void *arg, uint64_t g, struct dp_batch *b)
{
    struct trainer *t = arg;
    int epoch = (int)(g / (uint64_t)t->per_epoch);
    int64_t at = (int64_t)(g % (uint64_t)t->per_epoch) * t->o->batch_size;
    int64_t n =
        t->nmine - at < t->o->batch_size ? t->nmine - at : t->o->batch_size;
    int rc;

    if (epoch != t->order_epoch)
        shuffle(t, epoch);
    rc = make_batch(t->rt, t->o, t->nm, (uint32_t)epoch, t->order + at, n,
                    &t->m, b);
    b->index = g;
    return rc;
}

static void drop_made(void *arg, struct dp_batch *b)
{
    struct trainer *t = arg;

    (void)b;
    made_release(&t->m);
}

/* In a sampler worker: its own connections, as one more client of the
 * servers (DGL counts samplers among DGL_NUM_CLIENT): after the world's
 * trainers, rank r's samplers take ids W + r * M + w. */
static int sampler_setup(void *arg, int w)
{
    struct trainer *t = arg;
    const struct dp_train_opts *o = t->o;

    if (o->standalone)
        return 0;
    return dp_rt_reconnect(
        t->rt, (uint32_t)(o->world_size + o->rank * o->num_samplers + w));
}

static int sampler_finish(void *arg, struct dp_pool_stats *st)
{
    struct trainer *t = arg;

    st->requests = t->rt->requests;
    st->bytes_sent = t->rt->bytes_sent;
    st->bytes_recv = t->rt->bytes_recv;
    dp_rt_close(t->rt); /* the goodbyes */
    return 0;
}

int dp_train_run(const struct dp_train_opts *o, uint64_t *checksum)
{
    struct dp_rt rt;
    struct names nm = { -1, NULL, NULL, NULL, NULL, NULL, 0 };
    struct trainer t;
    struct dp_pool *pool = NULL;
    struct dp_pool_stats ps = { 0, 0, 0, 0 };
    struct dp_batch_layer *layers = NULL;
    int64_t *train = NULL, ntrain = 0, *mine = NULL, nmine = 0;
    uint64_t sum = 0, work = 0, g = 0;
    int rc, epoch, local;

    if (o->batch_size < 1 || o->num_fanouts < 1 || o->epochs < 0 ||
        o->num_samplers < 0)
        return dp_error(DP_EINVAL, "bad batch size, fanouts, epochs or "
                                   "samplers");
    dp_rt_tune_malloc();
    memset(&t, 0, sizeof(t));
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
    if (!o->standalone && rt.local >= 0 &&
        dp_part_shm_path(&rt.parts[rt.local]))
        fprintf(stderr, ", part %d local (%s the shared copy '%s')", rt.local,
                rt.local_built ? "built" : "attached to",
                dp_part_shm_path(&rt.parts[rt.local]));
    else if (!o->standalone && rt.local >= 0)
        fprintf(stderr, ", part %d local", rt.local);
    else if (!o->standalone)
        fprintf(stderr, ", none local");
    if (o->num_samplers > 0)
        fprintf(stderr, ", %d samplers", o->num_samplers);
    fputc('\n', stderr);
    t.rt = &rt;
    t.o = o;
    t.nm = &nm;
    t.mine = mine;
    t.nmine = nmine;
    t.per_epoch = (nmine + o->batch_size - 1) / o->batch_size;
    t.order_epoch = -1;
    rc = DP_ENOMEM;
    if (!(t.order = dp_malloc_array((size_t)nmine + 1, 8)) ||
        !(layers = dp_calloc((size_t)nm.num_layers, sizeof(*layers))))
        goto out;
    rc = 0;
    if (o->num_samplers > 0 && t.per_epoch * o->epochs > 0) {
        struct dp_pool_job job = { &t,
                                   sampler_setup,
                                   make_nth,
                                   drop_made,
                                   sampler_finish,
                                   (uint64_t)(t.per_epoch * o->epochs),
                                   nm.num_layers,
                                   "sampler" };
        int q = o->queue_size > 0 ? o->queue_size : 4 * o->num_samplers;
        if ((rc = dp_pool_start(&pool, &job, o->num_samplers,
                                (q + o->num_samplers - 1) / o->num_samplers)))
            goto out;
    }
    for (epoch = 0; epoch < o->epochs && !rc; epoch++) {
        struct stats st;
        double t0 = now(), dt;
        int64_t k;
        memset(&st, 0, sizeof(st));
        for (k = 0; k < t.per_epoch && !rc; k++, g++) {
            struct dp_batch b;
            if (pool) {
                double w0 = now();
                b.layers = layers;
                rc = dp_pool_next(pool, g, &b);
                st.t_wait += now() - w0;
                if (g == 0)
                    st.t_first = now() - w0;
            } else {
                rc = make_nth(&t, g, &b);
            }
            if (!rc)
                check_batch(&b, o->compute, &st, &sum);
            if (!pool)
                made_release(&t.m);
        }
        work += st.work;
        dt = now() - t0;
        /* Overall rates, then those over the time spent in sampling and
         * gather calls (the samplers' added up when there are some). */
        if (!rc && pool)
            fprintf(stderr,
                    "%s: epoch %d: %llu batches, %llu seeds, %llu "
                    "sampled edges, %.1f MB of features in %.3f s: "
                    "%.0f edges/s, %.1f batches/s (%d samplers: sampling "
                    "%.3f s: %.0f edges/s; gather %.3f s: %.3f GB/s; the "
                    "trainer waited %.3f s, %.3f s of it for the first "
                    "batch)\n",
                    dp_progname(), epoch, (unsigned long long)st.batches,
                    (unsigned long long)st.seeds, (unsigned long long)st.edges,
                    st.feat_bytes / 1e6, dt, dt > 0 ? st.edges / dt : 0.0,
                    dt > 0 ? st.batches / dt : 0.0, o->num_samplers,
                    st.t_sample, st.t_sample > 0 ? st.edges / st.t_sample : 0.0,
                    st.t_gather,
                    st.t_gather > 0 ? st.feat_bytes / st.t_gather / 1e9 : 0.0,
                    st.t_wait, st.t_first);
        else if (!rc)
            fprintf(stderr,
                    "%s: epoch %d: %llu batches, %llu seeds, %llu "
                    "sampled edges, %.1f MB of features in %.3f s: "
                    "%.0f edges/s, %.1f batches/s (sampling %.3f s: %.0f "
                    "edges/s; gather %.3f s: %.3f GB/s)\n",
                    dp_progname(), epoch, (unsigned long long)st.batches,
                    (unsigned long long)st.seeds, (unsigned long long)st.edges,
                    st.feat_bytes / 1e6, dt, dt > 0 ? st.edges / dt : 0.0,
                    dt > 0 ? st.batches / dt : 0.0, st.t_sample,
                    st.t_sample > 0 ? st.edges / st.t_sample : 0.0, st.t_gather,
                    st.t_gather > 0 ? st.feat_bytes / st.t_gather / 1e9 : 0.0);
    }
    if (!rc && pool)
        rc = dp_pool_finish(pool, &ps);
    if (!rc && !o->standalone)
        fprintf(stderr,
                "%s: %llu requests to servers, %llu bytes sent, "
                "%llu received\n",
                dp_progname(), (unsigned long long)(rt.requests + ps.requests),
                (unsigned long long)(rt.bytes_sent + ps.bytes_sent),
                (unsigned long long)(rt.bytes_recv + ps.bytes_recv));
    if (!rc && o->compute > 0 && dp_verbose)
        fprintf(stderr, "%s: compute result %016llx\n", dp_progname(),
                (unsigned long long)work);
    if (!rc)
        *checksum = sum;
out:
    dp_pool_free(pool);
    made_release(&t.m);
    free(layers);
    free(train);
    free(mine);
    free(t.order);
    free(nm.feat);
    free(nm.label);
    free(nm.train);
    free(nm.layers);
    free(nm.by_etype);
    dp_rt_close(&rt);
    return rc;
}
