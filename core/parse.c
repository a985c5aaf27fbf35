/* Strict number parsing: the whole string, in range, or a named error. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/buf.h"
#include "dglpart/error.h"
#include "dglpart/parse.h"

int dp_parse_i64(const char *what, const char *s, int64_t min, int64_t max,
                 int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    if (!s || !*s)
        return dp_error(DP_EINVAL, "%s: expected an integer, got ''", what);
    v = strtoll(s, &end, 10);
    if (*end != '\0' || end == s)
        return dp_error(DP_EINVAL, "%s: expected an integer, got '%s'", what,
                        s);
    if (errno == ERANGE || v < min || v > max)
        return dp_error(DP_ERANGE, "%s: %s out of range [%lld, %lld]", what, s,
                        (long long)min, (long long)max);
    *out = v;
    return 0;
}

int dp_parse_int(const char *what, const char *s, int min, int max, int *out)
{
    int64_t v;
    int rc = dp_parse_i64(what, s, min, max, &v);

    if (!rc)
        *out = (int)v;
    return rc;
}

int dp_parse_double(const char *what, const char *s, double min, double max,
                    double *out)
{
    char *end;
    double v;

    errno = 0;
    if (!s || !*s)
        return dp_error(DP_EINVAL, "%s: expected a number, got ''", what);
    v = strtod(s, &end);
    if (*end != '\0' || end == s || !isfinite(v))
        return dp_error(DP_EINVAL, "%s: expected a number, got '%s'", what, s);
    if (errno == ERANGE || v < min || v > max)
        return dp_error(DP_ERANGE, "%s: %s out of range [%g, %g]", what, s, min,
                        max);
    *out = v;
    return 0;
}

int dp_parse_i64_list(const char *what, const char *s, int64_t min, int64_t max,
                      int64_t **out, int *count)
{
    int n = 1, i = 0, rc = 0;
    const char *p;
    char *copy, *tok, *save = NULL;
    int64_t *v;

    for (p = s; *p; p++)
        n += *p == ',';
    copy = strdup(s);
    v = dp_malloc_array((size_t)n, sizeof(*v));
    if (!copy || !v) {
        free(copy);
        free(v);
        return dp_error(DP_ENOMEM, "out of memory");
    }
    for (tok = strtok_r(copy, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save))
        rc = dp_parse_i64(what, tok, min, max, &v[i++]);
    free(copy);
    if (!rc && i != n)
        rc = dp_error(DP_EINVAL, "%s: empty item in '%s'", what, s);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *count = n;
    return 0;
}
