/* A graph in memory partitioned in place (arrays.h): the caller's edge
 * lists become the in-edge CSC partition reads, its data arrays are read
 * where they lie, and the partition stage runs on that dataset as on a
 * converted folder. Above the stages, like the pipeline: it builds what
 * convert would have written, then calls partition. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <getopt.h>

#include "dglpart/alloc.h"
#include "dglpart/arrays.h"
#include "dglpart/dataset.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/partition.h"

#define NTYPE_HOM "_N"
#define ETYPE_HOM "_N:_E:_N"
#define MAX_CLASSES 16 /* dp_vweights' constraint columns */

struct etype_in {
    enum dp_dtype dtype; /* DP_I32 or DP_I64 */
    const void *src, *dst;
};

struct balance_in {
    enum dp_dtype dtype;
    const void *values; /* NULL: none given for this type */
};

struct dp_arrays {
    struct dp_dataset d;               /* meta (owned), data views (borrowed) */
    size_t ntcap, etcap, ndcap, edcap; /* capacities of meta's lists */
    size_t bcap, eicap, nacap, eacap;  /* and of the parallel ones */
    struct etype_in *ein;              /* [num_etypes] */
    struct balance_in *bal;            /* [num_ntypes] */
    struct balance_in hbal;            /* a homogeneous graph's */
    struct dp_partition_opts o;
    char **strs; /* option values (owned) */
    size_t nstrs, strcap;
    int32_t *cls;
    int nclass;
};

struct dp_arrays *dp_arrays_new(void)
{
    struct dp_arrays *g = dp_calloc(1, sizeof(*g));

    if (!g)
        return NULL;
    dp_partition_opts_init(&g->o);
    return g;
}

static void csc_free(struct dp_arrays *g)
{
    free((void *)g->d.indptr.data);
    free((void *)g->d.indices.data);
    free((void *)g->d.eids.data);
    g->d.indptr.data = g->d.indices.data = g->d.eids.data = NULL;
}

void dp_arrays_free(struct dp_arrays *g)
{
    size_t i;

    if (!g)
        return;
    csc_free(g);
    free(g->d.ndata);
    free(g->d.edata);
    free(g->d.dir);
    dp_dataset_meta_release(&g->d.meta);
    free(g->ein);
    free(g->bal);
    for (i = 0; i < g->nstrs; i++)
        free(g->strs[i]);
    free(g->strs);
    free(g->cls);
    free(g);
}

int64_t dp_arrays_num_nodes(const struct dp_arrays *g)
{
    return g->d.meta.num_nodes;
}

int64_t dp_arrays_num_edges(const struct dp_arrays *g)
{
    return g->d.meta.num_edges;
}

int dp_arrays_add_ntype(struct dp_arrays *g, const char *name, int64_t count)
{
    struct dp_dataset_meta *m = &g->d.meta;
    int rc, i;

    if (!name || !*name || strchr(name, '/') || strchr(name, ':'))
        return dp_error(DP_EINVAL,
                        "node type '%s': expected a name without "
                        "'/' or ':'",
                        name ? name : "");
    for (i = 0; i < m->num_ntypes; i++)
        if (!strcmp(m->ntypes[i].name, name))
            return dp_error(DP_EINVAL, "node type '%s' given twice", name);
    if (count < 0 || count > INT64_MAX / 2 - m->num_nodes)
        return dp_error(DP_ERANGE, "node type '%s': %" PRId64 " nodes", name,
                        count);
    if ((rc = DP_ALLOC_GROW(m->ntypes, (size_t)m->num_ntypes + 1, g->ntcap)) ||
        (rc = DP_ALLOC_GROW(g->bal, (size_t)m->num_ntypes + 1, g->bcap)))
        return rc;
    memset(&m->ntypes[m->num_ntypes], 0, sizeof(m->ntypes[0]));
    memset(&g->bal[m->num_ntypes], 0, sizeof(g->bal[0]));
    if (!(m->ntypes[m->num_ntypes].name = dp_strdup(name)))
        return DP_ENOMEM;
    m->ntypes[m->num_ntypes++].count = count;
    m->num_nodes += count;
    return 0;
}

int dp_arrays_add_etype(struct dp_arrays *g, const char *name, int64_t count,
                        const char *dtype, const void *src, const void *dst)
{
    struct dp_dataset_meta *m = &g->d.meta;
    enum dp_dtype t;
    int rc, i;

    if (!name || strchr(name, '/'))
        return dp_error(DP_EINVAL, "edge type '%s': expected 'src:rel:dst'",
                        name ? name : "");
    for (i = 0; i < m->num_etypes; i++)
        if (!strcmp(m->etypes[i].name, name))
            return dp_error(DP_EINVAL, "edge type '%s' given twice", name);
    if ((rc = dp_dtype_from_name(dtype, &t)))
        return rc;
    if (t != DP_I32 && t != DP_I64)
        return dp_error(DP_EINVAL,
                        "edges of '%s': node ids of dtype %s, expected "
                        "int32 or int64",
                        name, dtype);
    if (count < 0 || count > INT64_MAX / 2 - m->num_edges ||
        (count && (!src || !dst)))
        return dp_error(DP_EINVAL, "edges of '%s': %" PRId64 " edges", name,
                        count);
    if ((rc = DP_ALLOC_GROW(m->etypes, (size_t)m->num_etypes + 1, g->etcap)) ||
        (rc = DP_ALLOC_GROW(g->ein, (size_t)m->num_etypes + 1, g->eicap)))
        return rc;
    memset(&m->etypes[m->num_etypes], 0, sizeof(m->etypes[0]));
    if (!(m->etypes[m->num_etypes].name = dp_strdup(name)))
        return DP_ENOMEM;
    g->ein[m->num_etypes] = (struct etype_in){ t, src, dst };
    m->etypes[m->num_etypes++].count = count;
    m->num_edges += count;
    return 0;
}

int dp_arrays_add_data(struct dp_arrays *g, int edge, int type,
                       const char *name, const char *dtype, int ndim,
                       const int64_t *shape, const void *data)
{
    struct dp_dataset_meta *m = &g->d.meta;
    int nt = edge ? m->num_etypes : m->num_ntypes, *n, i, rc;
    const struct dp_dataset_type *ty;
    struct dp_dataset_data **x = edge ? &m->edata : &m->ndata;
    struct dp_npy **a = edge ? &g->d.edata : &g->d.ndata, *arr;
    size_t *cap = edge ? &g->edcap : &g->ndcap;
    size_t *acap = edge ? &g->eacap : &g->nacap;
    const char *what = edge ? "edge" : "node";
    enum dp_dtype t;
    uint64_t count = 1;

    if (type < 0 || type >= nt)
        return dp_error(DP_EINVAL, "%s data '%s': no %s type %d", what,
                        name ? name : "", what, type);
    ty = edge ? &m->etypes[type] : &m->ntypes[type];
    if (!name || !*name || strchr(name, '/'))
        return dp_error(DP_EINVAL,
                        "%s data of '%s': name '%s' must be "
                        "non-empty, without '/'",
                        what, ty->name, name ? name : "");
    if ((rc = dp_dtype_from_name(dtype, &t)))
        return dp_error(rc, "%s data '%s' of '%s': %s", what, name, ty->name,
                        "expected a bool, integer or float dtype");
    if (ndim < 1 || ndim > DP_NPY_MAXDIM || shape[0] != ty->count)
        return dp_error(DP_EINVAL,
                        "%s data '%s' of '%s': %" PRId64 " rows, "
                        "expected %" PRId64 " (the type's count)",
                        what, name, ty->name, ndim < 1 ? 0 : shape[0],
                        ty->count);
    n = edge ? &m->num_edata : &m->num_ndata;
    for (i = 0; i < *n; i++)
        if ((*x)[i].type == type && !strcmp((*x)[i].name, name))
            return dp_error(DP_EINVAL, "%s data '%s' of '%s' given twice", what,
                            name, ty->name);
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0 ||
            (shape[i] && count > UINT64_MAX / 16 / (uint64_t)shape[i]))
            return dp_error(DP_ERANGE, "%s data '%s' of '%s': bad shape", what,
                            name, ty->name);
        count *= (uint64_t)shape[i];
    }
    if ((rc = DP_ALLOC_GROW(*x, (size_t)*n + 1, *cap)) ||
        (rc = DP_ALLOC_GROW(*a, (size_t)*n + 1, *acap)))
        return rc;
    if (!((*x)[*n].name = dp_strdup(name)))
        return DP_ENOMEM;
    (*x)[*n].type = type;
    (*x)[*n].nchunks = 0;
    (*x)[*n].chunks = NULL;
    arr = &(*a)[*n];
    memset(arr, 0, sizeof(*arr));
    arr->h.dtype = t;
    arr->h.ndim = ndim;
    memcpy(arr->h.shape, shape, (size_t)ndim * sizeof(*shape));
    arr->h.count = count;
    arr->data = data;
    (*n)++;
    return 0;
}

int dp_arrays_set_balance(struct dp_arrays *g, int type, const char *dtype,
                          const void *values)
{
    enum dp_dtype t;
    int rc;

    if ((rc = dp_dtype_from_name(dtype, &t)))
        return rc;
    if (!dp_dtype_is_int(t))
        return dp_error(DP_EINVAL,
                        "balance_ntypes: dtype %s, expected integers "
                        "or bools",
                        dtype);
    if (type < -1 || type >= g->d.meta.num_ntypes)
        return dp_error(DP_EINVAL, "balance_ntypes: no node type %d", type);
    if (type < 0)
        g->hbal = (struct balance_in){ t, values };
    else
        g->bal[type] = (struct balance_in){ t, values };
    return 0;
}

int dp_arrays_set_option(struct dp_arrays *g, const char *name,
                         const char *value)
{
    const struct option *opt;
    char *v = NULL;
    int rc;

    for (opt = dp_partition_longopts; opt->name; opt++)
        if (!strcmp(opt->name, name))
            break;
    if (!opt->name || !strcmp(name, "output"))
        return dp_error(DP_EINVAL, "no partition option '%s'", name);
    if ((opt->has_arg == required_argument) != (value != NULL))
        return dp_error(DP_EINVAL, "option '%s' %s a value", name,
                        value ? "takes no" : "needs");
    /* the options keep pointers to their values */
    if (value) {
        if ((rc = DP_ALLOC_GROW(g->strs, g->nstrs + 1, g->strcap)))
            return rc;
        if (!(v = dp_strdup(value)))
            return DP_ENOMEM;
        g->strs[g->nstrs++] = v;
    }
    return dp_partition_parse_opt(&g->o, opt->val, v);
}

/* One untyped graph is DGL's homogeneous layout; anything else is typed. */
static int is_homogeneous(const struct dp_dataset_meta *m)
{
    return m->num_ntypes == 1 && m->num_etypes == 1 &&
           !strcmp(m->ntypes[0].name, NTYPE_HOM) &&
           !strcmp(m->etypes[0].name, ETYPE_HOM);
}

static int64_t id_at(enum dp_dtype t, const void *a, int64_t k)
{
    return t == DP_I32 ? ((const int32_t *)a)[k] : ((const int64_t *)a)[k];
}

static int bad_id(const struct dp_dataset_meta *m, int et, const char *end,
                  int64_t k, int64_t x)
{
    const struct dp_dataset_type *nt =
        &m->ntypes[*end == 's' ? m->etypes[et].src : m->etypes[et].dst];

    return dp_error(DP_ERANGE,
                    "edges of '%s': %s[%" PRId64 "] = %" PRId64
                    " out of range [0, %" PRId64 ") (the nodes of '%s')",
                    m->etypes[et].name, end, k, x, nt->count, nt->name);
}

static void put_id(void *a, int wide, int64_t k, int64_t x)
{
    if (wide)
        ((int64_t *)a)[k] = x;
    else
        ((int32_t *)a)[k] = (int32_t)x;
}

/* The in-edge CSC of every edge type (counting sort by destination, input
 * edge ids ascending within a destination, as convert writes it). */
static int build_csc(struct dp_arrays *g)
{
    struct dp_dataset_meta *m = &g->d.meta;
    int64_t n = m->num_nodes, e = m->num_edges, k, v, *ip;
    int wide = n >= INT32_MAX || e >= INT32_MAX, et, rc;
    void *src, *eid;

    m->ids32 = !wide;
    ip = dp_calloc((size_t)n + 2, sizeof(*ip));
    src = dp_malloc_array((size_t)e + 1, wide ? 8 : 4);
    eid = dp_malloc_array((size_t)e + 1, wide ? 8 : 4);
    g->d.indptr.data = ip;
    g->d.indices.data = src;
    g->d.eids.data = eid;
    if (!ip || !src || !eid)
        return DP_ENOMEM;
    for (et = 0; et < m->num_etypes; et++) {
        const struct dp_dataset_type *ty = &m->etypes[et];
        const struct dp_dataset_type *st = &m->ntypes[ty->src];
        const struct dp_dataset_type *dt = &m->ntypes[ty->dst];
        const struct etype_in *in = &g->ein[et];

        for (k = 0; k < ty->count; k++) {
            int64_t s = id_at(in->dtype, in->src, k),
                    d = id_at(in->dtype, in->dst, k);

            if (s < 0 || s >= st->count)
                return bad_id(m, et, "src", k, s);
            if (d < 0 || d >= dt->count)
                return bad_id(m, et, "dst", k, d);
            ip[dt->offset + d + 1]++;
        }
        if ((rc = dp_check_interrupt()))
            return rc;
    }
    for (v = 0; v < n; v++)
        ip[v + 1] += ip[v];
    /* ip[v] walks from v's start to its end, which is v+1's start */
    for (et = 0; et < m->num_etypes; et++) {
        const struct dp_dataset_type *ty = &m->etypes[et];
        int64_t so = m->ntypes[ty->src].offset, dof = m->ntypes[ty->dst].offset;
        const struct etype_in *in = &g->ein[et];

        for (k = 0; k < ty->count; k++) {
            int64_t d = dof + id_at(in->dtype, in->dst, k), at = ip[d]++;

            put_id(src, wide, at, so + id_at(in->dtype, in->src, k));
            put_id(eid, wide, at, ty->offset + k);
        }
    }
    memmove(ip + 1, ip, (size_t)n * sizeof(*ip));
    ip[0] = 0;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* A homogeneous balance_ntypes: each distinct value a class, in order. */
static int classes_hom(struct dp_arrays *g, int32_t *cls)
{
    const struct balance_in *b = &g->hbal;
    int64_t n = g->d.meta.num_nodes, v, *vals;
    size_t sz = dp_dtype_size(b->dtype);
    int nv = 0, i;

    if (!(vals = dp_malloc_array((size_t)n + 1, sizeof(*vals))))
        return DP_ENOMEM;
    for (v = 0; v < n; v++)
        vals[v] = dp_dtype_get_i64(b->dtype, (const char *)b->values + v * sz);
    qsort(vals, (size_t)n, sizeof(*vals), cmp_i64);
    for (v = 0; v < n; v++)
        if (!nv || vals[nv - 1] != vals[v]) {
            if (nv == MAX_CLASSES) {
                free(vals);
                return dp_error(DP_EUNSUPPORTED,
                                "balance_ntypes: more than %d distinct "
                                "values (one balance constraint each)",
                                MAX_CLASSES);
            }
            vals[nv++] = vals[v];
        }
    for (v = 0; v < n; v++) {
        int64_t x =
            dp_dtype_get_i64(b->dtype, (const char *)b->values + v * sz);

        for (i = 0; vals[i] != x; i++)
            ;
        cls[v] = i;
    }
    free(vals);
    g->nclass = nv;
    return 0;
}

/* Typed: the given types' values 0..k-1 one class each, after the classes
 * of the types before; a type with none given, one class. */
static int classes_typed(struct dp_arrays *g, int32_t *cls)
{
    const struct dp_dataset_meta *m = &g->d.meta;
    int base = 0, t;
    int64_t v;

    for (t = 0; t < m->num_ntypes; t++) {
        const struct dp_dataset_type *ty = &m->ntypes[t];
        const struct balance_in *b = &g->bal[t];
        size_t sz = b->values ? dp_dtype_size(b->dtype) : 0;
        int k = 1, seen[MAX_CLASSES] = { 0 }, j;

        if (b->values) {
            for (k = 0, v = 0; v < ty->count; v++) {
                int64_t x = dp_dtype_get_i64(b->dtype,
                                             (const char *)b->values + v * sz);

                if (x < 0 || x >= MAX_CLASSES || base + x >= MAX_CLASSES)
                    return dp_error(DP_ERANGE,
                                    "balance_ntypes['%s'][%" PRId64
                                    "] = %" PRId64 ": expected 0..k-1 with "
                                    "at most %d classes in all",
                                    ty->name, v, x, MAX_CLASSES);
                seen[x] = 1;
                if (x + 1 > k)
                    k = (int)x + 1;
                cls[ty->offset + v] = base + (int32_t)x;
            }
            for (j = 0; j < k; j++)
                if (!seen[j])
                    return dp_error(DP_EINVAL,
                                    "balance_ntypes['%s']: no node has value "
                                    "%d, expected every value of 0..%d",
                                    ty->name, j, k - 1);
        } else {
            for (v = 0; v < ty->count; v++)
                cls[ty->offset + v] = base;
        }
        if (base + k > MAX_CLASSES)
            return dp_error(DP_EUNSUPPORTED,
                            "balance_ntypes: more than %d classes over the "
                            "node types",
                            MAX_CLASSES);
        base += k;
    }
    g->nclass = base;
    return 0;
}

static int build_classes(struct dp_arrays *g, int hom)
{
    int t, any = hom && g->hbal.values;

    for (t = 0; !hom && t < g->d.meta.num_ntypes; t++)
        any |= g->bal[t].values != NULL;
    if (!any)
        return 0;
    if (!(g->cls = dp_malloc_array((size_t)g->d.meta.num_nodes + 1,
                                   sizeof(*g->cls))))
        return DP_ENOMEM;
    return hom ? classes_hom(g, g->cls) : classes_typed(g, g->cls);
}

/* An existing out folder is replaced only when it holds nothing, or what
 * a partition writes: config JSON files, part<i>/ and the stats. */
static int check_out(const char *out, int *replace)
{
    DIR *dir;
    struct dirent *de;
    int rc = 0;

    *replace = 0;
    if (!dp_exists(out))
        return 0;
    if (!(dir = opendir(out)))
        return dp_error(DP_EEXIST, "out_path '%s' exists and is not a folder",
                        out);
    while (!rc && (de = readdir(dir))) {
        const char *s = de->d_name;
        size_t len = strlen(s);

        if (!strcmp(s, ".") || !strcmp(s, "..") ||
            (len > 5 && !strcmp(s + len - 5, ".json")) ||
            (!strncmp(s, "part", 4) && len > 4 &&
             strspn(s + 4, "0123456789") == len - 4))
            continue;
        rc = dp_error(DP_EEXIST,
                      "out_path '%s' holds '%s', which no partition "
                      "writes: give a new or empty folder",
                      out, s);
    }
    closedir(dir);
    *replace = !rc;
    return rc;
}

int dp_arrays_partition(struct dp_arrays *g, const char *name, const char *out,
                        int64_t *orig_nids, int64_t *orig_eids)
{
    struct dp_dataset_meta *m = &g->d.meta;
    int hom, rc, T = m->num_ntypes, ET = m->num_etypes, replace;

    /* the binary checks the settings at start; a library caller here */
    if ((rc = dp_env_check()))
        return rc;
    if (!T || !ET)
        return dp_error(DP_EINVAL, "the graph needs a node type and an edge "
                                   "type");
    if (!name || !*name || strchr(name, '/'))
        return dp_error(DP_EINVAL,
                        "graph_name '%s': must be a non-empty "
                        "file name",
                        name ? name : "");
    if (!out || !*out)
        return dp_error(DP_EINVAL, "out_path: empty");
    hom = is_homogeneous(m);
    if (hom && g->hbal.values == NULL && g->bal[0].values)
        g->hbal = g->bal[0];
    free(g->d.dir);
    free(m->name);
    free(m->source_format);
    csc_free(g);
    free(g->cls);
    g->cls = NULL;
    if (!(g->d.dir = dp_strdup(name)) || !(m->name = dp_strdup(name)) ||
        !(m->source_format = dp_strdup("arrays")))
        return DP_ENOMEM;
    m->directed = 1;
    if ((rc = dp_dataset_set_types(m, name)) || (rc = build_csc(g)) ||
        (rc = build_classes(g, hom)) || (rc = check_out(out, &replace)))
        return rc;
    /* a homogeneous graph is untyped: its data keep type 0 */
    if (hom)
        m->num_ntypes = m->num_etypes = 0;
    g->o.mem = &g->d;
    g->o.out = out;
    g->o.graph_name = name;
    g->o.overwrite = replace;
    g->o.no_orig_ids = 1; /* partition_graph writes none */
    g->o.no_stats = 1;
    g->o.quiet = 1;
    g->o.balance_class = g->cls;
    g->o.num_classes = g->nclass;
    g->o.orig_nids = orig_nids;
    g->o.orig_eids = orig_eids;
    rc = dp_partition(&g->o);
    m->num_ntypes = T;
    m->num_etypes = ET;
    return rc;
}
