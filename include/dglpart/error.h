/* Error codes and messages shared by every stage: library functions return
 * 0 or a code and leave a one-line message for the caller to print. */
#ifndef DGLPART_ERROR_H
#define DGLPART_ERROR_H

#include <stdarg.h>

/* New codes go at the end, so numbers never change. */
#define DP_ERR_MAP(X)                                                          \
    X(DP_OK, "success")                                                        \
    X(DP_EINVAL, "invalid argument")                                           \
    X(DP_ENOMEM, "out of memory")                                              \
    X(DP_EIO, "input/output error")                                            \
    X(DP_EFORMAT, "malformed input")                                           \
    X(DP_ERANGE, "value out of range")                                         \
    X(DP_ETOOBIG, "too large")                                                 \
    X(DP_EEXIST, "already exists")                                             \
    X(DP_ENOENT, "not found")                                                  \
    X(DP_ENET, "network error")                                                \
    X(DP_ECHECKSUM, "checksum mismatch")                                       \
    X(DP_EMETIS, "METIS failed")                                               \
    X(DP_EREMOTE, "remote command failed")                                     \
    X(DP_EINTR, "interrupted")                                                 \
    X(DP_EPROTO, "protocol error")                                             \
    X(DP_EUNSUPPORTED, "unsupported")

#define DP_ERR_ENUM(name, text) name,
enum dp_err { DP_ERR_MAP(DP_ERR_ENUM) DP_ERR__COUNT };
#undef DP_ERR_ENUM

/* Static text for a code; never NULL. */
const char *dp_strerror(int code);

/* Record a formatted one-line message for this thread and return code.
 * Use as `return dp_error(DP_EFORMAT, "'%s' line %zu: ...", path, line);`
 * The arguments may include dp_errmsg(). */
int dp_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Wrap the last message: record "<formatted>: <last message>" (the code's
 * dp_strerror() text when there is none) and return code.
 * Use as `return dp_error_prefix(DP_EFORMAT, "'%s'", path);` */
int dp_error_prefix(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last message recorded by dp_error() on this thread (borrowed, valid
 * until the next dp_error() or dp_report() on this thread); "" when none. */
const char *dp_errmsg(void);

/* Name printed before messages, e.g. "dglpart convert"; borrowed. */
void dp_set_progname(const char *name);
const char *dp_progname(void);

/* Print "<progname>: warning: ..." to stderr now. */
void dp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "<progname>: <last message>" to stderr and clear the message; used
 * by command mains. */
void dp_report(int code);
/* From now on dp_report prints nothing: a rank of an mpirun whose error
 * rank 0 reports too. */
void dp_mute(void);

/* Set by -v (1) and -vv (2): how much dp_log prints. */
extern int dp_verbose;

enum dp_log_level {
    DP_LOG_INFO = 0, /* always: what the user should know happened */
    DP_LOG_V = 1,    /* -v: each step's time and peak memory, choices made */
    DP_LOG_VV = 2    /* -vv: each level, bucket, process and client */
};

/* Print "<progname>: <message>" to stderr when dp_verbose >= level. */
void dp_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A request to stop, from any thread (the Python package calls it on
 * Ctrl-C while the library runs on another thread). Long loops call
 * dp_check_interrupt() at their natural steps: 0, or DP_EINTR with a
 * message, and the usual failure path removes what was half-written.
 * dp_interrupt_clear() rearms it before a new call. */
void dp_interrupt(void);
void dp_interrupt_clear(void);
int dp_check_interrupt(void);

#endif
