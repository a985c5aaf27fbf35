/* libcurl and libarchive, loaded on first use. Only download, unpacking,
 * zip reading and copy need them, and with their dependencies they are
 * most of what a process would map: 7 MiB and 5 ms at every start of
 * every command, and two packages every serving host would need.
 *
 * A caller includes this header instead of the libraries' own and calls
 * dp_need_curl() or dp_need_archive() before its first call; the usual
 * names then go through the loaded tables. */
#ifndef DGLPART_DYNLIB_H
#define DGLPART_DYNLIB_H

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>

#define DP_CURL_FUNCS(X)                                                       \
    X(curl_easy_cleanup)                                                       \
    X(curl_easy_getinfo)                                                       \
    X(curl_easy_init)                                                          \
    X(curl_easy_perform)                                                       \
    X(curl_easy_setopt)                                                        \
    X(curl_easy_strerror)                                                      \
    X(curl_global_init)                                                        \
    X(curl_slist_append)                                                       \
    X(curl_slist_free_all)

#define DP_ARCHIVE_FUNCS(X)                                                    \
    X(archive_entry_clear)                                                     \
    X(archive_entry_filetype)                                                  \
    X(archive_entry_free)                                                      \
    X(archive_entry_hardlink)                                                  \
    X(archive_entry_new)                                                       \
    X(archive_entry_pathname)                                                  \
    X(archive_entry_set_filetype)                                              \
    X(archive_entry_set_mtime)                                                 \
    X(archive_entry_set_pathname)                                              \
    X(archive_entry_set_perm)                                                  \
    X(archive_entry_set_size)                                                  \
    X(archive_entry_size)                                                      \
    X(archive_entry_size_is_set)                                               \
    X(archive_error_string)                                                    \
    X(archive_filter_bytes)                                                    \
    X(archive_read_data)                                                       \
    X(archive_read_data_block)                                                 \
    X(archive_read_free)                                                       \
    X(archive_read_header_position)                                            \
    X(archive_read_new)                                                        \
    X(archive_read_next_header)                                                \
    X(archive_read_open_filename)                                              \
    X(archive_read_support_filter_all)                                         \
    X(archive_read_support_format_gnutar)                                      \
    X(archive_read_support_format_tar)                                         \
    X(archive_read_support_format_zip)                                         \
    X(archive_read_support_format_zip_seekable)                                \
    X(archive_write_close)                                                     \
    X(archive_write_data)                                                      \
    X(archive_write_finish_entry)                                              \
    X(archive_write_free)                                                      \
    X(archive_write_header)                                                    \
    X(archive_write_new)                                                       \
    X(archive_write_open2)                                                     \
    X(archive_write_set_bytes_in_last_block)                                   \
    X(archive_write_set_bytes_per_block)                                       \
    X(archive_write_set_format_pax_restricted)

#define DP_DYNLIB_SLOT(f) __typeof__(f) *f;
struct dp_curl_api {
    DP_CURL_FUNCS(DP_DYNLIB_SLOT)
};
struct dp_archive_api {
    DP_ARCHIVE_FUNCS(DP_DYNLIB_SLOT)
};
#undef DP_DYNLIB_SLOT

extern struct dp_curl_api dp_curl_api;
extern struct dp_archive_api dp_archive_api;

/* Load the library once (thread-safe); 0, or an error naming the library
 * and the Debian package that provides it. */
int dp_need_curl(void);
int dp_need_archive(void);

/* Load soname and resolve the NULL-terminated names into the table of
 * pointers at slots, in order (functions, or the addresses of data
 * objects); the error names pkg. */
int dp_dynlib_load(const char *soname, const char *pkg,
                   const char *const *names, void *slots);
/* The same with the library's symbols made global (RTLD_GLOBAL), for a
 * library whose own plugins resolve its symbols: Open MPI's libmpi. */
int dp_dynlib_load_global(const char *soname, const char *pkg,
                          const char *const *names, void *slots);

#ifndef DP_DYNLIB_IMPL
/* curl's type-checking wrappers would call the linked symbols */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_cleanup (dp_curl_api.curl_easy_cleanup)
#define curl_easy_getinfo (dp_curl_api.curl_easy_getinfo)
#define curl_easy_init (dp_curl_api.curl_easy_init)
#define curl_easy_perform (dp_curl_api.curl_easy_perform)
#define curl_easy_setopt (dp_curl_api.curl_easy_setopt)
#define curl_easy_strerror (dp_curl_api.curl_easy_strerror)
#define curl_global_init (dp_curl_api.curl_global_init)
#define curl_slist_append (dp_curl_api.curl_slist_append)
#define curl_slist_free_all (dp_curl_api.curl_slist_free_all)
#define archive_entry_clear (dp_archive_api.archive_entry_clear)
#define archive_entry_filetype (dp_archive_api.archive_entry_filetype)
#define archive_entry_free (dp_archive_api.archive_entry_free)
#define archive_entry_hardlink (dp_archive_api.archive_entry_hardlink)
#define archive_entry_new (dp_archive_api.archive_entry_new)
#define archive_entry_pathname (dp_archive_api.archive_entry_pathname)
#define archive_entry_set_filetype (dp_archive_api.archive_entry_set_filetype)
#define archive_entry_set_mtime (dp_archive_api.archive_entry_set_mtime)
#define archive_entry_set_pathname (dp_archive_api.archive_entry_set_pathname)
#define archive_entry_set_perm (dp_archive_api.archive_entry_set_perm)
#define archive_entry_set_size (dp_archive_api.archive_entry_set_size)
#define archive_entry_size (dp_archive_api.archive_entry_size)
#define archive_entry_size_is_set (dp_archive_api.archive_entry_size_is_set)
#define archive_error_string (dp_archive_api.archive_error_string)
#define archive_filter_bytes (dp_archive_api.archive_filter_bytes)
#define archive_read_data (dp_archive_api.archive_read_data)
#define archive_read_data_block (dp_archive_api.archive_read_data_block)
#define archive_read_free (dp_archive_api.archive_read_free)
#define archive_read_header_position                                           \
    (dp_archive_api.archive_read_header_position)
#define archive_read_new (dp_archive_api.archive_read_new)
#define archive_read_next_header (dp_archive_api.archive_read_next_header)
#define archive_read_open_filename (dp_archive_api.archive_read_open_filename)
#define archive_read_support_filter_all                                        \
    (dp_archive_api.archive_read_support_filter_all)
#define archive_read_support_format_gnutar                                     \
    (dp_archive_api.archive_read_support_format_gnutar)
#define archive_read_support_format_tar                                        \
    (dp_archive_api.archive_read_support_format_tar)
#define archive_read_support_format_zip                                        \
    (dp_archive_api.archive_read_support_format_zip)
#define archive_read_support_format_zip_seekable                               \
    (dp_archive_api.archive_read_support_format_zip_seekable)
#define archive_write_close (dp_archive_api.archive_write_close)
#define archive_write_data (dp_archive_api.archive_write_data)
#define archive_write_finish_entry (dp_archive_api.archive_write_finish_entry)
#define archive_write_free (dp_archive_api.archive_write_free)
#define archive_write_header (dp_archive_api.archive_write_header)
#define archive_write_new (dp_archive_api.archive_write_new)
#define archive_write_open2 (dp_archive_api.archive_write_open2)
#define archive_write_set_bytes_in_last_block                                  \
    (dp_archive_api.archive_write_set_bytes_in_last_block)
#define archive_write_set_bytes_per_block                                      \
    (dp_archive_api.archive_write_set_bytes_per_block)
#define archive_write_set_format_pax_restricted                                \
    (dp_archive_api.archive_write_set_format_pax_restricted)
#endif

#endif
