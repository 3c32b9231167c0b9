/* A plugin that crashes where CLRIE_TEST_CRASH_AT says, for the test that the engine names a
 * crashing plugin (test/dotnet/test_crash.py):
 *
 *   DllGetClassObject, Initialize, OnModuleLoaded, InstrumentMethod   a write through NULL in
 *                      that call (in the plugin's own code)
 *   strlen             strlen(NULL) in OnModuleLoaded: the fault is in libc, not in the plugin
 *   abort              abort() in InstrumentMethod
 *   thread             a write through NULL on a thread the plugin starts in Initialize, outside
 *                      any call from the engine
 *
 * Anything else (or nothing): it crashes nowhere and rewrites nothing. */
#include <stdlib.h>
#include <string.h>

#include <clrie/os/thread.h>
#include <clrie/plugin.h>

struct crash {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
};

/* Through a volatile pointer, so that the compiler emits the store (and not a trap). */
static int *volatile nowhere;
static const char *volatile no_text;
static size_t (*volatile length_of)(const char *) = strlen; /* a real call into libc */

static bool crashes_at(const char *call)
{
    const char *at = getenv("CLRIE_TEST_CRASH_AT");
    return at && strcmp(at, call) == 0;
}

/* The faults are the test's point: UBSan (test/run's sanitized pass halts on its first
 * report) must let the store through to the SIGSEGV the engine is to name. */
#define REAL_FAULT __attribute__((no_sanitize("undefined")))

REAL_FAULT static void crash_if_at(const char *call)
{
    if (crashes_at(call))
        *nowhere = 1;
}

REAL_FAULT static void crash_thread(void *arg)
{
    (void)arg;
    *nowhere = 1;
}

static HRESULT STDMETHODCALLTYPE crash_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    (void)This;
    (void)manager;
    crash_if_at("Initialize");
    if (crashes_at("thread"))
        clrie_os_thread_start_detached(crash_thread, NULL); /* no thread: no crash to see */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE crash_OnModuleLoaded(IInstrumentationMethod *This,
                                                      IModuleInfo *module)
{
    (void)This;
    (void)module;
    crash_if_at("OnModuleLoaded");
    if (crashes_at("strlen") && length_of(no_text) == 0)
        return E_FAIL;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE crash_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *method, BOOL isRejit,
                                                              BOOL *pbInstrument)
{
    (void)This;
    (void)method;
    (void)isRejit;
    *pbInstrument = crashes_at("InstrumentMethod") || crashes_at("abort");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE crash_InstrumentMethod(IInstrumentationMethod *This,
                                                        IMethodInfo *method, BOOL isRejit)
{
    (void)This;
    (void)method;
    (void)isRejit;
    crash_if_at("InstrumentMethod");
    if (crashes_at("abort"))
        abort();
    return S_OK;
}

/* ---- the COM object, its class and its factory ---------------------------------------- */

CLRIE_PLUGIN_COM_IUNKNOWN(crash, IInstrumentationMethod, struct crash, method, com)

static const struct IInstrumentationMethodVtbl crash_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(crash),
    .Initialize = crash_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = crash_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = crash_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = crash_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

static const struct clrie_plugin_com_iface crash_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct crash, method),
};

static const struct clrie_plugin_com_class crash_class = {
    .name = "crash",
    .ifaces = crash_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(crash_ifaces),
    .com_offset = offsetof(struct crash, com),
    .destroy = free,
    .module_ref = true,
};

static HRESULT crash_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct crash *c = calloc(1, sizeof *c);
    if (!c)
        return E_OUTOFMEMORY;
    c->method.lpVtbl = &crash_vtbl;
    clrie_plugin_com_init(&c->com, &crash_class);
    return clrie_plugin_com_give(&c->com, riid, out);
}

__attribute__((visibility("default"))) HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid,
                                                                                REFIID riid,
                                                                                void **ppv);
__attribute__((visibility("default"))) HRESULT STDAPICALLTYPE DllCanUnloadNow(void);

HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    crash_if_at("DllGetClassObject");
    return clrie_plugin_get_class_object(crash_create, rclsid, riid, ppv);
}

HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    return clrie_plugin_module_can_unload_now();
}
