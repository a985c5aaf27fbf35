/* Running a child process, as git's run-command: one place that spawns,
 * wires its standard streams, sets its process group and signals, and
 * waits, so callers never fork by hand. */
#ifndef DGLPART_RUN_COMMAND_H
#define DGLPART_RUN_COMMAND_H

#include <stddef.h>
#include <sys/types.h>

/* A stream of dp_child: DP_CHILD_INHERIT keeps ours, DP_CHILD_PIPE makes a
 * pipe whose parent end replaces the field after dp_child_start,
 * DP_CHILD_NULL gives the child /dev/null, and a descriptor >= 0 is given
 * to the child as that stream (the caller still owns and closes it). */
#define DP_CHILD_INHERIT (-1)
#define DP_CHILD_PIPE (-2)
#define DP_CHILD_NULL (-3)

/* dp_child.flags. PGROUP: its own process group, so a terminal's Ctrl-C
 * reaches only us, who forward it. SESSION: its own session (setsid),
 * detached from our terminal and group. DEFAULT_SIGNALS: every signal at
 * its default action and none blocked, whatever ours are. NONBLOCK: our
 * pipe ends are O_NONBLOCK. */
#define DP_CHILD_PGROUP 0x1
#define DP_CHILD_SESSION 0x2
#define DP_CHILD_DEFAULT_SIGNALS 0x4
#define DP_CHILD_NONBLOCK 0x8

struct dp_child {
    char *const *argv; /* borrowed; argv[0] is looked up in PATH and names
                          the child in messages */
    int in, out, err;
    unsigned flags;    /* DP_CHILD_PGROUP, ... */
    int death_sig;     /* if not 0, sent to the child when the thread that
                          started it ends (Linux PR_SET_PDEATHSIG) */
    int (*fn)(void *); /* if set, run fn(arg) in the child instead of argv;
                          its result is the child's exit code */
    void *arg;
    pid_t pid; /* set by dp_child_start */
};

#define DP_CHILD_INIT                                                          \
    {                                                                          \
        NULL, DP_CHILD_INHERIT, DP_CHILD_INHERIT, DP_CHILD_INHERIT, 0, 0,      \
            NULL, NULL, -1                                                     \
    }

/* Start c. posix_spawnp (no copy of a large parent) unless death_sig or fn
 * needs code run in the child: then fork, flushing stdio first. Either
 * way a failed exec is reported here: 0, or DP_EIO with a message naming
 * argv[0]. Pipe ends the parent gets are close-on-exec. */
int dp_child_start(struct dp_child *c);

/* Wait for c (EINTR retried); *status as from waitpid. Closes any pipe end
 * still open in c. 0, or DP_EIO. */
int dp_child_wait(struct dp_child *c, int *status);

/* Without blocking, reap child pid (or any child of ours for -1) if it
 * ended: its pid with *status as from waitpid, 0 while none ended, -1 when
 * there is no such child. */
pid_t dp_child_reap(pid_t pid, int *status);

/* Run argv with stdin from /dev/null, its stdout into out[outcap] and its
 * stderr into err[errcap] (either may be NULL; each NUL-terminated, cut to
 * fit), and wait at most timeout_ms: then it is killed and *status is -1.
 * 0 once it ran (whatever its exit), or DP_EIO when it could not start. */
int dp_child_capture(char *const *argv, char *out, size_t outcap, char *err,
                     size_t errcap, int timeout_ms, int *status);

#endif
