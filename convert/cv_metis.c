/* METIS .graph files: a header "n m [fmt [ncon]]" after '%' comments, then
 * one line per vertex: [size] [ncon weights] (neighbour [edge weight])...
 * with 1-based neighbours. Entry u on the line of v becomes the directed
 * edge u -> v, so the 2m entries of an undirected graph give 2m edges.
 * The header checks follow gpmetis's reader. */
#include <inttypes.h>
#include <string.h>

#include "cv.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Next integer token on the line: 0 ok, 1 end of line, or an error. */
static int token(struct cv_src *s, const char **pp, const char *what,
                 int64_t *out)
{
    const char *p = *pp;
    int r;

    while (is_blank(*p))
        p++;
    if (!*p) {
        *pp = p;
        return 1;
    }
    r = cv_scan_i64(&p, out);
    if (r || (*p && !is_blank(*p))) {
        size_t n = 0;

        while ((*pp)[n] && is_blank((*pp)[n]))
            (*pp)++;
        while ((*pp)[n] && !is_blank((*pp)[n]) && n < 40)
            n++;
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected %s "
                        "(an integer), found '%.*s'",
                        s->name, s->line, what, (int)n, *pp);
    }
    *pp = p;
    return 0;
}

/* The next line that is not a '%' comment; NULL at the end. */
static int next_line(struct cv_src *s, char **line)
{
    size_t len;
    int rc;

    do
        rc = cv_src_line(s, line, &len);
    while (!rc && *line && (*line)[0] == '%');
    return rc;
}

static int only_blanks(const char *p)
{
    while (is_blank(*p))
        p++;
    return !*p;
}

int cv_parse_metis(struct cv_graph *g, struct cv_src *s)
{
    int64_t hdr[4] = { 0, 0, 0, 0 }, n, m, ncon = 0, v, x, want;
    int readvs = 0, readvw = 0, readew = 0, nf = 0, rc, i;
    char fmt[8] = "0", *line;
    const char *p;
    int64_t *vw = NULL;
    uint64_t entries = 0, hline;

    do
        rc = next_line(s, &line);
    while (!rc && line && only_blanks(line));
    if (rc)
        return rc;
    if (!line)
        return dp_error(DP_EFORMAT,
                        "'%s': empty file (expected a METIS "
                        "header 'n m [fmt [ncon]]')",
                        s->name);
    hline = s->line;
    p = line;
    for (nf = 0; nf < 4; nf++) {
        const char *start = p;

        while (is_blank(*start))
            start++;
        if ((rc = token(s, &p, "a header field", &hdr[nf])) == 1)
            break;
        if (rc)
            return rc;
        if (nf == 2) {
            size_t len = (size_t)(p - start);

            if (len >= sizeof(fmt) || len > 3 || strspn(start, "01") < len)
                return dp_error(DP_EFORMAT,
                                "'%s' line %" PRIu64 ": fmt '%.*s'"
                                " is not a METIS format (expected 0, 1, 10, "
                                "11, 100, 101, 110 or 111)",
                                s->name, hline, (int)len, start);
            memcpy(fmt, start, len);
            fmt[len] = '\0';
        }
    }
    if (nf == 4 && !only_blanks(p))
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected a METIS "
                        "header 'n m [fmt [ncon]]', found more than 4 fields",
                        s->name, hline);
    if (nf < 2)
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected a METIS "
                        "header 'n m [fmt [ncon]]', found %d field%s%s",
                        s->name, hline, nf, nf == 1 ? "" : "s",
                        nf == 1 ? " (a METIS mesh? turn it into a graph with "
                                  "m2gmetis first)"
                                : "");
    n = hdr[0];
    m = hdr[1];
    if (n <= 0 || m < 0)
        return dp_error(DP_EFORMAT,
                        "'%s' line %" PRIu64 ": expected n > 0 "
                        "vertices and m >= 0 edges, found n = %" PRId64
                        " m = %" PRId64,
                        s->name, hline, n, m);
    if (m > INT64_MAX / 4)
        return dp_error(DP_ERANGE,
                        "'%s' line %" PRIu64 ": m = %" PRId64 " is too large",
                        s->name, hline, m);
    {
        size_t len = strlen(fmt);

        readew = fmt[len - 1] == '1';
        readvw = len >= 2 && fmt[len - 2] == '1';
        readvs = len >= 3 && fmt[len - 3] == '1';
    }
    if (nf == 4) {
        ncon = hdr[3];
        if (ncon < 1 || ncon > 1024)
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": ncon = %" PRId64
                            " (expected 1 to 1024)",
                            s->name, hline, ncon);
        if (!readvw)
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": ncon = %" PRId64
                            " but fmt %s has no vertex weights",
                            s->name, hline, ncon, fmt);
    } else if (readvw) {
        ncon = 1;
    }
    if (g->o->num_nodes >= 0 && g->o->num_nodes != n)
        return dp_error(DP_EINVAL,
                        "--num_nodes %" PRId64 " disagrees with "
                        "'%s' line %" PRIu64 " (n = %" PRId64 ")",
                        g->o->num_nodes, s->name, hline, n);
    g->num_nodes = n;
    snprintf(g->nodes_from, sizeof(g->nodes_from), "'%s' line %" PRIu64,
             s->name, hline);
    g->edges.has_weight = readew;
    want = 2 * m;
    if ((rc = cv_edges_grow(
             &g->edges,
             (uint64_t)(want < (1 << 24) ? (want ? want : 1) : (1 << 24)))))
        return rc;
    if (readvw && !(vw = dp_malloc_array((size_t)n, (size_t)ncon * 8)))
        return DP_ENOMEM;

    for (v = 0; v < n; v++) {
        if ((rc = next_line(s, &line)))
            goto out;
        if (!line) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": expected %" PRId64
                          " vertex lines after the header (line %" PRIu64
                          "), found %" PRId64 " before the end",
                          s->name, s->line + 1, n, hline, v);
            goto out;
        }
        p = line;
        if (readvs && (rc = token(s, &p, "a vertex size", &x))) {
            if (rc == 1)
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %" PRIu64 ": expected "
                              "the size of vertex %" PRId64 " (fmt %s)",
                              s->name, s->line, v + 1, fmt);
            goto out;
        }
        for (i = 0; i < ncon; i++) {
            rc = token(s, &p, "a vertex weight", &x);
            if (rc == 1)
                rc = dp_error(
                    DP_EFORMAT,
                    "'%s' line %" PRIu64 ": expected %" PRId64
                    " vertex weight%s for vertex %" PRId64 ", found %d",
                    s->name, s->line, ncon, ncon == 1 ? "" : "s", v + 1, i);
            else if (!rc && x < 0)
                rc = dp_error(DP_ERANGE,
                              "'%s' line %" PRIu64 ": vertex "
                              "weight %" PRId64 " of vertex %" PRId64
                              " is negative",
                              s->name, s->line, x, v + 1);
            if (rc)
                goto out;
            vw[v * ncon + i] = x;
        }
        for (;;) {
            int64_t u, w = 0;

            rc = token(s, &p, "a neighbour", &u);
            if (rc == 1) {
                rc = 0;
                break;
            }
            if (rc)
                goto out;
            if (u < 1 || u > n) {
                rc = dp_error(DP_ERANGE,
                              "'%s' line %" PRIu64 ": neighbour %" PRId64
                              " of vertex %" PRId64 " out of range "
                              "[1, %" PRId64 "]",
                              s->name, s->line, u, v + 1, n);
                goto out;
            }
            if (readew) {
                rc = token(s, &p, "an edge weight", &w);
                if (rc == 1)
                    rc = dp_error(
                        DP_EFORMAT,
                        "'%s' line %" PRIu64 ": "
                        "expected an edge weight after neighbour %" PRId64
                        " (fmt %s)",
                        s->name, s->line, u, fmt);
                if (rc)
                    goto out;
            }
            if ((int64_t)entries == want) {
                rc = dp_error(DP_EFORMAT,
                              "'%s' line %" PRIu64 ": more "
                              "adjacency entries than the 2m = %" PRId64
                              " the header (line %" PRIu64 ") promises",
                              s->name, s->line, want, hline);
                goto out;
            }
            if ((rc = cv_edges_push(&g->edges, u - 1, v, s->line)))
                goto out;
            if (readew)
                g->edges.weight[entries] = w;
            entries++;
        }
    }
    for (;;) {
        if ((rc = next_line(s, &line)) || !line)
            break;
        if (!only_blanks(line)) {
            rc = dp_error(DP_EFORMAT,
                          "'%s' line %" PRIu64 ": expected the end "
                          "of the file after %" PRId64 " vertex lines (n in "
                          "the header, line %" PRIu64 ")",
                          s->name, s->line, n, hline);
            break;
        }
    }
    if (rc)
        goto out;
    if ((int64_t)entries != want) {
        rc = dp_error(DP_EFORMAT,
                      "'%s': the header (line %" PRIu64 ") says m "
                      "= %" PRId64 ", i.e. %" PRId64 " adjacency entries, but "
                      "the %" PRId64 " vertex lines hold %" PRIu64,
                      s->name, hline, m, want, n, entries);
        goto out;
    }
    if (vw) {
        char *path = cv_graph_path(g, "node_weight.npy");
        int64_t shape[2] = { n, ncon };

        rc = path ? dp_npy_write(path, DP_I64, 2, shape, vw) : DP_ENOMEM;
        free(path);
        if (!rc)
            g->meta.ncon = ncon;
    }
out:
    free(vw);
    return rc;
}
