/* The partition driver: the phases in order (phases.h), written part by
 * part into OUT.tmp and renamed into place only when everything
 * succeeded. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/memory.h"
#include "dglpart/progress.h"
#include "phases.h"

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

/* One run: the dataset, then each phase's output. */
struct run {
    const struct dp_partition_opts *o;
    struct dp_dataset d;
    int borrowed; /* d is o->mem's: not ours to release */
    const char *name;
    int lean, one_band; /* the plan's */
    struct names nm;
    struct assign_out as;
    struct shuffle sh;
    int64_t edge_cut;
    struct part_stats *ps;
    char *tmp; /* OUT.tmp */
};

static void run_release(struct run *r)
{
    if (!r->borrowed)
        dp_dataset_release(&r->d);
    names_release(&r->nm);
    assign_out_release(&r->as);
    shuffle_release(&r->sh);
    free(r->ps);
    free(r->tmp);
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

/* A scratch dataset's edge files, once the reshuffled CSC holds what the
 * parts read of them: its sources always; its offsets and edge ids too
 * unless an edge array is gathered (orig_eids, weights, trainer ids). At
 * rmat 27 x 12 with --no_orig_eids this gives back 7.5 GB of disk before
 * the parts take theirs. */
static int discard_edges(struct run *r)
{
    const struct dp_partition_opts *o = r->o;
    int edges = (!o->no_orig_ids && !o->no_orig_eids) ||
                r->d.edge_weight.data || r->as.fine;
    int rc = dp_dataset_discard_edges(&r->d, !edges);

    if (!edges)
        r->sh.ip = NULL;
    if (!rc)
        dp_log(DP_LOG_V, "scratch dataset: %s removed",
               edges ? "indices.npy" : "indices.npy, eids.npy and indptr.npy");
    return rc;
}

/* The dataset, checked against the options. */
static int open_input(struct run *r)
{
    const struct dp_partition_opts *o = r->o;
    int rc;

    if (o->mem) {
        r->d = *o->mem;
        r->borrowed = 1;
    } else if ((rc = o->fresh ? dp_dataset_open_unchecked(&r->d, o->dataset)
                              : dp_dataset_open(&r->d, o->dataset))) {
        return rc;
    }
    if (o->fresh)
        dp_log(DP_LOG_V, "dataset: converted in this run, its columns not "
                         "checked again");
    /* standalone parts keep input edge ids, orig_eids.dgl lists them */
    if (r->d.meta.no_eids && !o->write_metis &&
        (o->num_parts == 1 || (!o->no_orig_ids && !o->no_orig_eids)))
        return dp_error(
            DP_EINVAL, "'%s' has no eids.npy (converted with --no_eids): %s",
            r->d.dir,
            o->num_parts == 1 ? "one part keeps input edge ids; convert again "
                                "without --no_eids"
                              : "add --no_orig_eids, or convert again without "
                                "--no_eids");
    if ((rc = names_init(&r->nm, &r->d, o->ndata_name, o->edata_name)))
        return rc;
    r->name = o->graph_name ? o->graph_name : r->d.meta.name;
    if (!r->name || !*r->name || strchr(r->name, '/'))
        return dp_error(DP_EINVAL,
                        "graph name '%s': must be a non-empty file "
                        "name",
                        r->name ? r->name : "");
    if (o->num_parts > r->d.meta.num_nodes)
        return dp_error(DP_EINVAL,
                        "--num_parts %d: more parts than the %" PRId64
                        " nodes of '%s'",
                        o->num_parts, r->d.meta.num_nodes, r->d.dir);
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

/* The writers' watch: the dataset's pages and the reshuffled sources'. */
static void drop_inputs(void *arg)
{
    struct run *r = arg;

    dp_dataset_drop(&r->d);
    if (r->sh.esrc_in_file)
        dp_spill_drop(&r->sh.esrc_file);
}

/* Assignment and reshuffle: every node's part and the shuffled ids. */
static int number(struct run *r)
{
    const struct dp_partition_opts *o = r->o;
    struct assign_in ai = { o, &r->d, r->lean, r->one_band };
    double t1 = dp_now();
    void *watch;
    int rc, p;

    if ((rc = phase_assign(&ai, &r->as)) || (rc = dp_check_interrupt()))
        return rc;
    if (dp_verbose)
        dp_timer_report("assignment", t1);
    if (o->write_assign &&
        (rc =
             dp_assign_write(o->write_assign, r->d.meta.num_nodes, r->as.part)))
        return rc;
    watch = dp_file_watch(FILE_RSS_CAP, drop_dataset, &r->d);
    /* lean: the sources (6.4 GB at rmat 27) wait in a scratch file */
    rc = phase_reshuffle(&r->d, r->as.part, o->num_parts, test_wide_ids(),
                         r->lean ? o->out : NULL, &r->sh);
    r->edge_cut = r->sh.cut;
    if (!rc && (o->orig_nids || o->orig_eids))
        rc = shuffle_orig_maps(&r->d, &r->sh, o->orig_nids, o->orig_eids);
    dp_file_watch_stop(watch);
    if (!rc && o->discard_edges && r->sh.K > 1 && !r->sh.T)
        rc = discard_edges(r);
    for (p = 0; !rc && p < r->sh.K; p++)
        if (r->sh.nstart[p] == r->sh.nstart[p + 1])
            dp_warn("part %d is empty", p);
    return rc;
}

/* The parts, the config and the stats, into OUT.tmp. */
static int write_set(struct run *r)
{
    const struct dp_partition_opts *o = r->o;
    struct part_job jb = { o, &r->d, &r->sh, r->as.fine, &r->nm, NULL };
    struct summary sm = { o,       &r->d, &r->sh,      &r->as, &r->nm, NULL,
                          r->name, NULL,  r->edge_cut, NULL,   NULL };
    char *cfg_rel = NULL, *parent = dp_path_dirname(o->out);
    size_t n = strlen(o->out) + 5;
    void *watch;
    int rc;

    r->ps = dp_calloc((size_t)r->sh.K, sizeof(*r->ps));
    if ((r->tmp = dp_malloc(n)))
        snprintf(r->tmp, n, "%s.tmp", o->out);
    if (!r->ps || !r->tmp || !parent) {
        free(parent);
        return DP_ENOMEM;
    }
    rc = dp_mkdir_p(parent, 0777);
    free(parent);
    if (rc)
        return rc;
    dp_rm_rf(r->tmp);
    if ((rc = dp_mkdir_p(r->tmp, 0777)))
        return rc;
    if (o->ready &&
        ((rc = o->ready(o->ready_arg)) || (rc = dp_dataset_open_feat(&r->d))))
        return rc;
    jb.tmp = sm.tmp = r->tmp;
    sm.ps = r->ps;
    /* what the cut and the reshuffle read (the sources above all) is not
     * read again: let it go, so the writers' pages start from none */
    dp_dataset_drop(&r->d);
    /* started after the features are open: the watch reads their map */
    watch = dp_file_watch(FILE_RSS_CAP, drop_inputs, r);
    rc = phase_write_parts(&jb, r->ps);
    dp_file_watch_stop(watch);
    if (!rc && !(rc = write_config(&sm, &cfg_rel)) && !o->no_stats)
        rc = write_stats(&sm, cfg_rel);
    free(cfg_rel);
    return rc;
}

int dp_partition(const struct dp_partition_opts *o)
{
    struct run r;
    double t0 = dp_now();
    int rc, lock = -1;

    memset(&r, 0, sizeof(r));
    r.o = o;
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
    if ((rc = open_input(&r)))
        goto out;
    if (o->write_metis) {
        rc = dp_vweights_build(&r.d, o->balance_train, o->balance_edges,
                               o->balance_ntypes, &r.as.vw);
        if (!rc)
            rc = dp_metis_write_graph(&r.d, &r.as.vw, o->write_metis);
        goto out;
    }
    {
        struct dp_budget b;

        if ((rc = dp_partition_budget(o, &r.d, &b)))
            goto out;
        r.lean = b.lean;
        r.one_band = b.sym_one_band;
    }
    if ((rc = number(&r)))
        goto out;
    if ((rc = write_set(&r)) || (rc = dp_install_dir(r.tmp, o->out))) {
        if (r.tmp)
            dp_rm_rf(r.tmp);
        goto out;
    }
    if (dp_verbose)
        dp_timer_report("partition", t0);
out:
    run_release(&r);
    dp_output_unlock(o->out, lock);
    return rc;
}
