/* Refreshing the points while the app runs. A thread of the plugin's makes every refresh
 * (modules.c), one at a time, when asked: by the watch of the points folder (clrie/os/watch.h:
 * inotify, ReadDirectoryChangesW), after the folder has been quiet for a moment, since editors
 * write a file in several steps; or by
 * the managed library's Clrie.Tracing.Tracing.Refresh() through the export
 * clrie_tracer_refresh, which waits for the refresh to be done. The library also writes into the
 * engine's log through the export clrie_tracer_log. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/os/error.h>

#include "match.h"
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
    bool pending = false;
    for (;;) {
        int r = clrie_os_watch_wait(s->folder_watch, pending ? QUIET_MS : CLRIE_OS_WATCH_FOREVER);
        if (r == 0) { /* quiet: the changes are complete */
            pending = false;
            ask(s);
        } else if (r == 1) {
            pending = true;
        } else {
            if (r != -ECANCELED) {
                char why[128];
                clrie_plugin_host_log(&s->host, true,
                                      "the watch of %s failed (%s): refresh only on request",
                                      s->folder, clrie_os_strerror(-r, why, sizeof(why)));
            }
            return;
        }
    }
}

void clrie_tracer__watch_start(struct clrie_tracer__plugin *s)
{
    s->folder_watch = NULL;
    if (clrie_os_thread_start(&s->refresher, refresh_thread, s) != 0) {
        clrie_plugin_host_log(&s->host, true, "no refresh thread: the points stay as read");
        return;
    }
    s->refresher_started = true;
    atomic_store(&refreshable, s);
    if (!s->watch)
        return;
    int r = clrie_os_watch_open(s->folder, &s->folder_watch);
    if (r == 0 && clrie_os_thread_start(&s->watcher, watch_thread, s) != 0)
        r = -EAGAIN;
    if (r != 0) {
        char why[128];
        clrie_plugin_host_log(&s->host, true, "cannot watch %s (%s): refresh only on request",
                              s->folder, clrie_os_strerror(-r, why, sizeof(why)));
        clrie_os_watch_close(s->folder_watch);
        s->folder_watch = NULL;
        return;
    }
    s->watcher_started = true;
}

void clrie_tracer__watch_stop(struct clrie_tracer__plugin *s)
{
    struct clrie_tracer__plugin *self = s;
    atomic_compare_exchange_strong(&refreshable, &self, NULL);
    if (s->watcher_started) {
        clrie_os_watch_stop(s->folder_watch);
        clrie_os_thread_join(&s->watcher);
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
    clrie_os_watch_close(s->folder_watch);
    s->folder_watch = NULL;
}

/* Called by Clrie.Tracing.Tracing.Refresh(): 0 when the points were read again and the
 * runtime asked to follow them, -ETIMEDOUT after 30 s, -ENODEV without a tracer plugin. */
CLRIE_ABI_EXPORT int clrie_tracer_refresh(void);
int clrie_tracer_refresh(void)
{
    struct clrie_tracer__plugin *s = atomic_load(&refreshable);
    if (!s)
        return -ENODEV;
    return clrie_tracer__refresh_and_wait(s, 30) ? 0 : -ETIMEDOUT;
}

/* Called by the managed library to write one line into the engine's log, as the plugin's own
 * lines: level 0 an error (LogError), 1 a message (LogMessage), 2 a dump line (LogDumpMessage);
 * `message` UTF-8, made one line (control characters become spaces, cut at 1000 bytes). 0, or -1
 * when no tracer plugin reads a points folder in the process (or it has shut down), or for a
 * NULL message or another level. */
CLRIE_ABI_EXPORT int clrie_tracer_log(int level, const char *message);
int clrie_tracer_log(int level, const char *message)
{
    struct clrie_tracer__plugin *s = atomic_load(&refreshable);
    if (!s || !message || level < 0 || level > 2)
        return -1;
    char line[1001];
    clrie_tracer_one_line(message, line, sizeof line);
    if (level < 2) {
        clrie_plugin_host_log(&s->host, level == 0, "%s", line);
    } else if (s->host.logging) {
        char text[1024];
        snprintf(text, sizeof text, "%s: %s", s->host.name, line);
        WCHAR wide[1024];
        wide[0] = 0;
        clrie_plugin_wcs_append_utf8(wide, sizeof wide / sizeof wide[0], text);
        s->host.logging->lpVtbl->LogDumpMessage(s->host.logging, wide);
    }
    return 0;
}
