/* What a module remembers about its methods for the JIT pipeline: the original IL (every ReJIT
 * starts from it), the ReJIT count, the outcome and IL map (packed) of the last instrumentation
 * (for IMethodJitInfo), and the inline sites the JIT accepted (IModuleInfo::RequestRejit also
 * rejits the callers a method was inlined into, so they pick up its new code).
 *
 * Records are created on first need and freed with the module. methods_lock is held only
 * while a record is read or changed: never while calling the runtime. */
#include "domains_private.h"

#include <stdlib.h>
#include <string.h>

struct inline_caller {
    ModuleID module;
    mdMethodDef token;
};

/* One per method the engine prepared IL for, so its fields are ordered to pack: 56 bytes. */
struct clrie_pm_method_record {
    LPCBYTE original_il; /* NULL until the runtime was asked */
    uint8_t *map;        /* the IL map, packed (pack_map); NULL when empty */
    struct inline_caller *callers;
    ULONG original_size;
    DWORD rejit_count;
    ULONG map_count;
    uint32_t map_bytes;
    uint32_t caller_count, caller_capacity;
    unsigned reverted; /* CLRIE_PM_REJIT_* parties out of the method's ReJITs */
    bool transformed;
};
_Static_assert(sizeof(struct clrie_pm_method_record) <= 56, "a method record packs");

/* ---- IL maps, packed ----
 *
 * A recorded map stays until the method is compiled again, for every instrumented method, so
 * it is kept packed: each entry as the change of its old offset from the entry before, zigzag
 * encoded, shifted left once with fAccurate in the low bit, then the change of its new offset,
 * zigzag encoded, each as a LEB128 varint. Instructions are a few bytes long, so an entry of a
 * real map takes about two bytes instead of a COR_IL_MAP's twelve. */

static uint64_t zigzag(uint32_t now, uint32_t before)
{
    int64_t d = (int64_t)now - (int64_t)before;
    return d < 0 ? ((uint64_t)(-(d + 1)) << 1) | 1u : (uint64_t)d << 1;
}

static uint32_t unzigzag(uint64_t z, uint32_t before)
{
    int64_t d = z & 1u ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
    return (uint32_t)((int64_t)before + d);
}

/* Bytes of v as a varint; writes them at p unless p is NULL. */
static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t byte = (uint8_t)(v & 0x7Fu);
        v >>= 7;
        if (p)
            p[n] = byte | (v ? 0x80u : 0u);
        n++;
    } while (v);
    return n;
}

static uint64_t get_varint(const uint8_t **p)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t byte;
    do {
        byte = *(*p)++;
        v |= (uint64_t)(byte & 0x7Fu) << shift;
        shift += 7;
    } while (byte & 0x80u);
    return v;
}

/* Packs map (count entries) into out (NULL: only counts); returns the bytes it takes. */
static size_t pack_map(uint8_t *out, const COR_IL_MAP *map, ULONG count)
{
    size_t n = 0;
    uint32_t old = 0, now = 0;
    for (ULONG i = 0; i < count; i++) {
        n += put_varint(out ? out + n : NULL,
                        zigzag(map[i].oldOffset, old) << 1 | (map[i].fAccurate ? 1u : 0u));
        n += put_varint(out ? out + n : NULL, zigzag(map[i].newOffset, now));
        old = map[i].oldOffset;
        now = map[i].newOffset;
    }
    return n;
}

/* The first count entries of a packed map. */
static void unpack_map(const uint8_t *p, COR_IL_MAP *map, ULONG count)
{
    uint32_t old = 0, now = 0;
    for (ULONG i = 0; i < count; i++) {
        uint64_t a = get_varint(&p);
        old = unzigzag(a >> 1, old);
        now = unzigzag(get_varint(&p), now);
        map[i] = (COR_IL_MAP){old, now, (a & 1u) ? TRUE : FALSE};
    }
}

/* Longest chain of callers RequestRejit follows (A inlined into B inlined into C ...), and the
 * most methods one request names. */
#define MAX_REJIT_METHODS 4096

static bool is_method_def(mdToken token)
{
    return (token & 0xFF000000u) == mdtMethodDef && (token & 0x00FFFFFFu) != 0;
}

static struct clrie_pm_module *module_of(IModuleInfo *module)
{
    return (struct clrie_pm_module *)(void *)module;
}

/* The record of token, created if absent; NULL when out of memory. Call with methods_lock. */
static struct clrie_pm_method_record *record_locked(struct clrie_pm_module *m, mdMethodDef token)
{
    struct clrie_pm_method_record *r = clrie_pm_id_map_get(&m->methods, token);
    if (r)
        return r;
    r = calloc(1, sizeof(*r));
    if (!r || clrie_pm_id_map_reserve(&m->methods) != 0) {
        free(r);
        return NULL;
    }
    clrie_pm_id_map_put(&m->methods, token, r);
    return r;
}

void clrie_pm_module_methods_finish(struct clrie_pm_module *m)
{
    for (size_t i = 0; i < m->methods.capacity; i++) {
        struct clrie_pm_method_record *r = m->methods.slots[i].value;
        if (m->methods.slots[i].id && r) {
            free(r->map);
            free(r->callers);
            free(r);
        }
    }
    clrie_pm_id_map_finish(&m->methods);
    clrie_os_mutex_finish(&m->methods_lock);
}

HRESULT clrie_pm_module_original_il(IModuleInfo *module, mdMethodDef token, LPCBYTE *body,
                                    ULONG *size)
{
    struct clrie_pm_module *m = module_of(module);
    if (!is_method_def(token))
        return E_INVALIDARG;
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = record_locked(m, token);
    LPCBYTE known = r ? r->original_il : NULL;
    ULONG known_size = r ? r->original_size : 0;
    clrie_os_mutex_unlock(&m->methods_lock);
    if (!r)
        return E_OUTOFMEMORY;
    if (known) {
        *body = known;
        *size = known_size;
        return S_OK;
    }

    LPCBYTE fresh = NULL;
    ULONG fresh_size = 0;
    ICorProfilerInfo3 *info = m->domains->info;
    HRESULT hr = info->lpVtbl->GetILFunctionBody(info, m->id, token, &fresh, &fresh_size);
    if (FAILED(hr))
        return hr;
    if (!fresh || fresh_size == 0)
        return CORPROF_E_FUNCTION_NOT_IL;

    /* Two threads may ask at once; the first answer stays (both came before any rewrite). */
    clrie_os_mutex_lock(&m->methods_lock);
    if (!r->original_il) {
        r->original_il = fresh;
        r->original_size = fresh_size;
    }
    *body = r->original_il;
    *size = r->original_size;
    clrie_os_mutex_unlock(&m->methods_lock);
    return S_OK;
}

DWORD clrie_pm_module_next_rejit(IModuleInfo *module, mdMethodDef token)
{
    struct clrie_pm_module *m = module_of(module);
    DWORD count = 0;
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = record_locked(m, token);
    if (r)
        count = ++r->rejit_count;
    clrie_os_mutex_unlock(&m->methods_lock);
    return count;
}

HRESULT clrie_pm_module_record_il_map(IModuleInfo *module, mdMethodDef token, bool transformed,
                                      const COR_IL_MAP *map, ULONG count)
{
    struct clrie_pm_module *m = module_of(module);
    uint8_t *copy = NULL;
    size_t bytes = count ? pack_map(NULL, map, count) : 0;
    if (bytes > UINT32_MAX)
        return E_OUTOFMEMORY;
    if (count) {
        copy = malloc(bytes);
        if (!copy)
            return E_OUTOFMEMORY;
        pack_map(copy, map, count);
    }
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = record_locked(m, token);
    uint8_t *old = NULL;
    if (r) {
        old = r->map;
        r->map = copy;
        r->map_count = count;
        r->map_bytes = (uint32_t)bytes;
        r->transformed = transformed;
        copy = NULL;
    }
    clrie_os_mutex_unlock(&m->methods_lock);
    free(old);
    free(copy);
    return r ? S_OK : E_OUTOFMEMORY;
}

HRESULT clrie_pm_module_il_map(IModuleInfo *module, mdMethodDef token, ULONG32 cap, COR_IL_MAP *map,
                               ULONG32 *needed, BOOL *transformed)
{
    struct clrie_pm_module *m = module_of(module);
    HRESULT hr = S_FALSE;
    *needed = 0;
    *transformed = FALSE;
    clrie_os_mutex_lock(&m->methods_lock);
    const struct clrie_pm_method_record *r = clrie_pm_id_map_get(&m->methods, token);
    if (r && (r->transformed || r->map_count)) {
        *needed = r->map_count;
        *transformed = r->transformed;
        if (map)
            unpack_map(r->map, map, r->map_count < cap ? r->map_count : cap);
        hr = S_OK;
    }
    clrie_os_mutex_unlock(&m->methods_lock);
    return hr;
}

HRESULT clrie_pm_module_add_inline_site(IModuleInfo *module, mdMethodDef token,
                                        ModuleID caller_module, mdMethodDef caller)
{
    struct clrie_pm_module *m = module_of(module);
    HRESULT hr = S_OK;
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = record_locked(m, token);
    if (!r) {
        hr = E_OUTOFMEMORY;
        goto out;
    }
    for (size_t i = 0; i < r->caller_count; i++)
        if (r->callers[i].module == caller_module && r->callers[i].token == caller)
            goto out;
    if (r->caller_count == r->caller_capacity) {
        if (r->caller_capacity > UINT32_MAX / 2) {
            hr = E_OUTOFMEMORY;
            goto out;
        }
        uint32_t capacity = r->caller_capacity ? r->caller_capacity * 2 : 4;
        struct inline_caller *grown = realloc(r->callers, capacity * sizeof(*grown));
        if (!grown) {
            hr = E_OUTOFMEMORY;
            goto out;
        }
        r->callers = grown;
        r->caller_capacity = capacity;
    }
    r->callers[r->caller_count++] = (struct inline_caller){caller_module, caller};
out:
    clrie_os_mutex_unlock(&m->methods_lock);
    return hr;
}

/* The methods one rejit request names: the method, then breadth first every caller it was
 * inlined into, and theirs, once each. */
struct rejit_set {
    ModuleID modules[MAX_REJIT_METHODS];
    mdMethodDef tokens[MAX_REJIT_METHODS];
    ULONG count;
};

static bool rejit_set_add(struct rejit_set *set, ModuleID module, mdMethodDef token)
{
    for (ULONG i = 0; i < set->count; i++)
        if (set->modules[i] == module && set->tokens[i] == token)
            return true;
    if (set->count == MAX_REJIT_METHODS)
        return false;
    set->modules[set->count] = module;
    set->tokens[set->count] = token;
    set->count++;
    return true;
}

static void add_callers(struct clrie_pm_domains *d, struct rejit_set *set, ULONG index)
{
    struct clrie_pm_module *m = clrie_pm_domains_find(d, &d->module_map, set->modules[index]);
    if (!m)
        return; /* unloaded since */
    clrie_os_mutex_lock(&m->methods_lock);
    const struct clrie_pm_method_record *r = clrie_pm_id_map_get(&m->methods, set->tokens[index]);
    for (size_t i = 0; r && i < r->caller_count; i++)
        if (!rejit_set_add(set, r->callers[i].module, r->callers[i].token))
            break;
    clrie_os_mutex_unlock(&m->methods_lock);
    CLRIE_PM_RELEASE(m);
}

unsigned clrie_pm_module_rejit_parties(IModuleInfo *module, mdMethodDef token)
{
    struct clrie_pm_module *m = module_of(module);
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = clrie_pm_id_map_get(&m->methods, token);
    unsigned parties = CLRIE_PM_REJIT_ALL & ~(r ? r->reverted : 0u);
    clrie_os_mutex_unlock(&m->methods_lock);
    return parties;
}

unsigned clrie_pm_module_set_rejit_party(IModuleInfo *module, mdMethodDef token, unsigned party,
                                         bool in)
{
    struct clrie_pm_module *m = module_of(module);
    unsigned parties = CLRIE_PM_REJIT_ALL;
    clrie_os_mutex_lock(&m->methods_lock);
    struct clrie_pm_method_record *r = is_method_def(token) ? record_locked(m, token) : NULL;
    if (r) {
        r->reverted = in ? r->reverted & ~party : r->reverted | party;
        parties = CLRIE_PM_REJIT_ALL & ~r->reverted;
    }
    clrie_os_mutex_unlock(&m->methods_lock);
    return parties;
}

HRESULT clrie_pm_module_request_rejit(struct clrie_pm_module *m, mdToken token)
{
    if (!is_method_def(token))
        return E_INVALIDARG;
    clrie_pm_module_set_rejit_party((IModuleInfo *)(void *)m, token, CLRIE_PM_REJIT_PLUGINS, true);
    struct rejit_set *set = malloc(sizeof(*set));
    if (!set)
        return E_OUTOFMEMORY;
    set->count = 0;
    rejit_set_add(set, m->id, token);
    for (ULONG i = 0; i < set->count; i++)
        add_callers(m->domains, set, i);

    /* The runtime's own inliner tracking (ICorProfilerInfo10) covers inlining it did before
     * the engine saw it; where it is off or absent, the recorded sites do the job. */
    IUnknown *info = (IUnknown *)(void *)m->domains->info;
    HRESULT hr = E_NOINTERFACE;
    ICorProfilerInfo10 *info10 = NULL;
    if (SUCCEEDED(info->lpVtbl->QueryInterface(info, &IID_ICorProfilerInfo10, (void **)&info10))) {
        hr = info10->lpVtbl->RequestReJITWithInliners(info10, COR_PRF_REJIT_BLOCK_INLINING,
                                                      set->count, set->modules, set->tokens);
        info10->lpVtbl->Release(info10);
    }
    if (FAILED(hr)) {
        ICorProfilerInfo4 *info4 = NULL;
        hr = info->lpVtbl->QueryInterface(info, &IID_ICorProfilerInfo4, (void **)&info4);
        if (SUCCEEDED(hr)) {
            hr = info4->lpVtbl->RequestReJIT(info4, set->count, set->modules, set->tokens);
            info4->lpVtbl->Release(info4);
        }
    }
    if (FAILED(hr))
        CLRIE_PM_LOG_ERROR(m->domains->log,
                           "RequestRejit of method 0x%08X in module 0x%llx failed (hr 0x%08X)",
                           (unsigned)token, (unsigned long long)m->id, (unsigned)hr);
    free(set);
    return hr;
}

/* Every module known now, each held (released by the caller), so that their records can be
 * read one module at a time without the domains' lock: the two locks are never nested.
 * *held is how many; NULL (and 0) when out of memory. */
static struct clrie_pm_module **hold_modules(struct clrie_pm_domains *domains, size_t *held)
{
    clrie_os_mutex_lock(&domains->lock);
    size_t count = 0;
    for (size_t i = 0; i < domains->module_map.capacity; i++)
        count += domains->module_map.slots[i].id && domains->module_map.slots[i].value;
    struct clrie_pm_module **list = calloc(count ? count : 1, sizeof(*list));
    *held = 0;
    for (size_t i = 0; list && i < domains->module_map.capacity; i++) {
        struct clrie_pm_module *m = domains->module_map.slots[i].value;
        if (domains->module_map.slots[i].id && m) {
            clrie_plugin_com_add_ref(&m->com);
            list[(*held)++] = m;
        }
    }
    clrie_os_mutex_unlock(&domains->lock);
    return list;
}

size_t clrie_pm_domains_transformed_methods(struct clrie_pm_domains *domains, ModuleID *modules,
                                            mdMethodDef *tokens, size_t cap)
{
    size_t held = 0;
    struct clrie_pm_module **list = hold_modules(domains, &held);
    size_t n = 0;
    for (size_t i = 0; i < held; i++) {
        struct clrie_pm_module *m = list[i];
        clrie_os_mutex_lock(&m->methods_lock);
        for (size_t k = 0; k < m->methods.capacity; k++) {
            struct clrie_pm_method_record *r = m->methods.slots[k].value;
            if (!m->methods.slots[k].id || !r || !r->transformed)
                continue;
            if (n < cap) {
                modules[n] = m->id;
                tokens[n] = (mdMethodDef)m->methods.slots[k].id;
            }
            n++;
        }
        clrie_os_mutex_unlock(&m->methods_lock);
        CLRIE_PM_RELEASE(m);
    }
    free(list);
    return n;
}

void clrie_pm_domains_methods_memory(struct clrie_pm_domains *domains,
                                     struct clrie_pm_methods_memory *out)
{
    *out = (struct clrie_pm_methods_memory){0};
    size_t held = 0;
    struct clrie_pm_module **list = hold_modules(domains, &held);
    for (size_t i = 0; i < held; i++) {
        struct clrie_pm_module *m = list[i];
        clrie_os_mutex_lock(&m->methods_lock);
        out->table_bytes += m->methods.capacity * sizeof(m->methods.slots[0]);
        for (size_t k = 0; k < m->methods.capacity; k++) {
            const struct clrie_pm_method_record *r = m->methods.slots[k].value;
            if (!m->methods.slots[k].id || !r)
                continue;
            out->methods++;
            out->transformed += r->transformed;
            out->record_bytes += sizeof(*r);
            out->map_entries += r->map_count;
            out->map_bytes += r->map_bytes;
            out->caller_bytes += r->caller_capacity * sizeof(r->callers[0]);
        }
        clrie_os_mutex_unlock(&m->methods_lock);
        CLRIE_PM_RELEASE(m);
    }
    free(list);
}
