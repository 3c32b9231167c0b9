/* The traced methods of every loaded module: matching the points against a module's metadata,
 * the references the wrapper calls, and the ReJIT and revert requests that put the runtime in
 * line with the points, at a module load and at a refresh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/ilgraph.h>

#include "match.h"
#include "tracer_plugin.h"

#define LIBRARY_NAME CLRIE_TRACER_LIBRARY
/* GenericParamAttributes.AllowByRefLike (ECMA-335 augments, .NET 9). */
#define ALLOW_BYREF_LIKE 0x0020u
/* How long a module load waits for the ReJIT requests of its methods. */
#define REJIT_WAIT_SECONDS 30

/* ---- the points ------------------------------------------------------------------------------ */

static void report_problem(void *data, const char *file, unsigned line, unsigned column,
                           const char *message)
{
    struct clrie_tracer__plugin *s = data;
    if (line)
        clrie_plugin_host_log(&s->host, true, "%s:%u:%u: %s", file, line, column, message);
    else
        clrie_plugin_host_log(&s->host, true, "%s: %s", file, message);
}

void clrie_tracer__read_points(struct clrie_tracer__plugin *s, struct clrie_tracer_points *points)
{
    size_t files = 0;
    if (clrie_tracer_points_load_folder(points, s->folder, report_problem, s, &files) == -ENOMEM)
        clrie_plugin_host_log(&s->host, true, "out of memory reading %s", s->folder);
    clrie_plugin_host_log(&s->host, false, "%zu points from %zu files of %s", points->count, files,
                          s->folder);
}

/* ---- matching one module ------------------------------------------------------------------------
 */

/* What match_method works with. */
struct matching {
    struct clrie_tracer__plugin *s;
    const struct clrie_tracer_points *points;
    struct clrie_tracer__module *entry;
    struct clrie_plugin_metadata md;
    struct clrie_tracer__traced *traced; /* the new set, in MethodDef order (sorted) */
    size_t count, capacity;
};

/* Whether the TypeDef derives from System.ValueType or System.Enum: its methods' `this` is a
 * byref, not an object. */
static bool is_value_type(IMetaDataImport *import, mdTypeDef type)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS];
    mdToken extends = mdTokenNil, scope = mdTokenNil;
    ULONG len = 0;
    DWORD flags = 0;
    if (FAILED(import->lpVtbl->GetTypeDefProps(import, type, name, CLRIE_PLUGIN_NAME_UNITS, &len,
                                               &flags, &extends)))
        return false;
    name[0] = 0;
    if ((extends & 0xFF000000u) == mdtTypeRef) {
        if (FAILED(import->lpVtbl->GetTypeRefProps(import, extends, &scope, name,
                                                   CLRIE_PLUGIN_NAME_UNITS, &len)))
            return false;
    } else if ((extends & 0xFF000000u) == mdtTypeDef) {
        if (FAILED(clrie_plugin_type_name(import, extends, name, CLRIE_PLUGIN_NAME_UNITS)))
            return false;
    } else {
        return false;
    }
    char utf8[64];
    clrie_plugin_bstr_to_utf8_buf(name, utf8, sizeof utf8);
    return strcmp(utf8, "System.ValueType") == 0 || strcmp(utf8, "System.Enum") == 0;
}

/* Whether a generic parameter of the method or type `owner` may be a by-ref-like type (C# 13's
 * `allows ref struct`, GenericParamAttributes.AllowByRefLike): the wrapper would box it. */
static bool allows_byref_like(IMetaDataImport *import, mdToken owner)
{
    IMetaDataImport2 *import2 = NULL;
    HCORENUM e = NULL;
    mdGenericParam params[64];
    ULONG count = 0;
    bool allows = false;
    if (FAILED(import->lpVtbl->QueryInterface(import, &IID_IMetaDataImport2, (void **)&import2)))
        return false;
    if (SUCCEEDED(import2->lpVtbl->EnumGenericParams(import2, &e, owner, params, 64, &count))) {
        for (ULONG i = 0; i < count && !allows; i++) {
            DWORD flags = 0;
            allows = SUCCEEDED(import2->lpVtbl->GetGenericParamProps(
                         import2, params[i], NULL, &flags, NULL, NULL, NULL, 0, NULL)) &&
                     (flags & ALLOW_BYREF_LIKE) != 0;
        }
    }
    import2->lpVtbl->CloseEnum(import2, e);
    import2->lpVtbl->Release(import2);
    return allows;
}

/* The token that names a value type's `this` type: the TypeDef, or for a generic type a TypeSpec
 * of it instantiated over its own parameters (GENERICINST VALUETYPE td n !0 .. !n-1). */
static HRESULT value_this_type(struct matching *m, mdTypeDef type, mdToken *out)
{
    IMetaDataImport2 *import2 = NULL;
    HCORENUM e = NULL;
    mdGenericParam params[64];
    ULONG count = 0;
    HRESULT hr = m->md.import->lpVtbl->QueryInterface(m->md.import, &IID_IMetaDataImport2,
                                                      (void **)&import2);
    if (SUCCEEDED(hr))
        hr = import2->lpVtbl->EnumGenericParams(import2, &e, type, params, 64, &count);
    if (import2) {
        import2->lpVtbl->CloseEnum(import2, e);
        import2->lpVtbl->Release(import2);
    }
    if (FAILED(hr))
        return hr;
    if (count == 0) {
        *out = type;
        return S_OK;
    }
    uint8_t sig[4 + 4 + 4 + 64 * 5];
    size_t n = 0;
    sig[n++] = CLRIE_IL_ELEMENT_TYPE_GENERICINST;
    sig[n++] = CLRIE_IL_ELEMENT_TYPE_VALUETYPE;
    int used = clrie_il_sig_write_token(type, sig + n);
    if (used < 0)
        return E_FAIL;
    n += (size_t)used;
    n += (size_t)clrie_il_sig_write_uint(count, sig + n);
    for (ULONG i = 0; i < count; i++) {
        sig[n++] = CLRIE_IL_ELEMENT_TYPE_VAR;
        n += (size_t)clrie_il_sig_write_uint(i, sig + n);
    }
    return m->md.emit->lpVtbl->GetTokenFromTypeSpec(m->md.emit, sig, (ULONG)n, out);
}

/* What the wrapper calls in [Clrie.Tracing]Clrie.Tracing.Shim (Shim.cs):
 * static int32 Needs(int32, string); static bool& Guard();
 * static object Begin(bool&, int32, object, object[]);
 * static void End(bool&, int32, object, object, object);
 * static object FinishTask(int32, object, object); static void Failed(object, int32, int32) */
static const COR_SIGNATURE needs_sig[] = {0x00, 0x02, ELEMENT_TYPE_I4, ELEMENT_TYPE_I4,
                                          ELEMENT_TYPE_STRING};
static const COR_SIGNATURE guard_sig[] = {0x00, 0x00, ELEMENT_TYPE_BYREF, ELEMENT_TYPE_BOOLEAN};
static const COR_SIGNATURE begin_sig[] = {
    0x00,           0x04,           ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_BYREF,   ELEMENT_TYPE_BOOLEAN,
    ELEMENT_TYPE_I4, ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_SZARRAY, ELEMENT_TYPE_OBJECT};
static const COR_SIGNATURE end_sig[] = {
    0x00,           0x05,           ELEMENT_TYPE_VOID,   ELEMENT_TYPE_BYREF,  ELEMENT_TYPE_BOOLEAN,
    ELEMENT_TYPE_I4, ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_OBJECT};
static const COR_SIGNATURE finish_task_sig[] = {0x00,           0x03,
                                                ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_I4,
                                                ELEMENT_TYPE_OBJECT, ELEMENT_TYPE_OBJECT};
static const COR_SIGNATURE failed_sig[] = {0x00,           0x03,
                                           ELEMENT_TYPE_VOID,   ELEMENT_TYPE_OBJECT,
                                           ELEMENT_TYPE_I4,     ELEMENT_TYPE_I4};

/* [Clrie.Tracing]Clrie.Tracing.Shim's methods and IAsyncTracer, defined in the module once. */
static HRESULT define_refs(struct matching *m)
{
    struct clrie_tracer__module *e = m->entry;
    if (e->refs_defined)
        return S_OK;
    mdAssemblyRef library =
        clrie_plugin_find_assembly_ref(m->md.assembly_import, LIBRARY_NAME, NULL);
    HRESULT hr = S_OK;
    if (library == mdTokenNil) {
        ASSEMBLYMETADATA version;
        memset(&version, 0, sizeof version);
        version.usMajorVersion = 1;
        hr = m->md.assembly_emit->lpVtbl->DefineAssemblyRef(
            m->md.assembly_emit, NULL, 0, u"" LIBRARY_NAME, &version, NULL, 0, 0, &library);
        if (FAILED(hr))
            return hr;
    }
    IMetaDataEmit *emit = m->md.emit;
    mdTypeRef shim = mdTokenNil;
    hr = emit->lpVtbl->DefineTypeRefByName(emit, library, u"Clrie.Tracing.Shim", &shim);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineTypeRefByName(emit, library, u"Clrie.Tracing.IAsyncTracer",
                                               &e->refs.async_tracer);
    if (FAILED(hr))
        return hr;
    hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"Needs", needs_sig, sizeof needs_sig,
                                       &e->refs.needs);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"Guard", guard_sig, sizeof guard_sig,
                                           &e->refs.guard);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"Begin", begin_sig, sizeof begin_sig,
                                           &e->refs.begin);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"End", end_sig, sizeof end_sig,
                                           &e->refs.end);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"FinishTask", finish_task_sig,
                                           sizeof finish_task_sig, &e->refs.finish_task);
    if (SUCCEEDED(hr))
        hr = emit->lpVtbl->DefineMemberRef(emit, shim, u"Failed", failed_sig, sizeof failed_sig,
                                           &e->refs.failed);
    e->refs_defined = SUCCEEDED(hr);
    return hr;
}

/* The text Shim.Needs gets at a method's first call: library, factory, assembly, type, method,
 * parameter types and the point's file:line, one per line (Shim.cs reads it); a new string. */
static char *point_text(const struct clrie_tracer_point *p, const char *assembly,
                        const char *parameters)
{
    char *text = NULL;
    if (asprintf(&text, "%s\n%s\n%s\n%s\n%s\n%s\n%s:%u", p->library ? p->library : "",
                 p->factory, assembly, p->type, p->method, parameters, p->file, p->line) < 0)
        return NULL;
    return text;
}

/* The number of a point text: the same for the same text, in every module and at every
 * refresh, so that Shim's table of points grows with the points, not with refreshes. Under
 * `matching`. -1 when out of memory. */
static int32_t point_id(struct clrie_tracer__plugin *s, const char *text)
{
    struct clrie_tracer__ids *ids = &s->ids;
    uint64_t hash = 1469598103934665603u; /* FNV-1a */
    for (const char *c = text; *c; c++)
        hash = (hash ^ (uint8_t)*c) * 1099511628211u;
    if (ids->count * 2 >= ids->slots) {
        size_t slots = ids->slots ? ids->slots * 2 : 256;
        struct clrie_tracer__id *grown = calloc(slots, sizeof *grown);
        if (!grown || ids->count >= INT32_MAX - 1) {
            free(grown);
            return -1;
        }
        for (size_t i = 0; i < ids->slots; i++) {
            if (!ids->table[i].text)
                continue;
            size_t at = ids->table[i].hash & (slots - 1);
            while (grown[at].text)
                at = (at + 1) & (slots - 1);
            grown[at] = ids->table[i];
        }
        free(ids->table);
        ids->table = grown;
        ids->slots = slots;
    }
    size_t at = hash & (ids->slots - 1);
    for (; ids->table[at].text; at = (at + 1) & (ids->slots - 1)) {
        if (ids->table[at].hash == hash && strcmp(ids->table[at].text, text) == 0)
            return ids->table[at].id;
    }
    char *copy = strdup(text);
    if (!copy)
        return -1;
    ids->table[at] = (struct clrie_tracer__id){.text = copy, .hash = hash,
                                               .id = (int32_t)++ids->count};
    return ids->table[at].id;
}

static HRESULT define_string(struct matching *m, const char *text, mdString *out)
{
    size_t len = strlen(text) + 4; /* wcs_append_utf8 keeps room for a surrogate pair */
    WCHAR *wide = malloc(len * sizeof *wide);
    if (!wide)
        return E_OUTOFMEMORY;
    wide[0] = 0;
    clrie_plugin_wcs_append_utf8(wide, len, text);
    HRESULT hr = m->md.emit->lpVtbl->DefineUserString(m->md.emit, wide,
                                                      (ULONG)clrie_plugin_wcs_len(wide), out);
    free(wide);
    return hr;
}

static HRESULT add_traced(struct matching *m, struct clrie_tracer_method method, char *text)
{
    if (m->count == m->capacity) {
        size_t capacity = m->capacity ? m->capacity * 2 : 16;
        struct clrie_tracer__traced *grown = realloc(m->traced, capacity * sizeof *grown);
        if (!grown) {
            free(text);
            return E_OUTOFMEMORY;
        }
        m->traced = grown;
        m->capacity = capacity;
    }
    method.id = point_id(m->s, text);
    if (method.id < 0) {
        free(text);
        return E_OUTOFMEMORY;
    }
    struct clrie_tracer__traced *t = &m->traced[m->count];
    *t = (struct clrie_tracer__traced){.method = method, .point = text};
    HRESULT hr = define_string(m, text, &t->method.point);
    if (FAILED(hr)) {
        free(text);
        return hr;
    }
    m->count++;
    return S_OK;
}

static HRESULT match_method(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    struct matching *m = data;
    if (rva == 0)
        return S_OK; /* no IL: abstract, extern or runtime-implemented */
    char name[CLRIE_PLUGIN_NAME_UNITS * 3];
    clrie_plugin_bstr_to_utf8_buf(full_name, name, sizeof name);
    char *sep = strstr(name, "::");
    if (!sep)
        return S_OK;
    *sep = '\0';
    const char *type = name, *method = sep + 2, *assembly = m->entry->assembly;

    mdTypeDef owner = mdTokenNil;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0, ignored_rva = 0, name_len = 0;
    DWORD attributes = 0, impl = 0;
    char parameters[2048];
    bool have_parameters = false;
    for (size_t i = 0; i < m->points->count; i++) {
        const struct clrie_tracer_point *p = &m->points->items[i];
        if (strcmp(p->type, type) != 0 || strcmp(p->method, method) != 0 ||
            strcasecmp(p->assembly, assembly) != 0)
            continue;
        if (!have_parameters) {
            if (FAILED(m->md.import->lpVtbl->GetMethodProps(m->md.import, token, &owner, NULL, 0,
                                                            &name_len, &attributes, &sig, &sig_len,
                                                            &ignored_rva, &impl)) ||
                clrie_tracer_parameters_text(m->md.import, sig, sig_len, parameters,
                                             sizeof parameters) != 0) {
                clrie_plugin_host_log(&m->s->host, true,
                                      "%s::%s (0x%08X): cannot read its signature; not traced",
                                      type, method, (unsigned)token);
                return S_OK;
            }
            have_parameters = true;
        }
        if (!clrie_tracer_point_matches(p, assembly, type, method, parameters))
            continue;
        /* A by-ref-like type of another assembly that has not loaded yet is looked at again
         * at the ReJIT (tracer.c). */
        enum clrie_tracer_byref_like byref_like = CLRIE_TRACER_NOT_BYREF_LIKE;
        char unknown[256];
        struct clrie_tracer__typerefs_of typerefs = {.s = m->s, .module = m->entry->module};
        if (clrie_tracer_signature_byref_like(m->md.import, sig, sig_len,
                                              clrie_tracer__typerefs_of_module, &typerefs,
                                              &byref_like, unknown, sizeof unknown) == 0 &&
            byref_like == CLRIE_TRACER_BYREF_LIKE) {
            clrie_plugin_host_log(&m->s->host, true,
                                  "%s::%s(%s): not traced: " CLRIE_TRACER__BYREF_LIKE_REASON, type,
                                  method, parameters);
            return S_OK;
        }
        if (allows_byref_like(m->md.import, token) || allows_byref_like(m->md.import, owner)) {
            clrie_plugin_host_log(&m->s->host, true,
                                  "%s::%s(%s): not traced: a generic parameter allows a "
                                  "by-ref-like type (allows ref struct), which cannot be handed "
                                  "to a tracer",
                                  type, method, parameters);
            return S_OK;
        }
        char *text = point_text(p, assembly, parameters);
        if (!text)
            return E_OUTOFMEMORY;
        mdToken value_this = mdTokenNil;
        HRESULT hr = S_OK;
        if (is_value_type(m->md.import, owner))
            hr = value_this_type(m, owner, &value_this);
        if (FAILED(hr)) {
            free(text);
            return hr;
        }
        struct clrie_tracer_method traced = {
            .token = token,
            .no_instance = strcmp(method, ".ctor") == 0,
            .returns_task = clrie_tracer_returns_task(m->md.import, sig, sig_len),
            .value_this = value_this};
        hr = add_traced(m, traced, text);
        if (FAILED(hr))
            return hr;
        clrie_plugin_host_log(&m->s->host, false, "%s: %s::%s(%s) traced by %s (%s:%u)", assembly,
                              type, method, parameters, p->factory, p->file, p->line);
        /* The first point that names a method traces it; the others are reported. */
        for (size_t j = i + 1; j < m->points->count; j++) {
            const struct clrie_tracer_point *q = &m->points->items[j];
            if (clrie_tracer_point_matches(q, assembly, type, method, parameters))
                clrie_plugin_host_log(&m->s->host, true,
                                      "%s:%u: %s::%s(%s) is traced by the point at %s:%u already; "
                                      "this one (factory %s) is ignored",
                                      q->file, q->line, type, method, parameters, p->file, p->line,
                                      q->factory);
        }
        return S_OK;
    }
    return S_OK;
}

static int by_token(const void *a, const void *b)
{
    mdMethodDef x = ((const struct clrie_tracer__traced *)a)->method.token;
    mdMethodDef y = ((const struct clrie_tracer__traced *)b)->method.token;
    return x < y ? -1 : x > y;
}

static void free_traced(struct clrie_tracer__traced *traced, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(traced[i].point);
    free(traced);
}

/* One error line for each point of the module's assembly that names none of its methods (an
 * unmatched point is never silent), with the nearest candidates: at each load of the assembly
 * and at each refresh. The decision is match.c's, which clrie-tracer-check shares. */
static void report_unmatched(struct clrie_tracer__plugin *s, const struct clrie_tracer__module *e,
                             IMetaDataImport *import, const struct clrie_tracer_points *points)
{
    size_t *counts = calloc(points->count ? points->count : 1, sizeof *counts);
    if (!counts ||
        clrie_tracer_match_module(import, e->assembly, points, counts, NULL, NULL) != 0) {
        free(counts);
        return;
    }
    for (size_t i = 0; i < points->count; i++) {
        const struct clrie_tracer_point *p = &points->items[i];
        if (counts[i] > 0 || strcasecmp(p->assembly, e->assembly) != 0)
            continue;
        char named[1024], why[2048];
        clrie_tracer_point_text(p, named, sizeof named);
        if (clrie_tracer_explain_unmatched(import, e->assembly, p, why, sizeof why) != 0)
            snprintf(why, sizeof why, "its metadata could not be read");
        clrie_plugin_host_log(&s->host, true, "%s:%u: %s matches no method of %s: %s", p->file,
                              p->line, named, e->assembly, why);
    }
    free(counts);
}

/* The module's traced methods under `points` into *traced (sorted by token), *count. */
static HRESULT match_module(struct clrie_tracer__plugin *s, struct clrie_tracer__module *e,
                            const struct clrie_tracer_points *points,
                            struct clrie_tracer__traced **traced, size_t *count)
{
    *traced = NULL;
    *count = 0;
    bool named = false;
    for (size_t i = 0; i < points->count && !named; i++)
        named = strcasecmp(points->items[i].assembly, e->assembly) == 0;
    if (!named)
        return S_OK;
    struct matching m = {.s = s, .points = points, .entry = e};
    HRESULT hr = clrie_plugin_metadata_init(&m.md, e->module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_method_defs_each(m.md.import, match_method, &m);
    if (SUCCEEDED(hr))
        report_unmatched(s, e, m.md.import, points);
    if (SUCCEEDED(hr) && m.count > 0)
        hr = define_refs(&m);
    clrie_plugin_metadata_finish(&m.md);
    if (FAILED(hr)) {
        clrie_plugin_host_log(&s->host, true, "%s: cannot match the module (hr 0x%08X)",
                              e->assembly, (unsigned)hr);
        free_traced(m.traced, m.count);
        return hr;
    }
    qsort(m.traced, m.count, sizeof *m.traced, by_token);
    *traced = m.traced;
    *count = m.count;
    return S_OK;
}

/* ---- ReJIT and revert requests ----------------------------------------------------------------
 */

/* One module's requests, made on a thread of their own (a request suspends the runtime, which
 * a thread inside a runtime callback must not do) while the caller waits. Freed by the last of
 * the two to let go. */
struct request_batch {
    atomic_int refs;
    struct clrie_tracer__plugin *s;
    IModuleInfo *module; /* one reference */
    ModuleID id;
    mdMethodDef *rejit, *revert;
    size_t rejit_count, revert_count;
    struct clrie_os_mutex lock; /* protects done */
    struct clrie_os_cond finished;
    bool done;
};

static void batch_unref(struct request_batch *b)
{
    if (atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    clrie_plugin_release(b->module);
    free(b->rejit);
    free(b->revert);
    clrie_os_cond_finish(&b->finished);
    clrie_os_mutex_finish(&b->lock);
    free(b);
}

/* The module's ReJITs in one request: each request suspends the runtime, so a module with many
 * traced methods costs one suspension, not one per method. Through the engine's
 * ICorProfilerInfo, which records the plugin as a party to each method (as
 * IModuleInfo::RequestRejit does); RequestReJITWithInliners (.NET Core 3 and later) also
 * rejits the methods that inlined one before it was traced. Without ICorProfilerInfo, one
 * IModuleInfo::RequestRejit per method. */
static void request_rejits(struct request_batch *b)
{
    struct clrie_tracer__plugin *s = b->s;
    HRESULT hr = E_NOTIMPL;
    ModuleID *ids = s->info ? calloc(b->rejit_count, sizeof *ids) : NULL;
    if (ids) {
        for (size_t i = 0; i < b->rejit_count; i++)
            ids[i] = b->id;
        ICorProfilerInfo10 *info10 = NULL;
        if (SUCCEEDED(s->info->lpVtbl->QueryInterface(s->info, &IID_ICorProfilerInfo10,
                                                      (void **)&info10))) {
            hr = info10->lpVtbl->RequestReJITWithInliners(info10, COR_PRF_REJIT_BLOCK_INLINING,
                                                          (ULONG)b->rejit_count, ids, b->rejit);
            info10->lpVtbl->Release(info10);
        }
        if (FAILED(hr))
            hr = s->info->lpVtbl->RequestReJIT(s->info, (ULONG)b->rejit_count, ids, b->rejit);
        free(ids);
        if (FAILED(hr))
            clrie_plugin_host_log(&s->host, true, "RequestReJIT of %zu methods failed (hr 0x%08X)",
                                  b->rejit_count, (unsigned)hr);
        return;
    }
    for (size_t i = 0; i < b->rejit_count; i++) {
        hr = b->module->lpVtbl->RequestRejit(b->module, b->rejit[i]);
        if (FAILED(hr))
            clrie_plugin_host_log(&s->host, true, "RequestRejit(0x%08X) failed (hr 0x%08X)",
                                  (unsigned)b->rejit[i], (unsigned)hr);
    }
}

static void make_requests(struct request_batch *b)
{
    struct clrie_tracer__plugin *s = b->s;
    if (b->revert_count > 0 && s->info) {
        ModuleID *ids = calloc(b->revert_count, sizeof *ids);
        HRESULT *status = calloc(b->revert_count, sizeof *status);
        if (ids && status) {
            for (size_t i = 0; i < b->revert_count; i++)
                ids[i] = b->id;
            HRESULT hr = s->info->lpVtbl->RequestRevert(s->info, (ULONG)b->revert_count, ids,
                                                        b->revert, status);
            if (FAILED(hr))
                clrie_plugin_host_log(&s->host, true,
                                      "RequestRevert of %zu methods failed "
                                      "(hr 0x%08X)",
                                      b->revert_count, (unsigned)hr);
        }
        free(ids);
        free(status);
    } else if (b->revert_count > 0) {
        clrie_plugin_host_log(&s->host, true,
                              "the runtime has no ICorProfilerInfo4: %zu methods "
                              "stay traced",
                              b->revert_count);
    }
    if (b->rejit_count > 0)
        request_rejits(b);
}

static void request_thread(void *arg)
{
    struct request_batch *b = arg;
    make_requests(b);
    clrie_os_mutex_lock(&b->lock);
    b->done = true;
    clrie_os_cond_signal(&b->finished);
    clrie_os_mutex_unlock(&b->lock);
    batch_unref(b);
}

/* Requests the ReJITs and reverts, on a thread of their own when `own_thread`, and waits for
 * the requests (not the compilations). Takes the two token arrays. */
static void request(struct clrie_tracer__plugin *s, IModuleInfo *module, ModuleID id,
                    const char *name, mdMethodDef *rejit, size_t rejit_count, mdMethodDef *revert,
                    size_t revert_count, bool own_thread)
{
    if (rejit_count + revert_count == 0) {
        free(rejit);
        free(revert);
        return;
    }
    struct request_batch *b = calloc(1, sizeof *b);
    if (!b) {
        free(rejit);
        free(revert);
        return;
    }
    atomic_init(&b->refs, 2);
    b->s = s;
    b->module = module;
    module->lpVtbl->AddRef(module);
    b->id = id;
    b->rejit = rejit;
    b->rejit_count = rejit_count;
    b->revert = revert;
    b->revert_count = revert_count;
    clrie_os_mutex_init(&b->lock);
    clrie_os_cond_init(&b->finished);
    if (!own_thread) {
        make_requests(b);
        atomic_store(&b->refs, 1);
        batch_unref(b);
        return;
    }
    if (clrie_os_thread_start_detached(request_thread, b) != 0) {
        clrie_plugin_host_log(&s->host, true, "%s: no thread for the ReJIT requests: not traced",
                              name);
        atomic_store(&b->refs, 1);
        batch_unref(b);
        return;
    }
    uint64_t until = clrie_os_monotonic_ms() + REJIT_WAIT_SECONDS * 1000u;
    clrie_os_mutex_lock(&b->lock);
    while (!b->done && clrie_os_cond_wait_until(&b->finished, &b->lock, until) == 0) {
    }
    bool done = b->done;
    clrie_os_mutex_unlock(&b->lock);
    if (!done)
        clrie_plugin_host_log(&s->host, true,
                              "%s: the ReJIT requests took over %d s; the module runs on and its "
                              "methods are traced once they are made",
                              name, REJIT_WAIT_SECONDS);
    batch_unref(b);
}

static mdMethodDef *tokens_of(const struct clrie_tracer__traced *traced, size_t count)
{
    mdMethodDef *tokens = malloc((count ? count : 1) * sizeof *tokens);
    for (size_t i = 0; tokens && i < count; i++)
        tokens[i] = traced[i].method.token;
    return tokens;
}

/* ---- the module list --------------------------------------------------------------------------
 */

/* What one module's refresh, or the library's arrival, asks of the runtime. */
struct change {
    IModuleInfo *module; /* one reference */
    ModuleID id;
    char name[256];
    mdMethodDef *rejit, *revert;
    size_t rejit_count, revert_count;
};

/* Whether the loaded Clrie.Tracing defines what the wrapper calls: a copy older than the
 * plugin (the startup hook naming another install's) binds by name all the same (1.0.0.0), and
 * every wrapped method would then throw MissingMethodException in the app. */
static bool library_usable(struct clrie_tracer__plugin *s, IModuleInfo *module)
{
    static const struct {
        const WCHAR *name;
        const char *text;
        const COR_SIGNATURE *sig;
        ULONG len;
    } wanted[] = {{u"Needs", "Clrie.Tracing.Shim.Needs(int, string)", needs_sig, sizeof needs_sig},
                  {u"Guard", "Clrie.Tracing.Shim.Guard()", guard_sig, sizeof guard_sig},
                  {u"Begin", "Clrie.Tracing.Shim.Begin(ref bool, int, object, object[])",
                   begin_sig, sizeof begin_sig},
                  {u"End", "Clrie.Tracing.Shim.End(ref bool, int, object, object, object)",
                   end_sig, sizeof end_sig},
                  {u"FinishTask", "Clrie.Tracing.Shim.FinishTask(int, object, object)",
                   finish_task_sig, sizeof finish_task_sig},
                  {u"Failed", "Clrie.Tracing.Shim.Failed(object, int, int)", failed_sig,
                   sizeof failed_sig}};
    IMetaDataImport *import = NULL;
    mdTypeDef shim = mdTokenNil, async_tracer = mdTokenNil;
    const char *missing = "Clrie.Tracing.Shim";
    if (SUCCEEDED(clrie_plugin_module_metadata(module, &IID_IMetaDataImport, (void **)&import)) &&
        SUCCEEDED(import->lpVtbl->FindTypeDefByName(import, u"Clrie.Tracing.Shim", mdTokenNil,
                                                     &shim))) {
        missing = NULL;
        for (size_t i = 0; i < sizeof wanted / sizeof wanted[0] && !missing; i++) {
            mdMethodDef found = mdTokenNil;
            if (FAILED(import->lpVtbl->FindMethod(import, shim, wanted[i].name, wanted[i].sig,
                                                  wanted[i].len, &found)))
                missing = wanted[i].text;
        }
        if (!missing && FAILED(import->lpVtbl->FindTypeDefByName(
                            import, u"Clrie.Tracing.IAsyncTracer", mdTokenNil, &async_tracer)))
            missing = "Clrie.Tracing.IAsyncTracer";
    }
    clrie_plugin_release(import);
    if (!missing)
        return true;
    BSTR path = NULL;
    char *where = clrie_plugin_host_take_utf8(&s->host, module->lpVtbl->GetFullPath(module, &path),
                                              &path);
    clrie_plugin_host_log(&s->host, true,
                          "%s is not the " LIBRARY_NAME " this plugin calls (%s is missing: a "
                          "copy from an older clrie?): nothing is traced; name the Clrie.Tracing.dll "
                          "installed beside the plugin in DOTNET_STARTUP_HOOKS",
                          where ? where : LIBRARY_NAME, missing);
    free(where);
    return false;
}

/* The library has loaded (the startup hook runs before Main, but the framework's first modules
 * load before it): the traced methods of the modules loaded so far are rejitted now. */
static void library_arrived(struct clrie_tracer__plugin *s)
{
    clrie_os_mutex_lock(&s->matching);
    s->library_loaded = true;
    size_t n = 0;
    for (struct clrie_tracer__module *e = s->modules; e; e = e->next)
        n += e->count > 0;
    struct change *changes = calloc(n ? n : 1, sizeof *changes);
    size_t made = 0;
    for (struct clrie_tracer__module *e = s->modules; changes && e; e = e->next) {
        if (e->count == 0)
            continue;
        struct change *c = &changes[made];
        c->rejit = tokens_of(e->traced, e->count);
        if (!c->rejit)
            continue;
        c->rejit_count = e->count;
        c->module = e->module;
        c->module->lpVtbl->AddRef(c->module);
        c->id = e->id;
        snprintf(c->name, sizeof c->name, "%s", e->assembly);
        made++;
    }
    clrie_os_mutex_unlock(&s->matching);
    clrie_plugin_host_log(&s->host, false,
                          LIBRARY_NAME " loaded: the traced methods of %zu modules loaded before "
                                       "it are rejitted",
                          made);
    for (size_t i = 0; i < made; i++) {
        struct change *c = &changes[i];
        request(s, c->module, c->id, c->name, c->rejit, c->rejit_count, NULL, 0, true);
        clrie_plugin_release(c->module);
    }
    free(changes);
}

/* Remembers that an assembly of this name has loaded (under `matching`), for the points listed
 * at shutdown as never loaded. */
static void note_assembly(struct clrie_tracer__plugin *s, const char *name)
{
    for (size_t i = 0; i < s->seen_count; i++)
        if (strcasecmp(s->seen[i], name) == 0)
            return;
    if (s->seen_count == s->seen_capacity) {
        size_t capacity = s->seen_capacity ? s->seen_capacity * 2 : 64;
        char **grown = realloc(s->seen, capacity * sizeof *grown);
        if (!grown)
            return;
        s->seen = grown;
        s->seen_capacity = capacity;
    }
    char *copy = strdup(name);
    if (copy)
        s->seen[s->seen_count++] = copy;
}

void clrie_tracer__report_never_loaded(struct clrie_tracer__plugin *s)
{
    clrie_os_mutex_lock(&s->matching);
    for (size_t i = 0; i < s->points.count; i++) {
        const struct clrie_tracer_point *p = &s->points.items[i];
        bool seen = false;
        for (size_t j = 0; j < s->seen_count && !seen; j++)
            seen = strcasecmp(s->seen[j], p->assembly) == 0;
        if (seen)
            continue;
        char named[1024];
        clrie_tracer_point_text(p, named, sizeof named);
        clrie_plugin_host_log(&s->host, false,
                              "%s:%u: %s was never traced: the assembly %s never loaded", p->file,
                              p->line, named, p->assembly);
    }
    clrie_os_mutex_unlock(&s->matching);
}

/* The points that name the tracer library itself, which is never traced (its methods run
 * inside every traced call): each an error line when it loads. Under `matching`. */
static void report_library_points(struct clrie_tracer__plugin *s)
{
    for (size_t i = 0; i < s->points.count; i++) {
        const struct clrie_tracer_point *p = &s->points.items[i];
        if (strcasecmp(p->assembly, LIBRARY_NAME) != 0)
            continue;
        char named[1024];
        clrie_tracer_point_text(p, named, sizeof named);
        clrie_plugin_host_log(&s->host, true,
                              "%s:%u: %s is never traced: " LIBRARY_NAME " is the tracer library",
                              p->file, p->line, named);
    }
}

void clrie_tracer__module_loaded(struct clrie_tracer__plugin *s, IModuleInfo *module)
{
    ModuleID id = 0;
    IAssemblyInfo *assembly = NULL;
    BSTR text = NULL;
    char *name = NULL;
    if (FAILED(module->lpVtbl->GetModuleID(module, &id)))
        return;
    if (SUCCEEDED(module->lpVtbl->GetAssemblyInfo(module, &assembly)) && assembly)
        name = clrie_plugin_host_take_utf8(&s->host, assembly->lpVtbl->GetName(assembly, &text),
                                           &text);
    clrie_plugin_release(assembly);
    if (name) {
        clrie_os_mutex_lock(&s->matching);
        note_assembly(s, name);
        if (strcasecmp(name, LIBRARY_NAME) == 0)
            report_library_points(s);
        clrie_os_mutex_unlock(&s->matching);
    }
    if (name && strcasecmp(name, LIBRARY_NAME) == 0) {
        free(name);
        if (library_usable(s, module))
            library_arrived(s);
        else
            atomic_store(&s->library_unusable, true);
        return;
    }
    if (!name)
        return;
    struct clrie_tracer__module *e = calloc(1, sizeof *e);
    if (!e) {
        free(name);
        return;
    }
    e->id = id;
    e->module = module;
    module->lpVtbl->AddRef(module);
    e->assembly = name;

    clrie_os_mutex_lock(&s->matching);
    match_module(s, e, &s->points, &e->traced, &e->count);
    clrie_os_rwlock_write_lock(&s->lock);
    e->next = s->modules;
    s->modules = e;
    atomic_fetch_add(&s->traced_total, e->count);
    clrie_os_rwlock_write_unlock(&s->lock);
    /* Before the library is loaded a wrapped method could not be compiled (its call into the
     * library would fail, in the app): library_arrived() asks for these ReJITs then. */
    bool now = s->library_loaded;
    mdMethodDef *rejit = now && e->count ? tokens_of(e->traced, e->count) : NULL;
    size_t count = rejit ? e->count : 0;
    clrie_os_mutex_unlock(&s->matching);
    if (!now && e->count > 0 && !atomic_load(&s->library_unusable))
        clrie_plugin_host_log(&s->host, false,
                              "%s: loaded before " LIBRARY_NAME ": its %zu traced methods are "
                              "rejitted once the library is loaded",
                              name, e->count);
    request(s, module, id, name, rejit, count, NULL, 0, true);
}

static void module_free(struct clrie_tracer__module *e)
{
    clrie_plugin_release(e->module);
    free(e->assembly);
    free_traced(e->traced, e->count);
    free(e);
}

void clrie_tracer__module_unloaded(struct clrie_tracer__plugin *s, ModuleID id)
{
    clrie_os_mutex_lock(&s->matching);
    clrie_os_rwlock_write_lock(&s->lock);
    struct clrie_tracer__module **at = &s->modules, *gone = NULL;
    while (*at && (*at)->id != id)
        at = &(*at)->next;
    if (*at) {
        gone = *at;
        *at = gone->next;
        atomic_fetch_sub(&s->traced_total, gone->count);
    }
    clrie_os_rwlock_write_unlock(&s->lock);
    clrie_os_mutex_unlock(&s->matching);
    if (gone)
        module_free(gone);
}

bool clrie_tracer__find(struct clrie_tracer__plugin *s, ModuleID id, mdMethodDef token,
                        struct clrie_tracer_method *method, struct clrie_tracer_refs *refs)
{
    bool found = false;
    if (atomic_load(&s->traced_total) == 0)
        return false;
    clrie_os_rwlock_read_lock(&s->lock);
    const struct clrie_tracer__module *e = s->modules;
    while (e && e->id != id)
        e = e->next;
    if (e && e->count > 0) {
        struct clrie_tracer__traced key = {.method = {.token = token}};
        const struct clrie_tracer__traced *t =
            bsearch(&key, e->traced, e->count, sizeof *e->traced, by_token);
        if (t) {
            if (method)
                *method = t->method;
            if (refs)
                *refs = e->refs;
            found = true;
        }
    }
    clrie_os_rwlock_read_unlock(&s->lock);
    return found;
}

void clrie_tracer__refresh(struct clrie_tracer__plugin *s)
{
    struct clrie_tracer_points points = {0};
    clrie_tracer__read_points(s, &points);
    clrie_os_mutex_lock(&s->matching);
    size_t modules = 0;
    for (struct clrie_tracer__module *e = s->modules; e; e = e->next)
        modules++;
    struct change *changes = calloc(modules ? modules : 1, sizeof *changes);
    if (!changes) {
        clrie_os_mutex_unlock(&s->matching);
        clrie_tracer_points_finish(&points);
        return;
    }
    size_t n = 0, rejits = 0, reverts = 0;
    for (struct clrie_tracer__module *e = s->modules; e; e = e->next) {
        struct clrie_tracer__traced *traced = NULL;
        size_t count = 0;
        if (FAILED(match_module(s, e, &points, &traced, &count)))
            continue; /* the module keeps what it had */
        struct change *c = &changes[n++];
        c->module = e->module;
        c->id = e->id;
        snprintf(c->name, sizeof c->name, "%s", e->assembly);
        c->rejit = malloc((count ? count : 1) * sizeof *c->rejit);
        c->revert = malloc((e->count ? e->count : 1) * sizeof *c->revert);
        if (!c->rejit || !c->revert) {
            c->module = NULL;
            free(c->rejit);
            free(c->revert);
            free_traced(traced, count);
            n--;
            continue;
        }
        /* both sorted by token: a merge */
        size_t i = 0, j = 0;
        while (i < e->count || j < count) {
            mdMethodDef old = i < e->count ? e->traced[i].method.token : 0xFFFFFFFFu;
            mdMethodDef now = j < count ? traced[j].method.token : 0xFFFFFFFFu;
            if (old < now) {
                c->revert[c->revert_count++] = old;
                i++;
            } else if (now < old) {
                c->rejit[c->rejit_count++] = now;
                j++;
            } else {
                if (strcmp(e->traced[i].point, traced[j].point) != 0)
                    c->rejit[c->rejit_count++] = now;
                i++;
                j++;
            }
        }
        c->module->lpVtbl->AddRef(c->module);
        rejits += c->rejit_count;
        reverts += c->revert_count;
        clrie_os_rwlock_write_lock(&s->lock);
        struct clrie_tracer__traced *old_traced = e->traced;
        size_t old_count = e->count;
        e->traced = traced;
        e->count = count;
        atomic_fetch_add(&s->traced_total, count);
        atomic_fetch_sub(&s->traced_total, old_count);
        clrie_os_rwlock_write_unlock(&s->lock);
        free_traced(old_traced, old_count);
    }
    clrie_os_rwlock_write_lock(&s->lock);
    struct clrie_tracer_points old = s->points;
    s->points = points;
    clrie_os_rwlock_write_unlock(&s->lock);
    clrie_tracer_points_finish(&old);
    bool now = s->library_loaded; /* before, nothing is rejitted yet: its arrival does it */
    clrie_os_mutex_unlock(&s->matching);
    /* This is the refresh thread, never inside a runtime callback: the requests are made here. */
    for (size_t i = 0; i < n; i++) {
        struct change *c = &changes[i];
        if (now) {
            request(s, c->module, c->id, c->name, c->rejit, c->rejit_count, c->revert,
                    c->revert_count, false);
        } else {
            free(c->rejit);
            free(c->revert);
        }
        clrie_plugin_release(c->module);
    }
    free(changes);
    clrie_plugin_host_log(&s->host, false, "refreshed: %zu methods rejitted, %zu reverted", rejits,
                          reverts);
}

void clrie_tracer__modules_finish(struct clrie_tracer__plugin *s)
{
    struct clrie_tracer__module *e = s->modules;
    while (e) {
        struct clrie_tracer__module *next = e->next;
        module_free(e);
        e = next;
    }
    s->modules = NULL;
    for (size_t i = 0; i < s->ids.slots; i++)
        free(s->ids.table[i].text);
    free(s->ids.table);
    s->ids = (struct clrie_tracer__ids){0};
    for (size_t i = 0; i < s->seen_count; i++)
        free(s->seen[i]);
    free(s->seen);
    s->seen = NULL;
    s->seen_count = s->seen_capacity = 0;
}
