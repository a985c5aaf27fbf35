/* DGL's binary formats: NDArray records, save_tensors files and save_graphs
 * v2 graph.dgl (one homogeneous graph). Readers parse a mapped file through
 * a bounds-checked cursor; these files may come from the network, so no
 * size or offset is trusted before it is checked against the file length. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/dglfile.h"
#include "dglpart/error.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "DGL's files are little-endian; this code assumes a little-endian host"
#endif

#define MAGIC_NDARRAY 0xDD5E40F096B4A13FULL
#define MAGIC_TENSORS 0xDD5A9FBE3FA2443FULL
#define MAGIC_GRAPHS 0xDD2E4FF046B4A13FULL
#define MAGIC_HETERO 0xDD589FBE35224ABFULL
#define MAGIC_IMMUTABLE 0xDD3C5FFE20046ABFULL
#define MAGIC_CSR 0xDD6CD31205DFF127ULL
#define MAGIC_COO 0xDD61FFD305DFF127ULL
#define MAGIC_UNIT 0xDD2E60F0F6B4A127ULL

#define GRAPH_HEADER 4096 /* save_graphs v2 reserves the first 4 KiB */
#define NAME_MAX_LEN 4096 /* longer tensor names are taken as garbage */

/* ---- dtypes ---- */

/* DLPack codes: 0 int, 1 uint, 2 float. Bool is stored as uint8. */
static void dtype_code(enum dp_dtype t, uint8_t *code, uint8_t *bits)
{
    switch (t) {
    case DP_BOOL:
    case DP_U8:
    case DP_U16:
    case DP_U32:
    case DP_U64:
        *code = 1;
        break;
    case DP_F16:
    case DP_F32:
    case DP_F64:
        *code = 2;
        break;
    default:
        *code = 0;
    }
    *bits = (uint8_t)(dp_dtype_size(t) * 8);
}

static int dtype_from_code(uint8_t code, uint8_t bits, enum dp_dtype *t)
{
    static const enum dp_dtype ints[] = { DP_I8, DP_I16, DP_I32, DP_I64 };
    static const enum dp_dtype uints[] = { DP_U8, DP_U16, DP_U32, DP_U64 };
    int k;

    switch (bits) {
    case 8:
        k = 0;
        break;
    case 16:
        k = 1;
        break;
    case 32:
        k = 2;
        break;
    case 64:
        k = 3;
        break;
    default:
        return -1;
    }
    if (code == 0)
        *t = ints[k];
    else if (code == 1)
        *t = uints[k];
    else if (code == 2 && k > 0)
        *t = k == 1 ? DP_F16 : k == 2 ? DP_F32 : DP_F64;
    else
        return -1;
    return 0;
}

int64_t dp_ndarray_get_i64(const struct dp_ndarray *a, uint64_t i)
{
    if (!dp_dtype_is_int(a->dtype))
        return 0; /* floats are not ids */
    return dp_dtype_get_i64(a->dtype, (const char *)a->data +
                                          i * dp_dtype_size(a->dtype));
}

static uint64_t ndarray_count(const struct dp_ndarray *a)
{
    return a->nbytes / dp_dtype_size(a->dtype);
}

int64_t *dp_ndarray_i64(const struct dp_ndarray *a)
{
    uint64_t n = ndarray_count(a), i;
    int64_t *out = dp_malloc_array(n ? n : 1, sizeof(int64_t));

    if (!out)
        return NULL;
    if (a->dtype == DP_I64 || a->dtype == DP_U64) {
        if (n)
            memcpy(out, a->data, n * 8);
    } else {
        for (i = 0; i < n; i++)
            out[i] = dp_ndarray_get_i64(a, i);
    }
    return out;
}

/* ---- bounds-checked reading ---- */

struct rd {
    const unsigned char *p;
    size_t len;
    size_t off;
    const char *path;
};

static int need(struct rd *r, uint64_t n, const char *what)
{
    if (n > r->len - r->off)
        return dp_error(DP_EFORMAT,
                        "'%s' is truncated: %s at byte %zu needs %" PRIu64
                        " bytes, %zu left",
                        r->path, what, r->off, n, r->len - r->off);
    return 0;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
    int rc = need(r, 8, what);

    if (rc)
        return rc;
    memcpy(v, r->p + r->off, 8);
    r->off += 8;
    return 0;
}

static int rd_i64(struct rd *r, int64_t *v, const char *what)
{
    uint64_t u;
    int rc = rd_u64(r, &u, what);

    if (!rc)
        *v = (int64_t)u;
    return rc;
}

static int rd_bytes(struct rd *r, void *out, size_t n, const char *what)
{
    int rc = need(r, n, what);

    if (rc)
        return rc;
    memcpy(out, r->p + r->off, n);
    r->off += n;
    return 0;
}

static int rd_magic(struct rd *r, uint64_t want, const char *what)
{
    uint64_t v;
    size_t at = r->off;
    int rc = rd_u64(r, &v, what);

    if (rc)
        return rc;
    if (v != want)
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: expected the %s magic 0x%016" PRIX64
                        ", found 0x%016" PRIX64,
                        r->path, at, what, want, v);
    return 0;
}

/* A dmlc string: u64 length then bytes. Returns a malloc'd copy. */
static int rd_string(struct rd *r, char **out, const char *what)
{
    uint64_t n;
    char *s;
    int rc = rd_u64(r, &n, what);

    if (rc)
        return rc;
    if (n > NAME_MAX_LEN)
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: %s of %" PRIu64 " bytes is too long",
                        r->path, r->off - 8, what, n);
    if ((rc = need(r, n, what)) != 0)
        return rc;
    s = dp_malloc(n + 1);
    if (!s)
        return DP_ENOMEM;
    memcpy(s, r->p + r->off, n);
    s[n] = '\0';
    if (strlen(s) != n) {
        free(s);
        return dp_error(DP_EFORMAT, "'%s' byte %zu: %s holds a NUL byte",
                        r->path, r->off - 8, what);
    }
    r->off += n;
    *out = s;
    return 0;
}

static int rd_ndarray(struct rd *r, struct dp_ndarray *a, const char *what)
{
    int32_t dev[3];
    uint8_t code, bits;
    uint16_t lanes;
    uint64_t reserved, count = 1, nbytes, nz;
    size_t at = r->off;
    int i, rc;

    memset(a, 0, sizeof(*a));
    if ((rc = rd_magic(r, MAGIC_NDARRAY, "NDArray")) != 0 ||
        (rc = rd_u64(r, &reserved, what)) != 0 ||
        (rc = rd_bytes(r, dev, sizeof(dev), what)) != 0 ||
        (rc = rd_bytes(r, &code, 1, what)) != 0 ||
        (rc = rd_bytes(r, &bits, 1, what)) != 0 ||
        (rc = rd_bytes(r, &lanes, 2, what)) != 0)
        return rc;
    if (dev[0] != 1)
        return dp_error(
            DP_EFORMAT,
            "'%s' byte %zu: %s has device type %d, expected 1 (CPU)", r->path,
            at, what, dev[0]);
    if (dev[2] < 0 || dev[2] > DP_NPY_MAXDIM)
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: %s has %d dimensions, expected 0 to %d",
                        r->path, at, what, dev[2], DP_NPY_MAXDIM);
    if (lanes != 1 || dtype_from_code(code, bits, &a->dtype) != 0)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s' byte %zu: %s has dtype code %u bits %u lanes %u,"
                        " expected an int, uint or float type",
                        r->path, at, what, code, bits, lanes);
    a->ndim = dev[2];
    /* As numpy: the nonzero dimensions times the item size must fit too,
     * or a zero dimension hides a row size (verify, the server) that
     * overflows */
    nz = dp_dtype_size(a->dtype);
    for (i = 0; i < a->ndim; i++) {
        if ((rc = rd_i64(r, &a->shape[i], what)) != 0)
            return rc;
        if (a->shape[i] < 0)
            return dp_error(DP_EFORMAT,
                            "'%s' byte %zu: %s has negative dimension %" PRId64,
                            r->path, at, what, a->shape[i]);
        if (a->shape[i] && nz > INT64_MAX / (uint64_t)a->shape[i])
            return dp_error(DP_EFORMAT, "'%s' byte %zu: %s shape overflows",
                            r->path, at, what);
        nz *= a->shape[i] ? (uint64_t)a->shape[i] : 1;
        count *= (uint64_t)a->shape[i];
    }
    if ((rc = rd_u64(r, &nbytes, what)) != 0)
        return rc;
    if (count > UINT64_MAX / dp_dtype_size(a->dtype) ||
        count * dp_dtype_size(a->dtype) != nbytes) {
        char desc[160];

        dp_npy_describe(a->dtype, a->ndim, a->shape, desc, sizeof(desc));
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: %s is %s but claims %" PRIu64
                        " data bytes",
                        r->path, at, what, desc, nbytes);
    }
    if ((rc = need(r, nbytes, what)) != 0)
        return rc;
    a->data = r->p + r->off;
    a->nbytes = nbytes;
    r->off += nbytes;
    return 0;
}

/* ---- writing ---- */

static int wr(struct dp_afile *af, const void *p, size_t n)
{
    return dp_afile_write(af, p, n);
}

static int wr_u64(struct dp_afile *af, uint64_t v)
{
    return wr(af, &v, 8);
}

static int wr_string(struct dp_afile *af, const char *s)
{
    size_t n = strlen(s);
    int rc = wr_u64(af, n);

    return rc ? rc : wr(af, s, n);
}

/* The NDArray record up to its data; returns the data size in *nbytes. */
static int wr_ndarray_header(struct dp_afile *af, enum dp_dtype t, int ndim,
                             const int64_t *shape, uint64_t *nbytes)
{
    unsigned char h[8 + 8 + 12 + 4];
    int32_t dev[3] = { 1, 0, ndim };
    uint8_t code, bits;
    uint16_t lanes = 1;
    uint64_t magic = MAGIC_NDARRAY, zero = 0, count = 1;
    int i, rc;

    if (ndim < 0 || ndim > DP_NPY_MAXDIM)
        return dp_error(DP_EINVAL, "'%s': %d dimensions, expected 0 to %d",
                        af->path, ndim, DP_NPY_MAXDIM);
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0 ||
            (shape[i] && count > UINT64_MAX / 8 / (uint64_t)shape[i]))
            return dp_error(DP_EINVAL, "'%s': bad shape entry %" PRId64,
                            af->path, shape[i]);
        count *= (uint64_t)shape[i];
    }
    dtype_code(t, &code, &bits);
    memcpy(h, &magic, 8);
    memcpy(h + 8, &zero, 8);
    memcpy(h + 16, dev, 12);
    h[28] = code;
    h[29] = bits;
    memcpy(h + 30, &lanes, 2);
    *nbytes = count * dp_dtype_size(t);
    if ((rc = wr(af, h, sizeof(h))) != 0 ||
        (rc = wr(af, shape, (size_t)ndim * 8)) != 0)
        return rc;
    return wr_u64(af, *nbytes);
}

static int wr_ndarray(struct dp_afile *af, enum dp_dtype t, int ndim,
                      const int64_t *shape, const void *data)
{
    uint64_t nbytes;
    int rc = wr_ndarray_header(af, t, ndim, shape, &nbytes);

    return rc ? rc : wr(af, data, nbytes);
}

static int wr_ndarray_1d(struct dp_afile *af, enum dp_dtype t, int64_t n,
                         const void *data)
{
    return wr_ndarray(af, t, 1, &n, data);
}

/* ---- save_tensors files ---- */

int dp_tensor_writer_open(struct dp_tensor_writer *w, const char *path,
                          uint64_t count)
{
    uint64_t head[3] = { MAGIC_TENSORS, count, count };
    int rc;

    memset(w, 0, sizeof(*w));
    rc = dp_afile_open_large(&w->af, path);
    if (rc)
        return rc;
    w->count = count;
    rc = wr(&w->af, head, sizeof(head));
    if (rc)
        dp_afile_abort(&w->af);
    return rc;
}

int dp_tensor_writer_begin(struct dp_tensor_writer *w, const char *name,
                           enum dp_dtype dtype, int ndim, const int64_t *shape)
{
    int rc;

    if (w->in_entry)
        return dp_error(DP_EINVAL, "'%s': entry '%s' begun inside another",
                        w->af.path, name);
    if (w->written >= w->count)
        return dp_error(DP_EINVAL,
                        "'%s': more than the %" PRIu64 " promised entries",
                        w->af.path, w->count);
    if ((rc = wr_string(&w->af, name)) != 0 ||
        (rc = wr_ndarray_header(&w->af, dtype, ndim, shape, &w->remaining)) !=
            0)
        return rc;
    w->in_entry = 1;
    return 0;
}

int dp_tensor_writer_write(struct dp_tensor_writer *w, const void *p,
                           uint64_t n)
{
    if (!w->in_entry || n > w->remaining)
        return dp_error(DP_EINVAL,
                        "'%s': %" PRIu64 " data bytes where %" PRIu64
                        " are owed",
                        w->af.path, n, w->in_entry ? w->remaining : 0);
    w->remaining -= n;
    return wr(&w->af, p, n);
}

int dp_tensor_writer_end(struct dp_tensor_writer *w)
{
    if (!w->in_entry || w->remaining)
        return dp_error(DP_EINVAL,
                        "'%s': entry ended with %" PRIu64 " data bytes missing",
                        w->af.path, w->remaining);
    w->in_entry = 0;
    w->written++;
    return 0;
}

int dp_tensor_writer_add(struct dp_tensor_writer *w, const char *name,
                         enum dp_dtype dtype, int ndim, const int64_t *shape,
                         const void *data)
{
    int rc = dp_tensor_writer_begin(w, name, dtype, ndim, shape);

    if (!rc)
        rc = dp_tensor_writer_write(w, data, w->remaining);
    if (!rc)
        rc = dp_tensor_writer_end(w);
    return rc;
}

int dp_tensor_writer_commit(struct dp_tensor_writer *w)
{
    if (w->in_entry || w->written != w->count) {
        int rc = dp_error(DP_EINVAL,
                          "'%s': %" PRIu64 " of %" PRIu64 " entries written",
                          w->af.path, w->written, w->count);

        dp_afile_abort(&w->af);
        return rc;
    }
    return dp_afile_commit(&w->af);
}

void dp_tensor_writer_abort(struct dp_tensor_writer *w)
{
    dp_afile_abort(&w->af);
    w->in_entry = 0;
}

int dp_orig_ids_write(const char *path, const char *key, const int64_t *ids,
                      int64_t n)
{
    struct dp_tensor_writer w;
    int rc = dp_tensor_writer_open(&w, path, 1);

    if (rc)
        return rc;
    rc = dp_tensor_writer_add(&w, key, DP_I64, 1, &n, ids);
    if (rc) {
        dp_tensor_writer_abort(&w);
        return rc;
    }
    return dp_tensor_writer_commit(&w);
}

static void free_named(struct dp_tensor *items, int n)
{
    int i;

    if (!items)
        return;
    for (i = 0; i < n; i++)
        free(items[i].name);
    free(items);
}

/* count (name, NDArray) pairs; *items is allocated here and owned by the
 * caller on success. */
static int rd_named(struct rd *r, uint64_t count, struct dp_tensor **items,
                    int *n, const char *what)
{
    struct dp_tensor *t;
    uint64_t i;
    int rc = 0;

    /* each entry needs at least a name length and an NDArray header */
    if (count > (r->len - r->off) / 48 || count > INT32_MAX)
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: %" PRIu64 " %s entries cannot fit in"
                        " the %zu bytes left",
                        r->path, r->off, count, what, r->len - r->off);
    t = dp_calloc(count ? count : 1, sizeof(*t));
    if (!t)
        return DP_ENOMEM;
    for (i = 0; i < count; i++) {
        char label[64];
        uint64_t j;

        if ((rc = rd_string(r, &t[i].name, "tensor name")) != 0)
            goto fail;
        snprintf(label, sizeof(label), "%s %" PRIu64, what, i);
        if ((rc = rd_ndarray(r, &t[i].a, label)) != 0)
            goto fail;
        for (j = 0; j < i; j++)
            if (!strcmp(t[j].name, t[i].name)) {
                rc = dp_error(DP_EFORMAT, "'%s': %s '%s' appears twice",
                              r->path, what, t[i].name);
                goto fail;
            }
    }
    *items = t;
    *n = (int)count;
    return 0;
fail:
    free_named(t, (int)count);
    return rc;
}

int dp_tensors_load(struct dp_tensors *t, const char *path)
{
    struct rd r;
    uint64_t count, count2;
    int rc;

    memset(t, 0, sizeof(*t));
    rc = dp_map_open(&t->map, path);
    if (rc)
        return rc;
    r = (struct rd){ t->map.data, t->map.size, 0, path };
    if ((rc = rd_magic(&r, MAGIC_TENSORS, "tensors file")) != 0 ||
        (rc = rd_u64(&r, &count, "entry count")) != 0 ||
        (rc = rd_u64(&r, &count2, "entry count")) != 0)
        goto fail;
    if (count != count2) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': entry counts %" PRIu64 " and %" PRIu64 " differ",
                      path, count, count2);
        goto fail;
    }
    if ((rc = rd_named(&r, count, &t->items, &t->count, "tensor")) != 0)
        goto fail;
    if (r.off != r.len) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': %zu unexpected bytes after the last"
                      " entry",
                      path, r.len - r.off);
        goto fail;
    }
    return 0;
fail:
    free_named(t->items, t->count);
    dp_map_release(&t->map);
    memset(t, 0, sizeof(*t));
    return rc;
}

const struct dp_tensor *dp_tensors_find(const struct dp_tensors *t,
                                        const char *name)
{
    int i;

    for (i = 0; i < t->count; i++)
        if (!strcmp(t->items[i].name, name))
            return &t->items[i];
    return NULL;
}

void dp_tensors_release(struct dp_tensors *t)
{
    free_named(t->items, t->count);
    dp_map_release(&t->map);
    memset(t, 0, sizeof(*t));
}

/* ---- graph.dgl writer ---- */

/* The metagraph of a homogeneous graph: one node type with one self-edge. */
static int wr_metagraph(struct dp_afile *af)
{
    static const int64_t indptr[2] = { 0, 1 }, zero[1] = { 0 };
    uint64_t head[4] = { MAGIC_IMMUTABLE, MAGIC_CSR, 1, 1 };
    uint8_t sorted = 0;
    int rc;

    if ((rc = wr(af, head, sizeof(head))) != 0 ||
        (rc = wr_ndarray_1d(af, DP_I64, 2, indptr)) != 0 ||
        (rc = wr_ndarray_1d(af, DP_I64, 1, zero)) != 0 ||
        (rc = wr_ndarray_1d(af, DP_I64, 1, zero)) != 0)
        return rc;
    return wr(af, &sorted, 1);
}

/* Rows a column is streamed in: a bounded buffer, whatever the graph. */
#define COL_CHUNK ((int64_t)1 << 20)

static size_t col_size(int col)
{
    switch (col) {
    case DP_COL_INNER_EDGE:
    case DP_COL_INNER_NODE:
        return 1;
    case DP_COL_ETYPE:
    case DP_COL_NTYPE:
        return 4;
    default:
        return 8;
    }
}

static enum dp_dtype col_dtype(int col)
{
    switch (col) {
    case DP_COL_INNER_EDGE:
    case DP_COL_INNER_NODE:
        return DP_U8;
    case DP_COL_ETYPE:
    case DP_COL_NTYPE:
        return DP_I32;
    default:
        return DP_I64;
    }
}

/* Rows [at, at + n) of a column, with local ids checked against the nodes
 * (a source's bug must not reach a file DGL trusts). */
static int fill_col(const char *path, const struct dp_graph_src *g, int col,
                    int64_t at, int64_t n, void *out)
{
    int rc = g->fill(g->arg, col, at, n, out);
    int64_t i;

    if (rc ||
        (col != DP_COL_SRC && col != DP_COL_DST && col != DP_COL_CSC_INDICES))
        return rc;
    for (i = 0; i < n; i++) {
        int64_t x = ((const int64_t *)out)[i];

        if (x < 0 || x >= g->num_nodes)
            return dp_error(DP_ERANGE,
                            "'%s': edge %" PRId64 " has %s %" PRId64
                            ", outside the %" PRId64 " nodes",
                            path, at + i,
                            col == DP_COL_DST ? "destination" : "source", x,
                            g->num_nodes);
    }
    return 0;
}

/* A whole column as a 1-D NDArray, streamed through buf (COL_CHUNK rows). */
static int wr_col(struct dp_afile *af, const struct dp_graph_src *g, int col,
                  int64_t n, void *buf)
{
    uint64_t nbytes;
    int64_t at;
    int rc = wr_ndarray_header(af, col_dtype(col), 1, &n, &nbytes);

    for (at = 0; !rc && at < n; at += COL_CHUNK) {
        int64_t k = n - at < COL_CHUNK ? n - at : COL_CHUNK;

        if (!(rc = fill_col(af->path, g, col, at, k, buf)))
            rc = wr(af, buf, (size_t)k * col_size(col));
    }
    return rc;
}

/* Entry i of an id array held in int32 when its values fit. */
#define IDX(a, wide, i)                                                        \
    ((wide) ? ((const int64_t *)(a))[i] : (int64_t)((const int32_t *)(a))[i])

/* A CSR over rows (src for CSR, dst for CSC) with data = local edge ids,
 * edges of a row in their local order. Streamed rows are counted, then
 * placed: what stays in memory is the order of the edges by row and their
 * columns, 4 bytes each per edge below 2^31 (8 above), plus indptr. */
static int wr_csr(struct dp_afile *af, const struct dp_graph_src *g, int rowcol,
                  int colcol, int64_t *buf)
{
    int64_t n = g->num_nodes, e = g->num_edges, i, at, k;
    int pw = e > INT32_MAX, cw = n > INT32_MAX;
    int64_t *indptr = dp_calloc((size_t)n + 1, sizeof(int64_t));
    void *perm = dp_malloc_array(e ? (size_t)e : 1, pw ? 8 : 4);
    void *cols = NULL;
    uint64_t head[3] = { MAGIC_CSR, (uint64_t)n, (uint64_t)n }, nbytes;
    uint8_t sorted = 0;
    int rc = DP_ENOMEM, pass;

    if (!indptr || !perm)
        goto out;
    /* pass 0 counts each row, pass 1 places each edge */
    for (pass = 0; pass < 2; pass++) {
        for (at = 0; at < e; at += COL_CHUNK) {
            k = e - at < COL_CHUNK ? e - at : COL_CHUNK;
            if ((rc = fill_col(af->path, g, rowcol, at, k, buf)))
                goto out;
            for (i = 0; i < k; i++) {
                int64_t r = buf[i], pos;

                if (!pass) {
                    indptr[r + 1]++;
                    continue;
                }
                pos = indptr[r]++;
                if (pw)
                    ((int64_t *)perm)[pos] = at + i;
                else
                    ((int32_t *)perm)[pos] = (int32_t)(at + i);
            }
        }
        if (!pass)
            for (i = 0; i < n; i++)
                indptr[i + 1] += indptr[i];
    }
    for (i = n; i > 0; i--)
        indptr[i] = indptr[i - 1];
    indptr[0] = 0;
    cols = dp_malloc_array(e ? (size_t)e : 1, cw ? 8 : 4);
    if (!cols) {
        rc = DP_ENOMEM;
        goto out;
    }
    for (at = 0; at < e; at += COL_CHUNK) {
        k = e - at < COL_CHUNK ? e - at : COL_CHUNK;
        if ((rc = fill_col(af->path, g, colcol, at, k, buf)))
            goto out;
        for (i = 0; i < k; i++)
            if (cw)
                ((int64_t *)cols)[at + i] = buf[i];
            else
                ((int32_t *)cols)[at + i] = (int32_t)buf[i];
    }
    if ((rc = wr_metagraph(af)) != 0 || (rc = wr(af, head, 24)) != 0 ||
        (rc = wr_ndarray_1d(af, DP_I64, n + 1, indptr)) != 0 ||
        (rc = wr_ndarray_header(af, DP_I64, 1, &e, &nbytes)) != 0)
        goto out;
    for (at = 0; at < e; at += COL_CHUNK) {
        k = e - at < COL_CHUNK ? e - at : COL_CHUNK;
        for (i = 0; i < k; i++)
            buf[i] = IDX(cols, cw, IDX(perm, pw, at + i));
        if ((rc = wr(af, buf, (size_t)k * 8)) != 0)
            goto out;
    }
    if ((rc = wr_ndarray_header(af, DP_I64, 1, &e, &nbytes)) != 0)
        goto out;
    for (at = 0; at < e; at += COL_CHUNK) {
        k = e - at < COL_CHUNK ? e - at : COL_CHUNK;
        for (i = 0; i < k; i++)
            buf[i] = IDX(perm, pw, at + i);
        if ((rc = wr(af, buf, (size_t)k * 8)) != 0)
            goto out;
    }
    rc = wr(af, &sorted, 1);
out:
    free(indptr);
    free(perm);
    free(cols);
    return rc;
}

/* The CSC as the source fills it. */
static int wr_csc_src(struct dp_afile *af, const struct dp_graph_src *g,
                      void *buf)
{
    uint64_t head[3] = { MAGIC_CSR, (uint64_t)g->num_nodes,
                         (uint64_t)g->num_nodes };
    uint8_t sorted = 0;
    int rc;

    if ((rc = wr_metagraph(af)) != 0 || (rc = wr(af, head, 24)) != 0 ||
        (rc = wr_col(af, g, DP_COL_CSC_INDPTR, g->num_nodes + 1, buf)) != 0 ||
        (rc = wr_col(af, g, DP_COL_CSC_INDICES, g->num_edges, buf)) != 0)
        return rc;
    rc = g->csc_no_data ? wr_ndarray_1d(af, DP_I64, 0, NULL)
                        : wr_col(af, g, DP_COL_CSC_DATA, g->num_edges, buf);
    if (rc)
        return rc;
    return wr(af, &sorted, 1);
}

static int wr_coo(struct dp_afile *af, const struct dp_graph_src *g, void *buf)
{
    uint64_t head[3] = { MAGIC_COO, (uint64_t)g->num_nodes,
                         (uint64_t)g->num_nodes };
    uint8_t sorted[2] = { 0, 0 };
    int rc;

    if ((rc = wr_metagraph(af)) != 0 || (rc = wr(af, head, 24)) != 0 ||
        (rc = wr_col(af, g, DP_COL_SRC, g->num_edges, buf)) != 0 ||
        (rc = wr_col(af, g, DP_COL_DST, g->num_edges, buf)) != 0 ||
        (rc = wr_ndarray_1d(af, DP_I64, 0, NULL)) != 0) /* null data */
        return rc;
    return wr(af, sorted, 2);
}

static int wr_named_col(struct dp_afile *af, const char *name,
                        const struct dp_graph_src *g, int col, int64_t n,
                        void *buf)
{
    int rc = wr_string(af, name);

    return rc ? rc : wr_col(af, g, col, n, buf);
}

static int check_part(const char *path, const struct dp_graph_part *g)
{
    int64_t i;

    if (g->num_nodes < 0 || g->num_edges < 0 || !g->nid || !g->inner_node ||
        !g->eid || !g->inner_edge || (g->num_edges && (!g->src || !g->dst)))
        return dp_error(DP_EINVAL, "'%s': incomplete graph to write", path);
    if (g->formats & ~(DP_FMT_COO | DP_FMT_CSR | DP_FMT_CSC))
        return dp_error(DP_EINVAL, "'%s': unknown format bits 0x%x", path,
                        g->formats);
    for (i = 0; i < g->num_edges; i++)
        if (g->src[i] < 0 || g->src[i] >= g->num_nodes || g->dst[i] < 0 ||
            g->dst[i] >= g->num_nodes)
            return dp_error(DP_ERANGE,
                            "'%s': edge %" PRId64 " (%" PRId64 " -> %" PRId64
                            ") is outside the %" PRId64 " nodes",
                            path, i, g->src[i], g->dst[i], g->num_nodes);
    return 0;
}

/* The arrays of a dp_graph_part as columns. */
static int part_fill(void *arg, int col, int64_t at, int64_t n, void *out)
{
    const struct dp_graph_part *g = arg;
    const void *a;

    switch (col) {
    case DP_COL_SRC:
        a = g->src;
        break;
    case DP_COL_DST:
        a = g->dst;
        break;
    case DP_COL_EID:
        a = g->eid;
        break;
    case DP_COL_INNER_EDGE:
        a = g->inner_edge;
        break;
    case DP_COL_ETYPE:
        a = g->etype;
        break;
    case DP_COL_NID:
        a = g->nid;
        break;
    case DP_COL_PART_ID:
        a = g->part_id;
        break;
    case DP_COL_INNER_NODE:
        a = g->inner_node;
        break;
    default:
        a = g->ntype;
    }
    memcpy(out, (const char *)a + (size_t)at * col_size(col),
           (size_t)n * col_size(col));
    return 0;
}

int dp_graph_write(const char *path, const struct dp_graph_part *g)
{
    struct dp_graph_src s;
    int rc = check_part(path, g);

    if (rc)
        return rc;
    memset(&s, 0, sizeof(s));
    s.num_nodes = g->num_nodes;
    s.num_edges = g->num_edges;
    s.formats = g->formats;
    s.has_part_id = g->part_id != NULL;
    s.has_ntype = g->ntype != NULL;
    s.has_etype = g->etype != NULL;
    s.fill = part_fill;
    s.arg = (void *)g;
    return dp_graph_write_src(path, &s);
}

int dp_graph_write_src(const char *path, const struct dp_graph_src *g)
{
    struct dp_afile af;
    unsigned char *header;
    int64_t *buf = NULL;
    uint64_t v, nkeys;
    int formats = g->formats ? g->formats : DP_FMT_COO;
    int rc;

    if (g->num_nodes < 0 || g->num_edges < 0 || !g->fill)
        return dp_error(DP_EINVAL, "'%s': incomplete graph to write", path);
    if (g->formats & ~(DP_FMT_COO | DP_FMT_CSR | DP_FMT_CSC))
        return dp_error(DP_EINVAL, "'%s': unknown format bits 0x%x", path,
                        g->formats);
    header = dp_calloc(1, GRAPH_HEADER);
    buf = dp_malloc_array((size_t)COL_CHUNK, sizeof(int64_t));
    if (!header || !buf) {
        free(header);
        free(buf);
        return DP_ENOMEM;
    }
    v = MAGIC_GRAPHS;
    memcpy(header, &v, 8);
    v = 2; /* version */
    memcpy(header + 8, &v, 8);
    memcpy(header + 16, &v, 8); /* graph type 2: heterograph */
    v = 1;                      /* one graph */
    memcpy(header + 24, &v, 8);
    rc = dp_afile_open_large(&af, path);
    if (rc) {
        free(header);
        free(buf);
        return rc;
    }
    rc = wr(&af, header, GRAPH_HEADER);
    free(header);
    /* gdata start (no labels), labels count, the heterograph, its one
     * unit graph with the formats saved and those allowed */
    if (!rc)
        rc = wr_u64(&af, GRAPH_HEADER + 16);
    if (!rc)
        rc = wr_u64(&af, 0);
    if (!rc)
        rc = wr_u64(&af, MAGIC_HETERO);
    if (!rc)
        rc = wr_metagraph(&af);
    if (!rc) {
        uint64_t unit[4] = { 1, MAGIC_UNIT, (uint64_t)formats | (1ULL << 32),
                             7 | (1ULL << 32) };

        rc = wr(&af, unit, sizeof(unit));
    }
    if (!rc && (formats & DP_FMT_COO))
        rc = wr_coo(&af, g, buf);
    if (!rc && (formats & DP_FMT_CSR))
        rc = wr_csr(&af, g, DP_COL_SRC, DP_COL_DST, buf);
    if (!rc && (formats & DP_FMT_CSC) && g->has_csc)
        rc = wr_csc_src(&af, g, buf);
    else if (!rc && (formats & DP_FMT_CSC))
        rc = wr_csr(&af, g, DP_COL_DST, DP_COL_SRC, buf);
    if (!rc) {
        uint64_t nn[2] = { 1, (uint64_t)g->num_nodes };

        rc = wr(&af, nn, sizeof(nn));
    }
    /* node data: one list for the one node type, in DGL's order */
    nkeys = 2 + (g->has_part_id != 0) + (g->has_ntype != 0);
    if (!rc)
        rc = wr_u64(&af, 1);
    if (!rc)
        rc = wr_u64(&af, nkeys);
    if (!rc && g->has_part_id)
        rc = wr_named_col(&af, "part_id", g, DP_COL_PART_ID, g->num_nodes, buf);
    if (!rc)
        rc = wr_named_col(&af, "inner_node", g, DP_COL_INNER_NODE, g->num_nodes,
                          buf);
    if (!rc && g->has_ntype)
        rc = wr_named_col(&af, "_TYPE", g, DP_COL_NTYPE, g->num_nodes, buf);
    if (!rc)
        rc = wr_named_col(&af, "_ID", g, DP_COL_NID, g->num_nodes, buf);
    nkeys = 2 + (g->has_etype != 0);
    if (!rc)
        rc = wr_u64(&af, 1);
    if (!rc)
        rc = wr_u64(&af, nkeys);
    if (!rc)
        rc = wr_named_col(&af, "inner_edge", g, DP_COL_INNER_EDGE, g->num_edges,
                          buf);
    if (!rc && g->has_etype)
        rc = wr_named_col(&af, "_TYPE", g, DP_COL_ETYPE, g->num_edges, buf);
    if (!rc)
        rc = wr_named_col(&af, "_ID", g, DP_COL_EID, g->num_edges, buf);
    if (!rc)
        rc = wr_u64(&af, 1);
    if (!rc)
        rc = wr_string(&af, "_N");
    if (!rc)
        rc = wr_u64(&af, 1);
    if (!rc)
        rc = wr_string(&af, "_E");
    if (!rc) {
        /* the graph offsets as a string-encoded vector, then its length */
        uint64_t tail[4] = { 16, 1, GRAPH_HEADER + 16, 16 };

        rc = wr(&af, tail, sizeof(tail));
    }
    free(buf);
    if (rc) {
        dp_afile_abort(&af);
        return rc;
    }
    return dp_afile_commit(&af);
}

/* ---- graph.dgl reader ---- */

static int rd_metagraph(struct rd *r)
{
    struct dp_ndarray a[3];
    int64_t dims[2];
    uint8_t sorted;
    int rc, i;

    if ((rc = rd_magic(r, MAGIC_IMMUTABLE, "metagraph")) != 0 ||
        (rc = rd_magic(r, MAGIC_CSR, "metagraph CSR")) != 0 ||
        (rc = rd_i64(r, &dims[0], "metagraph")) != 0 ||
        (rc = rd_i64(r, &dims[1], "metagraph")) != 0 ||
        (rc = rd_ndarray(r, &a[0], "metagraph indptr")) != 0 ||
        (rc = rd_ndarray(r, &a[1], "metagraph indices")) != 0 ||
        (rc = rd_ndarray(r, &a[2], "metagraph data")) != 0 ||
        (rc = rd_bytes(r, &sorted, 1, "metagraph")) != 0)
        return rc;
    if (dims[0] != 1 || dims[1] != 1)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': a graph with %" PRId64 " node types, expected"
                        " a homogeneous graph",
                        r->path, dims[1]);
    for (i = 0; i < 3; i++)
        if (a[i].ndim != 1 || !dp_dtype_is_int(a[i].dtype))
            return dp_error(DP_EFORMAT, "'%s': malformed metagraph", r->path);
    return 0;
}

static int check_ids(struct rd *r, const struct dp_ndarray *a, int64_t lo,
                     int64_t hi, const char *what)
{
    uint64_t n = ndarray_count(a), i;

    /* the common case first, in a loop the compiler can vectorise: these
     * arrays hold every edge of the part */
    if (a->dtype == DP_I64) {
        const unsigned char *p = a->data;
        int bad = 0;

        for (i = 0; i < n; i++) {
            int64_t v;

            memcpy(&v, p + i * 8, 8);
            bad |= v < lo || v >= hi;
        }
        if (!bad)
            return 0;
    }
    for (i = 0; i < n; i++) {
        int64_t v = dp_ndarray_get_i64(a, i);

        if (v < lo || v >= hi)
            return dp_error(DP_EFORMAT,
                            "'%s': %s entry %" PRIu64 " is %" PRId64
                            ", outside [%" PRId64 ", %" PRId64 ")",
                            r->path, what, i, v, lo, hi);
    }
    return 0;
}

static int check_int_1d(struct rd *r, const struct dp_ndarray *a, int64_t len,
                        const char *what)
{
    if (a->ndim != 1 || a->dtype == DP_F16 || a->dtype == DP_F32 ||
        a->dtype == DP_F64 || (len >= 0 && a->shape[0] != len)) {
        char desc[160];

        dp_npy_describe(a->dtype, a->ndim, a->shape, desc, sizeof(desc));
        if (len >= 0)
            return dp_error(
                DP_EFORMAT,
                "'%s': %s is %s, expected 1-D integers of length %" PRId64,
                r->path, what, desc, len);
        return dp_error(DP_EFORMAT, "'%s': %s is %s, expected 1-D integers",
                        r->path, what, desc);
    }
    return 0;
}

static int rd_coo(struct rd *r, struct dp_graph_file *g, int64_t dims[2])
{
    uint8_t sorted[2];
    int rc;

    if ((rc = rd_metagraph(r)) != 0 ||
        (rc = rd_magic(r, MAGIC_COO, "COO matrix")) != 0 ||
        (rc = rd_i64(r, &dims[1], "COO columns")) != 0 ||
        (rc = rd_i64(r, &dims[0], "COO rows")) != 0 ||
        (rc = rd_ndarray(r, &g->coo_row, "COO row")) != 0 ||
        (rc = rd_ndarray(r, &g->coo_col, "COO col")) != 0 ||
        (rc = rd_ndarray(r, &g->coo_data, "COO data")) != 0 ||
        (rc = rd_bytes(r, sorted, 2, "COO flags")) != 0)
        return rc;
    if ((rc = check_int_1d(r, &g->coo_row, -1, "COO row")) != 0 ||
        (rc = check_int_1d(r, &g->coo_col, g->coo_row.shape[0], "COO col")) !=
            0)
        return rc;
    if (g->coo_data.nbytes == 0) {
        g->coo_data.data = NULL; /* DGL's null array: ids are positions */
    } else if ((rc = check_int_1d(r, &g->coo_data, g->coo_row.shape[0],
                                  "COO data")) != 0) {
        return rc;
    }
    return 0;
}

static int rd_csr(struct rd *r, struct dp_ndarray m[3], int64_t dims[2],
                  const char *what)
{
    char label[48];
    uint8_t sorted;
    int rc;

    if ((rc = rd_metagraph(r)) != 0 ||
        (rc = rd_magic(r, MAGIC_CSR, what)) != 0 ||
        (rc = rd_i64(r, &dims[1], what)) != 0 ||
        (rc = rd_i64(r, &dims[0], what)) != 0)
        return rc;
    snprintf(label, sizeof(label), "%s indptr", what);
    if ((rc = rd_ndarray(r, &m[0], label)) != 0 ||
        (rc = check_int_1d(r, &m[0], -1, label)) != 0)
        return rc;
    snprintf(label, sizeof(label), "%s indices", what);
    if ((rc = rd_ndarray(r, &m[1], label)) != 0 ||
        (rc = check_int_1d(r, &m[1], -1, label)) != 0)
        return rc;
    snprintf(label, sizeof(label), "%s data", what);
    if ((rc = rd_ndarray(r, &m[2], label)) != 0)
        return rc;
    if (m[2].nbytes == 0)
        m[2].data = NULL;
    else if ((rc = check_int_1d(r, &m[2], m[1].shape[0], label)) != 0)
        return rc;
    return rd_bytes(r, &sorted, 1, what);
}

/* A CSR or CSC (what) into its three arrays; checks it against the node
 * count n found so far (-1: none), sets n, and e when still unknown. */
static int rd_sparse(struct rd *r, const char *what, struct dp_ndarray *indptr,
                     struct dp_ndarray *indices, struct dp_ndarray *data,
                     int64_t *n, int64_t *e)
{
    struct dp_ndarray m[3];
    int64_t dims[2];
    int rc;

    if ((rc = rd_csr(r, m, dims, what)) != 0)
        return rc;
    *indptr = m[0];
    *indices = m[1];
    *data = m[2];
    if ((*n >= 0 && dims[0] != *n) || dims[1] != dims[0])
        return dp_error(DP_EFORMAT,
                        "'%s': %s is %" PRId64 " x %" PRId64
                        ", expected %" PRId64 " square",
                        r->path, what, dims[0], dims[1], *n);
    *n = dims[0];
    if (*e < 0)
        *e = m[1].shape[0];
    return 0;
}

/* Check one stored format's arrays against the node and edge counts. */
static int check_csr(struct rd *r, const struct dp_ndarray *indptr,
                     const struct dp_ndarray *indices,
                     const struct dp_ndarray *data, int64_t n, int64_t e,
                     const char *what)
{
    const struct dp_ndarray *m[3] = { indptr, indices, data };
    uint64_t i;
    int64_t prev = 0;
    char label[48];
    int rc;

    /* n is the file's (up to INT64_MAX): no n + 1 in int64 */
    if (m[0]->shape[0] - 1 != n || m[1]->shape[0] != e)
        return dp_error(DP_EFORMAT,
                        "'%s': %s has %" PRId64 " indptr and %" PRId64
                        " indices entries, expected %" PRIu64 " and %" PRId64,
                        r->path, what, m[0]->shape[0], m[1]->shape[0],
                        (uint64_t)n + 1, e);
    for (i = 0; i <= (uint64_t)n; i++) {
        int64_t v = dp_ndarray_get_i64(m[0], i);

        if (v < prev || v > e || (i == 0 && v != 0) ||
            (i == (uint64_t)n && v != e))
            return dp_error(DP_EFORMAT,
                            "'%s': %s indptr entry %" PRIu64 " is %" PRId64
                            ", not a valid offset",
                            r->path, what, i, v);
        prev = v;
    }
    snprintf(label, sizeof(label), "%s indices", what);
    if ((rc = check_ids(r, m[1], 0, n, label)) != 0)
        return rc;
    snprintf(label, sizeof(label), "%s data", what);
    if (m[2]->data && (rc = check_ids(r, m[2], 0, e, label)) != 0)
        return rc;
    return 0;
}

static int rd_data_lists(struct rd *r, struct dp_tensor **items, int *n,
                         int64_t rows, const char *what)
{
    uint64_t lists, count;
    int rc, i;

    if ((rc = rd_u64(r, &lists, what)) != 0)
        return rc;
    if (lists != 1)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': %s for %" PRIu64 " types, expected 1 "
                        "(homogeneous)",
                        r->path, what, lists);
    if ((rc = rd_u64(r, &count, what)) != 0 ||
        (rc = rd_named(r, count, items, n, what)) != 0)
        return rc;
    for (i = 0; i < *n; i++) {
        const struct dp_ndarray *a = &(*items)[i].a;

        if (a->ndim < 1 || a->shape[0] != rows) {
            char desc[160];

            dp_npy_describe(a->dtype, a->ndim, a->shape, desc, sizeof(desc));
            rc = dp_error(DP_EFORMAT,
                          "'%s': %s '%s' is %s, expected %" PRId64 " rows",
                          r->path, what, (*items)[i].name, desc, rows);
            free_named(*items, *n);
            *items = NULL;
            *n = 0;
            return rc;
        }
    }
    return 0;
}

static int rd_type_names(struct rd *r, const char *want, const char *what)
{
    uint64_t n;
    char *s = NULL;
    int rc;

    if ((rc = rd_u64(r, &n, what)) != 0)
        return rc;
    if (n != 1)
        return dp_error(DP_EUNSUPPORTED, "'%s': %" PRIu64 " %s, expected 1",
                        r->path, n, what);
    if ((rc = rd_string(r, &s, what)) != 0)
        return rc;
    if (strcmp(s, want))
        dp_warn("'%s': %s is '%s', expected '%s'", r->path, what, s, want);
    free(s);
    return 0;
}

static int parse_graph(struct dp_graph_file *g, struct rd *r)
{
    uint64_t head[4], gstart, nlabels, units, saved, allowed, ntypes;
    int64_t dims[2], n = -1, e = -1;
    struct dp_tensor *labels = NULL;
    int nl = 0, rc;

    if ((rc = rd_bytes(r, head, sizeof(head), "file header")) != 0)
        return rc;
    if (head[0] != MAGIC_GRAPHS)
        return dp_error(DP_EFORMAT,
                        "'%s' is not a DGL graph file (magic"
                        " 0x%016" PRIX64 ")",
                        r->path, head[0]);
    if (head[1] != 2 || head[2] != 2)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': save_graphs version %" PRIu64
                        " graph type %" PRIu64 ", expected version 2 type 2",
                        r->path, head[1], head[2]);
    if (head[3] != 1)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s' holds %" PRIu64 " graphs,"
                        " expected 1",
                        r->path, head[3]);
    r->off = 0;
    if ((rc = need(r, GRAPH_HEADER, "file header")) != 0)
        return rc;
    r->off = GRAPH_HEADER;
    if ((rc = rd_u64(r, &gstart, "graph offset")) != 0 ||
        (rc = rd_u64(r, &nlabels, "labels")) != 0 ||
        (rc = rd_named(r, nlabels, &labels, &nl, "label")) != 0)
        return rc;
    free_named(labels, nl);
    if (gstart != r->off)
        return dp_error(DP_EFORMAT,
                        "'%s': the graph should start at byte %zu,"
                        " the header says %" PRIu64,
                        r->path, r->off, gstart);
    if ((rc = rd_magic(r, MAGIC_HETERO, "heterograph")) != 0 ||
        (rc = rd_metagraph(r)) != 0 ||
        (rc = rd_u64(r, &units, "relation graphs")) != 0)
        return rc;
    if (units != 1)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': %" PRIu64 " edge types,"
                        " expected 1 (homogeneous)",
                        r->path, units);
    if ((rc = rd_magic(r, MAGIC_UNIT, "unit graph")) != 0 ||
        (rc = rd_u64(r, &saved, "formats")) != 0 ||
        (rc = rd_u64(r, &allowed, "formats")) != 0)
        return rc;
    /* files older than DGL 0.6 store a single format enum, not bits */
    if (!(saved >> 32)) {
        if (saved > 3)
            return dp_error(DP_EFORMAT, "'%s': unknown format code %" PRIu64,
                            r->path, saved);
        saved = saved == 1   ? DP_FMT_COO
                : saved == 2 ? DP_FMT_CSR
                : saved == 3 ? DP_FMT_CSC
                             : 0;
    }
    saved &= 0xffffffff;
    if (!saved || (saved & ~7ULL))
        return dp_error(DP_EFORMAT, "'%s': bad saved formats 0x%" PRIx64,
                        r->path, saved);
    g->saved_formats = (int)saved;
    if (saved & DP_FMT_COO) {
        if ((rc = rd_coo(r, g, dims)) != 0)
            return rc;
        n = dims[0];
        e = g->coo_row.shape[0];
        if (dims[1] != n)
            return dp_error(DP_EFORMAT,
                            "'%s': COO is %" PRId64 " x %" PRId64
                            ", expected square",
                            r->path, dims[0], dims[1]);
    }
    if ((saved & DP_FMT_CSR) &&
        (rc = rd_sparse(r, "CSR", &g->csr_indptr, &g->csr_indices, &g->csr_data,
                        &n, &e)) != 0)
        return rc;
    if ((saved & DP_FMT_CSC) &&
        (rc = rd_sparse(r, "CSC", &g->csc_indptr, &g->csc_indices, &g->csc_data,
                        &n, &e)) != 0)
        return rc;
    if (n < 0)
        return dp_error(DP_EFORMAT, "'%s': negative node count", r->path);
    if ((saved & DP_FMT_COO) &&
        ((rc = check_ids(r, &g->coo_row, 0, n, "COO row")) != 0 ||
         (rc = check_ids(r, &g->coo_col, 0, n, "COO col")) != 0 ||
         (g->coo_data.data &&
          (rc = check_ids(r, &g->coo_data, 0, e, "COO data")) != 0)))
        return rc;
    if ((saved & DP_FMT_CSR) &&
        (rc = check_csr(r, &g->csr_indptr, &g->csr_indices, &g->csr_data, n, e,
                        "CSR")) != 0)
        return rc;
    if ((saved & DP_FMT_CSC) &&
        (rc = check_csr(r, &g->csc_indptr, &g->csc_indices, &g->csc_data, n, e,
                        "CSC")) != 0)
        return rc;
    if ((rc = rd_u64(r, &ntypes, "node counts")) != 0)
        return rc;
    if (ntypes != 1)
        return dp_error(DP_EUNSUPPORTED,
                        "'%s': %" PRIu64 " node types,"
                        " expected 1",
                        r->path, ntypes);
    if ((rc = rd_i64(r, &dims[0], "node count")) != 0)
        return rc;
    if (dims[0] != n)
        return dp_error(DP_EFORMAT,
                        "'%s': %" PRId64 " nodes stated, the"
                        " matrix has %" PRId64,
                        r->path, dims[0], n);
    g->num_nodes = n;
    g->num_edges = e;
    if ((rc = rd_data_lists(r, &g->ndata, &g->n_ndata, n, "node data")) != 0 ||
        (rc = rd_data_lists(r, &g->edata, &g->n_edata, e, "edge data")) != 0 ||
        (rc = rd_type_names(r, "_N", "node type names")) != 0 ||
        (rc = rd_type_names(r, "_E", "edge type names")) != 0 ||
        (rc = rd_bytes(r, head, sizeof(head), "graph index")) != 0)
        return rc;
    /* the index of graph offsets as a string, then that string's length */
    if (head[0] != 16 || head[1] != 1 || head[2] != gstart || head[3] != 16)
        return dp_error(DP_EFORMAT,
                        "'%s' byte %zu: bad graph index at the"
                        " end of the file",
                        r->path, r->off - sizeof(head));
    if (r->off != r->len)
        return dp_error(DP_EFORMAT, "'%s': %zu unexpected bytes at the end",
                        r->path, r->len - r->off);
    return 0;
}

int dp_graph_load(struct dp_graph_file *g, const char *path)
{
    struct rd r;
    int rc;

    memset(g, 0, sizeof(*g));
    rc = dp_map_open(&g->map, path);
    if (rc)
        return rc;
    r = (struct rd){ g->map.data, g->map.size, 0, path };
    rc = parse_graph(g, &r);
    if (rc) {
        dp_graph_release(g);
        return rc;
    }
    return 0;
}

static const struct dp_ndarray *find_named(const struct dp_tensor *t, int n,
                                           const char *name)
{
    int i;

    for (i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i].a;
    return NULL;
}

const struct dp_ndarray *dp_graph_ndata(const struct dp_graph_file *g,
                                        const char *name)
{
    return find_named(g->ndata, g->n_ndata, name);
}

const struct dp_ndarray *dp_graph_edata(const struct dp_graph_file *g,
                                        const char *name)
{
    return find_named(g->edata, g->n_edata, name);
}

void dp_graph_release(struct dp_graph_file *g)
{
    free_named(g->ndata, g->n_ndata);
    free_named(g->edata, g->n_edata);
    dp_map_release(&g->map);
    memset(g, 0, sizeof(*g));
}
