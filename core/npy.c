/* NumPy .npy format v1-v3: header parsing, mapped reads, streaming writes.
 * Only little-endian, C-ordered arrays are accepted; that is what numpy
 * writes on every platform we target. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/error.h"
#include "dglpart/npy.h"

static const struct {
    const char *descr;
    const char *name;
    size_t size;
} dtypes[] = {
    [DP_BOOL] = { "|b1", "bool", 1 },   [DP_I8] = { "|i1", "int8", 1 },
    [DP_U8] = { "|u1", "uint8", 1 },    [DP_I16] = { "<i2", "int16", 2 },
    [DP_U16] = { "<u2", "uint16", 2 },  [DP_I32] = { "<i4", "int32", 4 },
    [DP_U32] = { "<u4", "uint32", 4 },  [DP_I64] = { "<i8", "int64", 8 },
    [DP_U64] = { "<u8", "uint64", 8 },  [DP_F16] = { "<f2", "float16", 2 },
    [DP_F32] = { "<f4", "float32", 4 }, [DP_F64] = { "<f8", "float64", 8 },
};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

size_t dp_dtype_size(enum dp_dtype t)
{
    return dtypes[t].size;
}

int dp_dtype_is_int(enum dp_dtype t)
{
    return t != DP_F16 && t != DP_F32 && t != DP_F64;
}

int dp_dtype_from_name(const char *name, enum dp_dtype *t)
{
    size_t i;

    for (i = 0; i < NDTYPES; i++)
        if (!strcmp(dtypes[i].name, name)) {
            *t = (enum dp_dtype)i;
            return 0;
        }
    return dp_error(DP_EUNSUPPORTED,
                    "dtype '%s': expected a bool, integer or float dtype",
                    name);
}

void dp_npy_describe(enum dp_dtype t, int ndim, const int64_t *shape, char *out,
                     size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s [", dtypes[t].name);
    int i;

    for (i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%" PRId64, i ? ", " : "",
                              shape[i]);
    if (n < len)
        snprintf(out + n, len - n, "]");
}

/* Find 'key': in the header dict and return a pointer past the colon. */
static const char *dict_value(const char *dict, const char *key)
{
    char pat[32];
    const char *p;

    snprintf(pat, sizeof(pat), "'%s'", key);
    p = strstr(dict, pat);
    if (!p) {
        snprintf(pat, sizeof(pat), "\"%s\"", key);
        p = strstr(dict, pat);
    }
    if (!p)
        return NULL;
    p += strlen(pat);
    while (isspace((unsigned char)*p))
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

int dp_npy_parse_header(const void *buf, size_t len, const char *name,
                        struct dp_npy_header *out)
{
    const unsigned char *b = buf;
    struct dp_npy_header h;
    size_t hlen, start, i;
    char dict[4096];
    const char *v;
    char descr[8];
    int major;

    memset(&h, 0, sizeof(h));
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return dp_error(DP_EFORMAT, "'%s': not an .npy file (bad magic)", name);
    major = b[6];
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return dp_error(DP_EFORMAT, "'%s': truncated .npy header", name);
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
               (size_t)b[11] << 24;
        start = 12;
    } else {
        return dp_error(DP_EFORMAT, "'%s': unsupported .npy version %d", name,
                        major);
    }
    if (hlen >= sizeof(dict) || start + hlen > len)
        return dp_error(
            DP_EFORMAT,
            "'%s': .npy header of %zu bytes is truncated or too long", name,
            hlen);
    memcpy(dict, b + start, hlen);
    dict[hlen] = '\0';

    v = dict_value(dict, "descr");
    if (!v || (*v != '\'' && *v != '"'))
        return dp_error(DP_EFORMAT, "'%s': .npy header has no 'descr'", name);
    for (i = 0; i < sizeof(descr) - 1 && v[1 + i] && v[1 + i] != *v; i++)
        descr[i] = v[1 + i];
    descr[i] = '\0';
    if (descr[0] == '=')
        descr[0] = '<';
    for (i = 0; i < NDTYPES; i++) {
        const char *d = dtypes[i].descr;

        if (!strcmp(descr, d) || (d[0] == '|' && !strcmp(descr + 1, d + 1) &&
                                  (descr[0] == '<' || descr[0] == '>')))
            break;
    }
    if (i == NDTYPES)
        return dp_error(DP_EFORMAT,
                        "'%s': unsupported dtype '%s' (expected little-endian "
                        "bool, int, uint or float)",
                        name, descr);
    h.dtype = (enum dp_dtype)i;

    v = dict_value(dict, "fortran_order");
    if (!v)
        return dp_error(DP_EFORMAT, "'%s': .npy header has no 'fortran_order'",
                        name);
    if (!strncmp(v, "True", 4))
        return dp_error(DP_EFORMAT,
                        "'%s': Fortran-ordered arrays are not supported "
                        "(save with np.ascontiguousarray)",
                        name);

    v = dict_value(dict, "shape");
    if (!v || *v != '(')
        return dp_error(DP_EFORMAT, "'%s': .npy header has no 'shape'", name);
    v++;
    h.count = 1;
    for (;;) {
        char *end;
        long long d;

        while (isspace((unsigned char)*v))
            v++;
        if (*v == ')')
            break;
        if (h.ndim == DP_NPY_MAXDIM)
            return dp_error(DP_EFORMAT, "'%s': more than %d dimensions", name,
                            DP_NPY_MAXDIM);
        errno = 0;
        d = strtoll(v, &end, 10);
        if (end == v || d < 0 || errno)
            return dp_error(DP_EFORMAT, "'%s': bad shape in .npy header", name);
        if (d && h.count > UINT64_MAX / (uint64_t)d)
            return dp_error(DP_EFORMAT, "'%s': shape overflows", name);
        h.count *= (uint64_t)d;
        h.shape[h.ndim++] = d;
        v = end;
        while (isspace((unsigned char)*v))
            v++;
        if (*v == ',')
            v++;
        else if (*v != ')')
            return dp_error(DP_EFORMAT, "'%s': bad shape in .npy header", name);
    }
    h.data_offset = start + hlen;
    *out = h;
    return 0;
}

int dp_npy_open(struct dp_npy *a, const char *path)
{
    uint64_t bytes;
    int rc;

    memset(a, 0, sizeof(*a));
    rc = dp_map_open(&a->map, path);
    if (rc)
        return rc;
    rc = dp_npy_parse_header(a->map.data, a->map.size, path, &a->h);
    if (rc)
        goto fail;
    if (a->h.count > UINT64_MAX / dp_dtype_size(a->h.dtype)) {
        rc = dp_error(DP_EFORMAT, "'%s': shape overflows", path);
        goto fail;
    }
    bytes = a->h.count * dp_dtype_size(a->h.dtype);
    if (a->map.size - a->h.data_offset != bytes) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': header promises %" PRIu64
                      " data bytes, file has %zu",
                      path, bytes, a->map.size - a->h.data_offset);
        goto fail;
    }
    a->data = (const char *)a->map.data + a->h.data_offset;
    return 0;
fail:
    dp_map_release(&a->map);
    return rc;
}

void dp_npy_release(struct dp_npy *a)
{
    dp_map_release(&a->map);
    a->data = NULL;
}

/* Float to int64 without undefined behaviour: NaN gives 0, out of range
 * values saturate. */
static int64_t f2i(double v)
{
    if (v != v)
        return 0;
    if (v >= 9.2233720368547758e18)
        return INT64_MAX;
    if (v <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)v;
}

int64_t dp_dtype_get_i64(enum dp_dtype t, const void *p)
{
    switch (t) {
    case DP_BOOL:
    case DP_U8:
        return *(const uint8_t *)p;
    case DP_I8:
        return *(const int8_t *)p;
    case DP_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case DP_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case DP_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case DP_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case DP_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    case DP_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (int64_t)v;
    }
    case DP_F32:
    case DP_F64:
        return f2i(dp_dtype_get_f64(t, p));
    default:
        return 0;
    }
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;

    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000 ? -v : v;
}

double dp_dtype_get_f64(enum dp_dtype t, const void *p)
{
    switch (t) {
    case DP_F16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return half_to_float(v);
    }
    case DP_F32: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case DP_F64: {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    default:
        return (double)dp_dtype_get_i64(t, p);
    }
}

int64_t dp_npy_get_i64(const struct dp_npy *a, uint64_t i)
{
    return dp_dtype_get_i64(a->h.dtype, (const char *)a->data +
                                            i * dp_dtype_size(a->h.dtype));
}

int dp_npy_expect(const struct dp_npy *a, const char *path, int ndtypes,
                  const enum dp_dtype *want, int ndim, const int64_t *shape)
{
    char found[128], expect[160];
    int ok = 0, i;

    for (i = 0; i < ndtypes; i++)
        ok |= a->h.dtype == want[i];
    if (ok && a->h.ndim == ndim)
        for (i = 0; i < ndim; i++)
            if (shape[i] >= 0 && shape[i] != a->h.shape[i])
                ok = 0;
    if (ok && a->h.ndim == ndim)
        return 0;
    dp_npy_describe(a->h.dtype, a->h.ndim, a->h.shape, found, sizeof(found));
    dp_npy_describe(want[0], ndim, shape, expect, sizeof(expect));
    for (i = 1; i < ndtypes; i++) {
        size_t n = strlen(expect);

        snprintf(expect + n, sizeof(expect) - n, " or %s",
                 dtypes[want[i]].name);
    }
    return dp_error(DP_EFORMAT, "'%s': expected %s, found %s", path, expect,
                    found);
}

/* Header padded to a fixed 128 (or 256) bytes so it can be rewritten in
 * place once the first dimension is known. */
static int make_header(const struct dp_npy_writer *w, int64_t first, char *out,
                       size_t *outlen)
{
    char dict[200];
    size_t n, total;
    int i;

    n = (size_t)snprintf(dict, sizeof(dict),
                         "{'descr': '%s', 'fortran_order': False, 'shape': (",
                         dtypes[w->dtype].descr);
    for (i = 0; i < w->ndim; i++)
        n += (size_t)snprintf(dict + n, sizeof(dict) - n, "%" PRId64 "%s",
                              i ? w->shape[i] : first,
                              w->ndim == 1 ? ","
                                           : (i + 1 < w->ndim ? ", " : ""));
    n += (size_t)snprintf(dict + n, sizeof(dict) - n, "), }");
    total = w->ndim > 3 ? 256 : 128;
    if (10 + n + 1 > total)
        return dp_error(DP_EINVAL, "npy header too long");
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)((total - 10) & 0xff);
    out[9] = (char)((total - 10) >> 8);
    memcpy(out + 10, dict, n);
    memset(out + 10 + n, ' ', total - 10 - n - 1);
    out[total - 1] = '\n';
    *outlen = total;
    return 0;
}

int dp_npy_header(enum dp_dtype dtype, int ndim, const int64_t *shape,
                  char out[256], size_t *len)
{
    struct dp_npy_writer w;
    int i;

    if (ndim < 1 || ndim > DP_NPY_MAXDIM)
        return dp_error(DP_EINVAL, "bad array rank %d", ndim);
    memset(&w, 0, sizeof(w));
    w.dtype = dtype;
    w.ndim = ndim;
    for (i = 0; i < ndim; i++)
        w.shape[i] = shape[i];
    return make_header(&w, shape[0], out, len);
}

int dp_npy_writer_open(struct dp_npy_writer *w, const char *path,
                       enum dp_dtype dtype, int ndim, const int64_t *shape)
{
    char hdr[256];
    int i, rc;

    memset(w, 0, sizeof(*w));
    if (ndim < 1 || ndim > DP_NPY_MAXDIM)
        return dp_error(DP_EINVAL, "'%s': bad array rank %d", path, ndim);
    w->dtype = dtype;
    w->ndim = ndim;
    w->row_items = 1;
    for (i = 0; i < ndim; i++) {
        w->shape[i] = shape[i];
        if (i)
            w->row_items *= (uint64_t)shape[i];
    }
    rc = make_header(w, shape[0] < 0 ? 0 : shape[0], hdr, &w->header_len);
    if (rc)
        return rc;
    rc = dp_afile_open(&w->af, path);
    if (rc)
        return rc;
    return dp_afile_write(&w->af, hdr, w->header_len);
}

int dp_npy_writer_write(struct dp_npy_writer *w, const void *data, uint64_t n)
{
    w->written += n;
    return dp_afile_write(&w->af, data, n * dp_dtype_size(w->dtype));
}

int dp_npy_writer_pwrite(struct dp_npy_writer *w, uint64_t first,
                         const void *data, uint64_t n)
{
    size_t isz = dp_dtype_size(w->dtype);
    int rc = dp_afile_pwrite_at(&w->af, w->header_len + first * isz, data,
                                (size_t)n * isz);

    if (!rc)
        __atomic_add_fetch(&w->written, n, __ATOMIC_RELAXED);
    return rc;
}

int dp_npy_writer_commit(struct dp_npy_writer *w)
{
    char hdr[256];
    int64_t first = w->shape[0];
    int rc;

    if (first < 0) {
        if (w->row_items && w->written % w->row_items) {
            dp_afile_abort(&w->af);
            return dp_error(DP_EINVAL,
                            "'%s': %" PRIu64 " items is not a whole "
                            "number of rows",
                            w->af.path, w->written);
        }
        first = w->row_items ? (int64_t)(w->written / w->row_items) : 0;
        rc = make_header(w, first, hdr, &w->header_len);
        if (!rc)
            rc = dp_afile_pwrite(&w->af, 0, hdr, w->header_len);
        if (rc) {
            dp_afile_abort(&w->af);
            return rc;
        }
    } else if (w->written != (uint64_t)first * w->row_items) {
        char *path = w->af.path;

        rc = dp_error(DP_EINVAL,
                      "'%s': wrote %" PRIu64 " items, shape needs %" PRIu64,
                      path, w->written, (uint64_t)first * w->row_items);
        dp_afile_abort(&w->af);
        return rc;
    }
    return dp_afile_commit(&w->af);
}

void dp_npy_writer_abort(struct dp_npy_writer *w)
{
    dp_afile_abort(&w->af);
}

int dp_npy_write(const char *path, enum dp_dtype dtype, int ndim,
                 const int64_t *shape, const void *data)
{
    struct dp_npy_writer w;
    uint64_t n = 1;
    int i, rc;

    for (i = 0; i < ndim; i++)
        n *= (uint64_t)shape[i];
    rc = dp_npy_writer_open(&w, path, dtype, ndim, shape);
    if (!rc)
        rc = dp_npy_writer_write(&w, data, n);
    if (rc) {
        dp_npy_writer_abort(&w);
        return rc;
    }
    return dp_npy_writer_commit(&w);
}
