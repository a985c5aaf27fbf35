/* OGB node-property datasets, as the downloaded .zip (streamed through
 * libarchive, never unpacked) or its unpacked folder:
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
#include "dglpart/error.h"
#include "dglpart/npy.h"

struct ivec {
    int64_t *v;
    uint64_t n;
    size_t cap;
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
};

static const char *const split_files[3] = { "train", "valid", "test" };
static const char *const mask_files[3] = { "train_mask.npy", "val_mask.npy",
                                           "test_mask.npy" };

static int ivec_push(struct ivec *x, int64_t v, uint64_t line)
{
    int rc;

    if ((rc = DP_ALLOC_GROW(x->v, x->n + 1, x->cap)))
        return rc;
    if (!x->n || v > x->max) {
        x->max = v;
        x->max_line = line;
    }
    x->v[x->n++] = v;
    return 0;
}

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
    x->n = 0;
    for (;;) {
        const char *p;
        int64_t v;

        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            return 0;
        p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        if (allow_nan && !strncasecmp(p, "nan", 3)) {
            v = -1;
            p += 3;
        } else if (cv_scan_i64(&p, &v) || v < 0) {
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
    if (!rc && x.n != 1)
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected one line with a count, "
                      "found %" PRIu64 " (datasets of many graphs are not "
                      "supported)",
                      s->name, x.n);
    if (!rc) {
        *out = x.v[0];
        free(*src);
        *src = x.src;
        x.src = NULL;
    }
    free(x.v);
    free(x.src);
    return rc;
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
        char *p, *end;
        int64_t k = 0;

        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            break;
        if (!b->feat_open) {
            char *path = cv_graph_path(b->g, "feat.npy");
            int64_t shape[2];

            b->dim = 1;
            for (p = line; *p; p++)
                b->dim += *p == ',';
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
        for (p = line;; k++) {
            float v = strtof(p, &end);

            if (end == p || k >= b->dim || (*end && *end != ',' && *end != ' '))
                return dp_error(DP_EFORMAT,
                                "'%s' line %" PRIu64 ": column %" PRId64
                                ": expected %s, found '%.20s'",
                                s->name, s->line, k + 1,
                                k >= b->dim ? "no more columns" : "a number",
                                p);
            b->row[k] = v;
            while (*end == ' ')
                end++;
            if (!*end)
                break;
            p = end + 1;
        }
        if (k + 1 != b->dim)
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": expected %" PRId64
                            " columns (as on line 1), found %" PRId64,
                            s->name, s->line, b->dim, k + 1);
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
        if (b->ecount > 0 && b->ecount < (INT64_C(1) << 40)) {
            int rc = cv_edges_grow(&g->edges, (uint64_t)b->ecount);

            if (rc)
                return rc;
        }
        return cv_parse_edgelist(g, s);
    }
    if (is_feat(rel))
        return read_feat(b, s);
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
    if (b->ecount >= 0 && (uint64_t)b->ecount != g->edges.n)
        return dp_error(DP_EFORMAT,
                        "'%s' line 1: says %" PRId64 " edges, but "
                        "'%s' has %" PRIu64,
                        b->esrc, b->ecount, g->edge_src, g->edges.n);
    if (g->num_nodes < 0) /* ids are below 2^62: cv_parse_edgelist */
        g->num_nodes = g->edges.max_id + 1;
    n = g->num_nodes;
    if ((rc = commit_feat(b)))
        return rc;
    if (b->label.present) {
        if (b->label.n != (uint64_t)n)
            return dp_error(DP_EFORMAT,
                            "'%s': %" PRIu64 " labels, expected %" PRId64
                            " (one per node)",
                            b->label.src, b->label.n, n);
        if (b->label.max >= CV_MAX_LABEL)
            return dp_error(DP_ERANGE,
                            "'%s' line %" PRIu64 ": label %" PRId64
                            " too large (labels must be below 2^53)",
                            b->label.src, b->label.max_line, b->label.max);
        if ((rc = cv_graph_write_i64(g, "label.npy", b->label.v, n)))
            return rc;
        g->meta.num_classes = b->label.max + 1 > 0 ? b->label.max + 1 : 1;
    }
    for (i = 0; i < 3; i++) {
        struct ivec *x = &b->sp[i];
        uint8_t *mask;

        if (!x->present)
            continue;
        if (x->n && x->max >= n)
            return dp_error(DP_ERANGE,
                            "'%s' line %" PRIu64 ": node id %" PRId64
                            " out of range [0, %" PRId64 ")",
                            x->src, x->max_line, x->max, n);
        if (!(mask = dp_calloc(n ? (size_t)n : 1, 1)))
            return DP_ENOMEM;
        for (k = 0; k < x->n; k++)
            mask[x->v[k]] = 1;
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
    int rc;

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
    if ((rc = cv_src_open_file(&s, path, 1)) == 0) {
        rc = handle(b, rel, &s);
        cv_src_close(&s, rc ? NULL : sha, &size);
        if (!rc)
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
            rc = rc ? (cv_npz_release(&z), rc) : cv_npz_finish(b->g, &z);
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

    if ((rc = cv_zip_open(&z, in)))
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
        free(label);
        label = dp_malloc(strlen(in) + strlen(name) + 2);
        if (!label) {
            rc = DP_ENOMEM;
            break;
        }
        sprintf(label, "%s:%s", in, name);
        if ((rc = cv_src_open_zip(&s, z, label)))
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

int cv_read_ogb(struct cv_graph *g, const char *in, enum cv_ogb_mode mode)
{
    struct ogb b;
    int rc, i;

    memset(&b, 0, sizeof(b));
    b.g = g;
    b.mode = mode;
    b.ncount = b.ecount = -1;
    if (dp_is_dir(in))
        rc = read_folder(&b, in);
    else
        rc = read_zip(&b, in);
    if (b.feat_open)
        dp_npy_writer_abort(&b.feat);
    free(b.row);
    free(b.feat_src);
    free(b.nsrc);
    free(b.esrc);
    free(b.label.v);
    free(b.label.src);
    free(b.split);
    for (i = 0; i < 3; i++) {
        free(b.sp[i].v);
        free(b.sp[i].src);
    }
    return rc;
}
