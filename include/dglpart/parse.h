/* Range-checked parsing of option values (never atoi), and renamings. */
#ifndef DGLPART_PARSE_H
#define DGLPART_PARSE_H

#include <stdint.h>

/* Parse all of s as a decimal integer in [min, max]. 0 and *out set, or
 * DP_EINVAL / DP_ERANGE with a message naming what (e.g. "--num_parts"). */
int dp_parse_i64(const char *what, const char *s, int64_t min, int64_t max,
                 int64_t *out);
int dp_parse_int(const char *what, const char *s, int min, int max, int *out);
/* Parse a byte count: digits and an optional binary unit K, M, G or T
 * (KiB... as well; a final B allowed): "64M", "20G", "4096". In [min, max]
 * bytes, else DP_EINVAL / DP_ERANGE naming what. */
int dp_parse_size(const char *what, const char *s, int64_t min, int64_t max,
                  int64_t *out);
/* Parse all of s as a finite double in [min, max]. */
int dp_parse_double(const char *what, const char *s, double min, double max,
                    double *out);

/* Parse a comma-separated list of integers in [min, max] into a malloc'd
 * array (caller frees). */
int dp_parse_i64_list(const char *what, const char *s, int64_t min, int64_t max,
                      int64_t **out, int *count);

/* A renaming "OLD=NEW[,OLD=NEW...]" of node or edge data, as given to
 * --ndata_name and --edata_name. Names hold no '/', ',' or '='. */
#define DP_RENAME_MAX 32
struct dp_rename {
    int count;
    char *old[DP_RENAME_MAX], *new_[DP_RENAME_MAX]; /* owned */
};

/* Parse spec (what names the option in messages) into r; a later pair for
 * the same OLD replaces the earlier one. 0, or DP_EINVAL with a message. */
int dp_rename_parse(const char *what, const char *spec, struct dp_rename *r);
/* The name written for name: its NEW, or name itself. */
const char *dp_rename_apply(const struct dp_rename *r, const char *name);
void dp_rename_release(struct dp_rename *r);

#endif
