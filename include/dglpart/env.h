/* Settings from the environment: every variable dglpart reads or sets is in
 * one table (core/env.c) with its type, default and meaning, and is read
 * only through the accessors below, which check it against the table.
 * `dglpart help env` prints the table; the man page's ENVIRONMENT is it. */
#ifndef DGLPART_ENV_H
#define DGLPART_ENV_H

#include <stdint.h>
#include <stdio.h>

enum dp_env_type {
    DP_ENV_BOOL, /* 1 or 0 (also true/false, yes/no, on/off) */
    DP_ENV_INT,  /* a decimal integer in [min, max] */
    DP_ENV_SIZE, /* bytes, with an optional K, M, G or T: 64M, 4G */
    DP_ENV_STR   /* any text; with a '|' list as arg, one of those words */
};

enum dp_env_use {
    DP_ENV_USER,    /* a setting for users */
    DP_ENV_TEST,    /* for tests (and before/after benchmarks) only */
    DP_ENV_SELF,    /* set by dglpart for its own processes */
    DP_ENV_OUTSIDE, /* DGL's, torchrun's or the system's, as they define it */
};

struct dp_env_var {
    const char *name;
    enum dp_env_type type;
    enum dp_env_use use;
    const char *arg;  /* how a value looks: "DIR", "N", "isal|zlib" */
    int64_t min, max; /* DP_ENV_INT and DP_ENV_SIZE: the accepted range */
    const char *def;  /* the default as a value; NULL: none, or worked
                         out by the code (the meaning says how) */
    const char *meaning;
};

/* The table, in the order `dglpart help env` prints it; *n entries. */
const struct dp_env_var *dp_env_table(size_t *n);
/* The entry of name; NULL when the table lacks it. */
const struct dp_env_var *dp_env_find(const char *name);

/* Read a variable of the table (a name missing from the table, or of
 * another type, is DP_EINVAL). Set and not empty: *out is its value, 0
 * returned. Unset or empty: *out is the table's default, or left as the
 * caller set it when the table has none (the caller's own default), 0
 * returned. Malformed or out of range: *out as when unset, and DP_EINVAL
 * or DP_ERANGE with a one-line message naming the variable and what was
 * expected ("DGLPART_SPILL: expected 1 or 0, got 'maybe'"). */
int dp_env_bool(const char *name, int *out);
int dp_env_int(const char *name, int64_t *out);
int dp_env_size(const char *name, int64_t *out);
/* The value (borrowed from the environment), or the table's default when
 * unset, empty or not one of the words of a '|' list; NULL when there is
 * none. */
const char *dp_env_str(const char *name);

/* Check every DGLPART_ variable of the table that is set: 0, or the code
 * and message of the first malformed one. The binary refuses to start on
 * one (exit 2), so a typo is never taken for the default. */
int dp_env_check(void);

/* Write the table to fp, the variables grouped by use, each with its
 * default and meaning, wrapped to 80 columns. */
void dp_env_print(FILE *fp);

#endif
