/* dglpart sample: a trainer. Splits the train nodes among trainers, samples
 * mini-batches, gathers features and labels, prints a checksum. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"
#include "dglpart/runtime.h"

static const char usage[] =
    "usage: dglpart sample --part_config CFG [--standalone]\n"
    "                      [--fanouts 25,10] [--batch_size 1000] [--epochs 1]\n"
    "                      [--seed S] [--ip_config FILE] [--num_servers N]\n"
    "                      [--rank R] [--world_size W] [--local_part P]\n"
    "                      [--feat NAME] [--label NAME] [--train_mask NAME]\n"
    "                      [--ntype NAME] [--num_samplers M] [--queue_size Q]\n"
    "                      [--compute K]\n"
    "\n"
    "Standalone (--standalone, or DGL_DIST_MODE unset/standalone without\n"
    "--ip_config): every part is loaded in this process. Distributed\n"
    "(DGL_DIST_MODE=distributed or --ip_config): part rank*parts/world_size\n"
    "(or --local_part P; -1 for none) is loaded here, the others are asked\n"
    "of their servers.\n"
    "\n"
    "The train nodes (node feature --train_mask, default train_mask) are cut\n"
    "evenly among world_size trainers (RANK, WORLD_SIZE as set by torchrun;\n"
    "default 0 of 1). Each epoch shuffles them, and each batch samples one\n"
    "layer per fanout (-1 = all in-neighbours, input layer first as in DGL),\n"
    "then gathers --feat rows of the input nodes and --label rows of the\n"
    "seeds (default features and labels, the names DGL's examples read and\n"
    "the pipeline writes; a part that has feat and label instead, as from\n"
    "'dglpart partition' or DGL's own tools, is read under those). Throughput "
    "goes to stderr; stdout gets 'checksum <16 hex>': the\n"
    "sum mod 2^64 of a hash per fetched item. It is the same standalone and\n"
    "distributed; the checksums of all trainers add up (mod 2^64) to the\n"
    "job's checksum.\n"
    "\n"
    "In a set with edge types, --fanouts may give a fanout per type: layers\n"
    "split by ';', each 'ETYPE=K,...' with canonical (paper:cites:paper) or\n"
    "unique short (cites) names and an optional bare K for the other types,\n"
    "e.g. 'cites=10,has=5;cites=5,3', or DGL's dict form as JSON, every\n"
    "type named: '[{\"cites\": 10, \"has\": 5}, {\"cites\": 5, \"has\": 3}]'.\n"
    "Each type then draws its own picks.\n"
    "In a set with node types (DGL's heterographs), the seeds are the train\n"
    "nodes of one type (--ntype, else the first type with a '<type>/\n"
    "train_mask' feature); features and labels are '<type>/<name>' keys, and\n"
    "only the input nodes of that type have feature rows to gather.\n"
    "\n"
    "--num_samplers M (DGL_NUM_SAMPLER under dglpart launch; 0) forks M\n"
    "sampler processes that sample and gather batches ahead of the trainer,\n"
    "as DGL's DistDataLoader does: at most Q batches (--queue_size, 4 per\n"
    "sampler) wait at any time. Batch i is the same whoever makes it, so the\n"
    "checksum is the same for every M. Distributed, each sampler is one more\n"
    "client of every server, as in DGL: DGL_NUM_CLIENT counts trainers x\n"
    "(1 + M) (dglpart launch sets it so). --compute K reads each batch's\n"
    "features K more times, standing in for a model's work (benchmarks).\n"
    "\n"
    "Refused connections are retried for DGLPART_CONNECT_WAIT seconds (120)\n"
    "while servers load their parts.\n";

#define MAX_SAMPLERS 256

static int env_int(const char *name, int *out)
{
    int64_t v = *out;
    int rc = dp_env_int(name, &v);

    *out = (int)v;
    return rc;
}

int cmd_sample(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "part_config", required_argument, NULL, 'c' },
        { "standalone", no_argument, NULL, 'S' },
        { "fanouts", required_argument, NULL, 'f' },
        { "batch_size", required_argument, NULL, 'b' },
        { "epochs", required_argument, NULL, 'e' },
        { "seed", required_argument, NULL, 's' },
        { "ip_config", required_argument, NULL, 'i' },
        { "num_servers", required_argument, NULL, 'n' },
        { "rank", required_argument, NULL, 'r' },
        { "world_size", required_argument, NULL, 'w' },
        { "local_part", required_argument, NULL, 'l' },
        { "feat", required_argument, NULL, 'F' },
        { "label", required_argument, NULL, 'L' },
        { "train_mask", required_argument, NULL, 'T' },
        { "ntype", required_argument, NULL, 'N' },
        { "num_samplers", required_argument, NULL, 'M' },
        { "queue_size", required_argument, NULL, 'Q' },
        { "compute", required_argument, NULL, 'K' },
        { NULL, 0, NULL, 0 }
    };
    static int64_t default_fanouts[] = { 25, 10 };
    struct dp_train_opts o;
    struct dp_dist_env env;
    int64_t *fanouts = NULL, v;
    int c, rc, force_standalone = 0, i;
    uint64_t sum = 0;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    memset(&o, 0, sizeof(o));
    o.fanouts = default_fanouts;
    o.num_fanouts = 2;
    o.batch_size = 1000;
    o.epochs = 1;
    o.seed = 0;
    o.rank = 0;
    o.world_size = 1;
    o.local_part = -2; /* auto */
    o.num_servers = 1;
    o.feat_name = "features";
    o.label_name = "labels";
    o.train_name = "train_mask";
    if ((rc = dp_dist_env(&env)) || (rc = env_int("RANK", &o.rank)) ||
        (rc = env_int("WORLD_SIZE", &o.world_size)) ||
        (rc = env_int("DGL_NUM_SAMPLER", &o.num_samplers))) {
        dp_report(rc);
        return 2;
    }
    o.conf_path = env.conf_path;
    o.ip_config = env.ip_config;
    if (env.num_servers >= 1)
        o.num_servers = env.num_servers;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 'c':
            o.conf_path = optarg;
            break;
        case 'S':
            force_standalone = 1;
            break;
        case 'i':
            o.ip_config = optarg;
            env.standalone = 0;
            break;
        case 'F':
            o.feat_name = optarg;
            break;
        case 'L':
            o.label_name = optarg;
            break;
        case 'T':
            o.train_name = optarg;
            break;
        case 'N':
            o.ntype = optarg;
            break;
        case 'f':
            free(fanouts);
            fanouts = NULL;
            o.typed_fanouts = NULL;
            /* per edge type: read with the set */
            if (strchr(optarg, '=') || optarg[strspn(optarg, " ")] == '[' ||
                optarg[strspn(optarg, " ")] == '{') {
                o.typed_fanouts = optarg;
                break;
            }
            rc = dp_parse_i64_list("--fanouts", optarg, -1, 1 << 20, &fanouts,
                                   &o.num_fanouts);
            for (i = 0; !rc && i < o.num_fanouts; i++)
                if (fanouts[i] == 0)
                    rc = dp_error(DP_ERANGE, "--fanouts: 0 is not a fanout "
                                             "(-1 means all)");
            if (!rc && o.num_fanouts < 1)
                rc = dp_error(DP_EINVAL, "--fanouts: empty list");
            o.fanouts = fanouts;
            break;
        case 'b':
            rc =
                dp_parse_i64("--batch_size", optarg, 1, 1 << 24, &o.batch_size);
            break;
        case 'e':
            rc = dp_parse_int("--epochs", optarg, 0, 1 << 20, &o.epochs);
            break;
        case 's':
            rc = dp_parse_i64("--seed", optarg, 0, INT64_MAX, &v);
            o.seed = (uint64_t)v;
            break;
        case 'n':
            rc = dp_parse_int("--num_servers", optarg, 1, 1 << 10,
                              &o.num_servers);
            break;
        case 'r':
            rc = dp_parse_int("--rank", optarg, 0, 1 << 20, &o.rank);
            break;
        case 'w':
            rc =
                dp_parse_int("--world_size", optarg, 1, 1 << 20, &o.world_size);
            break;
        case 'l':
            rc = dp_parse_int("--local_part", optarg, -1, 1 << 20,
                              &o.local_part);
            break;
        case 'M':
            rc = dp_parse_int("--num_samplers", optarg, 0, MAX_SAMPLERS,
                              &o.num_samplers);
            break;
        case 'Q':
            rc =
                dp_parse_int("--queue_size", optarg, 1, 1 << 12, &o.queue_size);
            break;
        case 'K':
            rc = dp_parse_int("--compute", optarg, 0, 1 << 20, &o.compute);
            break;
        default:
            free(fanouts);
            return dp_cmd_bad_option(usage, argv);
        }
        if (rc) {
            free(fanouts);
            return dp_cmd_misuse(usage, "%s", dp_errmsg());
        }
    }
    if (optind < argc || !o.conf_path || o.rank >= o.world_size) {
        if (!o.conf_path)
            fprintf(stderr, "%s: no --part_config (or DGL_CONF_PATH)\n",
                    dp_progname());
        else if (o.rank >= o.world_size)
            fprintf(stderr, "%s: rank %d is not below world size %d\n",
                    dp_progname(), o.rank, o.world_size);
        free(fanouts);
        fputs(usage, stderr);
        return 2;
    }
    o.standalone = force_standalone || env.standalone;
    if (!force_standalone && !env.standalone && !o.ip_config) {
        free(fanouts);
        fprintf(stderr,
                "%s: distributed mode needs --ip_config (or "
                "DGL_IP_CONFIG)\n",
                dp_progname());
        return 2;
    }
    rc = dp_train_run(&o, &sum);
    free(fanouts);
    if (!rc)
        printf("checksum %016" PRIx64 "\n", sum);
    return dp_cmd_done(rc);
}
