/* The copy stage: a MANIFEST and a tar stream per part (pack), and shipping
 * each part with its config, ip_config and scripts to its host over ssh, or
 * once into shared storage (copy). The remote side needs only sh, tar,
 * mkdir, mv, rm and sha256sum. */
#ifndef DGLPART_COPY_H
#define DGLPART_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"

struct dp_part_config; /* dglfile.h */

/* One file (or folder, when is_dir) of a shipped unit. */
struct dp_item {
    char *name; /* path inside the unit, '/'-separated (owned) */
    char *src;  /* local file to read, or NULL (owned) */
    char *data; /* in-memory content when src is NULL (owned) */
    uint64_t size;
    char sha[65];  /* "" until hashed */
    unsigned mode; /* permission bits */
    int is_dir;
};

struct dp_items {
    int count;
    size_t cap;
    struct dp_item *v; /* owned */
};

void dp_items_release(struct dp_items *l);
/* Append a file from disk (stat'ed now) or from memory (copied). */
int dp_items_add_file(struct dp_items *l, const char *name, const char *src);
int dp_items_add_data(struct dp_items *l, const char *name, const void *p,
                      size_t n);
/* Append a folder entry. */
int dp_items_add_dir(struct dp_items *l, const char *name);
/* Append every file and folder under dir (recursively, following symlinks
 * to files), named relative to dir with prefix. */
int dp_items_add_tree(struct dp_items *l, const char *prefix, const char *dir);

/* The files of part `part` named by the config's "part-<part>" entry
 * (every string member: node_feats, edge_feats, part_graph, graphbolt...),
 * resolved against the config's folder and named by their basenames. The
 * config ships beside them as dp_config_load_relocated gives it. */
int dp_part_items(const struct dp_part_config *c, int part, struct dp_items *l);

/* Fill size and sha256 of every file item. cache, when not NULL, is a
 * MANIFEST file reused when it is newer than all the files (and rewritten
 * when not, if its folder is writable). */
int dp_items_hash(struct dp_items *l, const char *cache);
/* MANIFEST text: a header line, then "<sha256> <size> <name>" per file. */
int dp_manifest_format(const struct dp_items *l, struct dp_buf *out);
/* 1 when text is a MANIFEST listing exactly l's files with the same sizes
 * and hashes (order free), else 0. */
int dp_manifest_matches(const struct dp_items *l, const char *text);

/* Stream a tar (pax) of the items to fd; a file whose size changed since
 * it was listed is an error. written, when not NULL, is updated as bytes
 * go out (read by other threads for progress). rate > 0 limits the stream
 * to rate bytes per second. cancel, when not NULL and set, stops it. */
int dp_tar_write(int fd, const struct dp_items *l, volatile uint64_t *written,
                 double rate, volatile int *cancel);

/* A part ready to ship: files gets the part's files hashed (through the
 * MANIFEST cache next to them); out gets folder `prefix`, the files under
 * it and prefix/MANIFEST. */
int dp_part_unit(const struct dp_part_config *c, int part, const char *prefix,
                 struct dp_items *files, struct dp_items *out);

struct dp_pack_opts {
    const char *part_config;
    int part;
    const char *output; /* tar file, or "-"/NULL for stdout */
    int manifest_only;  /* print the MANIFEST to stdout, no tar */
};

/* Write part<part>/MANIFEST next to the part's files (if writable) and
 * stream a tar of part<part>/ (its files and the MANIFEST). */
int dp_pack_run(const struct dp_pack_opts *o);

struct dp_copy_opts {
    const char *part_config;
    const char *ip_config;
    const char *workspace;
    const char *rel_data_path;
    const char *script_folder; /* NULL: none */
    const char *ssh_username;
    const char *ssh_opts;
    const char *nfs_host; /* with nfs: write through this host */
    int ssh_port;         /* 0: ssh's default */
    int parallel;         /* 0: all hosts at once */
    int nfs;
    int dry_run;
    int verify;
    double limit_rate; /* bytes/s per host, 0 for none */
};

/* Ship everything; prints the summary table to stdout. 0 when every host
 * succeeded, else an error naming the failed hosts. The caller must ignore
 * SIGPIPE (a dropped connection is a failed host, not a dead process). */
int dp_copy_run(const struct dp_copy_opts *o);

#endif
