/* Which ranks of an mpirun share a folder (one disk, or shared storage):
 * each drops a probe file named for a shared token and its rank into it,
 * then looks for the others'. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dglpart/alloc.h"
#include "dglpart/comm.h"
#include "dglpart/error.h"
#include "dglpart/file.h"

static char *probe_path(const char *dir, uint64_t token, int r)
{
    char name[64];

    snprintf(name, sizeof(name), ".dglpart-probe-%016" PRIx64 "-%d", token, r);
    return dp_path_join(dir, name);
}

int dp_comm_shared_dir(struct dp_comm *c, const char *dir, int *first)
{
    uint64_t token = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    int me = dp_comm_rank(c), q, fd, rc, lrc = 0;
    char *mine = NULL;

    *first = me;
    if ((rc = dp_comm_bcast(c, &token, sizeof(token), 0)))
        return rc;
    if (!(lrc = dp_mkdir_p(dir, 0777)) && !(mine = probe_path(dir, token, me)))
        lrc = DP_ENOMEM;
    if (!lrc) {
        fd = open(mine, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            lrc = dp_error(DP_EIO, "cannot write in '%s': %s", dir,
                           strerror(errno));
        else
            close(fd);
    }
    if ((rc = dp_comm_agree(c, lrc)))
        goto out;
    for (q = 0; q < me; q++) {
        char *p = probe_path(dir, token, q);

        if (!p) {
            lrc = DP_ENOMEM;
            break;
        }
        if (dp_exists(p) && *first == me)
            *first = q;
        free(p);
    }
    rc = dp_comm_agree(c, lrc);
    if (mine)
        unlink(mine);
out:
    free(mine);
    return rc;
}

/* What each rank says of a step: its code and its message. */
struct agree_msg {
    int64_t rc;
    char msg[504];
};

int dp_comm_agree(struct dp_comm *c, int rc)
{
    int P = dp_comm_size(c), r, crc;
    struct agree_msg mine, *all = dp_malloc_array((size_t)P, sizeof(*all));

    memset(&mine, 0, sizeof(mine));
    mine.rc = rc;
    if (rc)
        snprintf(mine.msg, sizeof(mine.msg), "%s", dp_errmsg());
    if (!all)
        return DP_ENOMEM;
    if ((crc = dp_comm_allgather(c, &mine, sizeof(mine), all))) {
        free(all);
        return crc;
    }
    for (r = 0; r < P && !all[r].rc; r++)
        ;
    if (r < P) {
        char msg[600];

        snprintf(msg, sizeof(msg), "%s", all[r].msg);
        crc = (int)all[r].rc;
        if (P > 1)
            dp_error(crc, "rank %d on %s: %s", r, dp_comm_host(c, r), msg);
        else
            dp_error(crc, "%s", msg);
    }
    free(all);
    return r < P ? crc : 0;
}

int dp_comm_exit(struct dp_comm *c, int rc)
{
    /* every rank has the same message: rank 0 says it, then the others
     * may exit (mpirun stops a job once a rank fails) */
    if (rc && dp_comm_rank(c) == 0) {
        dp_report(rc);
        fflush(stderr);
    }
    if (rc) {
        dp_mute();
        dp_comm_barrier(c);
    }
    dp_comm_finish(c);
    return rc;
}
