/* The top of the collection: its creation and closing, and the runtime events that fill its
 * tables (domains.h): asking the runtime, creating the app domain, assembly and module objects
 * and putting them into the tables. The ownership and locking rules are in domains_private.h;
 * the tables' lookups and unloads are registry.c, the collection's COM face collection.c. */
#include "domains_private.h"

#include <stdlib.h>
#include <string.h>

#include "utf16.h"

#define OF_READ 0x0u  /* CorOpenFlags.ofRead */
#define OF_WRITE 0x1u /* CorOpenFlags.ofWrite */

/* ---- asking the runtime -------------------------------------------------------------- */

/* A name of at most `len` units from a buffer the runtime filled (it counts the 0 terminator). */
static void keep_name(char16_t *buffer, ULONG len, struct clrie_pm_text *out)
{
    size_t n = 0;
    while (n < len && buffer[n])
        n++;
    buffer[n] = 0;
    *out = (struct clrie_pm_text){.text = buffer, .len = n};
}

/* One of the runtime's name queries: asked with size 0 and no buffer it gives the length,
 * then the text. */
typedef HRESULT (*name_query_fn)(void *query, ULONG size, ULONG *len, char16_t *buffer);

/* A name through the runtime's two calls: the length first, then the text. */
static HRESULT ask_name(name_query_fn ask, void *query, struct clrie_pm_text *name)
{
    ULONG len = 0;
    *name = (struct clrie_pm_text){0};
    HRESULT hr = ask(query, 0, &len, NULL);
    if (FAILED(hr))
        return hr;
    char16_t *buffer = calloc((size_t)len + 1, sizeof(char16_t));
    if (!buffer)
        return E_OUTOFMEMORY;
    ULONG got = 0;
    hr = ask(query, len, &got, buffer);
    if (FAILED(hr)) {
        free(buffer);
        return hr;
    }
    keep_name(buffer, got < len ? got : len, name);
    return S_OK;
}

struct appdomain_query {
    ICorProfilerInfo3 *info;
    AppDomainID id;
    ProcessID process;
};

static HRESULT ask_appdomain(void *query, ULONG size, ULONG *len, char16_t *buffer)
{
    struct appdomain_query *q = query;
    return q->info->lpVtbl->GetAppDomainInfo(q->info, q->id, size, len, buffer, &q->process);
}

static HRESULT query_appdomain(struct clrie_pm_domains *d, AppDomainID id,
                               struct clrie_pm_text *name)
{
    struct appdomain_query q = {.info = d->info, .id = id};
    return ask_name(ask_appdomain, &q, name);
}

struct assembly_query {
    ICorProfilerInfo3 *info;
    AssemblyID id;
    AppDomainID *appdomain;
    ModuleID *manifest;
};

static HRESULT ask_assembly(void *query, ULONG size, ULONG *len, char16_t *buffer)
{
    struct assembly_query *q = query;
    return q->info->lpVtbl->GetAssemblyInfo(q->info, q->id, size, len, buffer, q->appdomain,
                                            q->manifest);
}

static HRESULT query_assembly(struct clrie_pm_domains *d, AssemblyID id, struct clrie_pm_text *name,
                              AppDomainID *appdomain, ModuleID *manifest)
{
    struct assembly_query q = {
        .info = d->info, .id = id, .appdomain = appdomain, .manifest = manifest};
    return ask_name(ask_assembly, &q, name);
}

struct module_query {
    ICorProfilerInfo3 *info;
    ModuleID id;
    struct clrie_pm_module_facts *facts;
    AssemblyID *assembly;
};

static HRESULT ask_module(void *query, ULONG size, ULONG *len, char16_t *buffer)
{
    struct module_query *q = query;
    return q->info->lpVtbl->GetModuleInfo2(q->info, q->id, &q->facts->base, size, len, buffer,
                                           q->assembly, &q->facts->flags);
}

static HRESULT query_module(struct clrie_pm_domains *d, ModuleID id,
                            struct clrie_pm_module_facts *facts, AssemblyID *assembly)
{
    struct module_query q = {.info = d->info, .id = id, .facts = facts, .assembly = assembly};
    return ask_name(ask_module, &q, &facts->path);
}

static HRESULT open_metadata(struct clrie_pm_domains *d, ModuleID id, DWORD flags, const IID *iid,
                             IUnknown **out)
{
    *out = NULL;
    HRESULT hr = d->info->lpVtbl->GetModuleMetaData(d->info, id, flags, iid, out);
    if (hr != S_OK || !*out) {
        /* S_FALSE is how the runtime says "no metadata" (resource-only modules). */
        if (*out)
            (*out)->lpVtbl->Release(*out);
        *out = NULL;
        return FAILED(hr) ? hr : E_FAIL;
    }
    return S_OK;
}

/* Lossy UTF-8 of a runtime string for a log line; free() it. NULL is printed as "?". */
static char *printable(const struct clrie_pm_text *text)
{
    char *out = NULL;
    size_t len = 0;
    if (clrie_pm_utf16_to_utf8(text->text, text->len, true, &out, &len) != 0)
        return NULL;
    return out;
}

/* Stores `fresh` in *field if the field is still empty (under the lock); frees what is left. */
static void fill_name(struct clrie_pm_domains *d, struct clrie_pm_text *field,
                      struct clrie_pm_text fresh)
{
    clrie_os_mutex_lock(&d->lock);
    if (field->len == 0 && fresh.len != 0) {
        struct clrie_pm_text old = *field;
        *field = fresh;
        fresh = old;
    }
    clrie_os_mutex_unlock(&d->lock);
    clrie_pm_text_finish(&fresh);
}

static bool name_missing(struct clrie_pm_domains *d, const struct clrie_pm_text *field)
{
    clrie_os_mutex_lock(&d->lock);
    bool missing = field->len == 0;
    clrie_os_mutex_unlock(&d->lock);
    return missing;
}

/* ---- finding or creating objects ---------------------------------------------------- */

/* Classifies a domain by its name, under the lock, as CLRIE does: "System.Private.CoreLib.dll"
 * or "mscorlib.dll" is the system domain (CoreCLR reports its system domain so, before the app's
 * domain), "EE Shared Assembly Repository" the shared one, "DefaultDomain" the default one.
 * Hosts that name the app's domain otherwise ("clrhost", the app) get clrie's addition: the
 * first named domain that is neither system nor shared is the default. Once default, a domain
 * stays so. */
static void classify_locked(struct clrie_pm_domains *d, struct clrie_pm_appdomain *dom)
{
    const char16_t *name = dom->name.text;
    size_t len = dom->name.len;
    if (len == 0)
        return;
    dom->is_system = clrie_pm_text_equal(name, len, u"System.Private.CoreLib.dll") ||
                     clrie_pm_text_equal(name, len, u"mscorlib.dll");
    dom->is_shared = clrie_pm_text_equal(name, len, u"EE Shared Assembly Repository");
    if (clrie_pm_text_equal(name, len, u"DefaultDomain") ||
        (!dom->is_system && !dom->is_shared && !d->have_default))
        dom->is_default = true;
    if (dom->is_default)
        d->have_default = true;
}

/* Gives dom the name the runtime now reports (a creation event may follow a creation on need,
 * before the runtime knew the name, or rename the domain). */
static void rename_appdomain(struct clrie_pm_domains *d, struct clrie_pm_appdomain *dom)
{
    struct clrie_pm_text name;
    if (FAILED(query_appdomain(d, dom->id, &name)))
        return;
    clrie_os_mutex_lock(&d->lock);
    if (name.len != 0 && !clrie_pm_text_equal(dom->name.text, dom->name.len, name.text)) {
        struct clrie_pm_text old = dom->name;
        dom->name = name;
        name = old;
        classify_locked(d, dom);
    }
    clrie_os_mutex_unlock(&d->lock);
    clrie_pm_text_finish(&name);
}

/* The domain with that ID, AddRef'd: from the tables or new. A new one enters the tables
 * unless the collection is closed. The name may not be known yet when the domain is created on
 * the way to an assembly; the creation event asks again. */
static HRESULT get_appdomain(struct clrie_pm_domains *d, AppDomainID id, bool creation_event,
                             struct clrie_pm_appdomain **out)
{
    struct clrie_pm_appdomain *dom = clrie_pm_domains_find(d, &d->domain_map, id);
    if (dom) {
        if (creation_event)
            rename_appdomain(d, dom);
        *out = dom;
        return S_OK;
    }

    struct clrie_pm_text name;
    HRESULT hr = query_appdomain(d, id, &name);
    if (FAILED(hr)) {
        if (creation_event)
            CLRIE_PM_LOG_ERROR(d->log,
                               "app domain 0x%llx: GetAppDomainInfo failed (0x%08x); its name "
                               "stays empty",
                               (unsigned long long)id, (unsigned)hr);
        name = (struct clrie_pm_text){0};
    }
    struct clrie_pm_appdomain *fresh;
    hr = clrie_pm_appdomain_new(d, id, name, &fresh);
    if (FAILED(hr))
        return hr;

    struct clrie_pm_appdomain *loser = NULL;
    clrie_os_mutex_lock(&d->lock);
    dom = clrie_pm_id_map_get(&d->domain_map, id);
    if (dom) {
        CLRIE_PM_ADDREF(dom); /* another thread was faster */
        loser = fresh;
    } else if (d->closed) {
        dom = fresh; /* the caller's, outside the tables */
    } else if (clrie_pm_id_map_reserve(&d->domain_map) != 0 ||
               clrie_pm_ptr_list_reserve(&d->domain_list, 1) != 0) {
        loser = fresh;
        hr = E_OUTOFMEMORY;
    } else {
        dom = fresh;
        classify_locked(d, dom);
        clrie_pm_id_map_put(&d->domain_map, id, dom);
        clrie_pm_ptr_list_append(&d->domain_list, dom);
        dom->loaded = true;
        CLRIE_PM_ADDREF(dom); /* the creation reference is now the tables' */
    }
    clrie_os_mutex_unlock(&d->lock);
    if (loser)
        CLRIE_PM_RELEASE(loser);
    if (FAILED(hr))
        return hr;
    *out = dom;
    return S_OK;
}

static HRESULT get_assembly(struct clrie_pm_domains *d, AssemblyID id, bool load_event,
                            struct clrie_pm_assembly **out)
{
    struct clrie_pm_assembly *a = clrie_pm_domains_find(d, &d->assembly_map, id);
    if (a) {
        if (load_event && name_missing(d, &a->name)) {
            struct clrie_pm_text name;
            AppDomainID appdomain_id;
            ModuleID manifest_id;
            if (SUCCEEDED(query_assembly(d, id, &name, &appdomain_id, &manifest_id)))
                fill_name(d, &a->name, name);
        }
        *out = a;
        return S_OK;
    }

    struct clrie_pm_text name;
    AppDomainID appdomain_id = 0;
    ModuleID manifest_id = 0;
    HRESULT hr = query_assembly(d, id, &name, &appdomain_id, &manifest_id);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(d->log, "assembly 0x%llx: GetAssemblyInfo failed (0x%08x)",
                           (unsigned long long)id, (unsigned)hr);
        return hr;
    }
    struct clrie_pm_appdomain *dom;
    hr = get_appdomain(d, appdomain_id, false, &dom);
    if (FAILED(hr)) {
        clrie_pm_text_finish(&name);
        return hr;
    }
    struct clrie_pm_assembly *fresh;
    hr = clrie_pm_assembly_new(d, dom, id, manifest_id, name, &fresh);
    if (FAILED(hr)) {
        CLRIE_PM_RELEASE(dom);
        return hr;
    }

    struct clrie_pm_assembly *loser = NULL;
    clrie_os_mutex_lock(&d->lock);
    a = clrie_pm_id_map_get(&d->assembly_map, id);
    if (a) {
        CLRIE_PM_ADDREF(a);
        loser = fresh;
    } else if (d->closed || !dom->loaded) {
        a = fresh; /* its domain is gone: the caller's, outside the tables */
    } else if (clrie_pm_id_map_reserve(&d->assembly_map) != 0 ||
               clrie_pm_ptr_list_reserve(&dom->assemblies, 1) != 0) {
        loser = fresh;
        hr = E_OUTOFMEMORY;
    } else {
        a = fresh;
        clrie_pm_id_map_put(&d->assembly_map, id, a);
        clrie_pm_ptr_list_append(&dom->assemblies, a);
        a->loaded = true;
        CLRIE_PM_ADDREF(a);
    }
    clrie_os_mutex_unlock(&d->lock);
    if (loser)
        CLRIE_PM_RELEASE(loser);
    CLRIE_PM_RELEASE(dom);
    if (FAILED(hr))
        return hr;
    *out = a;
    return S_OK;
}

/* ---- the contract ---------------------------------------------------------------------- */

HRESULT clrie_pm_domains_new(ICorProfilerInfo3 *info, struct clrie_pm_log *log,
                             struct clrie_pm_domains **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!info || !log)
        return E_POINTER;
    struct clrie_pm_domains *d = calloc(1, sizeof(*d));
    if (!d)
        return E_OUTOFMEMORY;
    clrie_pm__collection_init(d);
    info->lpVtbl->AddRef(info);
    d->info = info;
    d->log = log;
    clrie_os_mutex_init(&d->lock);
    *out = d;
    return S_OK;
}

void clrie_pm_domains_free(struct clrie_pm_domains *domains)
{
    if (!domains)
        return;
    clrie_os_mutex_lock(&domains->lock);
    domains->closed = true;
    struct clrie_pm_ptr_list list = domains->domain_list;
    domains->domain_list = (struct clrie_pm_ptr_list){0};
    clrie_os_mutex_unlock(&domains->lock);

    /* Each domain is still in the map; shutting it down takes it out with its assemblies and
     * modules and drops the tables' references. */
    for (size_t i = 0; i < list.count; i++) {
        AppDomainID id = ((struct clrie_pm_appdomain *)list.items[i])->id;
        clrie_pm_domains_appdomain_shutdown(domains, id, NULL);
    }
    clrie_pm_ptr_list_finish(&list);

    ICorProfilerInfo3 *info = domains->info;
    domains->info = NULL;
    info->lpVtbl->Release(info);
    CLRIE_PM_RELEASE(domains);
}

IAppDomainCollection *clrie_pm_domains_collection(struct clrie_pm_domains *domains)
{
    return &domains->iface;
}

HRESULT clrie_pm_domains_appdomain_created(struct clrie_pm_domains *domains, AppDomainID id,
                                           IAppDomainInfo **out)
{
    struct clrie_pm_appdomain *dom;
    if (out)
        *out = NULL;
    HRESULT hr = get_appdomain(domains, id, true, &dom);
    if (FAILED(hr))
        return hr;
    give_to_caller(dom, (void **)out);
    return S_OK;
}

HRESULT clrie_pm_domains_assembly_loaded(struct clrie_pm_domains *domains, AssemblyID id,
                                         IAssemblyInfo **out)
{
    struct clrie_pm_assembly *a;
    if (out)
        *out = NULL;
    HRESULT hr = get_assembly(domains, id, true, &a);
    if (FAILED(hr))
        return hr;
    give_to_caller(a, (void **)out);
    return S_OK;
}

HRESULT clrie_pm_domains_module_attached(struct clrie_pm_domains *domains, ModuleID id,
                                         AssemblyID assembly, IModuleInfo **out)
{
    struct clrie_pm_domains *d = domains;
    struct clrie_pm_module_facts facts = {.id = id};
    struct clrie_pm_assembly *a = NULL;
    BYTE *public_key = NULL;
    HRESULT hr;
    if (out)
        *out = NULL;

    struct clrie_pm_module *m = clrie_pm_domains_find(d, &d->module_map, id);
    if (m) {
        give_to_caller(m, (void **)out);
        return S_OK;
    }

    AssemblyID reported = 0;
    hr = query_module(d, id, &facts, &reported);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(d->log, "module 0x%llx: GetModuleInfo2 failed (0x%08x)",
                           (unsigned long long)id, (unsigned)hr);
        goto done;
    }
    if (!assembly)
        assembly = reported;

    /* Resource-only modules have no metadata: no object and no event (as CLRIE). */
    if ((facts.flags & COR_PRF_MODULE_RESOURCE) ||
        FAILED(
            open_metadata(d, id, OF_READ, &IID_IMetaDataAssemblyImport, &facts.assembly_import)) ||
        FAILED(open_metadata(d, id, OF_READ, &IID_IMetaDataImport2, &facts.import))) {
        char *path = printable(&facts.path);
        CLRIE_PM_LOG_MESSAGE(d->log, "module 0x%llx (%s) has no metadata and is not tracked",
                             (unsigned long long)id, path ? path : "?");
        free(path);
        hr = S_FALSE;
        goto done;
    }
    /* Only possible now, inside the runtime's callback; winmds and some dynamic modules refuse. */
    open_metadata(d, id, OF_READ | OF_WRITE, &IID_IMetaDataEmit2, &facts.emit);
    open_metadata(d, id, OF_READ | OF_WRITE, &IID_IMetaDataAssemblyEmit, &facts.assembly_emit);

    IMetaDataImport2 *import = (IMetaDataImport2 *)(void *)facts.import;
    hr = import->lpVtbl->GetScopeProps(import, NULL, 0, NULL, &facts.mvid);
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(d->log, "module 0x%llx: IMetaDataImport::GetScopeProps failed (0x%08x)",
                           (unsigned long long)id, (unsigned)hr);
        goto done;
    }

    hr = get_assembly(d, assembly, false, &a);
    if (FAILED(hr))
        goto done;

    bool is_manifest = a->manifest_id == id || a->manifest_id == 0;
    mdAssembly token = mdTokenNil;
    DWORD assembly_flags = 0;
    ULONG public_key_size = 0;
    bool have_identity = false;
    if (is_manifest) {
        HRESULT identity = clrie_pm_assembly_read_identity(
            facts.assembly_import, &token, &assembly_flags, &public_key, &public_key_size);
        have_identity = SUCCEEDED(identity);
        if (!have_identity)
            CLRIE_PM_LOG_ERROR(d->log,
                               "assembly 0x%llx: cannot read its identity from module 0x%llx "
                               "(0x%08x); no public key or token",
                               (unsigned long long)assembly, (unsigned long long)id,
                               (unsigned)identity);
    }

    struct clrie_pm_module *fresh;
    hr = clrie_pm_module_new(d, a, &facts, &fresh);
    if (FAILED(hr))
        goto done;

    struct clrie_pm_module *loser = NULL;
    clrie_os_mutex_lock(&d->lock);
    m = clrie_pm_id_map_get(&d->module_map, id);
    if (m) {
        CLRIE_PM_ADDREF(m);
        loser = fresh;
    } else if (d->closed || !a->loaded) {
        m = fresh; /* its assembly is gone: the caller's, outside the tables */
    } else if (clrie_pm_id_map_reserve(&d->module_map) != 0 ||
               clrie_pm_ptr_list_reserve(&a->modules, 1) != 0 ||
               clrie_pm_ptr_list_reserve(&a->appdomain->modules, 1) != 0) {
        loser = fresh;
        hr = E_OUTOFMEMORY;
    } else {
        m = fresh;
        clrie_pm_id_map_put(&d->module_map, id, m);
        clrie_pm_ptr_list_append(&a->modules, m);
        clrie_pm_ptr_list_append(&a->appdomain->modules, m);
        m->loaded = true;
        CLRIE_PM_ADDREF(m);
        if (is_manifest && !a->manifest)
            a->manifest = m;
        if (have_identity && !a->have_identity) {
            a->have_identity = true;
            a->token = token;
            a->flags = assembly_flags;
            a->public_key = public_key;
            a->public_key_size = public_key_size;
            public_key = NULL;
        }
    }
    clrie_os_mutex_unlock(&d->lock);
    if (loser)
        CLRIE_PM_RELEASE(loser);
    if (SUCCEEDED(hr))
        give_to_caller(m, (void **)out);

done:
    free(public_key);
    if (a)
        CLRIE_PM_RELEASE(a);
    clrie_pm_text_finish(&facts.path);
    if (facts.import)
        facts.import->lpVtbl->Release(facts.import);
    if (facts.assembly_import)
        facts.assembly_import->lpVtbl->Release(facts.assembly_import);
    if (facts.emit)
        facts.emit->lpVtbl->Release(facts.emit);
    if (facts.assembly_emit)
        facts.assembly_emit->lpVtbl->Release(facts.assembly_emit);
    return hr;
}
