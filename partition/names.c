/* The names node and edge data are written under: the dataset's own,
 * after --ndata_name/--edata_name renames, each checked against the names
 * the parts will hold so a typo is an error, not a silent no-op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "phases.h"

/* The data the writers always know of, by their dataset names. */
static const char *const node_data[] = { "feat",     "label",     "train_mask",
                                         "val_mask", "test_mask", "trainer_id",
                                         NULL };
static const char *const edge_data[] = { "weight", "trainer_id", NULL };

const char *names_key(char *buf, size_t n, const char *prefix,
                      const struct dp_rename *r, const char *name)
{
    snprintf(buf, n, "%s/%s", prefix, dp_rename_apply(r, name));
    return buf;
}

/* Parse a --ndata_name/--edata_name spec against the names written. */
static int parse_renames(const char *what, const char *spec,
                         const char *const *known, struct dp_rename *r)
{
    int rc, i, j;

    if (!spec)
        return 0;
    if ((rc = dp_rename_parse(what, spec, r)))
        return rc;
    for (i = 0; i < r->count; i++) {
        for (j = 0; known[j] && strcmp(known[j], r->old[i]); j++)
            ;
        if (!known[j]) {
            char list[512] = "";

            for (j = 0; known[j]; j++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list),
                         "%s%s", j ? ", " : "", known[j]);
            return dp_error(DP_EINVAL, "%s: '%s' is not one of %s", what,
                            r->old[i], list);
        }
    }
    /* two data may not end up under one name */
    for (i = 0; known[i]; i++)
        for (j = i + 1; known[j]; j++)
            if (!strcmp(dp_rename_apply(r, known[i]),
                        dp_rename_apply(r, known[j])))
                return dp_error(DP_EINVAL,
                                "%s: '%s' and '%s' would both be "
                                "written as '%s'",
                                what, known[i], known[j],
                                dp_rename_apply(r, known[i]));
    return 0;
}

/* The fixed names, then the dataset's own data names, each once. */
static int known_list(const char *const *fixed, int n,
                      const struct dp_dataset_data *x, const char ***out)
{
    const char **l;
    int i, j, k = 0;

    for (i = 0; fixed[i]; i++)
        ;
    l = dp_calloc((size_t)(i + n + 1), sizeof(*l));
    if (!l)
        return DP_ENOMEM;
    for (i = 0; fixed[i]; i++)
        l[k++] = fixed[i];
    for (i = 0; i < n; i++) {
        for (j = 0; j < k && strcmp(l[j], x[i].name); j++)
            ;
        if (j == k)
            l[k++] = x[i].name;
    }
    *out = l;
    return 0;
}

int names_init(struct names *nm, const struct dp_dataset *d,
               const char *ndata_name, const char *edata_name)
{
    const struct dp_dataset_meta *m = &d->meta;
    int rc;

    memset(nm, 0, sizeof(*nm));
    if ((rc = known_list(node_data, m->num_ndata, m->ndata, &nm->nknown)) ||
        (rc = known_list(edge_data, m->num_edata, m->edata, &nm->eknown)) ||
        (rc = parse_renames("--ndata_name", ndata_name, nm->nknown,
                            &nm->nren)) ||
        (rc = parse_renames("--edata_name", edata_name, nm->eknown, &nm->eren)))
        names_release(nm);
    return rc;
}

void names_release(struct names *nm)
{
    free((void *)nm->nknown);
    free((void *)nm->eknown);
    dp_rename_release(&nm->nren);
    dp_rename_release(&nm->eren);
    memset(nm, 0, sizeof(*nm));
}
