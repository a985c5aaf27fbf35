/* Test helper: damage one part of an untyped partition set whose graph.dgl
 * holds a COO, so that verify can be shown to catch it.
 *   editpart drop CFG P K   remove local edge K of part P
 *   editpart dup CFG P K    store local edge K of part P twice
 *   editpart src CFG P K    give local edge K of part P another source:
 *                           the next inner node of P
 *                           (dup and src print the global old source,
 *                           new source, destination and _ID)
 *   editpart add CFG P      add to part P an out-edge halo: the first edge
 *                           of another part whose source is inner to P,
 *                           as DGL's partition_graph would store it (its
 *                           destination becomes a halo node if new)
 * The part's graph.dgl is rewritten in place (COO only). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/dglfile.h"
#include "dglpart/error.h"

struct arrays {
    int64_t n, m;
    int64_t *src, *dst, *nid, *eid, *part_id;
    uint8_t *inner_node, *inner_edge;
};

static void die(const char *what)
{
    fprintf(stderr, "editpart: %s: %s\n", what, dp_errmsg());
    exit(2);
}

static void *grab(size_t n, size_t w)
{
    void *p = calloc(n + 1, w);

    if (!p) {
        fprintf(stderr, "editpart: out of memory\n");
        exit(2);
    }
    return p;
}

/* Room for one more node and edge past what the file holds. */
static void load(const struct dp_part_config *c, int p, struct arrays *a)
{
    char *path = dp_config_part_file(c, p, "part_graph");
    struct dp_graph_file g;
    const struct dp_ndarray *pid;
    int64_t i;

    if (!path || dp_graph_load(&g, path))
        die("load");
    if (!(g.saved_formats & DP_FMT_COO)) {
        fprintf(stderr, "editpart: '%s' holds no COO\n", path);
        exit(2);
    }
    a->n = g.num_nodes;
    a->m = g.num_edges;
    a->src = grab((size_t)a->m + 1, 8);
    a->dst = grab((size_t)a->m + 1, 8);
    a->eid = grab((size_t)a->m + 1, 8);
    a->inner_edge = grab((size_t)a->m + 1, 1);
    a->nid = grab((size_t)a->n + 1, 8);
    a->part_id = grab((size_t)a->n + 1, 8);
    a->inner_node = grab((size_t)a->n + 1, 1);
    pid = dp_graph_ndata(&g, "part_id");
    for (i = 0; i < a->m; i++) {
        a->src[i] = dp_ndarray_get_i64(&g.coo_row, (uint64_t)i);
        a->dst[i] = dp_ndarray_get_i64(&g.coo_col, (uint64_t)i);
        a->eid[i] = dp_ndarray_get_i64(dp_graph_edata(&g, "_ID"), (uint64_t)i);
        a->inner_edge[i] = (uint8_t)dp_ndarray_get_i64(
            dp_graph_edata(&g, "inner_edge"), (uint64_t)i);
    }
    for (i = 0; i < a->n; i++) {
        a->nid[i] = dp_ndarray_get_i64(dp_graph_ndata(&g, "_ID"), (uint64_t)i);
        a->inner_node[i] = (uint8_t)dp_ndarray_get_i64(
            dp_graph_ndata(&g, "inner_node"), (uint64_t)i);
        a->part_id[i] = pid ? dp_ndarray_get_i64(pid, (uint64_t)i) : 0;
    }
    dp_graph_release(&g);
    free(path);
}

static void save(const struct dp_part_config *c, int p, const struct arrays *a)
{
    char *path = dp_config_part_file(c, p, "part_graph");
    struct dp_graph_part g;

    memset(&g, 0, sizeof(g));
    g.num_nodes = a->n;
    g.num_edges = a->m;
    g.src = a->src;
    g.dst = a->dst;
    g.nid = a->nid;
    g.eid = a->eid;
    g.inner_node = a->inner_node;
    g.inner_edge = a->inner_edge;
    g.part_id = c->num_parts > 1 ? a->part_id : NULL;
    if (!path || dp_graph_write(path, &g))
        die("write");
    free(path);
}

static void release(struct arrays *a)
{
    free(a->src);
    free(a->dst);
    free(a->nid);
    free(a->eid);
    free(a->part_id);
    free(a->inner_node);
    free(a->inner_edge);
}

int main(int argc, char **argv)
{
    struct dp_part_config c;
    struct arrays a, b;
    int p, q;
    int64_t k = 0, i, lo, hi;

    if (argc < 4 ||
        (strcmp(argv[1], "drop") && strcmp(argv[1], "dup") &&
         strcmp(argv[1], "src") && strcmp(argv[1], "add")) ||
        (strcmp(argv[1], "add") && argc != 5)) {
        fprintf(stderr, "usage: editpart drop|dup|src CFG P K | add CFG P\n");
        return 2;
    }
    if (dp_config_load(&c, argv[2]))
        die(argv[2]);
    p = atoi(argv[3]);
    if (p < 0 || p >= c.num_parts) {
        fprintf(stderr, "editpart: no part %d\n", p);
        return 2;
    }
    load(&c, p, &a);
    if (strcmp(argv[1], "add")) {
        k = strtoll(argv[4], NULL, 10);
        if (k < 0 || k >= a.m) {
            fprintf(stderr, "editpart: no edge %" PRId64 "\n", k);
            return 2;
        }
    }
    if (!strcmp(argv[1], "dup") || !strcmp(argv[1], "src")) {
        int64_t s = a.src[k];

        if (!strcmp(argv[1], "dup")) {
            a.src[a.m] = a.src[k];
            a.dst[a.m] = a.dst[k];
            a.eid[a.m] = a.eid[k];
            a.inner_edge[a.m] = a.inner_edge[k];
            a.m++;
        } else {
            /* inner nodes come first: the next one, wrapping around */
            for (i = 0; i < a.n && a.inner_node[i]; i++)
                ;
            a.src[k] = (s + 1) % (i ? i : 1);
        }
        /* the global ids, for the test to find in verify's lines */
        printf("%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", a.nid[s],
               a.nid[a.src[k]], a.nid[a.dst[k]], a.eid[k]);
        save(&c, p, &a);
        release(&a);
        dp_config_release(&c);
        return 0;
    }
    if (!strcmp(argv[1], "drop")) {
        for (i = k; i + 1 < a.m; i++) {
            a.src[i] = a.src[i + 1];
            a.dst[i] = a.dst[i + 1];
            a.eid[i] = a.eid[i + 1];
            a.inner_edge[i] = a.inner_edge[i + 1];
        }
        a.m--;
        save(&c, p, &a);
        release(&a);
        dp_config_release(&c);
        return 0;
    }
    lo = c.node_map[p][0];
    hi = c.node_map[p][1];
    for (q = 0; q < c.num_parts; q++) {
        if (q == p)
            continue;
        load(&c, q, &b);
        for (k = 0; k < b.m; k++) {
            int64_t s = b.nid[b.src[k]], d = b.nid[b.dst[k]];

            if (!b.inner_edge[k] || s < lo || s >= hi)
                continue;
            for (i = 0; i < a.n && a.nid[i] != d; i++)
                ;
            if (i == a.n) {
                a.nid[i] = d;
                a.inner_node[i] = 0;
                a.part_id[i] = q;
                a.n++;
            }
            a.src[a.m] = s - lo;
            a.dst[a.m] = i;
            a.eid[a.m] = b.eid[k];
            a.inner_edge[a.m] = 0;
            a.m++;
            printf("%" PRId64 " -> %" PRId64 " (_ID %" PRId64 ")\n", s, d,
                   b.eid[k]);
            save(&c, p, &a);
            release(&a);
            release(&b);
            dp_config_release(&c);
            return 0;
        }
        release(&b);
    }
    fprintf(stderr, "editpart: no edge leaves part %d\n", p);
    return 1;
}
