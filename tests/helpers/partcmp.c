/* Test helper for the partition stage.
 *   partcmp assign DGL_CASE OUT.txt   DGL's assignment (from orig_nids.npy
 *                                     and node_map) as one part id per line
 *   partcmp compare DGL_CASE OURS.json
 *                                     compare two partition sets by content:
 *                                     per part the same inner and halo node
 *                                     sets, edge sets (with inner flags and
 *                                     endpoints, all in input ids), part_id,
 *                                     and node feature rows per input id.
 * DGL sorts with an unstable sort, so sets are compared, not bytes. */
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

/* shuffled id -> input id for a whole set: DGL's top-level .npy, or our
 * per-part orig_*.dgl */
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
        e = dp_tensors_find(&t, edges ? DP_ORIG_EIDS_KEY : DP_ORIG_NIDS_KEY);
        if (!e || e->a.shape[0] != hi - lo) {
            fprintf(stderr, "partcmp: %s: bad entry\n", path);
            exit(2);
        }
        for (k = 0; k < hi - lo; k++)
            ids[lo + k] = dp_ndarray_get_i64(&e->a, (uint64_t)k);
        dp_tensors_release(&t);
        free(g);
        free(dir);
        free(path);
    }
    return ids;
}

static int cmd_assign(const char *casedir, const char *out)
{
    struct dp_part_config c;
    char *json = NULL;
    int64_t *orig, *part, i;
    int p;
    FILE *fp;

    {
        char name[] = "cora.json";

        json = dp_path_join(casedir, name);
    }
    if (dp_config_load(&c, json))
        die(json);
    orig = load_orig(&c, 0);
    part = dp_malloc_array((size_t)c.num_nodes + 1, 8);
    for (p = 0; p < c.num_parts; p++)
        for (i = c.node_map[p][0]; i < c.node_map[p][1]; i++)
            part[orig[i]] = p;
    fp = fopen(out, "w");
    if (!fp)
        return 2;
    for (i = 0; i < c.num_nodes; i++)
        fprintf(fp, "%" PRId64 "\n", part[i]);
    fclose(fp);
    free(orig);
    free(part);
    free(json);
    dp_config_release(&c);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int cmp_row4(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    int i;

    for (i = 0; i < 4; i++)
        if (x[i] != y[i])
            return (x[i] > y[i]) - (x[i] < y[i]);
    return 0;
}

/* Per part, in input ids: nodes as (id*2 + inner, part_id), edges as
 * (eid, inner, src, dst); both sorted. */
struct pview {
    int64_t nn, ne;
    int64_t *nodes; /* [nn][2] */
    int64_t *edges; /* [ne][4] */
};

static void part_view(const struct dp_part_config *c, int p,
                      const int64_t *onid, const int64_t *oeid, struct pview *v)
{
    struct dp_graph_file g;
    char *path = dp_config_part_file(c, p, "part_graph");
    const struct dp_ndarray *nid, *inn, *pid, *eid, *ine;
    int64_t i;

    if (dp_graph_load(&g, path))
        die(path);
    nid = dp_graph_ndata(&g, "_ID");
    inn = dp_graph_ndata(&g, "inner_node");
    pid = dp_graph_ndata(&g, "part_id");
    eid = dp_graph_edata(&g, "_ID");
    ine = dp_graph_edata(&g, "inner_edge");
    if (!nid || !inn || !eid || !ine || !g.coo_row.data) {
        fprintf(stderr, "partcmp: %s: missing _ID/inner_node/inner_edge/COO\n",
                path);
        exit(2);
    }
    v->nn = g.num_nodes;
    v->ne = g.num_edges;
    v->nodes = dp_malloc_array((size_t)v->nn * 2 + 1, 8);
    v->edges = dp_malloc_array((size_t)v->ne * 4 + 1, 8);
    for (i = 0; i < v->nn; i++) {
        v->nodes[2 * i] = onid[dp_ndarray_get_i64(nid, (uint64_t)i)] * 2 +
                          (dp_ndarray_get_i64(inn, (uint64_t)i) != 0);
        v->nodes[2 * i + 1] = pid ? dp_ndarray_get_i64(pid, (uint64_t)i) : -1;
    }
    for (i = 0; i < v->ne; i++) {
        int64_t s = dp_ndarray_get_i64(&g.coo_row, (uint64_t)i);
        int64_t d = dp_ndarray_get_i64(&g.coo_col, (uint64_t)i);

        v->edges[4 * i] = oeid[dp_ndarray_get_i64(eid, (uint64_t)i)];
        v->edges[4 * i + 1] = dp_ndarray_get_i64(ine, (uint64_t)i) != 0;
        v->edges[4 * i + 2] = onid[dp_ndarray_get_i64(nid, (uint64_t)s)];
        v->edges[4 * i + 3] = onid[dp_ndarray_get_i64(nid, (uint64_t)d)];
    }
    qsort(v->nodes, (size_t)v->nn, 16, cmp_i64);
    qsort(v->edges, (size_t)v->ne, 32, cmp_row4);
    dp_graph_release(&g);
    free(path);
}

/* Every node feature row of a part, checked per input id. */
static void compare_feats(const struct dp_part_config *a, const int64_t *oa,
                          const struct dp_part_config *b, const int64_t *ob,
                          int p, int64_t n)
{
    struct dp_tensors ta, tb;
    char *pa = dp_config_part_file(a, p, "node_feats");
    char *pb = dp_config_part_file(b, p, "node_feats");
    int64_t *rowb = dp_malloc_array((size_t)n + 1, 8), i;
    int64_t sa = a->node_map[p][0], sb = b->node_map[p][0];
    int64_t cnt = a->node_map[p][1] - sa;
    int k;

    if (dp_tensors_load(&ta, pa))
        die(pa);
    if (dp_tensors_load(&tb, pb))
        die(pb);
    for (i = 0; i < n; i++)
        rowb[i] = -1;
    for (i = 0; i < b->node_map[p][1] - sb; i++)
        rowb[ob[sb + i]] = i;
    for (k = 0; k < ta.count; k++) {
        const struct dp_tensor *x = &ta.items[k];
        const struct dp_tensor *y = dp_tensors_find(&tb, x->name);
        uint64_t rb;

        if (!y) {
            BAD("part %d: ours lacks node feature '%s'", p, x->name);
            continue;
        }
        if (x->a.dtype != y->a.dtype || x->a.ndim != y->a.ndim ||
            x->a.shape[0] != cnt || y->a.shape[0] != cnt) {
            BAD("part %d: '%s' differs in dtype or shape", p, x->name);
            continue;
        }
        rb = cnt ? x->a.nbytes / (uint64_t)cnt : 0;
        for (i = 0; i < cnt; i++) {
            int64_t j = rowb[oa[sa + i]];

            if (j < 0 ||
                memcmp((const char *)x->a.data + (uint64_t)i * rb,
                       (const char *)y->a.data + (uint64_t)j * rb, rb)) {
                BAD("part %d: '%s' row of input node %" PRId64 " differs", p,
                    x->name, oa[sa + i]);
                break;
            }
        }
    }
    if (tb.count != ta.count)
        BAD("part %d: %d node features, DGL has %d", p, tb.count, ta.count);
    dp_tensors_release(&ta);
    dp_tensors_release(&tb);
    free(pa);
    free(pb);
    free(rowb);
}

static int cmd_compare(const char *casedir, const char *ours)
{
    struct dp_part_config a, b;
    char *json = dp_path_join(casedir, "cora.json");
    int64_t *na, *ea, *nb, *eb;
    int p;

    if (dp_config_load(&a, json))
        die(json);
    if (dp_config_load(&b, ours))
        die(ours);
    if (a.num_parts != b.num_parts || a.num_nodes != b.num_nodes ||
        a.num_edges != b.num_edges || a.halo_hops != b.halo_hops) {
        fprintf(stderr, "partcmp: configs differ in parts/nodes/edges/hops\n");
        return 1;
    }
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
        if (x.nn != y.nn || memcmp(x.nodes, y.nodes, (size_t)x.nn * 16))
            BAD("part %d: node sets differ (%" PRId64 " vs %" PRId64 ")", p,
                x.nn, y.nn);
        if (x.ne != y.ne || memcmp(x.edges, y.edges, (size_t)x.ne * 32))
            BAD("part %d: edge sets differ (%" PRId64 " vs %" PRId64 ")", p,
                x.ne, y.ne);
        compare_feats(&a, na, &b, nb, p, a.num_nodes);
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
