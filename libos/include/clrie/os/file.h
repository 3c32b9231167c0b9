/* clrie/os/file.h: reading a file that decides what the process runs (a configuration, a
 * module before it is loaded), and what the system says about it.
 *
 * A file is opened once and everything is asked of that open file (its kind, size, canonical
 * path, contents), so that a file swapped between two questions cannot give two answers.
 * Paths are UTF-8 (UTF-16 at the Windows calls). Errors are negative errno values as in
 * clrie/os/fs.h.
 *
 * Threads: one open file belongs to one thread at a time. */
#ifndef CLRIE_OS_FILE_H
#define CLRIE_OS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "clrie/os/fs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct clrie_os_file;

enum clrie_os_open_flags {
    /* Refuse a path whose last component is a symbolic link (POSIX; Windows follows). */
    CLRIE_OS_OPEN_NO_FOLLOW = 1 << 0,
};

/* Opens path for reading, without blocking on a device or a pipe: 0 and the file in *out, to
 * be closed with clrie_os_file_close. flags: enum clrie_os_open_flags. */
int clrie_os_file_open(const char *path, unsigned flags, struct clrie_os_file **out);

/* The file open on a C runtime descriptor (open(), _open() on Windows), borrowed: closing
 * the clrie_os_file leaves the descriptor open. */
int clrie_os_file_wrap(int descriptor, struct clrie_os_file **out);

/* Closes a file opened by clrie_os_file_open, forgets a wrapped one; NULL is fine. */
void clrie_os_file_close(struct clrie_os_file *file);

struct clrie_os_file_info {
    enum clrie_os_kind kind;
    uint64_t size; /* bytes, for a regular file */
};

int clrie_os_file_info(struct clrie_os_file *file, struct clrie_os_file_info *info);

/* Reads up to len bytes from the current position: 0 and *got (0 at the end of the file). */
int clrie_os_file_read(struct clrie_os_file *file, void *buf, size_t len, size_t *got);

/* Reads up to len bytes at offset: 0 and *got (less than len only at the end of the file).
 * Where clrie_os_file_read goes on afterwards is unspecified: use one or the other on a file. */
int clrie_os_file_read_at(struct clrie_os_file *file, uint64_t offset, void *buf, size_t len,
                          size_t *got);

/* The canonical path of the open file (absolute, no symbolic link; on Windows a drive or UNC
 * path without the \\?\ prefix), malloc'd in *out. */
int clrie_os_file_path(struct clrie_os_file *file, char **out);

/* The system's handle of the file, for the few system-specific files of other libraries (the
 * trust rule): a descriptor on POSIX, a HANDLE on Windows. Borrowed. */
intptr_t clrie_os_file_native(const struct clrie_os_file *file);

#ifdef __cplusplus
}
#endif

#endif
