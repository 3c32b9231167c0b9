/* clrie/os/fs.h: what a path names, and the entries of a folder.
 *
 * Paths are UTF-8 on every system; on Windows they are converted to UTF-16 at the call into
 * the system, so that a path outside ASCII works, and either '/' or '\' separates folders.
 * Errors are negative errno values (-ENOENT, -ENOTDIR, -EACCES, -ENOMEM, -EILSEQ for a path
 * that is not UTF-8 where the system needs UTF-16, -EIO for the rest); Windows errors are
 * mapped to them.
 *
 * Threads: the functions may be called from any thread; one folder listing belongs to one
 * thread at a time. */
#ifndef CLRIE_OS_FS_H
#define CLRIE_OS_FS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The separator the system writes between folders of a path. */
#ifdef _WIN32
#define CLRIE_OS_SEPARATOR '\\'
#define CLRIE_OS_SEPARATOR_STRING "\\"
#else
#define CLRIE_OS_SEPARATOR '/'
#define CLRIE_OS_SEPARATOR_STRING "/"
#endif

/* Is c a separator of folders on this system ('/', and on Windows '\' too)? */
int clrie_os_is_separator(char c);

/* The last separator in path, or NULL when it has none. */
const char *clrie_os_path_last_separator(const char *path);

/* The name after the last separator of path ("app.dll" of "/srv/app.dll", and of
 * "C:\\srv\\app.dll" on Windows), or path itself when it has no separator. */
const char *clrie_os_path_name(const char *path);

/* Is path absolute ("/..." on POSIX; "C:\\...", "C:/..." or a UNC path "\\\\server\\share" on
 * Windows)? */
int clrie_os_path_is_absolute(const char *path);

/* path made absolute against the current folder, malloc'd in *out: it need not exist, and
 * nothing is resolved but the folder it is relative to (on Windows as GetFullPathNameW does,
 * which also removes "." and ".."). An absolute path comes back as it is on POSIX. 0 or a
 * negative errno value. */
int clrie_os_path_absolute(const char *path, char **out);

/* The canonical form of path (absolute, links resolved, as realpath), malloc'd in *out: 0,
 * -ENOENT when nothing is there, ... */
int clrie_os_path_canonical(const char *path, char **out);

enum clrie_os_kind {
    CLRIE_OS_FILE = 1, /* a regular file */
    CLRIE_OS_DIRECTORY,
    CLRIE_OS_OTHER, /* a device, a pipe, a socket */
};

/* What path names, links followed: 0 and *kind; -ENOENT when nothing is there, -ENOTDIR
 * when a folder of the path is a file, -EACCES, ... */
int clrie_os_path_kind(const char *path, enum clrie_os_kind *kind);

/* A listing of a folder's entries, in the order the system gives them. */
struct clrie_os_dir;

/* Opens the folder path: 0 and a listing in *out, to be closed with clrie_os_dir_close. */
int clrie_os_dir_open(const char *path, struct clrie_os_dir **out);

/* The next entry's name (UTF-8, never "." or ".."), borrowed until the next call on the
 * listing: 1; 0 when there are no more; a negative error. A name the system cannot give as
 * UTF-8 (Windows: an unpaired surrogate) is skipped. */
int clrie_os_dir_next(struct clrie_os_dir *dir, const char **name);

/* Closes a listing; NULL is fine. */
void clrie_os_dir_close(struct clrie_os_dir *dir);

#ifdef __cplusplus
}
#endif

#endif
