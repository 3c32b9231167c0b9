/* The profiler manager: the object CoreCLR loads as its profiler, and the plugins it hosts.
 *
 * One manager per CreateInstance (several runtimes in one process each get their own). It
 * answers ICorProfilerCallback..11 to the runtime. Each plugin gets its own host object: the
 * IProfilerManager (1-5), IProfilerStringManager and IProfilerManagerLogging it is handed,
 * and its own wrapped ICorProfilerInfo, so the engine knows which plugin asked for which
 * events and whose log lines are whose. The raw profiler hook gets a host of its own too.
 *
 * Threads: callbacks arrive on any thread. The plugin list is an immutable array published
 * through an atomic pointer: callbacks read it without locking, the rare writers (loading
 * plugins, removing one) build a new array under load_lock and publish it; replaced arrays
 * and removed plugins stay allocated until the manager is freed, so a reader never sees freed
 * memory. mask_lock serialises event-mask changes; it may be taken while load_lock is held,
 * never the other way round.
 *
 * The files call one way, from the top down: factory.c -> callbacks.c (creates the manager and
 * wires its vtable and host maker) -> host.c (what a plugin is handed) -> plugins.c,
 * raw_hook.c (loading) -> manager.c (the shared state: plugin list, event mask); beside them
 * jit_events.c, jit_pipeline.c -> method_info.c, il_dump.c, and info_wrapper.c, logging.c,
 * settings.c below host.c. */
#ifndef CLRIE_PM_MANAGER_H
#define CLRIE_PM_MANAGER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/os/thread.h"
#include "com.h"
#include "domains.h"
#include "log.h"
#include "policy.h"
#include "settings.h"

struct manager;

/* A vtable generated from an interface table and then given its own entries for some slots
 * names those slots twice: the later initialiser wins, which is the point, so the compiler's
 * warning about it is silenced between these two markers. */
#if defined(__clang__)
/* _Pragma takes one string literal, which clang-format would split. */
/* clang-format off */
#define VTABLE_OVERRIDES_BEGIN                                                                     \
    _Pragma("clang diagnostic push")                                                               \
    _Pragma("clang diagnostic ignored \"-Winitializer-overrides\"")
/* clang-format on */
#define VTABLE_OVERRIDES_END _Pragma("clang diagnostic pop")
#else
#define VTABLE_OVERRIDES_BEGIN                                                                     \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")
#define VTABLE_OVERRIDES_END _Pragma("GCC diagnostic pop")
#endif

/* IProfilerManagerLogging: log lines on behalf of one plugin (guid36) or of the engine. A
 * plugin's logger is part of its host: QueryInterface, AddRef and Release go to `outer`. The
 * engine's own (clrie_pm__logger_global) is static and never freed. */
struct logger {
    IProfilerManagerLogging iface;
    IUnknown *outer;          /* NULL for the engine's own */
    struct clrie_pm_log *log; /* its manager's log; NULL for the process log */
    const char *guid36;       /* upper case, no braces; NULL for the engine itself */
};

/* A logger writing to log (a manager's, which must outlive it). */
void clrie_pm__logger_init(struct logger *logger, IUnknown *outer, struct clrie_pm_log *log,
                           const char *guid36);
/* The process-wide engine logger (GetInstrumentationEngineLogger), which needs no manager. */
IProfilerManagerLogging *clrie_pm__logger_global(void);
/* Sends the manager's log (its lines and its plugins') to a plugin's
 * IProfilerManagerLoggingHost, in place of the one installed before; NULL stops it. */
HRESULT clrie_pm__logger_set_host(struct manager *m, IProfilerManagerLoggingHost *host);
/* Stops and releases the manager's logging host (the manager's destruction). */
void clrie_pm__logger_drop_host(struct manager *m);

/* What the engine itself asks the runtime for once a plugin is loaded, as CLRIE does: app
 * domain, assembly and module loads for its process model, JIT compilation and ReJIT for
 * instrumentation. Every plugin receives these events whatever mask it sets. */
#define CLRIE_PM_DEFAULT_EVENT_MASK                                                                \
    (COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |                            \
     COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_REJIT)
/* Asked for with those, for the engine alone: the exception the runtime raises when its JIT
 * rejects a body is how the engine learns of it (jit_pipeline.c). Exception events reach only
 * the plugins, and the raw hook, that asked for them. */
#define CLRIE_PM_ENGINE_EVENT_MASK COR_PRF_MONITOR_EXCEPTIONS

/* What a plugin (or the raw hook) sees of the engine, and what the engine records of it. */
struct host {
    IProfilerManager manager;
    IProfilerManager2 manager2;
    IProfilerManager3 manager3;
    IProfilerManager4 manager4;
    IProfilerManager5 manager5;
    IProfilerStringManager strings;
    struct logger logging;
    struct logger engine_logging; /* GetGlobalLoggingInstance: the engine's lines, no prefix */
    ICorProfilerInfo15 info;      /* the wrapped ICorProfilerInfo */
    struct attach_context attach; /* its config settings (settings.h) */
    struct clrie_plugin_com com;  /* for its class: references are the owner's (com.h) */
    struct manager *owner;
    const char *guid36; /* for log lines: upper case, no braces; NULL for the raw hook */
    /* The events this plugin asked for through its wrapped info. */
    _Atomic DWORD event_mask;
    _Atomic DWORD event_mask_high;
};

struct plugin {
    struct host host;
    uint64_t order; /* its priority; 2^32 for none, so it loads after every priority */
    char *name;
    char *module_path;
    GUID clsid;
    char guid_text[39]; /* braced, upper case */
    char guid36[37];
    IInstrumentationMethod *method;
    IInstrumentationMethodExceptionEvents *exception_events; /* NULL if not implemented */
    IInstrumentationMethodJitEvents *jit_events;             /* NULL if not implemented */
    IInstrumentationMethodJitEvents2 *jit_events2;           /* NULL if not implemented */
    IInstrumentationMethodAttach *attach; /* set when it was loaded at attach (attach.c) */
    bool detach_requested; /* DisableProfiling after attach (detach.c); under load_lock */
    bool removed;
    bool released; /* its interfaces were released (clrie_pm__manager_release_plugins) */
    struct plugin *next_allocated; /* every plugin ever made, for freeing */
};

/* An immutable snapshot of the active plugins, in priority order. */
struct plugin_list {
    size_t count;
    struct plugin_list *retired_next; /* replaced lists, freed with the manager */
    struct plugin *items[];
};

/* The raw profiler hook: an ordinary profiler that receives every callback after the plugins.
 * callback points at an interface of version `version` (2..11); slots past that version's
 * vtable must not be called. */
struct raw_hook {
    ICorProfilerCallback11 *callback;
    int version;
    struct host host;
    struct raw_hook *retired_next; /* replaced hooks, freed with the manager */
};

/* The IID of ICorProfilerInfo<version>: IUnknown for 0, ICorProfilerInfo for 1, up to
 * ICorProfilerInfo15; NULL past that. An interface of one version answers for every lower one. */
#define CLRIE_PM__INFO_NEWEST 15
static inline const IID *clrie_pm__info_iid(int version)
{
    static const IID *const iids[CLRIE_PM__INFO_NEWEST + 1] = {
        &IID_IUnknown,           &IID_ICorProfilerInfo,   &IID_ICorProfilerInfo2,
        &IID_ICorProfilerInfo3,  &IID_ICorProfilerInfo4,  &IID_ICorProfilerInfo5,
        &IID_ICorProfilerInfo6,  &IID_ICorProfilerInfo7,  &IID_ICorProfilerInfo8,
        &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11,
        &IID_ICorProfilerInfo12, &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14,
        &IID_ICorProfilerInfo15,
    };
    return version >= 0 && version <= CLRIE_PM__INFO_NEWEST ? iids[version] : NULL;
}

struct manager {
    ICorProfilerCallback11 callback; /* the manager's IUnknown */
    struct clrie_plugin_com com;     /* the runtime's and the hosts' references */

    /* The runtime's newest ICorProfilerInfo (version info_version, 3..15), set in Initialize. */
    ICorProfilerInfo15 *info;
    int info_version;
    struct clrie_pm_domains *domains;
    /* This runtime's log: a view of the process log (log.h), with its own logging host and
     * levels, so that a plugin's SetLoggingHost or SetLoggingFlags concerns this runtime
     * only. log points at log_view; logging_host is the host installed, held for the view. */
    struct clrie_pm_log *log;
    struct clrie_pm_log log_view;
    _Atomic(IProfilerManagerLoggingHost *) logging_host;

    /* Recursive (a plugin's Initialize may load another plugin): serialises loading and
     * removing plugins and protects all_plugins, retired and writes of plugins; also
     * serialises replacing the logging host. */
    struct clrie_os_recursive_mutex load_lock;
    _Atomic(struct plugin_list *) plugins;
    _Atomic(struct plugin *) loading; /* inside its Initialize: its events count already */
    unsigned load_depth;              /* plugins being loaded, one inside another's Initialize */
    struct plugin *all_plugins;       /* a plugin not `removed` here is loaded or being loaded */
    struct plugin_list *retired;

    _Atomic(struct raw_hook *) raw_hook;
    struct raw_hook *retired_hook;

    struct clrie_os_mutex mask_lock; /* protects base_mask* and serialises SetEventMask calls */
    DWORD base_mask;
    DWORD base_mask_high;

    atomic_bool initializing;       /* inside ICorProfilerCallback::Initialize */
    atomic_bool profiling_disabled; /* a plugin called IProfilerManager2::DisableProfiling */
    atomic_bool shut_down;
    /* The memory line now and then (callbacks.c): when it is next due
     * (clrie_os_monotonic_ns), and how often (MemoryLogInterval; 0: only at shutdown). */
    _Atomic uint64_t memory_line_due;
    uint64_t memory_line_interval_ns;
    /* The engine came by attach (InitializeForAttach): the event mask is kept to what the
     * runtime allows after attach. attaching: plugins loading now get InitializeForAttach. */
    atomic_bool attached;
    atomic_bool attaching;
    /* Detach (detach.c): started once every plugin asked; detaching while the methods are put
     * back, detach_pending of them not compiled again yet. */
    atomic_bool detach_started;
    atomic_bool detaching;
    atomic_size_t detach_pending;
    /* The trust rule for modules and configuration files (clrie_pm__plugins_module_checks):
     * 0 not read yet, 1 on, 2 off (DisableCodeSignatureValidation=1, logged once). */
    atomic_int trust_rule;

    /* Callbacks that may be calling plugins right now (clrie_pm__manager_plugins_enter/leave). The
     * runtime never releases the engine, so Shutdown releases the plugins itself, as CLRIE
     * does; the runtime may still call in on other threads, so the release waits until the
     * last of these callbacks has left. */
    atomic_uint calls_in_flight;
    atomic_bool release_when_idle;   /* set by Shutdown, after it emptied the plugin list */
    struct plugin_list *last_active; /* the list Shutdown emptied: the release order */

    /* Gives a plugin or the raw hook its host (host.c's clrie_pm__host_init), set when the manager
     * is made. The loaders (plugins.c, raw_hook.c) make hosts through it: the host's
     * IProfilerManager calls the loaders, so they sit below host.c and do not name it. */
    void (*init_host)(struct host *host, struct manager *owner, const char *guid36);

    /* Methods the runtime was given an instrumented body for and whose JITCompilationFinished
     * (or ReJITCompilationFinished) has not come yet, with the plugins that changed them, so
     * that a body the JIT rejects is reported with them (jit_rejected.c). jit_pending_lock protects
     * the array and the rejected list; the counts let the events of other methods skip the lock. */
    struct clrie_os_mutex jit_pending_lock;
    atomic_size_t jit_pending_count;
    struct jit_pending **jit_pending;
    size_t jit_pending_capacity;
    uint64_t jit_pending_serial; /* numbers the entries in the order they were made */
    /* The app domains, assemblies and modules the plugins were told of (OnAppDomainCreated,
     * OnAssemblyLoaded, OnModuleLoaded) and not yet of their end: after an attach, the walk of
     * what was loaded before (attach.c) and the runtime's own events for what loads meanwhile
     * may name the same one, and each is told once (clrie_pm__manager_announce).
     * announced_lock protects the three sorted arrays. */
    struct clrie_os_mutex announced_lock;
    struct announced {
        UINT_PTR *ids;
        size_t count, capacity;
    } announced[3];

    /* Functions whose instrumented body the JIT rejected: compiled again, they get their
     * original IL. */
    atomic_size_t jit_rejected_count;
    FunctionID *jit_rejected;
    size_t jit_rejected_capacity;
    /* The methods the engine gave a ReJIT body (GetReJITParameters), with the plugins that
     * changed it, until their next ReJIT or revert: each ReJITCompilationStarted of one of their
     * functions makes a pending entry from the record. Under jit_pending_lock. */
    atomic_size_t rejit_body_count;
    struct jit_pending **rejit_bodies;
    size_t rejit_body_capacity;
};

/* callbacks.c: the manager's creation and its ICorProfilerCallback11. */
/* A new manager with one reference (Release it through its callback interface). */
struct manager *clrie_pm__manager_new(void);

/* manager.c: the shared state every file below callbacks.c uses. */
/* The manager as the IUnknown its hosts count their references on. */
static inline IUnknown *manager_unknown(struct manager *m)
{
    return (IUnknown *)(void *)&m->callback;
}
struct plugin_list *clrie_pm__manager_plugins(struct manager *m);
/* Publishes a new list holding the current plugins plus `added` (if not NULL, placed after
 * every plugin of lower or equal order) minus `removed` (if not NULL). Call with load_lock held.
 * Returns E_OUTOFMEMORY or S_OK. */
HRESULT clrie_pm__manager_publish_plugins(struct manager *m, struct plugin *added,
                                          struct plugin *removed);
/* The active plugins for a callback that calls them, which brackets those calls with
 * clrie_pm__manager_plugins_enter and clrie_pm__manager_plugins_leave: in between, the plugins of
 * any list it reads stay alive. */
struct plugin_list *clrie_pm__manager_plugins_enter(struct manager *m);
void clrie_pm__manager_plugins_leave(struct manager *m);
/* Shutdown: publishes an empty list, so no plugin is called after this, and releases the
 * plugins once no callback is inside one (now, or when the last one leaves). */
void clrie_pm__manager_retire_plugins(struct manager *m);
/* Recomputes the runtime event mask: base | every plugin's | the raw hook's. */
HRESULT clrie_pm__manager_apply_event_mask(struct manager *m);
/* Which announcement of clrie_pm__manager_announce. */
enum announce_kind {
    ANNOUNCE_APPDOMAIN,
    ANNOUNCE_ASSEMBLY,
    ANNOUNCE_MODULE,
};
/* True the first time an ID of this kind is announced (the caller then tells the plugins);
 * false while it was announced already. Out of memory: true (told twice rather than never). */
bool clrie_pm__manager_announce(struct manager *m, enum announce_kind kind, UINT_PTR id);
/* Its end was told (unload, shutdown): the runtime may reuse the ID for another one. */
void clrie_pm__manager_forget(struct manager *m, enum announce_kind kind, UINT_PTR id);
/* Frees the sets (manager_destroy). */
void clrie_pm__manager_announced_free(struct manager *m);
/* The runtime's version as "10.0.12" (GetRuntimeInformation) in out, or "(unknown version)";
 * the start-up and attach lines name it, so that a log shared by several runtimes of one
 * process says which line is whose. */
void clrie_pm__manager_runtime_version(struct manager *m, char *out, size_t size);
/* Releases every plugin's interfaces (their objects may go away), those of `order` first and
 * in its order (priority order, as CLRIE releases them), then any others; the engine's
 * records of them stay until clrie_pm__plugins_free_all. Call it only when no callback is inside a
 * plugin; plugins already released are skipped, so later calls change nothing. */
void clrie_pm__manager_release_plugins(struct manager *m, const struct plugin_list *order);

/* host.c: the per-plugin facade. */
void clrie_pm__host_init(struct host *host, struct manager *owner, const char *guid36);

/* info_wrapper.c: the ICorProfilerInfo a plugin or the raw hook is handed. */
extern const struct ICorProfilerInfo15Vtbl clrie_pm__host_info_vtbl;
/* The raw hook's: the same, but it sees the plugins' work on a method (hook_turn.h). */
extern const struct ICorProfilerInfo15Vtbl clrie_pm__hook_info_vtbl;

/* plugins.c */
/* Loads every plugin the environment's configuration names, in priority order. */
void clrie_pm__plugins_load_configured(struct manager *m);
/* Loads the plugins the config files or folders at paths name
 * (IProfilerManager::SetupProfilingEnvironment). Problems are logged; E_FAIL when a file was
 * rejected, else CLRIE_PM__E_ALREADY_LOADED when a plugin was refused because its ClassGuid
 * is loaded or being loaded, S_OK otherwise (a plugin that fails to load is logged, as
 * always). */
HRESULT clrie_pm__plugins_load_paths(struct manager *m, const char *const *paths, size_t count);
/* Loads one plugin with its config settings (settings may be NULL when count is 0); on
 * success it is published in the plugin list. A ClassGuid already loaded, or being loaded (a
 * plugin's Initialize adding itself again, directly or through another plugin), is refused
 * with an error line and CLRIE_PM__E_ALREADY_LOADED; so is a load nested deeper than
 * CLRIE_PM__MAX_NESTED_LOADS plugins' Initialize calls (E_FAIL). */
#define CLRIE_PM__MAX_NESTED_LOADS 8
HRESULT clrie_pm__plugins_load(struct manager *m, const char *name, const char *module_path,
                               const GUID *clsid, uint64_t order,
                               const struct clrie_config_setting *settings, size_t setting_count,
                               IInstrumentationMethod **out);
/* The checks every module gets before it is loaded (enum clrie_config_module_checks): the
 * image check
 * always, the trust rule unless MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1,
 * which the first call logs in one line. */
unsigned clrie_pm__plugins_module_checks(struct manager *m);
/* Checks the module at path before it is loaded (clrie_config_module_check). Returns S_OK and its
 * canonical path (malloc'd) to load, or, after one error line "<who>: cannot load '<path>':
 * <reason>", HRESULT_FROM_WIN32(ERROR_BAD_EXE_FORMAT) 0x800700C1 for a file that is not a
 * complete image of this machine, E_ACCESSDENIED for one the trust rule refuses,
 * HRESULT_FROM_WIN32(ERROR_MOD_NOT_FOUND) 0x8007007E for a missing file, E_OUTOFMEMORY, or
 * E_FAIL. */
HRESULT clrie_pm__plugins_check_module(struct manager *m, const char *path, const char *who,
                                       char **canonical);
/* Returned when a plugin's ClassGuid is already loaded or being loaded:
 * HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS). */
#define CLRIE_PM__E_ALREADY_LOADED CLRIE_HRESULT(0x800700B7u)
/* Releases the plugins still held and frees every plugin record (the manager's destruction). */
void clrie_pm__plugins_free_all(struct manager *m);

/* jit_pipeline.c: instrumentation of one method, for JITCompilationStarted and
 * GetReJITParameters; the raw hook is called by the callers. */
void clrie_pm__jit_pipeline_jit(struct manager *m, FunctionID function);
HRESULT clrie_pm__jit_pipeline_rejit(struct manager *m, ModuleID module, mdMethodDef token,
                                     ICorProfilerFunctionControl *control);

/* jit_rejected.c: what the JIT did with a body the engine gave it. */

/* The runtime was given the body of (module, token) changed by `editors`: at a first JIT
 * (is_rejit false), for the compilation of `function` running on this thread; at a ReJIT, the
 * body every function of (module, token) compiles from next (function unused). The method's
 * name is read only if the JIT rejects the body. */
void clrie_pm__jit_rejected_remember(struct manager *m, FunctionID function, ModuleID module,
                                     mdMethodDef token, bool is_rejit,
                                     struct plugin *const *editors, size_t editor_count);
/* A ReJIT of (module, token) gave the runtime the original IL: its ReJIT body is forgotten. */
void clrie_pm__jit_rejected_forget_rejit(struct manager *m, ModuleID module, mdMethodDef token);
/* Whether the JIT rejected the instrumented body of this function at its first JIT. */
bool clrie_pm__jit_rejected_before(struct manager *m, FunctionID function);
/* ReJITCompilationStarted: a function of a method given a ReJIT body is compiled on this
 * thread. */
void clrie_pm__jit_rejected_rejit_started(struct manager *m, FunctionID function);
/* ReJITError: the runtime could not rejit (module, token); logged with the method's name. */
void clrie_pm__jit_rejected_rejit_error(struct manager *m, ModuleID module, mdMethodDef token,
                                        HRESULT status);
/* JITCompilationFinished and ReJITCompilationFinished: a failed status for a method the engine
 * gave a new body is logged with the plugins that changed it. */
void clrie_pm__jit_rejected_finished(struct manager *m, FunctionID function, HRESULT status);
/* ExceptionThrown: an exception raised on a thread that is compiling an instrumented body may
 * be the JIT rejecting it. */
void clrie_pm__jit_rejected_exception_thrown(struct manager *m, ObjectID thrown);
/* The first exception event that names a managed frame: an exception noted by
 * clrie_pm__jit_rejected_exception_thrown left the JIT, which therefore failed. */
void clrie_pm__jit_rejected_exception_left_jit(struct manager *m);
/* Frees what is still held for methods (manager_destroy). */
void clrie_pm__jit_rejected_free(struct manager *m);

/* jit_events.c: what plugins hear around a JIT (IInstrumentationMethodJitEvents(2)) and the
 * inlining veto (AllowInlineSite). */
void clrie_pm__jit_events_started(struct manager *m, FunctionID function, bool is_rejit);
void clrie_pm__jit_events_finished(struct manager *m, FunctionID function, ReJITID rejit_id,
                                   bool is_rejit, HRESULT status);
bool clrie_pm__jit_events_allow_inline(struct manager *m, FunctionID caller, FunctionID callee);

/* attach.c: attaching to a running process, and the activation policy (policy.h). */
/* InitializeForAttach after the manager got its info: the client data, the policy, the
 * plugins. Returns S_OK or CORPROF_E_PROFILER_CANCEL_ACTIVATION (with a line saying why). */
HRESULT clrie_pm__attach_initialize(struct manager *m, const void *client_data, UINT size);
/* ProfilerAttachComplete: tells the plugins what was loaded before, then AttachComplete. */
void clrie_pm__attach_complete(struct manager *m);
/* Whether the policy (attach data's settings when data is not NULL, then the environment)
 * admits this process and runtime; logs why not. */
struct clrie_config_attach;
bool clrie_pm__attach_policy_admits(struct manager *m, const struct clrie_config_attach *data);

/* detach.c */
/* A plugin's IProfilerManager2::DisableProfiling after attach: once every plugin asked, the
 * engine detaches on a thread of its own. */
HRESULT clrie_pm__detach_request(struct manager *m, struct host *host);
/* Keeps the engine's shared object loaded after a detach (RTLD_NODELETE); logs when it cannot. */
void clrie_pm__detach_pin_engine(struct manager *m);
/* Arms the operator's triggers, read through lookup (policy.h): DetachFile, an absolute path
 * whose appearance starts the detach, and DetachAfter, seconds after which it starts. A value
 * that cannot be used is logged and ignored. The watching thread ends at Shutdown or when a
 * detach started. */
void clrie_pm__detach_arm(struct manager *m, policy_lookup_fn lookup, void *ctx);

/* memory_line.c: the engine's memory line. _arm reads MemoryLogInterval (whole seconds, 0 for
 * never; 60 when not set) through lookup: how often the log gets the line while the process
 * runs; _now_and_then writes it when that time has come (at a compilation); _write writes it
 * (at shutdown). All at Messages only. */
void clrie_pm__memory_line_arm(struct manager *m, policy_lookup_fn lookup, void *ctx);
void clrie_pm__memory_line_now_and_then(struct manager *m);
void clrie_pm__memory_line_write(struct manager *m);
/* GetReJITParameters while detaching: true when the method was given its original IL (the
 * caller then does nothing more). */
bool clrie_pm__detach_rejit(struct manager *m, ModuleID module, mdMethodDef token,
                            ICorProfilerFunctionControl *control);
/* ProfilerDetachSucceeded: the plugins are released. */
void clrie_pm__detach_succeeded(struct manager *m);

/* raw_hook.c */
/* Loads the raw profiler hook the environment names, if any, and initialises it. */
void clrie_pm__raw_hook_load_configured(struct manager *m);
/* Installs an already created profiler as the raw hook (IProfilerManager::AddRawProfilerHook). */
HRESULT clrie_pm__raw_hook_install(struct manager *m, IUnknown *profiler);
void clrie_pm__raw_hook_free(struct manager *m);

/* hook_events.c: whether the raw hook's own event mask asks for the callback in this slot of
 * ICorProfilerCallback11's vtable (callbacks no mask bit gates: always). */
bool clrie_pm__hook_hears(const struct raw_hook *hook, size_t slot);

#endif
