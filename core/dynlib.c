/* Run-time loading of libcurl and libarchive (see dglpart/dynlib.h), and
 * the loader core/comm.c uses for libmpi. */
#define DP_DYNLIB_IMPL
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dglpart/dynlib.h"
#include "dglpart/error.h"

struct dp_curl_api dp_curl_api;
struct dp_archive_api dp_archive_api;

#define DP_DYNLIB_NAME(f) #f,
static const char *const curl_names[] = { DP_CURL_FUNCS(DP_DYNLIB_NAME) NULL };
static const char *const archive_names[] = { DP_ARCHIVE_FUNCS(DP_DYNLIB_NAME)
                                                 NULL };
#undef DP_DYNLIB_NAME

_Static_assert(sizeof(dp_curl_api) ==
                   (sizeof(curl_names) / sizeof(*curl_names) - 1) *
                       sizeof(void *),
               "one pointer per libcurl function");
_Static_assert(sizeof(dp_archive_api) ==
                   (sizeof(archive_names) / sizeof(*archive_names) - 1) *
                       sizeof(void *),
               "one pointer per libarchive function");

static int load(const char *soname, const char *pkg, int mode,
                const char *const *names, void *slots)
{
    void *h = dlopen(soname, RTLD_NOW | mode);
    int i;

    if (!h)
        return dp_error(DP_EUNSUPPORTED,
                        "cannot load %s (Debian package %s): %s", soname, pkg,
                        dlerror());
    for (i = 0; names[i]; i++) {
        /* POSIX: a function pointer may be read from dlsym's object */
        void *f = dlsym(h, names[i]);

        if (!f)
            return dp_error(DP_EUNSUPPORTED, "%s lacks %s: is %s too old?",
                            soname, names[i], pkg);
        /* bytes, not a void * store: slots are function pointers */
        memcpy((char *)slots + (size_t)i * sizeof(f), &f, sizeof(f));
    }
    return 0; /* the handle stays open: the pointers live as long */
}

int dp_dynlib_load(const char *soname, const char *pkg,
                   const char *const *names, void *slots)
{
    return load(soname, pkg, RTLD_LOCAL, names, slots);
}

int dp_dynlib_load_global(const char *soname, const char *pkg,
                          const char *const *names, void *slots)
{
    return load(soname, pkg, RTLD_GLOBAL, names, slots);
}

/* The sonames Debian 12's libcurl4 and libarchive13 install; the headers
 * come from their -dev packages through pkg-config. A failure is kept
 * and given again to every later caller, on whatever thread. */
static int curl_rc, archive_rc;
static char curl_msg[512], archive_msg[512];
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pthread_once_t archive_once = PTHREAD_ONCE_INIT;

static void load_curl(void)
{
    curl_rc =
        dp_dynlib_load("libcurl.so.4", "libcurl4", curl_names, &dp_curl_api);
    if (curl_rc)
        snprintf(curl_msg, sizeof(curl_msg), "%s", dp_errmsg());
}

static void load_archive(void)
{
    archive_rc = dp_dynlib_load("libarchive.so.13", "libarchive13",
                                archive_names, &dp_archive_api);
    if (archive_rc)
        snprintf(archive_msg, sizeof(archive_msg), "%s", dp_errmsg());
}

int dp_need_curl(void)
{
    pthread_once(&curl_once, load_curl);
    return curl_rc ? dp_error(curl_rc, "%s", curl_msg) : 0;
}

int dp_need_archive(void)
{
    pthread_once(&archive_once, load_archive);
    return archive_rc ? dp_error(archive_rc, "%s", archive_msg) : 0;
}
