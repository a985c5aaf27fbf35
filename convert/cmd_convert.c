/* dglpart convert: parse the options and call dp_convert(). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/comm.h"
#include "dglpart/convert.h"
#include "dglpart/error.h"
#include "dglpart/file.h"
#include "dglpart/parse.h"

static const char usage[] =
    "usage: dglpart convert INPUT --out DIR [options]\n"
    "\n"
    "Turn a raw graph dataset into a dataset folder: meta.json, the in-edge\n"
    "CSC (indptr.npy, indices.npy, eids.npy) and feat/label/mask arrays.\n"
    "\n"
    "INPUT is detected by layout, magic bytes and name:\n"
    "  ogb       OGB node-property layout, .zip or its folder (raw/, split/)\n"
    "  edgelist  'src dst' lines (space, tab or comma; # or % comments;\n"
    "            plain or gzip); node count = largest id + 1\n"
    "  metis     METIS .graph (fmt 0/1/10/11, ncon); entry u on line v is\n"
    "            the edge u -> v; weights kept\n"
    "  npy       a folder with src.npy, dst.npy [, feat, label, *_mask].npy\n"
    "  linqs     a folder (or file) with NAME.cites and NAME.content[.gz]\n"
    "  npz       a .npz (or a folder of them) of row/col, src/dst or\n"
    "            edge_index, with feature, label, node_types, *_mask\n"
    "Typed (heterogeneous) graphs; ids grouped by type, arrays per type:\n"
    "  ogb       OGB's heterogeneous folder (ogbn-mag): raw/num-node-dict,\n"
    "            raw/triplet-type-list, raw/relations/S___R___D/, node-feat,\n"
    "            node_year, node-label, split/<scheme>/<ntype>/\n"
    "  chunked   DGL's chunked graph format: a folder with metadata.json,\n"
    "            csv edge chunks and numpy data chunks (no parquet)\n"
    "  typed-npy a folder with nodes/<ntype>/ and edges/<src:rel:dst>/:\n"
    "            edges/T/src.npy and dst.npy (per-type ids), any other\n"
    "            edges/T/NAME.npy is edge data; nodes/T/NAME.npy is node\n"
    "            data (feat, label, train_mask, ...), nodes/T/num_nodes a\n"
    "            count when no array gives it; types in name order\n"
    "\n"
    "options:\n"
    "  -o, --out DIR        dataset folder to create (written as DIR.tmp);\n"
    "                       --output DIR is the same\n"
    "  -f, --format FMT     auto (default), ogb, edgelist, metis, npy, linqs,\n"
    "                       npz, chunked, typed-npy\n"
    "      --name NAME      graph name in meta.json (default: from INPUT)\n"
    "      --undirected     add the reverse of every edge: input edge k gives\n"
    "                       edges 2k and 2k+1 (DGL's convention)\n"
    "      --no_self_loops  drop u -> u edges\n"
    "      --dedup          drop repeated (u, v) edges, keeping the first\n"
    "      --num_nodes N    node count (ids must be below N)\n"
    "      --labels FILE    node labels from '<node> <label>' lines (SNAP's\n"
    "                       ground-truth communities); others get -1\n"
    "      --add_reverse_edges  typed graphs: add dst:REL-rev:src for each\n"
    "                       src:REL:dst, edges reversed, no edge data\n"
    "                       (GraphStorm's names); types then in name order\n"
    "      --overwrite      replace DIR if it exists\n"
    "      --id_dtype T     int64: write indices and eids as int64 even when\n"
    "                       int32 holds them (the default, half the disk)\n"
    "      --no_eids        skip eids.npy (input edge ids): partitions of it\n"
    "                       need --no_orig_eids and more than one part; kept\n"
    "                       when the input has edge weights or types\n"
    "      --copy_data      copy per-type data from .npy chunks (chunked,\n"
    "                       typed-npy) into DIR; by default DIR names the\n"
    "                       chunks and partition reads them in place, so\n"
    "                       they must stay where they are (label and masks\n"
    "                       are always copied)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Under mpirun -np P, with DIR's folder one every rank sees, the ranks\n"
    "convert a chunked folder, an edge list (plain or gzipped), an OGB\n"
    "node-property folder (csv or data.npz) or a .npz together, each its\n"
    "share; other inputs are converted by one rank.\n"
    "\n"
    "environment ('dglpart help env' lists every variable):\n"
    "  DGLPART_EDGE_SPILL=B  move the edge arrays to scratch files in DIR's\n"
    "                        temporary folder past B bytes (4 GiB)\n"
    "  DGLPART_ZIP_INFLATE=zlib  inflate a .npz's entries with libarchive's\n"
    "                        zlib instead of ISA-L\n";

/* Under mpirun: the ranks convert together where they can (a chunked
 * input, one output folder they all see), else the lowest rank writing
 * into each output's folder converts alone. */
static int convert_mpi(const struct dp_convert_opts *o)
{
    struct dp_comm *c;
    char *parent;
    int64_t apart;
    int rc, first = 0, lrc = 0;

    if ((rc = dp_comm_init(&c)))
        return rc;
    parent = o->out ? dp_path_dirname(o->out) : NULL;
    if (!parent)
        lrc = o->out ? DP_ENOMEM : dp_error(DP_EINVAL, "--out is required");
    if (!(rc = dp_comm_agree(c, lrc)))
        rc = dp_comm_shared_dir(c, parent, &first);
    apart = first != 0;
    if (!rc)
        rc = dp_comm_allreduce_i64(c, &apart, 1, DP_COMM_MAX);
    if (!rc && !apart && dp_comm_size(c) > 1 &&
        (rc = dp_convert_dist(o, c)) != DP_EUNSUPPORTED)
        goto out;
    if (rc == DP_EUNSUPPORTED || !rc) {
        lrc = first == dp_comm_rank(c) ? dp_convert(o) : 0;
        rc = dp_comm_agree(c, lrc);
    }
out:
    free(parent);
    return dp_comm_exit(c, rc);
}

int cmd_convert(int argc, char **argv)
{
    enum {
        O_NAME = 256,
        O_UND,
        O_NOLOOP,
        O_DEDUP,
        O_NNODES,
        O_OVER,
        O_LABELS,
        O_REV,
        O_IDS,
        O_NOEIDS,
        O_COPY
    };
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' },
        { "output", required_argument, NULL, 'o' }, /* as partition has it */
        { "format", required_argument, NULL, 'f' },
        { "name", required_argument, NULL, O_NAME },
        { "undirected", no_argument, NULL, O_UND },
        { "no_self_loops", no_argument, NULL, O_NOLOOP },
        { "dedup", no_argument, NULL, O_DEDUP },
        { "num_nodes", required_argument, NULL, O_NNODES },
        { "overwrite", no_argument, NULL, O_OVER },
        { "labels", required_argument, NULL, O_LABELS },
        { "id_dtype", required_argument, NULL, O_IDS },
        { "add_reverse_edges", no_argument, NULL, O_REV },
        { "no_eids", no_argument, NULL, O_NOEIDS },
        { "copy_data", no_argument, NULL, O_COPY },
        { NULL, 0, NULL, 0 },
    };
    struct dp_convert_opts o;
    int c;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    dp_convert_opts_init(&o);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:f:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.out = optarg;
            break;
        case 'f':
            o.format = optarg;
            break;
        case O_NAME:
            o.name = optarg;
            break;
        case O_UND:
            o.undirected = 1;
            break;
        case O_NOLOOP:
            o.no_self_loops = 1;
            break;
        case O_DEDUP:
            o.dedup = 1;
            break;
        case O_OVER:
            o.overwrite = 1;
            break;
        case O_LABELS:
            o.labels = optarg;
            break;
        case O_IDS:
            if (strcmp(optarg, "int32") && strcmp(optarg, "int64"))
                return dp_cmd_misuse(usage,
                                     "--id_dtype: expected int32 or "
                                     "int64, not '%s'",
                                     optarg);
            o.ids64 = !strcmp(optarg, "int64");
            break;
        case O_REV:
            o.add_reverse_edges = 1;
            break;
        case O_NOEIDS:
            o.no_eids = 1;
            break;
        case O_COPY:
            o.copy_data = 1;
            break;
        case O_NNODES:
            if (dp_parse_i64("--num_nodes", optarg, 0, INT64_MAX / 4,
                             &o.num_nodes))
                return dp_cmd_misuse(usage, "%s", dp_errmsg());
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (optind + 1 != argc || !o.out)
        return dp_cmd_misuse(usage, "%s",
                             optind >= argc      ? "missing INPUT"
                             : optind + 1 < argc ? "more than one INPUT"
                                                 : "missing --out DIR");
    o.input = argv[optind];
    if (dp_comm_distributed())
        return dp_cmd_done(convert_mpi(&o));
    return dp_cmd_done(dp_convert(&o));
}
