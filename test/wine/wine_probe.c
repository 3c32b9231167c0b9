/* A minimal instrumentation method for the Windows real-runtime tests under Wine
 * (test/wine/test_wine.py). It is built with MinGW-w64 from clrie's ABI headers alone, not
 * libclrie-plugin (not ported to Windows yet), so that the same DLL loads into Microsoft's
 * CLRIE and into clrie's Windows engine and shows what each one gives a plugin.
 *
 * It rewrites nothing. It writes to the file CLRIE_WINE_PROBE_FILE (a Windows path):
 *
 *   initialize
 *   module <name>           each module loaded whose name is CLRIE_WINE_PROBE_MODULE
 *   method <full name>      each method of that module the engine asks about
 *   modules <N>             at shutdown: how many OnModuleLoaded calls came
 *   should-instrument <N>   at shutdown: how many ShouldInstrumentMethod calls came
 *   shutdown
 *
 * Callbacks arrive on any thread: the counters are atomic, and `lock` serialises the writes
 * to the file and its closing at shutdown. No <windows.h>: the ABI headers define the COM
 * types themselves, and oleaut32's SysFreeString is declared here. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/abi/instrumentation.h>

/* The Windows calling conventions of COM methods and of the exports, __stdcall on x86 and
 * empty on x64, for ABI headers from before base.h defined them. */
#if defined(_WIN32) && defined(__i386__)
#define WINE_PROBE_STDCALL __stdcall
#else
#define WINE_PROBE_STDCALL
#endif
#ifndef STDMETHODCALLTYPE
#define STDMETHODCALLTYPE WINE_PROBE_STDCALL
#endif
#ifndef STDAPICALLTYPE
#define STDAPICALLTYPE WINE_PROBE_STDCALL
#endif

/* {6B1E5C0A-3F7D-4C2B-9E41-8A2D5F0C7B13}: the class ID the test's configuration names. */
static const CLSID probe_clsid =
    CLRIE_ABI_GUID_INIT(0x6B1E5C0A, 0x3F7D, 0x4C2B, 0x9E, 0x41, 0x8A, 0x2D, 0x5F, 0x0C, 0x7B, 0x13);

/* The interface IDs the ABI headers declare, defined from their own lists. */
#define DEFINE_IID(name, ...) const IID IID_##name = CLRIE_ABI_GUID_INIT(__VA_ARGS__);
CLRIE_BASE_IIDS(DEFINE_IID)
CLRIE_INSTRUMENTATION_IIDS(DEFINE_IID)

__declspec(dllimport) void STDAPICALLTYPE SysFreeString(BSTR text);

struct probe {
    IInstrumentationMethod method;
    atomic_ulong refs;
    atomic_ulong modules;
    atomic_ulong should_instrument;
    atomic_flag lock; /* protects out */
    FILE *out;        /* NULL before Initialize and after OnShutdown */
    char module[260]; /* CLRIE_WINE_PROBE_MODULE */
};

static struct probe *from_method(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, method);
}

static void lock(struct probe *p)
{
    while (atomic_flag_test_and_set_explicit(&p->lock, memory_order_acquire))
        ;
}

static void unlock(struct probe *p)
{
    atomic_flag_clear_explicit(&p->lock, memory_order_release);
}

static void write_line(struct probe *p, const char *word, const char *text)
{
    lock(p);
    if (p->out) {
        fprintf(p->out, text[0] ? "%s %s\n" : "%s\n", word, text);
        fflush(p->out);
    }
    unlock(p);
}

/* A BSTR as UTF-8 into out (truncated to fit), then freed; "" when text is NULL. */
static void take_utf8(BSTR text, char *out, size_t size)
{
    size_t n = 0;
    for (const WCHAR *s = text; s && *s && n + 5 <= size; s++) {
        unsigned long c = *s;
        if (c >= 0xD800 && c < 0xDC00 && s[1] >= 0xDC00 && s[1] < 0xE000)
            c = 0x10000 + ((c - 0xD800) << 10) + (*++s - 0xDC00);
        if (c < 0x80) {
            out[n++] = (char)c;
        } else if (c < 0x800) {
            out[n++] = (char)(0xC0 | c >> 6);
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[n++] = (char)(0xE0 | c >> 12);
            out[n++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[n++] = (char)(0xF0 | c >> 18);
            out[n++] = (char)(0x80 | (c >> 12 & 0x3F));
            out[n++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[n] = 0;
    if (text)
        SysFreeString(text);
}

static int module_is_wanted(struct probe *p, IModuleInfo *module)
{
    BSTR name = NULL;
    char text[260];
    if (!module || FAILED(module->lpVtbl->GetModuleName(module, &name)))
        return 0;
    take_utf8(name, text, sizeof text);
    return p->module[0] && strcmp(text, p->module) == 0;
}

static HRESULT STDMETHODCALLTYPE probe_QueryInterface(IInstrumentationMethod *This, REFIID riid,
                                                      void **out)
{
    if (!out)
        return E_POINTER;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IInstrumentationMethod)) {
        *out = NULL;
        return E_NOINTERFACE;
    }
    This->lpVtbl->AddRef(This);
    *out = This;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE probe_AddRef(IInstrumentationMethod *This)
{
    return (ULONG)atomic_fetch_add(&from_method(This)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE probe_Release(IInstrumentationMethod *This)
{
    struct probe *p = from_method(This);
    ULONG left = (ULONG)atomic_fetch_sub(&p->refs, 1) - 1;
    if (left == 0) {
        if (p->out)
            fclose(p->out);
        free(p);
    }
    return left;
}

static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    struct probe *p = from_method(This);
    const char *path = getenv("CLRIE_WINE_PROBE_FILE");
    const char *module = getenv("CLRIE_WINE_PROBE_MODULE");
    (void)manager;
    if (!path)
        return E_FAIL;
    snprintf(p->module, sizeof p->module, "%s", module ? module : "");
    lock(p);
    p->out = fopen(path, "w");
    unlock(p);
    if (!p->out)
        return E_FAIL;
    write_line(p, "initialize", "");
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnModuleLoaded(IInstrumentationMethod *This,
                                                      IModuleInfo *module)
{
    struct probe *p = from_method(This);
    atomic_fetch_add(&p->modules, 1);
    if (module_is_wanted(p, module))
        write_line(p, "module", p->module);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnShutdown(IInstrumentationMethod *This)
{
    struct probe *p = from_method(This);
    lock(p);
    if (p->out) {
        fprintf(p->out, "modules %lu\nshould-instrument %lu\nshutdown\n",
                (unsigned long)atomic_load(&p->modules),
                (unsigned long)atomic_load(&p->should_instrument));
        fclose(p->out);
        p->out = NULL;
    }
    unlock(p);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *method, BOOL is_rejit,
                                                              BOOL *instrument)
{
    struct probe *p = from_method(This);
    IModuleInfo *module = NULL;
    (void)is_rejit;
    atomic_fetch_add(&p->should_instrument, 1);
    if (instrument)
        *instrument = FALSE;
    if (SUCCEEDED(method->lpVtbl->GetModuleInfo(method, &module)) && module) {
        int wanted = module_is_wanted(p, module);
        module->lpVtbl->Release(module);
        BSTR name = NULL;
        char text[1024];
        if (wanted && SUCCEEDED(method->lpVtbl->GetFullName(method, &name))) {
            take_utf8(name, text, sizeof text);
            write_line(p, "method", text);
        }
    }
    return S_OK;
}

/* The events this probe does not look at. */
static HRESULT STDMETHODCALLTYPE probe_OnAppDomain(IInstrumentationMethod *This,
                                                   IAppDomainInfo *domain)
{
    (void)This, (void)domain;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnAssembly(IInstrumentationMethod *This,
                                                  IAssemblyInfo *assembly)
{
    (void)This, (void)assembly;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnModuleUnloaded(IInstrumentationMethod *This,
                                                        IModuleInfo *module)
{
    (void)This, (void)module;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_OnMethod(IInstrumentationMethod *This, IMethodInfo *method,
                                                BOOL is_rejit)
{
    (void)This, (void)method, (void)is_rejit;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AllowInlineSite(IInstrumentationMethod *This,
                                                       IMethodInfo *inlinee, IMethodInfo *caller,
                                                       BOOL *allow)
{
    (void)This, (void)inlinee, (void)caller;
    if (allow)
        *allow = TRUE;
    return S_OK;
}

static const struct IInstrumentationMethodVtbl probe_vtbl = {
    .QueryInterface = probe_QueryInterface,
    .AddRef = probe_AddRef,
    .Release = probe_Release,
    .Initialize = probe_Initialize,
    .OnAppDomainCreated = probe_OnAppDomain,
    .OnAppDomainShutdown = probe_OnAppDomain,
    .OnAssemblyLoaded = probe_OnAssembly,
    .OnAssemblyUnloaded = probe_OnAssembly,
    .OnModuleLoaded = probe_OnModuleLoaded,
    .OnModuleUnloaded = probe_OnModuleUnloaded,
    .OnShutdown = probe_OnShutdown,
    .ShouldInstrumentMethod = probe_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = probe_OnMethod,
    .InstrumentMethod = probe_OnMethod,
    .OnInstrumentationComplete = probe_OnMethod,
    .AllowInlineSite = probe_AllowInlineSite,
};

/* The class factory: one static object, its reference count meaningless. */
static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IClassFactory *This, REFIID riid,
                                                        void **out)
{
    if (!out)
        return E_POINTER;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IClassFactory)) {
        *out = NULL;
        return E_NOINTERFACE;
    }
    *out = This;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE factory_AddRef(IClassFactory *This)
{
    (void)This;
    return 2;
}

static ULONG STDMETHODCALLTYPE factory_Release(IClassFactory *This)
{
    (void)This;
    return 1;
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *This, IUnknown *outer,
                                                        REFIID riid, void **out)
{
    (void)This;
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->method.lpVtbl = &probe_vtbl;
    atomic_init(&p->refs, 1);
    atomic_flag_clear(&p->lock);
    HRESULT hr = probe_QueryInterface(&p->method, riid, out);
    probe_Release(&p->method);
    return hr;
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *This, BOOL lock_it)
{
    (void)This, (void)lock_it;
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_QueryInterface,
    .AddRef = factory_AddRef,
    .Release = factory_Release,
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static IClassFactory factory = {&factory_vtbl};

__declspec(dllexport) HRESULT STDAPICALLTYPE
    DllGetClassObject(REFCLSID clsid, REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!IsEqualCLSID(clsid, &probe_clsid))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_QueryInterface(&factory, riid, out);
}

/* The probe never asks to be unloaded: an engine may call it after OnShutdown. */
__declspec(dllexport) HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    return S_FALSE;
}
