/* Refreshing the points while the app runs. A thread of the plugin's makes every refresh
 * (modules.c), one at a time, when asked: by the watch of the points folder (inotify, after
 * the folder has been quiet for a moment, since editors write a file in several steps), or by
 * the managed library's Clrie.Tracing.Tracing.Refresh() through the export
 * clrie_tracer_refresh, which waits for the refresh to be done. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "tracer_plugin.h"

/* How long the folder must be quiet before a refresh. */
#define QUIET_MS 200

/* The plugin instance the export refreshes: the last one that started its refresh thread (a
 * process runs one tracer plugin). The one process-wide pointer of the plugin. */
static _Atomic(struct clrie_tracer__plugin *) refreshable;

static void refresh_thread(void *arg)
{
    struct clrie_tracer__plugin *s = arg;
    clrie_os_mutex_lock(&s->refresh_lock);
    for (;;) {
        while (s->refresh_asked == s->refresh_finished && !s->stopping)
            clrie_os_cond_wait(&s->refresh_wake, &s->refresh_lock);
        if (s->stopping)
            break;
        unsigned long asked = s->refresh_asked;
        clrie_os_mutex_unlock(&s->refresh_lock);
        clrie_tracer__refresh(s);
        clrie_os_mutex_lock(&s->refresh_lock);
        s->refresh_finished = asked;
        clrie_os_cond_broadcast(&s->refresh_done);
    }
    clrie_os_mutex_unlock(&s->refresh_lock);
}

/* Asks for a refresh; returns the number to wait for. */
static unsigned long ask(struct clrie_tracer__plugin *s)
{
    clrie_os_mutex_lock(&s->refresh_lock);
    unsigned long ticket = ++s->refresh_asked;
    clrie_os_cond_signal(&s->refresh_wake);
    clrie_os_mutex_unlock(&s->refresh_lock);
    return ticket;
}

bool clrie_tracer__refresh_and_wait(struct clrie_tracer__plugin *s, int seconds)
{
    if (!s->refresher_started)
        return false;
    unsigned long ticket = ask(s);
    uint64_t until = clrie_os_monotonic_ms() + (uint64_t)seconds * 1000u;
    clrie_os_mutex_lock(&s->refresh_lock);
    while (s->refresh_finished < ticket && !s->stopping &&
           clrie_os_cond_wait_until(&s->refresh_done, &s->refresh_lock, until) == 0) {
    }
    bool done = s->refresh_finished >= ticket;
    clrie_os_mutex_unlock(&s->refresh_lock);
    return done;
}

static void watch_thread(void *arg)
{
    struct clrie_tracer__plugin *s = arg;
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool pending = false;
    for (;;) {
        struct pollfd fds[2] = {{.fd = s->watch_fd, .events = POLLIN},
                                {.fd = s->stop_pipe[0], .events = POLLIN}};
        int ready = poll(fds, 2, pending ? QUIET_MS : -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0 || (fds[1].revents & (POLLIN | POLLHUP)))
            break;
        if (ready == 0) { /* quiet: the changes are complete */
            pending = false;
            ask(s);
            continue;
        }
        if (fds[0].revents & POLLIN) {
            ssize_t n = read(s->watch_fd, events, sizeof events);
            if (n < 0 && errno != EINTR && errno != EAGAIN)
                break;
            pending = pending || n > 0;
        }
    }
}

void clrie_tracer__watch_start(struct clrie_tracer__plugin *s)
{
    s->watch_fd = -1;
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    if (clrie_os_thread_start(&s->refresher, refresh_thread, s) != 0) {
        clrie_plugin_host_log(&s->host, true, "no refresh thread: the points stay as read");
        return;
    }
    s->refresher_started = true;
    atomic_store(&refreshable, s);
    if (!s->watch)
        return;
    s->watch_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (s->watch_fd < 0 ||
        inotify_add_watch(s->watch_fd, s->folder,
                          IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE) <
            0 ||
        pipe2(s->stop_pipe, O_CLOEXEC) != 0 ||
        clrie_os_thread_start(&s->watcher, watch_thread, s) != 0) {
        clrie_plugin_host_log(&s->host, true, "cannot watch %s (%s): refresh only on request",
                              s->folder, strerror(errno));
        return;
    }
    s->watcher_started = true;
}

void clrie_tracer__watch_stop(struct clrie_tracer__plugin *s)
{
    struct clrie_tracer__plugin *self = s;
    atomic_compare_exchange_strong(&refreshable, &self, NULL);
    if (s->watcher_started) {
        if (write(s->stop_pipe[1], "x", 1) < 0) {
            /* the thread then stays until the process ends */
        } else {
            clrie_os_thread_join(&s->watcher);
        }
        s->watcher_started = false;
    }
    if (s->refresher_started) {
        clrie_os_mutex_lock(&s->refresh_lock);
        s->stopping = true;
        clrie_os_cond_broadcast(&s->refresh_wake);
        clrie_os_cond_broadcast(&s->refresh_done);
        clrie_os_mutex_unlock(&s->refresh_lock);
        clrie_os_thread_join(&s->refresher);
        s->refresher_started = false;
    }
    for (int i = 0; i < 2; i++)
        if (s->stop_pipe[i] >= 0)
            close(s->stop_pipe[i]);
    if (s->watch_fd >= 0)
        close(s->watch_fd);
    s->watch_fd = s->stop_pipe[0] = s->stop_pipe[1] = -1;
}

/* Called by Clrie.Tracing.Tracing.Refresh(): 0 when the points were read again and the
 * runtime asked to follow them, -ETIMEDOUT after 30 s, -ENODEV without a tracer plugin. */
__attribute__((visibility("default"))) int clrie_tracer_refresh(void);
int clrie_tracer_refresh(void)
{
    struct clrie_tracer__plugin *s = atomic_load(&refreshable);
    if (!s)
        return -ENODEV;
    return clrie_tracer__refresh_and_wait(s, 30) ? 0 : -ETIMEDOUT;
}
