/* dglpart: the front door. The command table below is the only list of
 * commands; the top-level usage is printed from it. */
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"
#include "dglpart/memory.h"

#ifndef DGLPART_VERSION
#define DGLPART_VERSION "0.1.0"
#endif

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
};

static const struct command commands[] = {
    { "run", cmd_run,
      "the whole pipeline: download, convert, partition into data/" },
    { "download", cmd_download,
      "fetch a dataset: resume, retries, sha256, cache" },
    { "datasets", cmd_datasets, "list the known datasets and what is cached" },
    { "convert", cmd_convert, "turn a raw dataset into a CSC dataset folder" },
    { "partition", cmd_partition,
      "partition a dataset folder into DGL's format" },
    { "verify", cmd_verify, "check a partition set (ours or DGL's)" },
    { "pack", cmd_pack, "write a MANIFEST and a tar stream of one part" },
    { "copy", cmd_copy, "ship each part to its host over ssh, or to NFS" },
    { "launch", cmd_launch, "start servers and trainers on every host" },
    { "serve", cmd_serve, "run a graph server for one partition" },
    { "sample", cmd_sample,
      "a trainer: sample mini-batches and gather features" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
    size_t i;

    fprintf(fp,
            "usage: dglpart [-v] COMMAND [ARGS]\n"
            "       dglpart [-v] --num_parts K [--balance_train] [--dataset "
            "NAME] ...\n"
            "\n"
            "With no command, download (when needed), convert and partition a\n"
            "dataset into data/, like DGL's partition_graph.py\n"
            "(see 'dglpart --num_parts 1 --help').\n"
            "\n"
            "commands:\n");
    for (i = 0; i < NCOMMANDS; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(fp, "\n'dglpart COMMAND --help' describes a command.\n"
                "-v prints timings and peak memory to stderr.\n");
}

int main(int argc, char **argv)
{
    static char progname[64];
    char **all = argv;
    const char *thp;
    int rc;
    size_t i;

    argv++;
    argc--;
    while (argc > 0 && !strcmp(argv[0], "-v")) {
        dp_verbose++;
        argv++;
        argc--;
    }
    if (argc == 0) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") ||
        !strcmp(argv[0], "help")) {
        usage(stdout);
        return fclose(stdout) ? 1 : 0;
    }
    if (!strcmp(argv[0], "--version")) {
        printf("dglpart %s\n", DGLPART_VERSION);
        return fclose(stdout) ? 1 : 0;
    }
    if (argv[0][0] == '-' || !strcmp(argv[0], "partition")) {
        /* METIS runs about 10% faster on huge pages (bench/partition.sh) */
        thp = dp_hugepages_reexec(all);
        if (dp_verbose)
            fprintf(stderr, "dglpart: huge pages: %s\n", thp);
    }
    if (argv[0][0] == '-') {
        /* Flags first: the all-in-one command, like DGL's partition_graph.py.
         */
        dp_set_progname("dglpart");
        rc = cmd_run(argc + 1, argv - 1);
    } else {
        for (i = 0; i < NCOMMANDS; i++)
            if (!strcmp(argv[0], commands[i].name))
                break;
        if (i == NCOMMANDS) {
            fprintf(stderr, "dglpart: '%s' is not a command\n\n", argv[0]);
            usage(stderr);
            return 2;
        }
        snprintf(progname, sizeof(progname), "dglpart %s", commands[i].name);
        dp_set_progname(progname);
        rc = commands[i].fn(argc, argv);
    }
    if (fclose(stdout) != 0 && rc == 0) {
        perror("dglpart: stdout");
        rc = 1;
    }
    return rc;
}
