/* The partition set's config JSON (DGL's format, format/config.c) and
 * partition-stats.json: the cut, each part's size and every balance
 * constraint, also summed up on stdout. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "phases.h"

int write_config(const struct summary *c, char **cfg_rel)
{
    struct dp_part_config cfg;
    char **nf = NULL, **ef = NULL, **pg = NULL, *path = NULL, file[512];
    int64_t(*nmap)[2] = NULL, (*emap)[2] = NULL;
    int64_t(*tmap)[2] = NULL, (*etmap)[2] = NULL;
    char **tn = NULL, **etn = NULL;
    int p, rc = DP_ENOMEM;

    nf = dp_calloc((size_t)c->sh->K, sizeof(char *));
    ef = dp_calloc((size_t)c->sh->K, sizeof(char *));
    pg = dp_calloc((size_t)c->sh->K, sizeof(char *));
    nmap = dp_calloc((size_t)c->sh->K, sizeof(*nmap));
    emap = dp_calloc((size_t)c->sh->K, sizeof(*emap));
    if (!nf || !ef || !pg || !nmap || !emap)
        goto out;
    for (p = 0; p < c->sh->K; p++) {
        char buf[64];

        nmap[p][0] = c->sh->nstart[p];
        nmap[p][1] = c->sh->nstart[p + 1];
        emap[p][0] = c->sh->estart[p];
        emap[p][1] = c->sh->estart[p + 1];
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
    cfg.dir = (char *)c->tmp;
    cfg.graph_name = (char *)c->name;
    cfg.part_method =
        (char *)(c->o->part_assign ? "custom" : c->o->part_method);
    cfg.num_nodes = c->sh->n;
    cfg.num_edges = c->sh->e;
    cfg.num_parts = c->sh->K;
    cfg.halo_hops = c->o->num_hops;
    cfg.node_map = nmap;
    cfg.edge_map = emap;
    cfg.node_feats = nf;
    cfg.edge_feats = ef;
    cfg.part_graph = pg;
    if (c->sh->T) {
        int64_t k, nk = (int64_t)c->sh->K * c->sh->T,
                   ek = (int64_t)c->sh->K * c->sh->ET;

        tmap = dp_malloc_array((size_t)nk, sizeof(*tmap));
        etmap = dp_malloc_array((size_t)ek, sizeof(*etmap));
        tn = dp_malloc_array((size_t)c->sh->T, sizeof(*tn));
        etn = dp_malloc_array((size_t)c->sh->ET, sizeof(*etn));
        if (!tmap || !etmap || !tn || !etn) {
            rc = DP_ENOMEM;
            goto out;
        }
        for (k = 0; k < nk; k++) {
            tmap[k][0] = c->sh->tstart[k];
            tmap[k][1] = c->sh->tstart[k + 1];
        }
        for (k = 0; k < ek; k++) {
            etmap[k][0] = c->sh->etstart[k];
            etmap[k][1] = c->sh->etstart[k + 1];
        }
        for (p = 0; p < c->sh->T; p++)
            tn[p] = c->d->meta.ntypes[p].name;
        for (p = 0; p < c->sh->ET; p++)
            etn[p] = c->d->meta.etypes[p].name;
        cfg.num_ntypes = c->sh->T;
        cfg.num_etypes = c->sh->ET;
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
    for (p = 0; nf && ef && pg && p < c->sh->K; p++) {
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

/* The run's scalars and the names each dataset array is written under
 * (so readers need not guess after --ndata_name/--edata_name). */
static void stats_head(const struct summary *c, cJSON *root,
                       const char *cfg_rel)
{
    cJSON *nd, *ed;
    int j;

    cJSON_AddStringToObject(root, "graph_name", c->name);
    cJSON_AddStringToObject(root, "config", cfg_rel);
    cJSON_AddStringToObject(root, "partitioner",
                            !c->as->has_objval   ? "none"
                            : c->as->levels >= 0 ? "multilevel"
                                                 : "metis");
    cJSON_AddNumberToObject(root, "levels", c->as->levels);
    cJSON_AddStringToObject(root, "part_method",
                            c->o->part_assign ? "custom" : c->o->part_method);
    cJSON_AddNumberToObject(root, "num_parts", c->sh->K);
    cJSON_AddStringToObject(root, "halo_edges", c->o->halo_in ? "in" : "all");
    cJSON_AddNumberToObject(root, "num_nodes", (double)c->sh->n);
    cJSON_AddNumberToObject(root, "num_edges", (double)c->sh->e);
    cJSON_AddNumberToObject(root, "edge_cut", (double)c->edge_cut);
    if (c->as->has_objval)
        cJSON_AddNumberToObject(
            root, c->o->objtype_vol ? "metis_volume" : "metis_edge_cut",
            (double)c->as->objval);
    nd = cJSON_AddObjectToObject(root, "ndata_names");
    ed = cJSON_AddObjectToObject(root, "edata_names");
    for (j = 0; c->nm->nknown[j]; j++)
        cJSON_AddStringToObject(
            nd, c->nm->nknown[j],
            dp_rename_apply(&c->nm->nren, c->nm->nknown[j]));
    for (j = 0; c->nm->eknown[j]; j++)
        cJSON_AddStringToObject(
            ed, c->nm->eknown[j],
            dp_rename_apply(&c->nm->eren, c->nm->eknown[j]));
}

static void stats_parts(const struct summary *c, cJSON *root)
{
    cJSON *parts = cJSON_AddArrayToObject(root, "parts");
    int64_t halo = 0;
    int p;

    for (p = 0; p < c->sh->K; p++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "nodes", (double)c->ps[p].nodes);
        cJSON_AddNumberToObject(o, "edges", (double)c->ps[p].edges);
        cJSON_AddNumberToObject(o, "halo_nodes", (double)c->ps[p].halo_nodes);
        cJSON_AddNumberToObject(o, "halo_edges", (double)c->ps[p].halo_edges);
        cJSON_AddItemToArray(parts, o);
        halo += c->ps[p].halo_nodes;
    }
    cJSON_AddNumberToObject(root, "halo_nodes", (double)halo);
}

/* max/avg over the parts of every balance constraint: nodes, in-edges,
 * train nodes, each node type, and METIS's other weight columns. */
static void stats_balance(const struct summary *c, cJSON *bal, double *tot)
{
    const struct dp_vweights *vw = &c->as->vw;
    const uint8_t *tm = c->d->train_mask.data;
    int64_t v, K = c->sh->K;
    int p, col, k;

    for (p = 0; p < K; p++)
        tot[p] = (double)c->ps[p].nodes;
    add_balance(bal, "nodes", tot, (int)K);
    for (p = 0; p < K; p++)
        tot[p] = (double)c->ps[p].edges;
    add_balance(bal, "in-edges", tot, (int)K);
    if (tm) {
        memset(tot, 0, (size_t)K * sizeof(double));
        for (v = 0; v < c->sh->n; v++)
            tot[c->as->part[v]] += tm[v] != 0;
        add_balance(bal, "train nodes", tot, (int)K);
    }
    for (col = 0; col < c->sh->T; col++) {
        char nm[128];
        int dup = 0;

        snprintf(nm, sizeof(nm), "%s nodes", c->d->meta.ntypes[col].name);
        for (k = 0; vw->w && k < vw->ncon; k++)
            dup |= !strcmp(nm, vw->names[k]);
        if (dup)
            continue;
        for (p = 0; p < K; p++)
            tot[p] = (double)(c->sh->tstart[p * c->sh->T + col + 1] -
                              c->sh->tstart[p * c->sh->T + col]);
        add_balance(bal, nm, tot, (int)K);
    }
    for (col = 0; vw->w && col < vw->ncon; col++) {
        const char *nm = vw->names[col];

        if (!strcmp(nm, "nodes") || !strcmp(nm, "in-edges") ||
            !strcmp(nm, "train nodes"))
            continue;
        memset(tot, 0, (size_t)K * sizeof(double));
        for (v = 0; v < c->sh->n; v++)
            tot[c->as->part[v]] += (double)vw->w[v * vw->ncon + col];
        add_balance(bal, nm, tot, (int)K);
    }
}

static void print_summary(const struct summary *c, const cJSON *bal)
{
    const cJSON *it;
    int p, first = 1;

    printf("partitioned '%s' into %d part%s (%s%s): %" PRId64 " nodes, %" PRId64
           " edges, edge cut %" PRId64 " (%.2f%%)\n",
           c->name, c->sh->K, c->sh->K > 1 ? "s" : "",
           c->o->part_assign ? "custom" : c->o->part_method,
           c->as->levels >= 0 ? ", multilevel" : "", c->sh->n, c->sh->e,
           c->edge_cut,
           c->sh->e ? 100.0 * (double)c->edge_cut / (double)c->sh->e : 0.0);
    for (p = 0; p < c->sh->K; p++)
        printf("  part %d: %" PRId64 " nodes, %" PRId64 " edges, %" PRId64
               " halo nodes, %" PRId64 " halo edges\n",
               p, c->ps[p].nodes, c->ps[p].edges, c->ps[p].halo_nodes,
               c->ps[p].halo_edges);
    printf("  balance (max/avg):");
    cJSON_ArrayForEach(it, bal)
    {
        printf("%s %s %.3f", first ? "" : ",",
               cJSON_GetObjectItem(it, "constraint")->valuestring,
               cJSON_GetObjectItem(it, "max_over_avg")->valuedouble);
        first = 0;
    }
    printf("\n");
}

int write_stats(const struct summary *c, const char *cfg_rel)
{
    cJSON *root = cJSON_CreateObject(), *bal;
    double *tot = dp_calloc((size_t)c->sh->K, sizeof(double));
    char *text = NULL, *path = NULL;
    int rc = DP_ENOMEM;

    if (!root || !tot)
        goto out;
    stats_head(c, root, cfg_rel);
    stats_parts(c, root);
    bal = cJSON_AddArrayToObject(root, "balance");
    stats_balance(c, bal, tot);
    if (c->extra)
        c->extra(c->extra_arg, root);
    text = cJSON_Print(root);
    path = dp_path_join(c->tmp, "partition-stats.json");
    if (!text || !path)
        goto out;
    rc = dp_write_file(path, text, strlen(text));
    if (!rc && !c->o->quiet)
        print_summary(c, bal);
out:
    cJSON_Delete(root);
    free(text);
    free(path);
    free(tot);
    return rc;
}
