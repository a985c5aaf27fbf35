/* OGB node-property datasets, as the downloaded .zip (streamed through
 * libarchive, never unpacked) or its unpacked folder (heterogeneous ones,
 * ogbn-mag, as a folder only: cv_read_ogb_hetero below):
 *   raw/edge.csv.gz            "src,dst" per line
 *   raw/num-node-list.csv.gz   one line: N     raw/num-edge-list.csv.gz: E
 *   raw/node-feat.csv.gz       N lines of D comma-separated floats
 *   raw/node-label.csv.gz      N lines, one label (or nan)
 *   split/<name>/{train,valid,test}.csv.gz   node ids
 * A zip may hold these in any order, so counts are checked at the end. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

/* The integers of a one-column file, with the largest and its line. */
struct ivec {
    struct dp_i64vec ids;
    int64_t max;
    uint64_t max_line;
    char *src;
    int present;
};

struct ogb {
    struct cv_graph *g;
    enum cv_ogb_mode mode;
    int64_t ncount, ecount;
    char *nsrc, *esrc;
    int have_edges;
    int64_t dim;
    uint64_t feat_rows;
    struct dp_npy_writer feat;
    int feat_open;
    float *row;
    char *feat_src;
    struct ivec label;
    char *split;
    struct ivec sp[3];
    /* under mpirun (g->share): the rank's blocks of the edge file; the
     * edges of all ranks once known (-1 before); finish left to the
     * caller (root kept for it) */
    struct cv_blocks blocks;
    int64_t all_edges;
    int defer;
    char *root;
    struct cv_npz *npz; /* papers100M's layout, its finish deferred */
    int feat_shared;    /* feat.npy written by every rank (read_feat_share) */
};

static const char *const split_files[3] = { "train", "valid", "test" };
static const char *const mask_files[3] = { "train_mask.npy", "val_mask.npy",
                                           "test_mask.npy" };

static int ivec_push(struct ivec *x, int64_t v, uint64_t line)
{
    if (!x->ids.n || v > x->max) {
        x->max = v;
        x->max_line = line;
    }
    return dp_i64vec_push(&x->ids, v);
}

/* One line of read_ints: 0 with *v, 1 for a blank line, or an error. */
static int int_line(struct cv_src *s, const char *line, const char *what,
                    int allow_nan, int64_t *v)
{
    const char *p = line;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return 1;
    if (allow_nan && !strncasecmp(p, "nan", 3)) {
        *v = -1;
        p += 3;
    } else if (cv_scan_i64(&p, v) || *v < 0) {
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected %s "
                        "(a non-negative integer), found '%.40s'",
                        s->name, s->line, what, line);
    } else if (*p == '.') {
        /* "3.0": some tools write labels as floats. */
        p++;
        while (*p == '0')
            p++;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p)
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected %s "
                        "alone on the line, found '%.40s'",
                        s->name, s->line, what, line);
    return 0;
}

/* One integer per line; "nan" gives -1 when allow_nan. */
/* One integer per line; "nan" gives -1 when allow_nan. */
static int read_ints(struct cv_src *s, struct ivec *x, const char *what,
                     int allow_nan)
{
    char *line;
    size_t len;
    int rc;

    free(x->src);
    x->src = dp_strdup(s->name);
    x->present = 1;
    x->ids.n = 0;
    for (;;) {
        int64_t v;

        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            return 0;
        if ((rc = int_line(s, line, what, allow_nan, &v)) == 1)
            continue;
        if (rc)
            return rc;
        if ((rc = ivec_push(x, v, s->line)))
            return rc;
    }
}

static int read_count(struct cv_src *s, int64_t *out, char **src)
{
    struct ivec x;
    int rc;

    memset(&x, 0, sizeof(x));
    rc = read_ints(s, &x, "a count", 0);
    if (!rc && x.ids.n != 1)
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected one line with a count, "
                      "found %" PRIu64 " (datasets of many graphs are not "
                      "supported)",
                      s->name, x.ids.n);
    if (!rc) {
        *out = x.ids.v[0];
        free(*src);
        *src = x.src;
        x.src = NULL;
    }
    dp_i64vec_release(&x.ids);
    free(x.src);
    return rc;
}

/* One row of dim comma-separated floats into row. */
static int feat_row(struct cv_src *s, char *line, int64_t dim, float *row)
{
    char *p, *end;
    int64_t k = 0;

    for (p = line;; k++) {
        float v = strtof(p, &end);

        if (end == p || k >= dim || (*end && *end != ',' && *end != ' '))
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": column %" PRId64
                            ": expected %s, found '%.20s'",
                            s->name, s->line, k + 1,
                            k >= dim ? "no more columns" : "a number", p);
        row[k] = v;
        while (*end == ' ')
            end++;
        if (!*end)
            break;
        p = end + 1;
    }
    if (k + 1 != dim)
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected %" PRId64
                        " columns (as on line 1), found %" PRId64,
                        s->name, s->line, dim, k + 1);
    return 0;
}

/* Columns of a feature row: its commas plus one. */
static int64_t feat_dim(const char *line)
{
    int64_t d = 1;

    for (; *line; line++)
        d += *line == ',';
    return d;
}

static int read_feat(struct ogb *b, struct cv_src *s)
{
    char *line;
    size_t len;
    int rc;

    if (b->feat_open)
        return dp_error(DP_EFORMAT, "'%s': a second node-feat file", s->name);
    b->feat_src = dp_strdup(s->name);
    for (;;) {
        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            break;
        if (!b->feat_open) {
            char *path = cv_graph_path(b->g, "feat.npy");
            int64_t shape[2];

            b->dim = feat_dim(line);
            shape[0] = -1;
            shape[1] = b->dim;
            b->row = dp_malloc_array((size_t)b->dim, sizeof(float));
            rc = path && b->row
                     ? dp_npy_writer_open(&b->feat, path, DP_F32, 2, shape)
                     : DP_ENOMEM;
            free(path);
            if (rc)
                return rc;
            b->feat_open = 1;
        }
        if ((rc = feat_row(s, line, b->dim, b->row)))
            return rc;
        if ((rc = dp_npy_writer_write(&b->feat, b->row, (uint64_t)b->dim)))
            return rc;
        b->feat_rows++;
    }
    return 0;
}

static int is_feat(const char *rel)
{
    return !strcmp(rel, "raw/node-feat.csv.gz") ||
           !strcmp(rel, "raw/node-feat.csv");
}

#define FEAT_BUF_ROWS 16384

/* Rows [first, first + n) of buf into f. */
static int put_rows(struct cv_shared_npy *f, int64_t dim, int64_t first,
                    const float *buf, int64_t n)
{
    return n ? cv_shared_npy_put(f, (uint64_t)(first * dim), buf,
                                 (uint64_t)(n * dim))
             : 0;
}

/* Under mpirun, with the node count known: every rank takes line 1 for
 * the row length, then parses its blocks of lines (cv_blocks' rule) into
 * their rows of the shared feat.npy; the rows in all are checked by rank
 * 0's finish. */
static int read_feat_share(struct ogb *b, struct cv_src *s)
{
    int me = b->g->share->rank, rc = 0, open = 0;
    int64_t block = 1 << 16, n = b->ncount, first = 0, nbuf = 0;
    char *line, *p, *end, *path = NULL;
    struct cv_shared_npy f;
    float *buf = NULL;
    size_t len;

    if (!(b->feat_src = dp_strdup(s->name)))
        return DP_ENOMEM;
    if ((rc = dp_env_int("DGLPART_TEST_GZ_BLOCK", &block)) ||
        (rc = cv_src_line(s, &line, &len)) || !line) {
        return rc; /* an empty file: no features, as for one process */
    }
    b->dim = feat_dim(line);
    b->feat_shared = 1;
    path = cv_graph_path(b->g, "feat.npy");
    buf = dp_malloc_array(FEAT_BUF_ROWS * (size_t)b->dim, sizeof(float));
    if (!path || !buf)
        rc = DP_ENOMEM;
    if (!rc) {
        int64_t shape[2] = { n, b->dim };

        rc = cv_shared_npy_open(&f, path, DP_F32, 2, shape, me == 0);
        open = !rc;
    }
    /* line 1 starts block 0, rank 0's */
    if (!rc && me == 0 && n > 0 && !(rc = feat_row(s, line, b->dim, buf)))
        nbuf = 1;
    cv_src_blocks(s, (uint64_t)block, b->g->share->size, me, NULL, NULL);
    s->blk_no = 0;
    s->blk_left = (uint64_t)block - 1;
    s->blk_own = me == 0;
    while (!rc && !(rc = cv_src_lines(s, &p, &end)) && p) {
        while (!rc && p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            int64_t row = (int64_t)s->line++;

            if (!nl)
                nl = end; /* a lone last line: NUL-terminated already */
            *nl = '\0';
            if (nl > p && nl[-1] == '\r')
                nl[-1] = '\0';
            if (row < n) { /* rows past the count: finish names them */
                if (nbuf && (row != first + nbuf || nbuf == FEAT_BUF_ROWS)) {
                    rc = put_rows(&f, b->dim, first, buf, nbuf);
                    nbuf = 0;
                }
                if (!nbuf)
                    first = row;
                if (!rc && !(rc = feat_row(s, p, b->dim, buf + nbuf * b->dim)))
                    nbuf++;
            }
            p = nl + 1;
        }
    }
    if (!rc)
        rc = put_rows(&f, b->dim, first, buf, nbuf);
    /* every rank counted every line */
    b->feat_rows = s->line;
    s->blk_lines = 0;
    if (open)
        rc = cv_shared_npy_close(&f, rc);
    free(buf);
    free(path);
    return rc;
}

/* Dispatch one file by its name relative to the dataset root. */
static int handle(struct ogb *b, const char *rel, struct cv_src *s)
{
    struct cv_graph *g = b->g;
    int i;

    if (is_feat(rel) ? b->mode == CV_OGB_NO_FEAT : b->mode == CV_OGB_FEAT_ONLY)
        return 0;
    if (!strcmp(rel, "raw/num-node-list.csv.gz") ||
        !strcmp(rel, "raw/num-node-list.csv"))
        return read_count(s, &b->ncount, &b->nsrc);
    if (!strcmp(rel, "raw/num-edge-list.csv.gz") ||
        !strcmp(rel, "raw/num-edge-list.csv"))
        return read_count(s, &b->ecount, &b->esrc);
    if (!strcmp(rel, "raw/edge.csv.gz") || !strcmp(rel, "raw/edge.csv")) {
        if (b->have_edges)
            return dp_error(DP_EFORMAT, "'%s': a second edge file", s->name);
        b->have_edges = 1;
        free(g->edge_src);
        g->edge_src = dp_strdup(s->name);
        if (b->ncount >= 0 && g->num_nodes < 0) {
            g->num_nodes = b->ncount;
            snprintf(g->nodes_from, sizeof(g->nodes_from), "'%s' says %" PRId64,
                     b->nsrc, b->ncount);
        }
        if (g->share) { /* this rank's blocks of lines only */
            int rc = cv_blocks_begin(&b->blocks, g, s);

            if (!rc)
                rc = cv_parse_edgelist(g, s);
            return rc ? rc : cv_blocks_end(&b->blocks, s);
        }
        if (b->ecount > 0 && b->ecount < (INT64_C(1) << 40))
            cv_edges_expect(&g->edges, (uint64_t)b->ecount);
        return cv_parse_edgelist(g, s);
    }
    if (is_feat(rel))
        return g->share && b->ncount >= 0 ? read_feat_share(b, s)
                                          : read_feat(b, s);
    if (!strcmp(rel, "raw/node-label.csv.gz") ||
        !strcmp(rel, "raw/node-label.csv"))
        return read_ints(s, &b->label, "a label", 1);
    if (!strncmp(rel, "split/", 6)) {
        const char *name = rel + 6, *slash = strchr(name, '/');
        size_t nlen;

        if (!slash)
            return 0;
        nlen = (size_t)(slash - name);
        if (!b->split) {
            b->split = strndup(name, nlen);
            if (!b->split)
                return DP_ENOMEM;
        } else if (strlen(b->split) != nlen || strncmp(b->split, name, nlen)) {
            dp_warn("'%s': using split '%s', ignoring this one", s->name,
                    b->split);
            return 0;
        }
        for (i = 0; i < 3; i++) {
            size_t l = strlen(split_files[i]);

            if (!strncmp(slash + 1, split_files[i], l) &&
                (!strcmp(slash + 1 + l, ".csv.gz") ||
                 !strcmp(slash + 1 + l, ".csv")))
                return read_ints(s, &b->sp[i], "a node id", 0);
        }
    }
    return 0;
}

/* feat.npy is complete when it has a row per node. */
static int commit_feat(struct ogb *b)
{
    int rc;

    if (b->feat_shared) { /* the ranks' rows are in place already */
        if (b->feat_rows != (uint64_t)b->g->num_nodes)
            return dp_error(DP_EFORMAT,
                            "'%s': %" PRIu64 " rows, expected %" PRId64
                            " (one per node)",
                            b->feat_src, b->feat_rows, b->g->num_nodes);
        b->g->meta.feat_dim = b->dim;
        return 0;
    }
    if (!b->feat_open)
        return 0;
    if (b->feat_rows != (uint64_t)b->g->num_nodes)
        return dp_error(DP_EFORMAT,
                        "'%s': %" PRIu64 " rows, expected %" PRId64
                        " (one per node)",
                        b->feat_src, b->feat_rows, b->g->num_nodes);
    rc = dp_npy_writer_commit(&b->feat);
    b->feat_open = 0;
    if (!rc)
        b->g->meta.feat_dim = b->dim;
    return rc;
}

static int finish(struct ogb *b, const char *where)
{
    struct cv_graph *g = b->g;
    int64_t n;
    uint64_t k;
    int rc, i;

    if (b->mode == CV_OGB_FEAT_ONLY)
        return commit_feat(b);
    if (!b->have_edges)
        return dp_error(DP_ENOENT,
                        "'%s': no raw/edge.csv.gz (an OGB dataset "
                        "needs its edge list; heterogeneous datasets are not "
                        "supported)",
                        where);
    if (b->ncount >= 0) {
        if (g->o->num_nodes >= 0 && g->o->num_nodes != b->ncount)
            return dp_error(DP_EINVAL,
                            "--num_nodes %" PRId64 " disagrees with "
                            "'%s' (%" PRId64 ")",
                            g->o->num_nodes, b->nsrc, b->ncount);
        g->num_nodes = b->ncount;
        snprintf(g->nodes_from, sizeof(g->nodes_from), "'%s' says %" PRId64,
                 b->nsrc, b->ncount);
    }
    if (b->ecount >= 0 &&
        b->ecount != (b->all_edges >= 0 ? b->all_edges : (int64_t)g->edges.n))
        return dp_error(DP_EFORMAT,
                        "'%s' line 1: says %" PRId64 " edges, but "
                        "'%s' has %" PRId64,
                        b->esrc, b->ecount, g->edge_src,
                        b->all_edges >= 0 ? b->all_edges : (int64_t)g->edges.n);
    if (g->num_nodes < 0) /* ids are below 2^62: cv_parse_edgelist */
        g->num_nodes = g->edges.max_id + 1;
    n = g->num_nodes;
    if ((rc = commit_feat(b)))
        return rc;
    if (b->label.present) {
        if (b->label.ids.n != (uint64_t)n)
            return dp_error(DP_EFORMAT,
                            "'%s': %" PRIu64 " labels, expected %" PRId64
                            " (one per node)",
                            b->label.src, b->label.ids.n, n);
        if (b->label.max >= CV_MAX_LABEL)
            return dp_error(DP_ERANGE,
                            "'%s' line %" PRIu64 ": label %" PRId64
                            " too large (labels must be below 2^53)",
                            b->label.src, b->label.max_line, b->label.max);
        if ((rc = cv_graph_write_i64(g, "label.npy", b->label.ids.v, n)))
            return rc;
        g->meta.num_classes = b->label.max + 1 > 0 ? b->label.max + 1 : 1;
    }
    for (i = 0; i < 3; i++) {
        struct ivec *x = &b->sp[i];
        uint8_t *mask;

        if (!x->present)
            continue;
        if (x->ids.n && x->max >= n)
            return dp_error(DP_ERANGE,
                            "'%s' line %" PRIu64 ": node id %" PRId64
                            " out of range [0, %" PRId64 ")",
                            x->src, x->max_line, x->max, n);
        if (!(mask = dp_calloc(n ? (size_t)n : 1, 1)))
            return DP_ENOMEM;
        for (k = 0; k < x->ids.n; k++)
            mask[x->ids.v[k]] = 1;
        rc = cv_graph_write_mask(g, mask_files[i], mask, n);
        free(mask);
        if (rc)
            return rc;
        *(i == 0   ? &g->meta.has_train
          : i == 1 ? &g->meta.has_val
                   : &g->meta.has_test) = 1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The only sub-folder of split/ in name order (first if several). */
static char *first_split(const char *root)
{
    char *dir = dp_path_join(root, "split"), *names[64], *res = NULL;
    int n = 0, i;
    DIR *d;
    struct dirent *de;

    if (!dir || !(d = opendir(dir))) {
        free(dir);
        return NULL;
    }
    while ((de = readdir(d)) && n < 64)
        if (de->d_name[0] != '.')
            names[n++] = dp_strdup(de->d_name);
    closedir(d);
    for (i = 0; i < n; i++)
        if (!names[i])
            n = i;
    qsort(names, (size_t)n, sizeof(*names), cmp_str);
    if (n > 1)
        dp_warn("'%s' holds %d splits; using '%s'", dir, n, names[0]);
    if (n)
        res = names[0];
    for (i = 1; i < n; i++)
        free(names[i]);
    free(dir);
    return res;
}

/* Try rel, then rel without ".gz"; 0 with nothing done if absent. */
static int folder_file(struct ogb *b, const char *root, const char *rel)
{
    char *path = dp_path_join(root, rel), sha[65];
    struct cv_src s;
    uint64_t size;
    int rc, hash;

    if (!path)
        return DP_ENOMEM;
    if (!dp_exists(path)) {
        size_t l = strlen(path);

        if (l > 3 && !strcmp(path + l - 3, ".gz")) {
            path[l - 3] = '\0';
            if (dp_exists(path)) {
                char *r = strndup(rel, strlen(rel) - 3);

                rc = r ? folder_file(b, root, r) : DP_ENOMEM;
                free(r);
                free(path);
                return rc;
            }
        }
        free(path);
        return 0;
    }
    /* under mpirun rank 0 reads every file and hashes it for meta.json;
     * the others only the counts and the edges */
    if (b->g->share && b->g->share->rank && strncmp(rel, "raw/num-", 8) &&
        strncmp(rel, "raw/edge.csv", 12) && !(is_feat(rel) && b->ncount >= 0)) {
        free(path);
        return 0;
    }
    hash = (!b->g->share || !b->g->share->rank) && cv_hashing(b->g);
    if ((rc = cv_src_open_file(&s, path, hash)) == 0) {
        rc = handle(b, rel, &s);
        cv_src_close(&s, rc || !hash ? NULL : sha, &size);
        if (!rc && hash)
            rc = cv_graph_add_input(b->g, path, size, sha);
    }
    free(path);
    return rc;
}

static int read_folder(struct ogb *b, const char *in)
{
    char *root = NULL, *sp, rel[512];
    int rc = 0, i;

    if (!dp_is_dir(in) || !dp_exists(in))
        return DP_ENOENT;
    {
        char *raw = dp_path_join(in, "raw");

        if (raw && dp_exists(raw)) {
            root = dp_strdup(in);
        } else {
            DIR *d = opendir(in);
            struct dirent *de;

            while (d && (de = readdir(d)) && !root) {
                char *p;

                if (de->d_name[0] == '.')
                    continue;
                p = dp_path_join(in, de->d_name);
                free(raw);
                raw = p ? dp_path_join(p, "raw") : NULL;
                if (raw && dp_exists(raw))
                    root = p;
                else
                    free(p);
            }
            if (d)
                closedir(d);
        }
        free(raw);
    }
    if (!root)
        return dp_error(DP_ENOENT, "'%s': no raw/ folder (not an OGB dataset)",
                        in);
    {
        char *h = dp_path_join(root, "raw/num-node-dict.csv.gz");
        char *h2 = dp_path_join(root, "raw/num-node-dict.csv");
        int het = h && h2 && (dp_exists(h) || dp_exists(h2));

        free(h);
        free(h2);
        if (!h || !h2)
            rc = DP_ENOMEM;
        else if (het && b->mode != CV_OGB_FEAT_ONLY)
            rc = cv_read_ogb_hetero(b->g, root);
        if (het || rc)
            goto out;
    }
    if (b->mode == CV_OGB_FEAT_ONLY) {
        if (!(rc = folder_file(b, root, "raw/node-feat.csv.gz")))
            rc = finish(b, root);
        goto out;
    }
    {
        char *edge = dp_path_join(root, "raw/edge.csv.gz");
        char *edge2 = dp_path_join(root, "raw/edge.csv");
        char *npz = dp_path_join(root, "raw/data.npz");

        if (npz && dp_exists(npz)) {
            /* papers100M's binary layout: data.npz + node-label.npz. */
            struct cv_npz z;
            char *lab = dp_path_join(root, "raw/node-label.npz");

            cv_npz_init(&z);
            rc = lab ? cv_npz_file(b->g, &z, npz) : DP_ENOMEM;
            if (!rc && dp_exists(lab))
                rc = cv_npz_file(b->g, &z, lab);
            if (!rc && z.n < 0 && b->ncount < 0)
                rc = folder_file(b, root, "raw/num-node-list.csv.gz");
            if (!rc && z.n < 0 && b->ncount >= 0)
                z.n = b->ncount;
            if (!rc && b->defer) { /* finished once the ranks agree */
                if ((b->npz = dp_malloc(sizeof(*b->npz))))
                    *b->npz = z;
                else
                    rc = DP_ENOMEM;
            }
            if (rc)
                cv_npz_release(&z);
            else if (!b->defer)
                rc = cv_npz_finish(b->g, &z);
            b->have_edges = 1;
            b->ncount = b->g->num_nodes;
            free(b->nsrc);
            b->nsrc = dp_strdup(npz);
            free(lab);
        } else if (edge && edge2 && !dp_exists(edge) && !dp_exists(edge2))
            rc = dp_error(DP_ENOENT,
                          "'%s' is missing: an OGB dataset needs "
                          "its edge list (this copy has only %s)",
                          edge, "counts, labels or other node files");
        free(edge);
        free(edge2);
        if (rc || (npz && dp_exists(npz)))
            free(npz), npz = NULL;
        if (rc)
            goto out;
        if (b->have_edges) {
            /* Only the splits are left to read. */
            goto splits;
        }
        free(npz);
    }
    if ((rc = folder_file(b, root, "raw/num-node-list.csv.gz")) ||
        (rc = folder_file(b, root, "raw/num-edge-list.csv.gz")) ||
        (rc = folder_file(b, root, "raw/edge.csv.gz")) ||
        (b->mode != CV_OGB_NO_FEAT &&
         (rc = folder_file(b, root, "raw/node-feat.csv.gz"))) ||
        (rc = folder_file(b, root, "raw/node-label.csv.gz")))
        goto out;
splits:
    if ((sp = first_split(root))) {
        for (i = 0; i < 3 && !rc; i++) {
            snprintf(rel, sizeof(rel), "split/%s/%s.csv.gz", sp,
                     split_files[i]);
            rc = folder_file(b, root, rel);
        }
        free(sp);
        if (rc)
            goto out;
    }
    if (b->defer) {
        b->root = root;
        return 0;
    }
    rc = finish(b, root);
out:
    free(root);
    return rc;
}

static int read_zip(struct ogb *b, const char *in)
{
    struct cv_zip *z;
    const char *name;
    char sha[65], *label = NULL;
    uint64_t size;
    int rc;

    if ((rc = cv_zip_open(&z, in, cv_hashing(b->g))))
        return rc;
    for (;;) {
        const char *rel = NULL, *p;
        struct cv_src s;

        if ((rc = cv_zip_next(z, &name)) || !name)
            break;
        /* "arxiv/raw/edge.csv.gz" -> "raw/edge.csv.gz" */
        for (p = name; p && !rel; p = strchr(p, '/'), p = p ? p + 1 : NULL)
            if (!strncmp(p, "raw/", 4) || !strncmp(p, "split/", 6))
                rel = p;
        if (!rel)
            continue;
        if (strstr(rel, "raw/num-node-dict.csv")) {
            rc = dp_error(DP_EUNSUPPORTED,
                          "'%s' is a heterogeneous OGB "
                          "dataset: unpack it and convert the folder",
                          in);
            break;
        }
        free(label);
        label = dp_malloc(strlen(in) + strlen(name) + 2);
        if (!label) {
            rc = DP_ENOMEM;
            break;
        }
        sprintf(label, "%s:%s", in, name);
        if ((rc = cv_src_open_zip(&s, z, label, 0)))
            break;
        rc = handle(b, rel, &s);
        cv_src_close(&s, NULL, NULL);
        if (rc)
            break;
    }
    if (!rc)
        rc = cv_zip_finish(z);
    cv_zip_close(z, sha, &size);
    free(label);
    if (!rc && b->mode != CV_OGB_FEAT_ONLY) /* recorded by the first pass */
        rc = cv_graph_add_input(b->g, in, size, sha);
    return rc ? rc : finish(b, in);
}

static void ogb_init(struct ogb *b, struct cv_graph *g, enum cv_ogb_mode mode)
{
    memset(b, 0, sizeof(*b));
    b->g = g;
    b->mode = mode;
    b->ncount = b->ecount = b->all_edges = -1;
}

static void ogb_release(struct ogb *b);

int cv_read_ogb(struct cv_graph *g, const char *in, enum cv_ogb_mode mode)
{
    struct ogb b;
    int rc;

    ogb_init(&b, g, mode);
    if (dp_is_dir(in))
        rc = read_folder(&b, in);
    else
        rc = read_zip(&b, in);
    ogb_release(&b);
    return rc;
}

/* Whether root/raw/name or root/raw/name without ".gz" exists. */
static int raw_file(const char *root, const char *name)
{
    char rel[128], *p;
    size_t l;
    int yes = 0, k;

    for (k = 0; k < 2 && !yes; k++) {
        snprintf(rel, sizeof(rel), "raw/%s", name);
        l = strlen(rel);
        if (k == 1 && l > 3 && !strcmp(rel + l - 3, ".gz"))
            rel[l - 3] = '\0';
        else if (k == 1)
            break;
        p = dp_path_join(root, rel);
        yes = p && dp_exists(p);
        free(p);
    }
    return yes;
}

int cv_ogb_shareable(const char *in)
{
    return dp_is_dir(in) &&
           (raw_file(in, "edge.csv.gz") || raw_file(in, "data.npz")) &&
           !raw_file(in, "num-node-dict.csv.gz");
}

int cv_read_ogb_dist(struct cv_graph *g, struct dp_comm *c, const char *in,
                     struct cv_eids *ids, int64_t *edges)
{
    struct ogb b;
    int rc, lrc;

    ogb_init(&b, g, CV_OGB_ALL);
    b.defer = 1;
    memset(ids, 0, sizeof(*ids));
    lrc = read_folder(&b, in);
    if (!lrc && !b.have_edges)
        lrc = dp_error(DP_ENOENT, "'%s': no raw/edge.csv.gz", in);
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    if (b.npz) { /* data.npz: each rank its P-th of edge_index */
        rc = cv_npz_dist_finish(g, c, b.npz, ids, edges);
        free(b.npz);
        b.npz = NULL;
        b.ncount = g->num_nodes;
    } else if (!(rc = cv_blocks_ids(c, &b.blocks, g->edge_src, ids, edges))) {
        rc = cv_dist_read_done(g, c, g->edge_src, *edges);
    }
    if (rc)
        goto out;
    /* labels, masks and the counts' checks: rank 0, as one process */
    b.all_edges = *edges;
    rc = dp_comm_agree(c, g->share->rank ? 0 : finish(&b, b.root));
out:
    ogb_release(&b);
    return rc;
}

static void ogb_release(struct ogb *b)
{
    int i;

    if (b->feat_open)
        dp_npy_writer_abort(&b->feat);
    free(b->row);
    free(b->feat_src);
    free(b->nsrc);
    free(b->esrc);
    dp_i64vec_release(&b->label.ids);
    free(b->label.src);
    free(b->split);
    for (i = 0; i < 3; i++) {
        dp_i64vec_release(&b->sp[i].ids);
        free(b->sp[i].src);
    }
    cv_blocks_release(&b->blocks);
    free(b->root);
    if (b->npz)
        cv_npz_release(b->npz);
    free(b->npz);
}

/* Open root/rel, or root/rel without ".gz"; DP_ENOENT quietly when
 * neither exists. *path: the one opened (caller frees). */
static int open_rel(struct cv_graph *g, const char *root, const char *rel,
                    struct cv_src *s, char **path)
{
    char *p = dp_path_join(root, rel);
    size_t l;
    int rc;

    if (!p)
        return DP_ENOMEM;
    l = strlen(p);
    if (!dp_exists(p) && l > 3 && !strcmp(p + l - 3, ".gz"))
        p[l - 3] = '\0';
    if (!dp_exists(p)) {
        free(p);
        return DP_ENOENT;
    }
    if ((rc = cv_src_open_file(s, p, cv_hashing(g)))) {
        free(p);
        return rc;
    }
    *path = p;
    return 0;
}

/* Close s; on success record path as an input. Frees path. */
static int close_rel(struct cv_graph *g, struct cv_src *s, char *path, int rc)
{
    char sha[65];
    uint64_t size;

    cv_src_close(s, rc ? NULL : sha, &size);
    if (!rc)
        rc = cv_graph_add_input(g, path, size, sha);
    free(path);
    return rc;
}

/* Split a CSV line in place at commas, trimming blanks and quotes. */
static int csv_split(char *line, char **col, int max)
{
    int n = 0;
    char *p = line;

    for (;;) {
        char *c = strchr(p, ','), *e;

        if (c)
            *c = '\0';
        while (*p == ' ' || *p == '"')
            p++;
        e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '"' || e[-1] == '\r'))
            *--e = '\0';
        if (n == max)
            return -1;
        col[n++] = p;
        if (!c)
            return n;
        p = c + 1;
    }
}

struct het_ntype {
    char *name;
    int64_t count;
};

static int cmp_het_ntype(const void *a, const void *b)
{
    return strcmp(((const struct het_ntype *)a)->name,
                  ((const struct het_ntype *)b)->name);
}

#define HET_MAX_TYPES 1024

/* raw/num-node-dict.csv.gz: a header of node types, one row of counts;
 * OGB sorts the types by name, so ids follow that order. */
static int het_ntypes(struct cv_graph *g, const char *root)
{
    struct het_ntype *t = NULL;
    struct cv_src s;
    char *path, *line, *col[HET_MAX_TYPES];
    size_t len;
    int rc, n = 0, i, rows = 0;

    if ((rc = open_rel(g, root, "raw/num-node-dict.csv.gz", &s, &path)))
        return rc == DP_ENOENT ? dp_error(rc,
                                          "'%s': no "
                                          "raw/num-node-dict.csv.gz",
                                          root)
                               : rc;
    while (!(rc = cv_src_line(&s, &line, &len)) && line) {
        int k;

        if (!line[0])
            continue;
        k = csv_split(line, col, HET_MAX_TYPES);
        if (k < 0) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": more than %d "
                          "node types",
                          path, s.line, HET_MAX_TYPES);
            break;
        }
        if (!rows++) {
            if (!(t = dp_calloc((size_t)k, sizeof(*t)))) {
                rc = DP_ENOMEM;
                break;
            }
            for (n = 0; n < k; n++)
                if (!(t[n].name = dp_strdup(col[n]))) {
                    rc = DP_ENOMEM;
                    break;
                }
            if (rc)
                break;
            continue;
        }
        if (rows > 2) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": a second row "
                          "of counts (datasets of many graphs are not "
                          "supported)",
                          path, s.line);
            break;
        }
        if (k != n) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": expected %d "
                          "counts (one per node type on line 1), found %d",
                          path, s.line, n, k);
            break;
        }
        for (i = 0; i < k && !rc; i++) {
            const char *p = col[i];

            if (cv_scan_i64(&p, &t[i].count) || *p || t[i].count < 0)
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %" PRIu64 ": column "
                              "%d: expected a node count, found '%.40s'",
                              path, s.line, i + 1, col[i]);
        }
        if (rc)
            break;
    }
    if (!rc && rows != 2)
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected a header of node types "
                      "and one row of counts, found %d lines",
                      path, rows);
    if (!rc) {
        qsort(t, (size_t)n, sizeof(*t), cmp_het_ntype);
        for (i = 0; i < n && !rc; i++)
            rc = cv_typed_add_ntype(g, t[i].name, t[i].count, path);
    }
    for (i = 0; t && i < n; i++)
        free(t[i].name);
    free(t);
    return close_rel(g, &s, path, rc);
}

struct het_etype {
    char *col[3]; /* head, relation, tail */
};

static int cmp_het_etype(const void *a, const void *b)
{
    const struct het_etype *x = a, *y = b;
    int i, c;

    /* OGB sorts the triplets as tuples */
    for (i = 0; i < 3; i++)
        if ((c = strcmp(x->col[i], y->col[i])))
            return c;
    return 0;
}

/* An integer column as a per-type array of count rows (or the file's rows
 * when count < 0, for labels); name: the output array. */
#define HET_BUF 65536

/* An integer column as a per-type array of count rows, streamed: plain
 * "digits\n" lines parsed in place, others as read_ints does (ogbn-mag's
 * edge_reltype files have a line per edge). */
static int het_ints(struct cv_graph *g, const char *root, const char *rel,
                    int edge, int type, const char *name, int allow_nan,
                    int64_t count)
{
    const char *what = allow_nan ? "a label" : "an integer";
    const struct dp_dataset_type *t =
        edge ? &g->meta.etypes[type] : &g->meta.ntypes[type];
    struct dp_npy_writer w;
    struct cv_src s;
    int64_t *buf = NULL;
    char *path, *out = NULL, *p, *end;
    uint64_t rows = 0, m = 0;
    int rc, open = 0;

    if ((rc = open_rel(g, root, rel, &s, &path)))
        return rc == DP_ENOENT ? 0 : rc;
    if (!(buf = dp_malloc_array(HET_BUF, sizeof(*buf))))
        rc = DP_ENOMEM;
    if (!rc && !(rc = cv_typed_data_path(g, edge, type, name, &out)) &&
        !(rc = dp_npy_writer_open(&w, out, DP_I64, 1, &count)))
        open = 1;
    while (!rc && !(rc = cv_src_lines(&s, &p, &end)) && p) {
        while (!rc && p < end) {
            char *q = p, *nl;
            int64_t v = 0;

            s.line++;
            while (q < end && (unsigned)(*q - '0') <= 9 && q - p < 15)
                v = v * 10 + (*q++ - '0');
            if (q > p && q < end && *q == '\n') {
                p = q + 1;
            } else {
                nl = memchr(p, '\n', (size_t)(end - p));
                if (!nl)
                    nl = end;
                *nl = '\0';
                if (nl > p && nl[-1] == '\r')
                    nl[-1] = '\0';
                rc = int_line(&s, p, what, allow_nan, &v);
                p = nl + 1;
                if (rc == 1) {
                    rc = 0;
                    continue;
                }
                if (rc)
                    break;
            }
            if (allow_nan && v >= CV_MAX_LABEL) {
                rc = dp_error(DP_ERANGE,
                              "'%s' line %" PRIu64 ": label %" PRId64
                              " too large (labels must be below 2^53)",
                              path, s.line, v);
                break;
            }
            if (rows++ == (uint64_t)count) {
                rc = dp_error(
                    DP_EFORMAT,
                    "'%s' line %" PRIu64 ": more lines than the %" PRId64
                    " %s of type '%s'",
                    path, s.line, count, edge ? "edges" : "nodes", t->name);
                break;
            }
            buf[m++] = v;
            if (m == HET_BUF) {
                rc = dp_npy_writer_write(&w, buf, m);
                m = 0;
            }
        }
    }
    if (!rc && m)
        rc = dp_npy_writer_write(&w, buf, m);
    if (!rc && rows != (uint64_t)count)
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRIu64 " lines, expected %" PRId64
                      " (one per %s of type '%s')",
                      path, rows, count, edge ? "edge" : "node", t->name);
    if (open)
        rc = rc ? (dp_npy_writer_abort(&w), rc) : dp_npy_writer_commit(&w);
    free(buf);
    free(out);
    return close_rel(g, &s, path, rc);
}

/* Node ids of a split into a mask of the type's count. */
static int het_mask(struct cv_graph *g, const char *root, const char *rel,
                    int type, const char *name)
{
    int64_t count = g->meta.ntypes[type].count;
    struct cv_src s;
    struct ivec x;
    uint8_t *mask = NULL;
    uint64_t k;
    char *path;
    int rc;

    memset(&x, 0, sizeof(x));
    if ((rc = open_rel(g, root, rel, &s, &path)))
        return rc == DP_ENOENT ? 0 : rc;
    rc = read_ints(&s, &x, "a node id", 0);
    if (!rc && x.ids.n && x.max >= count)
        rc =
            dp_error(DP_ERANGE,
                     "'%s' line %" PRIu64 ": node id %" PRId64
                     " out of range [0, %" PRId64 ") (node type '%s')",
                     path, x.max_line, x.max, count, g->meta.ntypes[type].name);
    if (!rc && !(mask = dp_calloc((size_t)count, 1)))
        rc = DP_ENOMEM;
    for (k = 0; !rc && k < x.ids.n; k++)
        mask[x.ids.v[k]] = 1;
    if (!rc)
        rc = cv_typed_write(g, 0, type, name, DP_U8, 1, &count, mask);
    free(mask);
    dp_i64vec_release(&x.ids);
    free(x.src);
    return close_rel(g, &s, path, rc);
}

/* node-feat.csv.gz of a node type (edge-feat.csv.gz of an edge type):
 * float32 [count, D] named feat. */
static int het_feat(struct cv_graph *g, const char *root, const char *rel,
                    int edge, int type)
{
    const struct dp_dataset_type *t =
        edge ? &g->meta.etypes[type] : &g->meta.ntypes[type];
    int64_t count = t->count, dim = 0, shape[2];
    struct dp_npy_writer w;
    struct cv_src s;
    float *row = NULL;
    char *path, *out = NULL, *line;
    size_t len;
    uint64_t rows = 0;
    int rc, open = 0;

    if ((rc = open_rel(g, root, rel, &s, &path)))
        return rc == DP_ENOENT ? 0 : rc;
    rc = cv_typed_data_path(g, edge, type, "feat", &out);
    while (!rc && !(rc = cv_src_line(&s, &line, &len)) && line) {
        if (!open) {
            dim = feat_dim(line);
            shape[0] = count;
            shape[1] = dim;
            if (!(row = dp_malloc_array((size_t)dim, sizeof(*row))))
                rc = DP_ENOMEM;
            else if (!(rc = dp_npy_writer_open(&w, out, DP_F32, 2, shape)))
                open = 1;
            if (rc)
                break;
        }
        if (rows == (uint64_t)count) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": more rows than "
                          "the %" PRId64 " %s of type '%s'",
                          path, s.line, count, edge ? "edges" : "nodes",
                          t->name);
            break;
        }
        if (!(rc = feat_row(&s, line, dim, row)))
            rc = dp_npy_writer_write(&w, row, (uint64_t)dim);
        rows++;
    }
    if (!rc && rows != (uint64_t)count)
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRIu64 " rows, expected %" PRId64
                      " (one per %s of type '%s')",
                      path, rows, count, edge ? "edge" : "node", t->name);
    if (open)
        rc = rc ? (dp_npy_writer_abort(&w), rc) : dp_npy_writer_commit(&w);
    free(row);
    free(out);
    return close_rel(g, &s, path, rc);
}

/* One relation folder: its edges, count and relation ids. */
static int het_relation(struct cv_graph *g, const char *root,
                        const struct het_etype *t)
{
    char rel[1024], name[1024], *path, *cpath = NULL;
    struct cv_src s;
    int64_t count = -1, type;
    uint64_t n;
    int rc;

    snprintf(name, sizeof(name), "%s:%s:%s", t->col[0], t->col[1], t->col[2]);
    snprintf(rel, sizeof(rel),
             "raw/relations/%s___%s___%s/num-edge-list.csv.gz", t->col[0],
             t->col[1], t->col[2]);
    if (!(rc = open_rel(g, root, rel, &s, &path))) {
        rc = read_count(&s, &count, &cpath);
        rc = close_rel(g, &s, path, rc);
    }
    if (rc && rc != DP_ENOENT)
        goto out;
    snprintf(rel, sizeof(rel), "raw/relations/%s___%s___%s/edge.csv.gz",
             t->col[0], t->col[1], t->col[2]);
    if ((rc = cv_typed_begin_etype(g, name, "raw/triplet-type-list.csv.gz")))
        goto out;
    type = g->cur_etype;
    if ((rc = open_rel(g, root, rel, &s, &path))) {
        if (rc == DP_ENOENT)
            rc = dp_error(rc, "'%s/%s' is missing (edge type '%s')", root, rel,
                          name);
        goto out;
    }
    if (count > 0 && count < (INT64_C(1) << 40))
        rc = cv_edges_grow(&g->edges, g->edges.n + (uint64_t)count);
    if (!rc)
        rc = cv_parse_edgelist(g, &s);
    n = g->edges.n - g->etype_start;
    if (!rc && count >= 0 && (uint64_t)count != n)
        rc = dp_error(DP_EFORMAT,
                      "'%s' line 1: says %" PRId64 " edges, but "
                      "'%s' has %" PRIu64,
                      cpath, count, path, n);
    if ((rc = close_rel(g, &s, path, rc)))
        goto out;
    cv_typed_end_etype(g);
    snprintf(rel, sizeof(rel), "raw/relations/%s___%s___%s/edge_reltype.csv.gz",
             t->col[0], t->col[1], t->col[2]);
    if ((rc = het_ints(g, root, rel, 1, (int)type, "reltype", 0, (int64_t)n)))
        goto out;
    snprintf(rel, sizeof(rel), "raw/relations/%s___%s___%s/edge-feat.csv.gz",
             t->col[0], t->col[1], t->col[2]);
    g->meta.etypes[type].count = (int64_t)n;
    rc = het_feat(g, root, rel, 1, (int)type);
out:
    free(cpath);
    return rc;
}

static int listed(const struct dp_dataset_meta *m, int type, const char *name)
{
    int i;

    for (i = 0; i < m->num_ndata; i++)
        if (m->ndata[i].type == type && !strcmp(m->ndata[i].name, name))
            return 1;
    return 0;
}

int cv_read_ogb_hetero(struct cv_graph *g, const char *root)
{
    static const char *const masks[3] = { "train_mask", "val_mask",
                                          "test_mask" };
    struct het_etype *et = NULL;
    struct cv_src s;
    char *path, *line, *col[4], rel[1024], *sp = NULL;
    size_t len, cap = 0;
    int rc, n = 0, i, j, ntypes;

    if ((rc = het_ntypes(g, root)))
        return rc;
    if ((rc = open_rel(g, root, "raw/triplet-type-list.csv.gz", &s, &path)))
        return rc == DP_ENOENT ? dp_error(rc,
                                          "'%s': no "
                                          "raw/triplet-type-list.csv.gz",
                                          root)
                               : rc;
    while (!(rc = cv_src_line(&s, &line, &len)) && line) {
        if (!line[0])
            continue;
        if (csv_split(line, col, 4) != 3) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": expected 3 "
                          "columns (head,relation,tail)",
                          path, s.line);
            break;
        }
        if ((rc = DP_ALLOC_GROW(et, (size_t)n + 1, cap)))
            break;
        for (i = 0; i < 3; i++)
            et[n].col[i] = dp_strdup(col[i]);
        n++;
        if (!et[n - 1].col[0] || !et[n - 1].col[1] || !et[n - 1].col[2])
            rc = DP_ENOMEM;
        if (rc)
            break;
    }
    rc = close_rel(g, &s, path, rc);
    if (!rc && n)
        qsort(et, (size_t)n, sizeof(*et), cmp_het_etype);
    for (i = 0; i < n && !rc; i++)
        rc = het_relation(g, root, &et[i]);
    ntypes = g->meta.num_ntypes;
    for (i = 0; i < ntypes && !rc; i++) {
        const char *nt = g->meta.ntypes[i].name;
        int64_t cnt = g->meta.ntypes[i].count;

        snprintf(rel, sizeof(rel), "raw/node-feat/%s/node-feat.csv.gz", nt);
        if ((rc = het_feat(g, root, rel, 0, i)))
            break;
        /* OGB's reader looks for node_year beside node-feat */
        snprintf(rel, sizeof(rel), "raw/node-feat/%s/node_year.csv.gz", nt);
        if ((rc = het_ints(g, root, rel, 0, i, "year", 0, cnt)))
            break;
        snprintf(rel, sizeof(rel), "raw/node_year/%s/node_year.csv.gz", nt);
        if (!listed(&g->meta, i, "year") &&
            (rc = het_ints(g, root, rel, 0, i, "year", 0, cnt)))
            break;
        snprintf(rel, sizeof(rel), "raw/node-label/%s/node-label.csv.gz", nt);
        if ((rc = het_ints(g, root, rel, 0, i, "label", 1, cnt)))
            break;
    }
    if (!rc && (sp = first_split(root)))
        for (i = 0; i < ntypes && !rc; i++)
            for (j = 0; j < 3 && !rc; j++) {
                snprintf(rel, sizeof(rel), "split/%s/%s/%s.csv.gz", sp,
                         g->meta.ntypes[i].name, split_files[j]);
                rc = het_mask(g, root, rel, i, masks[j]);
            }
    free(sp);
    for (i = 0; i < n; i++)
        for (j = 0; j < 3; j++)
            free(et[i].col[j]);
    free(et);
    return rc;
}
