/* dglpart partition: parse the options, then one call to dp_partition(). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/comm.h"
#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"
#include "dglpart/partition.h"

static const char usage[] =
    "usage: dglpart partition DATASET_DIR --num_parts K --output DIR\n"
    "         [--graph_name NAME] [--part_method metis|random]\n"
    "         [--part_assign FILE|DIR] [--balance_train] [--balance_edges]\n"
    "         [--balance_ntypes TYPE] [--num_hops H] [--halo_edges all|in]\n"
    "         [--objtype cut|vol] [--num_trainers_per_machine T]\n"
    "         [--imbalance 1.03] [--seed S] [--graph_formats coo,csc,csr]\n"
    "         [--no_orig_ids] [--no_orig_eids] [--overwrite]\n"
    "         [--write_metis FILE]"
    "         [--write_assign FILE]\n"
    "         [--ndata_name OLD=NEW,...] [--edata_name OLD=NEW,...]\n"
    "         [--metis_mode auto|exact|multilevel] [--mem_limit SIZE]\n"
    "\n"
    "Partition a dataset folder (from 'dglpart convert') into DGL's format:\n"
    "DIR/<graph_name>.json and DIR/part<i>/{graph,node_feat,edge_feat}.dgl,\n"
    "plus part<i>/orig_{nids,eids}.dgl and DIR/partition-stats.json.\n"
    "\n"
    "  --num_parts K          number of parts (1: DGL's standalone layout)\n"
    "  --output DIR           output folder; refused if it exists\n"
    "  --graph_name NAME      name in the config (default: the dataset's)\n"
    "  --part_method M        metis (default) or random (seeded, balanced)\n"
    "  --part_assign FILE     one part id per node (text or .npy), or DGL's\n"
    "                         folder of <ntype>.txt + partition_meta.json\n"
    "  --balance_train        balance train nodes (a column per mask value;\n"
    "                         typed: of the type with a train_mask, and\n"
    "                         every other node type as one more class)\n"
    "  --balance_ntypes TYPE  --balance_train on the train_mask of TYPE\n"
    "  --balance_edges        balance in-edges (and the node count; typed:\n"
    "                         per balance class, as DGL)\n"
    "  --num_hops H           halo hops (default 1)\n"
    "  --halo_edges all|in    all (default): DGL's partition_graph halo,\n"
    "                         with the out-edges leaving the part; in: only\n"
    "                         the in-edges of the nodes within the hops, as\n"
    "                         DGL's dispatch_data (about half the bytes)\n"
    "  --objtype cut|vol      METIS objective (default cut)\n"
    "  --num_trainers_per_machine T\n"
    "                         METIS into K*T parts, stored as trainer_id\n"
    "  --imbalance X          allowed max/avg per constraint (default 1.03)\n"
    "  --seed S               METIS and random seed (default: METIS's own\n"
    "                         default seed, as gpmetis; 0 for random)\n"
    "  --graph_formats LIST   formats stored in graph.dgl (default coo)\n"
    "  --no_orig_ids          skip orig_nids.dgl / orig_eids.dgl\n"
    "  --no_orig_eids         skip orig_eids.dgl only (8 bytes an edge;\n"
    "                         DGL's dispatch_data writes neither unless\n"
    "                         asked)\n"
    "  --overwrite            replace DIR once the new set is complete\n"
    "  --write_metis FILE     write the graph METIS sees (with the same\n"
    "                         vertex weights) as a METIS .graph and stop\n"
    "  --write_assign FILE    also write each node's part (.npy or text),\n"
    "                         for a later --part_assign that skips METIS\n"
    "  --ndata_name OLD=NEW,...  store node data under other names: OLD is\n"
    "                         feat, label, train_mask, val_mask, test_mask\n"
    "                         or trainer_id (default: as in the dataset; the\n"
    "                         pipeline writes feat=features,label=labels)\n"
    "  --edata_name OLD=NEW,...  the same for edge data (weight, trainer_id)\n"
    "  --metis_mode M         how METIS partitions: exact (the whole graph),\n"
    "                         multilevel (our coarsening, METIS on the\n"
    "                         coarsest graph, our refinement: several times\n"
    "                         faster and leaner) or auto (default: multilevel\n"
    "                         for the edge cut above 16M adjacency entries)\n"
    "  --mem_limit SIZE       memory budget (64M, 20G; default: "
    "MemAvailable).\n"
    "                         Before any long work the run's peak memory and\n"
    "                         disk (output and scratch files, on DIR's file\n"
    "                         system) are estimated; one that cannot fit\n"
    "                         fails at once with both figures. A tight budget\n"
    "                         puts every graph that can go in a scratch file\n"
    "                         beside DIR; the parts are the same\n"
    "\n"
    "environment ('dglpart help env' lists every variable):\n"
    "  DGLPART_HUGEPAGES=0    no restart asking glibc for huge pages (METIS\n"
    "                         is about 10% faster with them)\n"
    "  DGLPART_SPILL=0        keep METIS's copy of the graph in memory, not\n"
    "                         in a scratch file beside DIR\n"
    "  DGLPART_DIRECT_IO=0    write part files through the page cache\n"
    "  DGLPART_PROGRESS=1     progress lines even when stderr is no terminal\n";

enum {
    OPT_NUM_PARTS = DP_PARTITION_OPT_FIRST,
    OPT_OUTPUT,
    OPT_GRAPH_NAME,
    OPT_PART_METHOD,
    OPT_PART_ASSIGN,
    OPT_BALANCE_TRAIN,
    OPT_BALANCE_EDGES,
    OPT_NUM_HOPS,
    OPT_OBJTYPE,
    OPT_TRAINERS,
    OPT_IMBALANCE,
    OPT_SEED,
    OPT_FORMATS,
    OPT_NO_ORIG,
    OPT_NO_ORIG_EIDS,
    OPT_OVERWRITE,
    OPT_WRITE_METIS,
    OPT_WRITE_ASSIGN,
    OPT_NDATA_NAME,
    OPT_EDATA_NAME,
    OPT_METIS_MODE,
    OPT_BALANCE_NTYPES,
    OPT_MEM_LIMIT,
    OPT_HALO_EDGES
};

static const struct option longopts_table[] = {
    { "num_parts", required_argument, NULL, OPT_NUM_PARTS },
    { "output", required_argument, NULL, OPT_OUTPUT },
    { "graph_name", required_argument, NULL, OPT_GRAPH_NAME },
    { "part_method", required_argument, NULL, OPT_PART_METHOD },
    { "part_assign", required_argument, NULL, OPT_PART_ASSIGN },
    { "balance_train", no_argument, NULL, OPT_BALANCE_TRAIN },
    { "balance_edges", no_argument, NULL, OPT_BALANCE_EDGES },
    { "num_hops", required_argument, NULL, OPT_NUM_HOPS },
    { "objtype", required_argument, NULL, OPT_OBJTYPE },
    { "num_trainers_per_machine", required_argument, NULL, OPT_TRAINERS },
    { "imbalance", required_argument, NULL, OPT_IMBALANCE },
    { "seed", required_argument, NULL, OPT_SEED },
    { "graph_formats", required_argument, NULL, OPT_FORMATS },
    { "no_orig_ids", no_argument, NULL, OPT_NO_ORIG },
    { "no_orig_eids", no_argument, NULL, OPT_NO_ORIG_EIDS },
    { "overwrite", no_argument, NULL, OPT_OVERWRITE },
    { "write_metis", required_argument, NULL, OPT_WRITE_METIS },
    { "write_assign", required_argument, NULL, OPT_WRITE_ASSIGN },
    { "ndata_name", required_argument, NULL, OPT_NDATA_NAME },
    { "edata_name", required_argument, NULL, OPT_EDATA_NAME },
    { "metis_mode", required_argument, NULL, OPT_METIS_MODE },
    { "balance_ntypes", required_argument, NULL, OPT_BALANCE_NTYPES },
    { "mem_limit", required_argument, NULL, OPT_MEM_LIMIT },
    { "halo_edges", required_argument, NULL, OPT_HALO_EDGES },
    { NULL, 0, NULL, 0 }
};

const struct option *const dp_partition_longopts = longopts_table;
const char *const dp_partition_usage = usage;

int dp_partition_parse_opt(struct dp_partition_opts *o, int opt,
                           const char *arg)
{
    switch (opt) {
    case OPT_NUM_PARTS:
        return dp_parse_int("--num_parts", arg, 1, 1 << 20, &o->num_parts);
    case OPT_OUTPUT:
        o->out = arg;
        return 0;
    case OPT_GRAPH_NAME:
        o->graph_name = arg;
        return 0;
    case OPT_PART_METHOD:
        if (strcmp(arg, "metis") && strcmp(arg, "random"))
            return dp_error(DP_EINVAL,
                            "--part_method '%s': expected metis or "
                            "random",
                            arg);
        o->part_method = arg;
        return 0;
    case OPT_PART_ASSIGN:
        o->part_assign = arg;
        return 0;
    case OPT_BALANCE_TRAIN:
        o->balance_train = 1;
        return 0;
    case OPT_BALANCE_EDGES:
        o->balance_edges = 1;
        return 0;
    case OPT_BALANCE_NTYPES:
        if (!*arg)
            return dp_error(DP_EINVAL, "--balance_ntypes: empty type name");
        o->balance_ntypes = arg;
        o->balance_train = 1;
        return 0;
    case OPT_NUM_HOPS:
        return dp_parse_int("--num_hops", arg, 0, 1000, &o->num_hops);
    case OPT_HALO_EDGES:
        if (!strcmp(arg, "all"))
            o->halo_in = 0;
        else if (!strcmp(arg, "in"))
            o->halo_in = 1;
        else
            return dp_error(DP_EINVAL, "--halo_edges '%s': expected all or in",
                            arg);
        return 0;
    case OPT_OBJTYPE:
        if (!strcmp(arg, "cut"))
            o->objtype_vol = 0;
        else if (!strcmp(arg, "vol"))
            o->objtype_vol = 1;
        else
            return dp_error(DP_EINVAL, "--objtype '%s': expected cut or vol",
                            arg);
        return 0;
    case OPT_TRAINERS:
        return dp_parse_int("--num_trainers_per_machine", arg, 1, 4096,
                            &o->num_trainers);
    case OPT_IMBALANCE:
        return dp_parse_double("--imbalance", arg, 1.0, 100.0, &o->imbalance);
    case OPT_SEED:
        return dp_parse_i64("--seed", arg, 0, INT32_MAX, &o->seed);
    case OPT_FORMATS:
        return dp_parse_graph_formats(arg, &o->graph_formats);
    case OPT_NO_ORIG:
        o->no_orig_ids = 1;
        return 0;
    case OPT_NO_ORIG_EIDS:
        o->no_orig_eids = 1;
        return 0;
    case OPT_OVERWRITE:
        o->overwrite = 1;
        return 0;
    case OPT_WRITE_METIS:
        o->write_metis = arg;
        return 0;
    case OPT_WRITE_ASSIGN:
        o->write_assign = arg;
        return 0;
    case OPT_METIS_MODE:
        if (!strcmp(arg, "auto"))
            o->metis_mode = DP_METIS_AUTO;
        else if (!strcmp(arg, "exact"))
            o->metis_mode = DP_METIS_EXACT;
        else if (!strcmp(arg, "multilevel"))
            o->metis_mode = DP_METIS_MULTILEVEL;
        else
            return dp_error(DP_EINVAL,
                            "--metis_mode '%s': expected auto, exact or "
                            "multilevel",
                            arg);
        return 0;
    case OPT_MEM_LIMIT:
        return dp_parse_size("--mem_limit", arg, (int64_t)1 << 20,
                             (int64_t)1 << 50, &o->mem_limit);
    case OPT_NDATA_NAME:
    case OPT_EDATA_NAME: {
        /* checked now, so a malformed spec is misuse; applied later */
        struct dp_rename r;
        int rc = dp_rename_parse(
            opt == OPT_NDATA_NAME ? "--ndata_name" : "--edata_name", arg, &r);

        if (rc)
            return rc;
        dp_rename_release(&r);
        if (opt == OPT_NDATA_NAME)
            o->ndata_name = arg;
        else
            o->edata_name = arg;
        return 0;
    }
    }
    return DP_EINVAL;
}

/* Under mpirun: one distributed partition over every rank. */
static int partition_mpi(const struct dp_partition_opts *o)
{
    struct dp_comm *c;
    int rc;

    if ((rc = dp_comm_init(&c)))
        return rc;
    rc = dp_partition_dist(o, c);
    return dp_comm_exit(c, rc);
}

int cmd_partition(int argc, char **argv)
{
    struct dp_partition_opts o;
    int c, rc;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    dp_partition_opts_init(&o);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts_table, NULL)) != -1) {
        if (c == '?' || c == ':')
            return dp_cmd_bad_option(usage, argv);
        if (dp_partition_parse_opt(&o, c, optarg))
            return dp_cmd_misuse(usage, "%s", dp_errmsg());
    }
    if (argc - optind != 1)
        return dp_cmd_misuse(usage, "expected one DATASET_DIR");
    if (!o.out && !o.write_metis)
        return dp_cmd_misuse(usage, "--output DIR is required");
    if (o.part_assign && !strcmp(o.part_method, "random"))
        return dp_cmd_misuse(usage, "--part_assign and --part_method random "
                                    "exclude each other");
    o.dataset = argv[optind];
    if ((rc = dp_env_bool("DGLPART_TEST_LEAN_DISK", &o.lean_disk)))
        return dp_cmd_done(rc);
    if (dp_comm_distributed())
        return dp_cmd_done(partition_mpi(&o));
    return dp_cmd_done(dp_partition(&o));
}
