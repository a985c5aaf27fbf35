/* dglpart download: fetch a registry dataset or a URL into the data dir,
 * resumable and verified, and print the local folder on stdout. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/download.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

static const char usage[] =
    "usage: dglpart download NAME|URL [--data_dir DIR] [--mirror BASE_URL]\n"
    "                        [--sha256 HEX] [--retries N] [--timeout S]\n"
    "                        [--keep_archive] [--no_progress]\n"
    "\n"
    "Fetch a dataset named in the registry ('dglpart datasets') or any\n"
    "http(s):// or file:// URL into DIR/<folder>/ and print that path.\n"
    "A dataset already fetched and verified is not fetched again.\n"
    "\n"
    "  --data_dir DIR     cache folder (default $DGLPART_DATA_DIR or "
    "./dataset)\n"
    "  --mirror BASE_URL  replace the scheme://host of the URLs by BASE_URL\n"
    "                     (default $DGLPART_MIRROR)\n"
    "  --sha256 HEX       expected digest of the downloaded file\n"
    "  --retries N        retries after a failure that made no progress (5)\n"
    "  --timeout S        give up a connection idle for S seconds (60)\n"
    "  --keep_archive     keep the archive next to the unpacked folder\n"
    "  --no_progress      no progress bar, one summary line\n";

int cmd_download(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "data_dir", required_argument, NULL, 'd' },
        { "mirror", required_argument, NULL, 'm' },
        { "sha256", required_argument, NULL, 's' },
        { "retries", required_argument, NULL, 'r' },
        { "timeout", required_argument, NULL, 't' },
        { "keep_archive", no_argument, NULL, 'k' },
        { "no_progress", no_argument, NULL, 'n' },
        { NULL, 0, NULL, 0 },
    };
    struct dp_download_opts o;
    struct dp_fetched f;
    int64_t v;
    int c, rc;

    if (dp_wants_help(argc, argv))
        return dp_cmd_usage(usage);
    dp_download_opts_init(&o);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.data_dir = optarg;
            break;
        case 'm':
            o.mirror = optarg;
            break;
        case 's':
            o.sha256 = optarg;
            if (strlen(optarg) != 64 ||
                strspn(optarg, "0123456789abcdefABCDEF") != 64) {
                dp_error(DP_EINVAL, "--sha256 must be 64 hex digits");
                goto misuse;
            }
            break;
        case 'k':
            o.keep_archive = 1;
            break;
        case 'n':
            o.no_progress = 1;
            break;
        case 'r':
            if (dp_parse_int("--retries", optarg, 0, 1000, &o.retries))
                goto misuse;
            break;
        case 't':
            if (dp_parse_i64("--timeout", optarg, 1, 86400, &v))
                goto misuse;
            o.timeout = (long)v;
            break;
        default:
            return dp_cmd_bad_option(usage, argv);
        }
    }
    if (optind != argc - 1)
        return dp_cmd_misuse(usage, "expected one NAME or URL");
    rc = dp_dataset_fetch(argv[optind], &o, &f);
    if (rc)
        return dp_cmd_done(rc);
    if (f.cached && !f.bundled)
        dp_log(DP_LOG_INFO, "%s: cached in %s", f.name, f.path);
    printf("%s\n", f.path);
    dp_fetched_release(&f);
    return dp_cmd_done(0);
misuse:
    return dp_cmd_misuse(usage, "%s", dp_errmsg());
}
