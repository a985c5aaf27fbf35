/* Command entry points: each parses its own arguments (argv[0] is the
 * command name) and returns the exit status: 0 ok, 1 failure, 2 misuse. */
#ifndef DGLPART_CMDS_H
#define DGLPART_CMDS_H

int cmd_run(int argc, char **argv); /* the all-in-one pipeline */
int cmd_convert(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_download(int argc, char **argv);
int cmd_datasets(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_launch(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_sample(int argc, char **argv);

/* Shared by commands: true when argv holds -h or --help (before a "--").
 * Every command starts with
 *     if (dp_wants_help(argc, argv))
 *         return dp_cmd_usage(usage);
 * so that --help works whatever else the line holds. */
int dp_wants_help(int argc, char **argv);
/* Print usage to stdout; returns dp_cmd_done(0). */
int dp_cmd_usage(const char *usage);

/* Misuse: print "<progname>: <message>" and then usage to stderr; returns 2.
 */
int dp_cmd_misuse(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* After getopt_long (with opterr = 0) returned '?' or ':': misuse naming
 * the option (unknown, missing its value, or given one it takes none). */
int dp_cmd_bad_option(const char *usage, char **argv);

/* End of a command, which every command returns through: flush stdout (a
 * failed write becomes DP_EIO), print the message of a non-zero rc;
 * returns the exit status, 0 or 1. */
int dp_cmd_done(int rc);

#endif
