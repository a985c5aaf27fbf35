/* dglpart verify: check a partition set (ours or DGL's) and print its stats. */
#include <getopt.h>
#include <stdio.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"
#include "dglpart/verify.h"

static const char usage[] =
    "usage: dglpart verify CONFIG.json [--dataset DATASET_DIR] [--max_lines "
    "N]\n"
    "                      [--ndata_name OLD=NEW,...]\n"
    "                      [--edata_name OLD=NEW,...]\n"
    "\n"
    "Check a partition set written by dglpart or by DGL's partition_graph:\n"
    "the JSON against the part files, contiguous and complete node/edge maps,\n"
    "every node inner in exactly one part, local order (inner nodes and edges\n"
    "first, local id = global id - range start), the inner edges of all parts\n"
    "together forming the whole graph, halos complete for halo_hops, feature\n"
    "rows, and orig ids (orig_nids.npy or part*/orig_nids.dgl, orig_eids\n"
    "optional) forming permutations. Prints the stats table on stdout and\n"
    "one line per problem on stderr; exits 0 only when every check passes.\n"
    "\n"
    "  --dataset DIR   also compare edges, node data (feat, label, masks;\n"
    "                  typed: every <ntype>/<name>) and edge data (weight;\n"
    "                  typed: every <src:rel:dst>/<name>) with the converted\n"
    "                  dataset DIR row by row, through the orig ids (edges\n"
    "                  by endpoints when either side lacks edge ids); the\n"
    "                  part's feat and label may also be\n"
    "                  called features and labels, as DGL's examples name\n"
    "                  them and the pipeline writes them\n"
    "  --ndata_name OLD=NEW,...  the names the parts were written with\n"
    "                  ('dglpart partition --ndata_name')\n"
    "  --edata_name OLD=NEW,...  likewise for edge data\n"
    "  --max_lines N   print at most N problem lines (default 100)\n";

struct verify_options {
    const char *config;
    const char *dataset;
    const char *ndata_name;
    const char *edata_name;
    int max_lines;
};

int cmd_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "dataset", required_argument, NULL, 'd' },
        { "max_lines", required_argument, NULL, 'm' },
        { "ndata_name", required_argument, NULL, 'n' },
        { "edata_name", required_argument, NULL, 'e' },
        { NULL, 0, NULL, 0 },
    };
    struct verify_options opt = { NULL, NULL, NULL, NULL, 100 };
    struct dp_verify_opts vo;
    struct dp_verify_stats st;
    int c, rc;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            opt.dataset = optarg;
            break;
        case 'm':
            if (dp_parse_int("--max_lines", optarg, 1, 1000000, &opt.max_lines))
                return dp_cmd_misuse(usage, "%s", dp_errmsg());
            break;
        case 'n':
            opt.ndata_name = optarg;
            break;
        case 'e':
            opt.edata_name = optarg;
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (optind != argc - 1)
        return dp_cmd_misuse(usage, "expected one CONFIG.json");
    opt.config = argv[optind];
    vo.config = opt.config;
    vo.dataset = opt.dataset;
    vo.ndata_name = opt.ndata_name;
    vo.edata_name = opt.edata_name;
    vo.err = stderr;
    vo.max_lines = opt.max_lines;
    rc = dp_verify(&vo, &st);
    if (rc == 0 || rc == DP_EFORMAT)
        dp_verify_print(&st, stdout);
    dp_verify_stats_release(&st);
    return dp_cmd_done(rc);
}
