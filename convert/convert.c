/* dp_convert: pick the reader (by layout, magic bytes and name), let it
 * fill OUT.tmp, write the CSC and meta.json, then rename OUT.tmp to OUT. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"

void dp_convert_opts_init(struct dp_convert_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->format = "auto";
    o->num_nodes = -1;
    o->edge_spill = -1;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);

    return a >= b && !strcasecmp(s + a - b, suf);
}

static int has_file(const char *dir, const char *name)
{
    char *p = dp_path_join(dir, name);
    int r = p && dp_exists(p);

    free(p);
    return r;
}

static int dir_has_suffix(const char *dir, const char *suf)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int r = 0;

    if (!d)
        return 0;
    while (!r && (de = readdir(d)))
        r = ends_with(de->d_name, suf);
    closedir(d);
    return r;
}

/* "raw/" under dir or under its only sub-folder (an unzipped OGB zip). */
static int looks_ogb(const char *dir)
{
    DIR *d;
    struct dirent *de;
    int subdirs = 0, r = 0;

    if (has_file(dir, "raw"))
        return 1;
    if (!(d = opendir(dir)))
        return 0;
    while ((de = readdir(d))) {
        char *p;

        if (de->d_name[0] == '.')
            continue;
        p = dp_path_join(dir, de->d_name);
        if (p && dp_is_dir(p)) {
            subdirs++;
            r = has_file(p, "raw");
        }
        free(p);
    }
    closedir(d);
    return subdirs == 1 && r;
}

int cv_detect(const char *in, const char **fmt)
{
    char name[4096];

    if (dp_is_dir(in)) {
        if (has_file(in, "metadata.json"))
            *fmt = "chunked";
        else if (has_file(in, "edges") && has_file(in, "nodes"))
            *fmt = "typed-npy";
        else if (has_file(in, "src.npy") || has_file(in, "dst.npy"))
            *fmt = "npy";
        else if (dir_has_suffix(in, ".cites"))
            *fmt = "linqs";
        else if (looks_ogb(in))
            *fmt = "ogb";
        else if (dir_has_suffix(in, ".npz"))
            *fmt = "npz";
        else
            return dp_error(DP_EFORMAT,
                            "'%s': cannot tell the dataset layout "
                            "(expected raw/ of an OGB dataset, src.npy and "
                            "dst.npy, *.cites and *.content, *.npz, DGL's "
                            "metadata.json, or nodes/ and edges/); use "
                            "--format",
                            in);
        return 0;
    }
    snprintf(name, sizeof(name), "%s", in);
    if (ends_with(name, ".gz"))
        name[strlen(name) - 3] = '\0';
    if (cv_file_has_magic(in, "PK\003\004", 4)) {
        *fmt = ends_with(name, ".npz") ? "npz" : "ogb";
    } else if (ends_with(name, ".mesh")) {
        return dp_error(DP_EFORMAT,
                        "'%s' is a METIS mesh (elements, not a "
                        "graph): turn it into a graph with m2gmetis first",
                        in);
    } else if (ends_with(name, ".graph") || ends_with(name, ".metis") ||
               ends_with(name, ".mgraph")) {
        *fmt = "metis";
    } else if (ends_with(name, ".cites") || ends_with(name, ".content")) {
        *fmt = "linqs";
    } else if (ends_with(name, ".npy")) {
        return dp_error(DP_EFORMAT,
                        "'%s': give the folder holding src.npy and "
                        "dst.npy, not one array",
                        in);
    } else {
        *fmt = "edgelist";
    }
    return 0;
}

/* Graph name from the input: basename without extensions. */
static char *derive_name(const char *in, const char *fmt)
{
    char buf[4096], *p;
    size_t n;

    snprintf(buf, sizeof(buf), "%s", in);
    n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    p = strrchr(buf, '/');
    p = p ? p + 1 : buf;
    if (!strcmp(p, ".") || !strcmp(p, "..") || !*p) {
        p = "graph";
    } else if (strcmp(fmt, "ogb") || !dp_is_dir(in)) {
        char *dot = strchr(p, '.');

        if (dot && dot != p)
            *dot = '\0';
    }
    return dp_strdup(p);
}

/* --labels: "<node> <label>" lines; unlisted nodes get -1. */
static int read_labels(struct cv_graph *g, const char *path)
{
    struct cv_src s;
    int64_t *node = NULL, *lab = NULL, *out = NULL, maxn = -1, maxl = -1;
    uint64_t n = 0, k;
    size_t ncap = 0, lcap = 0;
    char *line, sha[65];
    size_t len;
    int rc;

    if (g->meta.num_classes)
        return dp_error(DP_EINVAL, "--labels: '%s' has labels already",
                        g->o->input);
    if ((rc = cv_src_open_file(&s, path, cv_hashing(g))))
        return rc;
    for (;;) {
        const char *p;
        int64_t v[2];
        int i;

        if ((rc = cv_src_line(&s, &line, &len)) || !line)
            break;
        p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#' || *p == '%')
            continue;
        for (i = 0; i < 2 && !rc; i++) {
            while (i && (*p == ' ' || *p == '\t' || *p == ','))
                p++;
            if (cv_scan_i64(&p, &v[i]) || v[i] < 0 ||
                (*p && *p != ' ' && *p != '\t' && *p != ','))
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %" PRIu64 ": column %d: "
                              "expected a %s (non-negative integer)",
                              path, s.line, i + 1, i ? "label" : "node id");
        }
        if (rc)
            break;
        if (v[1] >= CV_MAX_LABEL) {
            rc = dp_error(DP_ERANGE,
                          "'%s' line %" PRIu64 ": label %" PRId64
                          " too large (labels must be below 2^53)",
                          path, s.line, v[1]);
            break;
        }
        if (g->num_nodes >= 0 && v[0] >= g->num_nodes) {
            rc = dp_error(DP_ERANGE,
                          "'%s' line %" PRIu64 ": node id %" PRId64
                          " out of range [0, %" PRId64 ") (%s)",
                          path, s.line, v[0], g->num_nodes, g->nodes_from);
            break;
        }
        if ((rc = DP_ALLOC_GROW(node, n + 1, ncap)) ||
            (rc = DP_ALLOC_GROW(lab, n + 1, lcap)))
            break;
        node[n] = v[0];
        lab[n++] = v[1];
        maxn = v[0] > maxn ? v[0] : maxn;
        maxl = v[1] > maxl ? v[1] : maxl;
    }
    cv_src_close(&s, rc ? NULL : sha, &k);
    if (!rc)
        rc = cv_graph_add_input(g, path, k, sha);
    if (!rc && (maxn >= CV_MAX_NODES || g->edges.max_id >= CV_MAX_NODES))
        rc = dp_error(DP_ERANGE,
                      "'%s': node id %" PRId64
                      " too large (ids must be below 2^62)",
                      path, maxn > g->edges.max_id ? maxn : g->edges.max_id);
    if (!rc && g->num_nodes < 0)
        g->num_nodes = g->edges.max_id > maxn ? g->edges.max_id + 1 : maxn + 1;
    if (!rc && !(out = dp_malloc_array(g->num_nodes ? (size_t)g->num_nodes : 1,
                                       sizeof(*out))))
        rc = DP_ENOMEM;
    if (!rc) {
        memset(out, 0xff, (size_t)g->num_nodes * sizeof(*out));
        for (k = 0; k < n; k++)
            out[node[k]] = lab[k];
        rc = cv_graph_write_i64(g, "label.npy", out, g->num_nodes);
        g->meta.num_classes = maxl + 1 > 0 ? maxl + 1 : 1;
    }
    free(node);
    free(lab);
    free(out);
    return rc;
}

static int read_input(struct cv_graph *g, const char *fmt, const char *in)
{
    if (!strcmp(fmt, "edgelist"))
        return cv_read_text(g, in, cv_parse_edgelist);
    if (!strcmp(fmt, "metis"))
        return cv_read_text(g, in, cv_parse_metis);
    if (!strcmp(fmt, "ogb"))
        return cv_read_ogb(g, in,
                           g->o->defer_feat ? CV_OGB_NO_FEAT : CV_OGB_ALL);
    if (!strcmp(fmt, "npy"))
        return cv_read_npy(g, in);
    if (!strcmp(fmt, "linqs"))
        return cv_read_linqs(g, in);
    if (!strcmp(fmt, "npz"))
        return cv_read_npz(g, in);
    if (!strcmp(fmt, "chunked"))
        return cv_read_chunked(g, in);
    if (!strcmp(fmt, "typed-npy"))
        return cv_read_typed_npy(g, in);
    return dp_error(DP_EUNSUPPORTED, "format '%s' is not supported", fmt);
}

/* o->out may be written: absent or --overwrite, and apart from the
 * input (--overwrite must never delete the input it reads). */
static int out_free(const struct dp_convert_opts *o)
{
    if (dp_exists(o->out) && !o->overwrite)
        return dp_error(DP_EEXIST,
                        "'%s' already exists (use --overwrite to "
                        "replace it)",
                        o->out);
    return dp_path_check_apart(o->out, o->input);
}

/* OUT.tmp, where OUT is written before it is installed (owned). */
static char *out_tmp(const char *out)
{
    char *tmp = dp_malloc(strlen(out) + 5);
    size_t i;

    if (!tmp)
        return NULL;
    strcpy(tmp, out);
    /* "out/" must give "out.tmp", not "out/.tmp". */
    for (i = strlen(tmp); i > 1 && tmp[i - 1] == '/'; i--)
        tmp[i - 1] = '\0';
    strcat(tmp, ".tmp");
    return tmp;
}

/* g, empty, for reading o->input (in layout fmt) into the folder tmp. */
static int graph_init(struct cv_graph *g, const struct dp_convert_opts *o,
                      const char *fmt, char *tmp)
{
    int64_t spill = 0;
    int rc;

    g->o = o;
    g->dir = tmp;
    g->edges.max_id = -1;
    g->edges.spill_dir = tmp;
    if (o->edge_spill >= 0)
        spill = o->edge_spill;
    else if ((rc = dp_env_size("DGLPART_EDGE_SPILL", &spill)))
        return rc;
    g->edges.spill_at = spill ? (uint64_t)spill : 1; /* 0: at once */
    g->num_nodes = o->num_nodes;
    snprintf(g->nodes_from, sizeof(g->nodes_from), "--num_nodes");
    g->meta.name = o->name ? dp_strdup(o->name) : derive_name(o->input, fmt);
    g->meta.source_format = dp_strdup(fmt);
    if (!g->meta.name || !g->meta.source_format)
        return DP_ENOMEM;
    g->cur_etype = -1;
    return 0;
}

static int convert_locked(const struct dp_convert_opts *o)
{
    static const char *const formats[] = { "auto",  "ogb",     "edgelist",
                                           "metis", "npy",     "linqs",
                                           "npz",   "chunked", "typed-npy" };
    struct cv_graph g;
    const char *fmt = o->format ? o->format : "auto";
    char *tmp = NULL;
    double t0 = dp_now();
    size_t i;
    int rc, known = 0;

    memset(&g, 0, sizeof(g));
    if (!o->input || !o->out)
        return dp_error(DP_EINVAL, "convert needs an input and --out");
    for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        known |= !strcmp(fmt, formats[i]);
    if (!known)
        return dp_error(DP_EINVAL,
                        "unknown format '%s' (expected auto, ogb, "
                        "edgelist, metis, npy, linqs, npz, chunked or "
                        "typed-npy)",
                        fmt);
    if (!dp_exists(o->input))
        return dp_error(DP_ENOENT, "'%s': no such file or folder", o->input);
    if ((rc = out_free(o)))
        return rc;
    if (!strcmp(fmt, "auto") && (rc = cv_detect(o->input, &fmt)))
        return rc;
    dp_log(DP_LOG_V, "'%s' read as %s", o->input, fmt);

    if (!(tmp = out_tmp(o->out)))
        return DP_ENOMEM;
    dp_rm_rf(tmp);
    if ((rc = dp_mkdir_p(tmp, 0755)) || (rc = graph_init(&g, o, fmt, tmp)))
        goto out;
    if ((rc = read_input(&g, fmt, o->input)))
        goto out;
    if (g.meta.num_ntypes && (rc = cv_typed_finish(&g)))
        goto out;
    if (!g.meta.num_ntypes && o->add_reverse_edges) {
        rc = dp_error(DP_EINVAL,
                      "--add_reverse_edges needs a typed graph "
                      "('%s' has no types; --undirected adds reverse edges)",
                      o->input);
        goto out;
    }
    if (o->labels && (rc = read_labels(&g, o->labels)))
        goto out;
    if (dp_verbose)
        dp_timer_report("read", t0);
    /* ids near INT64_MAX would overflow the count (max id + 1) and every
     * size made from it: no graph has 2^62 nodes */
    if (g.edges.max_id >= CV_MAX_NODES) {
        rc = dp_error(DP_ERANGE,
                      "'%s' line %" PRIu64 ": node id %" PRId64
                      " too large (ids must be below 2^62)",
                      g.edge_src ? g.edge_src : o->input, g.edges.max_line,
                      g.edges.max_id);
        goto out;
    }
    if (g.num_nodes < 0)
        g.num_nodes = g.edges.max_id + 1;
    if (!g.edges.n)
        dp_warn("'%s': no edges", o->input);
    if (g.edges.max_id >= g.num_nodes) {
        rc = dp_error(DP_ERANGE,
                      "'%s' line %" PRIu64 ": node id %" PRId64
                      " out of range [0, %" PRId64 ") (%s)",
                      g.edge_src ? g.edge_src : o->input, g.edges.max_line,
                      g.edges.max_id, g.num_nodes, g.nodes_from);
        goto out;
    }
    if (o->undirected && !strcmp(fmt, "metis"))
        dp_warn("'%s': METIS graphs list both directions already; "
                "--undirected doubles them again",
                o->input);
    if ((rc = cv_graph_write_csc(&g)))
        goto out;
    g.meta.num_nodes = g.num_nodes;
    if (g.meta.num_ntypes && (rc = cv_typed_check(&g)))
        goto out;
    if ((rc = dp_dataset_write_meta(tmp, &g.meta)))
        goto out;
    if ((rc = dp_install_dir(tmp, o->out)))
        goto out;
    if (dp_verbose)
        dp_timer_report("convert", t0);
out:
    if (rc && tmp)
        dp_rm_rf(tmp);
    cv_edges_release(&g.edges);
    free(g.edge_src);
    dp_dataset_meta_release(&g.meta);
    free(tmp);
    return rc;
}

int dp_convert(const struct dp_convert_opts *o)
{
    int lock = -1, rc;

    if (!o->input || !o->out)
        return dp_error(DP_EINVAL, "convert needs an input and --out");
    /* two runs into one output would delete each other's OUT.tmp */
    if ((rc = dp_output_lock(o->out, &lock)))
        return rc;
    rc = convert_locked(o);
    dp_output_unlock(o->out, lock);
    return rc;
}

/* sha256 of a file's size and first MiB. */
static int head_hash(const char *path, char sha[65])
{
    struct dp_buf b;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;
    ssize_t n = -1;

    dp_buf_init(&b, 0);
    if (fd >= 0 && fstat(fd, &st) == 0 &&
        !(rc = dp_buf_addf(&b, "%lld:", (long long)st.st_size)) &&
        !(rc = dp_buf_grow(&b, 1 << 20)))
        n = pread(fd, b.data + b.len, 1 << 20, 0);
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        dp_buf_release(&b);
        return dp_error(DP_EIO, "cannot read '%s': %s", path, strerror(errno));
    }
    dp_sha256_hex(b.data, b.len + (size_t)n, sha);
    dp_buf_release(&b);
    return 0;
}

/* How the ranks can read o->input in shares: DGL's chunked format as it
 * is, a plain edge list by byte ranges, a gzipped one or an OGB folder's
 * edge file by blocks of lines, a .npz (an OGB folder's data.npz too) by
 * ranges of entries (options that renumber edges across the whole graph
 * excluded); 0: they cannot. */
enum {
    SHARE_NONE,
    SHARE_CHUNKED,
    SHARE_EDGELIST,
    SHARE_GZ,
    SHARE_OGB,
    SHARE_NPZ
};

static int shareable(const struct dp_convert_opts *o)
{
    const char *fmt = o->format ? o->format : "auto";

    if (!strcmp(fmt, "auto") && cv_detect(o->input, &fmt))
        return SHARE_NONE;
    if (o->dedup || o->no_self_loops || o->labels || o->add_reverse_edges)
        return SHARE_NONE;
    if (!strcmp(fmt, "chunked") && !o->undirected && o->num_nodes < 0)
        return SHARE_CHUNKED;
    if (!strcmp(fmt, "edgelist") && !dp_is_dir(o->input))
        return cv_file_has_magic(o->input, "\x1f\x8b", 2) ? SHARE_GZ
                                                          : SHARE_EDGELIST;
    if (!strcmp(fmt, "ogb") && cv_ogb_shareable(o->input))
        return SHARE_OGB;
    if (!strcmp(fmt, "npz") && !dp_is_dir(o->input))
        return SHARE_NPZ;
    return SHARE_NONE;
}

/* The file of an OGB folder that holds its edges. */
static char *ogb_edges(const char *in)
{
    char *npz = dp_path_join(in, "raw/data.npz");

    if (npz && dp_exists(npz))
        return npz;
    free(npz);
    return dp_path_join(in, "raw/edge.csv.gz");
}

/* The same input on every rank, by what each can check cheaply: a chunked
 * folder's metadata.json, an edge list's size and first MiB. 0, or an
 * error naming this rank's file. */
static int same_input(const struct dp_convert_opts *o, int kind,
                      struct dp_comm *c)
{
    char sha[65] = "", root[65], *path;
    uint64_t size = 0;
    int rc;

    path = kind == SHARE_CHUNKED ? dp_path_join(o->input, "metadata.json")
           : kind == SHARE_OGB   ? ogb_edges(o->input)
                                 : dp_strdup(o->input);
    if (!path)
        rc = DP_ENOMEM;
    else if (kind == SHARE_CHUNKED)
        rc = dp_sha256_file(path, sha, &size);
    else
        rc = head_hash(path, sha);
    memcpy(root, sha, sizeof(root));
    if (dp_comm_bcast(c, root, sizeof(root), 0))
        rc = dp_error(DP_EIO, "cannot reach rank 0");
    else if (!rc && memcmp(root, sha, 64))
        rc = dp_error(DP_EINVAL,
                      "'%s' on %s differs from rank 0's (on %s): every rank "
                      "must see the same input",
                      path, dp_comm_host(c, dp_comm_rank(c)),
                      dp_comm_host(c, 0));
    free(path);
    return rc;
}

/* Rank 0 readies OUT.tmp as convert_locked does; *lock held. */
static int dist_begin(const struct dp_convert_opts *o, const char *tmp,
                      int *lock)
{
    int rc;

    if ((rc = dp_output_lock(o->out, lock)) || (rc = out_free(o)))
        return rc;
    dp_rm_rf(tmp);
    return dp_mkdir_p(tmp, 0755);
}

int dp_convert_dist(const struct dp_convert_opts *o, struct dp_comm *c)
{
    struct cv_graph g;
    struct cv_share sh;
    struct cv_eids ids;
    int64_t kind[2], edges = 0;
    char *tmp = NULL;
    double t0 = dp_now();
    int me = dp_comm_rank(c), lock = -1, rc, lrc = 0;

    memset(&g, 0, sizeof(g));
    memset(&ids, 0, sizeof(ids));
    if (!o->input || !o->out)
        return dp_error(DP_EINVAL, "convert needs an input and --out");
    /* every rank the same way, or none */
    kind[0] = shareable(o);
    kind[1] = -kind[0];
    if ((rc = dp_comm_allreduce_i64(c, kind, 2, DP_COMM_MIN)))
        return rc;
    if (!kind[0] || kind[0] != -kind[1])
        return DP_EUNSUPPORTED;
    if ((rc = dp_comm_agree(c, same_input(o, (int)kind[0], c))))
        return rc;
    if (!(tmp = out_tmp(o->out)))
        lrc = DP_ENOMEM;
    else if (me == 0)
        lrc = dist_begin(o, tmp, &lock);
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    memset(&sh, 0, sizeof(sh));
    sh.rank = me;
    sh.size = dp_comm_size(c);
    sh.e_lo = -1;
    g.share = &sh;
    lrc = graph_init(&g, o,
                     kind[0] == SHARE_CHUNKED ? "chunked"
                     : kind[0] == SHARE_OGB   ? "ogb"
                     : kind[0] == SHARE_NPZ   ? "npz"
                                              : "edgelist",
                     tmp);
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    if (kind[0] == SHARE_CHUNKED) {
        lrc = cv_read_chunked(&g, o->input);
        if (!lrc)
            lrc = cv_typed_finish(&g);
        ids.lo = sh.e_lo < 0 ? 0 : sh.e_lo;
        edges = sh.total;
        rc = dp_comm_agree(c, lrc);
    } else if (kind[0] == SHARE_GZ) {
        rc = cv_dist_read_gz(&g, c, o->input, &ids, &edges);
    } else if (kind[0] == SHARE_OGB) {
        rc = cv_read_ogb_dist(&g, c, o->input, &ids, &edges);
    } else if (kind[0] == SHARE_NPZ) {
        rc = cv_read_npz_dist(&g, c, o->input, &ids, &edges);
    } else {
        rc = cv_dist_read_edgelist(&g, c, o->input, &ids.lo, &edges);
    }
    if (rc)
        goto out;
    if (dp_verbose && me == 0)
        dp_timer_report("read (each rank its share)", t0);
    if ((rc = dp_comm_agree(c, cv_dist_csc(&g, c, &ids, edges))) ||
        /* an edge list's one input: rank 0 hashed it */
        (kind[0] == SHARE_CHUNKED &&
         (rc = dp_comm_agree(c, cv_dist_inputs(&g, c)))))
        goto out;
    if (me == 0) {
        g.meta.num_nodes = g.num_nodes;
        lrc = g.meta.num_ntypes ? cv_typed_check(&g) : 0;
        if (!lrc)
            lrc = dp_dataset_write_meta(tmp, &g.meta);
        if (!lrc)
            lrc = dp_install_dir(tmp, o->out);
    }
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    if (dp_verbose && me == 0)
        dp_timer_report("convert", t0);
out:
    if (me == 0 && rc && tmp && lock >= 0)
        dp_rm_rf(tmp);
    if (lock >= 0)
        dp_output_unlock(o->out, lock);
    cv_edges_release(&g.edges);
    cv_eids_release(&ids);
    free(g.edge_src);
    dp_dataset_meta_release(&g.meta);
    free(tmp);
    return rc;
}

int dp_convert_feat(const struct dp_convert_opts *o)
{
    struct cv_graph g;
    const char *fmt = o->format ? o->format : "auto";
    double t0 = dp_now();
    int rc;

    if (!strcmp(fmt, "auto") && (rc = cv_detect(o->input, &fmt)))
        return rc;
    if (strcmp(fmt, "ogb"))
        return 0;
    memset(&g, 0, sizeof(g));
    if ((rc = dp_dataset_read_meta(o->out, &g.meta)))
        return rc;
    if (g.meta.num_ntypes) { /* the typed reader wrote everything */
        dp_dataset_meta_release(&g.meta);
        return 0;
    }
    g.o = o;
    g.dir = (char *)o->out; /* not freed: cv_read_ogb only joins paths */
    g.edges.max_id = -1;
    g.num_nodes = g.meta.num_nodes;
    if (!(rc = cv_read_ogb(&g, o->input, CV_OGB_FEAT_ONLY)) &&
        g.meta.feat_dim > 0) {
        rc = dp_dataset_write_meta(o->out, &g.meta);
        if (!rc && dp_verbose)
            dp_timer_report("node features", t0);
    }
    dp_dataset_meta_release(&g.meta);
    return rc;
}
