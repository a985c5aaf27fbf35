/* The one table of environment variables and the only reader of the
 * environment (git's git_env_bool): every value is checked against its
 * entry, and a malformed one is an error naming it, never the default. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/env.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

#define BIG ((int64_t)1 << 62)

/* Grouped by use, as `dglpart help env` prints them. */
static const struct dp_env_var table[] = {
    /* settings */
    { "DGLPART_DATA_DIR", DP_ENV_STR, DP_ENV_USER, "DIR", 0, 0, "dataset",
      "Where downloads are kept (--data_dir takes precedence)." },
    { "DGLPART_MIRROR", DP_ENV_STR, DP_ENV_USER, "URL", 0, 0, NULL,
      "Fetch datasets from this base URL: it replaces the scheme and host of "
      "each URL (--mirror takes precedence)." },
    { "DGLPART_REGISTRY", DP_ENV_STR, DP_ENV_USER, "FILE", 0, 0, NULL,
      "A JSON dataset registry read after the built-in one: its entries add "
      "to or replace those of the same name." },
    { "DGLPART_DATASETS", DP_ENV_STR, DP_ENV_USER, "DIR", 0, 0, NULL,
      "The bundled datasets' folder. Default: datasets, "
      "../share/dglpart/datasets or ../../datasets beside the binary." },
    { "DGLPART_RETRY_DELAY_MS", DP_ENV_INT, DP_ENV_USER, "MS", 0, 60000, "1000",
      "download: the wait before the first retry, in milliseconds; doubled "
      "after each failure, up to 30 s." },
    { "DGLPART_UNPACK_MAX_ENTRIES", DP_ENV_INT, DP_ENV_USER, "N", 1, BIG,
      "100000",
      "download: an archive of more entries is refused (an inode bomb)." },
    { "DGLPART_UNPACK_MAX_DEPTH", DP_ENV_INT, DP_ENV_USER, "N", 1, 4096, "64",
      "download: an archive with deeper paths is refused." },
    { "DGLPART_EDGE_SPILL", DP_ENV_SIZE, DP_ENV_USER, "SIZE", 0, BIG, "4G",
      "convert: edge arrays past this many bytes move to scratch files in "
      "the output's temporary folder (0: always)." },
    { "DGLPART_ZIP_INFLATE", DP_ENV_STR, DP_ENV_USER, "isal|zlib", 0, 0, "isal",
      "convert: what inflates the deflated entries of a .npz: ISA-L, or "
      "libarchive's zlib." },
    { "DGLPART_SPILL", DP_ENV_BOOL, DP_ENV_USER, "0|1", 0, 1, "1",
      "partition: 0 keeps METIS's copy of the graph, and the multilevel "
      "path's levels, in memory instead of in scratch files beside the "
      "output." },
    { "DGLPART_DIRECT_IO", DP_ENV_BOOL, DP_ENV_USER, "0|1", 0, 1, "1",
      "0 writes big output files (part files, the CSC of convert) through "
      "the page cache instead of with O_DIRECT." },
    { "DGLPART_HUGEPAGES", DP_ENV_BOOL, DP_ENV_USER, "0|1", 0, 1, "1",
      "partition and the pipeline: 0 skips the restart that asks glibc for "
      "transparent huge pages (METIS is about 10% faster with them)." },
    { "DGLPART_PROGRESS", DP_ENV_BOOL, DP_ENV_USER, "0|1", 0, 1, NULL,
      "1 draws progress bars and heartbeats even when stderr is not a "
      "terminal, 0 never. Default: on a terminal only." },
    { "DGLPART_ML_NODES_PER_PART", DP_ENV_INT, DP_ENV_USER, "N", 1, 1 << 24,
      NULL,
      "partition, multilevel path: coarsening stops near this many nodes a "
      "part. Default: 8000, or fewer so that the coarsest graph has at most "
      "65536 nodes." },
    { "DGLPART_SSH_MUX", DP_ENV_BOOL, DP_ENV_USER, "0|1", 0, 1, "1",
      "launch: 0 opens an ssh connection per process instead of sharing a "
      "master connection per host." },
    { "DGLPART_STATE_DIR", DP_ENV_STR, DP_ENV_USER, "DIR", 0, 0, NULL,
      "launch: where kept-alive server groups are recorded (--state_dir "
      "takes precedence). Default: $XDG_RUNTIME_DIR/dglpart/servers, else "
      "~/.dglpart/servers." },
    { "DGLPART_CONNECT_WAIT", DP_ENV_INT, DP_ENV_USER, "SECONDS", 0, 86400,
      "120",
      "sample: how long refused connections are retried while the servers "
      "load their parts." },
    { "DGLPART_SHM_DIR", DP_ENV_STR, DP_ENV_USER, "DIR", 0, 0, NULL,
      "serve, sample: where a machine's one shared copy of a part lives "
      "(default /dev/shm); none: every process loads its own." },
    { "DGLPART_LIBRARY", DP_ENV_STR, DP_ENV_USER, "FILE", 0, 0, NULL,
      "The Python package loads this libdglpart.so (make shared: "
      "build/pic/libdglpart.so) instead of its own." },
    /* for tests only */
    { "DGLPART_FAULT", DP_ENV_STR, DP_ENV_TEST,
      "install|exchanged|share-publish|share-stop|dist-parts", 0, 0, NULL,
      "Kill the process (SIGKILL) at this point: replacing an output folder, "
      "before or after the swap; publishing a machine's shared copy of a part "
      "(share-stop: stop instead); the parts of an mpirun job. A rerun must "
      "recover." },
    { "DGLPART_TEST_COMM_PIECE", DP_ENV_SIZE, DP_ENV_TEST, "SIZE", 1,
      (int64_t)1 << 30, "1G",
      "mpirun: the largest piece one MPI call moves; tests set a few KiB so "
      "small inputs go through the cutting that gigabytes need." },
    { "DGLPART_TEST_DIST_ROUND", DP_ENV_SIZE, DP_ENV_TEST, "SIZE", 1,
      (int64_t)1 << 30, "32M",
      "mpirun: the bytes a rank sends in one round of a row-by-row exchange; "
      "tests set a few KiB so small graphs take many rounds." },
    { "DGLPART_TEST_GZ_BLOCK", DP_ENV_INT, DP_ENV_TEST, "N", 1, INT32_MAX,
      "65536",
      "mpirun: lines in a block of a gzipped edge list (the ranks take "
      "blocks in turn); tests set a few so small files spread over every "
      "rank." },
    { "DGLPART_TEST_DIST_ONE", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "mpirun -np 1: 1 runs the distributed path on the one rank (its "
      "benchmark and model); by default one rank runs the one-process "
      "path." },
    { "DGLPART_TEST_DIST_GATHER", DP_ENV_INT, DP_ENV_TEST, "N", 1, BIG, NULL,
      "mpirun: entries at which the coarse graph goes to one rank (default: "
      "a rank's share, at least 4M); tests set it low so small graphs get "
      "distributed levels, and rank 0 then keeps the coarse graph in a "
      "scratch file whatever its size." },
    { "DGLPART_TEST_ONE_THREAD", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "1 runs the two halves of paired jobs one after the other: results do "
      "not depend on the threads." },
    { "DGLPART_TEST_NO_BUCKETS", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "convert: 1 builds the CSC without node buckets." },
    { "DGLPART_TEST_NO_SIMD", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "convert: 1 leaves out the AVX2 code." },
    { "DGLPART_TEST_BUCKET_CAP", DP_ENV_INT, DP_ENV_TEST, "N", 1, BIG, NULL,
      "convert: edges a pass over the buckets holds (default: two fair "
      "shares); small for many passes." },
    { "DGLPART_TEST_BUCKET_CHUNK", DP_ENV_INT, DP_ENV_TEST, "N", 1, 4096, "64",
      "convert: pages in a chunk of the buckets' scratch file; small for "
      "many chunks." },
    { "DGLPART_TEST_BUCKET_QUEUE", DP_ENV_INT, DP_ENV_TEST, "N", 0, 4096, "32",
      "convert: full chunks waiting for the scratch writer before the next "
      "stays in memory; 0 keeps them all there." },
    { "DGLPART_TEST_NPZ_CHUNK", DP_ENV_INT, DP_ENV_TEST, "N", 2, 1048576,
      "1048576",
      "convert: items of an .npz array read at a time; small for many "
      "chunks (the degrees counted beside the read in as many steps)." },
    { "DGLPART_TEST_SYM_BAND", DP_ENV_INT, DP_ENV_TEST, "N", 1, BIG, NULL,
      "partition: entries of a symmetrising band (default: a quarter or a "
      "half of them, at least 2^24); small for many bands." },
    { "DGLPART_TEST_SYM_NO_ROWS", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "partition: 1 has every symmetrising band look its sources' rows up "
      "in the degree order, not read them from a scratch file written once "
      "(for before/after benchmarks)." },
    { "DGLPART_TEST_NO_ORDER", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "partition: 1 keeps the multilevel path in id order, not in ascending "
      "degree order (also for before/after benchmarks)." },
    { "DGLPART_TEST_WIDE_IDS", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "partition: 1 holds reshuffled ids (and, under mpirun, the rows' "
      "global ids) as int64 where int32 would do, taking small graphs "
      "through the paths of graphs past 2^31." },
    { "DGLPART_TEST_LEVEL_RSS_CAP", DP_ENV_SIZE, DP_ENV_TEST, "SIZE", 0, BIG,
      NULL,
      "partition, multilevel path: mapped bytes of level files past which "
      "they are unmapped (default: 1 GiB); 0 drops them all along." },
    { "DGLPART_TEST_LEAN_DISK", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "partition: 1 takes the disk-lean path of a --no_cache run (the "
      "symmetrised graph dropped while the levels are worked on, refined "
      "on its compressed copy) on a converted dataset, which stays: "
      "benchmarks of that path without converting each time." },
    { "DGLPART_TEST_IDX_MAX", DP_ENV_INT, DP_ENV_TEST, "N", 1, INT32_MAX,
      "2147483647",
      "partition: the most METIS's idx_t is taken to hold, lowered to take "
      "small graphs through the paths of graphs past it." },
    { "DGLPART_TEST_DISK_FREE", DP_ENV_SIZE, DP_ENV_TEST, "SIZE", 0, BIG, NULL,
      "partition and the pipeline: the free space every plan takes each file "
      "system to have (default: statvfs's), to test a disk too small." },
    { "DGLPART_TEST_FM_CACHE_MAX", DP_ENV_INT, DP_ENV_TEST, "N", 0, BIG, NULL,
      "partition, multilevel path: node-part entries up to which refinement "
      "keeps a gain cache (default: 2^25, or a quarter of the level's "
      "entries); small takes the large-graph path." },
    { "DGLPART_TEST_FM_NARROW_MAX", DP_ENV_INT, DP_ENV_TEST, "N", 0, 65280,
      "65280",
      "partition, multilevel path: weighted degrees from which FM's gain "
      "table holds a node's row in 32-bit entries, not 16-bit; 0: every "
      "row." },
    { "DGLPART_TEST_FM_LAZY_MIN", DP_ENV_INT, DP_ENV_TEST, "N", 0, BIG,
      "1048576",
      "partition, multilevel path: levels of N nodes and more leave keys "
      "that fall in FM's heap until popped; 0 takes small graphs there." },
    { "DGLPART_TEST_FM_PAIR_MIN", DP_ENV_INT, DP_ENV_TEST, "N", 0, BIG, NULL,
      "partition, multilevel path: levels of N nodes and more refine in "
      "pairwise FM rounds on two threads (default: 1048576 for the finest "
      "level where the constraints count nodes, K >= 2; 4194304 otherwise, "
      "K >= 4); 0 takes small graphs there." },
    { "DGLPART_TEST_CG_OFF32_MAX", DP_ENV_INT, DP_ENV_TEST, "N", 0, UINT32_MAX,
      "4294967295",
      "partition: the most bytes of compressed neighbour lists 32-bit offsets "
      "address; small takes small graphs down the 64-bit path." },
    { "DGLPART_TEST_CG_BUF", DP_ENV_INT, DP_ENV_TEST, "N", 8, BIG, "4194304",
      "partition: bytes a thread gathers before writing compressed or "
      "decoded lists to a scratch file; small makes small graphs flush "
      "often." },
    { "DGLPART_TEST_FINE_COPY", DP_ENV_STR, DP_ENV_TEST,
      "file|decode|memory|none", 0, 0, "file",
      "partition, multilevel path with --no_cache: where the finest level's "
      "compressed copy waits (memory: as where no scratch file can be made), "
      "decode: in a file, decoded for the finest level's refinement (as "
      "where FM does without its gain table), or none: it is symmetrised "
      "again (as where the copy cannot be written); the parts are the "
      "same." },
    { "DGLPART_TEST_RMAP_DENSE", DP_ENV_INT, DP_ENV_TEST, "N", 0, BIG,
      "4194304",
      "partition, multilevel path: the most nodes (or clusters) a level may "
      "have for label propagation and contraction to rate neighbours in an "
      "array over them all; above, a hash table a row (the same parts)." },
    { "DGLPART_TEST_CT_BAND", DP_ENV_SIZE, DP_ENV_TEST, "SIZE", 1, BIG, NULL,
      "partition, multilevel path: bytes of a band when a level whose rows "
      "are in a scratch file is contracted in sweeps, which every such level "
      "then is (default: half the file-page cap, past it); small makes "
      "many bands (the same graph)." },
    { "DGLPART_TEST_ESRC_RUN", DP_ENV_SIZE, DP_ENV_TEST, "N", 1, BIG, NULL,
      "partition: sources a reshuffling thread gathers for one part before "
      "a write to their scratch file (default: 8 MiB over the parts, at "
      "least 16 KiB a part); small makes many writes (the same file)." },
    { "DGLPART_TEST_CT_SUM_ROOM", DP_ENV_SIZE, DP_ENV_TEST, "N", 0, BIG, NULL,
      "partition, multilevel path: entries of the buffer that rows summed "
      "from a band's back wait in, in a contraction in sweeps (default: an "
      "eighth of a band's bytes; 0: one thread sums every row; the same "
      "graph)." },
    { "DGLPART_TEST_ML_COMPRESS", DP_ENV_BOOL, DP_ENV_TEST, "0|1", 0, 1, "0",
      "partition, multilevel path: 1 clusters each level through a "
      "compressed copy of its neighbour lists (issue 36); the parts are the "
      "same." },
    { "DGLPART_RT_CHUNK", DP_ENV_INT, DP_ENV_TEST, "N", 1, 1 << 22, "4194304",
      "sample: ids a request asks for at most; small for many rounds." },
    { "DGLPART_SHARED", DP_ENV_STR, DP_ENV_TEST, "DIR", 0, 0, NULL,
      "Unit tests: the shared fixtures folder (DGL's partitions)." },
    /* set by dglpart itself */
    { "DGLPART_HUGEPAGES_RESTARTED", DP_ENV_BOOL, DP_ENV_SELF, "1", 0, 1, "0",
      "Set for the restart that asks for huge pages, so that it happens "
      "once." },
    { "DGLPART_JOB", DP_ENV_STR, DP_ENV_SELF, "ID", 0, 0, NULL,
      "launch: set in every process of a job; the cleanup on each host finds "
      "them by it." },
    { "DGLPART_BENCH_LOCKED", DP_ENV_BOOL, DP_ENV_SELF, "1", 0, 1, "0",
      "bench/*.sh: set once a benchmark holds the lock that keeps two from "
      "running at once." },
    /* DGL's, torchrun's and the system's */
    { "DGL_ROLE", DP_ENV_STR, DP_ENV_OUTSIDE, "server|client", 0, 0, NULL,
      "serve, sample: the process's role, set by the launcher (dglpart "
      "launch or DGL's launch.py)." },
    { "DGL_DIST_MODE", DP_ENV_STR, DP_ENV_OUTSIDE, "standalone|distributed", 0,
      0, "standalone", "sample: standalone or distributed." },
    { "DGL_SERVER_ID", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 0, 1 << 30, NULL,
      "serve: the server's id (--server_id)." },
    { "DGL_NUM_SERVER", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 0, 1 << 30, NULL,
      "serve, sample: servers per host (--num_servers)." },
    { "DGL_NUM_SAMPLER", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 0, 256, "0",
      "sample: sampler processes per trainer (--num_samplers)." },
    { "DGL_NUM_CLIENT", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 0, 1 << 30, NULL,
      "serve: trainers to wait for (--num_clients)." },
    { "DGL_IP_CONFIG", DP_ENV_STR, DP_ENV_OUTSIDE, "FILE", 0, 0, NULL,
      "serve, sample: the ip_config file (--ip_config)." },
    { "DGL_CONF_PATH", DP_ENV_STR, DP_ENV_OUTSIDE, "FILE", 0, 0, NULL,
      "serve, sample: the partition config (--part_config)." },
    { "RANK", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 0, 1 << 20, "0",
      "sample: the trainer's rank, as torchrun sets it (--rank)." },
    { "WORLD_SIZE", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 1, 1 << 20, "1",
      "sample: the number of trainers, as torchrun sets it (--world_size)." },
    { "OMPI_COMM_WORLD_SIZE", DP_ENV_STR, DP_ENV_OUTSIDE, "N", 0, 0, NULL,
      "Set by Open MPI's mpirun: dglpart runs as one rank of a distributed "
      "job and loads libmpi." },
    { "OMP_NUM_THREADS", DP_ENV_INT, DP_ENV_OUTSIDE, "N", 1, 1 << 16, NULL,
      "launch: the trainers' OMP_NUM_THREADS when --num_omp_threads is not "
      "given (else cores / 2 / trainers)." },
    { "PYTHONPATH", DP_ENV_STR, DP_ENV_OUTSIDE, "PATH", 0, 0, NULL,
      "launch: passed on to the servers and trainers." },
    { "GLIBC_TUNABLES", DP_ENV_STR, DP_ENV_OUTSIDE, "LIST", 0, 0, NULL,
      "A glibc.malloc.hugetlb there is kept as set; else dglpart adds one "
      "for huge pages (see DGLPART_HUGEPAGES)." },
    { "TMPDIR", DP_ENV_STR, DP_ENV_OUTSIDE, "DIR", 0, 0, "/tmp",
      "launch: where ssh's control sockets go (when shorter than 30 "
      "characters, else /tmp)." },
    { "XDG_RUNTIME_DIR", DP_ENV_STR, DP_ENV_OUTSIDE, "DIR", 0, 0, NULL,
      "launch: the default DGLPART_STATE_DIR is under it." },
    { "HOME", DP_ENV_STR, DP_ENV_OUTSIDE, "DIR", 0, 0, NULL,
      "launch: without XDG_RUNTIME_DIR, the default DGLPART_STATE_DIR is "
      "under it." },
};

#define NVARS (sizeof(table) / sizeof(table[0]))

const struct dp_env_var *dp_env_table(size_t *n)
{
    *n = NVARS;
    return table;
}

const struct dp_env_var *dp_env_find(const char *name)
{
    size_t i;

    for (i = 0; i < NVARS; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

/* The entry of name if it has type t; else NULL with a message (a caller's
 * mistake: t0006 checks that every name read is in the table). */
static const struct dp_env_var *entry(const char *name, enum dp_env_type t)
{
    const struct dp_env_var *v = dp_env_find(name);

    if (!v)
        dp_error(DP_EINVAL, "%s: not in the settings table", name);
    else if (v->type != t)
        dp_error(DP_EINVAL, "%s: read as another type than its table's", name);
    return v && v->type == t ? v : NULL;
}

static const char *value(const struct dp_env_var *v)
{
    const char *s = getenv(v->name);

    return s && *s ? s : NULL;
}

static int parse_bool(const char *name, const char *s, int *out)
{
    static const char *const yes[] = { "1", "true", "yes", "on" };
    static const char *const no[] = { "0", "false", "no", "off" };
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!strcmp(s, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcmp(s, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return dp_error(DP_EINVAL, "%s: expected 1 or 0, got '%s'", name, s);
}

/* Whether s is one of the words of the '|' list arg. */
static int one_of(const char *arg, const char *s)
{
    size_t n = strlen(s);
    const char *p = arg;

    for (;;) {
        const char *end = strchr(p, '|');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (len == n && !strncmp(p, s, n))
            return 1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* "a|b|c" as "a, b or c" in out. */
static const char *words(const char *arg, char *out, size_t len)
{
    const char *last = strrchr(arg, '|');
    size_t i, k = 0;

    for (i = 0; arg[i] && k + 5 < len; i++) {
        if (arg[i] != '|')
            out[k++] = arg[i];
        else if (arg + i == last)
            k += (size_t)snprintf(out + k, len - k, " or ");
        else
            k += (size_t)snprintf(out + k, len - k, ", ");
    }
    out[k] = '\0';
    return out;
}

/* Parse s as v's value into *out (bool, int, size) or just check it (str). */
static int parse(const struct dp_env_var *v, const char *s, int64_t *out)
{
    char list[128];
    int b = 0, rc;

    switch (v->type) {
    case DP_ENV_BOOL:
        rc = parse_bool(v->name, s, &b);
        if (!rc)
            *out = b;
        return rc;
    case DP_ENV_INT:
        return dp_parse_i64(v->name, s, v->min, v->max, out);
    case DP_ENV_SIZE:
        return dp_parse_size(v->name, s, v->min, v->max, out);
    case DP_ENV_STR:
        if (strchr(v->arg, '|') && !one_of(v->arg, s))
            return dp_error(DP_EINVAL, "%s: expected %s, got '%s'", v->name,
                            words(v->arg, list, sizeof(list)), s);
        return 0;
    }
    return DP_EINVAL;
}

/* The number reader behind dp_env_bool, _int and _size. */
static int get_number(const char *name, enum dp_env_type t, int64_t *out)
{
    const struct dp_env_var *v = entry(name, t);
    const char *s;
    int64_t x;
    int rc = 0;

    if (!v)
        return DP_EINVAL;
    /* unset, or malformed: the table's default (well formed: the unit
     * test parses each), else the caller's */
    if ((s = value(v)) && !(rc = parse(v, s, &x))) {
        *out = x;
        return 0;
    }
    if (v->def)
        parse(v, v->def, out);
    return s ? rc : 0;
}

int dp_env_bool(const char *name, int *out)
{
    int64_t x = *out;
    int rc = get_number(name, DP_ENV_BOOL, &x);

    *out = (int)x;
    return rc;
}

int dp_env_int(const char *name, int64_t *out)
{
    return get_number(name, DP_ENV_INT, out);
}

int dp_env_size(const char *name, int64_t *out)
{
    return get_number(name, DP_ENV_SIZE, out);
}

const char *dp_env_str(const char *name)
{
    const struct dp_env_var *v = entry(name, DP_ENV_STR);
    const char *s;

    if (!v)
        return NULL;
    /* a word not in the list is dp_env_check's to report */
    s = value(v);
    if (s && strchr(v->arg, '|') && !one_of(v->arg, s))
        s = NULL;
    return s ? s : v->def;
}

int dp_env_check(void)
{
    size_t i;
    int64_t x;
    const char *s;
    int rc;

    for (i = 0; i < NVARS; i++)
        if (table[i].use != DP_ENV_OUTSIDE && (s = value(&table[i])) &&
            (rc = parse(&table[i], s, &x)))
            return rc;
    return 0;
}

/* text from column 7, wrapped at 78 columns */
static void wrap(FILE *fp, const char *text)
{
    const char *p = text;

    while (*p) {
        const char *end = p, *brk = NULL;

        while (*end && end - p <= 72) {
            if (*end == ' ')
                brk = end;
            end++;
        }
        if (*end && brk)
            end = brk;
        fprintf(fp, "      %.*s\n", (int)(end - p), p);
        p = *end == ' ' ? end + 1 : end;
    }
}

void dp_env_print(FILE *fp)
{
    static const char *const heads[] = {
        "Settings:",
        "For tests only:",
        "Set by dglpart itself:",
        "Read as DGL, torchrun and the system define them:",
    };
    int use;
    size_t i;

    fputs("Environment variables dglpart reads or sets. A malformed DGLPART_ "
          "value is\nrefused before any work, naming the variable. "
          "Booleans take 1 or 0\n(also true/false, yes/no, on/off); sizes "
          "take K, M, G or T (64M, 4G).\n",
          fp);
    for (use = DP_ENV_USER; use <= DP_ENV_OUTSIDE; use++) {
        fprintf(fp, "\n%s\n", heads[use]);
        for (i = 0; i < NVARS; i++) {
            const struct dp_env_var *v = &table[i];

            if ((int)v->use != use)
                continue;
            fprintf(fp, "  %s=%s", v->name, v->arg);
            if (v->def && v->type == DP_ENV_INT && v->max > v->min &&
                v->max < BIG)
                fprintf(fp, "  (default %s; %lld to %lld)", v->def,
                        (long long)v->min, (long long)v->max);
            else if (v->def)
                fprintf(fp, "  (default %s)", v->def);
            fputc('\n', fp);
            wrap(fp, v->meaning);
        }
    }
}
