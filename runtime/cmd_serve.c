/* dglpart serve: a graph server for one partition. Options default to the
 * environment DGL's launcher sets (DGL_SERVER_ID, DGL_NUM_SERVER, ...). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"
#include "dglpart/runtime.h"

static const char usage[] =
    "usage: dglpart serve [--part_config CFG] [--ip_config FILE]\n"
    "                     [--server_id N] [--num_servers N] [--num_clients N]\n"
    "                     [--host IP] [--port P] [--keep_alive]\n"
    "                     [--stall_timeout S] [--out_budget MB]\n"
    "\n"
    "Load part server_id / num_servers of CFG and answer sampling, degree and\n"
    "feature requests on the ip_config address of that machine, port = its\n"
    "port + server_id % num_servers. Exit once num_clients clients said\n"
    "goodbye (never with --keep_alive).\n"
    "\n"
    "Defaults come from DGL_CONF_PATH, DGL_IP_CONFIG, DGL_SERVER_ID,\n"
    "DGL_NUM_SERVER (servers per machine, 1) and DGL_NUM_CLIENT (1).\n"
    "--host/--port override the ip_config address. A client that stops for S\n"
    "seconds (default 60; 0: never) in the middle of a request or of reading\n"
    "a reply, or reads its replies at under 64 KiB/s over S seconds, is\n"
    "dropped. Idle clients are kept until the connection table is full (1024,\n"
    "or the descriptor limit less 16): then the one idle longest makes room.\n"
    "Replies queued for all clients take at most about MB megabytes (256);\n"
    "above that, requests wait. Only a client that said hello with a trainer\n"
    "id below num_clients counts toward the goodbyes, once per id.\n"
    "\n"
    "The servers and trainers of a machine share one copy of its part: the\n"
    "first to start builds the part's in-edge arrays into a file in\n"
    "/dev/shm (DGLPART_SHM_DIR; 'none': a private copy each) and publishes\n"
    "it when complete, the others wait for it and map it read-only;\n"
    "features are mapped from their files. The last one to go removes it.\n";

struct serve_opts {
    struct dp_server_opts s;
};

static void defaults(struct serve_opts *o, const struct dp_dist_env *e)
{
    memset(o, 0, sizeof(*o));
    o->s.conf_path = e->conf_path;
    o->s.ip_config = e->ip_config;
    o->s.server_id = e->server_id >= 0 ? e->server_id : 0;
    o->s.num_servers = e->num_servers >= 1 ? e->num_servers : 1;
    o->s.num_clients = e->num_clients >= 0 ? e->num_clients : 1;
}

int cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "part_config", required_argument, NULL, 'c' },
        { "ip_config", required_argument, NULL, 'i' },
        { "server_id", required_argument, NULL, 's' },
        { "num_servers", required_argument, NULL, 'n' },
        { "num_clients", required_argument, NULL, 'C' },
        { "host", required_argument, NULL, 'H' },
        { "port", required_argument, NULL, 'p' },
        { "keep_alive", no_argument, NULL, 'k' },
        { "stall_timeout", required_argument, NULL, 'T' },
        { "out_budget", required_argument, NULL, 'B' },
        { NULL, 0, NULL, 0 }
    };
    struct serve_opts o;
    struct dp_dist_env env;
    int c, rc;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    if ((rc = dp_dist_env(&env))) {
        dp_report(rc);
        return 2;
    }
    defaults(&o, &env);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 'c':
            o.s.conf_path = optarg;
            break;
        case 'i':
            o.s.ip_config = optarg;
            break;
        case 'H':
            o.s.host = optarg;
            break;
        case 'k':
            o.s.keep_alive = 1;
            break;
        case 's':
            rc =
                dp_parse_int("--server_id", optarg, 0, 1 << 20, &o.s.server_id);
            break;
        case 'n':
            rc = dp_parse_int("--num_servers", optarg, 1, 1 << 10,
                              &o.s.num_servers);
            break;
        case 'C':
            rc = dp_parse_int("--num_clients", optarg, 0, 1 << 20,
                              &o.s.num_clients);
            break;
        case 'p':
            rc = dp_parse_int("--port", optarg, 1, 65535, &o.s.port);
            break;
        case 'T':
            rc = dp_parse_int("--stall_timeout", optarg, 0, 86400,
                              &o.s.stall_timeout);
            if (!rc && o.s.stall_timeout == 0)
                o.s.stall_timeout = -1; /* 0 on the command line: never */
            break;
        case 'B': {
            int mb = 0;
            rc = dp_parse_int("--out_budget", optarg, 1, 1 << 20, &mb);
            o.s.out_budget = (size_t)mb << 20;
            break;
        }
        default:
            return dp_cmd_bad_option(usage, argv);
        }
        if (rc)
            return dp_cmd_misuse(usage, "%s", dp_errmsg());
    }
    if (optind < argc || !o.s.conf_path ||
        (!o.s.ip_config && (!o.s.host || o.s.port <= 0))) {
        if (!o.s.conf_path)
            fprintf(stderr, "%s: no --part_config (or DGL_CONF_PATH)\n",
                    dp_progname());
        else if (optind >= argc && !o.s.ip_config)
            fprintf(stderr, "%s: no --ip_config (or DGL_IP_CONFIG)\n",
                    dp_progname());
        fputs(usage, stderr);
        return 2;
    }
    return dp_cmd_done(dp_serve(&o.s));
}
