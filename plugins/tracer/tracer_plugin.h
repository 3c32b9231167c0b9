/* The tracer plugin object, shared by its files: tracer.c (the COM object and the events),
 * modules.c (the traced methods of every loaded module, matching, ReJIT and revert) and
 * watch.c (refreshing the points: the folder watch, the refresh thread, the export the managed
 * library calls). Private to plugins/tracer. */
#ifndef CLRIE_TRACER_TRACER_PLUGIN_H
#define CLRIE_TRACER_TRACER_PLUGIN_H

#include <stdatomic.h>
#include <stdbool.h>

#include <clrie/abi/corprof.h>
#include <clrie/abi/instrumentation.h>
#include <clrie/os/thread.h>
#include <clrie/os/watch.h>
#include <clrie/plugin.h>

#include "points.h"
#include "tracer.h"

/* One traced method of a module, with the text of its point (to tell a changed point). */
struct clrie_tracer__traced {
    struct clrie_tracer_method method;
    char *point;
};

/* A point text and its number (Shim's index): modules.c's table of them. */
struct clrie_tracer__id {
    char *text; /* NULL: a free slot */
    uint64_t hash;
    int32_t id;
};
struct clrie_tracer__ids {
    struct clrie_tracer__id *table; /* open addressing, slots a power of two */
    size_t slots, count;
};

/* A loaded module. */
struct clrie_tracer__module {
    ModuleID id;
    IModuleInfo *module; /* one reference */
    char *assembly;
    bool refs_defined;
    struct clrie_tracer_refs refs;
    struct clrie_tracer__traced *traced; /* sorted by token */
    size_t count;
    struct clrie_tracer__module *next;
};

struct clrie_tracer__plugin {
    IInstrumentationMethod method;
    IInstrumentationMethodAttach attach;
    CLSID clsid; /* the config entry's: names its environment settings */
    struct clrie_plugin_com com;
    struct clrie_plugin_host host;
    char *folder;
    bool watch;              /* the Watch setting: refresh when the folder changes */
    ICorProfilerInfo4 *info; /* for RequestRevert; NULL on a runtime without it */

    /* Held while modules are matched (a module load, a refresh, an unload), so that a refresh
     * and a module load never match with different points. Taken before `lock`. */
    struct clrie_os_mutex matching;
    /* Readers: the JIT callbacks looking a method up. Writers: whoever changes the module list,
     * a module's traced methods or the points (with `matching` held). */
    struct clrie_os_rwlock lock;
    struct clrie_tracer_points points;
    struct clrie_tracer__module *modules;
    struct clrie_tracer__ids ids; /* under `matching` */
    bool library_loaded; /* Clrie.Tracing's module has loaded; under `matching` */
    atomic_bool library_unusable; /* it has, but without what the wrapper calls: never set
                                   * library_loaded, so nothing is rejitted */
    /* The names of the assemblies loaded so far (for the points that never matched, listed at
     * shutdown); under `matching`. */
    char **seen;
    size_t seen_count, seen_capacity;
    /* The traced methods of all modules, written under `lock`: lookups return at once while it
     * is 0 (AllowInlineSite is asked for every inline site the JIT considers). */
    atomic_size_t traced_total;

    /* The refresh thread (watch.c): refreshes when asked, one refresh at a time. */
    struct clrie_os_mutex refresh_lock; /* protects what follows */
    struct clrie_os_cond refresh_wake, refresh_done;
    unsigned long refresh_asked, refresh_finished;
    bool refresher_started, stopping;
    struct clrie_os_thread refresher;
    struct clrie_os_watch *folder_watch; /* NULL: none */
    bool watcher_started;
    struct clrie_os_thread watcher;
};

/* modules.c */

/* Matches a newly loaded module against the points, remembers it and requests the ReJIT of
 * its traced methods (waiting for the requests, at most 30 s). */
void clrie_tracer__module_loaded(struct clrie_tracer__plugin *s, IModuleInfo *module);
/* Forgets the module. */
void clrie_tracer__module_unloaded(struct clrie_tracer__plugin *s, ModuleID id);
/* A copy of the traced method (module, token) and of its module's references; false when the
 * method is not traced. Any thread. */
bool clrie_tracer__find(struct clrie_tracer__plugin *s, ModuleID id, mdMethodDef token,
                        struct clrie_tracer_method *method, struct clrie_tracer_refs *refs);
/* Reads the points again and brings every loaded module in line: methods no longer named are
 * reverted, newly named ones and those whose point changed are rejitted. */
void clrie_tracer__refresh(struct clrie_tracer__plugin *s);
/* Logs each point whose assembly never loaded (LogMessage): at shutdown. */
void clrie_tracer__report_never_loaded(struct clrie_tracer__plugin *s);
/* Frees every module entry and the table of point numbers. */
void clrie_tracer__modules_finish(struct clrie_tracer__plugin *s);
/* Reads the points of s->folder into *points, logging each problem. */
void clrie_tracer__read_points(struct clrie_tracer__plugin *s, struct clrie_tracer_points *points);

/* typerefs.c */

/* Whether TypeRef `type` of the module names a by-ref-like type, by its definition in the loaded
 * module of the assembly that defines it (forwards followed); UNKNOWN when that assembly has not
 * loaded. Takes the read lock of `lock`; any thread. */
enum clrie_tracer_byref_like clrie_tracer__typeref_byref_like(struct clrie_tracer__plugin *s,
                                                              IModuleInfo *module, mdTypeRef type);

/* clrie_tracer__typeref_byref_like as a clrie_tracer_typeref_fn, data a struct
 * clrie_tracer__typerefs_of. */
struct clrie_tracer__typerefs_of {
    struct clrie_tracer__plugin *s;
    IModuleInfo *module;
};
enum clrie_tracer_byref_like clrie_tracer__typerefs_of_module(void *data, mdTypeRef type);

/* What the error line of a method left alone for a by-ref-like type says after the method. */
#define CLRIE_TRACER__BYREF_LIKE_REASON                                                            \
    "a by-ref-like parameter or result (Span<T>, ...) cannot be handed to a tracer"

/* watch.c */

/* Starts the refresh thread and, with the Watch setting, the watch of the folder. */
void clrie_tracer__watch_start(struct clrie_tracer__plugin *s);
/* Stops both and waits for them. */
void clrie_tracer__watch_stop(struct clrie_tracer__plugin *s);
/* Asks the refresh thread for a refresh and waits for it, at most `seconds`; false on time out
 * or when there is no refresh thread. */
bool clrie_tracer__refresh_and_wait(struct clrie_tracer__plugin *s, int seconds);

#endif
