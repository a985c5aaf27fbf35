/* verify: the orig ids (DGL's top-level orig_*.npy or each part's
 * orig_*.dgl) as permutations of the input's ids. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/error.h"

#include "verify_int.h"

static void perm_add(struct tally *t, uint64_t *seen, int64_t n, int64_t k,
                     int64_t id)
{
    if (id < 0 || id >= n)
        vf_tally(t,
                 "entry %" PRId64 " is %" PRId64 ", outside [0, %" PRId64 ")",
                 k, id, n);
    else if (bit_test_set(seen, id))
        vf_tally(t, "input id %" PRId64 " appears twice (again at %" PRId64 ")",
                 id, k);
}

/* DGL's top-level orig_*.npy, mapped for the whole run; 1 when usable. */
static int open_npy_ids(struct vwork *w, const char *path, int64_t n,
                        const char *name, const char *what, struct dp_npy *a,
                        uint64_t *seen)
{
    struct tally t = { 0 };
    int64_t k;

    if (dp_npy_open(a, path) != 0) {
        vf_problem(w, "%s: %s", name, dp_errmsg());
        memset(a, 0, sizeof(*a));
        return 0;
    }
    if (a->h.ndim != 1 || a->h.shape[0] != n || !dp_dtype_is_int(a->h.dtype)) {
        vf_problem(w, "%s: expected %" PRId64 " integer ids", name, n);
        dp_npy_release(a);
        memset(a, 0, sizeof(*a));
        return 0;
    }
    for (k = 0; k < n; k++)
        perm_add(&t, seen, n, k, dp_npy_get_i64(a, (uint64_t)k));
    memset(seen, 0, (size_t)(n / 64 + 1) * 8);
    vf_flush(w, &t, what);
    return 1;
}

/* Part j's orig_nids.dgl or orig_eids.dgl, in dispatch_data's layout:
 * one entry or, in a typed set, one per type keyed by its name, holding
 * ids within the type (the input concatenates the types in type id order,
 * so the earlier types' counts are added). Each id goes into the
 * permutation tally t when given, at its global position, and into out at
 * that position - base (-1 when out of range) when given. Returns 1 when
 * the file was read whole. */
int vf_read_part_ids(struct vwork *w, int j, int eids, int report,
                     struct tally *t, uint64_t *seen, struct ids *out,
                     int64_t base)
{
    struct vctx *v = w->v;
    const struct part *p = &v->p[j];
    int64_t total = eids ? v->cfg.num_edges : v->cfg.num_nodes, off = 0, k, x;
    const char *key = eids ? DP_ORIG_EIDS_KEY : DP_ORIG_NIDS_KEY;
    const char *fname = eids ? "orig_eids.dgl" : "orig_nids.dgl";
    int nt = eids ? v->cfg.num_etypes : v->cfg.num_ntypes;
    int64_t(*map)[2] = eids ? v->cfg.etype_map : v->cfg.ntype_map;
    char **names = eids ? v->cfg.etypes : v->cfg.ntypes;
    char *g = dp_config_part_file(&v->cfg, j, "part_graph");
    char *dir = g ? dp_path_dirname(g) : NULL;
    char *path = dir ? dp_path_join(dir, fname) : NULL;
    char *rdir = dp_path_dirname(v->cfg.part_graph[j]);
    struct dp_tensors ts;
    int ok = 0, typed, ty, q;

    if (!path)
        goto out;
    if (dp_tensors_load(&ts, path) != 0) {
        if (report)
            vf_problem(w, "%s/%s: %s", rdir ? rdir : ".", fname, dp_errmsg());
        goto out;
    }
    typed = !dp_tensors_find(&ts, key) && map && strcmp(names[0], key);
    for (ok = 1, ty = 0; ok && ty < (typed ? nt : 1); ty++) {
        const char *name = typed ? names[ty] : key;
        int64_t lo = typed ? map[j * nt + ty][0] : eids ? p->estart : p->start;
        int64_t hi = typed ? map[j * nt + ty][1] : eids ? p->eend : p->end;
        const struct dp_tensor *e = dp_tensors_find(&ts, name);

        if (!e || !vf_int_1d(&e->a, hi - lo)) {
            if (report)
                vf_problem(w,
                           "%s/%s: expected an entry '%s' of %" PRId64
                           " integer ids",
                           rdir ? rdir : ".", fname, name, hi - lo);
            ok = 0;
            break;
        }
        for (k = 0; k < hi - lo; k++) {
            x = off + at(&e->a, k);
            if (t)
                perm_add(t, seen, total, lo + k, x);
            if (out)
                ids_set(out, lo + k - base, x >= 0 && x < total ? x : -1);
        }
        for (q = 0; typed && q < v->cfg.num_parts; q++)
            off += map[q * nt + ty][1] - map[q * nt + ty][0];
    }
    dp_tensors_release(&ts);
out:
    free(g);
    free(dir);
    free(path);
    free(rdir);
    return ok;
}

/* dglpart's (and DGL's dispatch_data's) part<i>/orig_nids.dgl, gathered
 * into onid, or orig_eids.dgl, only checked: each part reads its own
 * again when it is compared with the dataset. */
static int load_part_ids(struct vwork *w, int eids, int *ok)
{
    struct vctx *v = w->v;
    int64_t total = eids ? v->cfg.num_edges : v->cfg.num_nodes;
    uint64_t *seen = eids ? w->ebits : w->nbits;
    struct tally t = { 0 };
    int i;

    *ok = 1;
    if (!eids && vf_ids_alloc(&v->onid, total, total - 1))
        return DP_ENOMEM;
    for (i = 0; i < v->cfg.num_parts; i++)
        *ok &= vf_read_part_ids(w, i, eids, 1, &t, seen, eids ? NULL : &v->onid,
                                0);
    memset(seen, 0, (size_t)(total / 64 + 1) * 8);
    if (*ok)
        vf_flush(w, &t, eids ? "orig edge ids" : "orig node ids");
    return 0;
}

/* How many part folders hold the file name; *first_without (may be
 * NULL): the first part that does not, -1 when all do. -1 on ENOMEM. */
static int count_part_files(struct vctx *v, const char *name,
                            int *first_without)
{
    int i, n = 0, has, first = -1;

    for (i = 0; i < v->cfg.num_parts; i++) {
        char *g = dp_config_part_file(&v->cfg, i, "part_graph");
        char *dir = g ? dp_path_dirname(g) : NULL;
        char *path = dir ? dp_path_join(dir, name) : NULL;

        free(g);
        free(dir);
        if (!path)
            return -1;
        has = dp_exists(path);
        free(path);
        n += has;
        if (!has && first < 0)
            first = i;
    }
    if (first_without)
        *first_without = first;
    return n;
}

/* Orig node ids with or without edge ids: DGL's dispatch_data writes
 * orig_eids only with --save-orig-eids, partition_graph's return_mapping
 * may be saved without them, and dglpart partition --no_orig_eids skips
 * them on sets too large for the disk. Edge ids in some parts only are a
 * damaged set. */
int vf_load_orig_ids(struct vwork *w)
{
    struct vctx *v = w->v;
    char *np = dp_path_join(v->cfg.dir, "orig_nids.npy");
    char *ep = dp_path_join(v->cfg.dir, "orig_eids.npy");
    int rc = 0, nn, ne, ne_without;

    if (!np || !ep) {
        rc = DP_ENOMEM;
    } else if (dp_exists(np) || dp_exists(ep)) {
        v->s->orig_ids = 1;
        v->onid_ok = open_npy_ids(w, np, v->cfg.num_nodes, "orig_nids.npy",
                                  "orig node ids", &v->onid_npy, w->nbits);
        if (dp_exists(np) && !dp_exists(ep))
            v->s->no_orig_eids = 1;
        else
            v->oeid_ok = open_npy_ids(w, ep, v->cfg.num_edges, "orig_eids.npy",
                                      "orig edge ids", &v->oeid_npy, w->ebits);
    } else if ((nn = count_part_files(v, "orig_nids.dgl", NULL)) < 0 ||
               (ne = count_part_files(v, "orig_eids.dgl", &ne_without)) < 0) {
        rc = DP_ENOMEM;
    } else if (nn || ne) {
        v->s->orig_ids = 2;
        rc = load_part_ids(w, 0, &v->onid_ok);
        if (!rc && ne == v->cfg.num_parts)
            rc = load_part_ids(w, 1, &v->oeid_ok);
        else
            v->s->no_orig_eids = 1;
        if (!rc && ne && ne < v->cfg.num_parts) {
            char *rdir = dp_path_dirname(v->cfg.part_graph[ne_without]);

            vf_problem(w,
                       "%s/orig_eids.dgl: missing, but %d of the %d parts have"
                       " one: expected every part or none",
                       rdir ? rdir : ".", ne, v->cfg.num_parts);
            free(rdir);
        }
    }
    free(np);
    free(ep);
    return rc;
}
