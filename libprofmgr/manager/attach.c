/* Attaching to a running process (ICorProfilerCallback3::InitializeForAttach and
 * ProfilerAttachComplete), and the activation policy at start-up and at attach.
 *
 * InitializeForAttach reads the client data as CLRIE does (libconfig's clrie_config_attach):
 * the engine's settings LogLevel, LogFileLevel and LogFilePath, the activation policy
 * (policy.h), and the configuration files to load, each with settings for its methods. The
 * plugins load with the same checks as at start-up, but each must implement
 * IInstrumentationMethodAttach: it gets InitializeForAttach with its settings instead of
 * Initialize. ProfilerAttachComplete then tells the plugins of every app domain, assembly and
 * module already loaded, as they would have heard of them from the start, and calls
 * AttachComplete; a plugin that wants methods already compiled asks for them with
 * IModuleInfo::RequestRejit from those events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/config.h"
#include "crash.h"
#include "env.h"
#include "manager.h"
#include "policy.h"

/* ---- the log settings of the attach data ------------------------------------------------- */

/* The attach data's names and the variables they stand for. */
static const struct {
    const char *setting;
    const char *variable;
} log_settings[] = {
    {"LogLevel", "MicrosoftInstrumentationEngine_LogLevel"},
    {"LogFileLevel", "MicrosoftInstrumentationEngine_FileLog"},
    {"LogFilePath", "MicrosoftInstrumentationEngine_FileLogPath"},
};
#define LOG_SETTINGS (sizeof(log_settings) / sizeof(log_settings[0]))

/* Reconfigures the process log as if the attach data's log settings were in the environment
 * (they win over it). Only called from InitializeForAttach, before any plugin or other thread
 * of the engine can write to the log. */
static void apply_log_settings(struct manager *m, const struct clrie_config_attach *data)
{
    bool any = false;
    for (size_t i = 0; i < LOG_SETTINGS; i++)
        any = any || clrie_config_attach_setting(data, log_settings[i].setting);
    if (!any)
        return;
    char *const *env = clrie_pm_env_engine();
    size_t count = 0;
    while (env && env[count])
        count++;
    char **envp = calloc(count + LOG_SETTINGS + 1, sizeof(*envp));
    char *owned[LOG_SETTINGS] = {0};
    if (!envp)
        return;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        bool replaced = false;
        for (size_t k = 0; k < LOG_SETTINGS && !replaced; k++) {
            size_t len = strlen(log_settings[k].variable);
            replaced = clrie_config_attach_setting(data, log_settings[k].setting) &&
                       strncmp(env[i], log_settings[k].variable, len) == 0 && env[i][len] == '=';
        }
        if (!replaced)
            envp[n++] = env[i];
    }
    for (size_t k = 0; k < LOG_SETTINGS; k++) {
        const char *value = clrie_config_attach_setting(data, log_settings[k].setting);
        if (!value)
            continue;
        size_t size = strlen(log_settings[k].variable) + strlen(value) + 2;
        owned[k] = malloc(size);
        if (owned[k]) {
            snprintf(owned[k], size, "%s=%s", log_settings[k].variable, value);
            envp[n++] = owned[k];
        }
    }
    clrie_pm_log_finish(m->log);
    clrie_pm_log_init(m->log, envp);
    for (size_t k = 0; k < LOG_SETTINGS; k++)
        free(owned[k]);
    free(envp);
}

/* ---- the policy ----------------------------------------------------------------------------- */

/* Attach data first, then the environment. */
static const char *attach_or_env(void *ctx, const char *name)
{
    const char *value = clrie_config_attach_setting(ctx, name);
    if (value)
        return value;
    char full[96];
    snprintf(full, sizeof(full), "%s%s", CLRIE_PM__POLICY_ENV_PREFIX, name);
    value = clrie_pm_env_lookup(clrie_pm_env_engine(), full);
    return value && *value ? value : NULL;
}

bool clrie_pm__attach_policy_admits(struct manager *m, const struct clrie_config_attach *data)
{
    struct policy policy;
    int rc = data ? clrie_pm__policy_read(&policy, attach_or_env, (void *)data, m->log)
                  : clrie_pm__policy_read_env(&policy, m->log);
    if (rc != 0) {
        CLRIE_PM_LOG_ERROR(m->log, "out of memory reading the activation policy");
        return false;
    }
    bool admitted = clrie_pm__policy_admits(&policy, (ICorProfilerInfo3 *)(void *)m->info, m->log);
    clrie_pm__policy_finish(&policy);
    return admitted;
}

/* ---- loading the plugins the attach data names --------------------------------------------- */

/* The settings a method of one AddInstrumentationMethod gets: the attach data's first, then
 * those of its configuration file that the attach data does not name. */
static struct clrie_config_setting *merged_settings(const struct clrie_config_attach_method *a,
                                                    const struct clrie_config_method *method,
                                                    size_t *count)
{
    struct clrie_config_setting *all =
        calloc(a->setting_count + method->setting_count + 1, sizeof(*all));
    if (!all)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < a->setting_count; i++)
        all[n++] = a->settings[i];
    for (size_t i = 0; i < method->setting_count; i++) {
        bool named = false;
        for (size_t k = 0; k < a->setting_count && !named; k++)
            named = strcmp(a->settings[k].name, method->settings[i].name) == 0;
        if (!named)
            all[n++] = method->settings[i];
    }
    *count = n;
    return all;
}

static void load_methods(struct manager *m, const struct clrie_config_attach *data)
{
    struct clrie_config_options opts = {
        .trust_check = (clrie_pm__plugins_module_checks(m) & CLRIE_CONFIG_CHECK_TRUST) != 0};
    for (size_t i = 0; i < clrie_config_attach_method_count(data); i++) {
        const struct clrie_config_attach_method *a = clrie_config_attach_method_at(data, i);
        struct clrie_config *config = clrie_config_new();
        if (!config) {
            CLRIE_PM_LOG_ERROR(m->log, "out of memory reading '%s'", a->config_path);
            continue;
        }
        clrie_config_load_path(config, a->config_path, &opts);
        for (size_t d = 0; d < clrie_config_diag_count(config); d++) {
            const struct clrie_config_diag *diag = clrie_config_diag_at(config, d);
            CLRIE_PM_LOG_ERROR(m->log, "%s:%u:%u: %s: %s", diag->file, diag->line, diag->column,
                               clrie_config_severity_string(diag->severity), diag->message);
        }
        for (size_t k = 0; k < clrie_config_method_count(config); k++) {
            const struct clrie_config_method *method = clrie_config_method_at(config, k);
            size_t setting_count = 0;
            struct clrie_config_setting *settings = merged_settings(a, method, &setting_count);
            if (!settings) {
                CLRIE_PM_LOG_ERROR(m->log, "out of memory loading plugin '%s'", method->name);
                continue;
            }
            GUID clsid;
            memcpy(&clsid, &method->class_guid, sizeof(clsid));
            uint64_t order = method->has_priority ? method->priority : UINT64_C(1) << 32;
            clrie_pm__plugins_load(m, method->name, method->module_path, &clsid, order, settings,
                                   setting_count, NULL);
            free(settings);
        }
        clrie_config_free(config);
    }
}

HRESULT clrie_pm__attach_initialize(struct manager *m, const void *client_data, UINT size)
{
    char why[CLRIE_CONFIG_REASON_SIZE];
    struct clrie_config_attach *data = NULL;
    if (!client_data || size == 0) {
        CLRIE_PM_LOG_ERROR(m->log, "attach without client data: the engine declines the attach "
                                   "(the data names the configuration files to load)");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    int rc = clrie_config_attach_parse(client_data, size, &data, why, sizeof(why));
    if (rc != 0) {
        CLRIE_PM_LOG_ERROR(m->log,
                           "the attach data is refused: %s; the engine declines the "
                           "attach",
                           rc == -ENOMEM ? "out of memory" : why);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    apply_log_settings(m, data);
    if (!clrie_pm__attach_policy_admits(m, data)) {
        clrie_config_attach_free(data);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    char runtime[48];
    clrie_pm__manager_runtime_version(m, runtime, sizeof(runtime));
    CLRIE_PM_LOG_MESSAGE(m->log,
                         "clrie engine attached to a running process (ICorProfilerInfo%d), "
                         "runtime %s",
                         m->info_version, runtime);
    clrie_pm__detach_pin_engine(m);
    atomic_store(&m->attached, true);
    atomic_store(&m->initializing, true);
    atomic_store(&m->attaching, true);
    load_methods(m, data);
    atomic_store(&m->attaching, false);
    size_t loaded = clrie_pm__manager_plugins(m)->count;
    if (loaded == 0) {
        clrie_config_attach_free(data);
        atomic_store(&m->initializing, false);
        CLRIE_PM_LOG_ERROR(m->log, "no plugin could be loaded from the attach data; the engine "
                                   "declines the attach");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    clrie_os_mutex_lock(&m->mask_lock);
    m->base_mask = CLRIE_PM_DEFAULT_EVENT_MASK | CLRIE_PM_ENGINE_EVENT_MASK;
    clrie_os_mutex_unlock(&m->mask_lock);
    HRESULT hr = clrie_pm__manager_apply_event_mask(m);
    atomic_store(&m->initializing, false);
    if (FAILED(hr)) {
        clrie_config_attach_free(data);
        CLRIE_PM_LOG_ERROR(m->log,
                           "the runtime refused the event mask (hr 0x%08X); the engine "
                           "declines the attach",
                           (unsigned)hr);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    if (atomic_load(&m->profiling_disabled)) {
        clrie_config_attach_free(data);
        CLRIE_PM_LOG_MESSAGE(m->log, "a plugin disabled profiling; the engine declines the attach");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    clrie_pm__memory_line_arm(m, attach_or_env, data);
    clrie_pm__detach_arm(m, attach_or_env, data);
    clrie_config_attach_free(data);
    return S_OK;
}

/* ---- ProfilerAttachComplete: what is loaded already ----------------------------------------- */

/* The IDs met in this walk, for its count; whether the plugins hear of one is the manager's
 * announced sets' business (the runtime's own events may have told them already). */
struct seen {
    UINT_PTR *ids;
    size_t count, capacity;
};

static bool first_time(struct seen *seen, UINT_PTR id)
{
    for (size_t i = 0; i < seen->count; i++)
        if (seen->ids[i] == id)
            return false;
    if (seen->count == seen->capacity) {
        size_t cap = seen->capacity ? seen->capacity * 2 : 32;
        UINT_PTR *grown = realloc(seen->ids, cap * sizeof(*grown));
        if (!grown)
            return true; /* told twice rather than never */
        seen->ids = grown;
        seen->capacity = cap;
    }
    seen->ids[seen->count++] = id;
    return true;
}

#define TELL_PLUGINS(m, event, call)                                                               \
    do {                                                                                           \
        struct plugin_list *list_ = clrie_pm__manager_plugins_enter(m);                            \
        for (size_t i_ = 0; i_ < list_->count; i_++) {                                             \
            struct plugin *p_ = list_->items[i_];                                                  \
            CLRIE_PM__IN_PLUGIN(p_, event, p_->method->lpVtbl->call);                              \
        }                                                                                          \
        clrie_pm__manager_plugins_leave(m);                                                        \
    } while (0)

static void tell_module(struct manager *m, ModuleID id, struct seen *domains,
                        struct seen *assemblies)
{
    ICorProfilerInfo3 *info = (ICorProfilerInfo3 *)(void *)m->info;
    AssemblyID assembly_id = 0;
    AppDomainID domain_id = 0;
    ModuleID manifest = 0;
    ULONG len = 0;
    LPCBYTE base = NULL;
    DWORD flags = 0;
    if (FAILED(
            info->lpVtbl->GetModuleInfo2(info, id, &base, 0, &len, NULL, &assembly_id, &flags)) ||
        !assembly_id ||
        FAILED(
            info->lpVtbl->GetAssemblyInfo(info, assembly_id, 0, &len, NULL, &domain_id, &manifest)))
        return; /* still loading: the runtime's own events will tell of it */
    if (first_time(domains, domain_id)) {
        IAppDomainInfo *domain = NULL;
        if (SUCCEEDED(clrie_pm_domains_appdomain_created(m->domains, domain_id, &domain))) {
            if (clrie_pm__manager_announce(m, ANNOUNCE_APPDOMAIN, domain_id))
                TELL_PLUGINS(m, "OnAppDomainCreated", OnAppDomainCreated(p_->method, domain));
            domain->lpVtbl->Release(domain);
        }
    }
    if (first_time(assemblies, assembly_id)) {
        IAssemblyInfo *assembly = NULL;
        if (SUCCEEDED(clrie_pm_domains_assembly_loaded(m->domains, assembly_id, &assembly))) {
            if (clrie_pm__manager_announce(m, ANNOUNCE_ASSEMBLY, assembly_id))
                TELL_PLUGINS(m, "OnAssemblyLoaded", OnAssemblyLoaded(p_->method, assembly));
            assembly->lpVtbl->Release(assembly);
        }
    }
    IModuleInfo *module = NULL;
    if (clrie_pm_domains_module_attached(m->domains, id, assembly_id, &module) == S_OK) {
        if (clrie_pm__manager_announce(m, ANNOUNCE_MODULE, id))
            TELL_PLUGINS(m, "OnModuleLoaded", OnModuleLoaded(p_->method, module));
        module->lpVtbl->Release(module);
    }
}

void clrie_pm__attach_complete(struct manager *m)
{
    if (!atomic_load(&m->attached) || !m->domains)
        return;
    ICorProfilerInfo3 *info = (ICorProfilerInfo3 *)(void *)m->info;
    ICorProfilerModuleEnum *modules = NULL;
    HRESULT hr = info->lpVtbl->EnumModules(info, &modules);
    struct seen domains = {0}, assemblies = {0};
    size_t told = 0;
    if (SUCCEEDED(hr) && modules) {
        ModuleID ids[64];
        ULONG got = 0;
        while (SUCCEEDED(modules->lpVtbl->Next(modules, 64, ids, &got)) && got > 0) {
            for (ULONG i = 0; i < got; i++)
                tell_module(m, ids[i], &domains, &assemblies);
            told += got;
        }
        modules->lpVtbl->Release(modules);
    } else {
        CLRIE_PM_LOG_ERROR(m->log, "cannot list the modules already loaded (hr 0x%08X)",
                           (unsigned)hr);
    }
    free(domains.ids);
    free(assemblies.ids);
    CLRIE_PM_LOG_MESSAGE(m->log,
                         "attach complete: %zu modules in %zu assemblies and %zu app domains were "
                         "loaded before the engine",
                         told, assemblies.count, domains.count);
    struct plugin_list *list = clrie_pm__manager_plugins_enter(m);
    for (size_t i = 0; i < list->count; i++) {
        struct plugin *p = list->items[i];
        if (p->attach)
            CLRIE_PM__IN_PLUGIN(p, "AttachComplete",
                                hr = p->attach->lpVtbl->AttachComplete(p->attach));
    }
    clrie_pm__manager_plugins_leave(m);
}
