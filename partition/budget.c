/* The up-front check of a partition run: the peak anonymous memory and the
 * disk it will need, estimated from N, E, the data sizes and the options,
 * against --mem_limit (else MemAvailable) and the output's free space, so
 * a run that cannot fit fails in one line before hours of work. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/dglfile.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/partition.h"
#include "dglpart/progress.h"
#include "ml.h"

/* Bytes of anonymous memory per symmetrised entry and per node beyond the
 * graph itself, from peak RssAnon: whole-graph METIS 846 MiB on rmat19
 * (8.4M edges; its levels barely shrink on power-law graphs, dense
 * ogbl-ddi needs far less). With no scratch file every level of the
 * multilevel path stays in memory: 31 (rmat23 with DGLPART_SPILL=0:
 * 7.4 GiB). With its levels in scratch files, each keeping at most about
 * half the entries of the one before, the path's memory is per node
 * (clusters, maps, label propagation's weights and rates) plus METIS on a
 * small coarsest graph (12-17 bytes a coarsest entry): rmat 27 x 12
 * (3.2B entries, 134M nodes, four constraints) peaked at 9.2 GiB
 * anonymous in its first contraction, rmat 23 at 0.56 GiB, against 17.0
 * and 1.06 GiB planned then (6 an entry and 96 a node planned 33 GiB and
 * refused rmat 27 on this 24 GB machine). Since contractions go in bands
 * and the pages of every scratch file are watched, the whole lean run of
 * rmat 27 peaks at 6.6 GiB anonymous (2026-12-06, symmetrising; the
 * coarsening, refinement and parts below 5.5 GiB), and 2 bytes an entry
 * planned 15.6 GiB. What the entries cost is METIS on the coarsest graph
 * (rmat 21's lean run peaked at 194 MiB, 240 planned), whose size
 * coarsening bounds: at most ML_COARSEST bytes (rmat 27's had 19.8M
 * entries, about 340 MB at 17 an entry). */
#define METIS_PER_ENTRY 48
#define METIS_PER_NODE 64
#define ML_PER_ENTRY 2
#define ML_COARSEST ((int64_t)512 << 20)
#define ML_MEM_PER_ENTRY 31
/* per node (clusters, the map, the offsets, two-hop's sizes and leads;
 * label propagation rates each node's clusters in a table of its row past
 * 2^22 nodes), and per node and constraint: the cluster weights, idx_t */
#define ML_PER_NODE 24
#define ML_PER_NODE_CON 4
/* A part's local edges: its in-edges and, a hop, the out-edges that leave
 * it (0.68 as many on rmat25 K = 4, 0.9 on ogbl-ddi K = 8). A typed part
 * holds about 44 bytes of each in the writer: source, destination and
 * edge id, growing arrays' slack and the halo merge (untyped parts did
 * too: peak RssAnon 15.8 GiB on rmat25 K = 4, 83 MiB on ogbl-ddi K = 8). */
#define HALO_PER_HOP 0.75
#define LOCAL_EDGE 44
/* An untyped part is written column by column from the reshuffled CSC:
 * halo edge ids as varint gaps, CSR's sort 8 bytes a local edge (rmat23
 * K = 4, random parts, 1.75 local edges an edge: 1.9 GiB RSS in all);
 * with neither, 3: rmat 27 x 12 (--halo_edges in, --graph_formats csc,
 * K = 4, the sources in a scratch file) wrote its parts at 5.2 GiB
 * anonymous in all, 6.2 planned (6 an edge planned 8.5) */
#define LOCAL_EDGE_UNTYPED 12
#define LOCAL_EDGE_NO_CSR 3
#define PART_WORKERS 2
/* the program and its buffers (4 MiB a gather) */
#define BASE ((int64_t)8 << 20)

/* MemAvailable from /proc/meminfo, in bytes; -1 when unknown. */
static int64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Peak anonymous memory of the assignment, with every graph that can go
 * to a scratch file there (lean) or only as the code does unasked; none
 * goes without spill (DGLPART_SPILL=0). */
static int64_t assign_mem(const struct dp_partition_opts *o,
                          const struct dp_dataset_shape *d, int64_t m, int ml,
                          int spill, int lean, int64_t *scratch, int64_t *one)
{
    int64_t n = d->num_nodes;
    int64_t ncon = 2 * o->balance_train + 2 * o->balance_edges + d->ncon;
    int64_t base = 4 * n * (1 + (o->num_trainers > 1) + ncon),
            vw = 4 * n * ncon;
    int64_t sym, sym1, work, band;
    int out = spill && (!ml || lean || m >= (int64_t)ML_SPILL_MIN_ENTRIES);

    /* the symmetrised entries are made a band of a quarter of them at a
     * time (at least 16M) when the graph goes to the scratch file, a half
     * for the multilevel path (a third, lean); its offsets and int32
     * counts stay in memory */
    band = max64(m / (!ml ? 4 : lean ? 3 : 2), (int64_t)1 << 24);
    sym = out ? 16 * n + 4 * (band < m ? band : m) : 16 * n + 4 * m;
    sym1 = 16 * n + 4 * m; /* in one band */
    if (ml) {
        /* the fine graph, then the coarse levels built beside it, 8
         * bytes an entry: each keeps at most about half the entries of
         * the one before, so all together about m (rmat25: 394M, 197M,
         * 99M and 49M of 806M, 5.9 GB) */
        *scratch = out ? 8 * n + 4 * m + 8 * m : 0;
        /* (symmetrising, the graph's 4 m and its sources' rows, 4 bytes
         * an input edge, at most 4 m more, fit in that) */
        /* DP_LEAN_DISK: the fine graph goes once the first level (half
         * its entries, 8 bytes each) is built, after a compressed copy
         * of it is made for its refinement */
        if (out && o->lean_disk)
            *scratch += ml_fine_copy_bytes(n, m) - 4 * m;
        work = (out ? (ML_PER_ENTRY * m < ML_COARSEST ? ML_PER_ENTRY * m
                                                      : ML_COARSEST)
                    : ML_MEM_PER_ENTRY * m) +
               (ML_PER_NODE + ML_PER_NODE_CON * ncon) * n + 4 * n +
               (out ? 0 : 4 * m + 8 * n);
        /* a level whose rows in their file pass the cap on its mapped
         * pages is contracted in two bands of half the cap at a time,
         * the rows summed from a band's back in an eighth of one */
        if (out && 4 * m + 8 * n > (int64_t)ml_level_rss_cap())
            work +=
                (int64_t)ml_level_rss_cap() + (int64_t)ml_level_rss_cap() / 16;
        /* the degree order, kept from symmetrising to the end; the
         * vertex weights wait in a scratch file while the graph is
         * symmetrised */
        sym += 4 * n - (out ? vw : 0);
        sym1 += 4 * n - (out ? vw : 0);
        work += 4 * n;
    } else {
        *scratch = spill ? 4 * m + 4 * n : 0;
        work = METIS_PER_ENTRY * m + METIS_PER_NODE * n +
               (spill ? 0 : 4 * m + 4 * n);
    }
    *one = base + max64(sym1, work);
    return base + max64(sym, work);
}

/* Hops whose halo edges a part holds beyond its in-edges: --halo_edges
 * in has none at one hop. */
static int halo_hops(const struct dp_partition_opts *o)
{
    return o->halo_in ? (o->num_hops > 0 ? o->num_hops - 1 : 0) : o->num_hops;
}

/* The reshuffled sources: int32 below 2^31 nodes. */
static int64_t esrc_bytes(int64_t n, int64_t e)
{
    return (n < INT32_MAX ? 4 : 8) * e;
}

/* Peak anonymous memory of reshuffling and writing the parts; lean, the
 * sources wait in a scratch file. */
static int64_t write_mem(const struct dp_partition_opts *o, int64_t n,
                         int64_t e, int typed, int lean)
{
    int K = o->num_parts;
    /* with neither halo edges nor CSR, a part's columns need no sort */
    int per_edge = typed ? LOCAL_EDGE
                   : (o->graph_formats & DP_FMT_CSR) || halo_hops(o)
                       ? LOCAL_EDGE_UNTYPED
                       : LOCAL_EDGE_NO_CSR;
    int w = K < PART_WORKERS ? K : PART_WORKERS;
    double local = (double)e / K * (1.0 + HALO_PER_HOP * halo_hops(o));
    /* typed graphs also hold each entry's edge id, int32 below 2^31
     * edges, in memory */
    int64_t esrc = (lean ? 0 : esrc_bytes(n, e)) +
                   (typed ? (e < INT32_MAX ? 4 : 8) * e : 0);

    if (K == 1)
        return 24 * e + 24 * n + 4 * n;
    /* while parts are written: the assignment, shuffled to input ids
     * (int32 below 2^31 nodes) and the in-edge offsets; the map the other
     * way is gone by then */
    return 4 * n + (n < INT32_MAX ? 4 : 8) * n + 8 * n + esrc +
           w * (8 * n + (int64_t)(local * per_edge));
}

/* Bytes of the partition set on disk. */
static int64_t output_disk(const struct dp_partition_opts *o,
                           const struct dp_dataset_shape *d)
{
    int64_t n = d->num_nodes, e = d->num_edges;
    int K = o->num_parts, fmts = 0, f;
    double hops = K == 1 ? 0 : o->num_hops, local_e, local_n, per_e;
    int64_t nbytes = d->node_bytes + (o->num_trainers > 1 ? 8 : 0);
    int64_t ebytes = d->edge_weight / (e ? e : 1);

    for (f = o->graph_formats ? o->graph_formats : 1; f; f >>= 1)
        fmts += f & 1;
    local_e = (double)e * (1.0 + HALO_PER_HOP * (K == 1 ? 0 : halo_hops(o)));
    local_n = (double)n * (1.0 + hops);
    if (local_n > (double)n * K)
        local_n = (double)n * K;
    /* graph.dgl: 16 bytes an edge a format (8 for the CSC of an untyped
     * in part, stored without its data), an edge id and inner flag; three
     * ids a node; then the data, orig ids, the assignment file */
    per_e = 16.0 * fmts + 9;
    if (o->halo_in && o->num_hops <= 1 && K > 1 && !d->typed &&
        (o->graph_formats & DP_FMT_CSC))
        per_e -= 8;
    return (int64_t)(local_e * per_e + local_n * 17) + n * nbytes + e * ebytes +
           d->type_data +
           (o->no_orig_ids ? 0 : 8 * n + (o->no_orig_eids ? 0 : 8 * e)) +
           (o->write_assign ? 4 * n : 0) + (1 << 20) * (int64_t)K;
}

int dp_partition_plan(const struct dp_partition_opts *o,
                      const struct dp_dataset_shape *d, struct dp_budget *b)
{
    int64_t n = d->num_nodes, e = d->num_edges;
    /* self-loops and repeats only lower it; an undirected dataset already
     * holds both directions */
    int64_t m = d->directed ? 2 * e : e;
    int metis = !o->part_assign && !strcmp(o->part_method, "metis") &&
                (o->num_parts > 1 || o->num_trainers > 1);
    int64_t wr = write_mem(o, n, e, d->typed, 0), s0 = 0, s1 = 0, mem0, mem1,
            one0 = -1, one1;
    int64_t wr1 = write_mem(o, n, e, d->typed, 1);
    int spill = 1, rc;

    memset(b, 0, sizeof(*b));
    if ((rc = dp_env_bool("DGLPART_SPILL", &spill)))
        return rc;
    mem0 = wr;
    mem1 = wr1;
    if (metis) {
        int ml = o->metis_mode == DP_METIS_MULTILEVEL ||
                 (o->metis_mode == DP_METIS_AUTO && !o->objtype_vol &&
                  m > DP_ML_AUTO_ENTRIES);

        mem0 =
            max64(wr, assign_mem(o, d, m, ml, spill && o->out, 0, &s0, &one0));
        mem1 =
            max64(wr1, assign_mem(o, d, m, ml, spill && o->out, 1, &s1, &one1));
        one0 = max64(wr, one0);
    }
    mem0 += BASE;
    mem1 += BASE;
    b->mem_limit = o->mem_limit;
    b->mem_avail = o->mem_limit ? o->mem_limit : mem_available();
    b->lean = b->mem_avail >= 0 &&
              (double)mem0 > DP_BUDGET_HEADROOM * b->mem_avail && spill;
    b->mem = b->lean ? mem1 : mem0;
    /* each band sweeps the whole CSC: one when its buffer stays below
     * what a later step takes anyway (the part writers on rmat, the
     * levels on denser graphs) */
    b->sym_one_band = !b->lean && one0 >= 0 && one0 + BASE <= b->mem;
    /* the scratch files are gone before the parts are written, and so is
     * a scratch dataset's indices.npy (--no_cache); lean, the reshuffled
     * sources' file stays until the parts are written */
    b->disk = max64(b->lean ? s1 : s0,
                    output_disk(o, d) -
                        (o->discard_edges && o->num_parts > 1 && !d->typed
                             ? d->indices
                             : 0) +
                        (b->lean && o->num_parts > 1 ? esrc_bytes(n, e) : 0));
    b->disk_avail = -1;
    return 0;
}

int dp_partition_budget(const struct dp_partition_opts *o,
                        const struct dp_dataset *ds, struct dp_budget *b)
{
    struct dp_dataset_shape d;
    int64_t n, e;
    char need[32], have[32];
    int rc;

    dp_dataset_shape(ds, &d);
    n = d.num_nodes;
    e = d.num_edges;
    if ((rc = dp_partition_plan(o, &d, b)))
        return rc;
    b->disk_avail = dp_disk_free(o->out, NULL);
    if (b->mem_avail >= 0 && b->mem > b->mem_avail) {
        dp_fmt_bytes((uint64_t)b->mem, need, sizeof(need));
        dp_fmt_bytes((uint64_t)b->mem_avail, have, sizeof(have));
        return dp_error(DP_ETOOBIG,
                        "not enough memory to partition '%s' (%" PRId64
                        " nodes, %" PRId64 " edges) into %d parts: needs "
                        "about %s, %s available (%s)",
                        ds->dir, n, e, o->num_parts, need, have,
                        o->mem_limit ? "--mem_limit" : "MemAvailable");
    }
    if (b->disk_avail >= 0 && b->disk > b->disk_avail) {
        dp_fmt_bytes((uint64_t)b->disk, need, sizeof(need));
        dp_fmt_bytes((uint64_t)b->disk_avail, have, sizeof(have));
        return dp_error(DP_ETOOBIG,
                        "not enough disk to partition '%s' (%" PRId64
                        " nodes, %" PRId64 " edges) into %d parts: needs "
                        "about %s for '%s' and its scratch files, %s free",
                        ds->dir, n, e, o->num_parts, need, o->out, have);
    }
    if (dp_verbose) {
        char disk[32], free_[32];

        dp_fmt_bytes((uint64_t)b->mem, need, sizeof(need));
        dp_fmt_bytes((uint64_t)(b->mem_avail > 0 ? b->mem_avail : 0), have,
                     sizeof(have));
        dp_fmt_bytes((uint64_t)b->disk, disk, sizeof(disk));
        dp_fmt_bytes((uint64_t)(b->disk_avail > 0 ? b->disk_avail : 0), free_,
                     sizeof(free_));
        dp_log(DP_LOG_V,
               "plan: memory about %s of %s (%s), disk about %s of %s free%s",
               need, have, o->mem_limit ? "--mem_limit" : "MemAvailable", disk,
               free_,
               b->lean           ? "; every graph in a scratch file"
               : b->sym_one_band ? "; symmetrised in one band"
                                 : "");
    }
    return 0;
}
