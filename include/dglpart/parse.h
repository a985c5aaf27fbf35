/* Range-checked number parsing for options and text inputs (never atoi). */
#ifndef DGLPART_PARSE_H
#define DGLPART_PARSE_H

#include <stdint.h>

/* Parse all of s as a decimal integer in [min, max]. 0 and *out set, or
 * DP_EINVAL / DP_ERANGE with a message naming what (e.g. "--num_parts"). */
int dp_parse_i64(const char *what, const char *s, int64_t min, int64_t max,
                 int64_t *out);
int dp_parse_int(const char *what, const char *s, int min, int max, int *out);
/* Parse all of s as a finite double in [min, max]. */
int dp_parse_double(const char *what, const char *s, double min, double max,
                    double *out);

/* Parse a comma-separated list of integers in [min, max] into a malloc'd
 * array (caller frees). */
int dp_parse_i64_list(const char *what, const char *s, int64_t min, int64_t max,
                      int64_t **out, int *count);

#endif
