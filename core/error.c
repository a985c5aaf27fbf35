/* The error list, per-thread last message and the program name prefix. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/error.h"

int dp_verbose;

static _Thread_local char last_msg[1024];
static const char *progname = "dglpart";

#define DP_ERR_TEXT(name, text) text,
static const char *const err_text[] = { DP_ERR_MAP(DP_ERR_TEXT) };
#undef DP_ERR_TEXT

const char *dp_strerror(int code)
{
    if (code < 0 || code >= DP_ERR__COUNT)
        return "unknown error";
    return err_text[code];
}

static void set_msg(const char *tail, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Formats into a copy first: an argument (or tail) may be dp_errmsg()
 * itself, and vsnprintf over its own input is undefined. */
static void set_msg(const char *tail, const char *fmt, va_list ap)
{
    char msg[sizeof(last_msg)];
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);

    if (tail && n >= 0 && (size_t)n < sizeof(msg))
        snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", tail);
    memcpy(last_msg, msg, sizeof(msg));
}

int dp_error(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    set_msg(NULL, fmt, ap);
    va_end(ap);
    return code;
}

int dp_error_prefix(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    set_msg(last_msg[0] ? last_msg : dp_strerror(code), fmt, ap);
    va_end(ap);
    return code;
}

const char *dp_errmsg(void)
{
    return last_msg;
}

void dp_set_progname(const char *name)
{
    progname = name;
}

const char *dp_progname(void)
{
    return progname;
}

void dp_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: warning: %s\n", progname, msg);
}

void dp_log(int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (dp_verbose < level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", progname, msg);
}

static int muted;

void dp_mute(void)
{
    muted = 1;
}

void dp_report(int code)
{
    if (code == DP_OK || muted)
        return;
    fprintf(stderr, "%s: %s\n", progname,
            last_msg[0] ? last_msg : dp_strerror(code));
    /* reported once: a later failure without a message of its own must not
     * print this one again */
    last_msg[0] = '\0';
}

static atomic_int interrupted;

void dp_interrupt(void)
{
    atomic_store(&interrupted, 1);
}

void dp_interrupt_clear(void)
{
    atomic_store(&interrupted, 0);
}

int dp_check_interrupt(void)
{
    if (!atomic_load_explicit(&interrupted, memory_order_relaxed))
        return 0;
    return dp_error(DP_EINTR, "interrupted");
}
