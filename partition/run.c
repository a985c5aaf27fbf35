/* `dglpart` with no command: resolve the dataset, convert it once (cached
 * under dataset/<name>-converted, keyed by the sha256 of every input
 * file), then partition into data/ like DGL's partition_graph.py. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dglpart/buf.h"
#include "dglpart/convert.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/partition.h"

#define STAMP ".dglpart-input-sha256"

void dp_run_opts_init(struct dp_run_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->cache = "dataset";
    dp_partition_opts_init(&o->part);
    o->part.out = "data";
}

/* Folders that may hold the bundled datasets: $DGLPART_DATASETS, then
 * ./datasets, then next to the binary (build tree or installed share/). */
static char *find_bundled(const char *name)
{
    char exe[PATH_MAX], *dir = NULL, *cand[4] = {NULL, NULL, NULL, NULL};
    const char *env = getenv("DGLPART_DATASETS");
    char *found = NULL;
    ssize_t n;
    int i;

    if (env && *env)
        cand[0] = dp_path_join(env, name);
    cand[1] = dp_path_join("datasets", name);
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = 0;
        dir = dp_path_dirname(exe);
        if (dir) {
            char *d1 = dp_path_join(dir, "datasets");
            char *d2 = dp_path_join(dir, "../share/dglpart/datasets");

            cand[2] = d1 ? dp_path_join(d1, name) : NULL;
            cand[3] = d2 ? dp_path_join(d2, name) : NULL;
            free(d1);
            free(d2);
        }
    }
    for (i = 0; i < 4; i++) {
        if (!found && cand[i] && dp_is_dir(cand[i])) {
            found = cand[i];
            cand[i] = NULL;
        }
        free(cand[i]);
    }
    free(dir);
    return found;
}

int dp_run_resolve_dataset(const char *dataset, char **out, char **name_out)
{
    const char *name = dataset ? dataset : "cora";
    char *path = NULL, *nm;
    size_t len;

    if (dataset && (strchr(dataset, '/') || dp_exists(dataset))) {
        if (!dp_exists(dataset))
            return dp_error(DP_ENOENT, "dataset '%s' not found", dataset);
        path = strdup(dataset);
        name = dp_path_basename(dataset);
    } else {
        path = find_bundled(name);
        /* Registry names (download stage) resolve here once it exists. */
        if (!path)
            return dp_error(DP_ENOENT,
                            "unknown dataset '%s': not a path nor "
                            "a bundled dataset (cora, citeseer)",
                            name);
    }
    nm = strdup(*name ? name : "graph");
    if (!path || !nm) {
        free(path);
        free(nm);
        return dp_error(DP_ENOMEM, "out of memory");
    }
    /* short name: no extension, no trailing slash */
    len = strcspn(nm, ".");
    if (len > 0)
        nm[len] = 0;
    len = strlen(nm);
    while (len > 1 && nm[len - 1] == '/')
        nm[--len] = 0;
    *out = path;
    *name_out = nm;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fold every regular file under path (sorted, recursive) into h. */
static int hash_tree(struct dp_sha256 *h, const char *path, int depth)
{
    struct stat st;
    char hex[65];
    uint64_t size;
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
            if (n == cap) {
                char **p =
                    realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*p));
                if (!p) {
                    rc = dp_error(DP_ENOMEM, "out of memory");
                    break;
                }
                names = p;
            }
            if (!(names[n] = strdup(de->d_name))) {
                rc = dp_error(DP_ENOMEM, "out of memory");
                break;
            }
            n++;
        }
        closedir(d);
        if (!rc)
            qsort(names, n, sizeof(*names), cmp_str);
        for (i = 0; i < n; i++) {
            char *sub = rc ? NULL : dp_path_join(path, names[i]);

            if (!rc && sub) {
                dp_sha256_update(h, names[i], strlen(names[i]) + 1);
                rc = hash_tree(h, sub, depth + 1);
            }
            free(sub);
            free(names[i]);
        }
        free(names);
        return rc;
    }
    if (!S_ISREG(st.st_mode))
        return 0;
    if ((rc = dp_sha256_file(path, hex, &size)))
        return rc;
    dp_sha256_update(h, hex, 64);
    return 0;
}

static int input_digest(const char *input, char out[65])
{
    struct dp_sha256 *h = dp_sha256_new();
    int rc;

    if (!h)
        return dp_error(DP_ENOMEM, "out of memory");
    rc = hash_tree(h, input, 0);
    dp_sha256_final(h, out);
    return rc;
}

/* Convert input into dir unless dir's stamp says it is already that. */
static int cached_convert(const char *input, const char *name, const char *dir)
{
    struct dp_convert_opts co;
    char digest[65], *stamp = dp_path_join(dir, STAMP), *old = NULL;
    size_t len;
    int rc;

    if (!stamp)
        return dp_error(DP_ENOMEM, "out of memory");
    if ((rc = input_digest(input, digest)))
        goto out;
    if (!dp_read_file(stamp, 4096, &old, &len) && len >= 64 &&
        !memcmp(old, digest, 64)) {
        fprintf(stderr, "dglpart: using the converted dataset in '%s'\n", dir);
        goto out;
    }
    fprintf(stderr, "dglpart: converting '%s' into '%s'\n", input, dir);
    dp_convert_opts_init(&co);
    co.input = input;
    co.out = dir;
    co.name = name;
    co.overwrite = 1;
    if ((rc = dp_convert(&co)))
        goto out;
    digest[64] = '\n';
    rc = dp_write_file(stamp, digest, 65);
out:
    free(stamp);
    free(old);
    return rc;
}

int dp_run(struct dp_run_opts *o)
{
    char *input = NULL, *name = NULL, *dir = NULL, *sub = NULL, *cfg = NULL;
    char *mark = NULL;
    int rc;

    if ((rc = dp_run_resolve_dataset(o->dataset, &input, &name)))
        return rc;
    if (!(sub = dp_malloc(strlen(name) + 16))) {
        rc = DP_ENOMEM;
        goto out;
    }
    sprintf(sub, "%s-converted", name);
    if (!(dir = dp_path_join(o->cache, sub))) {
        rc = DP_ENOMEM;
        goto out;
    }
    if ((rc = dp_mkdir_p(o->cache, 0777)) ||
        (rc = cached_convert(input, name, dir)))
        goto out;
    o->part.dataset = dir;
    if (!o->part.graph_name)
        o->part.graph_name = name;
    /* Like partition_graph.py, a rerun replaces data/, but only when it
     * holds an earlier dglpart output. */
    mark = dp_path_join(o->part.out, "partition-stats.json");
    if (!mark) {
        rc = DP_ENOMEM;
        goto out;
    }
    if (dp_exists(mark))
        o->part.overwrite = 1;
    if ((rc = dp_partition(&o->part)))
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
    free(input);
    free(name);
    free(dir);
    free(sub);
    free(cfg);
    free(mark);
    return rc;
}
