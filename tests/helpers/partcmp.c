/* Test helper for the partition stage.
 *   partcmp assign DGL_CASE OUT.txt   DGL's assignment (from orig_nids.npy
 *                                     and node_map) as one part id per line
 *                                     (homogeneous input ids)
 *   partcmp assign DGL_CASE OUTDIR    typed: DGL's assignment folder, one
 *                                     <ntype>.txt per type and
 *                                     partition_meta.json
 *   partcmp compare DGL_CASE OURS.json
 *                                     compare two partition sets by content:
 *                                     per part the same inner and halo node
 *                                     sets, edge sets (with inner flags and
 *                                     endpoints, all in input ids), part_id,
 *                                     and node feature rows per input id.
 *                                     Typed sets: _TYPE of every node and
 *                                     edge, node and edge data per type.
 * DGL sorts with an unstable sort, so sets are compared, not bytes. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"

static int problems;

#define BAD(...)                                                               \
    do {                                                                       \
        if (problems++ < 20) {                                                 \
            fprintf(stderr, "partcmp: ");                                      \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static void die(const char *what)
{
    fprintf(stderr, "partcmp: %s: %s\n", what, dp_errmsg());
    exit(2);
}

/* Homogeneous input id of the first node (edge) of each type: the types
 * are concatenated in type id order. */
static int64_t type_offset(const struct dp_part_config *c, int edges, int t)
{
    int nt = edges ? c->num_etypes : c->num_ntypes, q, u;
    int64_t(*map)[2] = edges ? c->etype_map : c->ntype_map, off = 0;

    for (u = 0; u < t; u++)
        for (q = 0; q < c->num_parts; q++)
            off += map[q * nt + u][1] - map[q * nt + u][0];
    return off;
}

static int typed(const struct dp_part_config *c)
{
    return c->ntype_map && c->etype_map &&
           (c->num_ntypes > 1 || c->num_etypes > 1 ||
            strcmp(c->ntypes[0], "_N"));
}

/* DGL's return_mapping arrays: orig_nids_<ntype>.npy, entry k the input
 * id within the type of the node whose per-type id is k (the type's ranges
 * in part order); edges likewise, ':' written '_'. */
static void typed_npy(const struct dp_part_config *c, int edges, int64_t *ids)
{
    int nt = edges ? c->num_etypes : c->num_ntypes, t, q;
    int64_t(*map)[2] = edges ? c->etype_map : c->ntype_map;

    for (t = 0; t < nt; t++) {
        const char *name = (edges ? c->etypes : c->ntypes)[t];
        char file[300], *path;
        struct dp_npy a;
        int64_t off = type_offset(c, edges, t), k = 0, g;

        snprintf(file, sizeof(file), "%s_", edges ? "orig_eids" : "orig_nids");
        for (const char *x = name; *x; x++) {
            size_t l = strlen(file);

            file[l] = *x == ':' ? '_' : *x;
            file[l + 1] = 0;
        }
        strcat(file, ".npy");
        path = dp_path_join(c->dir, file);
        if (dp_npy_open(&a, path))
            die(path);
        for (q = 0; q < c->num_parts; q++)
            for (g = map[q * nt + t][0]; g < map[q * nt + t][1]; g++)
                ids[g] = off + dp_npy_get_i64(&a, (uint64_t)k++);
        dp_npy_release(&a);
        free(path);
    }
}

/* shuffled id -> input id for a whole set: DGL's top-level .npy (typed:
 * one per type), or our per-part orig_*.dgl (typed: one entry per type) */
static int64_t *load_orig(const struct dp_part_config *c, int edges)
{
    int64_t total = edges ? c->num_edges : c->num_nodes, *ids;
    char *npy = dp_path_join(c->dir, edges ? "orig_eids.npy" : "orig_nids.npy");
    int p;

    ids = dp_malloc_array((size_t)total + 1, 8);
    if (!ids || !npy)
        die("alloc");
    if (dp_exists(npy)) {
        struct dp_npy a;
        int64_t i;

        if (dp_npy_open(&a, npy))
            die(npy);
        for (i = 0; i < total; i++)
            ids[i] = dp_npy_get_i64(&a, (uint64_t)i);
        dp_npy_release(&a);
        free(npy);
        return ids;
    }
    free(npy);
    if (typed(c)) {
        char file[300], *probe;
        int dgl;

        snprintf(file, sizeof(file), "orig_nids_%s.npy", c->ntypes[0]);
        probe = dp_path_join(c->dir, file);
        dgl = dp_exists(probe);
        free(probe);
        if (dgl) {
            typed_npy(c, edges, ids);
            return ids;
        }
    }
    for (p = 0; p < c->num_parts; p++) {
        char *g = dp_config_part_file(c, p, "part_graph");
        char *dir = dp_path_dirname(g);
        char *path =
            dp_path_join(dir, edges ? "orig_eids.dgl" : "orig_nids.dgl");
        int64_t lo = edges ? c->edge_map[p][0] : c->node_map[p][0], k;
        int64_t hi = edges ? c->edge_map[p][1] : c->node_map[p][1];
        struct dp_tensors t;
        const struct dp_tensor *e;

        if (dp_tensors_load(&t, path))
            die(path);
        if (typed(c)) {
            int nt = edges ? c->num_etypes : c->num_ntypes, ty;
            int64_t(*map)[2] = edges ? c->etype_map : c->ntype_map;

            for (ty = 0; ty < nt; ty++) {
                int64_t a = map[p * nt + ty][0], b = map[p * nt + ty][1];
                int64_t off = type_offset(c, edges, ty);

                e = dp_tensors_find(&t, (edges ? c->etypes : c->ntypes)[ty]);
                if (!e || e->a.shape[0] != b - a) {
                    fprintf(stderr, "partcmp: %s: bad entry '%s'\n", path,
                            (edges ? c->etypes : c->ntypes)[ty]);
                    exit(2);
                }
                for (k = 0; k < b - a; k++)
                    ids[a + k] = off + dp_ndarray_get_i64(&e->a, (uint64_t)k);
            }
        } else {
            e = dp_tensors_find(&t,
                                edges ? DP_ORIG_EIDS_KEY : DP_ORIG_NIDS_KEY);
            if (!e || e->a.shape[0] != hi - lo) {
                fprintf(stderr, "partcmp: %s: bad entry\n", path);
                exit(2);
            }
            for (k = 0; k < hi - lo; k++)
                ids[lo + k] = dp_ndarray_get_i64(&e->a, (uint64_t)k);
        }
        dp_tensors_release(&t);
        free(g);
        free(dir);
        free(path);
    }
    return ids;
}

/* The one *.json config of a DGL case folder. */
static char *case_json(const char *casedir)
{
    DIR *d = opendir(casedir);
    struct dirent *de;
    char *path = NULL;

    while (d && !path && (de = readdir(d))) {
        size_t l = strlen(de->d_name);

        if (l > 5 && !strcmp(de->d_name + l - 5, ".json"))
            path = dp_path_join(casedir, de->d_name);
    }
    if (d)
        closedir(d);
    if (!path) {
        fprintf(stderr, "partcmp: no config in '%s'\n", casedir);
        exit(2);
    }
    return path;
}

static int cmd_assign(const char *casedir, const char *out)
{
    struct dp_part_config c;
    char *json = case_json(casedir);
    int64_t *orig, *part, i;
    size_t len = strlen(out);
    int p, t;
    FILE *fp;

    if (dp_config_load(&c, json))
        die(json);
    orig = load_orig(&c, 0);
    part = dp_malloc_array((size_t)c.num_nodes + 1, 8);
    for (p = 0; p < c.num_parts; p++)
        for (i = c.node_map[p][0]; i < c.node_map[p][1]; i++)
            part[orig[i]] = p;
    if (len >= 4 && !strcmp(out + len - 4, ".txt")) {
        fp = fopen(out, "w");
        if (!fp)
            return 2;
        for (i = 0; i < c.num_nodes; i++)
            fprintf(fp, "%" PRId64 "\n", part[i]);
        fclose(fp);
    } else {
        /* DGL's assignment folder (reference/dgl.md 7) */
        char file[300], *path;

        if (dp_mkdir_p(out, 0777))
            die(out);
        for (t = 0; t < c.num_ntypes; t++) {
            int64_t off = typed(&c) ? type_offset(&c, 0, t) : 0;
            int64_t cnt =
                typed(&c) ? type_offset(&c, 0, t + 1) - off : c.num_nodes;

            snprintf(file, sizeof(file), "%s.txt", c.ntypes[t]);
            path = dp_path_join(out, file);
            fp = fopen(path, "w");
            if (!fp)
                die(path);
            for (i = 0; i < cnt; i++)
                fprintf(fp, "%" PRId64 "\n", part[off + i]);
            fclose(fp);
            free(path);
        }
        path = dp_path_join(out, "partition_meta.json");
        fp = fopen(path, "w");
        if (!fp)
            die(path);
        fprintf(fp,
                "{\"version\": \"1.0.0\", \"num_parts\": %d, "
                "\"algo_name\": \"metis\"}\n",
                c.num_parts);
        fclose(fp);
        free(path);
    }
    free(orig);
    free(part);
    free(json);
    dp_config_release(&c);
    return 0;
}

#define NW 3 /* node row: input id * 2 + inner, part_id, _TYPE */
#define EW 5 /* edge row: input eid, inner, input src, input dst, _TYPE */

static int cmp_row(const void *a, const void *b, int w)
{
    const int64_t *x = a, *y = b;
    int i;

    for (i = 0; i < w; i++)
        if (x[i] != y[i])
            return (x[i] > y[i]) - (x[i] < y[i]);
    return 0;
}

static int cmp_nrow(const void *a, const void *b)
{
    return cmp_row(a, b, NW);
}

static int cmp_erow(const void *a, const void *b)
{
    return cmp_row(a, b, EW);
}

/* Per part, in input ids, sorted rows (NW, EW wide); _TYPE -1 when the
 * set is untyped. */
struct pview {
    int64_t nn, ne;
    int64_t *nodes;
    int64_t *edges;
};

static void part_view(const struct dp_part_config *c, int p,
                      const int64_t *onid, const int64_t *oeid, struct pview *v)
{
    struct dp_graph_file g;
    char *path = dp_config_part_file(c, p, "part_graph");
    const struct dp_ndarray *nid, *inn, *pid, *eid, *ine, *nty, *ety;
    int64_t i;

    if (dp_graph_load(&g, path))
        die(path);
    nid = dp_graph_ndata(&g, "_ID");
    inn = dp_graph_ndata(&g, "inner_node");
    pid = dp_graph_ndata(&g, "part_id");
    eid = dp_graph_edata(&g, "_ID");
    ine = dp_graph_edata(&g, "inner_edge");
    nty = typed(c) ? dp_graph_ndata(&g, "_TYPE") : NULL;
    ety = typed(c) ? dp_graph_edata(&g, "_TYPE") : NULL;
    if (!nid || !inn || !eid || !ine || !g.coo_row.data ||
        (typed(c) && (!nty || !ety))) {
        fprintf(stderr,
                "partcmp: %s: missing _ID/inner_node/inner_edge/COO/_TYPE\n",
                path);
        exit(2);
    }
    v->nn = g.num_nodes;
    v->ne = g.num_edges;
    v->nodes = dp_malloc_array((size_t)v->nn * NW + 1, 8);
    v->edges = dp_malloc_array((size_t)v->ne * EW + 1, 8);
    for (i = 0; i < v->nn; i++) {
        int64_t *r = v->nodes + NW * i;

        r[0] = onid[dp_ndarray_get_i64(nid, (uint64_t)i)] * 2 +
               (dp_ndarray_get_i64(inn, (uint64_t)i) != 0);
        r[1] = pid ? dp_ndarray_get_i64(pid, (uint64_t)i) : -1;
        r[2] = nty ? dp_ndarray_get_i64(nty, (uint64_t)i) : -1;
    }
    for (i = 0; i < v->ne; i++) {
        int64_t s = dp_ndarray_get_i64(&g.coo_row, (uint64_t)i);
        int64_t d = dp_ndarray_get_i64(&g.coo_col, (uint64_t)i);
        int64_t *r = v->edges + EW * i;

        r[0] = oeid[dp_ndarray_get_i64(eid, (uint64_t)i)];
        r[1] = dp_ndarray_get_i64(ine, (uint64_t)i) != 0;
        r[2] = onid[dp_ndarray_get_i64(nid, (uint64_t)s)];
        r[3] = onid[dp_ndarray_get_i64(nid, (uint64_t)d)];
        r[4] = ety ? dp_ndarray_get_i64(ety, (uint64_t)i) : -1;
    }
    qsort(v->nodes, (size_t)v->nn, NW * 8, cmp_nrow);
    qsort(v->edges, (size_t)v->ne, EW * 8, cmp_erow);
    dp_graph_release(&g);
    free(path);
}

/* Every node (edge) data row of a part, checked per input id: each key's
 * rows are those of its type's range in the part. */
static void compare_feats(const struct dp_part_config *a, const int64_t *oa,
                          const struct dp_part_config *b, const int64_t *ob,
                          int p, int64_t n, int edges)
{
    const char *which = edges ? "edge_feats" : "node_feats";
    const char *what = edges ? "edge" : "node";
    struct dp_tensors ta, tb;
    char *pa = dp_config_part_file(a, p, which);
    char *pb = dp_config_part_file(b, p, which);
    int64_t *rowb = dp_malloc_array((size_t)n + 1, 8), i;
    int k;

    if (dp_tensors_load(&ta, pa))
        die(pa);
    if (dp_tensors_load(&tb, pb))
        die(pb);
    for (k = 0; k < ta.count; k++) {
        const struct dp_tensor *x = &ta.items[k];
        const struct dp_tensor *y = dp_tensors_find(&tb, x->name);
        int64_t sa, ca, sb, cb;
        uint64_t rb;

        if (!y) {
            BAD("part %d: ours lacks %s data '%s'", p, what, x->name);
            continue;
        }
        if (dp_config_feature_range(a, p, edges, x->name, &sa, &ca) < 0 ||
            dp_config_feature_range(b, p, edges, y->name, &sb, &cb) < 0) {
            BAD("part %d: %s data '%s' names no type", p, what, x->name);
            continue;
        }
        if (x->a.dtype != y->a.dtype || x->a.ndim != y->a.ndim ||
            x->a.shape[0] != ca || y->a.shape[0] != cb || ca != cb ||
            x->a.nbytes != y->a.nbytes) {
            BAD("part %d: '%s' differs in dtype or shape", p, x->name);
            continue;
        }
        for (i = 0; i < n; i++)
            rowb[i] = -1;
        for (i = 0; i < cb; i++)
            rowb[ob[sb + i]] = i;
        rb = ca ? x->a.nbytes / (uint64_t)ca : 0;
        for (i = 0; i < ca; i++) {
            int64_t j = rowb[oa[sa + i]];

            if (j < 0 ||
                memcmp((const char *)x->a.data + (uint64_t)i * rb,
                       (const char *)y->a.data + (uint64_t)j * rb, rb)) {
                BAD("part %d: '%s' row of input %s %" PRId64 " differs", p,
                    x->name, what, oa[sa + i]);
                break;
            }
        }
    }
    if (tb.count != ta.count)
        BAD("part %d: %d %s data, DGL has %d", p, tb.count, what, ta.count);
    dp_tensors_release(&ta);
    dp_tensors_release(&tb);
    free(pa);
    free(pb);
    free(rowb);
}

static int cmd_compare(const char *casedir, const char *ours)
{
    struct dp_part_config a, b;
    char *json = case_json(casedir);
    int64_t *na, *ea, *nb, *eb;
    int p, t;

    if (dp_config_load(&a, json))
        die(json);
    if (dp_config_load(&b, ours))
        die(ours);
    if (a.num_parts != b.num_parts || a.num_nodes != b.num_nodes ||
        a.num_edges != b.num_edges || a.halo_hops != b.halo_hops) {
        fprintf(stderr, "partcmp: configs differ in parts/nodes/edges/hops\n");
        return 1;
    }
    if (typed(&a) != typed(&b) || a.num_ntypes != b.num_ntypes ||
        a.num_etypes != b.num_etypes) {
        fprintf(stderr, "partcmp: configs differ in types\n");
        return 1;
    }
    for (t = 0; t < a.num_ntypes; t++)
        if (strcmp(a.ntypes[t], b.ntypes[t]))
            BAD("node type %d: '%s' vs '%s'", t, a.ntypes[t], b.ntypes[t]);
    for (t = 0; t < a.num_etypes; t++)
        if (strcmp(a.etypes[t], b.etypes[t]))
            BAD("edge type %d: '%s' vs '%s'", t, a.etypes[t], b.etypes[t]);
    na = load_orig(&a, 0);
    ea = load_orig(&a, 1);
    nb = load_orig(&b, 0);
    eb = load_orig(&b, 1);
    for (p = 0; p < a.num_parts; p++) {
        struct pview x, y;

        if (a.node_map[p][1] - a.node_map[p][0] !=
                b.node_map[p][1] - b.node_map[p][0] ||
            a.edge_map[p][1] - a.edge_map[p][0] !=
                b.edge_map[p][1] - b.edge_map[p][0])
            BAD("part %d: node or edge range sizes differ", p);
        part_view(&a, p, na, ea, &x);
        part_view(&b, p, nb, eb, &y);
        if (x.nn != y.nn || memcmp(x.nodes, y.nodes, (size_t)x.nn * NW * 8))
            BAD("part %d: node sets differ (%" PRId64 " vs %" PRId64 ")", p,
                x.nn, y.nn);
        if (x.ne != y.ne || memcmp(x.edges, y.edges, (size_t)x.ne * EW * 8))
            BAD("part %d: edge sets differ (%" PRId64 " vs %" PRId64 ")", p,
                x.ne, y.ne);
        compare_feats(&a, na, &b, nb, p, a.num_nodes, 0);
        if (typed(&a))
            compare_feats(&a, ea, &b, eb, p, a.num_edges, 1);
        free(x.nodes);
        free(x.edges);
        free(y.nodes);
        free(y.edges);
    }
    free(na);
    free(ea);
    free(nb);
    free(eb);
    free(json);
    dp_config_release(&a);
    dp_config_release(&b);
    if (problems) {
        fprintf(stderr, "partcmp: %d problems\n", problems);
        return 1;
    }
    printf("same content\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "assign"))
        return cmd_assign(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "compare"))
        return cmd_compare(argv[2], argv[3]);
    fprintf(stderr,
            "usage: partcmp assign CASE OUT | compare CASE OURS.json\n");
    return 2;
}
