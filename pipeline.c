/* `dglpart run` (and `dglpart` with flags first): resolve the dataset,
 * convert it once (cached under dataset/<name>-converted, keyed by the
 * sha256 of every input file), then partition into data/. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/comm.h"
#include "dglpart/convert.h"
#include "dglpart/dataset.h"
#include "dglpart/download.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/pipeline.h"
#include "dglpart/progress.h"

#define STAMP ".dglpart-input-sha256"

/* The default renames, told apart from the same text given by a user:
 * they apply to untyped datasets only. */
static const char default_ndata_name[] = DP_RUN_NDATA_NAME;

void dp_run_opts_init(struct dp_run_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->cache = "dataset";
    dp_partition_opts_init(&o->part);
    o->part.out = "data";
    /* DGL's distributed examples read ndata["features"] and ["labels"]:
     * partition_graph.py renames the datasets' feat and label so */
    o->part.ndata_name = default_ndata_name;
}

/* A --dataset value resolved to a local raw input. */
struct run_input {
    char *path;     /* file or folder to convert (owned) */
    char *name;     /* short name: cache folder and graph name (owned) */
    char *format;   /* convert --format: "auto" or the registry's (owned) */
    int undirected; /* the registry says: add reverse edges */
    int dedup, no_self_loops; /* and these convert flags (DGL's loading) */
};

static void input_release(struct run_input *in)
{
    free(in->path);
    free(in->name);
    free(in->format);
    memset(in, 0, sizeof(*in));
}

/* Resolve o->dataset (NULL: bundled Cora): an existing path, else a name in
 * the dataset registry or a URL, fetched by the download stage (a cached,
 * verified download is reused without any request). */
static int resolve_dataset(const struct dp_run_opts *o, struct run_input *in)
{
    const char *dataset = o->dataset, *name = dataset ? dataset : "cora";
    struct dp_download_opts dl;
    struct dp_fetched f;
    size_t len;
    int rc;

    memset(in, 0, sizeof(*in));
    if (dataset && !strstr(dataset, "://") &&
        (strchr(dataset, '/') || dp_exists(dataset))) {
        if (!dp_exists(dataset))
            return dp_error(DP_ENOENT, "dataset '%s' not found", dataset);
        in->path = dp_strdup(dataset);
        in->name = dp_strdup(dp_path_basename(dataset));
        in->format = dp_strdup("auto");
        if (!in->path || !in->name || !in->format) {
            input_release(in);
            return DP_ENOMEM;
        }
        /* short name: no extension, no trailing slash */
        len = strcspn(in->name, ".");
        if (len > 0)
            in->name[len] = 0;
        if (!*in->name || !strcmp(in->name, "/")) {
            free(in->name);
            in->name = dp_strdup("graph");
        }
        return in->name ? 0 : DP_ENOMEM;
    }
    dp_download_opts_init(&dl);
    dl.data_dir = o->data_dir;
    dl.mirror = o->mirror;
    if ((rc = dp_dataset_fetch(name, &dl, &f)))
        return rc;
    in->path = f.path;
    in->name = f.name;
    in->format = f.format;
    in->undirected = f.undirected;
    in->dedup = f.dedup;
    in->no_self_loops = f.no_self_loops;
    f.path = f.name = f.format = NULL;
    dp_fetched_release(&f);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the digest folds, in order: under path (sorted, recursive) each
 * name, then a regular file's sha256 or a folder's contents. The walk
 * lists them in ev as "N<name>\0" and "F<path>\0"; fold_events hashes
 * the files. */
static int walk_tree(struct dp_buf *ev, const char *path, int depth)
{
    struct stat st;
    int rc = 0;

    if (stat(path, &st))
        return dp_error(DP_EIO, "cannot stat '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d;
        struct dirent *de;
        char **names = NULL;
        size_t n = 0, cap = 0, i;

        if (depth > 8)
            return 0;
        d = opendir(path);
        if (!d)
            return dp_error(DP_EIO, "cannot open '%s': %s", path,
                            strerror(errno));
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            if ((rc = DP_ALLOC_GROW(names, n + 1, cap)))
                break;
            if (!(names[n] = dp_strdup(de->d_name))) {
                rc = DP_ENOMEM;
                break;
            }
            n++;
        }
        closedir(d);
        if (!rc && n) /* an empty folder has no list to sort */
            qsort(names, n, sizeof(*names), cmp_str);
        for (i = 0; i < n; i++) {
            char *sub = rc ? NULL : dp_path_join(path, names[i]);

            if (!rc && sub && !(rc = dp_buf_addf(ev, "N%s", names[i])) &&
                !(rc = dp_buf_add(ev, "", 1)))
                rc = walk_tree(ev, sub, depth + 1);
            free(sub);
            free(names[i]);
        }
        free(names);
        return rc;
    }
    if (!S_ISREG(st.st_mode))
        return 0;
    if (!(rc = dp_buf_addf(ev, "F%s", path)))
        rc = dp_buf_add(ev, "", 1);
    return rc;
}

/* Fold the walk's events into h, the k-th file's sha256 from hex[k]
 * (NULL: hashed here). */
static int fold_events(struct dp_sha256 *h, const struct dp_buf *ev,
                       const char (*hex)[64])
{
    const char *p = ev->data, *end = p ? p + ev->len : NULL;
    size_t k = 0;
    uint64_t size;
    char mine[65];
    int rc;

    for (; p && p < end; p += strlen(p) + 1) {
        if (*p == 'N') {
            dp_sha256_update(h, p + 1, strlen(p + 1) + 1);
            continue;
        }
        if (hex) {
            dp_sha256_update(h, hex[k++], 64);
        } else {
            if ((rc = dp_sha256_file(p + 1, mine, &size)))
                return rc;
            dp_sha256_update(h, mine, 64);
        }
    }
    return 0;
}

/* The cache's digest: the convert options, then the input's tree. */
static struct dp_sha256 *digest_start(const struct run_input *in)
{
    struct dp_sha256 *h = dp_sha256_new();
    char opts[128], *at;

    if (!h) {
        dp_error(DP_ENOMEM, "out of memory");
        return NULL;
    }
    /* the convert options are part of what the cache holds */
    snprintf(opts, sizeof(opts),
             "format=%s undirected=%d dedup=%d no_self_loops=%d", in->format,
             in->undirected, in->dedup, in->no_self_loops);
    dp_sha256_update(h, opts, strlen(opts) + 1);
    /* and where the input is: the cache names the files it reads in place
     * (a chunked input's features), so a moved input converts again */
    at = realpath(in->path, NULL);
    dp_sha256_update(h, at ? at : in->path, strlen(at ? at : in->path) + 1);
    free(at);
    return h;
}

static int input_digest(const struct run_input *in, char out[65])
{
    struct dp_sha256 *h = digest_start(in);
    struct dp_buf ev;
    int rc;

    if (!h)
        return DP_ENOMEM;
    dp_buf_init(&ev, 0);
    if (!(rc = walk_tree(&ev, in->path, 0)))
        rc = fold_events(h, &ev, NULL);
    dp_sha256_final(h, out);
    dp_buf_release(&ev);
    return rc;
}

/* input_digest over the ranks: rank 0 walks the tree, each rank hashes
 * every P-th file, and every rank folds the same sequence. */
static int dist_digest(struct dp_comm *c, const struct run_input *in,
                       char out[65])
{
    struct input_hash {
        int64_t k;
        char hex[64];
    } *mine = NULL, *all = NULL;
    int P = dp_comm_size(c), me = dp_comm_rank(c), q, rc, lrc = 0;
    struct dp_sha256 *h = NULL;
    char(*hex)[64] = NULL;
    size_t *counts = NULL, got = 0;
    int64_t nf = 0, n = 0, k;
    struct dp_buf ev;
    uint64_t len, size;
    const char *p;

    dp_buf_init(&ev, 0);
    if (me == 0)
        lrc = walk_tree(&ev, in->path, 0);
    len = ev.len;
    if ((rc = dp_comm_agree(c, lrc)) ||
        (rc = dp_comm_bcast(c, &len, sizeof(len), 0)))
        goto out;
    if (me && len)
        lrc = dp_buf_grow(&ev, (size_t)len + 1);
    if ((rc = dp_comm_agree(c, lrc)) ||
        (len && (rc = dp_comm_bcast(c, ev.data, (size_t)len, 0))))
        goto out;
    ev.len = (size_t)len;
    if (len && ev.data[len - 1]) /* rank 0's walk ends every event */
        dp_comm_bad(c, "the end of the input's file list", 1, 0, 1);
    for (p = ev.data; p && p < ev.data + len; p += strlen(p) + 1)
        nf += *p == 'F';
    mine = dp_malloc_array((size_t)nf / (size_t)P + 1, sizeof(*mine));
    hex = dp_calloc((size_t)nf + 1, sizeof(*hex));
    counts = dp_malloc_array((size_t)P, sizeof(*counts));
    if (!mine || !hex || !counts)
        lrc = DP_ENOMEM;
    for (p = ev.data, k = 0; !lrc && p && p < ev.data + len;
         p += strlen(p) + 1) {
        char sha[65];

        if (*p != 'F')
            continue;
        if (k++ % P != me)
            continue;
        if (!(lrc = dp_sha256_file(p + 1, sha, &size))) {
            mine[n].k = k - 1;
            memcpy(mine[n++].hex, sha, 64);
        }
    }
    if ((rc = dp_comm_agree(c, lrc)) ||
        (rc = dp_comm_allgatherv(c, mine, (size_t)n * sizeof(*mine),
                                 (void **)&all, counts)))
        goto out;
    for (q = 0; q < P; q++)
        got += counts[q];
    if (got != (size_t)nf * sizeof(*all))
        dp_comm_bad(c, "bytes of file hashes", (int64_t)got, 0, 0);
    for (k = 0; k < nf; k++) {
        dp_comm_check(c, "a file's number", all[k].k, 0, nf);
        if (hex[all[k].k][0]) /* a sha256 in hex has no NUL */
            dp_comm_bad(c, "a file hashed twice, number", all[k].k, 0, 0);
        memcpy(hex[all[k].k], all[k].hex, 64);
    }
    if (!(h = digest_start(in)))
        lrc = DP_ENOMEM;
    else
        lrc = fold_events(h, &ev, (const char(*)[64])hex);
    if (h)
        dp_sha256_final(h, out);
    rc = dp_comm_agree(c, lrc);
out:
    dp_buf_release(&ev);
    free(mine);
    free(all);
    free(hex);
    free(counts);
    return rc;
}

/* OGB node features are the slowest file to parse and nothing before the
 * parts needs them: a fresh convert leaves them to this thread, which
 * runs beside METIS's single core, and the partition waits for it just
 * before writing the parts. */
struct feat_job {
    struct dp_convert_opts co;
    pthread_t th;
    int started, rc;
    char msg[1024];
};

static void *feat_main(void *arg)
{
    struct feat_job *j = arg;

    j->rc = dp_convert_feat(&j->co);
    if (j->rc) /* messages are per thread: carry it over */
        snprintf(j->msg, sizeof(j->msg), "%s", dp_errmsg());
    return NULL;
}

static int feat_wait(void *arg)
{
    struct feat_job *j = arg;

    if (j->started) {
        pthread_join(j->th, NULL);
        j->started = 0;
    }
    return j->rc ? dp_error(j->rc, "%s", j->msg) : 0;
}

/* 1 when dir's meta.json says it has eids.npy. */
static int has_eids(const char *dir)
{
    struct dp_dataset_meta m;
    int yes;

    if (dp_dataset_read_meta(dir, &m))
        return 0;
    yes = !m.no_eids;
    dp_dataset_meta_release(&m);
    return yes;
}

/* What the partition reads input edge ids for (partition.c's check). */
static int need_eids(const struct dp_partition_opts *p)
{
    return p->num_parts == 1 || (!p->no_orig_ids && !p->no_orig_eids);
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The disk a whole run needs and has: the converted dataset and convert's
 * scratch files in the cache folder, then the partition's output and
 * scratch beside the dataset; one file system is counted once. */
struct run_disk {
    int64_t need, avail;
    char where[512];
};

static void run_disk(const struct dp_run_opts *o,
                     const struct dp_convert_estimate *est,
                     const struct dp_budget *b, struct run_disk *d)
{
    uint64_t cdev, odev;
    int64_t cfree = dp_disk_free(o->cache, &cdev);
    int64_t ofree = dp_disk_free(o->part.out, &odev);
    int64_t data = est->shape.total, cneed = data + est->scratch;

    if (cdev == odev) {
        d->need = max64(cneed, data + b->disk);
        d->avail = cfree;
        snprintf(d->where, sizeof(d->where), "'%s' and '%s'", o->cache,
                 o->part.out);
    } else if (ofree >= 0 && (cfree < 0 || ofree - b->disk < cfree - cneed)) {
        d->need = b->disk; /* the tighter of the two */
        d->avail = ofree;
        snprintf(d->where, sizeof(d->where), "'%s'", o->part.out);
    } else {
        d->need = cneed;
        d->avail = cfree;
        snprintf(d->where, sizeof(d->where), "'%s'", o->cache);
    }
}

/* The whole run planned from the raw input, before converting: convert's
 * peak and the partition's (budget.c's model on the estimated sizes, so
 * the spilling it picks is the one the partition will pick), and the
 * disk of both. A run that cannot fit is refused in one line naming both
 * figures; an input with no cheap estimate is planned after converting,
 * as before. */
static int plan_run(const struct dp_run_opts *o, const struct run_input *in,
                    struct dp_convert_opts *co)
{
    struct dp_convert_estimate est;
    struct dp_partition_opts po = o->part;
    struct dp_budget b;
    struct run_disk d;
    char mneed[32], mhave[32], dneed[32], dhave[32];
    int64_t mem, n, e;
    int rc, short_mem, short_disk;

    if ((rc = dp_convert_estimate(co, &est))) {
        dp_log(DP_LOG_V, "plan: none before converting: %s", dp_errmsg());
        return 0;
    }
    /* the partition refuses that itself, naming it */
    if (o->part.num_parts > est.shape.num_nodes)
        return 0;
    po.discard_edges = po.lean_disk = o->no_cache;
    if ((rc = dp_partition_plan(&po, &est.shape, &b)))
        return rc;
    /* convert's edge arrays go to scratch files when they would take the
     * room the partition keeps free, as the partition's graphs do */
    if (b.mem_avail >= 0 && est.mem > DP_BUDGET_HEADROOM * b.mem_avail &&
        est.mem_lean < est.mem) {
        co->edge_spill = 0;
        est.mem = est.mem_lean;
        est.scratch = est.scratch_lean;
    }
    mem = max64(est.mem, b.mem);
    run_disk(o, &est, &b, &d);
    n = est.shape.num_nodes;
    e = est.shape.num_edges;
    short_mem = b.mem_avail >= 0 && mem > b.mem_avail;
    short_disk = d.avail >= 0 && d.need > d.avail;
    dp_fmt_bytes((uint64_t)mem, mneed, sizeof(mneed));
    dp_fmt_bytes((uint64_t)max64(b.mem_avail, 0), mhave, sizeof(mhave));
    dp_fmt_bytes((uint64_t)d.need, dneed, sizeof(dneed));
    dp_fmt_bytes((uint64_t)max64(d.avail, 0), dhave, sizeof(dhave));
    if (short_mem || short_disk)
        return dp_error(
            DP_ETOOBIG,
            "not enough %s to convert and partition '%s' (%s%" PRId64
            " nodes, %" PRId64 " edges, from %s) into %d parts: memory "
            "needs about %s, %s available (%s); disk needs about %s, %s free "
            "for %s",
            short_mem && short_disk ? "memory and disk"
            : short_mem             ? "memory"
                                    : "disk",
            in->name, est.exact ? "" : "about ", n, e, est.how,
            o->part.num_parts, mneed, mhave,
            o->part.mem_limit ? "--mem_limit" : "MemAvailable", dneed, dhave,
            d.where);
    dp_log(DP_LOG_V,
           "plan before converting (%s%" PRId64 " nodes, %" PRId64
           " edges, from %s): memory about %s of %s (%s), disk about %s of %s "
           "free for %s%s%s",
           est.exact ? "" : "about ", n, e, est.how, mneed, mhave,
           o->part.mem_limit ? "--mem_limit" : "MemAvailable", dneed, dhave,
           d.where, co->edge_spill ? "" : "; convert's edges in scratch files",
           b.lean ? "; every graph in a scratch file" : "");
    return 0;
}

/* What the run converts in with: in into dir. */
static void convert_opts(const struct dp_run_opts *o,
                         const struct run_input *in, const char *dir,
                         struct dp_convert_opts *co)
{
    dp_convert_opts_init(co);
    co->input = in->path;
    co->out = dir;
    co->name = in->name;
    /* a dataset that names its graph (DGL's chunked metadata.json) keeps
     * that name, as DGL's pipeline does */
    co->name_fallback = 1;
    co->format = in->format;
    co->undirected = in->undirected;
    co->dedup = in->dedup;
    co->no_self_loops = in->no_self_loops;
    co->no_eids = !need_eids(&o->part);
    co->overwrite = 1;
    co->defer_feat = 1;
    /* the scratch conversion goes at the end, and its record with it */
    co->no_input_hash = o->no_cache;
}

/* Whether dir's stamp is digest, and dir holds what the run needs. */
static int stamp_current(const struct dp_run_opts *o, const char *dir,
                         const char digest[65])
{
    char *stamp = dp_path_join(dir, STAMP), *old = NULL;
    size_t len;
    int cur = stamp && !dp_read_file(stamp, 4096, &old, &len) && len >= 64 &&
              !memcmp(old, digest, 64) &&
              (!need_eids(&o->part) || has_eids(dir));

    free(stamp);
    free(old);
    return cur;
}

/* Convert input into dir unless dir's stamp says it is already that (into
 * scratch instead, when not NULL); the node features may still be
 * converting in job when this returns, and *fresh says the stamp is to be
 * written once they are done. Without
 * need_eids the input edge ids are left out (a third of the cache at
 * int32), and a cache that has them serves as well. */
static int cached_convert(const struct dp_run_opts *o,
                          const struct run_input *in, const char *dir,
                          const char *scratch, int plan, struct feat_job *job,
                          char digest[65], int *fresh)
{
    struct dp_convert_opts *co = &job->co;
    char *stamp = dp_path_join(dir, STAMP), *old = NULL;
    size_t len;
    int rc = 0, have;

    *fresh = 0;
    if (!stamp)
        return DP_ENOMEM;
    have = !dp_read_file(stamp, 4096, &old, &len) && len >= 64;
    /* a scratch copy writes no stamp: with none to compare, no digest */
    if ((have || !scratch) && (rc = input_digest(in, digest)))
        goto out;
    if (have && !memcmp(old, digest, 64) &&
        (!need_eids(&o->part) || has_eids(dir))) {
        dp_log(DP_LOG_INFO, "using the converted dataset in '%s'", dir);
        goto out;
    }
    if (scratch)
        dir = scratch;
    convert_opts(o, in, dir, co);
    /* nothing is written before the plan, the cache folder included */
    if ((plan && (rc = plan_run(o, in, co))) ||
        (rc = dp_mkdir_p(o->cache, 0777)))
        goto out;
    dp_log(DP_LOG_INFO, "converting '%s' into '%s'%s", in->path, dir,
           scratch ? " (removed when done)" : "");
    if ((rc = dp_convert(co)))
        goto out;
    *fresh = 1;
    if (pthread_create(&job->th, NULL, feat_main, job) == 0)
        job->started = 1;
    else
        feat_main(job); /* no thread: convert them now */
out:
    free(stamp);
    free(old);
    return rc;
}

/* The stamp goes last: a run that stops before the features are in
 * converts again. */
static int write_stamp(const char *dir, char digest[65])
{
    char *stamp = dp_path_join(dir, STAMP);
    int rc;

    if (!stamp)
        return DP_ENOMEM;
    digest[64] = '\n';
    rc = dp_write_file(stamp, digest, 65);
    free(stamp);
    return rc;
}

/* CACHE/NAME-converted.scratch-PID: where --no_cache converts. Those of
 * runs no longer alive (killed before they could remove theirs) go
 * first. Owned. */
static char *scratch_dir(const char *cache, const char *sub)
{
    DIR *d = opendir(cache);
    struct dirent *de;
    size_t n = strlen(sub);
    char name[PATH_MAX];

    while (d && (de = readdir(d))) {
        char *end, *path;
        long pid;

        if (strncmp(de->d_name, sub, n) ||
            strncmp(de->d_name + n, ".scratch-", 9))
            continue;
        /* NAME-converted.scratch-PID, or convert's PID.tmp */
        pid = strtol(de->d_name + n + 9, &end, 10);
        if ((*end && strcmp(end, ".tmp")) || pid <= 0 ||
            !(kill((pid_t)pid, 0) && errno == ESRCH))
            continue;
        if ((path = dp_path_join(cache, de->d_name))) {
            dp_rm_rf(path);
            free(path);
        }
    }
    if (d)
        closedir(d);
    snprintf(name, sizeof(name), "%s.scratch-%ld", sub, (long)getpid());
    return dp_path_join(cache, name);
}

/* The cache folder holding the converted copy of o->dataset: resolved,
 * downloaded and converted when its stamp does not match the inputs.
 * *dir owned by the caller. */
int dp_run_convert(const struct dp_run_opts *o, char **dir)
{
    struct run_input in;
    struct feat_job job;
    char *sub = NULL, digest[65];
    int rc, frc, fresh = 0;

    memset(&job, 0, sizeof(job));
    *dir = NULL;
    if ((rc = resolve_dataset(o, &in)))
        return rc;
    if (!(sub = dp_malloc(strlen(in.name) + 16))) {
        rc = DP_ENOMEM;
        goto out;
    }
    sprintf(sub, "%s-converted", in.name);
    if (!(*dir = dp_path_join(o->cache, sub))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = cached_convert(o, &in, *dir, NULL, 0, &job, digest, &fresh)))
        goto out;
    if (fresh) {
        frc = feat_wait(&job);
        rc = frc ? frc : write_stamp(*dir, digest);
    }
out:
    if (job.started)
        feat_wait(&job);
    input_release(&in);
    free(sub);
    if (rc) {
        free(*dir);
        *dir = NULL;
    }
    return rc;
}

/* What the converted dataset decides: the graph name (its own, unless
 * --graph_name), and for a typed one no default renames: DGL's typed
 * tools keep the names given (dispatch_data.py, rgcn's examples). */
static int dataset_defaults(struct dp_run_opts *o, int *own_name,
                            int *typed_names)
{
    struct dp_dataset_meta m;
    int rc;

    if ((rc = dp_dataset_read_meta(o->part.dataset, &m)))
        return rc;
    if (!o->part.graph_name) {
        if (!(o->part.graph_name = dp_strdup(m.name))) {
            dp_dataset_meta_release(&m);
            return DP_ENOMEM;
        }
        *own_name = 1;
    }
    if (m.num_ntypes && o->part.ndata_name == default_ndata_name) {
        o->part.ndata_name = NULL;
        *typed_names = 1;
    }
    dp_dataset_meta_release(&m);
    return 0;
}

int dp_run(struct dp_run_opts *o)
{
    struct run_input in;
    char *dir = NULL, *sub = NULL, *cfg = NULL, *mark = NULL, digest[65];
    char *scratch = NULL;
    struct feat_job job;
    int rc, frc, own_name = 0, fresh = 0, typed_names = 0;

    if (dp_comm_distributed())
        return dp_run_mpi(o);
    memset(&job, 0, sizeof(job));
    if ((rc = resolve_dataset(o, &in)))
        return rc;
    if (!(sub = dp_malloc(strlen(in.name) + 16))) {
        rc = DP_ENOMEM;
        goto out;
    }
    sprintf(sub, "%s-converted", in.name);
    if (!(dir = dp_path_join(o->cache, sub))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (o->no_cache && !(scratch = scratch_dir(o->cache, sub))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = cached_convert(o, &in, dir, scratch, 1, &job, digest, &fresh)))
        goto out;
    if (fresh) {
        o->part.ready = feat_wait;
        o->part.ready_arg = &job;
    }
    /* a scratch copy's edge files go as soon as the parts are past them */
    o->part.discard_edges = fresh && scratch;
    o->part.lean_disk = o->no_cache;
    o->part.fresh = fresh;
    o->part.dataset = fresh && scratch ? scratch : dir;
    if ((rc = dataset_defaults(o, &own_name, &typed_names)))
        goto out;
    /* Like partition_graph.py, a rerun replaces data/, but only when it
     * holds an earlier dglpart output. */
    mark = dp_path_join(o->part.out, "partition-stats.json");
    if (!mark) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (dp_exists(mark))
        o->part.overwrite = 1;
    rc = dp_partition(&o->part);
    if (fresh) { /* the cache is complete whatever became of the partition */
        char msg[1024];

        snprintf(msg, sizeof(msg), "%s", dp_errmsg());
        if (!(frc = feat_wait(&job)) && !scratch)
            frc = write_stamp(dir, digest);
        if (rc) /* the partition's own message stands */
            dp_error(rc, "%s", msg);
        else
            rc = frc;
    }
    if (rc)
        goto out;
    free(sub);
    sub = dp_malloc(strlen(o->part.graph_name) + 8);
    if (!sub) {
        rc = DP_ENOMEM;
        goto out;
    }
    sprintf(sub, "%s.json", o->part.graph_name);
    cfg = dp_path_join(o->part.out, sub);
    if (!cfg) {
        rc = DP_ENOMEM;
        goto out;
    }
    printf("config: %s\n", cfg);
out:
    if (job.started) /* failed before the partition: still join */
        feat_wait(&job);
    if (scratch)
        dp_rm_rf(scratch);
    o->part.discard_edges = o->part.lean_disk = o->part.fresh = 0;
    if (own_name) {
        free((char *)o->part.graph_name);
        o->part.graph_name = NULL;
    }
    if (typed_names)
        o->part.ndata_name = default_ndata_name;
    o->part.dataset = NULL;
    o->part.ready = NULL;
    o->part.ready_arg = NULL;
    input_release(&in);
    free(dir);
    free(scratch);
    free(sub);
    free(cfg);
    free(mark);
    return rc;
}

/* A converted dataset folder given as the dataset is used as it is. */
static int is_converted(const char *path)
{
    struct dp_dataset_meta m;

    if (!path || !dp_is_dir(path) || dp_dataset_read_meta(path, &m))
        return 0;
    dp_dataset_meta_release(&m);
    return 1;
}

/* With one cache folder for every rank: a local input the ranks convert
 * together (dp_convert_dist), unless the cache's stamp says it is there.
 * 0 and *dir (owned), or DP_EUNSUPPORTED on every rank, with nothing
 * done, when the input is not one they can share. */
static int mpi_convert_together(struct dp_run_opts *o, struct dp_comm *c,
                                char **dir)
{
    struct run_input in;
    struct dp_convert_opts co;
    char digest[65], *sub = NULL;
    int64_t local;
    int rc, lrc = 0, me = dp_comm_rank(c);

    *dir = NULL;
    memset(&in, 0, sizeof(in));
    /* a path every rank sees: resolving it downloads nothing */
    local = o->dataset && !strstr(o->dataset, "://") && dp_exists(o->dataset);
    if ((rc = dp_comm_allreduce_i64(c, &local, 1, DP_COMM_MIN)))
        return rc;
    if (!local)
        return DP_EUNSUPPORTED;
    lrc = resolve_dataset(o, &in);
    if (!lrc && !(sub = dp_malloc(strlen(in.name) + 16)))
        lrc = DP_ENOMEM;
    if (!lrc) {
        sprintf(sub, "%s-converted", in.name);
        if (!(*dir = dp_path_join(o->cache, sub)))
            lrc = DP_ENOMEM;
    }
    if ((rc = dp_comm_agree(c, lrc)) || (rc = dist_digest(c, &in, digest)))
        goto out;
    local = me == 0 && stamp_current(o, *dir, digest);
    if ((rc = dp_comm_bcast(c, &local, sizeof(local), 0)))
        goto out;
    if (local) {
        if (me == 0)
            dp_log(DP_LOG_INFO, "using the converted dataset in '%s'", *dir);
        goto out;
    }
    convert_opts(o, &in, *dir, &co);
    if (me == 0)
        dp_log(DP_LOG_INFO, "converting '%s' into '%s' on %d ranks", in.path,
               *dir, dp_comm_size(c));
    if ((rc = dp_convert_dist(&co, c)))
        goto out;
    /* the stamp goes last, as on one machine */
    if (me == 0)
        lrc = write_stamp(*dir, digest);
    rc = dp_comm_agree(c, lrc);
out:
    if (rc) {
        free(*dir);
        *dir = NULL;
    }
    input_release(&in);
    free(sub);
    return rc;
}

/* The converted dataset on every rank: converted together into one cache
 * folder they all see where they can, else by the lowest rank writing
 * into each cache folder, the others waiting; the path is the same on
 * all. */
static int mpi_dataset(struct dp_run_opts *o, struct dp_comm *c, char **dir)
{
    int first, rc, lrc = 0;
    int64_t apart;
    uint64_t len;

    *dir = NULL;
    if (is_converted(o->dataset))
        return (*dir = dp_strdup(o->dataset)) ? 0 : DP_ENOMEM;
    if ((rc = dp_comm_shared_dir(c, o->cache, &first)))
        return rc;
    apart = first != 0;
    if ((rc = dp_comm_allreduce_i64(c, &apart, 1, DP_COMM_MAX)))
        return rc;
    if (!apart && dp_comm_size(c) > 1 &&
        (rc = mpi_convert_together(o, c, dir)) != DP_EUNSUPPORTED)
        return rc;
    if (first == dp_comm_rank(c))
        lrc = dp_run_convert(o, dir);
    if ((rc = dp_comm_agree(c, lrc)))
        return rc;
    /* rank 0 converted, so it has the path */
    len = *dir ? strlen(*dir) + 1 : 0;
    if ((rc = dp_comm_bcast(c, &len, sizeof(len), 0)))
        return rc;
    if (!*dir && !(*dir = dp_malloc(len)))
        return DP_ENOMEM;
    return dp_comm_bcast(c, *dir, len, 0);
}

static int run_mpi(struct dp_run_opts *o, struct dp_comm *c)
{
    char *dir = NULL, *mark = NULL, *cfg = NULL, file[512];
    int rc, own_name = 0, typed_names = 0;

    if (o->no_cache) {
        rc = dp_error(DP_EINVAL, "--no_cache does not run under mpirun: the "
                                 "converted dataset is what every rank reads");
        return dp_comm_agree(c, rc);
    }
    if ((rc = mpi_dataset(o, c, &dir)))
        return rc;
    o->part.dataset = dir;
    rc = dataset_defaults(o, &own_name, &typed_names);
    if ((rc = dp_comm_agree(c, rc)))
        goto out;
    /* a rerun replaces an earlier dglpart output, rank by rank */
    mark = dp_path_join(o->part.out, "partition-stats.json");
    if (!mark) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (dp_exists(mark))
        o->part.overwrite = 1;
    if ((rc = dp_partition_dist(&o->part, c)))
        goto out;
    snprintf(file, sizeof(file), "%s.json", o->part.graph_name);
    if (!(cfg = dp_path_join(o->part.out, file))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (dp_comm_rank(c) == 0)
        printf("config: %s\n", cfg);
out:
    if (own_name) {
        free((char *)o->part.graph_name);
        o->part.graph_name = NULL;
    }
    if (typed_names)
        o->part.ndata_name = default_ndata_name;
    o->part.dataset = NULL;
    free(dir);
    free(mark);
    free(cfg);
    return rc;
}

int dp_run_mpi(struct dp_run_opts *o)
{
    struct dp_comm *c;
    int rc;

    if ((rc = dp_comm_init(&c)))
        return rc;
    rc = run_mpi(o, c);
    return dp_comm_exit(c, rc);
}
