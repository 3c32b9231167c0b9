/* The objects behind domains.h, shared by the files of this folder, which call one way, from
 * the top down: domains.c (creation, runtime events) -> collection.c, appdomain.c ->
 * assembly.c -> module.c -> module_methods.c -> registry.c (lookups, enumerators, unloads) ->
 * tables.c (containers). The enumerators are enum.h's.
 *
 * Ownership. The collection's tables hold one reference to each loaded object (the "tables
 * reference"), taken when the object enters them and handed to the caller of the unload
 * function (or released) when it leaves. Every child holds a reference to its parents (module
 * -> assembly, domain; assembly -> domain) and to the collection, whose lock it uses. Parents
 * list their children without extra references: a child is in its parents' lists exactly while
 * it is in the tables, and all of that changes together under the collection's lock. So an
 * unload breaks every parent -> child link and nothing forms a cycle afterwards.
 *
 * Locking. `domains->lock` protects the collection's tables and every field marked "under the
 * lock" below. It is never held while calling the runtime, a metadata interface or a plugin,
 * and never while releasing a reference (a Release may destroy an object, which releases the
 * collection and with it the lock). AddRef under the lock is fine: it is an atomic add on our
 * own objects. */
#ifndef CLRIE_PM_DOMAINS_PRIVATE_H
#define CLRIE_PM_DOMAINS_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <uchar.h>

#include "com.h"
#include "domains.h"
#include "enum.h"
#include "clrie/ilgraph.h"
#include "types.h"
#include "token_answers.h"
#include "user_strings.h"

/* ---- containers -------------------------------------------------------------------- */

/* A growable array of object pointers in insertion order. */
struct clrie_pm_ptr_list {
    void **items;
    size_t count;
    size_t capacity;
};

/* Makes room for `extra` more items, so the appends that follow cannot fail. 0 or -ENOMEM. */
int clrie_pm_ptr_list_reserve(struct clrie_pm_ptr_list *list, size_t extra);
/* Appends after a successful reserve. */
void clrie_pm_ptr_list_append(struct clrie_pm_ptr_list *list, void *item);
/* Removes the first occurrence, keeping the order of the rest; false if absent. */
bool clrie_pm_ptr_list_remove(struct clrie_pm_ptr_list *list, void *item);
void clrie_pm_ptr_list_finish(struct clrie_pm_ptr_list *list);

/* ID -> object, open addressing with linear probing. The runtime's IDs are addresses, never 0. */
struct clrie_pm_id_slot {
    UINT_PTR id;
    void *value;
};
struct clrie_pm_id_map {
    struct clrie_pm_id_slot *slots;
    size_t count;
    size_t capacity; /* 0 or a power of two */
};

void *clrie_pm_id_map_get(const struct clrie_pm_id_map *map, UINT_PTR id);
/* Makes room for one more entry, so the put that follows cannot fail. 0 or -ENOMEM. */
int clrie_pm_id_map_reserve(struct clrie_pm_id_map *map);
/* Inserts id (absent, not 0) after a successful reserve. */
void clrie_pm_id_map_put(struct clrie_pm_id_map *map, UINT_PTR id, void *value);
/* Removes id and returns its value, or NULL if absent. */
void *clrie_pm_id_map_remove(struct clrie_pm_id_map *map, UINT_PTR id);
void clrie_pm_id_map_finish(struct clrie_pm_id_map *map);

/* ---- the objects ------------------------------------------------------------------- */

struct clrie_pm_appdomain;
struct clrie_pm_assembly;
struct clrie_pm_module;

struct clrie_pm_domains {
    IAppDomainCollection iface; /* first: the object's IUnknown */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com
        com; /* the owner's (dropped by clrie_pm_domains_free), plugins', objects' */
    ICorProfilerInfo3 *info; /* released by clrie_pm_domains_free */
    struct clrie_pm_log *log;
    struct clrie_os_mutex
        lock;    /* protects the fields below and the marked fields of every object */
    bool closed; /* clrie_pm_domains_free has run: nothing enters the tables */
    struct clrie_pm_method_factory method_factory; /* set before plugins run, then fixed */
    bool have_default;                             /* some domain was classified default */
    struct clrie_pm_ptr_list domain_list;          /* loaded domains, in creation order */
    struct clrie_pm_id_map domain_map;             /* AppDomainID -> struct clrie_pm_appdomain */
    struct clrie_pm_id_map assembly_map;           /* AssemblyID -> struct clrie_pm_assembly */
    struct clrie_pm_id_map module_map;             /* ModuleID -> struct clrie_pm_module */
};

/* A UTF-16 string the object owns (malloc'd, 0-terminated). */
struct clrie_pm_text {
    char16_t *text;
    size_t len;
};

struct clrie_pm_appdomain {
    IAppDomainInfo iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct clrie_pm_domains *domains;
    AppDomainID id;
    /* under the lock */
    struct clrie_pm_text name; /* may be filled in later: the runtime may not know it yet */
    bool is_system, is_shared, is_default; /* from the name (domains.c, classify_locked) */
    bool loaded;                           /* in the tables */
    struct clrie_pm_ptr_list assemblies;   /* struct clrie_pm_assembly *, loaded ones */
    struct clrie_pm_ptr_list modules;      /* struct clrie_pm_module *, loaded ones */
};

struct clrie_pm_assembly {
    IAssemblyInfo iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct clrie_pm_domains *domains;
    struct clrie_pm_appdomain *appdomain; /* strong */
    AssemblyID id;
    ModuleID manifest_id; /* 0 when the runtime did not say yet */
    /* under the lock */
    struct clrie_pm_text name;
    bool loaded;
    struct clrie_pm_ptr_list modules; /* struct clrie_pm_module *, loaded ones */
    struct clrie_pm_module *manifest; /* one of modules, or NULL */
    bool have_identity;               /* token and public key read from the manifest */
    mdAssembly token;
    DWORD flags; /* CorAssemblyFlags */
    BYTE *public_key;
    ULONG public_key_size;
};

struct clrie_pm_module {
    IModuleInfo3 iface; /* first */
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct clrie_pm_domains *domains;
    struct clrie_pm_assembly *assembly;   /* strong */
    struct clrie_pm_appdomain *appdomain; /* strong */
    /* immutable after creation */
    ModuleID id;
    struct clrie_pm_text path;
    size_t name_offset; /* the file name: path.text + name_offset */
    LPCBYTE base;
    DWORD flags; /* COR_PRF_MODULE_FLAGS */
    GUID mvid;
    IUnknown *import;          /* IMetaDataImport2 */
    IUnknown *assembly_import; /* IMetaDataAssemblyImport */
    IUnknown *emit;            /* IMetaDataEmit2, NULL when the runtime refused */
    IUnknown *assembly_emit;   /* IMetaDataAssemblyEmit, NULL when refused */
    bool have_image;
    struct clrie_il_pe_image image;
    /* under the lock */
    bool loaded;
    /* What the JIT pipeline records per method (module_methods.c): mdMethodDef -> struct
     * clrie_pm_method_record. methods_lock protects the map and the records; it is taken
     * alone, never with the collection's lock, and never while calling the runtime. */
    struct clrie_os_mutex methods_lock;
    struct clrie_pm_id_map methods;
    /* What the verifier finds once per module (user_strings.h, token_answers.h), and the
     * StandAloneSig tokens by blob that committing new locals uses (types.h; NULL without an
     * emitter). Each has its own lock, taken alone. */
    struct clrie_pm_user_strings user_strings;
    struct clrie_pm_token_answers verify_answers;
    struct clrie_pm_types_sig_tokens *sig_tokens;
};

_Static_assert(offsetof(struct clrie_pm_domains, iface) == 0, "iface first");
_Static_assert(offsetof(struct clrie_pm_appdomain, iface) == 0, "iface first");
_Static_assert(offsetof(struct clrie_pm_assembly, iface) == 0, "iface first");
_Static_assert(offsetof(struct clrie_pm_module, iface) == 0, "iface first");

/* Every object's first member is its primary interface, so an object pointer is its IUnknown. */
#define CLRIE_PM_UNKNOWN(obj) ((IUnknown *)(void *)(obj))
#define CLRIE_PM_ADDREF(obj) ((void)CLRIE_PM_UNKNOWN(obj)->lpVtbl->AddRef(CLRIE_PM_UNKNOWN(obj)))
#define CLRIE_PM_RELEASE(obj) ((void)CLRIE_PM_UNKNOWN(obj)->lpVtbl->Release(CLRIE_PM_UNKNOWN(obj)))

/* Hands an AddRef'd object to a caller that may not want it (out NULL: released). */
static inline void give_to_caller(void *object, void **out)
{
    if (out)
        *out = object;
    else if (object)
        CLRIE_PM_RELEASE(object);
}

/* Constructors: one reference for the caller, not yet in the tables. Each AddRefs the
 * collection and the parents it is given, and takes over `name`/`path` (freed on failure). */
HRESULT clrie_pm_appdomain_new(struct clrie_pm_domains *domains, AppDomainID id,
                               struct clrie_pm_text name, struct clrie_pm_appdomain **out);
HRESULT clrie_pm_assembly_new(struct clrie_pm_domains *domains,
                              struct clrie_pm_appdomain *appdomain, AssemblyID id,
                              ModuleID manifest_id, struct clrie_pm_text name,
                              struct clrie_pm_assembly **out);

/* What module_attached learned from the runtime; the module takes over the strings and the
 * metadata references (NULLed here) whether or not creation succeeds. */
struct clrie_pm_module_facts {
    ModuleID id;
    struct clrie_pm_text path;
    LPCBYTE base;
    DWORD flags;
    GUID mvid;
    IUnknown *import, *assembly_import, *emit, *assembly_emit;
};
HRESULT clrie_pm_module_new(struct clrie_pm_domains *domains, struct clrie_pm_assembly *assembly,
                            struct clrie_pm_module_facts *facts, struct clrie_pm_module **out);

/* The public key, flags and assembly token from a manifest module's IMetaDataAssemblyImport;
 * called without the lock. The key is a malloc'd copy. */
HRESULT clrie_pm_assembly_read_identity(IUnknown *assembly_import, mdAssembly *token, DWORD *flags,
                                        BYTE **public_key, ULONG *public_key_size);

/* Copies text into a new BSTR for a plugin. */
HRESULT clrie_pm_text_to_bstr(const char16_t *text, size_t len, BSTR *out);
bool clrie_pm_text_equal(const char16_t *a, size_t a_len, const char16_t *b);
void clrie_pm_text_finish(struct clrie_pm_text *text);

/* Frees the per-method records of a module being destroyed (module_methods.c). */
void clrie_pm_module_methods_finish(struct clrie_pm_module *module);
/* IModuleInfo::RequestRejit: asks the runtime to rejit the method and every recorded caller it
 * was inlined into. */
HRESULT clrie_pm_module_request_rejit(struct clrie_pm_module *module, mdToken token);

/* Gives a new collection its COM face (collection.c) and the owner's reference. */
void clrie_pm__collection_init(struct clrie_pm_domains *domains);

/* ---- the tables (registry.c) ------------------------------------------------------------ */

/* The object with that ID in one of the collection's maps, AddRef'd, or NULL. */
void *clrie_pm_domains_find(struct clrie_pm_domains *domains, struct clrie_pm_id_map *map,
                            UINT_PTR id);

/* Enumerators over the tables (enum.h). */

/* An enumerator over the objects of list for which keep(object, arg) is true (keep NULL: all),
 * taken under the collection's lock. *out is the enumerator interface. */
HRESULT clrie_pm_enum_from_list(struct clrie_pm_domains *domains, const IID *iid,
                                const struct clrie_pm_ptr_list *list,
                                bool (*keep)(void *object, const void *arg), const void *arg,
                                void **out);

/* Filters for clrie_pm_enum_from_list; called under the lock. */
bool clrie_pm_module_has_name(void *module, const void *name);     /* const char16_t * */
bool clrie_pm_module_has_mvid(void *module, const void *mvid);     /* const GUID * */
bool clrie_pm_assembly_has_name(void *assembly, const void *name); /* const char16_t * */

#endif
