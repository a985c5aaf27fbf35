/* dglpart pack: a part's MANIFEST (size and sha256 of every file, cached
 * next to the part) and a tar stream of part<i>/. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dglpart/copy.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

/* The MANIFEST cache lives in the part's folder when all its files do. */
static char *cache_path(const struct dp_items *files)
{
    char *dir = NULL, *d, *path;
    int i;

    for (i = 0; i < files->count; i++) {
        if (!(d = dp_path_dirname(files->v[i].src))) {
            free(dir);
            return NULL;
        }
        if (dir && strcmp(dir, d)) {
            free(d);
            free(dir);
            return NULL;
        }
        free(dir);
        dir = d;
    }
    if (!dir)
        return NULL;
    path = dp_path_join(dir, "MANIFEST");
    free(dir);
    return path;
}

static int add_prefixed(struct dp_items *out, const char *prefix,
                        const struct dp_item *it)
{
    char *name = dp_path_join(prefix, it->name);
    int rc;

    if (!name)
        return DP_ENOMEM;
    rc = dp_items_add_file(out, name, it->src);
    if (!rc) {
        struct dp_item *n = &out->v[out->count - 1];

        /* Keep the size that was hashed: a change since is caught by tar. */
        memcpy(n->sha, it->sha, sizeof(n->sha));
        n->size = it->size;
    }
    free(name);
    return rc;
}

int dp_part_unit(const struct dp_part_config *c, int part, const char *prefix,
                 struct dp_items *files, struct dp_items *out)
{
    struct dp_buf man;
    char *cache = NULL, *mname = NULL;
    int rc, i;

    dp_buf_init(&man, 0);
    if ((rc = dp_part_items(c, part, files)))
        goto out;
    cache = cache_path(files);
    if ((rc = dp_items_hash(files, cache)))
        goto out;
    if ((rc = dp_manifest_format(files, &man)))
        goto out;
    if ((rc = dp_items_add_dir(out, prefix)))
        goto out;
    for (i = 0; i < files->count && !rc; i++)
        rc = add_prefixed(out, prefix, &files->v[i]);
    if (rc)
        goto out;
    if (!(mname = dp_path_join(prefix, "MANIFEST"))) {
        rc = DP_ENOMEM;
        goto out;
    }
    rc = dp_items_add_data(out, mname, man.data, man.len);
out:
    free(mname);
    free(cache);
    dp_buf_release(&man);
    return rc;
}

int dp_pack_run(const struct dp_pack_opts *o)
{
    struct dp_items files = { 0, 0, NULL }, out = { 0, 0, NULL };
    struct dp_part_config c;
    char prefix[32];
    int rc, fd = STDOUT_FILENO, cfg_ok;
    struct dp_afile af;
    int use_af = o->output && strcmp(o->output, "-");

    memset(&af, 0, sizeof(af));
    snprintf(prefix, sizeof(prefix), "part%d", o->part);
    cfg_ok = (rc = dp_config_load(&c, o->part_config)) == 0;
    if (rc || (rc = dp_part_unit(&c, o->part, prefix, &files, &out)))
        goto out;
    if (o->manifest_only) {
        const struct dp_item *m = &out.v[out.count - 1];

        if (fwrite(m->data, 1, m->size, stdout) != m->size)
            rc = dp_error(DP_EIO, "cannot write the MANIFEST: %s",
                          strerror(errno));
        goto out;
    }
    if (!use_af && isatty(STDOUT_FILENO)) {
        rc = dp_error(DP_EINVAL, "refusing to write a tar to a terminal "
                                 "(use --output FILE or a pipe)");
        goto out;
    }
    if (use_af) {
        if ((rc = dp_afile_open(&af, o->output)))
            goto out;
        fd = af.fd;
    } else {
        fflush(stdout);
    }
    rc = dp_tar_write(fd, &out, NULL, 0, NULL);
    if (use_af)
        rc = rc ? (dp_afile_abort(&af), rc) : dp_afile_commit(&af);
out:
    if (cfg_ok)
        dp_config_release(&c);
    dp_items_release(&files);
    dp_items_release(&out);
    return rc;
}
