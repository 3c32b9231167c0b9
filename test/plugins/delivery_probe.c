/* A plugin that counts which plugin-facing events the engine delivers to it, for
 * test/dotnet/test_delivery.py: every IInstrumentationMethod event (ShouldInstrumentMethod,
 * which answers FALSE, apart for first JITs and ReJITs; AllowInlineSite, which allows), both
 * IInstrumentationMethodJitEvents events and every IInstrumentationMethodExceptionEvents event.
 * At OnShutdown each instance appends one line per event it received to the file named by
 * CLRIE_DELIVERY_PROBE_FILE, in one write():
 *
 *   <tag> <event> <count>
 *
 * Each instance is configured by the first 8 hex digits of its class ID in upper case (DATA1):
 *   CLRIE_DELIVERY_PROBE_<DATA1>_TAG=name   the tag (default: DATA1)
 *   CLRIE_DELIVERY_PROBE_<DATA1>_MASK=hex   SetEventMask with it in Initialize; unset: the
 *                                           instance never calls SetEventMask
 *   CLRIE_DELIVERY_PROBE_<DATA1>_REJIT=name when the method of that full name ("Program.Value")
 *                                           is first compiled, a thread of the instance asks
 *                                           the engine to rejit it (IModuleInfo::RequestRejit)
 * DllGetClassObject serves any class ID (libclrie-plugin's class factory). */
#define _GNU_SOURCE /* usleep */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/os/thread.h>
#include <clrie/plugin.h>

static const char *const event_names[] = {
    "OnAppDomainCreated",
    "OnAppDomainShutdown",
    "OnAssemblyLoaded",
    "OnAssemblyUnloaded",
    "OnModuleLoaded",
    "OnModuleUnloaded",
    "OnShutdown",
    "ShouldInstrumentMethod",
    "ShouldInstrumentMethod(rejit)",
    "BeforeInstrumentMethod",
    "InstrumentMethod",
    "OnInstrumentationComplete",
    "AllowInlineSite",
    "JitStarted",
    "JitComplete",
    "ExceptionCatcherEnter",
    "ExceptionCatcherLeave",
    "ExceptionSearchCatcherFound",
    "ExceptionSearchFilterEnter",
    "ExceptionSearchFilterLeave",
    "ExceptionSearchFunctionEnter",
    "ExceptionSearchFunctionLeave",
    "ExceptionThrown",
    "ExceptionUnwindFinallyEnter",
    "ExceptionUnwindFinallyLeave",
    "ExceptionUnwindFunctionEnter",
    "ExceptionUnwindFunctionLeave",
};
#define EVENT_COUNT (sizeof(event_names) / sizeof(event_names[0]))

struct probe {
    IInstrumentationMethod method;
    IInstrumentationMethodJitEvents jit;
    IInstrumentationMethodExceptionEvents exceptions;
    struct clrie_plugin_com com;
    char data1[9];
    char tag[64];
    atomic_ulong counts[EVENT_COUNT];
    IProfilerStringManager *strings; /* for method names, when REJIT is set */
    atomic_bool rejit_asked;
};

static void count(struct probe *p, const char *event)
{
    for (size_t i = 0; i < EVENT_COUNT; i++) {
        if (!strcmp(event_names[i], event)) {
            atomic_fetch_add(&p->counts[i], 1);
            return;
        }
    }
}

static const char *setting(const struct probe *p, const char *name)
{
    char var[96];
    snprintf(var, sizeof var, "CLRIE_DELIVERY_PROBE_%s_%s", p->data1, name);
    const char *value = getenv(var);
    return value && *value ? value : NULL;
}

static struct probe *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, method);
}

static struct probe *from_jit(IInstrumentationMethodJitEvents *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, jit);
}

static struct probe *from_exceptions(IInstrumentationMethodExceptionEvents *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, exceptions);
}

static void probe_destroy(void *object)
{
    struct probe *p = object;
    clrie_plugin_release(p->strings);
    free(p);
}

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, method),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents, struct probe, jit),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodExceptionEvents, struct probe, exceptions),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "delivery-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = probe_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(im, IInstrumentationMethod, struct probe, method, com)
CLRIE_PLUGIN_COM_IUNKNOWN(jit, IInstrumentationMethodJitEvents, struct probe, jit, com)
CLRIE_PLUGIN_COM_IUNKNOWN(ex, IInstrumentationMethodExceptionEvents, struct probe, exceptions, com)

/* ---- every event: counted -------------------------------------------------------------- */

#define COUNT_METHOD(ret, name, params, args)                                                      \
    __attribute__((unused)) static ret STDMETHODCALLTYPE count_im_##name params                    \
    {                                                                                              \
        count(from_method(This), #name);                                                           \
        return S_OK;                                                                               \
    }
CLRIE_IINSTRUMENTATIONMETHOD_METHODS(COUNT_METHOD, IInstrumentationMethod *This, This)
#define COUNT_JIT(ret, name, params, args)                                                         \
    __attribute__((unused)) static ret STDMETHODCALLTYPE count_jit_##name params                   \
    {                                                                                              \
        count(from_jit(This), #name);                                                              \
        return S_OK;                                                                               \
    }
CLRIE_IINSTRUMENTATIONMETHODJITEVENTS_METHODS(COUNT_JIT, IInstrumentationMethodJitEvents *This,
                                              This)
#define COUNT_EXCEPTION(ret, name, params, args)                                                   \
    __attribute__((unused)) static ret STDMETHODCALLTYPE count_ex_##name params                    \
    {                                                                                              \
        count(from_exceptions(This), #name);                                                       \
        return S_OK;                                                                               \
    }
CLRIE_IINSTRUMENTATIONMETHODEXCEPTIONEVENTS_METHODS(COUNT_EXCEPTION,
                                                    IInstrumentationMethodExceptionEvents *This,
                                                    This)

/* ---- the ones that do more ------------------------------------------------------------- */

static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    struct probe *p = from_method(This);
    const char *mask = setting(p, "MASK");
    if (!manager)
        return E_POINTER;
    if (setting(p, "REJIT") && FAILED(manager->lpVtbl->QueryInterface(
                                   manager, &IID_IProfilerStringManager, (void **)&p->strings)))
        p->strings = NULL;
    if (!mask)
        return S_OK;
    ICorProfilerInfo *info = NULL;
    HRESULT hr = clrie_plugin_profiler_info(manager, &IID_ICorProfilerInfo, (void **)&info);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->SetEventMask(info, (DWORD)strtoul(mask, NULL, 16));
    clrie_plugin_release(info);
    return hr;
}

struct rejit_request {
    struct probe *p; /* a reference */
    IModuleInfo *module;
    mdMethodDef token;
};

static void request_rejit(void *arg)
{
    struct rejit_request *r = arg;
    usleep(50 * 1000);
    r->module->lpVtbl->RequestRejit(r->module, r->token);
    clrie_plugin_release(r->module);
    clrie_plugin_com_release(&r->p->com);
    free(r);
}

/* The method REJIT names, at its first compilation: asks for its ReJIT from a thread of its own,
 * as a plugin would outside the JIT's callback. */
static void maybe_request_rejit(struct probe *p, IMethodInfo *mi)
{
    const char *wanted = setting(p, "REJIT");
    char name[256];
    if (!wanted || atomic_load(&p->rejit_asked) ||
        FAILED(clrie_plugin_method_full_name(mi, p->strings, name, sizeof name)) ||
        strcmp(name, wanted) != 0 || atomic_exchange(&p->rejit_asked, true))
        return;
    struct rejit_request *r = calloc(1, sizeof *r);
    if (!r || FAILED(mi->lpVtbl->GetModuleInfo(mi, &r->module)) ||
        FAILED(mi->lpVtbl->GetMethodToken(mi, &r->token))) {
        if (r)
            clrie_plugin_release(r->module);
        free(r);
        return;
    }
    r->p = p;
    clrie_plugin_com_add_ref(&p->com);
    if (clrie_os_thread_start_detached(request_rejit, r) != 0) {
        clrie_plugin_release(r->module);
        clrie_plugin_com_release(&p->com);
        free(r);
    }
}

static HRESULT STDMETHODCALLTYPE probe_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *mi, BOOL isRejit,
                                                              BOOL *pbInstrument)
{
    struct probe *p = from_method(This);
    count(p, isRejit ? "ShouldInstrumentMethod(rejit)" : "ShouldInstrumentMethod");
    if (!pbInstrument || !mi)
        return E_POINTER;
    if (!isRejit)
        maybe_request_rejit(p, mi);
    *pbInstrument = FALSE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AllowInlineSite(IInstrumentationMethod *This,
                                                       IMethodInfo *inlinee, IMethodInfo *caller,
                                                       BOOL *pbAllowInline)
{
    count(from_method(This), "AllowInlineSite");
    if (!pbAllowInline)
        return E_POINTER;
    *pbAllowInline = TRUE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnShutdown(IInstrumentationMethod *This)
{
    struct probe *p = from_method(This);
    count(p, "OnShutdown");
    const char *path = getenv("CLRIE_DELIVERY_PROBE_FILE");
    int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd < 0)
        return S_OK;
    char text[4096];
    size_t used = 0;
    for (size_t i = 0; i < EVENT_COUNT && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s %s %lu\n", p->tag,
                                 event_names[i], (unsigned long)atomic_load(&p->counts[i]));
    if (used > sizeof text)
        used = sizeof text;
    ssize_t written = write(fd, text, used);
    (void)written;
    close(fd);
    return S_OK;
}

#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
// clang-format off
#define SLOT_IM(ret, name, params, args) .name = count_im_##name,
static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_IINSTRUMENTATIONMETHOD_METHODS(SLOT_IM, IInstrumentationMethod *This, This)
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(im),
    .Initialize = probe_Initialize,
    .ShouldInstrumentMethod = probe_ShouldInstrumentMethod,
    .AllowInlineSite = probe_AllowInlineSite,
    .OnShutdown = probe_OnShutdown,
};
#define SLOT_JIT(ret, name, params, args) .name = count_jit_##name,
static const struct IInstrumentationMethodJitEventsVtbl jit_vtbl = {
    CLRIE_IINSTRUMENTATIONMETHODJITEVENTS_METHODS(SLOT_JIT, IInstrumentationMethodJitEvents *This,
                                                  This)
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(jit),
};
#define SLOT_EX(ret, name, params, args) .name = count_ex_##name,
static const struct IInstrumentationMethodExceptionEventsVtbl exceptions_vtbl = {
    CLRIE_IINSTRUMENTATIONMETHODEXCEPTIONEVENTS_METHODS(SLOT_EX,
                                                        IInstrumentationMethodExceptionEvents *This,
                                                        This)
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(ex),
};
// clang-format on

static HRESULT create_probe(const CLSID *clsid, REFIID riid, void **out)
{
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &method_vtbl;
    p->jit.lpVtbl = &jit_vtbl;
    p->exceptions.lpVtbl = &exceptions_vtbl;
    snprintf(p->data1, sizeof p->data1, "%08X", clsid ? (unsigned)clsid->Data1 : 0u);
    const char *tag = setting(p, "TAG");
    snprintf(p->tag, sizeof p->tag, "%s", tag ? tag : p->data1);
    for (size_t i = 0; i < EVENT_COUNT; i++)
        atomic_init(&p->counts[i], 0);
    atomic_init(&p->rejit_asked, false);
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_probe)
