/* dglpart verify: checks a partition set the way DGL's loaders and samplers
 * rely on it (ranges, local order, inner flags, halos for the stored hop
 * count, features), then against the input through the orig ids. It
 * streams over the parts: one part's files are mapped at a time, and what
 * joins the parts is kept as bits, counts and hash sums of N or E entries
 * (a few bytes per edge), never as the whole edge list. Problems of one
 * kind in one file make one line. This file holds the driver, its two
 * passes over the parts, and the reporting. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/progress.h"

#include "verify_int.h"

void vf_problem(struct vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void vf_problem(struct vctx *v, const char *fmt, ...)
{
    int max = v->o->max_lines > 0 ? v->o->max_lines : 100;
    va_list ap;

    if (v->quiet) /* a part loaded again: its problems were reported */
        return;
    v->s->problems++;
    if (!v->o->err)
        return;
    if (v->printed < max) {
        fprintf(v->o->err, "%s: ", dp_progname());
        va_start(ap, fmt);
        vfprintf(v->o->err, fmt, ap);
        va_end(ap);
        fputc('\n', v->o->err);
    } else if (v->printed == max) {
        fprintf(v->o->err, "%s: (more problems not shown)\n", dp_progname());
    }
    v->printed++;
}

void vf_tally(struct tally *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void vf_tally(struct tally *t, const char *fmt, ...)
{
    va_list ap;

    if (t->n++)
        return;
    va_start(ap, fmt);
    vsnprintf(t->first, sizeof(t->first), fmt, ap);
    va_end(ap);
}

/* One line for the tally, prefixed by the file it is about. */
void vf_flush(struct vctx *v, struct tally *t, const char *file)
{
    if (!t->n)
        return;
    if (t->n == 1)
        vf_problem(v, "%s: %s", file, t->first);
    else
        vf_problem(v, "%s: %s (and %" PRId64 " more like it)", file, t->first,
                   t->n - 1);
    t->n = 0;
}

static void release_ctx(struct vctx *v)
{
    if (v->nf0_ok)
        dp_tensors_release(&v->nf0);
    if (v->ef0_ok)
        dp_tensors_release(&v->ef0);
    free(v->p);
    free(v->nbits);
    free(v->ebits);
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
    free(v->ud.p);
    free(v->us.p);
    if (v->cfg_ok)
        dp_config_release(&v->cfg);
}

/* Each node and edge takes more than a byte in graph.dgl, so the JSON's
 * totals cannot exceed the files' sizes: checked before anything is sized
 * by them (the JSON may come from anywhere). */
static int plausible(struct vctx *v)
{
    uint64_t bytes = 0;
    int i;

    for (i = 0; i < v->cfg.num_parts; i++) {
        char *path = dp_config_part_file(&v->cfg, i, "part_graph");
        struct dp_map m;

        if (!path)
            return -1;
        if (dp_map_open(&m, path) == 0) {
            bytes += m.size;
            dp_map_release(&m);
        }
        free(path);
    }
    if ((uint64_t)v->cfg.num_nodes <= bytes &&
        (uint64_t)v->cfg.num_edges <= bytes)
        return 1;
    vf_problem(v,
               "the config says %" PRId64 " nodes and %" PRId64 " edges,"
               " more than its %" PRIu64 " bytes of graph files can hold",
               v->cfg.num_nodes, v->cfg.num_edges, bytes);
    return 0;
}

/* Pass 1 for part i: everything it can show on its own, and its share of
 * the degrees, copy counts and sums. */
static int first_look(struct vctx *v, int i)
{
    struct part *p = &v->p[i];
    struct lpart lp;
    struct dp_tensors nf, ef;
    int nf_ok = 0, ef_ok = 0, rc;

    if ((rc = vf_load_graph(v, i, &lp)) != 0) {
        vf_release_part(&lp);
        return rc;
    }
    p->graph_ok = lp.ok;
    if (i == 0)
        vf_load_feats(v, i, &v->nf0, &v->nf0_ok, &v->ef0, &v->ef0_ok);
    else
        vf_load_feats(v, i, &nf, &nf_ok, &ef, &ef_ok);
    if (p->graph_ok) {
        p->num_nodes = lp.g.num_nodes;
        p->num_edges = lp.g.num_edges;
        vf_check_nodes(v, i, &lp);
    }
    if (p->graph_ok)
        vf_check_edges(v, i, &lp);
    if (p->graph_ok && v->cfg.halo_hops > 0 &&
        (rc = vf_count_out_only(v, i, &lp)) != 0) {
        vf_release_part(&lp);
        return rc;
    }
    vf_release_part(&lp);
    if (i == 0) {
        vf_check_feat_rows(v, 0, &v->nf0, v->nf0_ok, &v->ef0, v->ef0_ok);
        p->nf_ok = v->nf0_ok;
        p->train_nodes = vf_count_train(&v->nf0, v->nf0_ok);
    } else {
        vf_check_feat_rows(v, i, &nf, nf_ok, &ef, ef_ok);
        p->nf_ok = nf_ok;
        p->train_nodes = vf_count_train(&nf, nf_ok);
        if (nf_ok)
            dp_tensors_release(&nf);
        if (ef_ok)
            dp_tensors_release(&ef);
    }
    return 0;
}

/* Pass 2 for part i: its originals against the other parts' copies, its
 * halo against DGL's rules, its edges and rows against the dataset. The
 * lookups a failure needs load other parts, after this one is let go. */
static int second_look(struct vctx *v, int i, int halos)
{
    struct lpart lp;
    struct ids ts = { NULL, 0 }, td = { NULL, 0 };
    struct deficit df = { 0 };
    uint64_t h[2] = { 0, 0 };
    int64_t k, e, s, d;
    int rc, bad;

    if (!v->p[i].graph_ok) {
        /* no originals here: any copy of this part's edges is an orphan */
        if (!v->ncopy[i])
            return 0;
        rc = vf_originals(v, i, NULL, &ts, &td);
        if (!rc)
            rc = vf_find_bad_copies(v, i, &ts, &td);
        goto out;
    }
    if ((rc = vf_reload(v, i, &lp)) != 0 || !lp.ok)
        return rc;
    for (k = 0; k < lp.g.num_edges; k++) {
        sweep(&lp, k);
        if (original(v, i, &lp, k, &e, &s, &d) && !bit_test_set(v->ebits, e))
            edge_hash_add(h, counts_get(&v->copies, e), e, s, d);
    }
    for (k = 0; k < lp.g.num_edges; k++) {
        e = at(lp.eid, k);
        if (e >= 0 && e < v->cfg.num_edges)
            bit_clear(v->ebits, e);
    }
    bad = h[0] != v->hcopy[i][0] || h[1] != v->hcopy[i][1];
    if (bad)
        rc = vf_originals(v, i, &lp, &ts, &td);
    if (!rc && (halos || v->ds_edges))
        rc = vf_build_in(&lp);
    if (!rc && halos)
        rc = vf_check_part_halo(v, i, &lp, &df);
    if (!rc && v->ds_edges)
        rc = vf_check_against_dataset(v, i, &lp);
    vf_release_part(&lp);
    vf_drop_inputs(v);
    if (!rc && bad)
        rc = vf_find_bad_copies(v, i, &ts, &td);
    if (!rc && (df.in.n || df.out.n))
        rc = vf_find_missing(v, i, &df);
out:
    free(ts.p);
    free(td.p);
    vf_deficit_release(&df);
    return rc;
}

static int run(struct vctx *v)
{
    int64_t n, m, e;
    int i, rc = 0, all_ok = 1, halos;
    double t = dp_now();

    if (dp_config_load(&v->cfg, v->o->config) != 0) {
        vf_problem(v, "%s", dp_errmsg());
        return 0;
    }
    v->cfg_ok = 1;
    n = v->cfg.num_nodes;
    m = v->cfg.num_edges;
    v->s->num_parts = v->cfg.num_parts;
    v->s->num_nodes = n;
    v->s->num_edges = m;
    v->s->halo_hops = v->cfg.halo_hops;
    v->p = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->p));
    if (!v->p)
        return DP_ENOMEM;
    for (i = 0; i < v->cfg.num_parts; i++) {
        struct part *p = &v->p[i];

        p->start = v->cfg.node_map[i][0];
        p->end = v->cfg.node_map[i][1];
        p->estart = v->cfg.edge_map[i][0];
        p->eend = v->cfg.edge_map[i][1];
        p->train_nodes = -1;
    }
    if ((rc = plausible(v)) <= 0)
        return rc < 0 ? DP_ENOMEM : vf_fill_stats(v);
    v->nbits = vf_bits_alloc(n);
    v->ebits = vf_bits_alloc(m);
    v->fbits = vf_bits_alloc(m);
    v->hcopy = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->hcopy));
    v->ncopy = dp_calloc((size_t)v->cfg.num_parts, sizeof(*v->ncopy));
    if (!v->nbits || !v->ebits || !v->fbits || !v->hcopy || !v->ncopy ||
        vf_counts_alloc(&v->indeg, n, (uint64_t)m) ||
        vf_counts_alloc(&v->outdeg, n, (uint64_t)m) ||
        vf_counts_alloc(&v->copies, m, (uint64_t)v->cfg.num_parts))
        return DP_ENOMEM;
    /* pass 1, one part mapped at a time */
    for (i = 0; i < v->cfg.num_parts; i++) {
        if ((rc = first_look(v, i)) != 0)
            return rc;
        all_ok &= v->p[i].graph_ok;
    }
    dp_timer_report("parts", t);
    t = dp_now();
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
        vf_problem(v,
                   "%" PRId64 " edges (first _ID %" PRId64 ") are an inner"
                   " edge of no part",
                   v->missing_edges, v->first_missing);
    /* the layout is the set's: DGL's with the out-edges leaving each part,
     * or --halo_edges in's without any */
    v->in_layout = v->cfg.halo_hops > 0 && !v->out_only;
    v->s->halo_edges_in = v->in_layout && v->s->edge_cut > 0;
    if (all_ok && v->cfg.halo_hops == 1 && v->out_only &&
        v->out_only < v->s->edge_cut)
        vf_problem(v,
                   "%" PRId64 " of the %" PRId64 " edges leaving their part are"
                   " stored as out-edge halos: expected all (DGL's layout) or"
                   " none (--halo_edges in)",
                   v->out_only, v->s->edge_cut);
    if ((rc = vf_load_orig_ids(v)) != 0)
        return rc;
    vf_drop_inputs(v);
    dp_timer_report("orig ids", t);
    t = dp_now();
    if (v->o->dataset)
        vf_open_dataset(v);
    /* pass 2: copies against their originals and, when every edge is
     * known, the halos against DGL's rules; the dataset */
    halos = all_ok && !v->missing_edges && v->cfg.halo_hops > 0;
    for (i = 0; i < v->cfg.num_parts; i++)
        if ((rc = second_look(v, i, halos)) != 0)
            return rc;
    if (v->ds_edges)
        vf_finish_edges(v);
    dp_timer_report("halos and dataset", t);
    return vf_fill_stats(v);
}

int dp_verify(const struct dp_verify_opts *o, struct dp_verify_stats *s)
{
    struct vctx v;
    int rc;

    memset(s, 0, sizeof(*s));
    memset(&v, 0, sizeof(v));
    v.o = o;
    v.s = s;
    rc = run(&v);
    release_ctx(&v);
    if (rc)
        return rc;
    if (s->problems)
        return dp_error(DP_EFORMAT, "'%s': %" PRId64 " problem%s found",
                        o->config, s->problems, s->problems == 1 ? "" : "s");
    return 0;
}
