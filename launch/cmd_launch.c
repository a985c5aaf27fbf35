/* dglpart launch: launch.py's options, then one call into the launcher. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
#include "dglpart/cmds.h"
#include "dglpart/error.h"
#include "dglpart/launch.h"
#include "dglpart/parse.h"

static const char usage[] =
    "usage: dglpart launch --workspace DIR --ip_config FILE --part_config "
    "FILE\n"
    "                      --num_trainers T --num_servers S [options] "
    "\"COMMAND\"\n"
    "       dglpart launch --standalone [--workspace DIR] --part_config FILE\n"
    "                      \"COMMAND\"\n"
    "       dglpart launch --stop NAME\n"
    "\n"
    "Start S graph servers and then the trainers on every host of ip_config\n"
    "over ssh, with DGL's environment (DGL_ROLE, DGL_SERVER_ID, ...), like\n"
    "DGL's tools/launch.py. Partition i runs on host i. ip_config and\n"
    "part_config are relative to the workspace, which every host has.\n"
    "A Python COMMAND is run as 'python -m torch.distributed.run\n"
    "--nproc_per_node=T --nnodes=H --node_rank=r --master_addr=HOST0\n"
    "--master_port=P ...' where the host's torch can run it; any other\n"
    "COMMAND, and a Python one on a host where torchrun cannot run (torch\n"
    "1.13 on Python 3.11, Debian 12's own), runs T times per host with the\n"
    "variables torchrun gives its workers (RANK, LOCAL_RANK, WORLD_SIZE,\n"
    "LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, ...).\n"
    "Output comes back prefixed [host:role:rank]. Exit 0 only if every\n"
    "trainer exited 0; the first failure stops the job. Ctrl-C, a killed\n"
    "launcher or a lost connection leaves no process behind.\n"
    "\n"
    "options:\n"
    "  --workspace DIR          folder on every host; commands run there\n"
    "  --ip_config FILE         one host a line: IP [PORT]\n"
    "  --part_config FILE       the partition config JSON (num_parts = hosts)\n"
    "  --num_trainers T         trainer processes per host\n"
    "  --num_servers S          server processes per host\n"
    "  --num_samplers K         sampler processes per trainer (0)\n"
    "  --num_server_threads N   OMP_NUM_THREADS of servers (1)\n"
    "  --num_omp_threads N      OMP_NUM_THREADS of trainers ($OMP_NUM_THREADS\n"
    "                           or cores / 2 / T)\n"
    "  --graph_format F         DGL_GRAPH_FORMAT, e.g. csc or csr,csc (csc)\n"
    "  --extra_envs K=V ...     more variables; the remote shell expands $VAR\n"
    "  --ssh_port P             ssh port (ssh's default)\n"
    "  --ssh_username U         ssh user\n"
    "  --ssh_opts \"OPTS\"        more ssh options, e.g. \"-F cfg -i key\"\n"
    "  --keep_alive             servers stay up after the trainers finish\n"
    "  --server_name NAME       name of a kept-alive server group; a launch\n"
    "                           with the name of a running group attaches its\n"
    "                           trainers to it (next DGL_GROUP_ID)\n"
    "  --stop NAME              stop the kept-alive servers NAME\n"
    "  --log_dir DIR            also write each process's output to\n"
    "                           DIR/HOST-ROLE-RANK.log\n"
    "  --standalone             run COMMAND here once, "
    "DGL_DIST_MODE=standalone\n"
    "                           (part_config must have 1 part)\n"
    "  --grace SECONDS          wait before SIGKILL after asking processes to\n"
    "                           stop, and for servers after the trainers (5)\n"
    "  --master_port P          MASTER_PORT (first free port from 1234 on host "
    "0)\n"
    "  --trainer_launcher M     how Python trainers start: torchrun, direct\n"
    "                           (T processes with torchrun's variables) or\n"
    "                           auto (default: torchrun where a probe of the\n"
    "                           host's python shows it works, else direct)\n"
    "  --local_rank_arg         direct: also pass --local_rank=N after the\n"
    "                           script (torch.distributed.launch's "
    "convention)\n"
    "  --state_dir DIR          kept-alive state "
    "($XDG_RUNTIME_DIR/dglpart/servers\n"
    "                           or ~/.dglpart/servers)\n"
    "\n"
    "Exit status: 0 when every trainer exited 0, 1 on failure, 2 on misuse,\n"
    "128+N when signal N stopped the launcher.\n";

enum {
    O_WORKSPACE = 256,
    O_IPCONFIG,
    O_PARTCONFIG,
    O_TRAINERS,
    O_SERVERS,
    O_SAMPLERS,
    O_SERVER_THREADS,
    O_OMP,
    O_FORMAT,
    O_EXTRA,
    O_SSH_PORT,
    O_SSH_USER,
    O_SSH_OPTS,
    O_KEEP,
    O_NAME,
    O_STOP,
    O_LOGDIR,
    O_STANDALONE,
    O_GRACE,
    O_MASTER_PORT,
    O_STATE_DIR,
    O_TLAUNCHER,
    O_LOCAL_RANK_ARG
};

static const struct option longopts[] = {
    { "workspace", required_argument, NULL, O_WORKSPACE },
    { "ip_config", required_argument, NULL, O_IPCONFIG },
    { "part_config", required_argument, NULL, O_PARTCONFIG },
    { "num_trainers", required_argument, NULL, O_TRAINERS },
    { "num_servers", required_argument, NULL, O_SERVERS },
    { "num_samplers", required_argument, NULL, O_SAMPLERS },
    { "num_server_threads", required_argument, NULL, O_SERVER_THREADS },
    { "num_omp_threads", required_argument, NULL, O_OMP },
    { "graph_format", required_argument, NULL, O_FORMAT },
    { "extra_envs", required_argument, NULL, O_EXTRA },
    { "ssh_port", required_argument, NULL, O_SSH_PORT },
    { "ssh_username", required_argument, NULL, O_SSH_USER },
    { "ssh_opts", required_argument, NULL, O_SSH_OPTS },
    { "keep_alive", no_argument, NULL, O_KEEP },
    { "server_name", required_argument, NULL, O_NAME },
    { "stop", required_argument, NULL, O_STOP },
    { "log_dir", required_argument, NULL, O_LOGDIR },
    { "standalone", no_argument, NULL, O_STANDALONE },
    { "grace", required_argument, NULL, O_GRACE },
    { "master_port", required_argument, NULL, O_MASTER_PORT },
    { "state_dir", required_argument, NULL, O_STATE_DIR },
    { "trainer_launcher", required_argument, NULL, O_TLAUNCHER },
    { "local_rank_arg", no_argument, NULL, O_LOCAL_RANK_ARG },
    { NULL, 0, NULL, 0 }
};

static int check_format(const char *f)
{
    char *copy = dp_strdup(f), *tok, *save = NULL;
    int ok = copy != NULL && *f;

    for (tok = copy ? strtok_r(copy, ",", &save) : NULL; ok && tok;
         tok = strtok_r(NULL, ",", &save))
        ok = !strcmp(tok, "csc") || !strcmp(tok, "csr") || !strcmp(tok, "coo");
    free(copy);
    return ok;
}

static int is_env_word(const char *s)
{
    const char *p = s;

    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
        return 0;
    while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
           (*p >= '0' && *p <= '9') || *p == '_')
        p++;
    return *p == '=';
}

int cmd_launch(int argc, char **argv)
{
    struct dp_launch_opts o;
    const char **extra = NULL;
    const char *stop = NULL;
    int n_extra = 0, c, rc, status = 0, bad = 0, v;
    double d;
    char msg[256];

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    dp_launch_opts_init(&o);
    extra = dp_calloc((size_t)argc + 1, sizeof(*extra));
    if (!extra)
        return dp_cmd_done(DP_ENOMEM);
    o.num_trainers = o.num_servers = -1;
    optind = 0;
    opterr = 0;
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_WORKSPACE:
            o.workspace = optarg;
            break;
        case O_IPCONFIG:
            o.ip_config = optarg;
            break;
        case O_PARTCONFIG:
            o.part_config = optarg;
            break;
        case O_TRAINERS:
            bad = dp_parse_int("--num_trainers", optarg, 1, 4096,
                               &o.num_trainers);
            break;
        case O_SERVERS:
            bad =
                dp_parse_int("--num_servers", optarg, 1, 4096, &o.num_servers);
            break;
        case O_SAMPLERS:
            bad = dp_parse_int("--num_samplers", optarg, 0, 4096,
                               &o.num_samplers);
            break;
        case O_SERVER_THREADS:
            bad = dp_parse_int("--num_server_threads", optarg, 1, 65536,
                               &o.num_server_threads);
            break;
        case O_OMP:
            bad = dp_parse_int("--num_omp_threads", optarg, 1, 65536,
                               &o.num_omp_threads);
            break;
        case O_FORMAT:
            o.graph_format = optarg;
            if (!check_format(optarg))
                bad = dp_error(DP_EINVAL,
                               "--graph_format '%s': use csc, csr, "
                               "coo or a comma list of them",
                               optarg);
            break;
        case O_EXTRA:
            /* nargs='+' like launch.py: more NAME=VALUE words follow, as
             * long as one argument is left for the command. */
            if (!is_env_word(optarg)) {
                bad = dp_error(DP_EINVAL,
                               "--extra_envs '%s' is not "
                               "NAME=VALUE",
                               optarg);
                break;
            }
            extra[n_extra++] = optarg;
            while (optind < argc - 1 && is_env_word(argv[optind]))
                extra[n_extra++] = argv[optind++];
            break;
        case O_SSH_PORT:
            bad = dp_parse_int("--ssh_port", optarg, 1, 65535, &o.ssh.port);
            break;
        case O_SSH_USER:
            o.ssh.user = optarg;
            break;
        case O_SSH_OPTS:
            o.ssh.opts = optarg;
            break;
        case O_KEEP:
            o.keep_alive = 1;
            break;
        case O_NAME:
            o.server_name = optarg;
            break;
        case O_STOP:
            stop = optarg;
            break;
        case O_LOGDIR:
            o.log_dir = optarg;
            break;
        case O_STANDALONE:
            o.standalone = 1;
            break;
        case O_GRACE:
            bad = dp_parse_double("--grace", optarg, 0, 3600, &d);
            o.grace = d;
            break;
        case O_MASTER_PORT:
            bad = dp_parse_int("--master_port", optarg, 1, 65535, &v);
            o.master_port = v;
            break;
        case O_STATE_DIR:
            o.state_dir = optarg;
            break;
        case O_TLAUNCHER:
            if (!strcmp(optarg, "auto"))
                o.trainer_launcher = DP_TRAINERS_AUTO;
            else if (!strcmp(optarg, "torchrun"))
                o.trainer_launcher = DP_TRAINERS_TORCHRUN;
            else if (!strcmp(optarg, "direct"))
                o.trainer_launcher = DP_TRAINERS_DIRECT;
            else
                bad = dp_error(DP_EINVAL,
                               "--trainer_launcher '%s': expected auto, "
                               "torchrun or direct",
                               optarg);
            break;
        case O_LOCAL_RANK_ARG:
            o.local_rank_arg = 1;
            break;
        default:
            free(extra);
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (bad) {
        free(extra);
        return dp_cmd_misuse(usage, "%s", dp_errmsg());
    }
    o.extra_envs = extra;
    o.n_extra_envs = n_extra;
    msg[0] = '\0';
    if (stop) {
        if (optind != argc)
            snprintf(msg, sizeof(msg), "--stop takes no command");
    } else if (optind != argc - 1) {
        snprintf(msg, sizeof(msg),
                 optind == argc ? "missing the COMMAND to run"
                                : "give the COMMAND as one quoted argument");
    } else if (o.standalone) {
        if (!o.part_config)
            snprintf(msg, sizeof(msg), "--standalone needs --part_config");
    } else if (!o.workspace || !o.ip_config || !o.part_config) {
        snprintf(msg, sizeof(msg),
                 "--workspace, --ip_config and "
                 "--part_config are required");
    } else if (o.num_trainers < 0 || o.num_servers < 0) {
        snprintf(msg, sizeof(msg),
                 "--num_trainers and --num_servers are "
                 "required");
    } else if (o.keep_alive && !o.server_name) {
        snprintf(msg, sizeof(msg), "--keep_alive needs --server_name");
    }
    if (msg[0]) {
        free(extra);
        return dp_cmd_misuse(usage, "%s", msg);
    }
    if (stop) {
        free(extra);
        return dp_cmd_done(dp_launch_stop(stop, o.state_dir, o.grace));
    }
    o.command = argv[optind];
    if (o.num_trainers < 0)
        o.num_trainers = 1;
    if (o.num_servers < 0)
        o.num_servers = 1;
    rc = dp_launch_run(&o, &status);
    free(extra);
    if (!rc && status)
        rc = status == 1 ? DP_EREMOTE : DP_EINTR;
    rc = dp_cmd_done(rc);
    /* 128+N when signal N stopped the launcher */
    return rc && status > 1 ? status : rc;
}
