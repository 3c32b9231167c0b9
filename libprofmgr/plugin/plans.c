/* Methods chosen per module (clrie/plugin.h): what a plugin prepared while a module loaded,
 * found again by (module, token) when a method is jitted; and which modules are the shared
 * framework's. Both are only added to while their plugin object lives, so readers need no
 * lock: a plan is complete before it is published with a release store. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "clrie/plugin.h"

#include <stdlib.h>
#include <string.h>

#include "clrie/os/fs.h"

static int by_token(const void *a, const void *b)
{
    mdMethodDef x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? -1 : x > y;
}

static void plan_free(struct clrie_plugin_plan *plan)
{
    free(plan->methods);
    free(plan);
}

void *clrie_plugin_plan_add_method(struct clrie_plugin_plan *plan, mdMethodDef token)
{
    if (plan->count == plan->capacity) {
        size_t capacity = plan->capacity ? plan->capacity * 2 : 16;
        void *grown = realloc(plan->methods, capacity * plan->method_size);
        if (!grown)
            return NULL;
        plan->methods = grown;
        plan->capacity = capacity;
    }
    char *entry = (char *)plan->methods + plan->count++ * plan->method_size;
    memset(entry, 0, plan->method_size);
    memcpy(entry, &token, sizeof token);
    return entry;
}

HRESULT clrie_plugin_plans_prepare(struct clrie_plugin_plans *plans, IModuleInfo *module,
                                   size_t plan_size, size_t method_size,
                                   clrie_plugin_plan_fn prepare, void *data)
{
    if (plan_size < sizeof(struct clrie_plugin_plan) || method_size < sizeof(mdMethodDef))
        return E_INVALIDARG;
    struct clrie_plugin_plan *plan = calloc(1, plan_size);
    if (!plan)
        return E_OUTOFMEMORY;
    plan->method_size = method_size;
    HRESULT hr = module->lpVtbl->GetModuleID(module, &plan->module);
    if (SUCCEEDED(hr))
        hr = prepare(data, module, plan);
    if (FAILED(hr) || plan->count == 0) {
        plan_free(plan);
        return FAILED(hr) ? hr : S_OK;
    }
    qsort(plan->methods, plan->count, method_size, by_token);
    plan->next = __atomic_load_n(&plans->head, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&plans->head, &plan->next, plan, true, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    return S_OK;
}

const void *clrie_plugin_plans_find(const struct clrie_plugin_plans *plans, IMethodInfo *method,
                                    const struct clrie_plugin_plan **plan)
{
    ModuleID module = 0;
    mdMethodDef token = mdTokenNil;
    if (!method || FAILED(clrie_plugin_method_key(method, &module, &token)))
        return NULL;
    for (struct clrie_plugin_plan *p = __atomic_load_n(&plans->head, __ATOMIC_ACQUIRE); p;
         p = p->next) {
        if (p->module != module)
            continue;
        const void *found = bsearch(&token, p->methods, p->count, p->method_size, by_token);
        if (found) {
            if (plan)
                *plan = p;
            return found;
        }
    }
    return NULL;
}

struct selection {
    struct clrie_plugin_plan *plan;
    const struct clrie_plugin_patterns *patterns;
    clrie_plugin_plan_method_fn fill;
    void *data;
};

static HRESULT select_method(void *data, mdMethodDef token, const WCHAR *full, ULONG rva)
{
    struct selection *sel = data;
    /* rva 0: abstract, extern, runtime-implemented */
    if (rva == 0 || !clrie_plugin_patterns_match_wcs(sel->patterns, full))
        return S_OK;
    void *entry = clrie_plugin_plan_add_method(sel->plan, token);
    return entry ? sel->fill(sel->data, entry, full) : E_OUTOFMEMORY;
}

HRESULT clrie_plugin_plan_select(struct clrie_plugin_plan *plan, IMetaDataImport *import,
                                 const struct clrie_plugin_patterns *patterns,
                                 clrie_plugin_plan_method_fn fill, void *data)
{
    struct selection sel = {plan, patterns, fill, data};
    return clrie_plugin_method_defs_each(import, select_method, &sel);
}

HRESULT clrie_plugin_plans_should_instrument(const struct clrie_plugin_plans *plans,
                                             IMethodInfo *method, BOOL *instrument)
{
    if (!instrument)
        return E_POINTER;
    *instrument = clrie_plugin_plans_find(plans, method, NULL) != NULL;
    return S_OK;
}

HRESULT clrie_plugin_plans_allow_inline(const struct clrie_plugin_plans *plans,
                                        IMethodInfo *inlinee, BOOL *allow)
{
    if (!allow)
        return E_POINTER;
    *allow = clrie_plugin_plans_find(plans, inlinee, NULL) == NULL;
    return S_OK;
}

void clrie_plugin_plans_finish(struct clrie_plugin_plans *plans)
{
    for (struct clrie_plugin_plan *plan = plans->head, *next; plan; plan = next) {
        next = plan->next;
        plan_free(plan);
    }
    plans->head = NULL;
}

/* Assembly names the runtime pack ships, for a self-contained app's folder: the framework's
 * System.* and Microsoft.* assemblies and its three facades. */
static bool framework_file_name(const char *base)
{
    static const char *const facades[] = {"mscorlib.dll", "netstandard.dll", "WindowsBase.dll"};
    if (strncmp(base, "System.", 7) == 0 || strncmp(base, "Microsoft.", 10) == 0)
        return true;
    for (size_t i = 0; i < sizeof facades / sizeof facades[0]; i++)
        if (strcmp(base, facades[i]) == 0)
            return true;
    return false;
}

/* The remembered folder is stored with a leading mark: 'F' for a shared framework's own folder
 * (it holds Microsoft.NETCore.App.deps.json), 'S' for a self-contained app's, which the app's
 * own files share. */
static char *remember_folder(const char *path, size_t folder_len)
{
    static const char deps[] = CLRIE_OS_SEPARATOR_STRING "Microsoft.NETCore.App.deps.json";
    char *mark = malloc(1 + folder_len + sizeof deps);
    if (!mark)
        return NULL;
    memcpy(mark + 1, path, folder_len);
    memcpy(mark + 1 + folder_len, deps, sizeof deps);
    enum clrie_os_kind kind;
    mark[0] = clrie_os_path_kind(mark + 1, &kind) == 0 ? 'F' : 'S';
    mark[1 + folder_len] = '\0';
    return mark;
}

bool clrie_plugin_framework_has(struct clrie_plugin_framework *framework, const char *path)
{
    const char *slash = clrie_os_path_last_separator(path); /* '\\' too in Windows paths */
    const char *base = slash ? slash + 1 : path;
    size_t folder_len = slash ? (size_t)(slash - path) : 0;
    char *folder = __atomic_load_n(&framework->folder, __ATOMIC_ACQUIRE);
    if (strcmp(base, "System.Private.CoreLib.dll") == 0) {
        if (!folder && slash) {
            char *found = remember_folder(path, folder_len);
            char *none = NULL;
            if (found && !__atomic_compare_exchange_n(&framework->folder, &none, found, false,
                                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                free(found); /* another thread was first */
        }
        return true;
    }
    if (!folder || !slash || strlen(folder + 1) != folder_len ||
        strncmp(path, folder + 1, folder_len) != 0)
        return false;
    return folder[0] == 'F' || framework_file_name(base);
}

void clrie_plugin_framework_finish(struct clrie_plugin_framework *framework)
{
    free(framework->folder);
    framework->folder = NULL;
}
