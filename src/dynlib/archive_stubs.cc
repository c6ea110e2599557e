// libarchive's functions that dagu calls (the archive executor), forwarded to
// the library loaded at first use (lazy_library.h). Each has the signature of
// <archive.h> / <archive_entry.h>.
#include <archive.h>
#include <archive_entry.h>

#include "dynlib/lazy_symbol.h"

// Reading.
DAGU_LAZY_FN(kArchive, struct archive*, archive_read_new, (void), ())
DAGU_LAZY_FN(kArchive, int, archive_read_support_filter_all, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_support_format_tar, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_support_format_zip_seekable, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_support_format_7zip, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_support_format_rar, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_support_format_rar5, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_read_add_passphrase, (struct archive * a, const char* p), (a, p))
DAGU_LAZY_FN(kArchive, int, archive_read_open_filename, (struct archive * a, const char* f, size_t block),
             (a, f, block))
DAGU_LAZY_FN(kArchive, int, archive_read_next_header, (struct archive * a, struct archive_entry** e), (a, e))
DAGU_LAZY_FN(kArchive, la_ssize_t, archive_read_data, (struct archive * a, void* buf, size_t size), (a, buf, size))
DAGU_LAZY_FN(kArchive, int, archive_read_free, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_format, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_filter_count, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_filter_code, (struct archive * a, int n), (a, n))
DAGU_LAZY_FN(kArchive, const char*, archive_error_string, (struct archive * a), (a))

// Writing.
DAGU_LAZY_FN(kArchive, struct archive*, archive_write_new, (void), ())
DAGU_LAZY_FN(kArchive, int, archive_write_set_format_pax_restricted, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_set_format_zip, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_add_filter_gzip, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_add_filter_bzip2, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_add_filter_xz, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_add_filter_zstd, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_set_options, (struct archive * a, const char* opts), (a, opts))
DAGU_LAZY_FN(kArchive, int, archive_write_set_bytes_in_last_block, (struct archive * a, int n), (a, n))
DAGU_LAZY_FN(kArchive, int, archive_write_open_fd, (struct archive * a, int fd), (a, fd))
DAGU_LAZY_FN(kArchive, int, archive_write_header, (struct archive * a, struct archive_entry* e), (a, e))
DAGU_LAZY_FN(kArchive, la_ssize_t, archive_write_data, (struct archive * a, const void* buf, size_t size),
             (a, buf, size))
DAGU_LAZY_FN(kArchive, int, archive_write_close, (struct archive * a), (a))
DAGU_LAZY_FN(kArchive, int, archive_write_free, (struct archive * a), (a))

// Entries.
DAGU_LAZY_FN(kArchive, struct archive_entry*, archive_entry_new, (void), ())
DAGU_LAZY_FN(kArchive, void, archive_entry_free, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, const char*, archive_entry_pathname, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, const char*, archive_entry_symlink, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, const char*, archive_entry_hardlink, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, mode_t, archive_entry_mode, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, la_int64_t, archive_entry_size, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, time_t, archive_entry_mtime, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, long, archive_entry_mtime_nsec, (struct archive_entry * e), (e))
DAGU_LAZY_FN(kArchive, void, archive_entry_copy_stat, (struct archive_entry * e, const struct stat* st), (e, st))
DAGU_LAZY_FN(kArchive, void, archive_entry_copy_pathname, (struct archive_entry * e, const char* p), (e, p))
DAGU_LAZY_FN(kArchive, void, archive_entry_copy_symlink, (struct archive_entry * e, const char* p), (e, p))
DAGU_LAZY_FN(kArchive, void, archive_entry_copy_uname, (struct archive_entry * e, const char* p), (e, p))
DAGU_LAZY_FN(kArchive, void, archive_entry_copy_gname, (struct archive_entry * e, const char* p), (e, p))
DAGU_LAZY_FN(kArchive, void, archive_entry_set_mtime, (struct archive_entry * e, time_t t, long ns), (e, t, ns))
DAGU_LAZY_FN(kArchive, void, archive_entry_set_size, (struct archive_entry * e, la_int64_t s), (e, s))
