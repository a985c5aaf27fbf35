/* Helpers shared by the command files: --help, the misuse message and the
 * common end of a command. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/cmds.h"
#include "dglpart/error.h"

int dp_wants_help(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    }
    return 0;
}

int dp_cmd_usage(const char *usage)
{
    fputs(usage, stdout);
    return dp_cmd_done(0);
}

/* Misuse: "<progname>: <message>" and the usage on stderr; returns 2. */
int dp_cmd_misuse(const char *usage, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", dp_progname());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

/* The end of a command: flush stdout, report a failure; the exit status. */
int dp_cmd_done(int rc)
{
    /* a write that failed while the buffer filled leaves only the error
     * flag: fflush then has nothing left to fail on */
    if ((fflush(stdout) != 0 || ferror(stdout)) && !rc)
        rc = dp_error(DP_EIO, "cannot write to stdout");
    if (rc) {
        dp_report(rc);
        return 1;
    }
    return 0;
}

/* After getopt_long (opterr = 0) returned '?' or ':': name the option. */
int dp_cmd_bad_option(const char *usage, char **argv)
{
    const char *arg = argv[optind - 1];

    /* a short option: getopt stays on its word while letters follow it
     * (-vx), so the letter is named, not the word */
    if (optopt > 0 && optopt < 128 && strncmp(arg, "--", 2))
        return dp_cmd_misuse(usage, "bad option '-%c'", optopt);
    if (optopt && !strncmp(arg, "--", 2))
        return dp_cmd_misuse(usage,
                             strchr(arg, '=') ? "'%s' takes no value"
                                              : "'%s' needs a value",
                             arg);
    return dp_cmd_misuse(usage, "bad option '%s'", arg);
}
