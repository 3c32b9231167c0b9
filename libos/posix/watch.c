/* Folder watches on Linux (clrie/os/watch.h): inotify, and a pipe that stops the wait. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include "clrie/os/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

struct clrie_os_watch {
    int inotify;
    int stop[2]; /* a byte written to stop[1] ends the wait */
    atomic_bool stopped;
};

int clrie_os_watch_open(const char *path, struct clrie_os_watch **out)
{
    struct clrie_os_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return -ENOMEM;
    w->stop[0] = w->stop[1] = -1;
    w->inotify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    int r = 0;
    if (w->inotify < 0 ||
        inotify_add_watch(w->inotify, path,
                          IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE |
                              IN_ONLYDIR) < 0 ||
        pipe2(w->stop, O_CLOEXEC | O_NONBLOCK) != 0)
        r = errno == ENOSPC ? -EMFILE : -errno;
    if (r != 0) {
        clrie_os_watch_close(w);
        return r;
    }
    *out = w;
    return 0;
}

int clrie_os_watch_wait(struct clrie_os_watch *w, int timeout_ms)
{
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        if (atomic_load(&w->stopped))
            return -ECANCELED;
        struct pollfd fds[2] = {{.fd = w->inotify, .events = POLLIN},
                                {.fd = w->stop[0], .events = POLLIN}};
        int ready = poll(fds, 2, timeout_ms < 0 ? -1 : timeout_ms);
        if (ready < 0 && errno == EINTR)
            continue; /* a signal: the deadline starts again, which only makes it later */
        if (ready < 0)
            return -errno;
        if (fds[1].revents != 0 || atomic_load(&w->stopped))
            return -ECANCELED;
        if (ready == 0)
            return 0;
        bool changed = false;
        for (;;) { /* empty the queue: the changes so far are one answer */
            ssize_t n = read(w->inotify, events, sizeof events);
            if (n > 0) {
                changed = true;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno != EAGAIN)
                return -errno;
            break;
        }
        if (changed)
            return 1;
    }
}

void clrie_os_watch_stop(struct clrie_os_watch *w)
{
    atomic_store(&w->stopped, true);
    ssize_t n;
    do
        n = write(w->stop[1], "x", 1);
    while (n < 0 && errno == EINTR);
    /* A full pipe (EAGAIN) already holds a byte that ends the wait. */
}

void clrie_os_watch_close(struct clrie_os_watch *w)
{
    if (!w)
        return;
    for (int i = 0; i < 2; i++)
        if (w->stop[i] >= 0)
            close(w->stop[i]);
    if (w->inotify >= 0)
        close(w->inotify);
    free(w);
}
