/* dglpart run (or dglpart with flags first): the whole pipeline (download,
 * convert, partition) into data/, like DGL's partition_graph.py. Takes every
 * partition option plus --dataset, --cache, --data_dir and --mirror. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/buf.h"
#include "dglpart/cmds.h"
#include "dglpart/error.h"
#include "dglpart/pipeline.h"

static const char usage[] =
    "usage: dglpart run --num_parts K [--balance_train] [--balance_edges]\n"
    "               [--dataset NAME|PATH|URL] [--output data] [--cache "
    "dataset]\n"
    "               [--data_dir DIR] [--mirror BASE_URL] [--no_cache]\n"
    "               [any 'dglpart partition' option]\n"
    "       dglpart [-v|-vv] --num_parts K ...   (the same: flags first)\n"
    "\n"
    "Download the dataset when the registry says so (cached and verified, see\n"
    "'dglpart datasets'), convert it (cached in CACHE/<name>-converted, "
    "redone\n"
    "when an input file changes) and partition it into OUTPUT (default "
    "data/),\n"
    "like DGL's partition_graph.py. With no --dataset, the bundled Cora\n"
    "(datasets/cora) is used, offline. Prints the config's path.\n"
    "Node data is written under the names DGL's distributed examples read\n"
    "(train_dist.py: features, labels, train_mask, val_mask, test_mask):\n"
    "--ndata_name defaults to " DP_RUN_NDATA_NAME " here.\n"
    "\n"
    "  --dataset NAME|PATH|URL  a registry name, a raw dataset path or a URL\n"
    "  --cache DIR            where converted datasets are kept (dataset)\n"
    "  --no_cache             keep no converted copy: convert into a scratch\n"
    "                         folder under --cache, deleting its edge files\n"
    "                         once the parts are past them and the rest at\n"
    "                         the end (less disk; a valid cached copy is\n"
    "                         still used)\n"
    "  --data_dir DIR         where downloads are kept (DGLPART_DATA_DIR,\n"
    "                         else dataset)\n"
    "  --mirror BASE_URL      fetch from a mirror (DGLPART_MIRROR)\n"
    "  --output DIR           output folder (default data; replaced when it\n"
    "                         holds an earlier dglpart output)\n"
    "\n"
    "Partition options:\n";

/* usage, then the option list of `dglpart partition` (after its
 * description), into b */
static int run_usage(struct dp_buf *b)
{
    const char *p = strstr(dp_partition_usage, "\n\n");
    int rc = dp_buf_adds(b, usage);

    if (!rc && p && (p = strstr(p + 2, "\n\n")))
        rc = dp_buf_adds(b, p + 2);
    return rc;
}

/* Take flag out of argv; 1 when it was there. */
static int take_flag(int *argc, char **argv, const char *flag)
{
    int i, j, seen = 0;

    for (i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (strcmp(argv[i], flag))
            continue;
        for (j = i; j + 1 < *argc; j++)
            argv[j] = argv[j + 1];
        (*argc)--;
        i--;
        seen = 1;
    }
    return seen;
}

/* Take --dataset/--cache out of argv (they are not partition options). */
static int take_opt(int *argc, char **argv, const char *name, const char **val)
{
    size_t n = strlen(name);
    int i, j;

    for (i = 1; i < *argc; i++) {
        int used = 0;

        if (!strcmp(argv[i], "--"))
            break;
        if (!strncmp(argv[i], name, n) && argv[i][n] == '=') {
            *val = argv[i] + n + 1;
            used = 1;
        } else if (!strcmp(argv[i], name)) {
            if (i + 1 >= *argc)
                return -1;
            *val = argv[i + 1];
            used = 2;
        }
        if (used) {
            for (j = i; j + used < *argc; j++)
                argv[j] = argv[j + used];
            *argc -= used;
            i--;
        }
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    struct dp_run_opts o;
    struct dp_buf u;
    char **av;
    int ac = argc, c, rc;

    dp_buf_init(&u, 0);
    if ((rc = run_usage(&u)))
        return dp_cmd_done(rc);
    if (dp_wants_help(argc, argv)) {
        rc = dp_cmd_usage(u.data);
        dp_buf_release(&u);
        return rc;
    }
    dp_run_opts_init(&o);
    av = dp_calloc((size_t)argc + 1, sizeof(*av));
    if (!av) {
        dp_buf_release(&u);
        return dp_cmd_done(DP_ENOMEM);
    }
    memcpy(av, argv, (size_t)argc * sizeof(*av));
    if (take_opt(&ac, av, "--dataset", &o.dataset) ||
        take_opt(&ac, av, "--cache", &o.cache) ||
        take_opt(&ac, av, "--data_dir", &o.data_dir) ||
        take_opt(&ac, av, "--mirror", &o.mirror)) {
        dp_error(DP_EINVAL, "--dataset, --cache, --data_dir and --mirror "
                            "need a value");
        goto misuse;
    }
    o.no_cache = take_flag(&ac, av, "--no_cache");
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(ac, av, "", dp_partition_longopts, NULL)) != -1) {
        if (c == '?' || c == ':') {
            rc = dp_cmd_bad_option(u.data, av);
            goto out;
        }
        if (dp_partition_parse_opt(&o.part, c, optarg))
            goto misuse;
    }
    if (optind < ac) {
        dp_error(DP_EINVAL, "unexpected argument '%s'", av[optind]);
        goto misuse;
    }
    rc = dp_cmd_done(dp_run(&o));
    goto out;
misuse:
    rc = dp_cmd_misuse(u.data, "%s", dp_errmsg());
out:
    dp_buf_release(&u);
    free(av);
    return rc;
}
