/* dglpart pack: MANIFEST and tar stream of one part. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/copy.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

static const char usage[] =
    "usage: dglpart pack --part_config G.json --part I [--output FILE]\n"
    "                    [--manifest]\n"
    "\n"
    "Write part<I>/MANIFEST (size and sha256 of every file of part I, kept\n"
    "next to the part's files when that folder is writable, and reused while\n"
    "it is newer than them) and stream a tar of part<I>/ (its files and the\n"
    "MANIFEST) to stdout or FILE, e.g.\n"
    "  dglpart pack --part_config data/G.json --part 2 | ssh host tar -x -C "
    "ws\n"
    "\n"
    "  --part_config FILE  the partition config JSON\n"
    "  --part I            which part (0-based)\n"
    "  --output FILE       write the tar to FILE (atomically) instead of "
    "stdout\n"
    "  --manifest          print the MANIFEST to stdout instead of a tar\n";

int cmd_pack(int argc, char **argv)
{
    static const struct option opts[] = {
        { "part_config", required_argument, NULL, 'c' },
        { "part", required_argument, NULL, 'p' },
        { "output", required_argument, NULL, 'o' },
        { "manifest", no_argument, NULL, 'm' },
        { NULL, 0, NULL, 0 },
    };
    struct dp_pack_opts o = { NULL, -1, NULL, 0 };
    int c;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            o.part_config = optarg;
            break;
        case 'p':
            if (dp_parse_int("--part", optarg, 0, 1 << 20, &o.part))
                return dp_cmd_misuse(usage, "%s", dp_errmsg());
            break;
        case 'o':
            o.output = optarg;
            break;
        case 'm':
            o.manifest_only = 1;
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (optind != argc)
        return dp_cmd_misuse(usage, "unexpected argument '%s'", argv[optind]);
    if (!o.part_config || o.part < 0)
        return dp_cmd_misuse(usage, "--part_config and --part are required");
    /* A reader that goes away (| head) is an error to report, not a kill. */
    signal(SIGPIPE, SIG_IGN);
    return dp_cmd_done(dp_pack_run(&o));
}
