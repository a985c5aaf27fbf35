/* The partition driver: assignment, reshuffle into contiguous id ranges,
 * DGL's halo subgraphs, and the per-part files, written part by part into
 * OUT.tmp and renamed into place only when everything succeeded. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
#include "dglpart/parse.h"
#include "dglpart/partition.h"
#include "dglpart/progress.h"
#include "dglpart/thread.h"

#define ETYPE "_N:_E:_N"

void dp_partition_opts_init(struct dp_partition_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->part_method = "metis";
    o->num_parts = 1;
    o->num_hops = 1;
    o->num_trainers = 1;
    o->imbalance = 1.03;
    o->seed = -1;
}

int dp_parse_graph_formats(const char *s, int *out)
{
    int f = 0;
    const char *p = s;

    while (*p) {
        size_t n = strcspn(p, ",");

        if (n == 3 && !strncmp(p, "coo", 3))
            f |= DP_FMT_COO;
        else if (n == 3 && !strncmp(p, "csc", 3))
            f |= DP_FMT_CSC;
        else if (n == 3 && !strncmp(p, "csr", 3))
            f |= DP_FMT_CSR;
        else
            return dp_error(DP_EINVAL,
                            "--graph_formats '%s': expected a comma "
                            "list of coo, csc, csr",
                            s);
        p += n;
        if (*p == ',')
            p++;
    }
    if (!f)
        return dp_error(DP_EINVAL, "--graph_formats '%s': empty", s);
    *out = f;
    return 0;
}

/* A growable int64 array. */
struct vec {
    int64_t *a;
    size_t n, cap;
};

static int vec_push(struct vec *v, int64_t x)
{
    int rc;

    if ((rc = DP_ALLOC_GROW(v->a, v->n + 1, v->cap)))
        return rc;
    v->a[v->n++] = x;
    return 0;
}

static void vec_free(struct vec *v)
{
    free(v->a);
    memset(v, 0, sizeof(*v));
}

struct part_stats {
    int64_t nodes, edges, halo_nodes, halo_edges;
};

#define SRC(c, k) dp_dataset_src(&(c)->d, (k))
#define EID(c, k) dp_dataset_eid(&(c)->d, (k))
#define ESRC(c, j)                                                             \
    ((c)->esrc_wide ? ((const int64_t *)(c)->esrc)[j]                          \
                    : (int64_t)((const int32_t *)(c)->esrc)[j])
#define ORIG(c, v)                                                             \
    ((c)->orig_wide ? ((const int64_t *)(c)->orig)[v]                          \
                    : (int64_t)((const int32_t *)(c)->orig)[v])

struct ctx {
    const struct dp_partition_opts *o;
    struct dp_dataset d;
    const int64_t *ip; /* indices and eids through SRC() and EID() */
    int64_t n, e;
    int K;
    char *tmp;        /* OUT.tmp */
    const char *name; /* graph name */
    int32_t *part;    /* [n] part of each input node */
    int32_t *fine;    /* [n] trainer-level METIS part, or NULL */
    int64_t *newid;   /* [n] input id -> shuffled id, until esrc is built */
    void *orig;       /* [n] shuffled id -> input id, int32 below 2^31 nodes
                         (orig_wide: int64), read through ORIG() */
    int orig_wide;
    int64_t *nptr; /* [n+1] in-edge offsets by shuffled node */
    void *esrc;    /* [e] shuffled source of each shuffled edge id,
                      int32 below 2^31 nodes (esrc_wide: int64), read
                      through ESRC();
                      (K > 1): halo scans then read memory in order */
    int esrc_wide;
    int64_t *nstart; /* [K+1] node ranges */
    int64_t *estart; /* [K+1] edge ranges */
    int64_t edge_cut;
    int64_t objval;
    int has_objval;
    struct dp_vweights vw;
    struct part_stats *ps;
    struct dp_rename nren, eren; /* --ndata_name, --edata_name */
    int levels; /* the multilevel path's levels; -1: METIS on the whole */
    /* typed datasets (T > 0): ids ordered by part then type, DGL's key
     * part * T + type; edges by (part of the destination, edge type), in
     * destination order inside. */
    int T, ET;
    int64_t *tstart;  /* [K*T+1] node range of (part, type) */
    int64_t *etstart; /* [K*ET+1] edge range of (part, edge type) */
    /* [e] shuffled CSC entry -> shuffled edge id: int32 below 2^31 edges
     * (pos2eid_wide: int64) */
    void *pos2eid;
    int pos2eid_wide;
    /* typed: the data names renames may name, NULL-terminated (borrowed
     * strings) */
    const char **nknown, **eknown;
    int lean;     /* dp_partition_budget: graphs in scratch files */
    int borrowed; /* d is o->mem's: not ours to release */
};

/* The range of sorted starts[0..n] holding id (the last non-empty one). */
static int range_of(const int64_t *starts, int n, int64_t id)
{
    int lo = 0, hi = n;

    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;

        if (starts[mid] <= id)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Shuffled edge id of shuffled CSC entry j. */
static int64_t eid_at(const struct ctx *c, int64_t j)
{
    if (!c->pos2eid)
        return j;
    return c->pos2eid_wide ? ((const int64_t *)c->pos2eid)[j]
                           : ((const int32_t *)c->pos2eid)[j];
}

/* The data partition writes, by their dataset names: renames must name one
 * of these, so a typo is an error rather than a silent no-op. */
static const char *const node_data[] = { "feat",     "label",     "train_mask",
                                         "val_mask", "test_mask", "trainer_id",
                                         NULL };
static const char *const edge_data[] = { "weight", "trainer_id", NULL };

/* The key of dataset data name under prefix ("_N" or the edge type), after
 * the renames; buf holds it. */
static const char *data_key(char *buf, size_t n, const char *prefix,
                            const struct dp_rename *r, const char *name)
{
    snprintf(buf, n, "%s/%s", prefix, dp_rename_apply(r, name));
    return buf;
}

/* Parse a --ndata_name/--edata_name spec against the names written. */
static int parse_renames(const char *what, const char *spec,
                         const char *const *known, struct dp_rename *r)
{
    int rc, i, j;

    if (!spec)
        return 0;
    if ((rc = dp_rename_parse(what, spec, r)))
        return rc;
    for (i = 0; i < r->count; i++) {
        for (j = 0; known[j] && strcmp(known[j], r->old[i]); j++)
            ;
        if (!known[j]) {
            char list[512] = "";

            for (j = 0; known[j]; j++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list),
                         "%s%s", j ? ", " : "", known[j]);
            return dp_error(DP_EINVAL, "%s: '%s' is not one of %s", what,
                            r->old[i], list);
        }
    }
    /* two data may not end up under one name */
    for (i = 0; known[i]; i++)
        for (j = i + 1; known[j]; j++)
            if (!strcmp(dp_rename_apply(r, known[i]),
                        dp_rename_apply(r, known[j])))
                return dp_error(DP_EINVAL,
                                "%s: '%s' and '%s' would both be "
                                "written as '%s'",
                                what, known[i], known[j],
                                dp_rename_apply(r, known[i]));
    return 0;
}

/* The names of a typed dataset's data, plus the fixed ones (the pipeline
 * renames feat and label by default), each once. */
static int known_list(const char *const *fixed, int n,
                      const struct dp_dataset_data *x, const char ***out)
{
    const char **l;
    int i, j, k = 0;

    for (i = 0; fixed[i]; i++)
        ;
    l = dp_calloc((size_t)(i + n + 1), sizeof(*l));
    if (!l)
        return DP_ENOMEM;
    for (i = 0; fixed[i]; i++)
        l[k++] = fixed[i];
    for (i = 0; i < n; i++) {
        for (j = 0; j < k && strcmp(l[j], x[i].name); j++)
            ;
        if (j == k)
            l[k++] = x[i].name;
    }
    *out = l;
    return 0;
}

/* The names renames may name: the fixed ones and the dataset's own data
 * (typed datasets, and untyped ones held in memory). */
static int data_names(struct ctx *c)
{
    const struct dp_dataset_meta *m = &c->d.meta;
    int rc;

    if ((rc = known_list(node_data, m->num_ndata, m->ndata, &c->nknown)))
        return rc;
    return known_list(edge_data, m->num_edata, m->edata, &c->eknown);
}

static int lean_flags(const struct ctx *c)
{
    return (c->lean ? DP_LEAN_MEM : 0) | (c->o->lean_disk ? DP_LEAN_DISK : 0);
}

static int assign(struct ctx *c)
{
    const struct dp_partition_opts *o = c->o;
    int rc = 0;
    int64_t i;

    c->part = dp_malloc_array((size_t)c->n + 1, sizeof(*c->part));
    if (!c->part)
        return DP_ENOMEM;
    if (o->part_assign && dp_is_dir(o->part_assign))
        return dp_assign_read_dir(o->part_assign, &c->d, c->K, c->part);
    if (o->part_assign)
        return dp_assign_read(o->part_assign, c->n, c->K, c->part);
    if (!strcmp(o->part_method, "random")) {
        uint64_t seed = o->seed < 0 ? 0 : (uint64_t)o->seed;
        int t;

        if (!c->T) {
            dp_random_assign(c->n, c->K, seed, c->part);
            return 0;
        }
        /* balanced inside every type, as the type is a balance class */
        for (t = 0; t < c->T; t++) {
            const struct dp_dataset_type *ty = &c->d.meta.ntypes[t];

            dp_random_assign(ty->count, c->K, seed + (uint64_t)t,
                             c->part + ty->offset);
        }
        return 0;
    }
    /* metis */
    if (c->K == 1 && o->num_trainers == 1) {
        memset(c->part, 0, (size_t)c->n * sizeof(*c->part));
        return 0;
    }
    rc = o->balance_class
             ? dp_vweights_classes(&c->d, o->balance_class, o->num_classes,
                                   o->balance_edges, &c->vw)
             : dp_vweights_build(&c->d, o->balance_train, o->balance_edges,
                                 o->balance_ntypes, &c->vw);
    if (rc)
        return rc;
    if (o->num_trainers > 1) {
        int64_t np = (int64_t)c->K * o->num_trainers;

        if (np > c->n)
            return dp_error(DP_EINVAL,
                            "--num_parts %d x "
                            "--num_trainers_per_machine %d = %" PRId64
                            " trainer parts for %" PRId64 " nodes",
                            c->K, o->num_trainers, np, c->n);
        c->fine = dp_malloc_array((size_t)c->n + 1, sizeof(*c->fine));
        if (!c->fine)
            return DP_ENOMEM;
        rc = dp_metis_assign(&c->d, &c->vw, (int)np, o->imbalance,
                             o->objtype_vol, o->seed, o->out, lean_flags(c),
                             c->fine, &c->objval, o->metis_mode, &c->levels);
        if (rc)
            return rc;
        for (i = 0; i < c->n; i++)
            c->part[i] = c->fine[i] / o->num_trainers;
    } else {
        rc = dp_metis_assign(&c->d, &c->vw, c->K, o->imbalance, o->objtype_vol,
                             o->seed, o->out, lean_flags(c), c->part,
                             &c->objval, o->metis_mode, &c->levels);
        if (rc)
            return rc;
    }
    c->has_objval = 1;
    return 0;
}

struct esrc_job {
    struct ctx *c;
    int64_t v0, v1;
};

static void *esrc_range(void *arg)
{
    struct esrc_job *jb = arg;
    const struct ctx *c = jb->c;
    int64_t v, k, j;

    for (v = jb->v0; v < jb->v1; v++) {
        int64_t old = ORIG(c, v);

        j = c->nptr[v];
        for (k = c->ip[old]; k < c->ip[old + 1]; k++)
            if (c->esrc_wide)
                ((int64_t *)c->esrc)[j++] = c->newid[SRC(c, k)];
            else
                ((int32_t *)c->esrc)[j++] = (int32_t)c->newid[SRC(c, k)];
    }
    return NULL;
}

/* Whether reshuffled ids are held as int64 although they fit int32:
 * DGLPART_TEST_WIDE_IDS=1, a test-only switch that runs small graphs
 * through the paths of graphs past 2^31 nodes or edges. */
static int test_wide_ids(void)
{
    int wide = 0;

    dp_env_bool("DGLPART_TEST_WIDE_IDS", &wide);
    return wide;
}

static void set_orig(struct ctx *c, int64_t v, int64_t id)
{
    if (c->orig_wide)
        ((int64_t *)c->orig)[v] = id;
    else
        ((int32_t *)c->orig)[v] = (int32_t)id;
}

/* The reshuffled CSC's sources, in two halves at once. */
static int build_esrc(struct ctx *c)
{
    struct esrc_job jb[2];
    int64_t mid = c->n / 2;

    c->esrc_wide = c->n > INT32_MAX || test_wide_ids();
    c->esrc = dp_malloc_array((size_t)c->e + 1, c->esrc_wide ? 8 : 4);
    if (!c->esrc)
        return DP_ENOMEM;
    jb[0] = (struct esrc_job){ c, 0, mid };
    jb[1] = (struct esrc_job){ c, mid, c->n };
    dp_run_pair(esrc_range, &jb[0], &jb[1], 1);
    /* nothing reads input ids' shuffled ones again: 8 bytes a node less
     * while the parts are written */
    free(c->newid);
    c->newid = NULL;
    return 0;
}

/* Typed ids (reference/dgl.md 1b): nodes by part then type, stable inside
 * (so a type's shuffled ids follow its input ids within a part); edges by
 * (part of the destination, edge type), then destination, then CSC order.
 * The standalone layout keeps input ids, whose types are already ranges. */
static int reshuffle_typed(struct ctx *c)
{
    const struct dp_dataset_meta *m = &c->d.meta;
    int64_t nk = (int64_t)c->K * c->T, ek = (int64_t)c->K * c->ET;
    int64_t i, v, k, *cnt = NULL, *ecur = NULL;
    int p, t;

    c->tstart = dp_calloc((size_t)nk + 1, sizeof(int64_t));
    c->etstart = dp_calloc((size_t)ek + 1, sizeof(int64_t));
    if (!c->tstart || !c->etstart)
        return DP_ENOMEM;
    if (c->K == 1) {
        for (t = 0; t <= c->T; t++)
            c->tstart[t] = t < c->T ? m->ntypes[t].offset : c->n;
        for (t = 0; t <= c->ET; t++)
            c->etstart[t] = t < c->ET ? m->etypes[t].offset : c->e;
        return 0;
    }
    cnt = dp_calloc((size_t)nk + 1, sizeof(int64_t));
    ecur = dp_calloc((size_t)ek + 1, sizeof(int64_t));
    c->pos2eid_wide = c->e > INT32_MAX || test_wide_ids();
    c->pos2eid = dp_malloc_array((size_t)c->e + 1, c->pos2eid_wide ? 8 : 4);
    if (!cnt || !ecur || !c->pos2eid) {
        free(cnt);
        free(ecur);
        return DP_ENOMEM;
    }
    for (t = 0; t < c->T; t++)
        for (i = m->ntypes[t].offset;
             i < m->ntypes[t].offset + m->ntypes[t].count; i++)
            cnt[(int64_t)c->part[i] * c->T + t + 1]++;
    for (k = 0; k < nk; k++)
        cnt[k + 1] += cnt[k];
    memcpy(c->tstart, cnt, ((size_t)nk + 1) * sizeof(int64_t));
    for (p = 0; p <= c->K; p++)
        c->nstart[p] = c->tstart[(int64_t)p * c->T];
    for (t = 0; t < c->T; t++)
        for (i = m->ntypes[t].offset;
             i < m->ntypes[t].offset + m->ntypes[t].count; i++) {
            int64_t nid = cnt[(int64_t)c->part[i] * c->T + t]++;

            c->newid[i] = nid;
            set_orig(c, nid, i);
        }
    c->nptr[0] = 0;
    for (v = 0; v < c->n; v++) {
        int64_t old = ORIG(c, v);

        c->nptr[v + 1] = c->nptr[v] + (c->ip[old + 1] - c->ip[old]);
    }
    /* count (part, edge type), then number each block in CSC order */
    for (p = 0; p < c->K; p++)
        for (v = c->nstart[p]; v < c->nstart[p + 1]; v++)
            for (k = c->ip[ORIG(c, v)]; k < c->ip[ORIG(c, v) + 1]; k++)
                ecur[(int64_t)p * c->ET +
                     dp_dataset_etype_of(&c->d, EID(c, k)) + 1]++;
    for (k = 0; k < ek; k++)
        ecur[k + 1] += ecur[k];
    memcpy(c->etstart, ecur, ((size_t)ek + 1) * sizeof(int64_t));
    for (p = 0; p <= c->K; p++)
        c->estart[p] = c->etstart[(int64_t)p * c->ET];
    for (p = 0; p < c->K; p++)
        for (v = c->nstart[p]; v < c->nstart[p + 1]; v++) {
            int64_t old = ORIG(c, v), j = c->nptr[v];

            for (k = c->ip[old]; k < c->ip[old + 1]; k++, j++) {
                int64_t eid = ecur[(int64_t)p * c->ET +
                                   dp_dataset_etype_of(&c->d, EID(c, k))]++;

                if (c->pos2eid_wide)
                    ((int64_t *)c->pos2eid)[j] = eid;
                else
                    ((int32_t *)c->pos2eid)[j] = (int32_t)eid;
            }
        }
    free(cnt);
    free(ecur);
    return build_esrc(c);
}

/* Contiguous ids: nodes ordered by part (stable inside a part, which DGL
 * does not promise but any order is valid), edges by destination. */
static int reshuffle(struct ctx *c)
{
    int64_t i, v, *cnt;
    int p;

    c->nstart = dp_calloc((size_t)c->K + 1, sizeof(int64_t));
    c->estart = dp_calloc((size_t)c->K + 1, sizeof(int64_t));
    /* one part keeps input ids: no map to shuffled ones */
    c->newid =
        c->K > 1 ? dp_malloc_array((size_t)c->n + 1, sizeof(int64_t)) : NULL;
    c->orig_wide = c->n > INT32_MAX || test_wide_ids();
    c->orig = dp_malloc_array((size_t)c->n + 1, c->orig_wide ? 8 : 4);
    c->nptr = dp_malloc_array((size_t)c->n + 1, sizeof(int64_t));
    cnt = dp_calloc((size_t)c->K + 1, sizeof(int64_t));
    if (!c->nstart || !c->estart || (c->K > 1 && !c->newid) || !c->orig ||
        !c->nptr || !cnt) {
        free(cnt);
        return DP_ENOMEM;
    }
    if (c->K == 1) {
        /* DGL's standalone layout keeps input ids for nodes and edges. */
        for (i = 0; i < c->n; i++)
            set_orig(c, i, i);
        memcpy(c->nptr, c->ip, ((size_t)c->n + 1) * sizeof(int64_t));
        c->nstart[1] = c->n;
        c->estart[1] = c->e;
        free(cnt);
        return c->T ? reshuffle_typed(c) : 0;
    }
    if (c->T) {
        free(cnt);
        return reshuffle_typed(c);
    }
    for (i = 0; i < c->n; i++)
        cnt[c->part[i] + 1]++;
    for (p = 0; p < c->K; p++) {
        cnt[p + 1] += cnt[p];
        c->nstart[p] = cnt[p];
    }
    c->nstart[c->K] = c->n;
    for (i = 0; i < c->n; i++) {
        int64_t nid = cnt[c->part[i]]++;

        c->newid[i] = nid;
        set_orig(c, nid, i);
    }
    free(cnt);
    c->nptr[0] = 0;
    for (v = 0; v < c->n; v++) {
        int64_t old = ORIG(c, v);

        c->nptr[v + 1] = c->nptr[v] + (c->ip[old + 1] - c->ip[old]);
    }
    for (p = 0; p <= c->K; p++)
        c->estart[p] = c->nptr[c->nstart[p]];
    return build_esrc(c);
}

/* The shuffled ids' input ids for partition_graph's return_mapping
 * (dp_partition_opts.orig_nids): typed ones grouped by type, each group
 * in shuffled order and counted from its type's first id. */
static int fill_orig_maps(struct ctx *c)
{
    const struct dp_dataset_meta *m = &c->d.meta;
    int64_t *on = c->o->orig_nids, *oe = c->o->orig_eids, *off, pos, v, k, j;
    int T = c->T ? c->T : 1, ET = c->ET ? c->ET : 1, p, t;
    int64_t nr = (int64_t)c->K * ET;

    if (oe && !c->d.eids.data)
        return dp_error(DP_EINVAL, "'%s' has no input edge ids", c->d.dir);
    for (pos = 0, t = 0; on && t < T; t++)
        for (p = 0; p < c->K; p++) {
            int64_t r = (int64_t)p * T + t,
                    base = c->T ? m->ntypes[t].offset : 0;
            int64_t v0 = c->T ? c->tstart[r] : c->nstart[p];
            int64_t v1 = c->T ? c->tstart[r + 1] : c->nstart[p + 1];

            for (v = v0; v < v1; v++)
                on[pos++] = ORIG(c, v) - base;
        }
    if (!oe)
        return 0;
    /* where each (part, edge type) block of shuffled edges lands: after
     * the types before it, then after the type's blocks of earlier parts */
    if (!(off = dp_calloc((size_t)nr, sizeof(*off))))
        return DP_ENOMEM;
    for (pos = 0, t = 0; t < ET; t++)
        for (p = 0; p < c->K; p++) {
            int64_t r = (int64_t)p * ET + t;
            int64_t e0 = c->T ? c->etstart[r] : c->estart[p];
            int64_t e1 = c->T ? c->etstart[r + 1] : c->estart[p + 1];

            off[r] = pos - e0;
            pos += e1 - e0;
        }
    for (v = 0; v < c->n; v++) {
        int64_t old = ORIG(c, v);

        j = c->nptr[v];
        for (k = c->ip[old]; k < c->ip[old + 1]; k++, j++) {
            /* one part keeps input edge ids */
            int64_t s = c->K == 1 ? EID(c, k) : eid_at(c, j), x = EID(c, k);
            int r = c->T ? range_of(c->etstart, (int)nr, s)
                         : range_of(c->estart, c->K, s);

            t = c->T ? r % ET : 0;
            oe[s + off[r]] = x - (c->T ? m->etypes[t].offset : 0);
        }
    }
    free(off);
    return 0;
}

static void count_cut(struct ctx *c)
{
    int64_t v, k, cut = 0;

    for (v = 0; v < c->n; v++)
        for (k = c->ip[v]; k < c->ip[v + 1]; k++)
            cut += c->part[SRC(c, k)] != c->part[v];
    c->edge_cut = cut;
}

/* One part's local graph (DGL's GetSubgraphWithHalo, reference/dgl.md 1c):
 * nodes inner first, then halo nodes in discovery order; edges inner by
 * id, then halo by id. An untyped part with K > 1 holds no edge: each
 * column the writer reads is generated again from the reshuffled CSC, the
 * lid map, the halo nodes and the halo edge ids (ascending, as varint
 * gaps: about a byte each). Typed parts, whose ids do not follow the CSC,
 * hold their edges (24 bytes each); the standalone layout holds src and
 * dst by edge id (4 bytes each below 2^31 nodes). */
struct local {
    struct ctx *c;
    int p;
    int64_t s, e; /* inner nodes: shuffled [s, e) */
    int wide;     /* ids below are int64, else int32 (n > INT32_MAX) */
    void *lid;    /* [n] shuffled id -> local id, else -1 (one per
                     thread, borrowed) */
    void *hn;     /* halo nodes, shuffled ids, in discovery order */
    size_t nh, caph;
    int64_t nexp;  /* hn[0, nexp): halo nodes whose in-edges from outside
                      the part are halo edges (num_hops >= 2) */
    uint8_t *gaps; /* halo edge ids, varint gaps */
    size_t ngaps, capg;
    int64_t ninner_edges, num_edges;
    struct vec src, dst, eid; /* typed: all local edges */
    void *ssrc, *sdst;        /* standalone: by edge id */
    /* where the column being read is: its next row, CSC entry,
     * destination and gap */
    int64_t at, j, v;
    size_t gpos;
    /* CSC of an untyped part: the position among the halo edges of each
     * halo node's first one (its edges are consecutive in id order), and
     * a cursor (row, CSC entry, edges of the row so far, indptr sum) */
    int64_t *hstart;
    int64_t crow, cj, ck, csum;
};

#define LID(l, g)                                                              \
    ((l)->wide ? ((const int64_t *)(l)->lid)[g]                                \
               : (int64_t)((const int32_t *)(l)->lid)[g])
#define HNODE(l, i)                                                            \
    ((l)->wide ? ((const int64_t *)(l)->hn)[i]                                 \
               : (int64_t)((const int32_t *)(l)->hn)[i])

static void local_free(struct local *l)
{
    size_t i;

    for (i = 0; l->lid && i < l->nh; i++) {
        int64_t g = HNODE(l, i);

        if (l->wide)
            ((int64_t *)l->lid)[g] = -1;
        else
            ((int32_t *)l->lid)[g] = -1;
    }
    free(l->hn);
    free(l->gaps);
    free(l->hstart);
    vec_free(&l->src);
    vec_free(&l->dst);
    vec_free(&l->eid);
    free(l->ssrc);
    free(l->sdst);
    memset(l, 0, sizeof(*l));
}

static int local_id(struct local *l, int64_t g, int64_t *out)
{
    int64_t x;
    int rc;

    if (g >= l->s && g < l->e) {
        *out = g - l->s;
        return 0;
    }
    x = LID(l, g);
    if (x < 0) {
        x = (l->e - l->s) + (int64_t)l->nh;
        if ((rc = dp_grow_array(&l->hn, l->wide ? 8 : 4, l->nh + 1, &l->caph)))
            return rc;
        if (l->wide) {
            ((int64_t *)l->lid)[g] = x;
            ((int64_t *)l->hn)[l->nh++] = g;
        } else {
            ((int32_t *)l->lid)[g] = (int32_t)x;
            ((int32_t *)l->hn)[l->nh++] = (int32_t)g;
        }
    }
    *out = x;
    return 0;
}

static int push_edge(struct local *l, int64_t s, int64_t d, int64_t j)
{
    int rc;

    if ((rc = vec_push(&l->src, s)) || (rc = vec_push(&l->dst, d)) ||
        (rc = vec_push(&l->eid, j)))
        return rc;
    return 0;
}

static int push_gap(struct local *l, uint64_t g)
{
    int rc = DP_ALLOC_GROW(l->gaps, l->ngaps + 10, l->capg);

    if (rc)
        return rc;
    while (g >= 0x80) {
        l->gaps[l->ngaps++] = (uint8_t)(g | 0x80);
        g >>= 7;
    }
    l->gaps[l->ngaps++] = (uint8_t)g;
    return 0;
}

static uint64_t next_gap(struct local *l)
{
    uint64_t g = 0;
    int sh = 0;

    while (l->gaps[l->gpos] & 0x80) {
        g |= (uint64_t)(l->gaps[l->gpos++] & 0x7f) << sh;
        sh += 7;
    }
    return g | (uint64_t)l->gaps[l->gpos++] << sh;
}

static void local_init(struct local *l, struct ctx *c, int p, void *lid)
{
    memset(l, 0, sizeof(*l));
    l->c = c;
    l->p = p;
    l->s = c->nstart[p];
    l->e = c->nstart[p + 1];
    l->wide = c->n > INT32_MAX;
    l->lid = lid;
}

/* An untyped part's nodes and edge counts: the halo nodes in DGL's order
 * ((a) sources of inner in-edges, (b) further hops, (c) destinations of
 * inner out-edges) and the ids of the halo edges. --halo_edges in skips
 * (c): then (b) takes every in-edge of an expanded halo node, those from
 * inside too (which (c) brings in DGL's layout), so each node within the
 * hops has all its in-edges. */
static int discover(struct local *l)
{
    const struct ctx *c = l->c;
    int64_t s = l->s, e = l->e, v, j, x, prev = -1;
    int64_t e0 = c->estart[l->p], e1 = c->estart[l->p + 1];
    int hops = c->o->num_hops, h, rc;
    size_t lvl0, lvl1, i;

    /* (a) in-edges of inner nodes */
    for (j = e0; j < e1; j++) {
        int64_t u = ESRC(c, j);

        if (u >= s && u < e)
            l->ninner_edges++;
        else if (hops > 0) {
            if ((rc = local_id(l, u, &x)))
                return rc;
            l->ninner_edges++;
        }
    }
    l->num_edges = l->ninner_edges;
    if (hops == 0)
        return 0;
    /* (b) further hops: sources outside the part of the previous level */
    lvl0 = 0;
    lvl1 = l->nh;
    for (h = 1; h < hops; h++) {
        for (i = lvl0; i < lvl1; i++) {
            int64_t g = HNODE(l, i);

            for (j = c->nptr[g]; j < c->nptr[g + 1]; j++) {
                int64_t u = ESRC(c, j);

                if ((u < s || u >= e) && (rc = local_id(l, u, &x)))
                    return rc;
            }
        }
        lvl0 = lvl1;
        lvl1 = l->nh;
    }
    l->nexp = (int64_t)lvl0;
    /* in: no halo edges at one hop, nothing to scan */
    if (c->o->halo_in && !l->nexp)
        return 0;
    /* halo edges in id order: the out-edges of inner nodes (c), whose
     * destinations are numbered as met, and (b)'s in-edges of the
     * expanded halo nodes from outside (in: all of them) */
    for (v = 0; v < c->n; v++) {
        if (v == s && e > s) {
            v = e - 1;
            continue;
        }
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = ESRC(c, j);

            if (u >= s && u < e && !c->o->halo_in) {
                if ((rc = local_id(l, v, &x)))
                    return rc;
            } else if (!l->nexp || (x = LID(l, v)) < 0 ||
                       x - (e - s) >= l->nexp) {
                continue;
            }
            if ((rc = push_gap(l, (uint64_t)(j - prev - 1))))
                return rc;
            prev = j;
            l->num_edges++;
        }
    }
    return 0;
}

struct hedge {
    int64_t eid, src, dst;
};

static int cmp_hedge(const void *a, const void *b)
{
    const struct hedge *x = a, *y = b;

    return (x->eid > y->eid) - (x->eid < y->eid);
}

/* Typed ids do not follow the CSC: put the inner edges, whose ids are
 * exactly [first, first + count), in id order. */
static int order_inner(struct local *l, int64_t first)
{
    size_t n = l->src.n, i;
    int64_t *tmp = dp_malloc_array(n * 3 + 1, sizeof(int64_t));

    if (!tmp)
        return DP_ENOMEM;
    for (i = 0; i < n; i++) {
        size_t at = (size_t)(l->eid.a[i] - first);

        tmp[at] = l->src.a[i];
        tmp[n + at] = l->dst.a[i];
        tmp[2 * n + at] = l->eid.a[i];
    }
    memcpy(l->src.a, tmp, n * sizeof(int64_t));
    memcpy(l->dst.a, tmp + n, n * sizeof(int64_t));
    memcpy(l->eid.a, tmp + 2 * n, n * sizeof(int64_t));
    free(tmp);
    return 0;
}

/* The out-edges leaving a part, put in id order (typed ids). */
static int sort_by_eid(struct vec *src, struct vec *dst, struct vec *eid)
{
    struct hedge *h = dp_malloc_array(eid->n + 1, sizeof(*h));
    size_t i;

    if (!h)
        return DP_ENOMEM;
    for (i = 0; i < eid->n; i++)
        h[i] = (struct hedge){ eid->a[i], src->a[i], dst->a[i] };
    qsort(h, eid->n, sizeof(*h), cmp_hedge);
    for (i = 0; i < eid->n; i++) {
        eid->a[i] = h[i].eid;
        src->a[i] = h[i].src;
        dst->a[i] = h[i].dst;
    }
    free(h);
    return 0;
}

/* A typed part's local edges, held (reference/dgl.md 1c on typed ids). */
static int build_typed(struct local *l)
{
    struct ctx *c = l->c;
    int p = l->p;
    int64_t s = l->s, e = l->e, v, j, sl, dl, i;
    int hops = c->o->num_hops, rc = 0, h;
    struct hedge *b = NULL;
    size_t nb = 0, capb = 0, lvl0, lvl1, ia, ib, nc;
    struct vec csrc = { 0 }, cdst = { 0 }, ceid = { 0 };

    /* (a) in-edges of inner nodes */
    for (v = s; v < e; v++) {
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = ESRC(c, j);

            if (hops == 0 && (u < s || u >= e))
                continue;
            if ((rc = local_id(l, u, &sl)) ||
                (rc = push_edge(l, sl, v - s, eid_at(c, j))))
                goto out;
        }
    }
    l->ninner_edges = (int64_t)l->src.n;
    /* --num_hops 0 keeps only some in-edges: then sort */
    if ((rc = l->ninner_edges == c->estart[p + 1] - c->estart[p]
                  ? order_inner(l, c->estart[p])
                  : sort_by_eid(&l->src, &l->dst, &l->eid)))
        goto out;
    if (hops == 0)
        goto out;
    /* (b) further hops: in-edges of the previous level from outside */
    lvl0 = 0;
    lvl1 = l->nh;
    for (h = 1; h < hops; h++) {
        for (i = (int64_t)lvl0; i < (int64_t)lvl1; i++) {
            int64_t g = HNODE(l, i);

            for (j = c->nptr[g]; j < c->nptr[g + 1]; j++) {
                int64_t u = ESRC(c, j);

                /* from inside: (c) brings it, unless --halo_edges in */
                if (u >= s && u < e && !c->o->halo_in)
                    continue;
                if ((rc = local_id(l, u, &sl)))
                    goto out;
                if ((rc = DP_ALLOC_GROW(b, nb + 1, capb)))
                    goto out;
                b[nb++] = (struct hedge){ eid_at(c, j), sl, LID(l, g) };
            }
        }
        lvl0 = lvl1;
        lvl1 = l->nh;
    }
    if (nb)
        qsort(b, nb, sizeof(*b), cmp_hedge);
    /* (c) out-edges of inner nodes leaving the part */
    for (v = 0; v < c->n && !c->o->halo_in; v++) {
        if (v == s && e > s) {
            v = e - 1;
            continue;
        }
        for (j = c->nptr[v]; j < c->nptr[v + 1]; j++) {
            int64_t u = ESRC(c, j);

            if (u < s || u >= e)
                continue;
            if ((rc = local_id(l, v, &dl)) || (rc = vec_push(&csrc, u - s)) ||
                (rc = vec_push(&cdst, dl)) ||
                (rc = vec_push(&ceid, eid_at(c, j))))
                goto out;
        }
    }
    if ((rc = sort_by_eid(&csrc, &cdst, &ceid)))
        goto out;
    /* halo edges: merge (b) and (c) by edge id */
    nc = ceid.n;
    ia = ib = 0;
    while (ia < nb || ib < nc) {
        if (ib == nc || (ia < nb && b[ia].eid < ceid.a[ib])) {
            rc = push_edge(l, b[ia].src, b[ia].dst, b[ia].eid);
            ia++;
        } else {
            rc = push_edge(l, csrc.a[ib], cdst.a[ib], ceid.a[ib]);
            ib++;
        }
        if (rc)
            goto out;
    }
out:
    free(b);
    vec_free(&csrc);
    vec_free(&cdst);
    vec_free(&ceid);
    l->num_edges = (int64_t)l->src.n;
    return rc;
}

/* The standalone layout: the whole graph, input ids, edges by input id. */
static int build_standalone(struct local *l)
{
    const struct ctx *c = l->c;
    size_t w = l->wide ? 8 : 4;
    int64_t v, k;

    l->ssrc = dp_malloc_array((size_t)c->e + 1, w);
    l->sdst = dp_malloc_array((size_t)c->e + 1, w);
    if (!l->ssrc || !l->sdst)
        return DP_ENOMEM;
    for (v = 0; v < c->n; v++)
        for (k = c->ip[v]; k < c->ip[v + 1]; k++) {
            int64_t x = EID(c, k);

            if (l->wide) {
                ((int64_t *)l->ssrc)[x] = SRC(c, k);
                ((int64_t *)l->sdst)[x] = v;
            } else {
                ((int32_t *)l->ssrc)[x] = (int32_t)SRC(c, k);
                ((int32_t *)l->sdst)[x] = (int32_t)v;
            }
        }
    l->ninner_edges = l->num_edges = c->e;
    return 0;
}

static char *part_path(const struct ctx *c, int p, const char *file)
{
    char rel[64], *dir, *path;

    snprintf(rel, sizeof(rel), "part%d", p);
    dir = dp_path_join(c->tmp, rel);
    if (!dir)
        return NULL;
    path = file ? dp_path_join(dir, file) : dir;
    if (file)
        free(dir);
    return path;
}

/* Rows [at, at + n) of an untyped part's src, dst or eid column, generated
 * from the CSC: inner edges are the part's own range of ids (those from
 * inside alone at --num_hops 0), halo edges follow the gaps. */
static void gen_edges(struct local *l, int col, int64_t at, int64_t n,
                      int64_t *out)
{
    const struct ctx *c = l->c;
    int64_t s = l->s, e = l->e, r;

    if (at == 0) {
        l->j = c->estart[l->p];
        l->v = s;
    }
    for (r = at; r < at + n; r++) {
        int64_t u, j;

        if (r == l->ninner_edges) {
            l->j = -1;
            l->v = 0;
            l->gpos = 0;
        }
        if (r < l->ninner_edges) {
            for (;;) {
                u = ESRC(c, l->j);
                if (c->o->num_hops > 0 || (u >= s && u < e))
                    break;
                l->j++;
            }
            j = l->j++;
        } else {
            /* l->j is the previous halo edge here */
            l->j += 1 + (int64_t)next_gap(l);
            j = l->j;
            u = ESRC(c, j);
        }
        while (c->nptr[l->v + 1] <= j)
            l->v++;
        if (col == DP_COL_SRC)
            out[r - at] = u >= s && u < e ? u - s : LID(l, u);
        else if (col == DP_COL_DST)
            out[r - at] = l->v >= s && l->v < e ? l->v - s : LID(l, l->v);
        else
            out[r - at] = j;
    }
}

/* hstart from the halo edge ids. */
static int halo_starts(struct local *l)
{
    const struct ctx *c = l->c;
    int64_t j = -1, v = 0, last = -1, k, nh = l->num_edges - l->ninner_edges;

    l->hstart = dp_malloc_array(l->nh + 1, sizeof(*l->hstart));
    if (!l->hstart)
        return DP_ENOMEM;
    l->gpos = 0;
    for (k = 0; k < nh; k++) {
        j += 1 + (int64_t)next_gap(l);
        while (c->nptr[v + 1] <= j)
            v++;
        if (v != last)
            l->hstart[LID(l, v) - (l->e - l->s)] = k;
        last = v;
    }
    return 0;
}

/* The shuffled node of local row r. */
static int64_t row_node(const struct local *l, int64_t r)
{
    return r < l->e - l->s ? l->s + r : HNODE(l, r - (l->e - l->s));
}

/* Whether the in-edge from u of local row r's node is a local edge: every
 * in-edge of an inner node (at --num_hops 0 those from inside) or of an
 * expanded halo node, those from inside for other halo nodes (none with
 * --halo_edges in). */
static int csc_keeps(const struct local *l, int64_t r, int64_t u)
{
    int64_t ninner = l->e - l->s;
    int inside = u >= l->s && u < l->e;

    if (r < ninner)
        return inside || l->c->o->num_hops > 0;
    return r - ninner < l->nexp || (inside && !l->c->o->halo_in);
}

/* Rows [at, at + n) of an untyped part's CSC: rows are local
 * destinations, inner rows first, whose edges are the inner edges in
 * order; a halo row's edges are its halo edges, in id order. */
static void gen_csc(struct local *l, int col, int64_t at, int64_t n,
                    int64_t *out)
{
    const struct ctx *c = l->c;
    int64_t ninner = l->e - l->s, i, j, g, u;

    if (col == DP_COL_CSC_INDPTR) {
        for (i = at; i < at + n; i++) {
            if (i == 0)
                l->csum = 0;
            else
                for (g = row_node(l, i - 1), j = c->nptr[g]; j < c->nptr[g + 1];
                     j++)
                    l->csum += csc_keeps(l, i - 1, ESRC(c, j));
            out[i - at] = l->csum;
        }
        return;
    }
    if (at == 0) {
        l->crow = l->ck = 0;
        l->cj = c->nptr[row_node(l, 0)];
    }
    for (i = 0; i < n; i++) {
        for (;;) {
            g = row_node(l, l->crow);
            if (l->cj < c->nptr[g + 1]) {
                u = ESRC(c, l->cj);
                if (csc_keeps(l, l->crow, u))
                    break;
                l->cj++;
                continue;
            }
            l->crow++;
            l->ck = 0;
            l->cj = c->nptr[row_node(l, l->crow)];
        }
        if (col == DP_COL_CSC_INDICES)
            out[i] = u >= l->s && u < l->e ? u - l->s : LID(l, u);
        else if (l->crow < ninner)
            out[i] = at + i; /* inner edges are in row order */
        else
            out[i] = l->ninner_edges + l->hstart[l->crow - ninner] + l->ck;
        l->ck++;
        l->cj++;
    }
}

static int local_fill(void *arg, int col, int64_t at, int64_t n, void *out)
{
    struct local *l = arg;
    const struct ctx *c = l->c;
    int64_t ninner = l->e - l->s, r, *o64 = out;
    int32_t *o32 = out;
    uint8_t *o8 = out;

    if (col <= DP_COL_EID && l->ssrc) {
        const void *a = col == DP_COL_SRC ? l->ssrc : l->sdst;

        for (r = 0; r < n; r++)
            o64[r] = col == DP_COL_EID ? at + r
                     : l->wide         ? ((const int64_t *)a)[at + r]
                                       : ((const int32_t *)a)[at + r];
        return 0;
    }
    if (col >= DP_COL_CSC_INDPTR) {
        gen_csc(l, col, at, n, out);
        return 0;
    }
    if (col <= DP_COL_EID && !c->T) {
        if (at != 0 && at != l->at)
            return dp_error(DP_EINVAL, "part %d: column read out of order",
                            l->p);
        gen_edges(l, col, at, n, out);
        l->at = at + n;
        return 0;
    }
    for (r = 0; r < n; r++) {
        int64_t i = at + r, nid = 0;

        if (col >= DP_COL_NID)
            nid = i < ninner ? l->s + i : HNODE(l, i - ninner);

        switch (col) {
        case DP_COL_SRC:
            o64[r] = l->src.a[i];
            break;
        case DP_COL_DST:
            o64[r] = l->dst.a[i];
            break;
        case DP_COL_EID:
            o64[r] = l->eid.a[i];
            break;
        case DP_COL_INNER_EDGE:
            o8[r] = i < l->ninner_edges;
            break;
        case DP_COL_ETYPE:
            /* _TYPE as DGL 1.1.3 writes it: int32 for nodes and edges */
            o32[r] =
                range_of(c->etstart, c->K * c->ET, l->ssrc ? i : l->eid.a[i]) %
                c->ET;
            break;
        case DP_COL_NID:
            o64[r] = nid;
            break;
        case DP_COL_PART_ID:
            o64[r] = i < ninner ? l->p : c->part[ORIG(c, nid)];
            break;
        case DP_COL_INNER_NODE:
            o8[r] = i < ninner;
            break;
        default:
            o32[r] = range_of(c->tstart, c->K * c->T, nid) % c->T;
        }
    }
    return 0;
}

static int write_graph(struct ctx *c, int p, struct local *l)
{
    struct dp_graph_src g;
    char *path = part_path(c, p, "graph.dgl");
    int64_t ninner = c->nstart[p + 1] - c->nstart[p];
    int rc;

    if (!path)
        return DP_ENOMEM;
    memset(&g, 0, sizeof(g));
    g.num_nodes = ninner + (int64_t)l->nh;
    g.num_edges = l->num_edges;
    g.formats = c->o->graph_formats;
    g.has_part_id = c->K > 1;
    g.has_ntype = g.has_etype = c->T > 0;
    g.fill = local_fill;
    g.arg = l;
    /* an untyped part's CSC is its CSC order: stream it, sort nothing */
    if (c->K > 1 && !c->T && (c->o->graph_formats & DP_FMT_CSC)) {
        g.has_csc = 1;
        /* no halo edges: local ids are in CSC order, data is the identity,
         * which DGL stores as a null array (dglfile.h); only for in, so
         * that all stays partition_graph's bytes */
        g.csc_no_data = c->o->halo_in && l->num_edges == l->ninner_edges;
        if ((rc = halo_starts(l))) {
            free(path);
            return rc;
        }
    }
    rc = dp_graph_write_src(path, &g);
    if (!rc) {
        c->ps[p].nodes = ninner;
        c->ps[p].edges = l->ninner_edges;
        c->ps[p].halo_nodes = (int64_t)l->nh;
        c->ps[p].halo_edges = l->num_edges - l->ninner_edges;
    }
    free(path);
    return rc;
}

/* Rows gathered through an index, streamed in blocks of about 4 MiB. */
struct gather {
    const struct ctx *c;
    int p;
    int edges; /* rows are the part's inner edges, else its inner nodes */
    int type;  /* typed: rows of this node / edge type only; -1: all */
};

/* First shuffled id and row count of g's rows; the input ids of type rows
 * start at *base (what per-type arrays and orig ids are indexed from). */
static int64_t gather_rows(const struct gather *g, int64_t *first,
                           int64_t *base)
{
    const struct ctx *c = g->c;
    const int64_t *st;
    int64_t k;

    *base = 0;
    if (g->type < 0) {
        *first = g->edges ? c->estart[g->p] : c->nstart[g->p];
        return g->edges ? c->estart[g->p + 1] - *first
                        : c->nstart[g->p + 1] - *first;
    }
    st = g->edges ? c->etstart : c->tstart;
    k = (int64_t)g->p * (g->edges ? c->ET : c->T) + g->type;
    *first = st[k];
    *base = g->edges ? c->d.meta.etypes[g->type].offset
                     : c->d.meta.ntypes[g->type].offset;
    return st[k + 1] - st[k];
}

/* Input row of the r-th inner node or edge of the part, for r walking
 * forward from 0 (edges keep a cursor on the destination). */
struct cursor {
    int64_t v, k; /* edges: current shuffled destination and CSC entry */
    int64_t r;
};

static int64_t cursor_next(const struct gather *g, struct cursor *cur,
                           int64_t first)
{
    const struct ctx *c = g->c;

    if (!g->edges)
        return ORIG(c, first + cur->r++);
    if (c->K == 1)
        return first + cur->r++;
    for (;;) {
        int64_t old = ORIG(c, cur->v);

        while (cur->k < c->ip[old + 1] - c->ip[old]) {
            int64_t k = c->ip[old] + cur->k++;
            /* with no eids.npy (untyped, unweighted), the only column
             * gathered by edge is the trainer id, by destination */
            int64_t x = c->d.eids.data ? EID(c, k) : -1;

            if (g->type < 0 || dp_dataset_etype_of(&c->d, x) == g->type) {
                cur->r++;
                return x;
            }
        }
        cur->v++;
        cur->k = 0;
    }
}

/* One entry: for each inner row, row bytes of src at its input id; with
 * fine, the trainer id instead (fine_by_dst: the edge's destination's);
 * with neither, the input id itself (orig ids). */
static int gather_entry(struct dp_tensor_writer *w, const struct gather *g,
                        const char *name, enum dp_dtype dtype, int ndim,
                        const int64_t *shape1, const void *src, size_t row,
                        const int32_t *fine, int fine_by_dst)
{
    const struct ctx *c = g->c;
    int64_t first, base, rows = gather_rows(g, &first, &base);
    int64_t shape[DP_NPY_MAXDIM], r;
    size_t blk = (4u << 20) / row + 1, nb = 0;
    char *buf = NULL;
    struct cursor cur = { c->nstart[g->p], 0, 0 };
    int rc, i;

    shape[0] = rows;
    for (i = 1; i < ndim; i++)
        shape[i] = shape1[i];
    rc = dp_tensor_writer_begin(w, name, dtype, ndim, shape);
    if (rc)
        return rc;
    buf = dp_malloc(blk * row);
    if (!buf)
        return DP_ENOMEM;
    for (r = 0; r < rows; r++) {
        int64_t x = cursor_next(g, &cur, first);

        if (fine) {
            /* trainer ids: a node's own, an edge's destination's */
            int64_t t = fine[fine_by_dst ? ORIG(c, cur.v) : x];

            memcpy(buf + nb * row, &t, sizeof(t));
        } else if (src) {
            memcpy(buf + nb * row, (const char *)src + (size_t)(x - base) * row,
                   row);
        } else {
            x -= base;
            memcpy(buf + nb * row, &x, sizeof(x));
        }
        if (++nb == blk) {
            if ((rc = dp_tensor_writer_write(w, buf, nb * row)) ||
                (rc = dp_check_interrupt()))
                goto out;
            nb = 0;
        }
    }
    if (nb && (rc = dp_tensor_writer_write(w, buf, nb * row)))
        goto out;
    rc = dp_tensor_writer_end(w);
out:
    free(buf);
    return rc;
}

/* One dataset array under "<prefix>/<name>": the rows of the part's inner
 * nodes or edges of type type (-1: of all), in shuffled id order. */
static int write_data(struct ctx *c, struct dp_tensor_writer *w, int p,
                      int edges, int type, const char *prefix, const char *name,
                      const struct dp_npy *a)
{
    struct gather g = { c, p, edges, type };
    size_t row = dp_dtype_size(a->h.dtype);
    char key[512];
    int j;

    for (j = 1; j < a->h.ndim; j++)
        row *= (size_t)a->h.shape[j];
    if (!row)
        return dp_error(DP_EUNSUPPORTED, "'%s': %s data '%s' has empty rows",
                        c->d.dir, prefix, name);
    return gather_entry(
        w, &g,
        data_key(key, sizeof(key), prefix, edges ? &c->eren : &c->nren, name),
        a->h.dtype, a->h.ndim, a->h.shape, a->data, row, NULL, 0);
}

/* Typed data: "<ntype>/<name>" per node type (DGL's keys), "<src:rel:dst>/
 * <name>" per edge type, rows of the part's inner nodes or edges of that
 * type in shuffled id order; trainer_id for every type. */
static int write_feats_typed(struct ctx *c, int p, int edges)
{
    const struct dp_dataset *d = &c->d;
    const struct dp_dataset_meta *m = &d->meta;
    const struct dp_rename *r = edges ? &c->eren : &c->nren;
    int nd = edges ? m->num_edata : m->num_ndata, nt = edges ? c->ET : c->T;
    const struct dp_dataset_data *x = edges ? m->edata : m->ndata;
    const struct dp_npy *arr = edges ? d->edata : d->ndata;
    struct dp_tensor_writer w;
    char *path = part_path(c, p, edges ? "edge_feat.dgl" : "node_feat.dgl");
    int64_t one[1] = { 0 }, *tid = NULL;
    const int32_t *fine = NULL;
    const void *src = NULL;
    char key[512];
    int i, t, rc;

    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path,
                               (uint64_t)nd + (c->fine ? (uint64_t)nt : 0));
    free(path);
    if (rc)
        return rc;
    for (i = 0; !rc && i < nd; i++)
        rc = write_data(c, &w, p, edges, x[i].type,
                        (edges ? m->etypes : m->ntypes)[x[i].type].name,
                        x[i].name, &arr[i]);
    if (!rc && c->fine && edges && c->K == 1) {
        /* standalone: edges keep input ids, so index by input edge id */
        int64_t v, k;

        tid = dp_malloc_array((size_t)c->e + 1, sizeof(*tid));
        if (!tid)
            rc = DP_ENOMEM;
        for (v = 0; tid && v < c->n; v++)
            for (k = c->ip[v]; k < c->ip[v + 1]; k++)
                tid[EID(c, k)] = c->fine[v];
    } else if (c->fine) {
        fine = c->fine;
    }
    for (t = 0; !rc && c->fine && t < nt; t++) {
        const char *tn = (edges ? m->etypes : m->ntypes)[t].name;
        struct gather g = { c, p, edges, t };

        if (tid)
            src = tid + m->etypes[t].offset;
        rc = gather_entry(&w, &g,
                          data_key(key, sizeof(key), tn, r, "trainer_id"),
                          DP_I64, 1, one, src, 8, fine, edges);
    }
    free(tid);
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

/* Typed orig ids: one entry per type keyed by its name, the input id
 * within the type of every inner node / edge of it (dispatch_data). */
static int write_orig_typed(struct ctx *c, int p, int edges)
{
    const struct dp_dataset_meta *m = &c->d.meta;
    int nt = edges ? c->ET : c->T, t, rc;
    struct dp_tensor_writer w;
    char *path = part_path(c, p, edges ? "orig_eids.dgl" : "orig_nids.dgl");
    int64_t one[1] = { 0 };

    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path, (uint64_t)nt);
    free(path);
    for (t = 0; !rc && t < nt; t++) {
        struct gather g = { c, p, edges, t };

        rc = gather_entry(&w, &g, (edges ? m->etypes : m->ntypes)[t].name,
                          DP_I64, 1, one, NULL, 8, NULL, 0);
    }
    if (rc) {
        dp_tensor_writer_abort(&w);
        return rc;
    }
    return dp_tensor_writer_commit(&w);
}

static int write_node_feats(struct ctx *c, int p)
{
    const struct dp_dataset *d = &c->d;
    const struct dp_rename *r = &c->nren;
    struct dp_tensor_writer w;
    struct gather g = { c, p, 0, -1 };
    char *path = part_path(c, p, "node_feat.dgl");
    uint64_t count = 0;
    int64_t one[1] = { 0 };
    char k[256];
    int rc, i;

    if (c->T) {
        free(path);
        return write_feats_typed(c, p, 0);
    }
    if (!path)
        return DP_ENOMEM;
    count = (d->feat.data != NULL) + (d->label.data != NULL) +
            (d->train_mask.data != NULL) + (d->val_mask.data != NULL) +
            (d->test_mask.data != NULL) + (c->fine != NULL) +
            (uint64_t)d->meta.num_ndata;
    rc = dp_tensor_writer_open(&w, path, count);
    free(path);
    if (rc)
        return rc;
    if (d->feat.data)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "feat"),
                          DP_F32, 2, d->feat.h.shape, d->feat.data,
                          (size_t)d->meta.feat_dim * 4, NULL, 0);
    if (!rc && d->label.data)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "label"),
                          DP_I64, 1, one, d->label.data, 8, NULL, 0);
    if (!rc && d->train_mask.data)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "train_mask"),
                          DP_U8, 1, one, d->train_mask.data, 1, NULL, 0);
    if (!rc && d->val_mask.data)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "val_mask"),
                          DP_U8, 1, one, d->val_mask.data, 1, NULL, 0);
    if (!rc && d->test_mask.data)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "test_mask"),
                          DP_U8, 1, one, d->test_mask.data, 1, NULL, 0);
    for (i = 0; !rc && i < d->meta.num_ndata; i++)
        rc = write_data(c, &w, p, 0, -1, "_N", d->meta.ndata[i].name,
                        &d->ndata[i]);
    if (!rc && c->fine)
        rc = gather_entry(&w, &g, data_key(k, sizeof(k), "_N", r, "trainer_id"),
                          DP_I64, 1, one, NULL, 8, c->fine, 0);
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

static int write_edge_feats(struct ctx *c, int p)
{
    const struct dp_dataset *d = &c->d;
    struct dp_tensor_writer w;
    struct gather g = { c, p, 1, -1 };
    char *path = part_path(c, p, "edge_feat.dgl");
    int64_t one[1] = { 0 };
    char key[256];
    int rc, i;

    if (c->T) {
        free(path);
        return write_feats_typed(c, p, 1);
    }
    if (!path)
        return DP_ENOMEM;
    rc = dp_tensor_writer_open(&w, path,
                               (d->edge_weight.data != NULL) +
                                   (c->fine != NULL) +
                                   (uint64_t)d->meta.num_edata);
    free(path);
    if (rc)
        return rc;
    if (d->edge_weight.data)
        rc = gather_entry(&w, &g,
                          data_key(key, sizeof(key), ETYPE, &c->eren, "weight"),
                          DP_I64, 1, one, d->edge_weight.data, 8, NULL, 0);
    for (i = 0; !rc && i < d->meta.num_edata; i++)
        rc = write_data(c, &w, p, 1, -1, ETYPE, d->meta.edata[i].name,
                        &d->edata[i]);
    if (!rc && c->fine && c->K > 1)
        rc = gather_entry(
            &w, &g, data_key(key, sizeof(key), ETYPE, &c->eren, "trainer_id"),
            DP_I64, 1, one, NULL, 8, c->fine, 1);
    if (!rc && c->fine && c->K == 1) {
        /* standalone: edges keep input ids, so index by input edge id */
        int64_t *t = dp_malloc_array((size_t)c->e + 1, sizeof(*t)), v, k;

        if (!t) {
            rc = DP_ENOMEM;
        } else {
            for (v = 0; v < c->n; v++)
                for (k = c->ip[v]; k < c->ip[v + 1]; k++)
                    t[EID(c, k)] = c->fine[v];
            rc = gather_entry(
                &w, &g,
                data_key(key, sizeof(key), ETYPE, &c->eren, "trainer_id"),
                DP_I64, 1, one, t, 8, NULL, 0);
            free(t);
        }
    }
    if (!rc)
        return dp_tensor_writer_commit(&w);
    dp_tensor_writer_abort(&w);
    return rc;
}

/* The input id of every inner node / edge (dispatch_data's layout). */
static int write_orig_ids(struct ctx *c, int p)
{
    struct dp_tensor_writer w;
    struct gather gn = { c, p, 0, -1 }, ge = { c, p, 1, -1 };
    char *path;
    int64_t one[1] = { 0 };
    int rc;

    if (c->T) {
        rc = write_orig_typed(c, p, 0);
        return rc || c->o->no_orig_eids ? rc : write_orig_typed(c, p, 1);
    }
    path = part_path(c, p, "orig_nids.dgl");
    rc = path ? dp_tensor_writer_open(&w, path, 1) : DP_ENOMEM;
    free(path);
    if (!rc) {
        rc = gather_entry(&w, &gn, DP_ORIG_NIDS_KEY, DP_I64, 1, one, NULL, 8,
                          NULL, 0);
        rc =
            rc ? (dp_tensor_writer_abort(&w), rc) : dp_tensor_writer_commit(&w);
    }
    if (!rc && !c->o->no_orig_eids) {
        path = part_path(c, p, "orig_eids.dgl");
        rc = path ? dp_tensor_writer_open(&w, path, 1) : DP_ENOMEM;
        free(path);
        if (!rc) {
            rc = gather_entry(&w, &ge, DP_ORIG_EIDS_KEY, DP_I64, 1, one, NULL,
                              8, NULL, 0);
            rc = rc ? (dp_tensor_writer_abort(&w), rc)
                    : dp_tensor_writer_commit(&w);
        }
    }
    return rc;
}

static int write_config(struct ctx *c, char **cfg_rel)
{
    struct dp_part_config cfg;
    char **nf = NULL, **ef = NULL, **pg = NULL, *path = NULL, file[512];
    int64_t(*nmap)[2] = NULL, (*emap)[2] = NULL;
    int64_t(*tmap)[2] = NULL, (*etmap)[2] = NULL;
    char **tn = NULL, **etn = NULL;
    int p, rc = DP_ENOMEM;

    nf = dp_calloc((size_t)c->K, sizeof(char *));
    ef = dp_calloc((size_t)c->K, sizeof(char *));
    pg = dp_calloc((size_t)c->K, sizeof(char *));
    nmap = dp_calloc((size_t)c->K, sizeof(*nmap));
    emap = dp_calloc((size_t)c->K, sizeof(*emap));
    if (!nf || !ef || !pg || !nmap || !emap)
        goto out;
    for (p = 0; p < c->K; p++) {
        char buf[64];

        nmap[p][0] = c->nstart[p];
        nmap[p][1] = c->nstart[p + 1];
        emap[p][0] = c->estart[p];
        emap[p][1] = c->estart[p + 1];
        snprintf(buf, sizeof(buf), "part%d/node_feat.dgl", p);
        nf[p] = dp_strdup(buf);
        snprintf(buf, sizeof(buf), "part%d/edge_feat.dgl", p);
        ef[p] = dp_strdup(buf);
        snprintf(buf, sizeof(buf), "part%d/graph.dgl", p);
        pg[p] = dp_strdup(buf);
        if (!nf[p] || !ef[p] || !pg[p])
            goto out;
    }
    snprintf(file, sizeof(file), "%s.json", c->name);
    path = dp_path_join(c->tmp, file);
    if (!path)
        goto out;
    memset(&cfg, 0, sizeof(cfg));
    cfg.path = path;
    cfg.dir = c->tmp;
    cfg.graph_name = (char *)c->name;
    cfg.part_method =
        (char *)(c->o->part_assign ? "custom" : c->o->part_method);
    cfg.num_nodes = c->n;
    cfg.num_edges = c->e;
    cfg.num_parts = c->K;
    cfg.halo_hops = c->o->num_hops;
    cfg.node_map = nmap;
    cfg.edge_map = emap;
    cfg.node_feats = nf;
    cfg.edge_feats = ef;
    cfg.part_graph = pg;
    if (c->T) {
        int64_t k, nk = (int64_t)c->K * c->T, ek = (int64_t)c->K * c->ET;

        tmap = dp_malloc_array((size_t)nk, sizeof(*tmap));
        etmap = dp_malloc_array((size_t)ek, sizeof(*etmap));
        tn = dp_malloc_array((size_t)c->T, sizeof(*tn));
        etn = dp_malloc_array((size_t)c->ET, sizeof(*etn));
        if (!tmap || !etmap || !tn || !etn) {
            rc = DP_ENOMEM;
            goto out;
        }
        for (k = 0; k < nk; k++) {
            tmap[k][0] = c->tstart[k];
            tmap[k][1] = c->tstart[k + 1];
        }
        for (k = 0; k < ek; k++) {
            etmap[k][0] = c->etstart[k];
            etmap[k][1] = c->etstart[k + 1];
        }
        for (p = 0; p < c->T; p++)
            tn[p] = c->d.meta.ntypes[p].name;
        for (p = 0; p < c->ET; p++)
            etn[p] = c->d.meta.etypes[p].name;
        cfg.num_ntypes = c->T;
        cfg.num_etypes = c->ET;
        cfg.ntypes = tn;
        cfg.etypes = etn;
        cfg.ntype_map = tmap;
        cfg.etype_map = etmap;
    }
    rc = dp_config_write(path, &cfg);
    if (!rc) {
        *cfg_rel = dp_strdup(file);
        if (!*cfg_rel)
            rc = DP_ENOMEM;
    }
out:
    for (p = 0; nf && ef && pg && p < c->K; p++) {
        free(nf[p]);
        free(ef[p]);
        free(pg[p]);
    }
    free(nf);
    free(ef);
    free(pg);
    free(nmap);
    free(emap);
    free(tmap);
    free(etmap);
    free(tn);
    free(etn);
    free(path);
    return rc;
}

/* max over parts of a per-part total, divided by the average. */
static double max_over_avg(const double *tot, int K)
{
    double sum = 0, mx = 0;
    int p;

    for (p = 0; p < K; p++) {
        sum += tot[p];
        if (tot[p] > mx)
            mx = tot[p];
    }
    return sum > 0 ? mx * K / sum : 1.0;
}

static int add_balance(cJSON *arr, const char *name, const double *tot, int K)
{
    cJSON *o = cJSON_CreateObject();
    double r = max_over_avg(tot, K);

    if (!o)
        return DP_ENOMEM;
    cJSON_AddStringToObject(o, "constraint", name);
    cJSON_AddNumberToObject(o, "max_over_avg",
                            (double)(int64_t)(r * 1e4 + 0.5) / 1e4);
    cJSON_AddItemToArray(arr, o);
    return 0;
}

static int write_stats(struct ctx *c, const char *cfg_rel)
{
    cJSON *root = cJSON_CreateObject(), *parts, *bal;
    double *tot = dp_calloc((size_t)c->K, sizeof(double));
    char *text = NULL, *path = NULL;
    int64_t halo = 0, v;
    int p, col, rc = DP_ENOMEM;
    const uint8_t *tm = c->d.train_mask.data;

    if (!root || !tot)
        goto out;
    cJSON_AddStringToObject(root, "graph_name", c->name);
    cJSON_AddStringToObject(root, "config", cfg_rel);
    cJSON_AddStringToObject(root, "partitioner",
                            !c->has_objval   ? "none"
                            : c->levels >= 0 ? "multilevel"
                                             : "metis");
    cJSON_AddNumberToObject(root, "levels", c->levels);
    cJSON_AddStringToObject(root, "part_method",
                            c->o->part_assign ? "custom" : c->o->part_method);
    cJSON_AddNumberToObject(root, "num_parts", c->K);
    cJSON_AddStringToObject(root, "halo_edges", c->o->halo_in ? "in" : "all");
    cJSON_AddNumberToObject(root, "num_nodes", (double)c->n);
    cJSON_AddNumberToObject(root, "num_edges", (double)c->e);
    cJSON_AddNumberToObject(root, "edge_cut", (double)c->edge_cut);
    if (c->has_objval)
        cJSON_AddNumberToObject(
            root, c->o->objtype_vol ? "metis_volume" : "metis_edge_cut",
            (double)c->objval);
    /* what each dataset array is called in node_feat.dgl / edge_feat.dgl,
     * so readers need not guess after --ndata_name/--edata_name */
    {
        cJSON *nd = cJSON_AddObjectToObject(root, "ndata_names");
        cJSON *ed = cJSON_AddObjectToObject(root, "edata_names");
        int j;

        const char *const *nl = c->nknown;
        const char *const *el = c->eknown;

        for (j = 0; nl[j]; j++)
            cJSON_AddStringToObject(nd, nl[j],
                                    dp_rename_apply(&c->nren, nl[j]));
        for (j = 0; el[j]; j++)
            cJSON_AddStringToObject(ed, el[j],
                                    dp_rename_apply(&c->eren, el[j]));
    }
    parts = cJSON_AddArrayToObject(root, "parts");
    for (p = 0; p < c->K; p++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "nodes", (double)c->ps[p].nodes);
        cJSON_AddNumberToObject(o, "edges", (double)c->ps[p].edges);
        cJSON_AddNumberToObject(o, "halo_nodes", (double)c->ps[p].halo_nodes);
        cJSON_AddNumberToObject(o, "halo_edges", (double)c->ps[p].halo_edges);
        cJSON_AddItemToArray(parts, o);
        halo += c->ps[p].halo_nodes;
    }
    cJSON_AddNumberToObject(root, "halo_nodes", (double)halo);
    bal = cJSON_AddArrayToObject(root, "balance");
    for (p = 0; p < c->K; p++)
        tot[p] = (double)c->ps[p].nodes;
    add_balance(bal, "nodes", tot, c->K);
    for (p = 0; p < c->K; p++)
        tot[p] = (double)c->ps[p].edges;
    add_balance(bal, "in-edges", tot, c->K);
    if (tm) {
        memset(tot, 0, (size_t)c->K * sizeof(double));
        for (v = 0; v < c->n; v++)
            tot[c->part[v]] += tm[v] != 0;
        add_balance(bal, "train nodes", tot, c->K);
    }
    for (col = 0; col < c->T; col++) {
        char nm[128];
        int k, dup = 0;

        snprintf(nm, sizeof(nm), "%s nodes", c->d.meta.ntypes[col].name);
        for (k = 0; c->vw.w && k < c->vw.ncon; k++)
            dup |= !strcmp(nm, c->vw.names[k]);
        if (dup)
            continue;
        for (p = 0; p < c->K; p++)
            tot[p] = (double)(c->tstart[p * c->T + col + 1] -
                              c->tstart[p * c->T + col]);
        add_balance(bal, nm, tot, c->K);
    }
    for (col = 0; c->vw.w && col < c->vw.ncon; col++) {
        const char *nm = c->vw.names[col];

        if (!strcmp(nm, "nodes") || !strcmp(nm, "in-edges") ||
            !strcmp(nm, "train nodes"))
            continue;
        memset(tot, 0, (size_t)c->K * sizeof(double));
        for (v = 0; v < c->n; v++)
            tot[c->part[v]] += (double)c->vw.w[v * c->vw.ncon + col];
        add_balance(bal, nm, tot, c->K);
    }
    text = cJSON_Print(root);
    path = dp_path_join(c->tmp, "partition-stats.json");
    if (!text || !path)
        goto out;
    rc = dp_write_file(path, text, strlen(text));
    if (rc || c->o->quiet)
        goto out;
    printf("partitioned '%s' into %d part%s (%s%s): %" PRId64 " nodes, %" PRId64
           " edges, edge cut %" PRId64 " (%.2f%%)\n",
           c->name, c->K, c->K > 1 ? "s" : "",
           c->o->part_assign ? "custom" : c->o->part_method,
           c->levels >= 0 ? ", multilevel" : "", c->n, c->e, c->edge_cut,
           c->e ? 100.0 * (double)c->edge_cut / (double)c->e : 0.0);
    for (p = 0; p < c->K; p++)
        printf("  part %d: %" PRId64 " nodes, %" PRId64 " edges, %" PRId64
               " halo nodes, %" PRId64 " halo edges\n",
               p, c->ps[p].nodes, c->ps[p].edges, c->ps[p].halo_nodes,
               c->ps[p].halo_edges);
    printf("  balance (max/avg):");
    {
        cJSON *it;
        int first = 1;

        cJSON_ArrayForEach(it, bal)
        {
            printf("%s %s %.3f", first ? "" : ",",
                   cJSON_GetObjectItem(it, "constraint")->valuestring,
                   cJSON_GetObjectItem(it, "max_over_avg")->valuedouble);
            first = 0;
        }
    }
    printf("\n");
out:
    cJSON_Delete(root);
    free(text);
    free(path);
    free(tot);
    return rc;
}

static void ctx_release(struct ctx *c)
{
    if (!c->borrowed)
        dp_dataset_release(&c->d);
    dp_vweights_release(&c->vw);
    free(c->part);
    free(c->fine);
    free(c->newid);
    free(c->orig);
    free(c->nptr);
    free(c->esrc);
    free(c->nstart);
    free(c->estart);
    free(c->tstart);
    free(c->etstart);
    free(c->pos2eid);
    free((void *)c->nknown);
    free((void *)c->eknown);
    free(c->ps);
    free(c->tmp);
    dp_rename_release(&c->nren);
    dp_rename_release(&c->eren);
}

/* A scratch dataset's edge files, once the reshuffled CSC holds what the
 * parts read of them: its sources always; its offsets and edge ids too
 * unless an edge array is gathered (orig_eids, weights, trainer ids). At
 * rmat 27 x 12 with --no_orig_eids this gives back 7.5 GB of disk before
 * the parts take theirs. */
static int discard_edges(struct ctx *c)
{
    int edges = (!c->o->no_orig_ids && !c->o->no_orig_eids) ||
                c->d.edge_weight.data || c->fine;
    int rc = dp_dataset_discard_edges(&c->d, !edges);

    if (!edges)
        c->ip = NULL;
    if (!rc)
        dp_log(DP_LOG_V, "scratch dataset: %s removed",
               edges ? "indices.npy" : "indices.npy, eids.npy and indptr.npy");
    return rc;
}

static int check_opts(const struct dp_partition_opts *o)
{
    if (o->num_parts < 1)
        return dp_error(DP_EINVAL, "--num_parts %d: must be at least 1",
                        o->num_parts);
    if (strcmp(o->part_method, "metis") && strcmp(o->part_method, "random"))
        return dp_error(DP_EINVAL,
                        "--part_method '%s': expected metis or "
                        "random",
                        o->part_method);
    if (o->num_hops < 0)
        return dp_error(DP_EINVAL, "--num_hops %d: must be at least 0",
                        o->num_hops);
    if (o->num_trainers < 1)
        return dp_error(DP_EINVAL,
                        "--num_trainers_per_machine %d: must be at "
                        "least 1",
                        o->num_trainers);
    /* --overwrite would delete the dataset it reads */
    if (o->out && !o->write_metis && !o->mem)
        return dp_path_check_apart(o->out, o->dataset);
    return 0;
}

/* Parts are built and written by PART_THREADS workers, part p by worker
 * p % PART_THREADS: each holds one part's arrays and its own id map, so
 * memory stays a small multiple of one part while the disk and the CPU
 * overlap. */
#define PART_THREADS 2

struct worker {
    struct ctx *c;
    int first;
    int rc;
    char msg[512];
    pthread_t tid;
};

static int write_part(struct ctx *c, int p, void *lid)
{
    struct local l;
    char *dir = part_path(c, p, NULL);
    double t1 = dp_now();
    int rc;

    if (!dir)
        return DP_ENOMEM;
    rc = dp_mkdir_p(dir, 0777);
    free(dir);
    if (rc)
        return rc;
    local_init(&l, c, p, lid);
    rc = c->K == 1 ? build_standalone(&l)
         : c->T    ? build_typed(&l)
                   : discover(&l);
    if (!rc)
        rc = write_graph(c, p, &l);
    local_free(&l);
    if (rc || (rc = write_node_feats(c, p)) || (rc = write_edge_feats(c, p)) ||
        (!c->o->no_orig_ids && (rc = write_orig_ids(c, p))))
        return rc;
    if (dp_verbose) {
        char label[32];

        snprintf(label, sizeof(label), "part %d", p);
        dp_timer_report(label, t1);
    }
    return 0;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct ctx *c = w->c;
    void *lid = NULL;
    int p;

    if (c->K > 1) {
        /* int32 below 2^31 nodes, as struct local reads it; all ones is
         * -1 in either width */
        size_t width = c->n > INT32_MAX ? 8 : 4;

        lid = dp_malloc_array((size_t)c->n + 1, width);
        if (!lid) {
            w->rc = DP_ENOMEM;
            goto out;
        }
        memset(lid, 0xff, ((size_t)c->n + 1) * width);
    }
    for (p = w->first; p < c->K && !w->rc; p += PART_THREADS)
        if (!(w->rc = dp_check_interrupt()))
            w->rc = write_part(c, p, lid);
out:
    if (w->rc)
        snprintf(w->msg, sizeof(w->msg), "%s", dp_errmsg());
    free(lid);
    return NULL;
}

static int write_parts(struct ctx *c)
{
    struct worker w[PART_THREADS];
    int i, nw = c->K < PART_THREADS ? c->K : PART_THREADS, started = 0;

    memset(w, 0, sizeof(w));
    for (i = 0; i < nw; i++) {
        w[i].c = c;
        w[i].first = i;
        if (i > 0 && pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
            w[i].rc = dp_error(DP_ENOMEM, "cannot start a thread");
            break;
        }
        started = i + 1;
    }
    worker_main(&w[0]);
    for (i = 1; i < started; i++)
        pthread_join(w[i].tid, NULL);
    for (i = 0; i < nw; i++)
        if (w[i].rc)
            return dp_error(w[i].rc, "%s", w[i].msg);
    return 0;
}

/* Counting the cut, reshuffling and writing the parts read the dataset's
 * arrays all over (a part's rows are spread through them): past this many
 * resident bytes of mapped files their pages are let go, so the step's
 * resident set is its own arrays, not the whole mapped dataset (rmat25:
 * 4.9 GB). */
#define FILE_RSS_CAP ((size_t)1 << 30)

static void drop_dataset(void *arg)
{
    dp_dataset_drop(arg);
}

int dp_partition(const struct dp_partition_opts *o)
{
    struct ctx c;
    char *cfg_rel = NULL, *parent = NULL;
    double t0 = dp_now(), t1;
    int rc, p, lock = -1;
    void *watch;

    memset(&c, 0, sizeof(c));
    c.levels = -1;
    c.o = o;
    if ((rc = check_opts(o)))
        goto out;
    /* two runs into one output would delete each other's OUT.tmp */
    if (!o->write_metis && (rc = dp_output_lock(o->out, &lock)))
        goto out;
    if (!o->write_metis && dp_exists(o->out) && !o->overwrite) {
        rc = dp_error(DP_EEXIST,
                      "'%s' already exists (use --overwrite to "
                      "replace it)",
                      o->out);
        goto out;
    }
    if (o->mem) {
        c.d = *o->mem;
        c.borrowed = 1;
    } else if ((rc = dp_dataset_open(&c.d, o->dataset))) {
        goto out;
    }
    /* standalone parts keep input edge ids, orig_eids.dgl lists them */
    if (c.d.meta.no_eids && !o->write_metis &&
        (o->num_parts == 1 || (!o->no_orig_ids && !o->no_orig_eids))) {
        rc = dp_error(
            DP_EINVAL, "'%s' has no eids.npy (converted with --no_eids): %s",
            c.d.dir,
            o->num_parts == 1 ? "one part keeps input edge ids; convert again "
                                "without --no_eids"
                              : "add --no_orig_eids, or convert again without "
                                "--no_eids");
        goto out;
    }
    c.T = c.d.meta.num_ntypes;
    c.ET = c.d.meta.num_etypes;
    if ((rc = data_names(&c)) ||
        (rc = parse_renames("--ndata_name", o->ndata_name,
                            (const char *const *)c.nknown, &c.nren)) ||
        (rc = parse_renames("--edata_name", o->edata_name,
                            (const char *const *)c.eknown, &c.eren)))
        goto out;
    c.ip = dp_dataset_indptr(&c.d);
    c.n = c.d.meta.num_nodes;
    c.e = c.d.meta.num_edges;
    c.K = o->num_parts;
    c.name = o->graph_name ? o->graph_name : c.d.meta.name;
    if (!c.name || !*c.name || strchr(c.name, '/')) {
        rc = dp_error(DP_EINVAL,
                      "graph name '%s': must be a non-empty file "
                      "name",
                      c.name ? c.name : "");
        goto out;
    }
    if (c.K > c.n) {
        rc = dp_error(DP_EINVAL,
                      "--num_parts %d: more parts than the %" PRId64
                      " nodes of '%s'",
                      c.K, c.n, c.d.dir);
        goto out;
    }
    if (o->write_metis) {
        rc = dp_vweights_build(&c.d, o->balance_train, o->balance_edges,
                               o->balance_ntypes, &c.vw);
        if (!rc)
            rc = dp_metis_write_graph(&c.d, &c.vw, o->write_metis);
        goto out;
    }
    {
        struct dp_budget b;

        if ((rc = dp_partition_budget(o, &c.d, &b)))
            goto out;
        c.lean = b.lean;
    }
    t1 = dp_now();
    if ((rc = assign(&c)) || (rc = dp_check_interrupt()))
        goto out;
    if (dp_verbose)
        dp_timer_report("assignment", t1);
    if (o->write_assign && (rc = dp_assign_write(o->write_assign, c.n, c.part)))
        goto out;
    watch = dp_file_watch(FILE_RSS_CAP, drop_dataset, &c.d);
    count_cut(&c);
    rc = reshuffle(&c);
    if (!rc && (o->orig_nids || o->orig_eids))
        rc = fill_orig_maps(&c);
    dp_file_watch_stop(watch);
    if (!rc && o->discard_edges && c.K > 1 && !c.T)
        rc = discard_edges(&c);
    if (rc)
        goto out;
    for (p = 0; p < c.K; p++)
        if (c.nstart[p] == c.nstart[p + 1])
            dp_warn("part %d is empty", p);
    c.ps = dp_calloc((size_t)c.K, sizeof(*c.ps));
    {
        size_t n = strlen(o->out) + 5;

        c.tmp = dp_malloc(n);
        if (c.tmp)
            snprintf(c.tmp, n, "%s.tmp", o->out);
    }
    if (!c.ps || !c.tmp) {
        rc = DP_ENOMEM;
        goto out;
    }
    parent = dp_path_dirname(o->out);
    if (!parent || (rc = dp_mkdir_p(parent, 0777))) {
        rc = rc ? rc : DP_ENOMEM;
        goto out;
    }
    dp_rm_rf(c.tmp);
    if ((rc = dp_mkdir_p(c.tmp, 0777)))
        goto out;
    if (o->ready &&
        ((rc = o->ready(o->ready_arg)) || (rc = dp_dataset_open_feat(&c.d))))
        goto fail;
    /* started after the features are open: the watch reads their map */
    watch = dp_file_watch(FILE_RSS_CAP, drop_dataset, &c.d);
    rc = write_parts(&c);
    dp_file_watch_stop(watch);
    if (rc)
        goto fail;
    if ((rc = write_config(&c, &cfg_rel)) ||
        (!o->no_stats && (rc = write_stats(&c, cfg_rel))))
        goto fail;
    if ((rc = dp_install_dir(c.tmp, o->out)))
        goto fail;
    if (dp_verbose)
        dp_timer_report("partition", t0);
    goto out;
fail:
    dp_rm_rf(c.tmp);
out:
    free(cfg_rel);
    free(parent);
    ctx_release(&c);
    dp_output_unlock(o->out, lock);
    return rc;
}
