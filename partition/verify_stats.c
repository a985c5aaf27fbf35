/* verify: the stats table (sizes, halo, cut, balance) that ends a run. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"

#include "dglpart/error.h"

#include "verify_int.h"

static double balance(const int64_t *x, int n)
{
    int64_t max = 0, sum = 0;
    int i;

    for (i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] > max)
            max = x[i];
    }
    return sum ? (double)max * n / (double)sum : 1.0;
}

int vf_fill_stats(struct vctx *v)
{
    struct dp_verify_stats *s = v->s;
    int k = v->cfg.num_parts, i, have_train = 1;
    int64_t *nodes = dp_calloc((size_t)k, 8), *edges = dp_calloc((size_t)k, 8);
    int64_t *train = dp_calloc((size_t)k, 8);

    s->parts = dp_calloc((size_t)k, sizeof(*s->parts));
    if (!nodes || !edges || !train || !s->parts) {
        free(nodes);
        free(edges);
        free(train);
        return DP_ENOMEM;
    }
    for (i = 0; i < k; i++) {
        struct part *p = &v->p[i];
        struct dp_verify_part *sp = &s->parts[i];

        sp->inner_nodes = nodes[i] = p->end - p->start;
        sp->inner_edges = edges[i] = p->eend - p->estart;
        sp->halo_nodes = p->graph_ok ? p->num_nodes - sp->inner_nodes : 0;
        sp->local_edges = p->graph_ok ? p->num_edges : 0;
        sp->train_nodes = p->train_nodes;
        if (p->train_nodes >= 0)
            train[i] = p->train_nodes;
        else
            have_train = 0;
    }
    s->node_balance = balance(nodes, k);
    s->edge_balance = balance(edges, k);
    s->train_balance = have_train ? balance(train, k) : 0;
    free(nodes);
    free(edges);
    free(train);
    return 0;
}

void dp_verify_print(const struct dp_verify_stats *s, FILE *out)
{
    int i;

    if (!s->num_parts) { /* the config itself could not be read */
        fprintf(out, "FAILED\n");
        return;
    }
    fprintf(out,
            "graph: %" PRId64 " nodes, %" PRId64 " edges, %d parts,"
            " halo_hops %d\n",
            s->num_nodes, s->num_edges, s->num_parts, s->halo_hops);
    if (s->halo_edges_in)
        fprintf(out, "halo edges: in-edges only (--halo_edges in)\n");
    if (!s->parts) {
        fprintf(out, "FAILED\n");
        return;
    }
    fprintf(out, "%6s %12s %12s %12s %12s %12s\n", "part", "inner_nodes",
            "halo_nodes", "inner_edges", "local_edges", "train_nodes");
    for (i = 0; i < s->num_parts; i++) {
        const struct dp_verify_part *p = &s->parts[i];

        fprintf(out, "%6d %12" PRId64 " %12" PRId64 " %12" PRId64 " %12" PRId64,
                i, p->inner_nodes, p->halo_nodes, p->inner_edges,
                p->local_edges);
        if (p->train_nodes >= 0)
            fprintf(out, " %12" PRId64 "\n", p->train_nodes);
        else
            fprintf(out, " %12s\n", "-");
    }
    fprintf(out, "edge cut: %" PRId64 " of %" PRId64 " edges (%.2f%%)\n",
            s->edge_cut, s->num_edges,
            s->num_edges ? 100.0 * (double)s->edge_cut / (double)s->num_edges
                         : 0.0);
    fprintf(out, "balance (max/avg): nodes %.3f, edges %.3f", s->node_balance,
            s->edge_balance);
    if (s->train_balance > 0)
        fprintf(out, ", train %.3f", s->train_balance);
    fprintf(out, "\norig ids: %s\n",
            s->orig_ids == 1 && s->no_orig_eids
                ? "orig_nids.npy (no orig_eids.npy: edges have no input id)"
            : s->orig_ids == 1 ? "orig_nids.npy, orig_eids.npy"
            : s->orig_ids == 2 && s->no_orig_eids
                ? "part*/orig_nids.dgl (no orig_eids.dgl: edges have no input"
                  " id)"
            : s->orig_ids == 2 ? "part*/orig_nids.dgl, part*/orig_eids.dgl"
                               : "none");
    fprintf(out, "dataset: %s%s%s\n", s->dataset_checked ? "compared" : "-",
            s->edges_by_ends == 1 ? ", edges by endpoints (no orig edge ids)"
            : s->edges_by_ends == 2
                ? ", edges by endpoints (the dataset has no eids.npy)"
                : "",
            s->edge_data_skipped ? ", edge data not compared" : "");
    fprintf(out, "%s\n", s->problems ? "FAILED" : "ok");
}

void dp_verify_stats_release(struct dp_verify_stats *s)
{
    free(s->parts);
    memset(s, 0, sizeof(*s));
}
