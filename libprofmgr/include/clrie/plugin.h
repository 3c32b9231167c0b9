/* clrie/plugin.h: what every instrumentation method (plugin) written in C repeats, once.
 *
 * The declarations of libclrie-plugin.a, a static library a plugin links (pkg-config
 * clrie-plugin, CMake clrie::plugin, Meson dependency('clrie-plugin')); it needs the ABI headers
 * (clrie-profmgr-abi) and at run time only libc and libdl: nothing of clrie, so a plugin built
 * with it loads into CLRIE's engine as well as clrie's. The library is linked into each plugin
 * .so, so its few globals (the module count, the engine's string-freeing function) are the
 * plugin's own. clrie's engine uses its COM object base too.
 *
 * The COM object base
 *   An object embeds one `lpVtbl` member per interface and a `struct clrie_plugin_com`; a
 *   `struct clrie_plugin_com_class` lists its interfaces (CLRIE_PLUGIN_COM_IFACE), says where
 *   the count lies and what frees the object. CLRIE_PLUGIN_COM_IUNKNOWN(prefix, ...) defines the
 *   three IUnknown slots of one interface and CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(prefix) puts them
 *   in its vtable. clrie_plugin_com_give hands a new object out (QueryInterface, then the
 *   maker's reference dropped).
 *
 * Module and class factory (per plugin .so)
 *   CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create) defines the plugin's two exports, DllGetClassObject
 *   and DllCanUnloadNow, as one-line calls into the library: a static archive cannot export
 *   them itself, the plugin's version script picks what its .so exports. DllGetClassObject
 *   (clrie_plugin_get_class_object) accepts any class ID and hands out a new IClassFactory;
 *   its CreateInstance refuses aggregation and calls
 *       HRESULT create(const CLSID *clsid, REFIID riid, void **out);
 *   with the class ID the factory was made for (each config entry naming the module is an
 *   instance with its own class ID). `create` makes the object and gives it out
 *   (clrie_plugin_com_give). Objects of a class with `module_ref` set, factories and server
 *   locks (IClassFactory::LockServer) each hold a module reference; while any is held,
 *   DllCanUnloadNow (clrie_plugin_module_can_unload_now) answers S_FALSE. The count is one per
 *   plugin .so: the library is linked statically into each plugin.
 *
 * The engine's services (struct clrie_plugin_host)
 *   clrie_plugin_host_init(host, manager, name) takes the engine's IProfilerManagerLogging and
 *   IProfilerStringManager (either may be missing); clrie_plugin_host_log(host, error, format,
 *   ...) logs a line starting with `name: `; clrie_plugin_host_take_utf8 is
 *   clrie_plugin_take_utf8 with the host's string manager; clrie_plugin_host_read_settings reads
 *   the config entry's settings and logs when the engine has none. clrie_plugin_append_line
 *   appends one line with a single write() to a file clrie_plugin_open_lines opened (a UTF-8
 *   path on every system). clrie_plugin_profiler_info(manager, riid, out) is the runtime's
 *   ICorProfilerInfo behind the engine, queried for riid.
 *
 * Engine strings
 *   clrie_plugin_free_bstr(strings, text) frees a BSTR the engine handed out: through the
 *   IProfilerStringManager when the plugin has one (may be NULL), else through the engine's
 *   InstrumentationEngineFreeString export (found among the loaded modules), else leaks it:
 *   never frees it with the wrong allocator.
 *   clrie_plugin_bstr_to_utf8(text) returns a new UTF-8 string (free()) or NULL;
 *   clrie_plugin_bstr_to_utf8_buf(text, out, size) writes into a caller's buffer, cut at a
 *   character boundary, control characters as '?'. Neither frees `text`.
 *   clrie_plugin_take_utf8(strings, hr, &text) is the common case: the UTF-8 form of a BSTR
 *   an engine call just filled (NULL if the call failed) with the BSTR freed and cleared.
 *
 * UTF-16 buffers, metadata names and the log
 *   clrie_plugin_wcs_len, clrie_plugin_wcs_append(out, capacity, text) and
 *   clrie_plugin_wcs_append_utf8 build 0-terminated UTF-16 text in a buffer of `capacity`
 *   units, cutting what does not fit (bytes that are not UTF-8 become U+FFFD).
 *   clrie_plugin_type_name(import, type, out, capacity) writes a TypeDef's `Namespace.Type`,
 *   nested types as `Outer+Inner`. clrie_plugin_method_defs_each(import, fn, data) calls
 *   fn(data, token, full_name, rva) for every MethodDef of a module, full_name being
 *   `Namespace.Type::Method` in UTF-16, and stops at the first failure fn returns.
 *   clrie_plugin_module_metadata(module, riid, out) is one of the module's four metadata
 *   interfaces (struct clrie_plugin_metadata: all four); clrie_plugin_find_assembly_ref finds an
 * AssemblyRef by name. clrie_plugin_log(logging, error, text) writes a UTF-8 line through the
 * engine's IProfilerManagerLogging (LogError or LogMessage), or to stderr when logging is NULL.
 *
 * Settings (the <Settings> of the plugin's config entry, through CLRIE's
 * IInstrumentationMethodAttachContext, QueryInterface'd on the IProfilerManager)
 *   clrie_plugin_settings_each(manager, fn, data) calls fn(data, name, value) for each setting
 *   in config order; clrie_plugin_setting(manager, name, buf, size) copies the value of the
 *   first setting named `name` (ASCII case-insensitive). Both return 0, -ENOSYS when the
 *   engine has no attach context, -ENOENT (setting only) when there is no such setting,
 *   -ENOSPC (setting only, buf holds the cut value). A setting whose name or value cannot
 *   be read is skipped. clrie_plugin_is_true(value) reads a flag (true, yes, on, 1);
 *   struct clrie_plugin_patterns holds a `;`-separated list of shell patterns (fnmatch).
 *
 * Methods chosen per module (struct clrie_plugin_plans)
 *   What OnModuleLoaded chose to instrument in a module, found again at JIT time by module and
 *   token: clrie_plugin_plans_prepare, clrie_plugin_plan_add_method, clrie_plugin_plans_find.
 *   struct clrie_plugin_framework tells the shared framework's modules (those in the folder
 *   System.Private.CoreLib.dll was loaded from) from the app's.
 *
 * Methods
 *   clrie_plugin_method_full_name(method, strings, buf, size) writes IMethodInfo::GetFullName
 *   as UTF-8 ("" and the HRESULT if it fails); clrie_plugin_method_name does GetName;
 *   clrie_plugin_method_key gives its module ID and token.
 *
 * COM and IL
 *   clrie_plugin_release(object) releases any interface pointer, NULL allowed.
 *   clrie_plugin_opcode(instruction) is the instruction's opcode, Cee_Invalid for NULL or on
 *   failure. clrie_plugin_next_instruction(&at) moves a walk on to the next instruction,
 *   releasing the one it leaves. clrie_plugin_single_ret_exit(single) is the shared exit that
 *   ISingleRetDefaultInstrumentation2 made (after ApplySingleRetDefaultInstrumentation), and
 *   clrie_plugin_last_plain_ret(graph) the last `ret` not ending `tail. call X; [pop;] ret`;
 *   both return an AddRef'd instruction or NULL. struct clrie_plugin_rewrite holds what a
 *   rewrite with a single exit works with: clrie_plugin_rewrite_init(rw, method) gets the
 *   graph and factory and applies single-ret, clrie_plugin_rewrite_exit(rw) is where exit code
 *   goes, clrie_plugin_rewrite_finish(rw) releases it all. clrie_plugin_element_type,
 *   clrie_plugin_signature_type and clrie_plugin_add_local give a method a new local of a
 *   primitive or object type, or of any type a signature describes.
 *
 * Events a plugin ignores
 *   clrie_plugin_ignore_* are slots that do nothing and return S_OK, for the vtables'
 *   designated initialisers:
 *       .OnAppDomainCreated = clrie_plugin_ignore_app_domain,
 *   CLRIE_PLUGIN_INSTRUMENT_NOTHING fills the five method slots of a plugin that rewrites
 *   nothing (clrie_plugin_instrument_nothing, clrie_plugin_allow_every_inline and the ignores).
 *   CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS stands for the four app domain and assembly
 *   slots at once (OnAppDomainCreated/Shutdown, OnAssemblyLoaded/Unloaded); there are ignoring
 *   slots for IInstrumentationMethodJitEvents2 and IInstrumentationMethodExceptionEvents too.
 */
#ifndef CLRIE_PLUGIN_H
#define CLRIE_PLUGIN_H

#include <errno.h> /* the -E codes the functions return */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/base.h"
#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the COM object base --------------------------------------------------------------------- */

/* One interface an object answers: its IID and where its interface member (the `lpVtbl`
 * pointer) lies in the object. */
struct clrie_plugin_com_iface {
    const IID *iid;
    size_t offset;
};

/* What the objects of one kind share: the interfaces they answer (the first also answers
 * IID_IUnknown), where their `struct clrie_plugin_com` lies, and what frees one. */
struct clrie_plugin_com_class {
    const char *name;
    const struct clrie_plugin_com_iface *ifaces;
    size_t iface_count;
    size_t com_offset;                     /* offsetof(type, the clrie_plugin_com member) */
    void (*destroy)(void *object);         /* called once, when the count drops to zero */
    void (*surplus_release)(void *object); /* optional: a Release with the count at zero */
    /* true for a plugin's own objects: each one alive holds a reference on the plugin's module
     * (clrie_plugin_module_ref when made, unref after destroy), so that DllCanUnloadNow answers
     * S_FALSE while the engine holds any of them. */
    bool module_ref;
};

/* The part of an object that counts references; the count is atomic. */
struct clrie_plugin_com {
    const struct clrie_plugin_com_class *cls;
    unsigned long refs;
};

/* An entry of a class's interface table. */
#define CLRIE_PLUGIN_COM_IFACE(iid, type, member)                                                  \
    {                                                                                              \
        (iid), offsetof(type, member)                                                              \
    }
#define CLRIE_PLUGIN_COM_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Sets the count to one: the caller holds the first reference. */
void clrie_plugin_com_init(struct clrie_plugin_com *com, const struct clrie_plugin_com_class *cls);
/* QueryInterface through the class's table: E_POINTER for a NULL out or riid, E_NOINTERFACE
 * (and *out NULL) for an interface the table lacks, else S_OK with a new reference. */
HRESULT clrie_plugin_com_query(struct clrie_plugin_com *com, REFIID riid, void **out);
ULONG clrie_plugin_com_add_ref(struct clrie_plugin_com *com);
/* Drops a reference; the last one calls the class's destroy. A Release with the count already
 * at zero changes nothing, frees nothing, calls the class's surplus_release and returns 0. */
ULONG clrie_plugin_com_release(struct clrie_plugin_com *com);
/* The current count, for tests and diagnostics. */
ULONG clrie_plugin_com_refs(const struct clrie_plugin_com *com);
/* Hands a newly made object out: queries it for riid into *out and drops the maker's first
 * reference, so that a refused riid frees the object. What a class factory's CreateInstance
 * ends with. */
HRESULT clrie_plugin_com_give(struct clrie_plugin_com *com, REFIID riid, void **out);

/* Defines prefix_QueryInterface, prefix_AddRef and prefix_Release for the interface `Iface`
 * held in member `iface_member` of `type`, whose count is member `com_member`: the three
 * IUnknown slots of that interface's vtable. */
#define CLRIE_PLUGIN_COM_IUNKNOWN(prefix, Iface, type, iface_member, com_member)                   \
    static HRESULT STDMETHODCALLTYPE prefix##_QueryInterface(Iface *This, REFIID riid, void **out) \
    {                                                                                              \
        return clrie_plugin_com_query(&CLRIE_CONTAINER_OF(This, type, iface_member)->com_member,   \
                                      riid, out);                                                  \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        return clrie_plugin_com_add_ref(                                                           \
            &CLRIE_CONTAINER_OF(This, type, iface_member)->com_member);                            \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        return clrie_plugin_com_release(                                                           \
            &CLRIE_CONTAINER_OF(This, type, iface_member)->com_member);                            \
    }

/* The interface table entries of a CoreCLR profiler object (a raw profiler hook): every
 * ICorProfilerCallback version, 1 to 11, answered by one ICorProfilerCallback11 member. */
#define CLRIE_PLUGIN_COM_PROFILER_CALLBACK_IFACES(type, member)                                    \
    CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback, type, member),                               \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback2, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback3, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback4, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback5, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback6, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback7, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback8, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback9, type, member),                          \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback10, type, member),                         \
        CLRIE_PLUGIN_COM_IFACE(&IID_ICorProfilerCallback11, type, member)

/* The three IUnknown slots of a vtable's designated initialisers. */
#define CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(prefix)                                                    \
    .QueryInterface = prefix##_QueryInterface, .AddRef = prefix##_AddRef,                          \
    .Release = prefix##_Release

/* ---- module and class factory ---------------------------------------------------------------- */

/* Taken by each live object (of a class with module_ref), factory and server lock. */
void clrie_plugin_module_ref(void);
void clrie_plugin_module_unref(void);
/* DllCanUnloadNow's answer: S_OK when no module reference is held, else S_FALSE. */
HRESULT clrie_plugin_module_can_unload_now(void);

/* Makes the plugin object for a class ID and gives it out queried for riid (see above). */
typedef HRESULT (*clrie_plugin_create_fn)(const CLSID *clsid, REFIID riid, void **out);

/* DllGetClassObject's work: a new class factory for clsid, queried for riid into *out.
 * E_POINTER for a NULL out, E_INVALIDARG for a NULL clsid or riid. */
HRESULT clrie_plugin_get_class_object(clrie_plugin_create_fn create, REFCLSID clsid, REFIID riid,
                                      void **out);

/* Defines the module's exports DllGetClassObject and DllCanUnloadNow (visible even when the
 * plugin builds with -fvisibility=hidden). Expand once per plugin .so, at file scope. */
#define CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create)                                                  \
    CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(                                     \
        REFCLSID rclsid, REFIID riid, void **ppv);                                                 \
    CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);                                 \
    HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)             \
    {                                                                                              \
        return clrie_plugin_get_class_object((create), rclsid, riid, ppv);                         \
    }                                                                                              \
    HRESULT STDAPICALLTYPE DllCanUnloadNow(void)                                                   \
    {                                                                                              \
        return clrie_plugin_module_can_unload_now();                                               \
    }

/* ---- engine strings ------------------------------------------------------------------------ */

/* The type of the engine's export InstrumentationEngineFreeString. */
typedef void(STDAPICALLTYPE *clrie_plugin_free_string_fn)(BSTR);

/* The engine's InstrumentationEngineFreeString, or NULL when no engine is loaded. */
clrie_plugin_free_string_fn clrie_plugin_engine_free_string(void);
void clrie_plugin_free_bstr(IProfilerStringManager *strings, BSTR text);
/* New UTF-8 string (free() it), "" for NULL, NULL without memory. */
char *clrie_plugin_bstr_to_utf8(const WCHAR *text);
/* UTF-8 in out (size >= 1), always 0-terminated, cut before a character that does not fit;
 * control characters become '?', so a name never breaks a line. Returns the bytes written. */
size_t clrie_plugin_bstr_to_utf8_buf(const WCHAR *text, char *out, size_t size);
/* The UTF-8 form of the BSTR an engine call returned in *text (NULL if hr failed or there
 * is none); frees the BSTR and clears *text. Passing `text` by address lets
 * `clrie_plugin_take_utf8(s, x->GetName(x, &text), &text)` read it after the call. */
char *clrie_plugin_take_utf8(IProfilerStringManager *strings, HRESULT hr, BSTR *text);

/* ---- UTF-16 buffers ----------------------------------------------------------------------------
 */

size_t clrie_plugin_wcs_len(const WCHAR *text);
/* Appends text to the 0-terminated UTF-16 text in out (capacity units, at least 1). */
void clrie_plugin_wcs_append(WCHAR *out, size_t capacity, const WCHAR *text);
/* Appends UTF-8 text as UTF-16; stops where a surrogate pair might not fit. */
void clrie_plugin_wcs_append_utf8(WCHAR *out, size_t capacity, const char *text);

/* ---- the log and the engine's services
 * ----------------------------------------------------------- */

/* One line through the engine's log (cut at 1023 UTF-16 units), or stderr without one. */
void clrie_plugin_log(IProfilerManagerLogging *logging, bool error, const char *text);

/* What a plugin takes from its IProfilerManager in Initialize; owned references. */
struct clrie_plugin_host {
    IProfilerManagerLogging *logging; /* NULL: lines go to stderr */
    IProfilerStringManager *strings;  /* NULL: BSTRs are freed through the engine's export */
    const char *name;                 /* borrowed; starts each log line as `name: ` */
};

/* Takes the manager's logging and string manager (each NULL when the engine has none). */
void clrie_plugin_host_init(struct clrie_plugin_host *host, IProfilerManager *manager,
                            const char *name);
/* Drops them; the host may be initialised again. */
void clrie_plugin_host_finish(struct clrie_plugin_host *host);
/* `name: ` and the formatted text, one line (cut at 1023 bytes), through clrie_plugin_log. */
void clrie_plugin_host_log(const struct clrie_plugin_host *host, bool error, const char *format,
                           ...) __attribute__((format(__printf__, 3, 4)));
char *clrie_plugin_host_take_utf8(const struct clrie_plugin_host *host, HRESULT hr, BSTR *text);

/* The runtime's ICorProfilerInfo behind the engine (IProfilerManager::GetCorProfilerInfo),
 * queried for riid (IID_ICorProfilerInfo, IID_ICorProfilerInfo4, ...): what a plugin calls
 * SetEventMask or RequestRevert on. S_OK with a new reference in *out; else *out is NULL and the
 * failing call's HRESULT is returned (E_NOINTERFACE when the engine gave no object, E_POINTER
 * for a NULL manager or out). */
HRESULT clrie_plugin_profiler_info(IProfilerManager *manager, REFIID riid, void **out);

/* Appends the formatted text and a newline to fd with a single write() (retried on EINTR),
 * cut at 4095 bytes: lines of several writers sharing an O_APPEND file never interleave.
 * Returns 0 or a negative errno. */
int clrie_plugin_append_line(int fd, const char *format, ...) __attribute__((format(__printf__, 2, 3)));

/* Opens the file path names (UTF-8; made when missing, emptied first when truncate) for
 * clrie_plugin_append_line, on every system (CreateFileW on Windows): 0 and the descriptor in
 * *fd, or a negative errno and -1 in *fd. Close it with clrie_plugin_close_lines. */
int clrie_plugin_open_lines(const char *path, bool truncate, int *fd);
void clrie_plugin_close_lines(int fd);

/* ---- settings -------------------------------------------------------------------------------- */

typedef void (*clrie_plugin_setting_fn)(void *data, const char *name, const char *value);

int clrie_plugin_settings_each(IProfilerManager *manager, clrie_plugin_setting_fn fn, void *data);
/* The value of setting `name` in buf (see the header comment for the return values). */
int clrie_plugin_setting(IProfilerManager *manager, const char *name, char *buf, size_t size);
/* clrie_plugin_settings_each, logging through the host when the engine hands out no settings
 * (nothing will then be instrumented). Returns what settings_each returned. */
int clrie_plugin_host_read_settings(const struct clrie_plugin_host *host, IProfilerManager *manager,
                                    clrie_plugin_setting_fn fn, void *data);
/* Settings from the environment, for an engine that hands out none (Microsoft's CLRIE accepts
 * no <Settings> in a configuration file): calls fn(data, name, value) for each variable
 * CLRIE_SETTING_<class ID>_<name>=<value>, the class ID as 32 upper-case hex digits without
 * dashes or braces (CLRIE_SETTING_8E2D1C2A5B7F4C3E9A610D4F2B3C5E71_Pattern). Returns how many
 * it found, or -ENOMEM. */
int clrie_plugin_env_settings_each(const CLSID *clsid, clrie_plugin_setting_fn fn, void *data);
/* clrie_plugin_host_read_settings, then the environment's settings for clsid (may be NULL),
 * which come last and so win. Logs only when neither source exists. Returns 0, or what
 * settings_each returned when the environment had none. */
int clrie_plugin_host_read_settings_for(const struct clrie_plugin_host *host,
                                        IProfilerManager *manager, const CLSID *clsid,
                                        clrie_plugin_setting_fn fn, void *data);
/* Whether a setting's value means yes: true, yes, on (any case) or 1. NULL is false. */
bool clrie_plugin_is_true(const char *value);

/* Shell patterns (fnmatch), from `;`-separated lists; zero-initialise, then add. */
struct clrie_plugin_patterns {
    char **items; /* owned, each trimmed of spaces, none empty */
    size_t count;
};

/* Adds the items of a `;`-separated list: 0, or -ENOMEM (the items before stay). */
int clrie_plugin_patterns_add(struct clrie_plugin_patterns *patterns, const char *list);
/* Whether any pattern matches text (fnmatch, no flags). */
bool clrie_plugin_patterns_match(const struct clrie_plugin_patterns *patterns, const char *text);
bool clrie_plugin_patterns_match_wcs(const struct clrie_plugin_patterns *patterns,
                                     const WCHAR *text);
/* Frees the items and empties the list. */
void clrie_plugin_patterns_finish(struct clrie_plugin_patterns *patterns);

/* ---- metadata ---------------------------------------------------------------------------------
 */

#define CLRIE_PLUGIN_NAME_UNITS 1024 /* the longest type name read from metadata */

/* `Namespace.Type` of a TypeDef in out (capacity units), nested types as `Outer+Inner`. */
HRESULT clrie_plugin_type_name(IMetaDataImport *import, mdTypeDef type, WCHAR *out,
                               size_t capacity);

typedef HRESULT (*clrie_plugin_method_def_fn)(void *data, mdMethodDef method,
                                              const WCHAR *full_name, ULONG rva);

/* Every MethodDef of the module, type by type: S_OK, or the first failure fn returned. */
HRESULT clrie_plugin_method_defs_each(IMetaDataImport *import, clrie_plugin_method_def_fn fn,
                                      void *data);

/* One of the module's metadata interfaces, riid IID_IMetaDataImport, IID_IMetaDataEmit,
 * IID_IMetaDataAssemblyImport or IID_IMetaDataAssemblyEmit, into *out (a new reference).
 * E_NOINTERFACE for another riid. */
HRESULT clrie_plugin_module_metadata(IModuleInfo *module, REFIID riid, void **out);

/* A module's four metadata interfaces, new references; zero-initialised by init. */
struct clrie_plugin_metadata {
    IMetaDataImport *import;
    IMetaDataEmit *emit;
    IMetaDataAssemblyImport *assembly_import;
    IMetaDataAssemblyEmit *assembly_emit;
};

/* All four (S_OK), or the first failure with none held. */
HRESULT clrie_plugin_metadata_init(struct clrie_plugin_metadata *metadata, IModuleInfo *module);
void clrie_plugin_metadata_finish(struct clrie_plugin_metadata *metadata);

/* The module's AssemblyRef named `name` (UTF-8), with its version in *version when not NULL;
 * mdTokenNil when there is none. */
mdAssemblyRef clrie_plugin_find_assembly_ref(IMetaDataAssemblyImport *assemblies, const char *name,
                                             ASSEMBLYMETADATA *version);

/* ---- methods -----------------------------------------------------------------------------------
 */

/* `Namespace.Type::Method` of a method, as UTF-8 in buf ("" on failure). */
HRESULT clrie_plugin_method_full_name(IMethodInfo *method, IProfilerStringManager *strings,
                                      char *buf, size_t size);
/* The method's own name, as UTF-8 in buf ("" on failure). */
HRESULT clrie_plugin_method_name(IMethodInfo *method, IProfilerStringManager *strings, char *buf,
                                 size_t size);
/* The method's module ID and MethodDef token. */
HRESULT clrie_plugin_method_key(IMethodInfo *method, ModuleID *module, mdMethodDef *token);

/* ---- methods chosen per module -------------------------------------------------------------- */

/* One module's chosen methods: the first member of a plugin's own plan struct. */
struct clrie_plugin_plan {
    ModuleID module;
    size_t method_size; /* bytes per entry; each entry starts with its mdMethodDef */
    size_t count, capacity;
    void *methods; /* sorted by token once the plan is kept */
    struct clrie_plugin_plan *next;
};

/* The plans of one plugin object: only added while it lives (an entry found stays valid),
 * read and added from any thread without a lock. Zero-initialise. */
struct clrie_plugin_plans {
    struct clrie_plugin_plan *head;
};

/* Fills a new plan for the module. */
typedef HRESULT (*clrie_plugin_plan_fn)(void *data, IModuleInfo *module,
                                        struct clrie_plugin_plan *plan);

/* Makes a zeroed plan of plan_size bytes (a struct starting with struct clrie_plugin_plan) for
 * the module, its entries method_size bytes, and lets prepare fill it. A plan prepared with at
 * least one method is kept; otherwise it is freed. Returns prepare's failure, E_OUTOFMEMORY,
 * or S_OK. */
HRESULT clrie_plugin_plans_prepare(struct clrie_plugin_plans *plans, IModuleInfo *module,
                                   size_t plan_size, size_t method_size,
                                   clrie_plugin_plan_fn prepare, void *data);
/* A new zeroed entry for token in the plan being prepared, or NULL without memory. */
void *clrie_plugin_plan_add_method(struct clrie_plugin_plan *plan, mdMethodDef token);
/* Fills a new entry of a plan for the method named full_name (`Namespace.Type::Method`). */
typedef HRESULT (*clrie_plugin_plan_method_fn)(void *data, void *entry, const WCHAR *full_name);
/* Adds to the plan every MethodDef of the module with a body (RVA not 0) whose full name matches
 * one of the patterns, and lets fill complete each new entry: S_OK, E_OUTOFMEMORY, or the first
 * failure fill returned. */
HRESULT clrie_plugin_plan_select(struct clrie_plugin_plan *plan, IMetaDataImport *import,
                                 const struct clrie_plugin_patterns *patterns,
                                 clrie_plugin_plan_method_fn fill, void *data);
/* ShouldInstrumentMethod and AllowInlineSite of a plugin that instruments its plans' methods:
 * instrument those, never let one be inlined (an inlined method is not jitted on its own).
 * E_POINTER for a NULL out. */
HRESULT clrie_plugin_plans_should_instrument(const struct clrie_plugin_plans *plans,
                                             IMethodInfo *method, BOOL *instrument);
HRESULT clrie_plugin_plans_allow_inline(const struct clrie_plugin_plans *plans,
                                        IMethodInfo *inlinee, BOOL *allow);
/* The entry of the method in its module's plan (and that plan in *plan when not NULL), or
 * NULL. */
const void *clrie_plugin_plans_find(const struct clrie_plugin_plans *plans, IMethodInfo *method,
                                    const struct clrie_plugin_plan **plan);
/* Frees every plan. */
void clrie_plugin_plans_finish(struct clrie_plugin_plans *plans);

/* The shared framework's folder, learnt when System.Private.CoreLib.dll loads. Zero-initialise. */
struct clrie_plugin_framework {
    char *folder; /* owned, set once; private (the folder and whether it is the app's too) */
};

/* Whether the module at `path` is the framework's: System.Private.CoreLib.dll itself (its
 * folder is then remembered) or a module in that folder. In a self-contained app the app's own
 * files share that folder (it has no Microsoft.NETCore.App.deps.json); there a module of the
 * folder is the framework's when its file name is one the runtime pack ships: System.*,
 * Microsoft.*, mscorlib.dll, netstandard.dll or WindowsBase.dll. Any thread. */
bool clrie_plugin_framework_has(struct clrie_plugin_framework *framework, const char *path);
void clrie_plugin_framework_finish(struct clrie_plugin_framework *framework);

/* ---- COM and IL --------------------------------------------------------------------------------
 */

void clrie_plugin_release(void *object);
ILOrdinalOpcode clrie_plugin_opcode(IInstruction *instruction);
/* The branch target single-ret gathered every return into (AddRef'd), or NULL. */
IInstruction *clrie_plugin_single_ret_exit(ISingleRetDefaultInstrumentation *single);
/* The last `ret` that does not end a tail call (AddRef'd), or NULL: a method that only throws. */
IInstruction *clrie_plugin_last_plain_ret(IInstructionGraph *graph);
/* Moves *at on to the instruction after it (AddRef'd) and releases the one it held: NULL after
 * the last instruction or when GetNextInstruction fails (a NULL *at stays NULL). A walk:
 *     IInstruction *at = NULL;
 *     graph->lpVtbl->GetFirstInstruction(graph, &at);
 *     while (at) { ...; clrie_plugin_next_instruction(&at); }
 * (a walk left early releases `at` itself). */
void clrie_plugin_next_instruction(IInstruction **at);

/* A rewrite of one method with every return gathered into one exit: the method's instruction
 * graph and factory, and single-ret initialised on the graph and applied. Each member is one
 * reference the struct owns. */
struct clrie_plugin_rewrite {
    IInstructionGraph *graph;
    IInstructionFactory *factory;
    ISingleRetDefaultInstrumentation *single;
};

/* Fills *rw from `method` (GetInstructions, GetInstructionFactory,
 * GetSingleRetDefaultInstrumentation, Initialize, ApplySingleRetDefaultInstrumentation, in
 * that order). On failure *rw is left empty, holding nothing, and the failing call's HRESULT is
 * returned. */
HRESULT clrie_plugin_rewrite_init(struct clrie_plugin_rewrite *rw, IMethodInfo *method);
/* Releases what *rw holds and empties it; an empty one (all NULL) is fine. */
void clrie_plugin_rewrite_finish(struct clrie_plugin_rewrite *rw);
/* Where exit code goes: single-ret's shared exit, else the last `ret` that does not end a tail
 * call. AddRef'd, or NULL for a method that only throws. */
IInstruction *clrie_plugin_rewrite_exit(const struct clrie_plugin_rewrite *rw);
/* The IType of a primitive or object element type (ELEMENT_TYPE_I8, ELEMENT_TYPE_OBJECT, ...)
 * in the method's module, a new reference in *out. */
HRESULT clrie_plugin_element_type(IMethodInfo *method, CorElementType element, IType **out);
/* The IType a type signature describes (ELEMENT_TYPE_BYREF ELEMENT_TYPE_BOOLEAN, ...) in the
 * method's module, a new reference in *out; the signature must be exactly one type. */
HRESULT clrie_plugin_signature_type(IMethodInfo *method, const COR_SIGNATURE *sig, ULONG len,
                                    IType **out);
/* Adds a local of `type` to the method (ILocalVariableCollection::AddLocal), its index in
 * *index. */
HRESULT clrie_plugin_add_local(IMethodInfo *method, IType *type, DWORD *index);

/* ---- events a plugin ignores ----------------------------------------------------------------- */

HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_app_domain(IInstrumentationMethod *This,
                                                         IAppDomainInfo *info);
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_assembly(IInstrumentationMethod *This,
                                                       IAssemblyInfo *info);
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_module(IInstrumentationMethod *This,
                                                     IModuleInfo *info);
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_shutdown(IInstrumentationMethod *This);
/* For BeforeInstrumentMethod and OnInstrumentationComplete. */
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_method(IInstrumentationMethod *This,
                                                     IMethodInfo *method, BOOL isRejit);

/* ShouldInstrumentMethod answering FALSE, and AllowInlineSite answering TRUE. */
HRESULT STDMETHODCALLTYPE clrie_plugin_instrument_nothing(IInstrumentationMethod *This,
                                                          IMethodInfo *method, BOOL isRejit,
                                                          BOOL *instrument);
HRESULT STDMETHODCALLTYPE clrie_plugin_allow_every_inline(IInstrumentationMethod *This,
                                                          IMethodInfo *inlinee, IMethodInfo *caller,
                                                          BOOL *allow);

/* Designated initialisers for a plugin that rewrites no method: the five method slots. */
#define CLRIE_PLUGIN_INSTRUMENT_NOTHING                                                            \
    .ShouldInstrumentMethod = clrie_plugin_instrument_nothing,                                     \
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,                                          \
    .InstrumentMethod = clrie_plugin_ignore_method,                                                \
    .OnInstrumentationComplete = clrie_plugin_ignore_method,                                       \
    .AllowInlineSite = clrie_plugin_allow_every_inline

/* Designated initialisers for the four app domain and assembly events, all ignored. */
#define CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS                                             \
    .OnAppDomainCreated = clrie_plugin_ignore_app_domain,                                          \
    .OnAppDomainShutdown = clrie_plugin_ignore_app_domain,                                         \
    .OnAssemblyLoaded = clrie_plugin_ignore_assembly,                                              \
    .OnAssemblyUnloaded = clrie_plugin_ignore_assembly

/* IInstrumentationMethodJitEvents(2): JitStarted, and the v1 JitComplete an engine that knows
 * JitComplete2 does not call. */
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_jit_started(IInstrumentationMethodJitEvents2 *This,
                                                          FunctionID functionID, BOOL isRejit);
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_jit_complete(IInstrumentationMethodJitEvents2 *This,
                                                           FunctionID functionID, BOOL isRejit,
                                                           HRESULT jitResult);

/* IInstrumentationMethodExceptionEvents: the slots with a method, and those without. */
HRESULT STDMETHODCALLTYPE clrie_plugin_ignore_exception_method(
    IInstrumentationMethodExceptionEvents *This, IMethodInfo *method);
HRESULT STDMETHODCALLTYPE
clrie_plugin_ignore_exception_event(IInstrumentationMethodExceptionEvents *This);

/* Designated initialisers for the exception events a plugin leaves alone: every slot but
 * ExceptionThrown and ExceptionCatcherEnter. */
#define CLRIE_PLUGIN_IGNORE_EXCEPTION_SEARCH_AND_UNWIND_EVENTS                                     \
    .ExceptionCatcherLeave = clrie_plugin_ignore_exception_event,                                  \
    .ExceptionSearchCatcherFound = clrie_plugin_ignore_exception_method,                           \
    .ExceptionSearchFilterEnter = clrie_plugin_ignore_exception_method,                            \
    .ExceptionSearchFilterLeave = clrie_plugin_ignore_exception_event,                             \
    .ExceptionSearchFunctionEnter = clrie_plugin_ignore_exception_method,                          \
    .ExceptionSearchFunctionLeave = clrie_plugin_ignore_exception_event,                           \
    .ExceptionUnwindFinallyEnter = clrie_plugin_ignore_exception_method,                           \
    .ExceptionUnwindFinallyLeave = clrie_plugin_ignore_exception_event,                            \
    .ExceptionUnwindFunctionEnter = clrie_plugin_ignore_exception_method,                          \
    .ExceptionUnwindFunctionLeave = clrie_plugin_ignore_exception_event

#ifdef __cplusplus
}
#endif

#endif /* CLRIE_PLUGIN_H */
