/* dglpart verify: checks a partition set the way DGL's loaders and samplers
 * rely on it (ranges, local order, inner flags, halos for the stored hop
 * count, features), then against the input through the orig ids. It
 * streams over the parts: one part's files are mapped at a time, and what
 * joins the parts is kept as bits, counts and hash sums of N or E entries
 * (a few bytes per edge), never as the whole edge list. Problems of one
 * kind in one file make one line. This file holds the driver and its two
 * passes over the parts (verify_pass.c runs them on two threads). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/progress.h"

#include "verify_int.h"

static void work_release(struct vwork *w)
{
    free(w->nbits);
    free(w->ebits);
    free(w->hcopy);
    free(w->ncopy);
}

static void release_ctx(struct vctx *v)
{
    if (v->nf0_ok)
        dp_tensors_release(&v->nf0);
    if (v->ef0_ok)
        dp_tensors_release(&v->ef0);
    vf_out_release(&v->feats0);
    free(v->p);
    free(v->fbits);
    free(v->indeg.p);
    free(v->outdeg.p);
    free(v->copies.p);
    free(v->hcopy);
    free(v->ncopy);
    if (v->onid_npy.data)
        dp_npy_release(&v->onid_npy);
    if (v->oeid_npy.data)
        dp_npy_release(&v->oeid_npy);
    free(v->onid.p);
    if (v->d_open)
        dp_dataset_release(&v->d);
    dp_rename_release(&v->ren);
    dp_rename_release(&v->eren);
    vf_edgefind_release(&v->ef);
    if (v->cfg_ok)
        dp_config_release(&v->cfg);
}

/* Each node and edge takes more than a byte in graph.dgl, so the JSON's
 * totals cannot exceed the files' sizes: checked before anything is sized
 * by them (the JSON may come from anywhere). The headers give each part's
 * edges, the work the bar counts. */
static int plausible(struct vwork *w)
{
    struct vctx *v = w->v;
    uint64_t bytes = 0;
    int i;

    for (i = 0; i < v->cfg.num_parts; i++) {
        char *path = dp_config_part_file(&v->cfg, i, "part_graph");
        struct dp_graph_file g;
        struct dp_map m;

        if (!path)
            return -1;
        if (dp_graph_load(&g, path) == 0) {
            bytes += g.map.size;
            v->p[i].hdr_edges = g.num_edges;
            dp_graph_release(&g);
        } else if (dp_map_open(&m, path) == 0) {
            bytes += m.size;
            dp_map_release(&m);
        }
        free(path);
    }
    if ((uint64_t)v->cfg.num_nodes <= bytes &&
        (uint64_t)v->cfg.num_edges <= bytes)
        return 1;
    vf_problem(w,
               "the config says %" PRId64 " nodes and %" PRId64 " edges,"
               " more than its %" PRIu64 " bytes of graph files can hold",
               v->cfg.num_nodes, v->cfg.num_edges, bytes);
    return 0;
}

/* Part i's feature files, checked once its graph is let go. */
static void look_at_feats(struct vwork *w, int i, struct dp_tensors *nf,
                          int nf_ok, struct dp_tensors *ef, int ef_ok)
{
    struct vctx *v = w->v;
    struct part *p = &v->p[i];

    if (i == 0) {
        vf_check_feat_rows(w, 0, &v->nf0, v->nf0_ok, &v->ef0, v->ef0_ok);
        p->nf_ok = v->nf0_ok;
        p->train_nodes = vf_count_train(&v->nf0, v->nf0_ok);
        return;
    }
    vf_check_feat_rows(w, i, nf, nf_ok, ef, ef_ok);
    p->nf_ok = nf_ok;
    p->train_nodes = vf_count_train(nf, nf_ok);
    if (nf_ok)
        dp_tensors_release(nf);
    if (ef_ok)
        dp_tensors_release(ef);
}

/* Pass 1 for part i: everything it can show on its own, and its share of
 * the degrees, copy counts and sums. */
static int first_look(struct vwork *w, int i)
{
    struct vctx *v = w->v;
    struct part *p = &v->p[i];
    struct lpart lp;
    struct dp_tensors nf, ef;
    int nf_ok = 0, ef_ok = 0, rc;

    if ((rc = vf_load_graph(w, i, &lp)) != 0) {
        vf_release_part(&lp);
        return rc;
    }
    p->graph_ok = lp.ok;
    /* part 0's were loaded before the pass, for the others to compare
     * with; what that reported is part 0's to report here */
    if (i == 0)
        vf_replay(w, &v->feats0);
    else
        vf_load_feats(w, i, &nf, &nf_ok, &ef, &ef_ok);
    if (p->graph_ok) {
        p->num_nodes = lp.g.num_nodes;
        p->num_edges = lp.g.num_edges;
        vf_check_nodes(w, i, &lp);
    }
    if (p->graph_ok)
        vf_check_edges(w, i, &lp);
    if (p->graph_ok && v->cfg.halo_hops > 0 &&
        (rc = vf_count_out_only(w, i, &lp)) != 0) {
        vf_release_part(&lp);
        return rc;
    }
    vf_release_part(&lp);
    look_at_feats(w, i, &nf, nf_ok, &ef, ef_ok);
    return 0;
}

/* The hash sums of part i's originals, each times its copies, against
 * those of the copies; 1 when they differ. The first span of the part's
 * work. */
static int copies_differ(struct vwork *w, int i, const struct lpart *lp,
                         double span)
{
    struct vctx *v = w->v;
    uint64_t h[2] = { 0, 0 };
    int64_t k, e, s, d, m = lp->g.num_edges;

    for (k = 0; k < m; k++) {
        sweep(lp, k);
        if ((k & PROGRESS_STEP) == 0)
            vf_progress(w, span * (double)k / (double)m);
        if (original(v, i, lp, k, &e, &s, &d) && !bit_test_set(w->ebits, e))
            edge_hash_add(h, counts_get(&v->copies, e), e, s, d);
    }
    for (k = 0; k < m; k++) {
        e = at(lp->eid, k);
        if (e >= 0 && e < v->cfg.num_edges)
            bit_clear(w->ebits, e);
    }
    return h[0] != v->hcopy[i][0] || h[1] != v->hcopy[i][1];
}

/* Pass 2 for part i: its originals against the other parts' copies, its
 * halo against DGL's rules, its edges and rows against the dataset. The
 * lookups a failure needs load other parts, after this one is let go. */
static int second_look(struct vwork *w, int i)
{
    struct vctx *v = w->v;
    struct lpart lp;
    struct ids ts = { NULL, 0 }, td = { NULL, 0 };
    struct deficit df = { 0 };
    /* shares of the part's work, from the -v timings: the sums 2, the
     * in-edges 1, the halo 2, the dataset 4 */
    double sums = 2, ins = v->halos || v->ds_edges ? 1 : 0;
    double halo = v->halos ? 2 : 0, all = sums + ins + halo;
    int rc, bad;

    if (!v->p[i].graph_ok) {
        /* no originals here: any copy of this part's edges is an orphan */
        if (!v->ncopy[i])
            return 0;
        rc = vf_originals(v, i, NULL, &ts, &td);
        if (!rc)
            rc = vf_find_bad_copies(w, i, &ts, &td);
        goto out;
    }
    if ((rc = vf_reload(w, i, &lp)) != 0 || !lp.ok)
        return rc;
    all += v->ds_edges ? 4 : 0;
    bad = copies_differ(w, i, &lp, sums / all);
    if (bad)
        rc = vf_originals(v, i, &lp, &ts, &td);
    if (!rc && ins)
        rc = vf_build_in(&lp);
    if (!rc && v->halos)
        rc = vf_check_part_halo(w, i, &lp, &df);
    vf_progress(w, (sums + ins + halo) / all);
    if (!rc && v->ds_edges)
        rc = vf_check_against_dataset(w, i, &lp, (sums + ins + halo) / all);
    vf_release_part(&lp);
    vf_drop_inputs(v);
    if (!rc && bad)
        rc = vf_find_bad_copies(w, i, &ts, &td);
    if (!rc && (df.in.n || df.out.n))
        rc = vf_find_missing(w, i, &df);
out:
    free(ts.p);
    free(td.p);
    vf_deficit_release(&df);
    return rc;
}

/* The config, each part's ranges, the plausibility check and the arrays
 * sized by the config: 1 to go on, 0 when the config cannot be used (a
 * problem is reported), or a negative code. */
static int start(struct vwork *w)
{
    struct vctx *v = w->v;
    int64_t n, m;
    int i, np, rc;

    if (dp_config_load(&v->cfg, v->o->config) != 0) {
        vf_problem(w, "%s", dp_errmsg());
        return 0;
    }
    v->cfg_ok = 1;
    n = v->cfg.num_nodes;
    m = v->cfg.num_edges;
    np = v->cfg.num_parts;
    v->s->num_parts = np;
    v->s->num_nodes = n;
    v->s->num_edges = m;
    v->s->halo_hops = v->cfg.halo_hops;
    if (!(v->p = dp_calloc((size_t)np, sizeof(*v->p))))
        return -DP_ENOMEM;
    for (i = 0; i < np; i++) {
        struct part *p = &v->p[i];

        p->start = v->cfg.node_map[i][0];
        p->end = v->cfg.node_map[i][1];
        p->estart = v->cfg.edge_map[i][0];
        p->eend = v->cfg.edge_map[i][1];
        p->train_nodes = -1;
    }
    if ((rc = plausible(w)) <= 0)
        return rc < 0 ? -DP_ENOMEM : 0;
    v->fbits = vf_bits_alloc(m);
    v->hcopy = dp_calloc((size_t)np, sizeof(*v->hcopy));
    v->ncopy = dp_calloc((size_t)np, sizeof(*v->ncopy));
    for (i = 0; i < 2; i++) {
        w[i].hcopy = dp_calloc((size_t)np, sizeof(*w[i].hcopy));
        w[i].ncopy = dp_calloc((size_t)np, sizeof(*w[i].ncopy));
        if (!w[i].hcopy || !w[i].ncopy)
            return -DP_ENOMEM;
    }
    if (!(w->nbits = vf_bits_alloc(n)) || !(w->ebits = vf_bits_alloc(m)) ||
        !v->fbits || !v->hcopy || !v->ncopy ||
        vf_counts_alloc(&v->indeg, n, (uint64_t)m) ||
        vf_counts_alloc(&v->outdeg, n, (uint64_t)m) ||
        vf_counts_alloc(&v->copies, m, (uint64_t)v->cfg.num_parts))
        return -DP_ENOMEM;
    return 1;
}

/* The threads' sums of pass 1 into the run's. */
static void add_sums(struct vctx *v, struct vwork *w)
{
    int i, j;

    for (i = 0; i < 2; i++) {
        v->s->edge_cut += w[i].edge_cut;
        v->out_only += w[i].out_only;
        for (j = 0; j < v->cfg.num_parts; j++) {
            v->hcopy[j][0] += w[i].hcopy[j][0];
            v->hcopy[j][1] += w[i].hcopy[j][1];
            v->ncopy[j] += w[i].ncopy[j];
        }
    }
}

/* What pass 1 shows across the parts: edges no part holds as inner, and
 * which layout the halos follow. */
static void after_first(struct vwork *w, int all_ok)
{
    struct vctx *v = w->v;
    int64_t e;
    int i;

    v->first_missing = -1;
    for (i = 0; i < v->cfg.num_parts; i++) {
        struct part *p = &v->p[i];

        if (p->found == p->eend - p->estart)
            continue;
        v->missing_edges += p->eend - p->estart - p->found;
        for (e = p->estart; v->first_missing < 0 && e < p->eend; e++)
            if (!bit_test(v->fbits, e))
                v->first_missing = e;
    }
    if (v->missing_edges && all_ok && v->cfg.halo_hops > 0)
        vf_problem(w,
                   "%" PRId64 " edges (first _ID %" PRId64 ") are an inner"
                   " edge of no part",
                   v->missing_edges, v->first_missing);
    /* the layout is the set's: DGL's with the out-edges leaving each part,
     * or --halo_edges in's without any */
    v->in_layout = v->cfg.halo_hops > 0 && !v->out_only;
    v->s->halo_edges_in = v->in_layout && v->s->edge_cut > 0;
    if (all_ok && v->cfg.halo_hops == 1 && v->out_only &&
        v->out_only < v->s->edge_cut)
        vf_problem(w,
                   "%" PRId64 " of the %" PRId64 " edges leaving their part are"
                   " stored as out-edge halos: expected all (DGL's layout) or"
                   " none (--halo_edges in)",
                   v->out_only, v->s->edge_cut);
}

static int run(struct vctx *v, struct vwork *w)
{
    uint64_t total = 0;
    int i, rc, all_ok = 1;
    double t = dp_now();

    if ((rc = start(w)) <= 0)
        return rc < 0 ? -rc : v->cfg_ok ? vf_fill_stats(v) : 0;
    /* pass 1, one part mapped at a time on each thread */
    dp_buf_init(&v->feats0.lines, 0);
    w->out = &v->feats0;
    vf_load_feats(w, 0, &v->nf0, &v->nf0_ok, &v->ef0, &v->ef0_ok);
    w->out = NULL;
    for (i = 0; i < v->cfg.num_parts; i++)
        total += (uint64_t)v->p[i].hdr_edges;
    if ((rc = vf_each_part(v, w, 1, first_look, "verify: parts", total)))
        return rc;
    add_sums(v, w);
    for (i = 0; i < v->cfg.num_parts; i++)
        all_ok &= v->p[i].graph_ok;
    dp_timer_report("parts", t);
    t = dp_now();
    after_first(w, all_ok);
    if ((rc = vf_load_orig_ids(w)) != 0)
        return rc;
    vf_drop_inputs(v);
    dp_timer_report("orig ids", t);
    t = dp_now();
    if (v->o->dataset)
        vf_open_dataset(w);
    /* pass 2: copies against their originals and, when every edge is
     * known, the halos against DGL's rules; the dataset */
    v->halos = all_ok && !v->missing_edges && v->cfg.halo_hops > 0;
    for (total = 0, i = 0; i < v->cfg.num_parts; i++)
        total += v->p[i].graph_ok ? (uint64_t)v->p[i].hdr_edges : 0;
    if ((rc = vf_each_part(v, w, 2, second_look,
                           v->ds_edges ? "verify: halos and dataset"
                                       : "verify: halos",
                           total)))
        return rc;
    if (v->ds_edges)
        vf_finish_edges(w);
    dp_timer_report("halos and dataset", t);
    return vf_fill_stats(v);
}

int dp_verify(const struct dp_verify_opts *o, struct dp_verify_stats *s)
{
    struct vctx v;
    struct vwork w[2];
    int rc;

    memset(s, 0, sizeof(*s));
    memset(&v, 0, sizeof(v));
    memset(w, 0, sizeof(w));
    v.o = o;
    v.s = s;
    w[0].v = w[1].v = &v;
    pthread_mutex_init(&v.mu, NULL);
    rc = run(&v, w);
    pthread_mutex_destroy(&v.mu);
    work_release(&w[0]);
    work_release(&w[1]);
    release_ctx(&v);
    if (rc)
        return rc;
    if (s->problems)
        return dp_error(DP_EFORMAT, "'%s': %" PRId64 " problem%s found",
                        o->config, s->problems, s->problems == 1 ? "" : "s");
    return 0;
}
