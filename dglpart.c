/* dglpart: the front door. The command table below is the only list of
 * commands; the top-level usage is printed from it. */
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/env.h"
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
            "usage: dglpart [-v|-vv] COMMAND [ARGS]\n"
            "       dglpart [-v|-vv] --num_parts K [--balance_train] "
            "[--dataset NAME] ...\n"
            "       dglpart help [COMMAND|env]\n"
            "\n"
            "With no command, download (when needed), convert and partition a\n"
            "dataset into data/, like DGL's partition_graph.py\n"
            "(see 'dglpart --num_parts 1 --help').\n"
            "\n"
            "commands:\n");
    for (i = 0; i < NCOMMANDS; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(fp, "\n'dglpart COMMAND --help' describes a command, 'dglpart help "
                "env' the\nenvironment variables. -v prints each step's time "
                "and peak memory to\nstderr; -vv adds detail such as each "
                "coarsening level.\n");
}

static const struct command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < NCOMMANDS; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* -v, -vv, -v -v ...: the level of dp_log. */
static int verbosity(const char *arg)
{
    size_t n = strspn(arg + 1, "v");

    return arg[0] == '-' && n > 0 && arg[n + 1] == '\0' ? (int)n : 0;
}

/* dglpart help [COMMAND|env] */
static int help(int argc, char **argv)
{
    static char opt[] = "--help";
    const struct command *c = argc > 1 ? find_command(argv[1]) : NULL;
    char *av[] = { NULL, opt, NULL };

    if (argc > 2 || (argc == 2 && !c && strcmp(argv[1], "env"))) {
        fprintf(stderr, "dglpart: help: '%s' is neither a command nor env\n\n",
                argv[argc - 1]);
        usage(stderr);
        return 2;
    }
    if (c) {
        av[0] = argv[1];
        return c->fn(2, av);
    }
    if (argc == 2)
        dp_env_print(stdout);
    else
        usage(stdout);
    return dp_cmd_done(0);
}

int main(int argc, char **argv)
{
    static char progname[64];
    const struct command *c = NULL;
    char **all = argv;
    int rc, v, werr;

    argv++;
    argc--;
    while (argc > 0 && (v = verbosity(argv[0])) > 0) {
        dp_verbose += v;
        argv++;
        argc--;
    }
    if (argc == 0) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") ||
        !strcmp(argv[0], "help"))
        rc = help(argc, argv);
    else if (!strcmp(argv[0], "--version")) {
        printf("dglpart %s\n", DGLPART_VERSION);
        rc = dp_cmd_done(0);
    } else if (argv[0][0] != '-' && !(c = find_command(argv[0]))) {
        fprintf(stderr, "dglpart: '%s' is not a command\n\n", argv[0]);
        usage(stderr);
        return 2;
    } else {
        /* Flags first: the all-in-one command, like DGL's partition_graph.py */
        if (c) {
            snprintf(progname, sizeof(progname), "dglpart %s", c->name);
            dp_set_progname(progname);
        }
        /* a malformed setting is refused before any work (its usage stays
         * readable) */
        if (!dp_wants_help(argc, argv) && (rc = dp_env_check())) {
            dp_report(rc);
            return 2;
        }
        if (!c || !strcmp(c->name, "partition")) {
            /* METIS runs about 10% faster on huge pages
             * (bench/partition.sh) */
            const char *thp = dp_hugepages_reexec(all);

            dp_log(DP_LOG_V, "huge pages: %s", thp);
        }
        rc = c ? c->fn(argc, argv) : cmd_run(argc + 1, argv - 1);
    }
    /* ferror first: fclose does not see an error its buffer already met */
    werr = ferror(stdout);
    if ((fclose(stdout) != 0 || werr) && rc == 0) {
        fprintf(stderr, "%s: cannot write to stdout\n", dp_progname());
        rc = 1;
    }
    return rc;
}
