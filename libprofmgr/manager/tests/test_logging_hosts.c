/* Logging belongs to a runtime, not to the process: two profiler managers in one process (as
 * two runtimes would make), each loading the logging probe plugin (argv[1], logging_probe.c)
 * from the same configuration. A plugin of each installs its own IProfilerManagerLoggingHost;
 * each host receives the lines of its own manager (its plugins' lines and the engine's) and none
 * of the other's (a surplus Release of its IProfilerManager too), and a plugin's SetLoggingFlags
 * changes its own runtime's levels only, while both managers still write to the one log file the
 * variables name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>

#include <cmocka.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/config.h"
#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "clrie/os/strings.h"
#include "clrie/profmgr.h"
#include "fake_mask_info.h"
#include "support.h"

static char *probe_path;
static char *log_path;

/* ---- a logging host that keeps what it received ------------------------------------------- */

struct sink {
    IProfilerManagerLoggingHost iface;
    int refs;
    char text[8192]; /* every line received, each ending in '\n' */
};

static struct sink *sink_of(IProfilerManagerLoggingHost *iface)
{
    return (struct sink *)(void *)iface;
}

static HRESULT STDMETHODCALLTYPE sink_QueryInterface(IProfilerManagerLoggingHost *This, REFIID riid,
                                                     void **out)
{
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IProfilerManagerLoggingHost)) {
        *out = NULL;
        return E_NOINTERFACE;
    }
    sink_of(This)->refs++;
    *out = This;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE sink_AddRef(IProfilerManagerLoggingHost *This)
{
    return (ULONG)++sink_of(This)->refs;
}

static ULONG STDMETHODCALLTYPE sink_Release(IProfilerManagerLoggingHost *This)
{
    return (ULONG)--sink_of(This)->refs;
}

static HRESULT STDMETHODCALLTYPE sink_add(IProfilerManagerLoggingHost *This, const WCHAR *line)
{
    struct sink *s = sink_of(This);
    size_t n = strlen(s->text);
    for (const WCHAR *c = line; *c && n + 2 < sizeof(s->text); c++)
        s->text[n++] = *c < 0x80 ? (char)*c : '?';
    s->text[n++] = '\n';
    s->text[n] = '\0';
    return S_OK;
}

static const struct IProfilerManagerLoggingHostVtbl sink_vtbl = {
    .QueryInterface = sink_QueryInterface,
    .AddRef = sink_AddRef,
    .Release = sink_Release,
    .LogMessage = sink_add,
    .LogError = sink_add,
    .LogDumpMessage = sink_add,
};

static void sink_init(struct sink *s)
{
    *s = (struct sink){.iface = {.lpVtbl = &sink_vtbl}, .refs = 1};
}

/* ---- two managers, each with the probe ---------------------------------------------------- */

static ICorProfilerCallback11 *new_manager(struct fake_mask_info *info)
{
    static const CLSID engine_clsid = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;
    IClassFactory *factory = NULL;
    ICorProfilerCallback11 *callback = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     (void **)&callback),
                     S_OK);
    factory->lpVtbl->Release(factory);
    fake_mask_info_init(info, 0, 0);
    assert_int_equal(callback->lpVtbl->Initialize(callback, (IUnknown *)(void *)info), S_OK);
    return callback;
}

static WCHAR *wide(const char *text)
{
    static WCHAR buffers[4][256];
    static int next;
    WCHAR *out = buffers[next++ % 4];
    size_t i = 0;
    for (; text[i] && i + 1 < 256; i++)
        out[i] = (WCHAR)(unsigned char)text[i];
    out[i] = 0;
    return out;
}

/* A BSTR of ASCII text: the length in bytes before the characters (freed with free(bstr - 2)). */
static BSTR bstr(const char *text)
{
    size_t n = strlen(text);
    uint32_t *block = calloc(1, 4 + (n + 1) * sizeof(WCHAR));
    assert_non_null(block);
    block[0] = (uint32_t)(n * sizeof(WCHAR));
    WCHAR *chars = (WCHAR *)(void *)(block + 1);
    for (size_t i = 0; i < n; i++)
        chars[i] = (WCHAR)(unsigned char)text[i];
    return chars;
}

static void bstr_free(BSTR text)
{
    free((uint32_t *)(void *)text - 1);
}

static char *read_log(void)
{
    static char text[65536];
    FILE *f = fopen(log_path, "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    return text;
}

static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void log_error(IProfilerManager *manager, bool global, const char *text)
{
    IProfilerManagerLogging *logging = NULL;
    if (global) {
        IProfilerManager4 *manager4 = NULL;
        assert_int_equal(
            manager->lpVtbl->QueryInterface(manager, &IID_IProfilerManager4, (void **)&manager4),
            S_OK);
        assert_int_equal(manager4->lpVtbl->GetGlobalLoggingInstance(manager4, &logging), S_OK);
        manager4->lpVtbl->Release(manager4);
    } else {
        assert_int_equal(manager->lpVtbl->GetLoggingInstance(manager, &logging), S_OK);
    }
    assert_int_equal(logging->lpVtbl->LogError(logging, wide(text)), S_OK);
    logging->lpVtbl->Release(logging);
}

static LoggingFlags flags_of(IProfilerManager *manager)
{
    IProfilerManagerLogging *logging = NULL;
    LoggingFlags flags = 0;
    assert_int_equal(manager->lpVtbl->GetLoggingInstance(manager, &logging), S_OK);
    assert_int_equal(logging->lpVtbl->GetLoggingFlags(logging, &flags), S_OK);
    logging->lpVtbl->Release(logging);
    return flags;
}

/* The file name of the probe (after the last separator of probe_path). */
static const char *probe_name(void)
{
    const char *name = probe_path + strlen(probe_path);
    while (name > probe_path && !clrie_os_is_separator(name[-1]))
        name--;
    return name;
}

typedef IProfilerManager *(*manager_at_fn)(int index);
typedef void (*forget_fn)(void);

/* The probe the managers loaded, found by its file name, not loaded again, and its two
 * functions; to be released with clrie_os_module_unload. */
static struct clrie_os_module *find_probe(manager_at_fn *manager_at, forget_fn *forget)
{
    struct clrie_os_module *probe = NULL;
    assert_int_equal(clrie_os_module_find(probe_name(), &probe), 0);
    *manager_at = (manager_at_fn)clrie_os_module_function(probe, "logging_probe_manager");
    *forget = (forget_fn)clrie_os_module_function(probe, "logging_probe_forget");
    assert_non_null(*manager_at);
    assert_non_null(*forget);
    return probe;
}

static void each_runtime_logs_to_its_own_host(void **state)
{
    (void)state;
    struct fake_mask_info info_a, info_b;
    ICorProfilerCallback11 *runtime_a = new_manager(&info_a);
    ICorProfilerCallback11 *runtime_b = new_manager(&info_b);
    manager_at_fn manager_at = NULL;
    forget_fn forget = NULL;
    struct clrie_os_module *probe = find_probe(&manager_at, &forget);
    IProfilerManager *a = manager_at(0), *b = manager_at(1);
    assert_non_null(a);
    assert_non_null(b);

    struct sink host_a, host_b;
    sink_init(&host_a);
    sink_init(&host_b);
    assert_int_equal(a->lpVtbl->SetLoggingHost(a, &host_a.iface), S_OK);
    assert_int_equal(b->lpVtbl->SetLoggingHost(b, &host_b.iface), S_OK);

    /* A plugin's lines, and lines through the engine's logger, go to their runtime's host. */
    log_error(a, false, "plugin line of runtime A");
    log_error(b, false, "plugin line of runtime B");
    log_error(a, true, "engine logger line of runtime A");
    assert_non_null(strstr(host_a.text, "plugin line of runtime A"));
    assert_non_null(strstr(host_a.text, "engine logger line of runtime A"));
    assert_null(strstr(host_a.text, "runtime B"));
    assert_non_null(strstr(host_b.text, "plugin line of runtime B"));
    assert_null(strstr(host_b.text, "runtime A"));

    /* A line the engine writes for runtime B: a plugin it cannot load. */
    BSTR path = bstr("/nonexistent/clrie-logging-hosts/libmissing.so");
    BSTR name = bstr("Missing"), text = bstr("missing"), module = bstr("libmissing.so");
    BSTR guid = bstr("{0BADF00D-1111-2222-3333-444455556666}");
    IInstrumentationMethod *method = NULL;
    assert_true(FAILED(
        b->lpVtbl->AddInstrumentationMethod(b, path, name, text, module, guid, 10, &method)));
    bstr_free(path);
    bstr_free(name);
    bstr_free(text);
    bstr_free(module);
    bstr_free(guid);
    assert_non_null(strstr(host_b.text, "libmissing.so"));
    assert_null(strstr(host_a.text, "libmissing.so"));

    /* Levels are the runtime's too: B asks for messages, A does not get them. */
    IProfilerManagerLogging *logging_b = NULL;
    assert_int_equal(b->lpVtbl->GetLoggingInstance(b, &logging_b), S_OK);
    assert_int_equal(logging_b->lpVtbl->SetLoggingFlags(
                         logging_b, (LoggingFlags)(LoggingFlags_Errors | LoggingFlags_Trace)),
                     S_OK);
    assert_true(flags_of(b) & LoggingFlags_Trace);
    assert_false(flags_of(a) & LoggingFlags_Trace);
    IProfilerManagerLogging *logging_a = NULL;
    assert_int_equal(a->lpVtbl->GetLoggingInstance(a, &logging_a), S_OK);
    assert_int_equal(logging_a->lpVtbl->LogMessage(logging_a, wide("message of runtime A")), S_OK);
    assert_int_equal(logging_b->lpVtbl->LogMessage(logging_b, wide("message of runtime B")), S_OK);
    logging_a->lpVtbl->Release(logging_a);
    logging_b->lpVtbl->Release(logging_b);

    /* One file for the process: both runtimes' lines, each once. */
    const char *file = read_log();
    assert_non_null(strstr(file, "plugin line of runtime A"));
    assert_non_null(strstr(file, "plugin line of runtime B"));
    assert_non_null(strstr(file, "libmissing.so"));
    assert_non_null(strstr(file, "message of runtime B"));
    assert_null(strstr(file, "message of runtime A"));

    /* Removing A's host leaves B's in place, and each manager gives its host back. */
    assert_int_equal(a->lpVtbl->SetLoggingHost(a, NULL), S_OK);
    assert_int_equal(host_a.refs, 1);
    log_error(b, false, "after A removed its host");
    assert_non_null(strstr(host_b.text, "after A removed its host"));
    assert_null(strstr(host_a.text, "after A removed its host"));

    /* A surplus Release of a runtime's IProfilerManager is that runtime's misuse: its line goes
     * to that runtime's host (B's; A has none now) and to the file. */
    forget(); /* the probe gives back the references it held: the next Release is surplus */
    b->lpVtbl->Release(b);
    a->lpVtbl->Release(a);
    const char *surplus = "surplus Release of IProfilerManager ignored";
    assert_int_equal(occurrences(host_b.text, surplus), 1);
    assert_int_equal(occurrences(host_a.text, surplus), 0);
    assert_int_equal(occurrences(read_log(), surplus), 2);

    clrie_os_module_unload(probe);
    runtime_a->lpVtbl->Shutdown(runtime_a);
    runtime_b->lpVtbl->Shutdown(runtime_b);
    runtime_a->lpVtbl->Release(runtime_a);
    runtime_b->lpVtbl->Release(runtime_b);
    assert_int_equal(host_b.refs, 1);
}

/* A plugin a plugin adds at run time (AddInstrumentationMethod) is loaded from the module as
 * given when that is an absolute path of this system ("C:\\..." on Windows), whatever the
 * folder, and else from the module's name in the folder given. */
static void a_plugin_added_at_run_time_is_found_by_its_path(void **state)
{
    (void)state;
    struct fake_mask_info info;
    ICorProfilerCallback11 *runtime = new_manager(&info);
    manager_at_fn manager_at = NULL;
    forget_fn forget = NULL;
    struct clrie_os_module *probe = find_probe(&manager_at, &forget);
    IProfilerManager *manager = manager_at(0);
    assert_non_null(manager);

    char *folder = clrie_os_strndup(probe_path, (size_t)(probe_name() - probe_path));
    assert_non_null(folder);
    static const struct {
        const char *folder, *module, *guid;
    } added[] = {
        {"/nonexistent", NULL, "{7E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E9}"},
        {NULL, NULL, "{7E1A2B3C-4D5E-4F60-8172-93A4B5C6D7EA}"},
    };
    for (int i = 0; i < 2; i++) {
        BSTR in = bstr(added[i].folder ? added[i].folder : folder);
        BSTR module = bstr(i == 0 ? probe_path : probe_name());
        BSTR name = bstr("Added"), text = bstr("added at run time"), guid = bstr(added[i].guid);
        IInstrumentationMethod *method = NULL;
        HRESULT hr = manager->lpVtbl->AddInstrumentationMethod(manager, in, name, text, module,
                                                               guid, 20, &method);
        if (hr != S_OK)
            fail_msg("AddInstrumentationMethod of '%s' in '%s': 0x%08X",
                     i == 0 ? probe_path : probe_name(), added[i].folder ? added[i].folder : folder,
                     (unsigned)hr);
        assert_non_null(method);
        assert_non_null(manager_at(i + 1)); /* the added plugin was initialised */
        method->lpVtbl->Release(method);
        bstr_free(in);
        bstr_free(module);
        bstr_free(name);
        bstr_free(text);
        bstr_free(guid);
    }
    free(folder);
    forget();
    clrie_os_module_unload(probe);
    runtime->lpVtbl->Shutdown(runtime);
    runtime->lpVtbl->Release(runtime);
}

int main(int argc, char **argv)
{
    /* Meson passes it relative to the build folder. */
    if (argc < 2 || clrie_os_path_canonical(argv[1], &probe_path) != 0) {
        fprintf(stderr, "usage: test-profmgr-logging-hosts <logging-probe module>\n");
        return 1;
    }
    char *tree = test_tree_new();
    char *config_path = test_path(tree, "probe.config");
    log_path = test_path(tree, "engine.log");
    char text[2048];
    int len = snprintf(text, sizeof(text),
                       "<InstrumentationEngineConfiguration>\n"
                       "  <InstrumentationMethod>\n"
                       "    <Name>LoggingProbe</Name><Description>probe</Description>\n"
                       "    <Module>%s</Module>\n"
                       "    <ClassGuid>{7E1A2B3C-4D5E-4F60-8172-93A4B5C6D7E8}</ClassGuid>\n"
                       "  </InstrumentationMethod>\n"
                       "</InstrumentationEngineConfiguration>\n",
                       probe_path);
    if (len < 0 || (size_t)len >= sizeof(text)) {
        fprintf(stderr, "the probe's path is too long: %s\n", probe_path);
        return 1;
    }
    test_tree_write(tree, "probe.config", text, (size_t)len);
    /* Before the first manager: the process log reads these once. */
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "LoggingProbe", config_path);
    test_env_set("MicrosoftInstrumentationEngine_FileLogPath", log_path);
    test_env_set("MicrosoftInstrumentationEngine_LogLevel", "Errors");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_runtime_logs_to_its_own_host),
        cmocka_unit_test(a_plugin_added_at_run_time_is_found_by_its_path),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(config_path);
    free(log_path);
    free(probe_path);
    test_tree_free(tree);
    return failed;
}
