/* clrie/os/log_file.h: the engine's log file, opened where an operator points it, and lines
 * written whole to it or to stderr.
 *
 * A log file is a C runtime descriptor on every system (open() on POSIX, _open_osfhandle on
 * Windows), so that a crash handler can write to it without locks. Paths are UTF-8.
 *
 * Threads: every function may be called from any thread; writes of one line are not
 * interleaved with another thread's only where the system makes an appending write atomic. */
#ifndef CLRIE_OS_LOG_FILE_H
#define CLRIE_OS_LOG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The descriptor of the process's standard error. */
#define CLRIE_OS_STDERR 2

/* Opens what path names for appending: the file itself (made when missing), or, for a
 * folder, ProfilerLog_<process id>.txt in it. What is refused: on POSIX a FIFO, a socket or a
 * block device (the process's own stderr under any of those is fine), a symbolic link in a
 * folder that group or others can write to, and a folder of that kind that is not sticky; on
 * Windows anything but a file or a character device. Returns 0 and the descriptor in *fd;
 * else -1 in *fd and a negative errno value, with *why set to a sentence when the path was
 * refused rather than failed ("it is a FIFO, not a regular file or a character device"). */
int clrie_os_log_file_open(const char *path, int *fd, const char **why);

/* Whether the regular file behind fd has been deleted: it has no name left, so what is written
 * to it reaches nobody (an operator or a clean-up removed it). False for a character device,
 * and where the system cannot tell. */
bool clrie_os_log_file_deleted(int fd);

/* Opens path again as clrie_os_log_file_open does, writes the len bytes of first to it (a line
 * saying why, which so comes before any other thread's), and puts the file behind fd, so that
 * every thread writing to fd writes there from then on (fd is not inherited either). Returns 0,
 * or a negative errno value with *why as for clrie_os_log_file_open; fd is unchanged then. */
int clrie_os_log_file_replace(int fd, const char *path, const void *first, size_t len,
                              const char **why);

/* Opens path itself (made when missing, emptied first when truncate) for appending lines
 * written whole, as a plugin's record or report: 0 and the descriptor in *fd, or a negative
 * errno value and -1 in *fd. Nothing is refused: the caller named this file. Not inherited by
 * child processes. Close with clrie_os_close. */
int clrie_os_line_file_open(const char *path, bool truncate, int *fd);

/* Writes all of text to fd, retrying interrupted and short writes: 0, or the negative errno
 * that stopped it (-EIO for a write that took nothing, so a stuck file cannot make a loop). */
int clrie_os_write_all(int fd, const void *text, size_t len);

/* Closes a descriptor from clrie_os_log_file_open. */
void clrie_os_close(int fd);

/* Gives len bytes of text (one or more lines) to a debugger watching the process:
 * OutputDebugStringW on Windows, nothing elsewhere. */
void clrie_os_debug_output(const char *text, size_t len);

#ifdef __cplusplus
}
#endif

#endif
