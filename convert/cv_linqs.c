/* LINQS citation graphs (Cora, CiteSeer): NAME.content lines
 * "<paper id> <0/1 words...> <class>" give the nodes in file order, their
 * features and labels (index of the class in the sorted class names);
 * NAME.cites lines "<cited> <citing>" give the edges citing -> cited.
 * Paper ids are strings. There is no published split, so the masks follow
 * the usual rule: train = first 20 nodes of each class, val = the next 500
 * other nodes, test = the last 1000 other nodes. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cv.h"
#include "dglpart/alloc.h"
#include "dglpart/error.h"
#include "dglpart/npy.h"

#define TRAIN_PER_CLASS 20
#define NUM_VAL 500
#define NUM_TEST 1000

/* String id -> node index, open addressing over an arena of names. */
struct idmap {
    struct dp_buf names; /* NUL-separated */
    uint64_t *off;       /* name offset of node i */
    int64_t *slot;       /* node index or -1 */
    uint64_t nslots, count;
    size_t offcap;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static int64_t idmap_find(const struct idmap *m, const char *key)
{
    uint64_t i;

    if (!m->nslots)
        return -1;
    for (i = hash_str(key) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
        int64_t v = m->slot[i];

        if (v < 0)
            return -1;
        if (!strcmp(m->names.data + m->off[v], key))
            return v;
    }
}

static int idmap_rehash(struct idmap *m)
{
    uint64_t n = m->nslots ? m->nslots * 2 : 1024, i, j;
    int64_t *slot = dp_malloc_array((size_t)n, sizeof(*slot));

    if (!slot)
        return DP_ENOMEM;
    memset(slot, 0xff, (size_t)n * sizeof(*slot));
    for (i = 0; i < m->count; i++) {
        for (j = hash_str(m->names.data + m->off[i]) & (n - 1); slot[j] >= 0;
             j = (j + 1) & (n - 1))
            ;
        slot[j] = (int64_t)i;
    }
    free(m->slot);
    m->slot = slot;
    m->nslots = n;
    return 0;
}

static int idmap_add(struct idmap *m, const char *key)
{
    uint64_t j;
    int rc;

    if (2 * (m->count + 1) > m->nslots && (rc = idmap_rehash(m)))
        return rc;
    if ((rc = DP_ALLOC_GROW(m->off, m->count + 1, m->offcap)))
        return rc;
    m->off[m->count] = m->names.len;
    if ((rc = dp_buf_add(&m->names, key, strlen(key) + 1)))
        return rc;
    for (j = hash_str(key) & (m->nslots - 1); m->slot[j] >= 0;
         j = (j + 1) & (m->nslots - 1))
        ;
    m->slot[j] = (int64_t)m->count++;
    return 0;
}

static void idmap_release(struct idmap *m)
{
    dp_buf_release(&m->names);
    free(m->off);
    free(m->slot);
}

static char *field(char **pp)
{
    char *p = *pp, *start;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    start = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (*p)
        *p++ = '\0';
    *pp = p;
    return start;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct linqs {
    struct idmap ids, classes;
    int64_t *cls; /* class (index in classes) of each node */
    size_t clscap;
    int64_t dim;
    struct dp_npy_writer feat;
    int feat_open;
    float *row;
};

static int read_content(struct cv_graph *g, struct linqs *L, struct cv_src *s)
{
    char *line, *p, *f, *last;
    size_t len;
    int64_t nf, c;
    int rc;

    for (;;) {
        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            break;
        p = line;
        if (!(f = field(&p)))
            continue;
        if (idmap_find(&L->ids, f) >= 0)
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": paper id '%s' "
                            "appears twice",
                            s->name, s->line, f);
        if ((rc = idmap_add(&L->ids, f)))
            return rc;
        /* Words, then the class as the last field. */
        nf = 0;
        last = NULL;
        if (!L->feat_open) {
            char *q = p;

            while (field(&q))
                nf++;
            if (nf < 1)
                return dp_error(DP_EFORMAT,
                                "'%s' line %" PRIu64 ": expected "
                                "'<paper id> <words...> <class>', found 1 "
                                "field",
                                s->name, s->line);
            L->dim = nf - 1;
            L->row =
                dp_malloc_array(L->dim ? (size_t)L->dim : 1, sizeof(float));
            if (!L->row)
                return DP_ENOMEM;
            {
                char *path = cv_graph_path(g, "feat.npy");
                int64_t shape[2] = { -1, L->dim };

                rc = path ? dp_npy_writer_open(&L->feat, path, DP_F32, 2, shape)
                          : DP_ENOMEM;
                free(path);
                if (rc)
                    return rc;
                L->feat_open = 1;
            }
            /* field() cut the line up; undo the cuts. */
            for (q = line + strlen(line); q < line + len; q++)
                if (!*q)
                    *q = '\t';
            p = line;
            field(&p);
        }
        for (nf = 0; (f = field(&p)); nf++) {
            if (last) {
                char *end;
                float v;

                if (nf - 1 >= L->dim)
                    break;
                v = strtof(last, &end);
                if (end == last || *end)
                    return dp_error(DP_EFORMAT,
                                    "'%s' line %" PRIu64 ": field "
                                    "%" PRId64 ": expected a number, found "
                                    "'%.40s'",
                                    s->name, s->line, nf + 1, last);
                L->row[nf - 1] = v;
            }
            last = f;
        }
        if (nf != L->dim + 1)
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": expected %" PRId64
                            " fields (id, %" PRId64 " words, class), "
                            "found %s%" PRId64,
                            s->name, s->line, L->dim + 2, L->dim,
                            f ? "more than " : "", nf + 1);
        if ((c = idmap_find(&L->classes, last)) < 0) {
            c = (int64_t)L->classes.count;
            if ((rc = idmap_add(&L->classes, last)))
                return rc;
        }
        if ((rc = DP_ALLOC_GROW(L->cls, L->ids.count, L->clscap)))
            return rc;
        L->cls[L->ids.count - 1] = c;
        if ((rc = dp_npy_writer_write(&L->feat, L->row, (uint64_t)L->dim)))
            return rc;
    }
    if (!L->ids.count)
        return dp_error(DP_EFORMAT,
                        "'%s': no papers (expected '<paper id> "
                        "<words...> <class>' lines)",
                        s->name);
    return 0;
}

static int read_cites(struct cv_graph *g, struct linqs *L, struct cv_src *s,
                      uint64_t *skipped)
{
    char *line, *p, *cited, *citing;
    size_t len;
    int rc;

    for (;;) {
        int64_t a, b;

        if ((rc = cv_src_line(s, &line, &len)))
            return rc;
        if (!line)
            return 0;
        p = line;
        if (!(cited = field(&p)))
            continue;
        if (!(citing = field(&p)))
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": expected 2 "
                            "columns (cited citing), found 1",
                            s->name, s->line);
        if (field(&p))
            return dp_error(DP_EFORMAT,
                            "'%s' line %" PRIu64 ": expected 2 "
                            "columns (cited citing), found more",
                            s->name, s->line);
        a = idmap_find(&L->ids, citing);
        b = idmap_find(&L->ids, cited);
        if (a < 0 || b < 0) {
            (*skipped)++;
            continue;
        }
        if ((rc = cv_edges_push(&g->edges, a, b, s->line)))
            return rc;
    }
}

static int write_nodes(struct cv_graph *g, struct linqs *L)
{
    int64_t n = (int64_t)L->ids.count, k, nc = (int64_t)L->classes.count;
    int64_t *label = dp_malloc_array((size_t)n, sizeof(*label));
    int64_t *rank = dp_malloc_array((size_t)nc, sizeof(*rank));
    int64_t *seen = dp_calloc((size_t)nc, sizeof(*seen));
    char **names = dp_malloc_array((size_t)nc, sizeof(*names));
    uint8_t *train = dp_calloc((size_t)n, 1), *val = dp_calloc((size_t)n, 1);
    uint8_t *test = dp_calloc((size_t)n, 1);
    int64_t others = 0, nval = 0, ntest = 0, i;
    int rc = DP_ENOMEM;

    if (!label || !rank || !seen || !names || !train || !val || !test)
        goto out;
    for (i = 0; i < nc; i++)
        names[i] = L->classes.names.data + L->classes.off[i];
    qsort(names, (size_t)nc, sizeof(*names), cmp_str);
    for (i = 0; i < nc; i++)
        rank[idmap_find(&L->classes, names[i])] = i;
    for (k = 0; k < n; k++) {
        label[k] = rank[L->cls[k]];
        if (seen[label[k]]++ < TRAIN_PER_CLASS)
            train[k] = 1;
        else
            others++;
    }
    for (k = 0; k < n && nval < NUM_VAL; k++)
        if (!train[k]) {
            val[k] = 1;
            nval++;
        }
    for (k = n; k-- > 0 && ntest < NUM_TEST && ntest < others - nval;)
        if (!train[k] && !val[k]) {
            test[k] = 1;
            ntest++;
        }
    if ((rc = cv_graph_write_i64(g, "label.npy", label, n)) ||
        (rc = cv_graph_write_mask(g, "train_mask.npy", train, n)) ||
        (rc = cv_graph_write_mask(g, "val_mask.npy", val, n)) ||
        (rc = cv_graph_write_mask(g, "test_mask.npy", test, n)))
        goto out;
    g->meta.num_classes = nc;
    g->meta.has_train = g->meta.has_val = g->meta.has_test = 1;
out:
    free(label);
    free(rank);
    free(seen);
    free(names);
    free(train);
    free(val);
    free(test);
    return rc;
}

/* Find NAME.cites and NAME.content[.gz] from a folder or either file. */
int cv_linqs_files(const char *in, char **cites, char **content)
{
    char *stem = NULL, *p;
    size_t n;

    if (dp_is_dir(in)) {
        char *dir = dp_strdup(in);

        if (!dir)
            return DP_ENOMEM;
        /* The folder's own name first (cora/cora.cites), then any. */
        {
            char *base;

            n = strlen(dir);
            while (n > 1 && dir[n - 1] == '/')
                dir[--n] = '\0';
            base = strrchr(dir, '/');
            base = base ? base + 1 : dir;
            stem = dp_malloc(strlen(dir) + strlen(base) + 2);
            if (stem)
                sprintf(stem, "%s/%s", dir, base);
            p = stem ? dp_malloc(strlen(stem) + 8) : NULL;
            if (p)
                sprintf(p, "%s.cites", stem);
            if (p && !dp_exists(p)) {
                free(stem);
                stem = NULL;
            }
            free(p);
        }
        if (!stem) {
            DIR *d = opendir(dir);
            struct dirent *de;

            while (d && (de = readdir(d)) && !stem) {
                size_t l = strlen(de->d_name);

                if (l > 6 && !strcmp(de->d_name + l - 6, ".cites")) {
                    stem = dp_malloc(strlen(dir) + l + 2);
                    if (stem)
                        sprintf(stem, "%s/%.*s", dir, (int)(l - 6), de->d_name);
                }
            }
            if (d)
                closedir(d);
        }
        free(dir);
        if (!stem)
            return dp_error(DP_ENOENT, "'%s': no *.cites file", in);
    } else {
        stem = dp_strdup(in);
        if (!stem)
            return DP_ENOMEM;
        n = strlen(stem);
        if (n > 3 && !strcmp(stem + n - 3, ".gz"))
            stem[n -= 3] = '\0';
        if ((p = strrchr(stem, '.')) &&
            (!strcmp(p, ".cites") || !strcmp(p, ".content")))
            *p = '\0';
    }
    *cites = dp_malloc(strlen(stem) + 16);
    *content = dp_malloc(strlen(stem) + 16);
    if (!*cites || !*content) {
        free(stem);
        return DP_ENOMEM;
    }
    sprintf(*cites, "%s.cites", stem);
    if (!dp_exists(*cites))
        strcat(*cites, ".gz");
    sprintf(*content, "%s.content", stem);
    if (!dp_exists(*content))
        strcat(*content, ".gz");
    free(stem);
    if (!dp_exists(*cites))
        return dp_error(DP_ENOENT,
                        "'%s' is missing (LINQS needs NAME.cites "
                        "and NAME.content)",
                        *cites);
    if (!dp_exists(*content))
        return dp_error(DP_ENOENT,
                        "'%.*s' is missing (LINQS needs NAME.cites "
                        "and NAME.content)",
                        (int)strlen(*content) - 3, *content);
    return 0;
}

int cv_read_linqs(struct cv_graph *g, const char *in)
{
    struct linqs L;
    struct cv_src s;
    char *cites = NULL, *content = NULL, sha[65];
    uint64_t size, skipped = 0;
    int rc;

    memset(&L, 0, sizeof(L));
    dp_buf_init(&L.ids.names, 0);
    dp_buf_init(&L.classes.names, 0);
    if ((rc = cv_linqs_files(in, &cites, &content)))
        goto out;
    if ((rc = cv_src_open_file(&s, content, cv_hashing(g))))
        goto out;
    rc = read_content(g, &L, &s);
    cv_src_close(&s, rc ? NULL : sha, &size);
    if (rc || (rc = cv_graph_add_input(g, content, size, sha)))
        goto out;
    rc = dp_npy_writer_commit(&L.feat);
    L.feat_open = 0;
    if (rc)
        goto out;
    g->meta.feat_dim = L.dim;
    if (g->o->num_nodes >= 0 && g->o->num_nodes != (int64_t)L.ids.count) {
        rc = dp_error(DP_EINVAL,
                      "--num_nodes %" PRId64 " disagrees with '%s' "
                      "(%" PRIu64 " papers)",
                      g->o->num_nodes, content, L.ids.count);
        goto out;
    }
    g->num_nodes = (int64_t)L.ids.count;
    if ((rc = cv_src_open_file(&s, cites, cv_hashing(g))))
        goto out;
    g->edge_src = dp_strdup(cites);
    rc = g->edge_src ? read_cites(g, &L, &s, &skipped) : DP_ENOMEM;
    cv_src_close(&s, rc ? NULL : sha, &size);
    if (rc || (rc = cv_graph_add_input(g, cites, size, sha)))
        goto out;
    if (skipped)
        dp_warn("'%s': skipped %" PRIu64 " citation%s of papers missing from "
                "'%s'",
                cites, skipped, skipped == 1 ? "" : "s", content);
    rc = write_nodes(g, &L);
out:
    if (L.feat_open)
        dp_npy_writer_abort(&L.feat);
    idmap_release(&L.ids);
    idmap_release(&L.classes);
    free(L.cls);
    free(L.row);
    free(cites);
    free(content);
    return rc;
}
