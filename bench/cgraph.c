/* Compressed neighbour lists (partition/cgraph.c) on a converted dataset:
 * bytes per symmetrised entry, encode time, and full-scan time against a
 * plain CSR scan (one thread, CPU time), on the fine graph (in the multilevel
 * path's order: rows by ascending degree) and on its first two coarse levels.
 *   cgraph DATASET_DIR [REPEATS]
 * The fine graph is symmetrised here as the partitioner does (repeats and
 * self loops dropped). Run with DGLPART_TEST_ONE_THREAD=1 (bench/cgraph.sh
 * does): the times are this thread's CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../partition/cgraph.h"
#include "../partition/ml.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"

/* This thread's CPU seconds: the machine's two cores are shared, and
 * wall time would count the turns other processes take. */
static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double mind(double a, double b)
{
    return a < b ? a : b;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

    return x < y ? -1 : x > y;
}

/* a as int64 (the dataset's ids may be int32 or int64). */
static int64_t *wide(const struct dp_npy *a)
{
    int64_t *x = malloc((a->h.count + 1) * sizeof(*x));
    uint64_t i;

    for (i = 0; i < a->h.count; i++)
        x[i] = dp_npy_get_i64(a, i);
    return x;
}

/* The symmetric graph of the CSC ip/ix (n nodes), each id through perm
 * (NULL: none), rows sorted, repeats and self loops dropped. */
static void symmetrise(const int64_t *ip, const int64_t *ix, int64_t n,
                       const int32_t *perm, struct ml_graph *g)
{
    int64_t *at = calloc((size_t)n + 1, sizeof(*at)), v, k, o = 0;

    g->n = (idx_t)n;
    g->xadj = calloc((size_t)n + 1, sizeof(*g->xadj));
    for (v = 0; v < n; v++)
        for (k = ip[v]; k < ip[v + 1]; k++)
            if (ix[k] != v) {
                g->xadj[(perm ? perm[v] : v) + 1]++;
                g->xadj[(perm ? perm[ix[k]] : ix[k]) + 1]++;
            }
    for (v = 0; v < n; v++)
        g->xadj[v + 1] += g->xadj[v];
    g->adj = malloc((size_t)g->xadj[n] * sizeof(*g->adj));
    memcpy(at, g->xadj, (size_t)n * sizeof(*at));
    for (v = 0; v < n; v++)
        for (k = ip[v]; k < ip[v + 1]; k++)
            if (ix[k] != v) {
                int32_t a = perm ? perm[v] : (int32_t)v;
                int32_t b = perm ? perm[ix[k]] : (int32_t)ix[k];

                g->adj[at[a]++] = b;
                g->adj[at[b]++] = a;
            }
    for (v = 0; v < n; v++) {
        int64_t s = g->xadj[v], e = g->xadj[v + 1];

        qsort(g->adj + s, (size_t)(e - s), sizeof(*g->adj), cmp_i32);
        g->xadj[v] = o;
        for (k = s; k < e; k++)
            if (k == s || g->adj[k] != g->adj[k - 1])
                g->adj[o++] = g->adj[k];
    }
    g->xadj[n] = o;
    free(at);
}

/* The multilevel path's order (partition/metis.c, sym_order): rows by
 * ascending degree, exact below 65536, ties by id. */
static int32_t *degree_order(const struct ml_graph *g)
{
    int64_t nb = 65536 + 65, *cnt = calloc((size_t)nb, sizeof(*cnt)), b, at = 0;
    int32_t *perm = malloc(((size_t)g->n + 1) * sizeof(*perm)), v;

#define KEY(x) ((x) < 65536 ? (x) : 65536 + 47 - __builtin_clzll((uint64_t)(x)))
    for (v = 0; v < g->n; v++)
        cnt[KEY(g->xadj[v + 1] - g->xadj[v])]++;
    for (b = 0; b < nb; b++) {
        int64_t c = cnt[b];

        cnt[b] = at;
        at += c;
    }
    for (v = 0; v < g->n; v++)
        perm[v] = (int32_t)cnt[KEY(g->xadj[v + 1] - g->xadj[v])]++;
#undef KEY
    free(cnt);
    return perm;
}

static int64_t scan_plain(const struct ml_graph *g)
{
    int64_t s = 0, k;
    idx_t v;

    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            s += g->adj[k] + (g->adjw ? g->adjw[k] : 1);
    return s;
}

static int64_t scan_cg(const struct ml_cgraph *c)
{
    struct ml_cg_it it;
    int64_t s = 0;
    int32_t v;

    for (v = 0; v < c->n; v++) {
        ml_cg_begin(&it, c, v);
        while (ml_cg_next(&it))
            s += it.u + it.w;
    }
    return s;
}

/* What label propagation does with each entry: read a per-node array at
 * the neighbour (clus, random), where the time goes on large graphs. */
static int64_t gather_plain(const struct ml_graph *g, const int32_t *clus)
{
    int64_t s = 0, k;
    idx_t v;

    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            s += clus[g->adj[k]] * (int64_t)(g->adjw ? g->adjw[k] : 1);
    return s;
}

static int64_t gather_cg(const struct ml_cgraph *c, const int32_t *clus)
{
    struct ml_cg_it it;
    int64_t s = 0;
    int32_t v;

    for (v = 0; v < c->n; v++) {
        ml_cg_begin(&it, c, v);
        while (ml_cg_next(&it))
            s += clus[it.u] * (int64_t)it.w;
    }
    return s;
}

/* Best of reps runs of each, and one line of figures for g. */
static int report(const char *what, const struct ml_graph *g, int reps)
{
    struct ml_cgraph c;
    double te = 1e30, tp = 1e30, tc = 1e30;
    double td = 1e30, t;
    int64_t m = g->xadj[g->n], sp = 0, sc = 0, gp = 0, gc = 0;
    int32_t *clus = malloc(((size_t)g->n + 1) * sizeof(*clus)), v;
    double tgp = 1e30, tgc = 1e30;
    int64_t *xadj = malloc(((size_t)g->n + 1) * sizeof(*xadj));
    int32_t *adj = malloc(((size_t)m + 1) * sizeof(*adj));
    int32_t *adjw = g->adjw ? malloc(((size_t)m + 1) * sizeof(*adjw)) : NULL;
    int r, rc = 0;

    for (v = 0; v < g->n; v++)
        clus[v] = (int32_t)(ml_mix((uint64_t)v) % (uint32_t)g->n);
    for (r = 0; r < reps && !rc; r++) {
        t = now();
        if ((rc = ml_cg_build(&c, g->n, g->xadj, g->adj, g->adjw, 0)))
            break;
        te = mind(te, now() - t);
        t = now();
        sp = scan_plain(g);
        tp = mind(tp, now() - t);
        t = now();
        sc = scan_cg(&c);
        tc = mind(tc, now() - t);
        t = now();
        gp = gather_plain(g, clus);
        tgp = mind(tgp, now() - t);
        t = now();
        gc = gather_cg(&c, clus);
        tgc = mind(tgc, now() - t);
        t = now();
        ml_cg_decode(&c, xadj, adj, adjw, 0);
        td = mind(td, now() - t);
        if (r + 1 < reps)
            ml_cg_release(&c);
    }
    if (!rc) {
        printf("%-8s %9d nodes %11lld entries  %.3f bytes/entry (lists %.3f, "
               "plain %.1f)  %s\n",
               what, (int)g->n, (long long)m, (double)ml_cg_size(&c) / m,
               (double)c.nbytes / m,
               (double)(8 * (g->n + 1) + m * (g->adjw ? 8 : 4)) / m,
               sp == sc && gp == gc ? "scan sums agree" : "SCAN SUMS DIFFER");
        printf("         encode %.0f M entries/s, decode to plain %.0f M/s\n",
               m / te / 1e6, m / td / 1e6);
        printf("         scan plain %.0f M/s, compressed %.0f M/s (%.2fx the "
               "time)\n",
               m / tp / 1e6, m / tc / 1e6, tc / tp);
        printf("         gather clus[u] plain %.0f M/s, compressed %.0f M/s "
               "(%.2fx)\n",
               m / tgp / 1e6, m / tgc / 1e6, tgc / tgp);
        rc = sp != sc || gp != gc;
        ml_cg_release(&c);
    }
    free(xadj);
    free(adj);
    free(adjw);
    free(clus);
    return rc;
}

/* The next level as the multilevel path makes it: clusters of at most 8
 * average nodes, contracted with its shedding; the clustering timed on
 * the plain lists and on compressed ones (the same clusters). */
static int coarser(const struct ml_graph *g, struct ml_graph *c, uint64_t seed)
{
    idx_t *clus = malloc(((size_t)g->n + 1) * sizeof(*clus));
    idx_t *clus2 = malloc(((size_t)g->n + 1) * sizeof(*clus2));
    idx_t *map = malloc(((size_t)g->n + 1) * sizeof(*map)), v;
    int64_t tot = 0, cap, m = g->xadj[g->n];
    int rc, rounds = 0, rounds2 = 0;
    struct ml_cgraph cg;
    double t, t2;

    for (v = 0; v < g->n; v++)
        tot += g->vw[v];
    cap = 8 * tot / (g->n ? g->n : 1);
    if ((rc = ml_cg_build(&cg, g->n, g->xadj, g->adj, g->adjw, 0)))
        goto out;
    t = now();
    rc = ml_cluster(g, NULL, 1, &cap, seed, clus, &rounds);
    t = now() - t;
    t2 = now();
    if (!rc)
        rc = ml_cluster(g, &cg, 1, &cap, seed, clus2, &rounds2);
    t2 = now() - t2;
    ml_cg_release(&cg);
    if (rc)
        goto out;
    printf("         label propagation: plain %.0f M entries/s a round, "
           "compressed %.0f (%.2fx the time)%s\n",
           (double)m * rounds / t / 1e6, (double)m * rounds2 / t2 / 1e6, t2 / t,
           rounds != rounds2 ||
                   memcmp(clus, clus2, (size_t)g->n * sizeof(*clus))
               ? "  CLUSTERS DIFFER"
               : "");
    rc = ml_contract(g, 1, clus, 0.5, 1.0, seed, NULL, 0, 0, NULL, c, map);
out:
    free(clus);
    free(clus2);
    free(map);
    return rc;
}

static int load(const char *dir, struct dp_npy *ip, struct dp_npy *ix)
{
    char *p = dp_path_join(dir, "indptr.npy"),
         *q = dp_path_join(dir, "indices.npy");
    int rc = dp_npy_open(ip, p);

    if (!rc && (rc = dp_npy_open(ix, q)))
        dp_npy_release(ip);
    free(p);
    free(q);
    return rc;
}

int main(int argc, char **argv)
{
    struct dp_npy ip, ix;
    struct ml_graph g = { 0 }, o = { 0 }, c1 = { 0 }, c2 = { 0 };
    int reps = argc > 2 ? atoi(argv[2]) : 3, rc;
    int32_t *perm;
    int64_t n, *ipw, *ixw;
    idx_t v;

    if (argc < 2) {
        fprintf(stderr, "usage: cgraph DATASET_DIR [REPEATS]\n");
        return 2;
    }
    if ((rc = load(argv[1], &ip, &ix))) {
        fprintf(stderr, "cgraph: %s\n", dp_errmsg());
        return 1;
    }
    n = (int64_t)ip.h.count - 1;
    ipw = wide(&ip);
    ixw = wide(&ix);
    dp_npy_release(&ip);
    dp_npy_release(&ix);
    symmetrise(ipw, ixw, n, NULL, &g);
    rc = report("input", &g, reps);
    perm = degree_order(&g);
    symmetrise(ipw, ixw, n, perm, &o);
    free(ipw);
    free(ixw);
    ml_graph_release(&g);
    o.vw = malloc(((size_t)o.n + 1) * sizeof(*o.vw));
    for (v = 0; v < o.n; v++)
        o.vw[v] = 1;
    rc |= report("ordered", &o, reps);
    if (!rc && !(rc = coarser(&o, &c1, 1)))
        rc = report("level 1", &c1, reps);
    if (!rc && !(rc = coarser(&c1, &c2, 2)))
        rc = report("level 2", &c2, reps);
    if (rc > 1)
        fprintf(stderr, "cgraph: %s\n", dp_errmsg());
    free(perm);
    ml_graph_release(&o);
    ml_graph_release(&c1);
    ml_graph_release(&c2);
    return rc ? 1 : 0;
}
