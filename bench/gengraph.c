/*
 * gengraph: synthetic graphs for benchmarks, written in the OGB node-property
 * raw layout (gzip CSV) or as a plain edge list.
 *
 *   cc -O2 -o gengraph gengraph.c -lz -lm
 *   gengraph rmat  SCALE EDGEFACTOR OUTDIR [--seed S] [--feat D] [--format
 * ogb|edgelist] gengraph rgg   N DEGREE          OUTDIR [--seed S] [--feat D]
 * [--format ogb|edgelist]
 *
 * rmat: Graph500 Kronecker generator (a=0.57 b=0.19 c=0.19), 2^SCALE nodes,
 *       EDGEFACTOR*2^SCALE directed edges, node ids scrambled.
 * rgg:  random geometric graph in the unit square, N nodes, about DEGREE
 *       neighbours each, each undirected edge written once (mesh-like, easy to
 *       partition well; good for cut-quality comparisons).
 * OGB layout: OUTDIR/raw/{edge,num-node-list,num-edge-list,node-label}.csv.gz,
 * OUTDIR/split/random/{train,valid,test}.csv.gz (10% / 5% / rest), and
 * OUTDIR/raw/node-feat.csv.gz when --feat D > 0. Deterministic for a seed.
 *
 * --format npz (rmat only) writes what ogbn-papers100M ships as
 * papers100M-bin: OUTDIR/raw/data.npz {edge_index int64 [2, E], node_feat
 * float32 [N, D] when --feat D, node_year int64 [N, 1], num_nodes_list,
 * num_edges_list}, OUTDIR/raw/node-label.npz {node_label float32 [N, 1],
 * NaN where unlabeled} and OUTDIR/split/time/{train,valid,test}.csv.gz with
 * papers100M's shares (1.1% / 0.1% / 0.2% of the nodes labeled). The .npz
 * files are stored zips (zip64 past 4 GiB) written through libarchive, as
 * np.savez writes them (--format npzc: deflated, as np.savez_compressed
 * does; rmat's edge_index shrinks to about 45%, features barely); edge_index is
 * streamed row by row, generating the edges twice from the same seed, so no [2,
 * E] array is ever held.
 *
 *   cc -O2 -o gengraph gengraph.c -lz -lm -larchive
 *
 *   gengraph mag NODES EDGES OUTDIR [--seed S] [--feat D] [--format ogb|homo]
 *
 * mag: an ogbn-mag-shaped typed graph: its 4 node types and 4 edge types
 * with ogbn-mag's shares of NODES and EDGES (1939743 and 21111007 are
 * ogbn-mag's), skewed endpoints. --format ogb writes OGB's heterogeneous
 * layout (raw/num-node-dict, triplet-type-list, relations/S___R___D/
 * {edge,num-edge-list,edge_reltype}.csv.gz, node-feat/paper/{node-feat
 * (when --feat D), node_year}, node-label/paper, split/time/paper/);
 * --format homo the same graph in the homogeneous OGB layout (ids shifted
 * by type, node types in name order; labels and splits of the papers).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include <archive.h>
#include <archive_entry.h>

static uint64_t rng_s[4];

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(void)
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

static double rndu(void)
{
    return (rnd() >> 11) * 0x1.0p-53;
}

static void seed(uint64_t s)
{
    for (int i = 0; i < 4; i++) {
        s += 0x9e3779b97f4a7c15ULL;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        rng_s[i] = z ^ (z >> 31);
    }
}

static void die(const char *what)
{
    fprintf(stderr, "gengraph: %s: %s\n", what, strerror(errno));
    exit(1);
}

struct out {
    gzFile gz;
    FILE *f;
    char buf[1 << 16];
    size_t len;
};

static void out_open(struct out *o, const char *path, int gz)
{
    o->len = 0;
    o->gz = NULL;
    o->f = NULL;
    if (gz) {
        o->gz = gzopen(path, "wb1");
        if (!o->gz)
            die(path);
        gzbuffer(o->gz, 1 << 20);
    } else if (!(o->f = fopen(path, "w"))) {
        die(path);
    }
}

static void out_flush(struct out *o)
{
    if (o->gz) {
        if (o->len && gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len)
            die("gzwrite");
    } else if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len) {
        die("fwrite");
    }
    o->len = 0;
}

static void out_close(struct out *o)
{
    out_flush(o);
    if (o->gz ? gzclose(o->gz) != Z_OK : fclose(o->f) != 0)
        die("close");
}

static void out_u64(struct out *o, uint64_t v, char end)
{
    char tmp[24];
    int n = 0;
    if (o->len + 32 > sizeof o->buf)
        out_flush(o);
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        o->buf[o->len++] = tmp[--n];
    o->buf[o->len++] = end;
}

static void out_str(struct out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n + 1 > sizeof o->buf)
        out_flush(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void mkdirs(const char *p)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", p);
    for (char *s = tmp + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                die(tmp);
            *s = '/';
        }
    if (mkdir(tmp, 0755) && errno != EEXIST)
        die(tmp);
}

static uint64_t scramble(uint64_t v, int scale, uint64_t k)
{
    uint64_t mask = (scale >= 64) ? ~0ULL : ((1ULL << scale) - 1);
    /* a bijection on [0, 2^scale): odd multiplier and xor-shift, masked */
    for (int r = 0; r < 3; r++) {
        v = (v * (k | 1)) & mask;
        v ^= v >> (scale / 2 + 1);
        v = (v + (k >> 7)) & mask;
    }
    return v & mask;
}

/* One .npz (a zip of .npy files) written through libarchive: stored, as
 * np.savez writes it, or deflated (level 1) as np.savez_compressed does. */
static int npz_deflate;

struct npz {
    struct archive *a;
    const char *path;
};

static void npz_die(struct npz *z)
{
    fprintf(stderr, "gengraph: %s: %s\n", z->path, archive_error_string(z->a));
    exit(1);
}

static void npz_open(struct npz *z, const char *path)
{
    z->path = path;
    z->a = archive_write_new();
    if (!z->a || archive_write_set_format_zip(z->a) != ARCHIVE_OK ||
        archive_write_set_options(
            z->a, npz_deflate ? "zip:compression=deflate,"
                                "zip:compression-level=1"
                              : "zip:compression=store") != ARCHIVE_OK ||
        archive_write_open_filename(z->a, path) != ARCHIVE_OK)
        npz_die(z);
}

/* Starts entry NAME.npy holding an array of DESCR with the given shape;
 * the caller then writes exactly the array's bytes with npz_data. */
static void npz_array(struct npz *z, const char *name, const char *descr,
                      size_t elem, int ndim, const uint64_t *shape)
{
    char hdr[256], dims[96] = "";
    size_t n = 0, bytes = elem;
    for (int i = 0; i < ndim; i++) {
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%llu%s",
                              (unsigned long long)shape[i],
                              ndim == 1      ? ","
                              : i + 1 < ndim ? ", "
                                             : "");
        bytes *= shape[i];
    }
    int len =
        snprintf(hdr + 10, sizeof hdr - 10,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                 descr, dims);
    /* numpy pads the header with spaces to a multiple of 64, ending in \n */
    size_t total = (size_t)(10 + len + 1 + 63) / 64 * 64;
    memset(hdr + 10 + len, ' ', total - 10 - (size_t)len);
    hdr[total - 1] = '\n';
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    hdr[8] = (char)((total - 10) & 0xff);
    hdr[9] = (char)((total - 10) >> 8);

    char entry_name[128];
    snprintf(entry_name, sizeof entry_name, "%s.npy", name);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, entry_name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)(total + bytes));
    if (archive_write_header(z->a, e) != ARCHIVE_OK)
        npz_die(z);
    archive_entry_free(e);
    if (archive_write_data(z->a, hdr, total) != (la_ssize_t)total)
        npz_die(z);
}

static void npz_data(struct npz *z, const void *p, size_t n)
{
    if (archive_write_data(z->a, p, n) != (la_ssize_t)n)
        npz_die(z);
}

static void npz_close(struct npz *z)
{
    if (archive_write_close(z->a) != ARCHIVE_OK)
        npz_die(z);
    archive_write_free(z->a);
}

/* A buffered run of int64 or float32 values into the current npz entry. */
struct vals {
    struct npz *z;
    unsigned char buf[1 << 16];
    size_t len;
};

static void vals_put(struct vals *v, const void *p, size_t n)
{
    if (v->len + n > sizeof v->buf) {
        npz_data(v->z, v->buf, v->len);
        v->len = 0;
    }
    memcpy(v->buf + v->len, p, n);
    v->len += n;
}

static void vals_flush(struct vals *v)
{
    npz_data(v->z, v->buf, v->len);
    v->len = 0;
}

static void rmat_edge(int scale, uint64_t k, uint64_t *u_out, uint64_t *v_out)
{
    const double a = 0.57, b = 0.19, c = 0.19;
    uint64_t u = 0, v = 0;
    for (int l = 0; l < scale; l++) {
        double r = rndu();
        int bu = r > a + b, bv = (r > a && r <= a + b) || r > a + b + c;
        u = (u << 1) | (uint64_t)bu;
        v = (v << 1) | (uint64_t)bv;
    }
    *u_out = scramble(u, scale, k);
    *v_out = scramble(v, scale, k);
}

/* papers100M-bin: see the comment at the top. */
static void write_npz(const char *dir, int scale, uint64_t ef, uint64_t feat)
{
    char path[4096];
    uint64_t n = 1ULL << scale, m = ef * n, k = rnd(), st[4], u, v;
    struct npz z;
    struct vals w;

    snprintf(path, sizeof path, "%s/raw", dir);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/split/time", dir);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/raw/data.npz", dir);
    npz_open(&z, path);
    w.z = &z;
    w.len = 0;
    uint64_t shape[2] = { 2, m };
    npz_array(&z, "edge_index", "<i8", 8, 2, shape);
    memcpy(st, rng_s, sizeof st);
    for (int row = 0; row < 2; row++) {
        memcpy(rng_s, st, sizeof st); /* the same edges for both rows */
        for (uint64_t i = 0; i < m; i++) {
            rmat_edge(scale, k, &u, &v);
            int64_t x = (int64_t)(row ? v : u);
            vals_put(&w, &x, 8);
        }
    }
    vals_flush(&w);
    if (feat) {
        shape[0] = n;
        shape[1] = feat;
        npz_array(&z, "node_feat", "<f4", 4, 2, shape);
        for (uint64_t i = 0; i < n * feat; i++) {
            float f = (float)(rndu() * 2 - 1);
            vals_put(&w, &f, 4);
        }
        vals_flush(&w);
    }
    shape[0] = n;
    shape[1] = 1;
    npz_array(&z, "node_year", "<i8", 8, 2, shape);
    for (uint64_t i = 0; i < n; i++) {
        int64_t y = 1950 + (int64_t)(rnd() % 71);
        vals_put(&w, &y, 8);
    }
    vals_flush(&w);
    shape[0] = 1;
    npz_array(&z, "num_nodes_list", "<i8", 8, 1, shape);
    npz_data(&z, &n, 8);
    npz_array(&z, "num_edges_list", "<i8", 8, 1, shape);
    npz_data(&z, &m, 8);
    npz_close(&z);

    struct out sp[3];
    const char *names[3] = { "train", "valid", "test" };
    for (int s = 0; s < 3; s++) {
        snprintf(path, sizeof path, "%s/split/time/%s.csv.gz", dir, names[s]);
        out_open(&sp[s], path, 1);
    }
    snprintf(path, sizeof path, "%s/raw/node-label.npz", dir);
    npz_open(&z, path);
    shape[0] = n;
    shape[1] = 1;
    npz_array(&z, "node_label", "<f4", 4, 2, shape);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rnd() % 1000;
        float f = NAN;
        if (r < 14) {
            f = (float)(rnd() % 172); /* papers100M has 172 classes */
            out_u64(&sp[r < 11 ? 0 : r < 12 ? 1 : 2], i, '\n');
        }
        vals_put(&w, &f, 4);
    }
    vals_flush(&w);
    npz_close(&z);
    for (int s = 0; s < 3; s++)
        out_close(&sp[s]);
    fprintf(stderr, "gengraph: rmat: %llu nodes, %llu edges -> %s (npz)\n",
            (unsigned long long)n, (unsigned long long)m, dir);
}

/* ogbn-mag's types in name order, with its counts. */
static const char *const mag_nt[4] = { "author", "field_of_study",
                                       "institution", "paper" };
static const uint64_t mag_nn[4] = { 1134649, 59965, 8740, 736389 };
static const struct {
    int s, d;
    const char *rel;
    uint64_t n;
} mag_et[4] = {
    { 0, 2, "affiliated_with", 1043998 },
    { 0, 3, "writes", 7145660 },
    { 3, 3, "cites", 5416271 },
    { 3, 1, "has_topic", 7505078 },
};

/* A skewed id in [0, n): a few nodes get many edges, spread over the
 * range by an odd multiplier. */
static uint64_t skewed(uint64_t n)
{
    double u = rndu();
    uint64_t x = (uint64_t)((double)n * u * u * u);

    if (x >= n)
        x = n - 1;
    return (x * 2654435761ULL) % n;
}

static void write_mag(const char *dir, uint64_t nodes, uint64_t edges,
                      uint64_t feat, int homo)
{
    char path[4096];
    uint64_t nn[4], ne[4], off[4], tot = 0, etot = 0;
    struct out o, e;

    for (int t = 0; t < 4; t++) {
        nn[t] = (uint64_t)((double)mag_nn[t] / 1939743.0 * (double)nodes);
        ne[t] = (uint64_t)((double)mag_et[t].n / 21111007.0 * (double)edges);
        if (!nn[t])
            nn[t] = 1;
        off[t] = tot;
        tot += nn[t];
        etot += ne[t];
    }
    snprintf(path, sizeof path, "%s/raw", dir);
    mkdirs(path);
    if (homo) {
        snprintf(path, sizeof path, "%s/raw/edge.csv.gz", dir);
        out_open(&e, path, 1);
    } else {
        snprintf(path, sizeof path, "%s/raw/num-node-dict.csv.gz", dir);
        out_open(&o, path, 1);
        for (int t = 0; t < 4; t++) {
            out_str(&o, mag_nt[t]);
            out_str(&o, t < 3 ? "," : "\n");
        }
        for (int t = 0; t < 4; t++)
            out_u64(&o, nn[t], t < 3 ? ',' : '\n');
        out_close(&o);
        snprintf(path, sizeof path, "%s/raw/triplet-type-list.csv.gz", dir);
        out_open(&o, path, 1);
        for (int t = 0; t < 4; t++) {
            out_str(&o, mag_nt[mag_et[t].s]);
            out_str(&o, ",");
            out_str(&o, mag_et[t].rel);
            out_str(&o, ",");
            out_str(&o, mag_nt[mag_et[t].d]);
            out_str(&o, "\n");
        }
        out_close(&o);
    }
    for (int t = 0; t < 4; t++) {
        uint64_t ns = nn[mag_et[t].s], nd = nn[mag_et[t].d];
        uint64_t os = homo ? off[mag_et[t].s] : 0;
        uint64_t od = homo ? off[mag_et[t].d] : 0;
        char rdir[3072];

        snprintf(rdir, sizeof rdir, "%s/raw/relations/%s___%s___%s", dir,
                 mag_nt[mag_et[t].s], mag_et[t].rel, mag_nt[mag_et[t].d]);
        if (!homo) {
            mkdirs(rdir);
            snprintf(path, sizeof path, "%s/edge.csv.gz", rdir);
            out_open(&e, path, 1);
        }
        for (uint64_t i = 0; i < ne[t]; i++) {
            out_u64(&e, os + skewed(ns), ',');
            out_u64(&e, od + (uint64_t)(rndu() * (double)nd), '\n');
        }
        if (homo)
            continue;
        out_close(&e);
        snprintf(path, sizeof path, "%s/num-edge-list.csv.gz", rdir);
        out_open(&o, path, 1), out_u64(&o, ne[t], '\n'), out_close(&o);
        snprintf(path, sizeof path, "%s/edge_reltype.csv.gz", rdir);
        out_open(&o, path, 1);
        for (uint64_t i = 0; i < ne[t]; i++)
            out_u64(&o, (uint64_t)t, '\n');
        out_close(&o);
    }
    if (homo) {
        out_close(&e);
        snprintf(path, sizeof path, "%s/raw/num-node-list.csv.gz", dir);
        out_open(&o, path, 1), out_u64(&o, tot, '\n'), out_close(&o);
        snprintf(path, sizeof path, "%s/raw/num-edge-list.csv.gz", dir);
        out_open(&o, path, 1), out_u64(&o, etot, '\n'), out_close(&o);
    }
    /* papers: labels (349 venues), years, time split, features */
    uint64_t np = nn[3], po = homo ? off[3] : 0;
    snprintf(path, sizeof path, homo ? "%s/raw" : "%s/raw/node-label/paper",
             dir);
    mkdirs(path);
    snprintf(path, sizeof path,
             homo ? "%s/raw/node-label.csv.gz"
                  : "%s/raw/node-label/paper/node-label.csv.gz",
             dir);
    out_open(&o, path, 1);
    for (uint64_t i = 0; i < (homo ? tot : np); i++) {
        if (homo && (i < po || i >= po + np))
            out_str(&o, "nan\n");
        else
            out_u64(&o, rnd() % 349, '\n');
    }
    out_close(&o);
    if (!homo) {
        snprintf(path, sizeof path, "%s/raw/node-feat/paper", dir);
        mkdirs(path);
        snprintf(path, sizeof path, "%s/raw/node-feat/paper/node_year.csv.gz",
                 dir);
        out_open(&o, path, 1);
        for (uint64_t i = 0; i < np; i++)
            out_u64(&o, 2010 + (i * 2654435761ULL >> 7) % 10, '\n');
        out_close(&o);
    }
    snprintf(path, sizeof path, homo ? "%s/split/time" : "%s/split/time/paper",
             dir);
    mkdirs(path);
    struct out sp[3];
    const char *names[3] = { "train", "valid", "test" };
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path,
                 homo ? "%s/split/time/%s.csv.gz"
                      : "%s/split/time/paper/%s.csv.gz",
                 dir, names[k]);
        out_open(&sp[k], path, 1);
    }
    /* ogbn-mag: 629571 / 64879 / 41939 of the 736389 papers */
    for (uint64_t i = 0; i < np; i++) {
        uint64_t r = rnd() % 736389;
        out_u64(&sp[r < 629571 ? 0 : r < 629571 + 64879 ? 1 : 2], po + i, '\n');
    }
    for (int k = 0; k < 3; k++)
        out_close(&sp[k]);
    if (feat && !homo) {
        snprintf(path, sizeof path, "%s/raw/node-feat/paper/node-feat.csv.gz",
                 dir);
        out_open(&o, path, 1);
        char num[32];
        for (uint64_t i = 0; i < np; i++)
            for (uint64_t d = 0; d < feat; d++) {
                snprintf(num, sizeof num, "%.6f%c", rndu() * 2 - 1,
                         d + 1 < feat ? ',' : '\n');
                out_str(&o, num);
            }
        out_close(&o);
    }
    fprintf(stderr, "gengraph: mag: %llu nodes, %llu edges -> %s (%s)\n",
            (unsigned long long)tot, (unsigned long long)etot, dir,
            homo ? "homogeneous" : "typed");
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: gengraph rmat SCALE EDGEFACTOR OUTDIR [--seed "
                        "S] [--feat D] "
                        "[--format ogb|edgelist|npz|npzc]\n"
                        "       gengraph rgg N DEGREE OUTDIR [...]\n"
                        "       gengraph mag NODES EDGES OUTDIR [--seed S] "
                        "[--feat D] [--format ogb|homo]\n");
        return 2;
    }
    const char *kind = argv[1], *dir = argv[4];
    uint64_t s = 1, feat = 0;
    int ogb = 1, npz = 0, homo = 0;
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            s = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--feat") && i + 1 < argc)
            feat = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            i++;
            ogb = !strcmp(argv[i], "ogb");
            npz = !strcmp(argv[i], "npz") || !strcmp(argv[i], "npzc");
            npz_deflate = !strcmp(argv[i], "npzc");
            homo = !strcmp(argv[i], "homo");
        } else {
            fprintf(stderr, "gengraph: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    seed(s);
    if (!strcmp(kind, "mag")) {
        uint64_t nodes = strtoull(argv[2], NULL, 10);
        uint64_t edges = strtoull(argv[3], NULL, 10);

        if (nodes < 4 || !edges || (!ogb && !homo))
            return fprintf(stderr, "gengraph: mag NODES EDGES OUTDIR "
                                   "[--format ogb|homo]\n"),
                   2;
        write_mag(dir, nodes, edges, feat, homo);
        return 0;
    }
    if (npz) {
        int scale = atoi(argv[2]);
        uint64_t ef = strtoull(argv[3], NULL, 10);
        if (strcmp(kind, "rmat") || scale < 1 || scale > 40 || ef < 1)
            return fprintf(
                       stderr,
                       "gengraph: --format npz: rmat SCALE EDGEFACTOR only\n"),
                   2;
        write_npz(dir, scale, ef, feat);
        return 0;
    }
    char path[4096];
    mkdirs(dir);
    if (ogb) {
        snprintf(path, sizeof path, "%s/raw", dir);
        mkdirs(path);
        snprintf(path, sizeof path, "%s/split/random", dir);
        mkdirs(path);
        snprintf(path, sizeof path, "%s/raw/edge.csv.gz", dir);
    } else {
        snprintf(path, sizeof path, "%s/edges.txt", dir);
    }
    struct out e;
    out_open(&e, path, ogb);
    uint64_t n, m = 0;
    char sep = ogb ? ',' : '\t';
    if (!strcmp(kind, "rmat")) {
        int scale = atoi(argv[2]);
        uint64_t ef = strtoull(argv[3], NULL, 10);
        if (scale < 1 || scale > 40 || ef < 1)
            return fprintf(stderr, "gengraph: bad SCALE or EDGEFACTOR\n"), 2;
        n = 1ULL << scale;
        uint64_t k = rnd();
        const double a = 0.57, b = 0.19, c = 0.19;
        for (uint64_t i = 0; i < ef * n; i++) {
            uint64_t u = 0, v = 0;
            for (int l = 0; l < scale; l++) {
                double r = rndu();
                int bu = r > a + b, bv = (r > a && r <= a + b) || r > a + b + c;
                u = (u << 1) | (uint64_t)bu;
                v = (v << 1) | (uint64_t)bv;
            }
            out_u64(&e, scramble(u, scale, k), sep);
            out_u64(&e, scramble(v, scale, k), '\n');
            m++;
        }
    } else if (!strcmp(kind, "rgg")) {
        n = strtoull(argv[2], NULL, 10);
        double deg = atof(argv[3]);
        if (n < 2 || deg <= 0)
            return fprintf(stderr, "gengraph: bad N or DEGREE\n"), 2;
        double r = sqrt(deg / (M_PI * (double)n));
        uint64_t g = (uint64_t)(1.0 / r);
        if (g < 1)
            g = 1;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        uint64_t *cell = calloc(g * g + 1, sizeof *cell),
                 *ord = malloc(n * sizeof *ord);
        if (!x || !y || !cell || !ord)
            die("malloc");
        for (uint64_t i = 0; i < n; i++) {
            x[i] = rndu();
            y[i] = rndu();
            uint64_t cx = (uint64_t)(x[i] * g), cy = (uint64_t)(y[i] * g);
            cell[(cx < g ? cx : g - 1) * g + (cy < g ? cy : g - 1) + 1]++;
        }
        for (uint64_t i = 0; i < g * g; i++)
            cell[i + 1] += cell[i];
        uint64_t *fill = malloc((g * g + 1) * sizeof *fill);
        if (!fill)
            die("malloc");
        memcpy(fill, cell, (g * g + 1) * sizeof *fill);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t cx = (uint64_t)(x[i] * g), cy = (uint64_t)(y[i] * g);
            ord[fill[(cx < g ? cx : g - 1) * g + (cy < g ? cy : g - 1)]++] = i;
        }
        double r2 = r * r;
        for (uint64_t cx = 0; cx < g; cx++)
            for (uint64_t cy = 0; cy < g; cy++)
                for (uint64_t p = cell[cx * g + cy]; p < cell[cx * g + cy + 1];
                     p++) {
                    uint64_t i = ord[p];
                    for (int dx = -1; dx <= 1; dx++)
                        for (int dy = -1; dy <= 1; dy++) {
                            int64_t nx = (int64_t)cx + dx,
                                    ny = (int64_t)cy + dy;
                            if (nx < 0 || ny < 0 || nx >= (int64_t)g ||
                                ny >= (int64_t)g)
                                continue;
                            uint64_t c2 = (uint64_t)nx * g + (uint64_t)ny;
                            for (uint64_t q = cell[c2]; q < cell[c2 + 1]; q++) {
                                uint64_t j = ord[q];
                                if (j <= i)
                                    continue;
                                double ddx = x[i] - x[j], ddy = y[i] - y[j];
                                if (ddx * ddx + ddy * ddy <= r2) {
                                    out_u64(&e, i, sep);
                                    out_u64(&e, j, '\n');
                                    m++;
                                }
                            }
                        }
                }
        free(x), free(y), free(cell), free(ord), free(fill);
    } else {
        fprintf(stderr, "gengraph: unknown kind '%s'\n", kind);
        return 2;
    }
    out_close(&e);
    if (ogb) {
        struct out o;
        snprintf(path, sizeof path, "%s/raw/num-node-list.csv.gz", dir);
        out_open(&o, path, 1), out_u64(&o, n, '\n'), out_close(&o);
        snprintf(path, sizeof path, "%s/raw/num-edge-list.csv.gz", dir);
        out_open(&o, path, 1), out_u64(&o, m, '\n'), out_close(&o);
        snprintf(path, sizeof path, "%s/raw/node-label.csv.gz", dir);
        out_open(&o, path, 1);
        for (uint64_t i = 0; i < n; i++)
            out_u64(&o, rnd() % 47, '\n');
        out_close(&o);
        struct out sp[3];
        const char *names[3] = { "train", "valid", "test" };
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s/split/random/%s.csv.gz", dir,
                     names[k]);
            out_open(&sp[k], path, 1);
        }
        for (uint64_t i = 0; i < n; i++) {
            uint64_t r = rnd() % 100;
            out_u64(&sp[r < 10 ? 0 : r < 15 ? 1 : 2], i, '\n');
        }
        for (int k = 0; k < 3; k++)
            out_close(&sp[k]);
        if (feat) {
            snprintf(path, sizeof path, "%s/raw/node-feat.csv.gz", dir);
            out_open(&o, path, 1);
            char num[32];
            for (uint64_t i = 0; i < n; i++)
                for (uint64_t d = 0; d < feat; d++) {
                    snprintf(num, sizeof num, "%.6f%c", rndu() * 2 - 1,
                             d + 1 < feat ? ',' : '\n');
                    out_str(&o, num);
                }
            out_close(&o);
        }
    }
    fprintf(stderr, "gengraph: %s: %llu nodes, %llu edges -> %s\n", kind,
            (unsigned long long)n, (unsigned long long)m, dir);
    return 0;
}
