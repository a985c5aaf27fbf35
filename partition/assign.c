/* Assignments that do not need METIS: seeded, exactly balanced random, and
 * one part id per node read from a file (text or .npy), so any external
 * partitioner (or DGL's own assignment) can feed the stage. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/npy.h"
#include "dglpart/partition.h"

/* splitmix64: small, fast and good enough to shuffle. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound) without modulo bias. */
static uint64_t below(uint64_t *s, uint64_t bound)
{
    uint64_t lim = -bound % bound, x;

    do
        x = next_u64(s);
    while (x < lim);
    return x % bound;
}

void dp_random_assign(int64_t n, int nparts, uint64_t seed, int32_t *parts)
{
    uint64_t s = seed ^ 0x64676C70617274ULL;
    int64_t i;

    for (i = 0; i < n; i++)
        parts[i] = (int32_t)(i % nparts);
    for (i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)below(&s, (uint64_t)i + 1);
        int32_t t = parts[i];

        parts[i] = parts[j];
        parts[j] = t;
    }
}

static int check_id(const char *path, int64_t i, int64_t x, int nparts)
{
    if (x < 0 || x >= nparts)
        return dp_error(DP_ERANGE,
                        "'%s': part id %" PRId64 " of node %" PRId64
                        " out of range [0, %d)",
                        path, x, i, nparts);
    return 0;
}

static int read_npy(const char *path, int64_t n, int nparts, int32_t *parts)
{
    struct dp_npy a;
    int64_t i;
    int rc;

    rc = dp_npy_open(&a, path);
    if (rc)
        return rc;
    if (!dp_dtype_is_int(a.h.dtype) || a.h.ndim != 1) {
        char desc[96];

        dp_npy_describe(a.h.dtype, a.h.ndim, a.h.shape, desc, sizeof(desc));
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected a 1-D integer array of "
                      "part ids, found %s",
                      path, desc);
        goto out;
    }
    if (a.h.shape[0] != n) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRId64 " part ids for %" PRId64 " nodes", path,
                      a.h.shape[0], n);
        goto out;
    }
    for (i = 0; i < n; i++) {
        int64_t x = dp_npy_get_i64(&a, (uint64_t)i);

        if ((rc = check_id(path, i, x, nparts)))
            goto out;
        parts[i] = (int32_t)x;
    }
out:
    dp_npy_release(&a);
    return rc;
}

/* unit names the nodes in messages of a per-type file ("'paper' node");
 * NULL keeps the messages of a whole-graph file. */
static int read_text(const char *path, int64_t n, int nparts, int32_t *parts,
                     const char *unit)
{
    FILE *fp = fopen(path, "r");
    int64_t count = 0, line = 1, x;
    int c, rc = 0;

    if (!fp)
        return dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                        "cannot open '%s': %s", path, strerror(errno));
    c = getc(fp);
    while (c != EOF) {
        if (c == '\n') {
            line++;
            c = getc(fp);
            continue;
        }
        if (isspace(c)) {
            c = getc(fp);
            continue;
        }
        if (c == '#') {
            while (c != EOF && c != '\n')
                c = getc(fp);
            continue;
        }
        if (!isdigit(c) && c != '-') {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRId64 ": expected a part "
                          "id, found '%c'",
                          path, line, c);
            goto out;
        }
        x = 0;
        {
            int neg = c == '-', digits = 0;

            if (neg)
                c = getc(fp);
            while (c != EOF && isdigit(c)) {
                if (x < 1000000000)
                    x = x * 10 + (c - '0');
                digits++;
                c = getc(fp);
            }
            if (!digits || (c != EOF && !isspace(c))) {
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %" PRId64 ": expected a "
                              "part id",
                              path, line);
                goto out;
            }
            if (neg)
                x = -x;
        }
        if (count >= n) {
            rc = unit ? dp_error(DP_EFORMAT,
                                 "'%s' line %" PRId64 ": more than %" PRId64
                                 " part ids (one per %s)",
                                 path, line, n, unit)
                      : dp_error(DP_EFORMAT,
                                 "'%s': more than %" PRId64 " part ids "
                                 "(one per node)",
                                 path, n);
            goto out;
        }
        if (unit && (x < 0 || x >= nparts)) {
            rc = dp_error(DP_ERANGE,
                          "'%s' line %" PRId64 ": part id %" PRId64
                          " of %s %" PRId64 " out of range [0, %d)",
                          path, line, x, unit, count, nparts);
            goto out;
        }
        if ((rc = check_id(path, count, x, nparts)))
            goto out;
        parts[count++] = (int32_t)x;
    }
    if (ferror(fp)) {
        rc = dp_error(DP_EIO, "cannot read '%s'", path);
        goto out;
    }
    if (count != n && unit)
        rc = dp_error(DP_EFORMAT,
                      "'%s' line %" PRId64 ": the file ends after %" PRId64
                      " part ids, expected %" PRId64 " (one per %s)",
                      path, line, count, n, unit);
    else if (count != n)
        rc = dp_error(DP_EFORMAT,
                      "'%s': %" PRId64 " part ids for %" PRId64 " nodes", path,
                      count, n);
out:
    fclose(fp);
    return rc;
}

int dp_assign_read(const char *path, int64_t n, int nparts, int32_t *parts)
{
    size_t len = strlen(path);

    if (len >= 4 && !strcmp(path + len - 4, ".npy"))
        return read_npy(path, n, nparts, parts);
    return read_text(path, n, nparts, parts, NULL);
}

/* partition_meta.json's num_parts, when the file is there. */
static int check_meta(const char *dir, int nparts)
{
    char *path = dp_path_join(dir, "partition_meta.json"), *text = NULL;
    const cJSON *np;
    cJSON *root = NULL;
    size_t len;
    int rc = 0;

    if (!path)
        return DP_ENOMEM;
    if (!dp_exists(path))
        goto out;
    if ((rc = dp_read_file(path, 1 << 20, &text, &len)))
        goto out;
    root = cJSON_ParseWithLength(text, len);
    np = root ? cJSON_GetObjectItemCaseSensitive(root, "num_parts") : NULL;
    if (!cJSON_IsNumber(np))
        rc = dp_error(DP_EFORMAT,
                      "'%s': expected a JSON object with "
                      "num_parts",
                      path);
    else if (np->valuedouble != nparts)
        rc = dp_error(DP_EINVAL, "'%s': num_parts is %g, but --num_parts %d",
                      path, np->valuedouble, nparts);
out:
    cJSON_Delete(root);
    free(text);
    free(path);
    return rc;
}

/* A .txt in dir that names no node type is refused: a misspelt type would
 * otherwise leave its own file unread and fail with a less clear error. */
static int check_stray(const char *dir, const struct dp_dataset *d)
{
    DIR *dh = opendir(dir);
    struct dirent *de;
    int rc = 0;

    if (!dh)
        return dp_error(errno == ENOENT ? DP_ENOENT : DP_EIO,
                        "cannot open '%s': %s", dir, strerror(errno));
    while (!rc && (de = readdir(dh))) {
        size_t len = strlen(de->d_name);
        char stem[256];
        int known;

        if (len < 5 || len - 4 >= sizeof(stem) ||
            strcmp(de->d_name + len - 4, ".txt"))
            continue;
        memcpy(stem, de->d_name, len - 4);
        stem[len - 4] = 0;
        known = d->meta.num_ntypes ? dp_dataset_find_ntype(&d->meta, stem) >= 0
                                   : !strcmp(stem, "_N");
        if (!known)
            rc = dp_error(DP_EINVAL, "'%s/%s': '%s' is no node type of '%s'",
                          dir, de->d_name, stem, d->dir);
    }
    closedir(dh);
    return rc;
}

int dp_assign_read_dir(const char *dir, const struct dp_dataset *d, int nparts,
                       int32_t *parts)
{
    static const struct dp_dataset_type whole = { "_N", 0, 0, 0, 0 };
    int nt = d->meta.num_ntypes ? d->meta.num_ntypes : 1, t, rc;

    if ((rc = check_meta(dir, nparts)) || (rc = check_stray(dir, d)))
        return rc;
    for (t = 0; t < nt; t++) {
        const struct dp_dataset_type *ty =
            d->meta.num_ntypes ? &d->meta.ntypes[t] : &whole;
        int64_t count = d->meta.num_ntypes ? ty->count : d->meta.num_nodes;
        char file[300], unit[300], *path;

        snprintf(file, sizeof(file), "%s.txt", ty->name);
        snprintf(unit, sizeof(unit), "'%s' node", ty->name);
        path = dp_path_join(dir, file);
        if (!path)
            return DP_ENOMEM;
        if (!dp_exists(path))
            rc = dp_error(DP_ENOENT,
                          "'%s': missing: DGL's assignment folder has one "
                          "<ntype>.txt per node type",
                          path);
        else
            rc = read_text(path, count, nparts, parts + ty->offset, unit);
        free(path);
        if (rc)
            return rc;
    }
    return 0;
}

int dp_assign_write(const char *path, int64_t n, const int32_t *parts)
{
    size_t len = strlen(path);
    struct dp_afile af;
    char line[16];
    int64_t i, shape[1] = { n };
    int rc;

    if (len >= 4 && !strcmp(path + len - 4, ".npy"))
        return dp_npy_write(path, DP_I32, 1, shape, parts);
    if ((rc = dp_afile_open(&af, path)))
        return rc;
    for (i = 0; i < n && !rc; i++) {
        int k = snprintf(line, sizeof(line), "%d\n", (int)parts[i]);

        rc = dp_afile_write(&af, line, (size_t)k);
    }
    if (rc) {
        dp_afile_abort(&af);
        return rc;
    }
    return dp_afile_commit(&af);
}
