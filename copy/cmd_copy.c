/* dglpart copy: ship each part to its host over ssh, or once to NFS. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/copy.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

static const char usage[] =
    "usage: dglpart copy --part_config data/G.json --ip_config ip_config.txt\n"
    "                    --workspace DIR --rel_data_path NAME\n"
    "                    [--script_folder DIR] [--ssh_port P] [--ssh_username "
    "U]\n"
    "                    [--ssh_opts \"...\"] [--parallel N] [--nfs "
    "[--nfs_host H]]\n"
    "                    [--limit_rate BYTES] [--dry_run] [--verify]\n"
    "\n"
    "Host i of ip_config.txt gets, under DIR: ip_config.txt, NAME/G.json with\n"
    "paths relative to it, NAME/part<i>/ (with a MANIFEST of sizes and\n"
    "sha256) and the script folder. Each host is one tar stream over one ssh\n"
    "connection (BatchMode, never prompts), unpacked into a temporary folder\n"
    "and moved into place when complete; the remote needs only sh, tar,\n"
    "mkdir, mv, rm and sha256sum. Units whose remote MANIFEST or sha256 match\n"
    "are not sent again, so a re-run finishes only what is missing. Prints a\n"
    "table (host, bytes, seconds, status); exit 1 if any host failed.\n"
    "\n"
    "  --part_config FILE    the partition config JSON\n"
    "  --ip_config FILE      one host per line: IP [PORT]; one per part\n"
    "  --workspace DIR       the folder on every host\n"
    "  --rel_data_path NAME  folder under DIR for the config and parts\n"
    "  --script_folder DIR   copied to DIR/<its name> (optional)\n"
    "  --ssh_port P          ssh port (default: ssh's)\n"
    "  --ssh_username U      remote user (default: ssh's)\n"
    "  --ssh_opts \"...\"      extra ssh options, split on blanks (e.g. \"-F "
    "cfg\")\n"
    "  --parallel N          hosts at a time (default: all)\n"
    "  --nfs                 DIR is shared storage: write everything once,\n"
    "                        locally (or through --nfs_host H over ssh)\n"
    "  --limit_rate BYTES    cap each host's stream at BYTES per second\n"
    "  --dry_run             print what would go where; connect to nothing\n"
    "  --verify              hash the remote files before and after sending\n";

int cmd_copy(int argc, char **argv)
{
    enum {
        O_CONFIG = 256,
        O_IP,
        O_WS,
        O_REL,
        O_SCRIPT,
        O_PORT,
        O_USER,
        O_OPTS,
        O_PAR,
        O_NFS,
        O_NFSHOST,
        O_RATE,
        O_DRY,
        O_VERIFY
    };
    static const struct option opts[] = {
        { "part_config", required_argument, NULL, O_CONFIG },
        { "ip_config", required_argument, NULL, O_IP },
        { "workspace", required_argument, NULL, O_WS },
        { "rel_data_path", required_argument, NULL, O_REL },
        { "script_folder", required_argument, NULL, O_SCRIPT },
        { "ssh_port", required_argument, NULL, O_PORT },
        { "ssh_username", required_argument, NULL, O_USER },
        { "ssh_opts", required_argument, NULL, O_OPTS },
        { "parallel", required_argument, NULL, O_PAR },
        { "nfs", no_argument, NULL, O_NFS },
        { "nfs_host", required_argument, NULL, O_NFSHOST },
        { "limit_rate", required_argument, NULL, O_RATE },
        { "dry_run", no_argument, NULL, O_DRY },
        { "verify", no_argument, NULL, O_VERIFY },
        { NULL, 0, NULL, 0 },
    };
    struct dp_copy_opts o;
    int c, rc = 0;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    memset(&o, 0, sizeof(o));
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_CONFIG:
            o.part_config = optarg;
            break;
        case O_IP:
            o.ip_config = optarg;
            break;
        case O_WS:
            o.workspace = optarg;
            break;
        case O_REL:
            o.rel_data_path = optarg;
            break;
        case O_SCRIPT:
            o.script_folder = optarg;
            break;
        case O_PORT:
            rc = dp_parse_int("--ssh_port", optarg, 1, 65535, &o.ssh_port);
            break;
        case O_USER:
            o.ssh_username = optarg;
            break;
        case O_OPTS:
            o.ssh_opts = optarg;
            break;
        case O_PAR:
            rc = dp_parse_int("--parallel", optarg, 1, 100000, &o.parallel);
            break;
        case O_NFS:
            o.nfs = 1;
            break;
        case O_NFSHOST:
            o.nfs_host = optarg;
            break;
        case O_RATE:
            rc =
                dp_parse_double("--limit_rate", optarg, 1, 1e15, &o.limit_rate);
            break;
        case O_DRY:
            o.dry_run = 1;
            break;
        case O_VERIFY:
            o.verify = 1;
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
        if (rc)
            return dp_cmd_misuse(usage, "%s", dp_errmsg());
    }
    if (optind != argc)
        return dp_cmd_misuse(usage, "unexpected argument '%s'", argv[optind]);
    if (!o.part_config || !o.ip_config || !o.workspace || !o.rel_data_path)
        return dp_cmd_misuse(usage, "--part_config, --ip_config, --workspace "
                                    "and --rel_data_path are required");
    if (o.nfs_host && !o.nfs)
        return dp_cmd_misuse(usage, "--nfs_host needs --nfs");
    /* A dropped connection must fail its host, not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    return dp_cmd_done(dp_copy_run(&o));
}
