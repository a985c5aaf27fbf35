/* The parts written under mpirun (dist_write.c, private to partition/). */
#ifndef DGLPART_DIST_WRITE_H
#define DGLPART_DIST_WRITE_H

#include <stdint.h>

#include "dglpart/comm.h"
#include "dglpart/ids.h"
#include "phases.h"

struct dist_out {
    struct dp_comm *c;
    int P, rank;
    const struct dp_partition_opts *o;
    const struct dp_dataset *d;
    const struct names *nm;
    const int64_t *vtx; /* [P + 1] owner ranges of input node ids */
    int64_t v0, n;      /* this rank's input nodes [v0, v0 + n) */
    int64_t N, E;
    int K, T, ET;
    const int32_t *part; /* [n] */
    const int32_t *fine; /* [n] trainer parts, or NULL */
    const char *tmp;     /* the folder the parts go to */
    /* made by dist_out_ids */
    int64_t *newid;        /* [n] shuffled id of each owned node */
    struct dp_ids esrc;    /* per owned in-edge (CSC order from the first
                              owned node's): shuffled source */
    struct dp_ids eid;     /* and shuffled edge id (typed) */
    int64_t *erow;         /* untyped: [n] each owned node's first in-edge's
                              shuffled id (a row's are consecutive) */
    struct shuffle sh;     /* the block tables (no per-node arrays) */
    struct part_stats *ps; /* [K]: the parts this rank writes */
};

/* Shuffled ids of the owned nodes and in-edges, and the block tables. */
int dist_out_ids(struct dist_out *w);
/* Write this rank's parts (p % P == rank) into w->tmp; every rank takes
 * part in every round. */
int dist_out_parts(struct dist_out *w);
void dist_out_release(struct dist_out *w);

#endif
