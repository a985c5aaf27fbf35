/* Strict parsing of option values: numbers (the whole string, in range, or
 * a named error) and data renamings. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dglpart/alloc.h"
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

int dp_parse_size(const char *what, const char *s, int64_t min, int64_t max,
                  int64_t *out)
{
    static const char units[] = "KMGT";
    char *end;
    const char *u;
    unsigned long long v;
    int64_t mult = 1;

    errno = 0;
    if (!s || *s < '0' || *s > '9')
        return dp_error(DP_EINVAL,
                        "%s: expected a size such as 64M or 20G, got '%s'",
                        what, s ? s : "");
    v = strtoull(s, &end, 10);
    if (*end && (u = strchr(units, end[0] & ~0x20)) != NULL) {
        mult = (int64_t)1 << (10 * (u - units + 1));
        end++;
        if (*end == 'i')
            end++;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return dp_error(DP_EINVAL,
                        "%s: expected a size such as 64M or 20G, got '%s'",
                        what, s);
    if (errno == ERANGE || v > (unsigned long long)max / (uint64_t)mult ||
        (int64_t)v * mult < min || (int64_t)v * mult > max)
        return dp_error(DP_ERANGE, "%s: %s out of range [%lld, %lld] bytes",
                        what, s, (long long)min, (long long)max);
    *out = (int64_t)v * mult;
    return 0;
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
    copy = dp_strdup(s);
    v = dp_malloc_array((size_t)n, sizeof(*v));
    if (!copy || !v) {
        free(copy);
        free(v);
        return DP_ENOMEM;
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

static int bad_data_name(const char *s, size_t n)
{
    size_t i;

    if (n == 0)
        return 1;
    for (i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == ',' || s[i] == '=' ||
            (unsigned char)s[i] < ' ')
            return 1;
    return 0;
}

int dp_rename_parse(const char *what, const char *spec, struct dp_rename *r)
{
    const char *p = spec;
    struct dp_rename t = { 0 };
    int i;

    while (*p) {
        const char *end = strchr(p, ','), *eq;
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *o, *nw;

        eq = memchr(p, '=', n);
        if (!eq || bad_data_name(p, (size_t)(eq - p)) ||
            bad_data_name(eq + 1, n - (size_t)(eq - p) - 1)) {
            dp_rename_release(&t);
            return dp_error(DP_EINVAL,
                            "%s '%s': expected OLD=NEW[,OLD=NEW...] with "
                            "names free of '/', ',' and '='",
                            what, spec);
        }
        o = strndup(p, (size_t)(eq - p));
        nw = strndup(eq + 1, n - (size_t)(eq - p) - 1);
        if (!o || !nw) {
            free(o);
            free(nw);
            dp_rename_release(&t);
            return DP_ENOMEM;
        }
        for (i = 0; i < t.count && strcmp(t.old[i], o); i++)
            ;
        if (i == DP_RENAME_MAX) {
            free(o);
            free(nw);
            dp_rename_release(&t);
            return dp_error(DP_EINVAL, "%s: more than %d renames", what,
                            DP_RENAME_MAX);
        }
        if (i < t.count) {
            free(t.old[i]);
            free(t.new_[i]);
        } else {
            t.count++;
        }
        t.old[i] = o;
        t.new_[i] = nw;
        p += n + (end != NULL);
        if (end && !*p) {
            dp_rename_release(&t);
            return dp_error(DP_EINVAL, "%s '%s': empty item", what, spec);
        }
    }
    *r = t;
    return 0;
}

const char *dp_rename_apply(const struct dp_rename *r, const char *name)
{
    int i;

    for (i = 0; r && i < r->count; i++)
        if (!strcmp(r->old[i], name))
            return r->new_[i];
    return name;
}

void dp_rename_release(struct dp_rename *r)
{
    int i;

    if (!r)
        return;
    for (i = 0; i < r->count; i++) {
        free(r->old[i]);
        free(r->new_[i]);
    }
    r->count = 0;
}
