/* What the engine knows of the running process: app domains, assemblies and modules, as the
 * COM objects plugins see (IAppDomainInfo, IAssemblyInfo, IModuleInfo3, IAppDomainCollection,
 * their enumerators, and IDataContainer on each).
 *
 * The profiler manager feeds it from CoreCLR's callbacks and hands its objects to plugins.
 * Every object is reference counted (atomic) and may be used from any thread; the tables of
 * the collection are protected by one mutex held only while they are read or changed, never
 * while calling into the runtime or a plugin.
 *
 * Objects are created on first need, whatever order the runtime reports things in: a module
 * may be attached to an assembly whose load has not finished yet, in a domain whose creation
 * has not finished yet. An unloaded module, assembly or domain leaves the tables but lives on
 * while a plugin holds a reference; its methods then answer from what was recorded. */
#ifndef CLRIE_PM_DOMAINS_H
#define CLRIE_PM_DOMAINS_H

#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "datacontainer.h"
#include "log.h"

struct clrie_pm_domains;

/* Creates an empty collection that asks info (AddRef'd, released by free) for names, paths,
 * flags and metadata, and logs problems to log (borrowed: it outlives the collection). */
HRESULT clrie_pm_domains_new(ICorProfilerInfo3 *info, struct clrie_pm_log *log,
                             struct clrie_pm_domains **out);

/* Drops the tables and the references they hold. Objects plugins still hold stay valid. */
void clrie_pm_domains_free(struct clrie_pm_domains *domains);

/* The process-wide IAppDomainCollection; borrowed (AddRef it to keep it). */
IAppDomainCollection *clrie_pm_domains_collection(struct clrie_pm_domains *domains);

/* Runtime events. Each returns the object concerned in *out, AddRef'd for the caller (out may be
 * NULL when the caller does not need it), or a failure HRESULT (logged) when the runtime could
 * not describe it. Repeated events for the same ID return the same object. */
HRESULT clrie_pm_domains_appdomain_created(struct clrie_pm_domains *domains, AppDomainID id,
                                           IAppDomainInfo **out);
HRESULT clrie_pm_domains_assembly_loaded(struct clrie_pm_domains *domains, AssemblyID id,
                                         IAssemblyInfo **out);
/* ModuleAttachedToAssembly: the module becomes known with its assembly and domain. A module
 * without metadata (resource-only) yields S_FALSE and no object. */
HRESULT clrie_pm_domains_module_attached(struct clrie_pm_domains *domains, ModuleID id,
                                         AssemblyID assembly, IModuleInfo **out);

/* Unloads remove the object from the tables and return it (AddRef'd) so the caller can tell
 * plugins; S_FALSE with *out NULL when it was not known. */
HRESULT clrie_pm_domains_module_unloaded(struct clrie_pm_domains *domains, ModuleID id,
                                         IModuleInfo **out);
HRESULT clrie_pm_domains_assembly_unloaded(struct clrie_pm_domains *domains, AssemblyID id,
                                           IAssemblyInfo **out);
HRESULT clrie_pm_domains_appdomain_shutdown(struct clrie_pm_domains *domains, AppDomainID id,
                                            IAppDomainInfo **out);

/* Lookups (AddRef'd result, E_FAIL... when unknown). */
HRESULT clrie_pm_domains_find_module(struct clrie_pm_domains *domains, ModuleID id,
                                     IModuleInfo **out);

/* Method infos are the profiler manager's objects; the collection and its modules hand them
 * out (GetMethodInfoById, GetMethodInfoByToken) through this factory, set once before any
 * plugin runs. Without one those calls fail with E_NOTIMPL. */
struct clrie_pm_method_factory {
    HRESULT (*by_function)(void *ctx, FunctionID id, IMethodInfo **out);
    HRESULT (*by_token)(void *ctx, IModuleInfo *module, mdMethodDef token, IMethodInfo **out);
    void *ctx;
};
void clrie_pm_domains_set_method_factory(struct clrie_pm_domains *domains,
                                         const struct clrie_pm_method_factory *factory);

/* ---- per-method records of a module (module_methods.c) ------------------------------------
 * `module` must be one of this collection's modules (what the callbacks and the collection
 * return); records live as long as the module object. All are safe from any thread. */

/* The method's original IL: the body the runtime gave on the first ask, remembered so that
 * every ReJIT starts again from it (after a rejit or revert the runtime may answer with
 * instrumented IL). The bytes belong to the runtime and live as long as the module. */
HRESULT clrie_pm_module_original_il(IModuleInfo *module, mdMethodDef token, LPCBYTE *body,
                                    ULONG *size);
/* The module's index of #US entry starts (user_strings.h), built on first need; borrowed, it
 * lives as long as the module. */
struct clrie_pm_user_strings;
struct clrie_pm_user_strings *clrie_pm_module_user_strings(IModuleInfo *module);
/* The module's metadata as the engine opened it when the module loaded: its importer, and its
 * emitter (NULL when the runtime refused one). Borrowed: they live as long as the module. */
IMetaDataImport2 *clrie_pm_module_import(IModuleInfo *module);
IMetaDataEmit2 *clrie_pm_module_emit(IModuleInfo *module);
/* What the verifier learnt of the module's tokens (token_answers.h), kept for its other
 * methods; borrowed, it lives as long as the module. */
struct clrie_pm_token_answers;
struct clrie_pm_token_answers *clrie_pm_module_verify_answers(IModuleInfo *module);
/* The module's StandAloneSig tokens by signature (types.h), through which the JIT pipeline
 * commits new locals; borrowed, it lives as long as the module. NULL without an emitter. */
struct clrie_pm_types_sig_tokens;
struct clrie_pm_types_sig_tokens *clrie_pm_module_sig_tokens(IModuleInfo *module);
/* Counts a ReJIT of the method and returns the new count (1 for the first). */
DWORD clrie_pm_module_next_rejit(IModuleInfo *module, mdMethodDef token);
/* Records the outcome of instrumenting the method (transformed or not, and its IL map:
 * copied) for IMethodJitInfo. */
HRESULT clrie_pm_module_record_il_map(IModuleInfo *module, mdMethodDef token, bool transformed,
                                      const COR_IL_MAP *map, ULONG count);
/* The last recorded map: fills up to cap entries, *needed the full count; *transformed whether
 * the last instrumentation changed the method. S_OK, or S_FALSE when nothing is recorded. */
HRESULT clrie_pm_module_il_map(IModuleInfo *module, mdMethodDef token, ULONG32 cap, COR_IL_MAP *map,
                               ULONG32 *needed, BOOL *transformed);
/* The methods of every loaded module whose last instrumentation changed them (detach puts them
 * back): fills up to cap pairs and returns how many there are. */
size_t clrie_pm_domains_transformed_methods(struct clrie_pm_domains *domains, ModuleID *modules,
                                            mdMethodDef *tokens, size_t cap);
/* What the modules keep for their methods (module_methods.c), in bytes of heap: the
 * per-method records, the IL maps recorded for IMethodJitInfo, the inline sites, and the
 * tables that find the records. For the engine's memory figures (logged at shutdown). */
struct clrie_pm_methods_memory {
    size_t methods;      /* records: methods the engine prepared IL for */
    size_t transformed;  /* of them, those whose last instrumentation changed them */
    size_t record_bytes; /* the records themselves */
    size_t map_entries, map_bytes;
    size_t caller_bytes;
    size_t table_bytes; /* the modules' method tables (slots) */
};
void clrie_pm_domains_methods_memory(struct clrie_pm_domains *domains,
                                     struct clrie_pm_methods_memory *out);
/* An inline site the JIT accepted: `token` of this module was inlined into caller. */
HRESULT clrie_pm_module_add_inline_site(IModuleInfo *module, mdMethodDef token,
                                        ModuleID caller_module, mdMethodDef caller);

/* Who keeps a method rejitted: the plugins and the raw hook each take part in every ReJIT of
 * it, until that party reverts it (RequestRevert); its next ReJIT request takes it back in. */
#define CLRIE_PM_REJIT_PLUGINS 1u
#define CLRIE_PM_REJIT_HOOK 2u
#define CLRIE_PM_REJIT_ALL (CLRIE_PM_REJIT_PLUGINS | CLRIE_PM_REJIT_HOOK)
/* The parties that take part in the method's ReJITs now. */
unsigned clrie_pm_module_rejit_parties(IModuleInfo *module, mdMethodDef token);
/* Records that `party` asked for a ReJIT of the method (in true) or reverted it (in false);
 * returns the parties that take part now (CLRIE_PM_REJIT_ALL when out of memory). */
unsigned clrie_pm_module_set_rejit_party(IModuleInfo *module, mdMethodDef token, unsigned party,
                                         bool in);
#endif
