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

/* Shared by commands: true when argv holds -h or --help. */
int dp_wants_help(int argc, char **argv);

/* Misuse: print "<progname>: <message>" and then usage to stderr; returns 2.
 */
int dp_cmd_misuse(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* After getopt_long (with opterr = 0) returned '?' or ':': misuse naming
 * argv[optind - 1] (an unknown option, or one missing its value). */
int dp_cmd_bad_option(const char *usage, char **argv);

/* End of a command: flush stdout (a failed write becomes DP_EIO), print
 * the message of a non-zero rc; returns the exit status, 0 or 1. */
int dp_cmd_done(int rc);

#endif
