/* The assignment phase: a part for every input node, from a file (ours or
 * DGL's per-type folder), seeded random, or METIS (the whole graph or the
 * multilevel path) under DGL's balance constraints; with several trainers
 * a machine, METIS into parts x trainers and the trainer part kept. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "phases.h"

static int lean_flags(const struct assign_in *in)
{
    return (in->lean ? DP_LEAN_MEM : 0) |
           (in->o->lean_disk ? DP_LEAN_DISK : 0) |
           (in->one_band ? DP_SYM_ONE_BAND : 0);
}

/* Balanced within every type of a typed dataset, the type being a balance
 * class. */
static void random_parts(const struct dp_dataset *d, int K, int64_t seed,
                         int32_t *part)
{
    uint64_t s = seed < 0 ? 0 : (uint64_t)seed;
    int t;

    if (!d->meta.num_ntypes) {
        dp_random_assign(d->meta.num_nodes, K, s, part);
        return;
    }
    for (t = 0; t < d->meta.num_ntypes; t++) {
        const struct dp_dataset_type *ty = &d->meta.ntypes[t];

        dp_random_assign(ty->count, K, s + (uint64_t)t, part + ty->offset);
    }
}

static int metis_parts(const struct assign_in *in, struct assign_out *out)
{
    const struct dp_partition_opts *o = in->o;
    const struct dp_dataset *d = in->d;
    int64_t n = d->meta.num_nodes, i,
            np = (int64_t)o->num_parts * o->num_trainers;
    int rc;

    rc = o->balance_class
             ? dp_vweights_classes(d, o->balance_class, o->num_classes,
                                   o->balance_edges, &out->vw)
             : dp_vweights_build(d, o->balance_train, o->balance_edges,
                                 o->balance_ntypes, &out->vw);
    if (rc)
        return rc;
    if (o->num_trainers == 1)
        return dp_metis_assign(d, &out->vw, o->num_parts, o->imbalance,
                               o->objtype_vol, o->seed, o->out, lean_flags(in),
                               out->part, &out->objval, o->metis_mode,
                               &out->levels);
    if (np > n)
        return dp_error(DP_EINVAL,
                        "--num_parts %d x --num_trainers_per_machine %d = "
                        "%" PRId64 " trainer parts for %" PRId64 " nodes",
                        o->num_parts, o->num_trainers, np, n);
    if (!(out->fine = dp_malloc_array((size_t)n + 1, sizeof(*out->fine))))
        return DP_ENOMEM;
    rc = dp_metis_assign(d, &out->vw, (int)np, o->imbalance, o->objtype_vol,
                         o->seed, o->out, lean_flags(in), out->fine,
                         &out->objval, o->metis_mode, &out->levels);
    for (i = 0; !rc && i < n; i++)
        out->part[i] = out->fine[i] / o->num_trainers;
    return rc;
}

int phase_assign(const struct assign_in *in, struct assign_out *out)
{
    const struct dp_partition_opts *o = in->o;
    int64_t n = in->d->meta.num_nodes;
    int rc;

    memset(out, 0, sizeof(*out));
    out->levels = -1;
    if (!(out->part = dp_malloc_array((size_t)n + 1, sizeof(*out->part))))
        return DP_ENOMEM;
    if (o->part_assign)
        return dp_is_dir(o->part_assign)
                   ? dp_assign_read_dir(o->part_assign, in->d, o->num_parts,
                                        out->part)
                   : dp_assign_read(o->part_assign, n, o->num_parts, out->part);
    if (!strcmp(o->part_method, "random")) {
        random_parts(in->d, o->num_parts, o->seed, out->part);
        return 0;
    }
    if (o->num_parts == 1 && o->num_trainers == 1) {
        memset(out->part, 0, (size_t)n * sizeof(*out->part));
        return 0;
    }
    if ((rc = metis_parts(in, out)))
        return rc;
    out->has_objval = 1;
    return 0;
}

void assign_out_release(struct assign_out *a)
{
    free(a->part);
    free(a->fine);
    dp_vweights_release(&a->vw);
    a->part = a->fine = NULL;
}
