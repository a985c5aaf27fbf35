/* dp_partition_dist: the partition stage over the ranks of an mpirun.
 * Every rank maps the dataset and works on its share of the nodes; the
 * parts are written by rank p % P into that rank's --output folder. Ranks
 * whose folders are one (one host, or shared storage) write it together
 * and its lowest rank installs it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
#include "dglpart/progress.h"
#include "dist.h"
#include "dist_write.h"

struct drun {
    const struct dp_partition_opts *o;
    struct dp_comm *c;
    int P, rank;
    struct dp_dataset d;
    struct names nm;
    int installer; /* this rank installs its output folder */
    int lock;
    char *tmp;
    struct dist_graph g;  /* METIS's graph of this rank's nodes */
    int64_t *vtx;         /* [P + 1] this rank's nodes */
    int32_t *part, *fine; /* [n] */
    struct assign_out as; /* for the stats: levels, objval, weights */
    int64_t edge_cut;
    struct dist_out w;
    double t[4];     /* seconds: graph, partition, parts, total */
    int64_t sent[3]; /* bytes handed MPI in each of the first three */
    int64_t peak[3]; /* peak RSS at the end of each of the first three */
};

/* The options that change the output, as one string every rank must
 * share. */
static void options_key(const struct dp_partition_opts *o, char *buf, size_t n)
{
    snprintf(buf, n,
             "parts=%d method=%s assign=%s train=%d edges=%d ntypes=%s "
             "hops=%d in=%d vol=%d trainers=%d imbalance=%.6f seed=%" PRId64
             " formats=%d noorig=%d noeids=%d ndata=%s edata=%s name=%s",
             o->num_parts, o->part_method, o->part_assign ? "yes" : "no",
             o->balance_train, o->balance_edges,
             o->balance_ntypes ? o->balance_ntypes : "", o->num_hops,
             o->halo_in, o->objtype_vol, o->num_trainers, o->imbalance, o->seed,
             o->graph_formats, o->no_orig_ids, o->no_orig_eids,
             o->ndata_name ? o->ndata_name : "",
             o->edata_name ? o->edata_name : "",
             o->graph_name ? o->graph_name : "");
}

/* What each rank reads and asks for: the dataset's meta.json and its
 * arrays' sizes, and the options. */
static int fingerprint(struct drun *r, char out[2][65])
{
    static const char *const files[] = { "meta.json",   "indptr.npy",
                                         "indices.npy", "eids.npy",
                                         "feat.npy",    "label.npy" };
    struct dp_sha256 *h = dp_sha256_new();
    char key[1024];
    size_t i;
    int rc = 0;

    if (!h)
        return DP_ENOMEM;
    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *p = dp_path_join(r->d.dir, files[i]), buf[96];
        uint64_t size = 0;

        if (!p) {
            rc = DP_ENOMEM;
            break;
        }
        if (i == 0) {
            char sha[65];

            rc = dp_sha256_file(p, sha, &size);
            dp_sha256_update(h, sha, 64);
        } else {
            struct stat sb;

            size = stat(p, &sb) ? 0 : (uint64_t)sb.st_size;
        }
        free(p);
        if (rc)
            break;
        snprintf(buf, sizeof(buf), "%s=%" PRIu64 ";", files[i], size);
        dp_sha256_update(h, buf, strlen(buf));
    }
    dp_sha256_final(h, out[0]);
    options_key(r->o, key, sizeof(key));
    dp_sha256_hex(key, strlen(key), out[1]);
    return rc;
}

/* Ranks that see other inputs or ask for other options are refused, by
 * name, before any work. */
static int same_inputs(struct drun *r)
{
    char mine[2][65], *all = NULL;
    int q, rc = fingerprint(r, mine);

    if ((rc = dp_comm_agree(r->c, rc)))
        return rc;
    if (!(all = dp_malloc_array((size_t)r->P, sizeof(mine))))
        return DP_ENOMEM;
    if ((rc = dp_comm_allgather(r->c, mine, sizeof(mine), all))) {
        free(all);
        return rc;
    }
    for (q = 1; q < r->P; q++) {
        const char *x = all + (size_t)q * sizeof(mine);

        if (memcmp(x, all, 65))
            rc = dp_error(DP_EINVAL,
                          "rank %d on %s sees another dataset than rank 0 "
                          "on %s: its meta.json or array sizes differ from "
                          "those of '%s'",
                          q, dp_comm_host(r->c, q), dp_comm_host(r->c, 0),
                          r->d.dir);
        else if (memcmp(x + 65, all + 65, 65))
            rc = dp_error(DP_EINVAL,
                          "rank %d on %s was given other partition options "
                          "than rank 0 on %s",
                          q, dp_comm_host(r->c, q), dp_comm_host(r->c, 0));
        if (rc)
            break;
    }
    free(all);
    return rc;
}

/* The lowest rank writing into this rank's output folder installs it. */
static int output_groups(struct drun *r)
{
    char *parent = dp_path_dirname(r->o->out);
    int first, rc;

    if (!parent)
        return DP_ENOMEM;
    rc = dp_comm_shared_dir(r->c, parent, &first);
    free(parent);
    r->installer = first == r->rank;
    return rc;
}

/* The installers' folders: locked, refused when they exist and may not be
 * replaced, OUT.tmp made afresh; enough free disk for this rank's parts. */
static int prepare_output(struct drun *r)
{
    const struct dp_partition_opts *o = r->o;
    size_t n = strlen(o->out) + 5;
    struct dp_budget b;
    struct statvfs st;
    int rc = 0, myparts = 0, p;

    if ((r->tmp = dp_malloc(n)))
        snprintf(r->tmp, n, "%s.tmp", o->out);
    else
        rc = DP_ENOMEM;
    if (!rc && r->installer && !(rc = dp_output_lock(o->out, &r->lock)) &&
        dp_exists(o->out) && !o->overwrite)
        rc = dp_error(DP_EEXIST,
                      "'%s' already exists (use --overwrite to replace it)",
                      o->out);
    if (!rc && r->installer) {
        dp_rm_rf(r->tmp);
        rc = dp_mkdir_p(r->tmp, 0777);
    }
    for (p = r->rank; p < o->num_parts; p += r->P)
        myparts++;
    /* this rank's share of the set, on its disk (the single-machine plan
     * gives the disk even when it finds one machine's memory too small) */
    memset(&b, 0, sizeof(b));
    if (!rc)
        dp_partition_budget(o, &r->d, &b);
    if (!rc && b.disk > 0 && !statvfs(r->tmp, &st)) {
        int64_t need = b.disk / o->num_parts * myparts;
        int64_t have = (int64_t)st.f_bavail * (int64_t)st.f_frsize;

        if (need > have) {
            char nb[32], hb[32];

            dp_fmt_bytes((uint64_t)need, nb, sizeof(nb));
            dp_fmt_bytes((uint64_t)have, hb, sizeof(hb));
            rc = dp_error(DP_ETOOBIG,
                          "not enough disk for '%s': its %d part%s need "
                          "about %s, %s free",
                          o->out, myparts, myparts == 1 ? "" : "s", nb, hb);
        }
    }
    if ((rc = dp_comm_agree(r->c, rc)))
        return rc;
    /* the installers made OUT.tmp; the others write into it after this */
    return dp_comm_barrier(r->c);
}

/* Every node's part (and trainer part): given, random, or the distributed
 * multilevel partition; r->part[n] for this rank's nodes. */
static int assign(struct drun *r)
{
    const struct dp_partition_opts *o = r->o;
    int64_t N = r->d.meta.num_nodes, v0, n, v;
    int32_t *all = NULL;
    int rc = 0, T = o->num_trainers;

    if (o->part_assign || !strcmp(o->part_method, "random")) {
        /* cheap and the same everywhere: every rank makes all, keeps its
         * own */
        struct assign_in ai = { o, &r->d, 0, 0 };

        if ((rc = phase_assign(&ai, &r->as)))
            return rc;
        all = r->as.part;
    }
    v0 = r->g.vtx[r->rank];
    n = r->g.n;
    r->part = dp_malloc_array((size_t)n + 1, sizeof(*r->part));
    if (T > 1)
        r->fine = dp_malloc_array((size_t)n + 1, sizeof(*r->fine));
    if (!r->part || (T > 1 && !r->fine))
        return DP_ENOMEM;
    if (all) {
        memcpy(r->part, all + v0, (size_t)n * sizeof(*all));
        free(r->fine);
        r->fine = NULL;
        return 0;
    }
    {
        struct ml_params pr = { r->g.ncon, o->num_parts * T, o->imbalance,
                                o->seed };
        struct ml_policy pol = { NULL, ML_SPILL_MIN_ENTRIES, NULL,
                                 NULL, ml_level_rss_cap(),   0,
                                 0 };
        int spill = 1;
        /* one rank takes the coarse graph at about a rank's share */
        int64_t gather = r->g.entries / r->P > ((int64_t)1 << 22)
                             ? r->g.entries / r->P
                             : (int64_t)1 << 22;
        int64_t npp = 0, tg = -1;
        int32_t *p = T > 1 ? r->fine : r->part;

        /* tests: distributed levels on small graphs too, and rank 0's
         * coarsest graph in a scratch file whatever its size */
        if ((rc = dp_env_int("DGLPART_TEST_DIST_GATHER", &tg)) ||
            (rc = dp_env_int("DGLPART_ML_NODES_PER_PART", &npp)))
            return rc;
        if (tg > 0) {
            gather = tg;
            pol.spill_min = 0;
        }
        pol.nodes_per_part = (int)npp;
        /* every rank's coarse levels and rank 0's levels of the
         * coarsest graph in scratch files under OUT.tmp, as one
         * process's are beside its dataset */
        if ((rc = dp_env_bool("DGLPART_SPILL", &spill)))
            return rc;
        if (spill)
            pol.scratch = r->tmp;

        r->as.has_objval = 1;
        if ((rc = dist_partition(&r->g, &pr, &pol, gather, p, &r->as.levels)))
            return rc;
        for (v = 0; T > 1 && v < n; v++)
            r->part[v] = r->fine[v] / T;
    }
    (void)N;
    return 0;
}

/* METIS's graph of this rank's nodes and their vertex weights (DGL's
 * columns, from the whole dataset: every rank the same). */
static int build_graph(struct drun *r)
{
    const struct dp_partition_opts *o = r->o;
    int metis = !o->part_assign && strcmp(o->part_method, "random");
    int64_t v0, v;
    int rc;

    if (metis &&
        (rc = dp_vweights_build(&r->d, o->balance_train, o->balance_edges,
                                o->balance_ntypes, &r->as.vw)))
        return rc;
    if ((rc = dist_graph_from_dataset(
             r->c, &r->d, r->as.vw.ncon ? r->as.vw.ncon : 1, metis, &r->g)))
        return rc;
    if (!metis)
        return 0;
    if (!(r->g.vw = dp_malloc_array((size_t)r->g.n * (size_t)r->g.ncon + 1,
                                    sizeof(*r->g.vw))))
        return DP_ENOMEM;
    v0 = r->g.vtx[r->rank];
    for (v = 0; v < (int64_t)r->g.n * r->g.ncon; v++)
        r->g.vw[v] = r->as.vw.w ? r->as.vw.w[v0 * r->g.ncon + v] : 1;
    /* every node's weights were read to make them; this rank's are kept */
    free(r->as.vw.w);
    r->as.vw.w = NULL;
    return 0;
}

/* Edges whose ends lie in different parts, over all ranks. */
static int count_cut_dist(struct drun *r)
{
    const int64_t *ip = dp_dataset_indptr(&r->d);
    int64_t v, k, k0 = ip[r->w.v0], cut = 0;

    for (v = 0; v < r->w.n; v++)
        for (k = ip[r->w.v0 + v]; k < ip[r->w.v0 + v + 1]; k++)
            cut += dp_range_of(r->w.sh.nstart, r->w.K,
                               dp_ids_get(&r->w.esrc, (size_t)(k - k0))) !=
                   r->part[v];
    r->edge_cut = cut;
    return dp_comm_allreduce_i64(r->c, &r->edge_cut, 1, DP_COMM_SUM);
}

static int write_parts(struct drun *r)
{
    struct dist_out *w = &r->w;
    int64_t *ps = NULL;
    int rc;

    w->c = r->c;
    w->P = r->P;
    w->rank = r->rank;
    w->o = r->o;
    w->d = &r->d;
    w->nm = &r->nm;
    w->vtx = r->g.vtx;
    w->v0 = r->g.vtx[r->rank];
    w->n = r->g.n;
    w->N = r->d.meta.num_nodes;
    w->E = r->d.meta.num_edges;
    w->K = r->o->num_parts;
    w->T = r->d.meta.num_ntypes;
    w->ET = r->d.meta.num_etypes;
    w->part = r->part;
    w->fine = r->fine;
    w->tmp = r->tmp;
    if (!(w->ps = dp_calloc((size_t)w->K, sizeof(*w->ps))))
        return DP_ENOMEM;
    if ((rc = dist_out_ids(w)) || (rc = count_cut_dist(r)) ||
        (rc = dist_out_parts(w)))
        return rc;
    /* every part's sizes on every rank: the writers' own, summed */
    ps = (int64_t *)(void *)w->ps;
    return dp_comm_allreduce_i64(r->c, ps, (size_t)w->K * 4, DP_COMM_SUM);
}

/* What each rank reports of its run. */
struct rank_stats {
    double t[3];      /* seconds: graph, partition, parts */
    int64_t peak;     /* peak RSS, bytes */
    int64_t peak3[3]; /* after the graph, the partition, the parts */
    int64_t sent;     /* bytes handed MPI for other ranks */
    int64_t sent3[3]; /* of them: graph, partition, parts */
    int64_t msgs;
    char host[64];
};

struct ranks_arg {
    const struct rank_stats *rs;
    int P;
};

static void add_ranks(void *arg, void *root)
{
    const struct ranks_arg *a = arg;
    cJSON *arr = cJSON_AddArrayToObject(root, "ranks");
    int q;

    for (q = 0; arr && q < a->P; q++) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "rank", q);
        cJSON_AddStringToObject(o, "host", a->rs[q].host);
        cJSON_AddNumberToObject(o, "peak_rss", (double)a->rs[q].peak);
        cJSON_AddNumberToObject(o, "bytes_sent", (double)a->rs[q].sent);
        cJSON_AddNumberToObject(o, "graph_bytes", (double)a->rs[q].sent3[0]);
        cJSON_AddNumberToObject(o, "partition_bytes",
                                (double)a->rs[q].sent3[1]);
        cJSON_AddNumberToObject(o, "parts_bytes", (double)a->rs[q].sent3[2]);
        cJSON_AddNumberToObject(o, "messages", (double)a->rs[q].msgs);
        cJSON_AddNumberToObject(o, "graph_s", a->rs[q].t[0]);
        cJSON_AddNumberToObject(o, "partition_s", a->rs[q].t[1]);
        cJSON_AddNumberToObject(o, "parts_s", a->rs[q].t[2]);
        cJSON_AddNumberToObject(o, "graph_peak_rss", (double)a->rs[q].peak3[0]);
        cJSON_AddNumberToObject(o, "partition_peak_rss",
                                (double)a->rs[q].peak3[1]);
        cJSON_AddNumberToObject(o, "parts_peak_rss", (double)a->rs[q].peak3[2]);
        cJSON_AddItemToArray(arr, o);
    }
}

/* Every rank's figures to every rank (the installers write them), and
 * with -v on rank 0's stderr. */
static int gather_rank_stats(struct drun *r, struct rank_stats **out)
{
    struct rank_stats mine, *all = dp_malloc_array((size_t)r->P, sizeof(*all));
    int q, rc;

    if (!all)
        return DP_ENOMEM;
    memset(&mine, 0, sizeof(mine));
    memcpy(mine.t, r->t, sizeof(mine.t));
    mine.peak = (int64_t)dp_peak_rss();
    mine.sent = (int64_t)dp_comm_sent(r->c);
    memcpy(mine.sent3, r->sent, sizeof(mine.sent3));
    memcpy(mine.peak3, r->peak, sizeof(mine.peak3));
    mine.msgs = (int64_t)dp_comm_messages(r->c);
    snprintf(mine.host, sizeof(mine.host), "%s", dp_comm_host(r->c, r->rank));
    if ((rc = dp_comm_allgather(r->c, &mine, sizeof(mine), all))) {
        free(all);
        return rc;
    }
    for (q = 0; dp_verbose && r->rank == 0 && q < r->P; q++) {
        char peak[4][32], sent[32];
        int j;

        for (j = 0; j < 3; j++)
            dp_fmt_bytes((uint64_t)all[q].peak3[j], peak[j], sizeof(peak[j]));
        dp_fmt_bytes((uint64_t)all[q].peak, peak[3], sizeof(peak[3]));
        dp_fmt_bytes((uint64_t)all[q].sent, sent, sizeof(sent));
        dp_log(DP_LOG_V,
               "rank %d on %s: graph %.2f s (peak RSS %s), partition %.2f s "
               "(%s), parts %.2f s (%s); peak RSS %s, sent %s in %" PRId64
               " messages",
               q, all[q].host, all[q].t[0], peak[0], all[q].t[1], peak[1],
               all[q].t[2], peak[2], peak[3], sent, all[q].msgs);
    }
    *out = all;
    return 0;
}

/* The config and partition-stats.json, as the single-machine run writes
 * them (every part's sizes and balance from all ranks), plus the ranks';
 * the summary on rank 0's stdout. */
static int write_summary(struct drun *r)
{
    struct dist_out *w = &r->w;
    struct dp_partition_opts o = *r->o;
    struct summary sm;
    struct assign_out as = r->as;
    struct rank_stats *rs = NULL;
    struct ranks_arg ra;
    size_t *counts = dp_malloc_array((size_t)r->P, sizeof(*counts));
    void *all = NULL;
    char *cfg_rel = NULL;
    int rc;

    /* the whole assignment, for the balance of every constraint */
    if (!counts)
        return DP_ENOMEM;
    rc = dp_comm_allgatherv(r->c, r->part, (size_t)w->n * sizeof(int32_t), &all,
                            counts);
    free(counts);
    if (!rc)
        rc = gather_rank_stats(r, &rs);
    if (rc || !r->installer) {
        free(all);
        free(rs);
        return rc;
    }
    as.part = all;
    o.quiet |= r->rank != 0;
    ra = (struct ranks_arg){ rs, r->P };
    sm = (struct summary){
        &o,     &r->d,       &w->sh,    &as, &r->nm, w->ps, w->d->meta.name,
        r->tmp, r->edge_cut, add_ranks, &ra
    };
    if (r->o->graph_name)
        sm.name = r->o->graph_name;
    if (!(rc = write_config(&sm, &cfg_rel)))
        rc = write_stats(&sm, cfg_rel);
    free(cfg_rel);
    free(all);
    free(rs);
    return rc;
}

static void drun_release(struct drun *r)
{
    dp_dataset_release(&r->d);
    names_release(&r->nm);
    dist_graph_release(&r->g);
    free(r->part);
    free(r->fine);
    dp_vweights_release(&r->as.vw);
    free(r->as.part);
    free(r->as.fine);
    dist_out_release(&r->w);
    free(r->w.ps);
    free(r->tmp);
}

static int check_dist_opts(const struct dp_partition_opts *o, int P)
{
    if (o->num_parts < 2)
        return dp_error(DP_EINVAL,
                        "--num_parts %d under mpirun: at least 2 (run one "
                        "part without mpirun)",
                        o->num_parts);
    if (o->num_hops > 1)
        return dp_error(DP_EINVAL,
                        "--num_hops %d under mpirun: 0 or 1 (DGL's "
                        "distributed pipeline writes one hop)",
                        o->num_hops);
    if (o->write_metis || o->mem || o->orig_nids || o->orig_eids)
        return dp_error(DP_EINVAL, "--write_metis does not run under mpirun");
    if (o->objtype_vol)
        return dp_error(DP_EINVAL, "--objtype vol does not run under mpirun: "
                                   "the distributed path minimises the cut");
    (void)P;
    return 0;
}

/* Each step reads this rank's share of the dataset's mapped arrays, then
 * works on its own: past this many resident bytes of mapped files their
 * pages are let go (they stay in the page cache), so a rank's peak is its
 * own arrays, not the dataset pages it has touched (rmat 23, 4 ranks:
 * about 400 MiB a rank). */
#define DIST_FILE_RSS_CAP ((size_t)64 << 20)

static void drop_dataset(void *arg)
{
    dp_dataset_drop(arg);
}

int dp_partition_dist(const struct dp_partition_opts *o, struct dp_comm *c)
{
    struct drun r;
    double t0 = dp_now(), t1;
    void *watch = NULL;
    int rc, lrc;

    memset(&r, 0, sizeof(r));
    r.o = o;
    r.c = c;
    r.P = dp_comm_size(c);
    r.rank = dp_comm_rank(c);
    r.lock = -1;
    r.as.levels = -1;
    dp_heap_map_large();
    lrc = check_dist_opts(o, r.P);
    if (!lrc && !(lrc = dp_dataset_open_unchecked(&r.d, o->dataset)))
        lrc = names_init(&r.nm, &r.d, o->ndata_name, o->edata_name);
    if ((rc = dp_comm_agree(c, lrc)) || (rc = same_inputs(&r)) ||
        (rc = output_groups(&r)) || (rc = prepare_output(&r)))
        goto out;
    /* the dataset is open whole: the watch reads its maps */
    watch = dp_file_watch(DIST_FILE_RSS_CAP, drop_dataset, &r.d);
    t1 = dp_now();
    if ((rc = dp_comm_agree(c, build_graph(&r))))
        goto fail;
    r.t[0] = dp_now() - t1;
    r.sent[0] = (int64_t)dp_comm_sent(c);
    r.peak[0] = (int64_t)dp_peak_rss();
    t1 = dp_now();
    if ((rc = dp_comm_agree(c, assign(&r))))
        goto fail;
    r.t[1] = dp_now() - t1;
    r.sent[1] = (int64_t)dp_comm_sent(c) - r.sent[0];
    r.peak[1] = (int64_t)dp_peak_rss();
    dist_graph_release_edges(&r.g);
    dp_fault("dist-parts");
    t1 = dp_now();
    if ((rc = dp_comm_agree(c, write_parts(&r))))
        goto fail;
    r.t[2] = dp_now() - t1;
    r.sent[2] = (int64_t)dp_comm_sent(c) - r.sent[0] - r.sent[1];
    r.peak[2] = (int64_t)dp_peak_rss();
    if ((rc = dp_comm_agree(c, write_summary(&r))))
        goto fail;
    /* every rank's parts are in: now the folders become the output */
    if ((rc =
             dp_comm_agree(c, r.installer ? dp_install_dir(r.tmp, o->out) : 0)))
        goto fail;
    if (dp_verbose && r.rank == 0)
        dp_timer_report("distributed partition", t0);
    goto out;
fail:
    if (r.installer && r.tmp)
        dp_rm_rf(r.tmp);
out:
    dp_file_watch_stop(watch);
    if (r.installer)
        dp_output_unlock(o->out, r.lock);
    drun_release(&r);
    return rc;
}
