/* Running a child process, as git's run-command: one place that spawns,
 * wires its standard streams and waits, so callers never fork by hand. */
#ifndef DGLPART_RUN_COMMAND_H
#define DGLPART_RUN_COMMAND_H

#include <stddef.h>
#include <sys/types.h>

/* A stream of dp_child: DP_CHILD_INHERIT keeps ours, DP_CHILD_PIPE makes a
 * pipe whose parent end replaces the field after dp_child_start, and a
 * descriptor >= 0 is given to the child as that stream. */
#define DP_CHILD_INHERIT (-1)
#define DP_CHILD_PIPE (-2)

struct dp_child {
    char *const *argv; /* borrowed; argv[0] is looked up in PATH */
    int in, out, err;
    pid_t pid; /* set by dp_child_start */
};

/* Start c (posix_spawnp: no fork of a large parent). 0, or DP_EIO with a
 * message naming argv[0]; pipe ends the parent gets are close-on-exec. */
int dp_child_start(struct dp_child *c);

/* Wait for c (EINTR retried); *status as from waitpid. Closes any pipe end
 * still open in c. 0, or DP_EIO. */
int dp_child_wait(struct dp_child *c, int *status);

/* Run argv with stdin from /dev/null, its stdout into out[outcap] and its
 * stderr into err[errcap] (either may be NULL; each NUL-terminated, cut to
 * fit), and wait at most timeout_ms: then it is killed and *status is -1.
 * 0 once it ran (whatever its exit), or DP_EIO when it could not start. */
int dp_child_capture(char *const *argv, char *out, size_t outcap, char *err,
                     size_t errcap, int timeout_ms, int *status);

#endif
