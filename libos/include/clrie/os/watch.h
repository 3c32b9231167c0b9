/* clrie/os/watch.h: being told when the entries of a folder change (a file made, written,
 * renamed or removed in it), as inotify on Linux and ReadDirectoryChangesW on Windows say it.
 *
 * One thread waits on a watch; any other thread may stop it, which ends that wait and every
 * later one. A change is only a hint that something happened: what happened is for the caller
 * to read in the folder, and several changes may come as one.
 *
 * Threads: clrie_os_watch_wait from one thread at a time; clrie_os_watch_stop from any thread;
 * clrie_os_watch_close once no thread waits any more. */
#ifndef CLRIE_OS_WATCH_H
#define CLRIE_OS_WATCH_H

#ifdef __cplusplus
extern "C" {
#endif

struct clrie_os_watch;

/* Wait without a deadline. */
#define CLRIE_OS_WATCH_FOREVER (-1)

/* Starts watching the folder path (UTF-8): 0 and the watch in *out, to be closed with
 * clrie_os_watch_close; -ENOENT, -ENOTDIR, -EACCES, -ENOMEM, -EMFILE (no watch left: the
 * system's limit) or another negative errno value. */
int clrie_os_watch_open(const char *path, struct clrie_os_watch **out);

/* Waits until the folder changes, the watch is stopped, or timeout_ms milliseconds have passed
 * (CLRIE_OS_WATCH_FOREVER: no deadline): 1 when something changed since the last call, 0 when
 * the time ran out with no change, -ECANCELED once the watch is stopped, or another negative
 * errno value when the system stops telling (the caller then gives the watch up). */
int clrie_os_watch_wait(struct clrie_os_watch *watch, int timeout_ms);

/* Ends the wait in progress, and makes every later wait return -ECANCELED. */
void clrie_os_watch_stop(struct clrie_os_watch *watch);

/* Closes a watch no thread waits on any more; NULL is fine. */
void clrie_os_watch_close(struct clrie_os_watch *watch);

#ifdef __cplusplus
}
#endif

#endif
