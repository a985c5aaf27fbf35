/* dglpart datasets: list the registry with sizes and what is cached. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dglpart/alloc.h"
#include "dglpart/cmds.h"
#include "dglpart/download.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/progress.h"

static const char usage[] =
    "usage: dglpart datasets [--data_dir DIR]\n"
    "\n"
    "List the datasets dglpart knows: name, archive size (~ approximate),\n"
    "convert format, whether edges are stored once (convert --undirected),\n"
    "and whether each is cached under DIR (default $DGLPART_DATA_DIR or\n"
    "./dataset), partly downloaded, or bundled.\n";

static void state(const struct dp_registry_entry *e, const char *data_dir,
                  char *out, size_t len)
{
    char *dir, *stamp, *part = NULL;
    const char *base;
    struct stat st;

    if (e->bundled) {
        snprintf(out, len, "bundled");
        return;
    }
    dir = dp_path_join(data_dir, e->folder);
    stamp = dir ? dp_path_join(dir, DP_DOWNLOAD_STAMP) : NULL;
    if (stamp && dp_exists(stamp)) {
        snprintf(out, len, "cached %s", dir);
        goto done;
    }
    base = strrchr(e->urls[0], '/');
    if (base &&
        (part = dp_malloc(strlen(data_dir) + strlen(base) + 8)) != NULL) {
        sprintf(part, "%s%s.part", data_dir, base);
        if (stat(part, &st) == 0) {
            char b[32];

            dp_fmt_bytes((uint64_t)st.st_size, b, sizeof(b));
            snprintf(out, len, "partial %s (%s)", b, part);
            goto done;
        }
    }
    snprintf(out, len, "-");
done:
    free(part);
    free(stamp);
    free(dir);
}

int cmd_datasets(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "data_dir", required_argument, NULL, 'd' },
        { NULL, 0, NULL, 0 },
    };
    struct dp_download_opts o;
    struct dp_registry reg;
    int c, i, rc;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    dp_download_opts_init(&o);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.data_dir = optarg;
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (optind != argc)
        return dp_cmd_misuse(usage, "unexpected argument '%s'", argv[optind]);
    if ((rc = dp_registry_load(&reg)))
        return dp_cmd_done(rc);
    printf("%-16s %11s  %-10s %-10s %s\n", "NAME", "SIZE", "FORMAT",
           "UNDIRECTED", "STATE");
    for (i = 0; i < reg.n; i++) {
        const struct dp_registry_entry *e = &reg.e[i];
        char size[40], st[4200];

        dp_fmt_bytes(e->size, size + 1, sizeof(size) - 1);
        size[0] = e->size_exact ? ' ' : '~';
        state(e, dp_download_data_dir(&o), st, sizeof(st));
        printf("%-16s %11s  %-10s %-10s %s\n", e->name, size, e->format,
               e->undirected ? "yes" : "no", st);
    }
    dp_registry_release(&reg);
    return dp_cmd_done(0);
}
