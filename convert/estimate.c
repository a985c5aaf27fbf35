/* What converting an input will give and take, known before converting
 * so the pipeline can plan the whole run up front. Exact where the input
 * says: OGB's count files, METIS's header, .npy headers (in a folder, or
 * through an .npz's zip directory), DGL's metadata.json. Edge lists and
 * LINQS files are sampled: within 0.1% of rmat20's 16.7M edges from the
 * first MiB of its gzip, 0.2% on wiki-Vote; 7% high on CiteSeer's
 * gzipped content, whose lines vary most. --dedup and --no_self_loops
 * are not foreseen, so those err high by what they drop (Cora: 10,858
 * edges for 10,556). */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/env.h"
#include "dglpart/error.h"

/* Decoded bytes sampled from a text file. */
#define SAMPLE (1u << 20)
/* Entries of src/dst read for a max id when no node array says N. */
#define ID_SAMPLE ((uint64_t)1 << 20)
/* the program and its buffers, as partition/budget.c counts them */
#define BASE ((int64_t)8 << 20)

/* What an estimator finds; -1: not found. */
struct raw {
    int64_t n, e, feat_dim, ncon;
    int label, masks, weights, typed, exact;
    int64_t type_data;
    int64_t type_kept; /* of it, in .npy chunks the folder only names */
    const char *how;
};

static int64_t file_size(const char *path)
{
    struct stat st;

    return path && stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* root/rel, or root/rel.gz when only that exists; NULL when neither. */
static char *find_file(const char *root, const char *rel)
{
    char *p = dp_path_join(root, rel), gz[4096];

    if (p && dp_exists(p))
        return p;
    free(p);
    snprintf(gz, sizeof(gz), "%s.gz", rel);
    p = dp_path_join(root, gz);
    if (p && dp_exists(p))
        return p;
    free(p);
    return NULL;
}

/* The first decoded bytes of path, NUL-terminated (owned), cut after
 * their last full line unless that is the whole file (*whole). */
static int sample(const char *path, char **out, size_t *len, uint64_t *used,
                  int *whole)
{
    char *buf = dp_malloc(SAMPLE + 1);
    int rc;

    if (!buf)
        return DP_ENOMEM;
    if ((rc = cv_sample(path, buf, SAMPLE, len, used))) {
        free(buf);
        return rc;
    }
    *whole = *len < SAMPLE;
    while (!*whole && *len > 0 && buf[*len - 1] != '\n')
        (*len)--;
    buf[*len] = 0;
    *out = buf;
    return 0;
}

/* The first integer of a small count file (OGB's num-node-list). */
static int64_t first_int(const char *path)
{
    char *buf;
    const char *p;
    size_t len;
    uint64_t used;
    int64_t v = -1;
    int whole;

    if (!path || sample(path, &buf, &len, &used, &whole))
        return -1;
    p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\r')
        p++;
    if (cv_scan_i64(&p, &v))
        v = -1;
    free(buf);
    return v;
}

static int comment(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return !*line || *line == '#' || *line == '%' || *line == '\r';
}

/* Edge lines in the first MiB, scaled to the whole file: the decoded size
 * of a gzip file is its size times the first MiB's ratio. Edge lists are
 * written by one program, so the lines' length stays near the sample's:
 * within 1-3% on rmat and SNAP files. N is the largest id in the sample
 * + 1, exact on rmat-like lists, low on lists sorted by source (it only
 * lowers the plan). A whole file in the sample is counted exactly. */
static int edgelist(const char *path, struct raw *r)
{
    char *buf, *line, *next;
    size_t len;
    uint64_t used, lines = 0;
    int64_t size = file_size(path), max = -1;
    int whole, rc;

    if ((rc = sample(path, &buf, &len, &used, &whole)))
        return rc;
    for (line = buf; *line; line = next) {
        const char *p = line;
        int64_t v;
        int i;

        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (comment(line))
            continue;
        lines++;
        for (i = 0; i < 2; i++) {
            while (*p == ' ' || *p == '\t' || *p == ',')
                p++;
            if (!cv_scan_i64(&p, &v) && v > max)
                max = v;
        }
    }
    free(buf);
    r->exact = whole;
    r->how = whole ? "the whole file" : "its first MiB";
    r->n = max + 1;
    r->e = whole || !len || !used
               ? (int64_t)lines
               : (int64_t)((double)lines * size / (double)used);
    return 0;
}

/* OGB's raw/ folder under in or its only sub-folder (an unzipped zip),
 * as the reader finds it. Owned, or NULL. */
static char *ogb_root(const char *in)
{
    char *raw = dp_path_join(in, "raw"), *root = NULL;
    DIR *d;
    struct dirent *de;
    int subdirs = 0;

    if (raw && dp_is_dir(raw)) {
        free(raw);
        return dp_strdup(in);
    }
    free(raw);
    raw = NULL;
    if (!(d = opendir(in)))
        return NULL;
    while ((de = readdir(d))) {
        char *p = de->d_name[0] == '.' ? NULL : dp_path_join(in, de->d_name);

        if (p && dp_is_dir(p)) {
            subdirs++;
            free(root);
            root = p;
        } else {
            free(p);
        }
    }
    closedir(d);
    if (subdirs != 1 || !(raw = dp_path_join(root, "raw")) || !dp_is_dir(raw)) {
        free(root);
        root = NULL;
    }
    free(raw);
    return root;
}

/* Values in the first row of a file, sep-separated. */
static int64_t row_width_sep(const char *path, char sep)
{
    char *buf;
    const char *p;
    size_t len;
    uint64_t used;
    int64_t w = 1;
    int whole;

    if (sample(path, &buf, &len, &used, &whole))
        return 0;
    for (p = buf; *p && *p != '\n'; p++)
        w += *p == sep;
    free(buf);
    return len ? w : 0;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* Where the local header of central directory entry cd (room bytes from
 * cd) starts: past 4 GiB, in its zip64 extra field, after the sizes that
 * are there too (every array past the first of a papers100M-sized .npz). */
static uint64_t local_offset(const unsigned char *cd, size_t room)
{
    uint64_t off = le(cd + 42, 4);
    size_t end = 46 + le(cd + 28, 2) + le(cd + 30, 2), at = 46 + le(cd + 28, 2);

    if (off != 0xffffffff)
        return off;
    end = end < room ? end : room;
    while (at + 4 <= end) {
        size_t id = le(cd + at, 2), sz = le(cd + at + 2, 2), f = at + 4;

        if (id == 1) {
            f += le(cd + 24, 4) == 0xffffffff ? 8 : 0; /* uncompressed */
            f += le(cd + 20, 4) == 0xffffffff ? 8 : 0; /* compressed */
            return f + 8 <= at + 4 + sz && f + 8 <= end ? le(cd + f, 8) : off;
        }
        at += 4 + sz;
    }
    return off;
}

/* The first bytes of a zip entry's data, inflated when deflated: an .npy
 * header, or a small array whole. *len 0 when unreadable. */
static void zip_head(int fd, const unsigned char *cd, size_t room,
                     unsigned char *out, size_t cap, size_t *len)
{
    unsigned char lh[30], in[8192];
    uint64_t off = local_offset(cd, room);
    ssize_t got;

    *len = 0;
    if (pread(fd, lh, 30, (off_t)off) != 30 || le(lh, 4) != 0x04034b50)
        return;
    off += 30 + le(lh + 26, 2) + le(lh + 28, 2);
    got = pread(fd, in, sizeof(in), (off_t)off);
    if (got <= 0)
        return;
    if (le(cd + 10, 2) == 0) {
        *len = (size_t)got < cap ? (size_t)got : cap;
        memcpy(out, in, *len);
    } else if (le(cd + 10, 2) == 8) {
        if (cv_inflate_head(in, (size_t)got, out, cap, len))
            *len = 0;
    }
}

/* What an .npz array tells of the graph, by the names cv_npz.c reads. */
static void npz_array(const char *key, const unsigned char *b, size_t len,
                      struct raw *r)
{
    struct dp_npy_header h;
    const unsigned char *v;

    if (dp_npy_parse_header(b, len, key, &h))
        return;
    v = b + h.data_offset;
    if (!strcmp(key, "row") || !strcmp(key, "src"))
        r->e = h.shape[0];
    else if (!strcmp(key, "edge_index") && h.ndim == 2)
        r->e = h.shape[1];
    else if ((!strcmp(key, "shape") || !strcmp(key, "num_nodes_list")) &&
             dp_dtype_is_int(h.dtype) && h.count >= 1 &&
             h.data_offset + dp_dtype_size(h.dtype) <= len)
        r->n = dp_dtype_get_i64(h.dtype, v);
    else if (!strcmp(key, "feat") || !strcmp(key, "features") ||
             !strcmp(key, "feature") || !strcmp(key, "node_feat")) {
        r->feat_dim = h.ndim == 2 ? h.shape[1] : 1;
        r->n = r->n < 0 ? h.shape[0] : r->n;
    } else if (!strcmp(key, "label") || !strcmp(key, "labels") ||
               !strcmp(key, "node_label"))
        r->label = 1;
    else if (!strcmp(key, "node_types"))
        r->masks = 3;
    else if (strstr(key, "_mask"))
        r->masks++;
}

/* An .npz by its central directory and each array's header: exact. */
static int npz(const char *path, struct raw *r)
{
    unsigned char tail[65557], *cd = NULL, head[4096];
    int64_t size = file_size(path), k, at;
    uint64_t cdoff, cdlen, i, nent;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
    ssize_t got;

    if (fd < 0 || size < 22)
        goto bad;
    at = size > (int64_t)sizeof(tail) ? size - (int64_t)sizeof(tail) : 0;
    if ((got = pread(fd, tail, (size_t)(size - at), (off_t)at)) < 22)
        goto bad;
    for (k = got - 22; k >= 0 && le(tail + k, 4) != 0x06054b50; k--)
        ;
    if (k < 0)
        goto bad;
    nent = le(tail + k + 10, 2);
    cdlen = le(tail + k + 12, 4);
    cdoff = le(tail + k + 16, 4);
    if (cdoff == 0xffffffff && k >= 20 && le(tail + k - 20, 4) == 0x07064b50) {
        unsigned char z[56];

        if (pread(fd, z, 56, (off_t)le(tail + k - 12, 8)) != 56 ||
            le(z, 4) != 0x06064b50)
            goto bad;
        nent = le(z + 32, 8);
        cdlen = le(z + 40, 8);
        cdoff = le(z + 48, 8);
    }
    if (cdlen > (64u << 20) || !(cd = dp_malloc(cdlen + 1)) ||
        pread(fd, cd, cdlen, (off_t)cdoff) != (ssize_t)cdlen)
        goto bad;
    for (i = 0, k = 0; i < nent && (uint64_t)k + 46 <= cdlen; i++) {
        unsigned char *e = cd + k;
        size_t nlen = le(e + 28, 2), len;
        char key[256];

        if (le(e, 4) != 0x02014b50 || k + 46 + nlen > cdlen || nlen < 5 ||
            nlen >= sizeof(key))
            break;
        memcpy(key, e + 46, nlen - 4); /* without ".npy" */
        key[nlen - 4] = 0;
        zip_head(fd, e, (size_t)(cdlen - (uint64_t)k), head, sizeof(head),
                 &len);
        npz_array(key, head, len, r);
        k += 46 + nlen + le(e + 30, 2) + le(e + 32, 2);
    }
    r->exact = 1;
    r->how = "the arrays' headers";
    goto out;
bad:
    rc = dp_error(DP_EUNSUPPORTED, "'%s': no zip directory read", path);
out:
    free(cd);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Every .npz of a folder (or one file), as cv_npz.c reads them. */
static int npz_input(const char *in, struct raw *r)
{
    DIR *d;
    struct dirent *de;
    int rc = 0;
    size_t l;

    if (!dp_is_dir(in))
        return npz(in, r);
    if (!(d = opendir(in)))
        return dp_error(DP_EIO, "cannot open '%s'", in);
    while (!rc && (de = readdir(d))) {
        char *p;

        l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 4, ".npz"))
            continue;
        p = dp_path_join(in, de->d_name);
        rc = p ? npz(p, r) : DP_ENOMEM;
        free(p);
    }
    closedir(d);
    return rc;
}

/* papers100M's binary layout: raw/data.npz and raw/node-label.npz. */
static int ogb_npz(const char *root, const char *npzpath, struct raw *r)
{
    char *f = find_file(root, "raw/node-label.npz");
    int rc = npz(npzpath, r);

    if (!rc && f)
        rc = npz(f, r);
    free(f);
    if (!rc && r->n < 0 && (f = find_file(root, "raw/num-node-list.csv"))) {
        r->n = first_int(f);
        free(f);
    }
    return rc;
}

/* The counts of num-node-list and num-edge-list, exact; the edge list
 * sampled when the edge count is missing; the feature width from the
 * first row of node-feat. Typed OGB (num-node-dict) is left to the plan
 * after converting. */
static int ogb(const char *in, struct raw *r)
{
    char *root = ogb_root(in), *f = NULL;
    int rc = 0;

    if (!root || (f = find_file(root, "raw/num-node-dict.csv"))) {
        free(root);
        free(f);
        return dp_error(DP_EUNSUPPORTED, "no estimate for typed OGB");
    }
    if ((f = find_file(root, "raw/data.npz"))) {
        rc = ogb_npz(root, f, r);
        free(f);
        goto split;
    }
    f = find_file(root, "raw/num-node-list.csv");
    r->n = first_int(f);
    free(f);
    f = find_file(root, "raw/num-edge-list.csv");
    r->e = first_int(f);
    free(f);
    r->exact = r->n >= 0 && r->e >= 0;
    r->how = "num-node-list and num-edge-list";
    if (r->e < 0 && (f = find_file(root, "raw/edge.csv"))) {
        int64_t n = r->n;

        rc = edgelist(f, r);
        r->n = n >= 0 ? n : r->n;
        free(f);
    }
    if (!rc && (f = find_file(root, "raw/node-feat.csv"))) {
        r->feat_dim = row_width_sep(f, ',');
        free(f);
    }
    if ((f = find_file(root, "raw/node-label.csv")))
        r->label = 1;
    free(f);
split:
    if ((f = dp_path_join(root, "split")) && dp_is_dir(f))
        r->masks = 3;
    free(f);
    free(root);
    return rc;
}

/* METIS's header line "n m [fmt [ncon]]": exact (m counts each undirected
 * edge once; the file lists both directions). */
static int metis(const char *path, struct raw *r)
{
    char *buf, *line, *next;
    size_t len;
    uint64_t used;
    int whole, rc;

    if ((rc = sample(path, &buf, &len, &used, &whole)))
        return rc;
    for (line = buf; *line; line = next) {
        const char *p = line;
        char fmt[4] = "";
        int64_t n, m, ncon = 1;
        size_t k;

        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (comment(line))
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        if (cv_scan_i64(&p, &n) || (p += strspn(p, " \t"), cv_scan_i64(&p, &m)))
            break;
        p += strspn(p, " \t");
        k = strspn(p, "01");
        memcpy(fmt, p, k < 3 ? k : 3);
        p += k;
        p += strspn(p, " \t");
        if (cv_scan_i64(&p, &ncon) || ncon < 1)
            ncon = 1;
        k = strlen(fmt);
        r->n = n;
        r->e = 2 * m;
        r->weights = k >= 1 && fmt[k - 1] == '1';
        r->ncon = k >= 2 && fmt[k - 2] == '1' ? ncon : 0;
        r->exact = 1;
        r->how = "its header line";
        break;
    }
    free(buf);
    return r->e >= 0 ? 0 : dp_error(DP_EFORMAT, "'%s': no header", path);
}

/* The arrays' headers: exact. Without a node array N is the largest id of
 * the first 1M edges + 1 (low on sorted lists; it only lowers the plan). */
static int npy(const char *dir, struct raw *r)
{
    static const char *const node[] = { "feat.npy", "label.npy",
                                        "train_mask.npy", "val_mask.npy",
                                        "test_mask.npy" };
    struct dp_npy a[2];
    char *p;
    int i, rc;
    uint64_t k;

    memset(a, 0, sizeof(a));
    for (i = 0; i < 5; i++) {
        struct dp_npy x;

        if (!(p = dp_path_join(dir, node[i])) || !dp_exists(p) ||
            dp_npy_open(&x, p)) {
            free(p);
            continue;
        }
        free(p);
        r->n = x.h.ndim >= 1 ? x.h.shape[0] : r->n;
        if (i == 0)
            r->feat_dim = x.h.ndim == 2 ? x.h.shape[1] : 1;
        r->label |= i == 1;
        r->masks += i >= 2;
        dp_npy_release(&x);
    }
    for (i = 0, rc = 0; i < 2 && !rc; i++) {
        p = dp_path_join(dir, i ? "dst.npy" : "src.npy");
        rc = p ? dp_npy_open(&a[i], p) : DP_ENOMEM;
        free(p);
    }
    if (!rc && a[0].h.ndim >= 1)
        r->e = a[0].h.shape[0];
    for (i = 0; !rc && r->n < 0 && i < 2; i++)
        for (k = 0; k < a[i].h.count && k < ID_SAMPLE; k++) {
            int64_t v = dp_npy_get_i64(&a[i], k);

            r->n = v + 1 > r->n ? v + 1 : r->n;
        }
    r->exact = a[0].h.count <= ID_SAMPLE;
    r->how = "the arrays' headers";
    dp_npy_release(&a[0]);
    dp_npy_release(&a[1]);
    return rc;
}

/* LINQS: lines of NAME.content (one a paper, its words and its class) and
 * NAME.cites (one an edge), counted like an edge list's. */
static int linqs(const char *in, struct raw *r)
{
    char *cites = NULL, *content = NULL;
    struct raw x = { -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL };
    int rc;

    if ((rc = cv_linqs_files(in, &cites, &content)) ||
        (rc = edgelist(cites, r)) || (rc = edgelist(content, &x)))
        goto out;
    r->n = x.e;
    r->exact &= x.exact;
    /* tab-separated: the id, the words, the class */
    r->feat_dim = row_width_sep(content, '\t') - 2;
    r->label = 1;
    r->masks = 3;
out:
    free(cites);
    free(content);
    return rc;
}

static int64_t sum_list(const cJSON *v)
{
    const cJSON *it;
    int64_t s = 0;

    if (cJSON_IsNumber(v))
        return (int64_t)v->valuedouble;
    cJSON_ArrayForEach(it, v)
    {
        s += sum_list(it);
    }
    return s;
}

/* Bytes of the files of every array of node_data or edge_data: .npy
 * chunks are their data plus a header. *kept: those convert leaves in
 * place (not label or a mask of a node type). */
static int64_t data_files(const char *dir, const cJSON *v, int edge,
                          int64_t *kept)
{
    const cJSON *t, *a, *f;
    int64_t s = 0;

    cJSON_ArrayForEach(t, v)
    {
        cJSON_ArrayForEach(a, t)
        {
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(a, "data");
            size_t n = a->string ? strlen(a->string) : 0;
            int keep = edge || (n && strcmp(a->string, "label") &&
                                (n < 5 || strcmp(a->string + n - 5, "_mask")));
            int64_t s0 = s;

            cJSON_ArrayForEach(f, l)
            {
                char *p = cJSON_IsString(f) ? dp_path_join(dir, f->valuestring)
                                            : NULL;
                int64_t k = file_size(p);

                s += k > 0 ? k : 0;
                free(p);
            }
            if (keep)
                *kept += s - s0;
        }
    }
    return s;
}

/* DGL's chunked metadata.json: the chunk counts, exact. */
static int chunked(const char *dir, struct raw *r)
{
    char *path = dp_path_join(dir, "metadata.json"), *text = NULL;
    cJSON *root = NULL;
    size_t len;
    int rc;

    if (!path)
        return DP_ENOMEM;
    if ((rc = dp_read_file(path, 64 << 20, &text, &len)))
        goto out;
    if (!(root = cJSON_ParseWithLength(text, len))) {
        rc = dp_error(DP_EFORMAT, "'%s': not JSON", path);
        goto out;
    }
    r->n =
        sum_list(cJSON_GetObjectItemCaseSensitive(root, "num_nodes_per_chunk"));
    r->e =
        sum_list(cJSON_GetObjectItemCaseSensitive(root, "num_edges_per_chunk"));
    r->type_data =
        data_files(dir, cJSON_GetObjectItemCaseSensitive(root, "node_data"), 0,
                   &r->type_kept) +
        data_files(dir, cJSON_GetObjectItemCaseSensitive(root, "edge_data"), 1,
                   &r->type_kept);
    r->typed = r->exact = 1;
    r->how = "metadata.json";
out:
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

static int estimate_raw(const char *fmt, const char *in, struct raw *r)
{
    if (!strcmp(fmt, "edgelist"))
        return edgelist(in, r);
    if (!strcmp(fmt, "metis"))
        return metis(in, r);
    if (!strcmp(fmt, "ogb") && dp_is_dir(in))
        return ogb(in, r);
    if (!strcmp(fmt, "npy"))
        return npy(in, r);
    if (!strcmp(fmt, "linqs"))
        return linqs(in, r);
    if (!strcmp(fmt, "chunked"))
        return chunked(in, r);
    if (!strcmp(fmt, "npz"))
        return npz_input(in, r);
    return dp_error(DP_EUNSUPPORTED, "no estimate for the %s format", fmt);
}

/* The dataset convert writes from r, and what the writing takes: the edge
 * arrays (8 bytes an output edge while ids fit 32 bits; ddi 25 MiB and
 * rmat20 174 MiB peak RSS against 24 and 152 planned), or past
 * DGLPART_EDGE_SPILL about a byte an edge with the arrays (or the
 * buckets) in scratch files: rmat21 past 256 MiB 142-181 MiB against 100
 * planned, the rest the buckets' chunk buffers (about 32 MiB whatever the
 * graph, left out: small beside a graph that spills). --dedup sorts every
 * pair at once and takes more. */
static int finish(const struct dp_convert_opts *o, const struct raw *r,
                  struct dp_convert_estimate *est)
{
    struct dp_dataset_shape *s = &est->shape;
    int64_t n = r->n > 0 ? r->n : 0, e = r->e > 0 ? r->e : 0, isz, arrays;
    int64_t spill = 0;
    int rc;

    if (o->edge_spill >= 0)
        spill = o->edge_spill;
    else if ((rc = dp_env_size("DGLPART_EDGE_SPILL", &spill)))
        return rc;
    memset(est, 0, sizeof(*est));
    if (o->num_nodes >= 0)
        n = o->num_nodes;
    e = o->undirected ? 2 * e : e;
    isz = o->ids64 || n >= INT32_MAX || e >= INT32_MAX ? 8 : 4;
    s->num_nodes = n;
    s->num_edges = e;
    s->directed = !o->undirected;
    s->typed = r->typed;
    s->ncon = r->ncon;
    s->node_bytes = 4 * r->feat_dim + (r->label ? 8 : 0) + r->masks;
    s->edge_weight = r->weights ? 8 * e + 128 : 0;
    s->type_data = r->type_data;
    s->indices = isz * e + 128;
    /* every .npy has a 128-byte header */
    s->total = 8 * (n + 1) + 128 + s->indices +
               (!o->no_eids || r->weights || r->typed ? s->indices : 0) +
               n * (s->node_bytes + 8 * s->ncon) + s->edge_weight +
               s->type_data - (o->copy_data ? 0 : r->type_kept) +
               128 * (!!r->feat_dim + r->label + r->masks + !!r->ncon);
    arrays = (n <= (int64_t)UINT32_MAX ? 8 : 16) * e;
    est->mem_lean = e + 16 * n + BASE;
    est->scratch_lean = arrays;
    /* DGLPART_EDGE_SPILL's 0: at once */
    est->mem = arrays > spill ? est->mem_lean : arrays + 16 * n + BASE;
    est->scratch = arrays > spill ? arrays : 0;
    est->exact = r->exact;
    est->how = r->how ? r->how : "the input";
    return 0;
}

int dp_convert_estimate(const struct dp_convert_opts *o,
                        struct dp_convert_estimate *est)
{
    struct raw r = { -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL };
    const char *fmt = o->format ? o->format : "auto";
    int rc;

    if (!strcmp(fmt, "auto") && (rc = cv_detect(o->input, &fmt)))
        return rc;
    if ((rc = estimate_raw(fmt, o->input, &r)))
        return rc;
    if (r.e < 0)
        return dp_error(DP_EUNSUPPORTED, "'%s': no edge count found", o->input);
    return finish(o, &r, est);
}
