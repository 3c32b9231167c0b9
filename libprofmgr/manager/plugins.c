/* Loading plugins: from the configuration the environment names (libconfig), or one at a time
 * through IProfilerManager::AddInstrumentationMethod. A plugin that fails at any step is
 * skipped with one error line naming it, the step and the reason; the others load. Every
 * module passes libconfig's module check (a complete image of this machine, and the trust
 * rule) before it is loaded; a ClassGuid loads once. Plugin libraries are never unloaded:
 * a plugin may have left threads or callbacks behind. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/config.h"
#include "clrie/os/module.h"
#include "crash.h"
#include "env.h"
#include "manager.h"

/* libconfig's GUIDs are converted by copying: the layouts must be the same. */
_Static_assert(sizeof(struct clrie_config_guid) == sizeof(GUID) &&
                   offsetof(struct clrie_config_guid, data2) == offsetof(GUID, Data2) &&
                   offsetof(struct clrie_config_guid, data3) == offsetof(GUID, Data3) &&
                   offsetof(struct clrie_config_guid, data4) == offsetof(GUID, Data4),
               "libconfig's GUID layout is the ABI's");

typedef LPFNGETCLASSOBJECT get_class_object_fn;

/* A module's function as its type, and as the address the crash handler files it under. */
union symbol {
    clrie_os_function function;
    get_class_object_fn get_class_object;
    void *object;
};

static struct plugin *plugin_new(struct manager *m, const char *name, const char *module_path,
                                 const GUID *clsid, uint64_t order,
                                 const struct clrie_config_setting *settings, size_t setting_count)
{
    struct plugin *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->name = strdup(name);
    p->module_path = strdup(module_path);
    struct settings *table = NULL;
    if (!p->name || !p->module_path ||
        FAILED(clrie_pm__settings_new(settings, setting_count, &table))) {
        free(p->name);
        free(p->module_path);
        free(p);
        return NULL;
    }
    p->clsid = *clsid;
    p->order = order;
    clrie_config_guid_format((const struct clrie_config_guid *)(const void *)clsid, p->guid_text);
    memcpy(p->guid36, p->guid_text + 1, 36);
    p->guid36[36] = '\0';
    m->init_host(&p->host, m, p->guid36);
    clrie_pm__attach_context_set_settings(&p->host.attach, table);
    p->next_allocated = m->all_plugins;
    m->all_plugins = p;
    return p;
}

unsigned clrie_pm__plugins_module_checks(struct manager *m)
{
    int state = atomic_load(&m->trust_rule);
    if (state == 0) {
        const char *disable =
            clrie_pm_env_lookup(clrie_pm_env_engine(), CLRIE_CONFIG_ENV_DISABLE_TRUST);
        int wanted = disable && !strcmp(disable, "1") ? 2 : 1;
        /* A message, not an error: it is set on purpose (Microsoft's coverage collector sets
         * it in every process it profiles), and CLRIE says nothing at all. */
        if (atomic_compare_exchange_strong(&m->trust_rule, &state, wanted) && wanted == 2)
            CLRIE_PM_LOG_MESSAGE(m->log, CLRIE_CONFIG_ENV_DISABLE_TRUST
                                 "=1: the trust check is off; "
                                 "configuration files, plugins and the raw profiler hook "
                                 "load whoever can write them or the folders above them");
        state = atomic_load(&m->trust_rule);
    }
    return CLRIE_CONFIG_CHECK_ELF | (state == 2 ? 0u : (unsigned)CLRIE_CONFIG_CHECK_TRUST);
}

HRESULT clrie_pm__plugins_check_module(struct manager *m, const char *path, const char *who,
                                       char **canonical)
{
    char why[CLRIE_CONFIG_REASON_SIZE];
    int r = clrie_config_module_check(path, clrie_pm__plugins_module_checks(m), canonical, why,
                                      sizeof(why));
    if (r == 0)
        return S_OK;
    if (r == -ENOMEM)
        return E_OUTOFMEMORY;
    bool trust = r == -EACCES || r == -EPERM;
    CLRIE_PM_LOG_ERROR(m->log, "%s: cannot load '%s': %s%s", who, path, why,
                       trust ? "; refused unless " CLRIE_CONFIG_ENV_DISABLE_TRUST "=1" : "");
    if (r == -ENOEXEC)
        return CLRIE_HRESULT(0x800700C1u); /* ERROR_BAD_EXE_FORMAT */
    if (trust)
        return E_ACCESSDENIED;
    if (r == -ENOENT || r == -ENOTDIR)
        return CLRIE_HRESULT(0x8007007Eu); /* ERROR_MOD_NOT_FOUND */
    return E_FAIL;
}

/* Instead of Initialize while attaching (attach.c): the plugin must implement
 * IInstrumentationMethodAttach, and gets InitializeForAttach with its settings. */
static HRESULT initialize_for_attach(struct manager *m, struct plugin *p,
                                     IInstrumentationMethod *method)
{
    IInstrumentationMethodAttach *attach = NULL;
    HRESULT hr =
        method->lpVtbl->QueryInterface(method, &IID_IInstrumentationMethodAttach, (void **)&attach);
    if (FAILED(hr) || !attach) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "plugin '%s' %s: refused at attach: it does not implement "
                           "IInstrumentationMethodAttach",
                           p->name, p->guid_text);
        return E_NOINTERFACE;
    }
    CLRIE_PM__IN_PLUGIN(
        p, "InitializeForAttach",
        hr = attach->lpVtbl->InitializeForAttach(attach, &p->host.manager, &p->host.attach.iface));
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: InitializeForAttach failed (hr 0x%08X)",
                           p->name, p->guid_text, (unsigned)hr);
        attach->lpVtbl->Release(attach);
        return hr;
    }
    p->attach = attach;
    return S_OK;
}

/* Creates and initialises the plugin's object. Returns S_OK with p->method set, or a failure
 * HRESULT after logging which step failed. Called with load_lock held. */
static HRESULT instantiate(struct manager *m, struct plugin *p)
{
    char who[sizeof(p->guid_text) + 64 + 16];
    snprintf(who, sizeof(who), "plugin '%.64s' %s", p->name, p->guid_text);
    char *canonical = NULL;
    HRESULT checked = clrie_pm__plugins_check_module(m, p->module_path, who, &canonical);
    if (FAILED(checked))
        return checked;
    free(p->module_path);
    p->module_path = canonical;
    struct clrie_os_module *library = NULL;
    char why[512] = "";
    int loaded;
    CLRIE_PM__IN_PLUGIN(p, "load",
                        loaded = clrie_os_module_load(p->module_path, &library, why, sizeof(why)));
    if (loaded != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: cannot load '%s': %s", p->name, p->guid_text,
                           p->module_path, why[0] ? why : "unknown error");
        return CLRIE_HRESULT(0x8007007Eu); /* ERROR_MOD_NOT_FOUND */
    }
    union symbol get = {clrie_os_module_function(library, "DllGetClassObject")};
    if (!get.object) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: '%s' does not export DllGetClassObject",
                           p->name, p->guid_text, p->module_path);
        return CLRIE_HRESULT(0x8007007Fu); /* ERROR_PROC_NOT_FOUND */
    }

    clrie_pm__crash_add_module(get.object, p->name, p->guid_text);
    IClassFactory *factory = NULL;
    HRESULT hr;
    CLRIE_PM__IN_PLUGIN(p, "DllGetClassObject",
                        hr =
                            get.get_class_object(&p->clsid, &IID_IClassFactory, (void **)&factory));
    if (SUCCEEDED(hr) && !factory)
        hr = E_NOINTERFACE;
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: DllGetClassObject failed (hr 0x%08X)", p->name,
                           p->guid_text, (unsigned)hr);
        return hr;
    }
    IInstrumentationMethod *method = NULL;
    CLRIE_PM__IN_PLUGIN(p, "CreateInstance",
                        hr = factory->lpVtbl->CreateInstance(
                            factory, NULL, &IID_IInstrumentationMethod, (void **)&method));
    factory->lpVtbl->Release(factory);
    if (SUCCEEDED(hr) && !method)
        hr = E_NOINTERFACE;
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: CreateInstance failed (hr 0x%08X)", p->name,
                           p->guid_text, (unsigned)hr);
        return hr;
    }

    struct plugin *outer = atomic_exchange(&m->loading, p);
    bool at_attach = atomic_load(&m->attaching);
    if (at_attach)
        hr = initialize_for_attach(m, p, method); /* logs its failures */
    else
        CLRIE_PM__IN_PLUGIN(p, "Initialize",
                            hr = method->lpVtbl->Initialize(method, &p->host.manager));
    atomic_store(&m->loading, outer);
    if (FAILED(hr) && at_attach) {
        method->lpVtbl->Release(method);
        return hr;
    }
    if (FAILED(hr)) {
        CLRIE_PM_LOG_ERROR(m->log, "plugin '%s' %s: Initialize failed (hr 0x%08X)", p->name,
                           p->guid_text, (unsigned)hr);
        method->lpVtbl->Release(method);
        return hr;
    }
    p->method = method;
    void *events = NULL;
    if (SUCCEEDED(method->lpVtbl->QueryInterface(method, &IID_IInstrumentationMethodExceptionEvents,
                                                 &events)))
        p->exception_events = events;
    events = NULL;
    if (SUCCEEDED(
            method->lpVtbl->QueryInterface(method, &IID_IInstrumentationMethodJitEvents2, &events)))
        p->jit_events2 = events;
    events = NULL;
    if (SUCCEEDED(
            method->lpVtbl->QueryInterface(method, &IID_IInstrumentationMethodJitEvents, &events)))
        p->jit_events = events;
    return S_OK;
}

/* Refuses a ClassGuid that is loaded or being loaded, and loads nested too deep. Called with
 * load_lock held. */
static HRESULT refuse_duplicate(struct manager *m, const char *name, const GUID *clsid)
{
    char guid_text[CLRIE_CONFIG_GUID_TEXT_LEN + 1];
    clrie_config_guid_format((const struct clrie_config_guid *)(const void *)clsid, guid_text);
    for (const struct plugin *p = m->all_plugins; p; p = p->next_allocated) {
        if (p->removed || !IsEqualCLSID(&p->clsid, clsid))
            continue;
        if (p->method)
            CLRIE_PM_LOG_ERROR(m->log,
                               "plugin '%s' %s: refused: plugin '%s' with the same ClassGuid "
                               "is already loaded from '%s'",
                               name, guid_text, p->name, p->module_path);
        else
            CLRIE_PM_LOG_ERROR(m->log,
                               "plugin '%s' %s: refused: plugin '%s' with the same ClassGuid "
                               "is being loaded (its Initialize, or one it called, asked to "
                               "load it again)",
                               name, guid_text, p->name);
        return CLRIE_PM__E_ALREADY_LOADED;
    }
    if (m->load_depth >= CLRIE_PM__MAX_NESTED_LOADS) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "plugin '%s' %s: refused: %d plugins are already loading, each from "
                           "the Initialize of the one before",
                           name, guid_text, CLRIE_PM__MAX_NESTED_LOADS);
        return E_FAIL;
    }
    return S_OK;
}

HRESULT clrie_pm__plugins_load(struct manager *m, const char *name, const char *module_path,
                               const GUID *clsid, uint64_t order,
                               const struct clrie_config_setting *settings, size_t setting_count,
                               IInstrumentationMethod **out)
{
    if (out)
        *out = NULL;
    clrie_os_recursive_mutex_lock(&m->load_lock);
    HRESULT hr = refuse_duplicate(m, name, clsid);
    if (FAILED(hr)) {
        clrie_os_recursive_mutex_unlock(&m->load_lock);
        return hr;
    }
    struct plugin *p = plugin_new(m, name, module_path, clsid, order, settings, setting_count);
    m->load_depth++;
    hr = p ? instantiate(m, p) : E_OUTOFMEMORY;
    m->load_depth--;
    if (SUCCEEDED(hr))
        hr = clrie_pm__manager_publish_plugins(m, p, NULL);
    if (SUCCEEDED(hr)) {
        CLRIE_PM_LOG_MESSAGE(m->log, "loaded plugin '%s' %s from '%s'", p->name, p->guid_text,
                             p->module_path);
        if (out) {
            p->method->lpVtbl->AddRef(p->method);
            *out = p->method;
        }
    } else if (p) {
        p->removed = true;
    }
    clrie_os_recursive_mutex_unlock(&m->load_lock);
    return hr;
}

static bool environment_names_configuration(void)
{
    return clrie_config_env_prefix(clrie_pm_env_engine()) != NULL;
}

/* Logs what loading config found and loads the plugins it names, in priority order. Returns
 * whether a plugin was refused because its ClassGuid is loaded or being loaded. */
static bool load_from(struct manager *m, struct clrie_config *config)
{
    bool duplicate = false;
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        CLRIE_PM_LOG_ERROR(m->log, "%s:%u:%u: %s: %s", d->file, d->line, d->column,
                           clrie_config_severity_string(d->severity), d->message);
    }
    size_t count = clrie_config_method_count(config);
    if (count == 0)
        CLRIE_PM_LOG_MESSAGE(m->log, "the configuration names no usable instrumentation "
                                     "method; the engine stays attached without plugins");
    for (size_t i = 0; i < count; i++) {
        const struct clrie_config_method *method = clrie_config_method_at(config, i);
        GUID clsid;
        memcpy(&clsid, &method->class_guid, sizeof(clsid));
        uint64_t order = method->has_priority ? method->priority : UINT64_C(1) << 32;
        if (clrie_pm__plugins_load(m, method->name, method->module_path, &clsid, order,
                                   method->settings, method->setting_count,
                                   NULL) == CLRIE_PM__E_ALREADY_LOADED)
            duplicate = true;
    }
    return duplicate;
}

void clrie_pm__plugins_load_configured(struct manager *m)
{
    if (!environment_names_configuration()) {
        bool two = strcmp(CLRIE_CONFIG_ENV_PREFIX, CLRIE_CONFIG_ENV_PREFIX_64) != 0;
        CLRIE_PM_LOG_MESSAGE(m->log,
                             "no instrumentation method configuration found (no %s*%s%s "
                             "variable); the engine stays attached without plugins",
                             CLRIE_CONFIG_ENV_PREFIX, two ? " or " : "",
                             two ? CLRIE_CONFIG_ENV_PREFIX_64 "*" : "");
        return;
    }
    struct clrie_config *config = clrie_config_new();
    if (!config) {
        CLRIE_PM_LOG_ERROR(m->log, "out of memory reading the plugin configuration");
        return;
    }
    clrie_pm__plugins_module_checks(m); /* says so when the trust rule is off */
    clrie_config_load_env(config, clrie_pm_env_engine());
    load_from(m, config);
    clrie_config_free(config);
}

HRESULT clrie_pm__plugins_load_paths(struct manager *m, const char *const *paths, size_t count)
{
    struct clrie_config *config = clrie_config_new();
    if (!config)
        return E_OUTOFMEMORY;
    struct clrie_config_options opts = {
        .trust_check = (clrie_pm__plugins_module_checks(m) & CLRIE_CONFIG_CHECK_TRUST) != 0};
    for (size_t i = 0; i < count; i++)
        clrie_config_load_path(config, paths[i], &opts);
    HRESULT hr = clrie_config_error_count(config) ? E_FAIL : S_OK;
    if (load_from(m, config) && hr == S_OK)
        hr = CLRIE_PM__E_ALREADY_LOADED;
    clrie_config_free(config);
    return hr;
}

void clrie_pm__plugins_free_all(struct manager *m)
{
    clrie_pm__manager_release_plugins(
        m, clrie_pm__manager_plugins(m)); /* those Shutdown did not release */
    for (struct plugin *p = m->all_plugins, *next; p; p = next) {
        next = p->next_allocated;
        clrie_pm__attach_context_finish(&p->host.attach);
        free(p->name);
        free(p->module_path);
        free(p);
    }
    m->all_plugins = NULL;
}
