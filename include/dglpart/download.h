/* The download stage: the dataset registry, a resumable verified fetcher
 * (libcurl) and a safe unpacker (libarchive). dp_dataset_fetch is the one
 * call the all-in-one command needs: name or URL in, local folder out. */
#ifndef DGLPART_DOWNLOAD_H
#define DGLPART_DOWNLOAD_H

#include <stdint.h>

/* One known dataset (datasets/registry.json, compiled into the binary). */
struct dp_registry_entry {
    char *name;        /* "ogbn-products" */
    char *description; /* one line */
    char **urls;       /* tried in order; NULL for bundled datasets */
    int nurls;
    uint64_t size;        /* archive bytes; 0 unknown */
    int size_exact;       /* size is checked, not only shown */
    uint64_t unpacked;    /* unpacked bytes when known (zip-bomb limit) */
    char sha256[65];      /* "" when unknown */
    char *archive;        /* "zip", "tar" or "none" */
    char *layout;         /* free text: what the archive holds */
    char *folder;         /* folder under the data dir ("ogbn_products") */
    char *format;         /* convert --format ("ogb", "linqs", ...) */
    int undirected;       /* edges stored once: convert with --undirected */
    int dedup;            /* convert with --dedup, as DGL loads it */
    int no_self_loops;    /* convert with --no_self_loops, as DGL loads it */
    char *bundled;        /* folder under datasets/ (no download), or NULL */
    int64_t nodes, edges; /* as published; -1 unknown */
    int64_t dgl_edges;    /* edges once DGL (or OGB's DGL loader) has loaded
                             it, which the convert flags reproduce; -1 */
};

struct dp_registry {
    struct dp_registry_entry *e;
    int n;
};

/* Load the compiled-in registry; when $DGLPART_REGISTRY names a JSON file of
 * the same format its entries are added (replacing those with the same
 * name). *r is owned by the caller: dp_registry_release it. */
int dp_registry_load(struct dp_registry *r);
void dp_registry_release(struct dp_registry *r);
/* Find by name ("ogbn-arxiv") or folder ("ogbn_arxiv"); borrowed or NULL. */
const struct dp_registry_entry *dp_registry_find(const struct dp_registry *r,
                                                 const char *name);
/* Parse a registry JSON document (len bytes); what = name for messages. */
int dp_registry_parse(struct dp_registry *r, const char *json, size_t len,
                      const char *what);
/* Folder holding the bundled datasets (cora/, citeseer/): $DGLPART_DATASETS,
 * else next to the executable (datasets/, ../share/dglpart/datasets,
 * ../../datasets). Malloc'd, or NULL with DP_ENOENT recorded. */
char *dp_bundled_dir(void);

struct dp_download_opts {
    const char *data_dir; /* NULL: $DGLPART_DATA_DIR, else "./dataset" */
    const char *mirror;   /* NULL: $DGLPART_MIRROR; replaces scheme://host */
    const char *sha256;   /* expected hex digest; NULL: the registry's */
    int retries;          /* attempts after a failure without progress */
    long timeout;         /* seconds: connect limit and stall limit */
    int no_progress;      /* no bar even on a TTY (summary line only) */
    int keep_archive;     /* keep the archive next to the folder */
    double bomb_factor;   /* unpacked bytes allowed per archive byte */
};

/* Defaults: retries 5, timeout 60, bomb_factor 50, everything else off. */
void dp_download_opts_init(struct dp_download_opts *o);
/* The data dir o selects (borrowed: o->data_dir, $DGLPART_DATA_DIR or
 * "dataset"). */
const char *dp_download_data_dir(const struct dp_download_opts *o);
/* url with its scheme://host[:port] replaced by mirror (mirror may carry a
 * path prefix; a trailing '/' is ignored); malloc'd, NULL on ENOMEM. */
char *dp_mirror_url(const char *url, const char *mirror);

/* Fetch url into dest: bytes go to dest.part, resumed with Range after a
 * drop (in this run, with retries and exponential backoff, and in later
 * runs), then size (when expect_size != 0) and sha256 (when expect_sha is
 * non-empty; "" computes the digest without checking it, NULL skips it)
 * are checked, and dest.part is renamed to dest. A digest
 * mismatch removes dest.part. label names the transfer in the progress
 * bar. sha_out (may be NULL) gets the digest, or "" when not computed. */
int dp_download_file(const char *url, const char *dest, const char *label,
                     const struct dp_download_opts *o, uint64_t expect_size,
                     const char *expect_sha, char sha_out[65]);

/* Unpack a zip or tar archive into dir, which must not exist: entries go to
 * dir.unpack (absolute paths, '..', links and device entries are refused;
 * output past max_bytes stops with DP_ETOOBIG), then dir.unpack is renamed
 * to dir. With strip_single, an archive whose entries all sit under one top
 * folder has that folder become dir. Nothing is left at dir on failure.
 * *unpacked (may be NULL) gets the bytes written. */
int dp_unpack(const char *archive, const char *dir, uint64_t max_bytes,
              int strip_single, uint64_t *unpacked);

/* What dp_dataset_fetch hands back; release with dp_fetched_release. */
struct dp_fetched {
    char *name;     /* registry name or the URL's stem (owned) */
    char *path;     /* local folder (or file, for a URL to a plain file);
                       give it to dp_convert as input (owned) */
    char *format;   /* convert --format: registry's, or "auto" (owned) */
    int undirected; /* the registry says edges are stored once */
    int dedup;      /* the registry's convert flags (dp_registry_entry) */
    int no_self_loops;
    char sha256[65]; /* of the downloaded archive; "" unknown / bundled */
    uint64_t size;   /* archive bytes; 0 for bundled */
    int cached;      /* 1: nothing was downloaded this time */
    int bundled;     /* 1: a dataset shipped in datasets/ */
};

/* Make name_or_url available locally: a registry name, a bundled dataset
 * or an http(s):// or file:// URL. A folder already complete (its stamp
 * DIR/.dglpart-download.json matches the URL and expected digest) is
 * reused without any request. *out is set only on success. */
int dp_dataset_fetch(const char *name_or_url, const struct dp_download_opts *o,
                     struct dp_fetched *out);
void dp_fetched_release(struct dp_fetched *f);

/* The stamp's file name inside a fetched folder. */
#define DP_DOWNLOAD_STAMP ".dglpart-download.json"

#endif
