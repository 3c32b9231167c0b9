/* A plugin for test_settings.c: in Initialize it asks its IProfilerManager for
 * IInstrumentationMethodAttachContext, enumerates the settings and writes them, one
 * `name=value` line each (UTF-16 code units below 0x80 as they are, others as \uXXXX), to the
 * file named by CLRIE_SETTINGS_PROBE_FILE. Everything else answers S_OK. */
#include <stdio.h>
#include <stdlib.h>

#include <clrie/abi/instrumentation.h>

#define EXPORT __attribute__((visibility("default")))

static void put(FILE *f, IProfilerStringManager *strings, BSTR text)
{
    for (const WCHAR *c = text; c && *c; c++) {
        if (*c < 0x80)
            fputc((int)*c, f);
        else
            fprintf(f, "\\u%04X", (unsigned)*c);
    }
    strings->lpVtbl->FreeString(strings, text);
}

static HRESULT record_settings(IProfilerManager *manager, FILE *f)
{
    IProfilerStringManager *strings = NULL;
    IInstrumentationMethodAttachContext *context = NULL;
    IEnumInstrumentationMethodSettings *settings = NULL;
    HRESULT hr =
        manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager, (void **)&strings);
    if (SUCCEEDED(hr))
        hr = manager->lpVtbl->QueryInterface(manager, &IID_IInstrumentationMethodAttachContext,
                                             (void **)&context);
    if (SUCCEEDED(hr))
        hr = context->lpVtbl->EnumSettings(context, &settings);
    if (FAILED(hr)) {
        fprintf(f, "failed 0x%08X\n", (unsigned)hr);
        goto out;
    }
    DWORD count = 0;
    settings->lpVtbl->GetCount(settings, &count);
    fprintf(f, "count=%u\n", (unsigned)count);
    IInstrumentationMethodSetting *setting = NULL;
    ULONG fetched = 0;
    while (settings->lpVtbl->Next(settings, 1, &setting, &fetched) == S_OK && fetched == 1) {
        BSTR name = NULL, value = NULL;
        setting->lpVtbl->GetName(setting, &name);
        setting->lpVtbl->GetValue(setting, &value);
        put(f, strings, name);
        fputc('=', f);
        put(f, strings, value);
        fputc('\n', f);
        setting->lpVtbl->Release(setting);
    }
out:
    if (settings)
        settings->lpVtbl->Release(settings);
    if (context)
        context->lpVtbl->Release(context);
    if (strings)
        strings->lpVtbl->Release(strings);
    return hr;
}

static HRESULT probe_QueryInterface(IInstrumentationMethod *This, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IInstrumentationMethod)) {
        *ppv = This;
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG probe_ref(IInstrumentationMethod *This)
{
    (void)This;
    return 1;
}

static HRESULT probe_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    (void)This;
    const char *path = getenv("CLRIE_SETTINGS_PROBE_FILE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return E_FAIL;
    HRESULT hr = record_settings(manager, f);
    fclose(f);
    return hr;
}

#define ANSWER_OK(ret, name, params, args)                                                         \
    __attribute__((unused)) static ret ok_##name params                                            \
    {                                                                                              \
        return S_OK;                                                                               \
    }
CLRIE_IINSTRUMENTATIONMETHOD_METHODS(ANSWER_OK, IInstrumentationMethod *This, This)
#define SLOT(ret, name, params, args) .name = ok_##name,

#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
/* An X-macro table, then the slots it overrides. */
// clang-format off
static const struct IInstrumentationMethodVtbl probe_vtbl = {
    CLRIE_IINSTRUMENTATIONMETHOD_METHODS(SLOT, IInstrumentationMethod *This, This)
    .QueryInterface = probe_QueryInterface,
    .AddRef = probe_ref,
    .Release = probe_ref,
    .Initialize = probe_Initialize,
};
// clang-format on

static IInstrumentationMethod probe = {&probe_vtbl};

static HRESULT factory_QueryInterface(IClassFactory *This, REFIID riid, void **ppv)
{
    *ppv = This;
    return S_OK;
}

static ULONG factory_ref(IClassFactory *This)
{
    (void)This;
    return 1;
}

static HRESULT factory_CreateInstance(IClassFactory *This, IUnknown *outer, REFIID riid, void **ppv)
{
    (void)This, (void)outer;
    return probe_QueryInterface(&probe, riid, ppv);
}

static HRESULT factory_LockServer(IClassFactory *This, BOOL lock)
{
    (void)This, (void)lock;
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_QueryInterface,
    .AddRef = factory_ref,
    .Release = factory_ref,
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static IClassFactory factory = {&factory_vtbl};

EXPORT HRESULT DllGetClassObject(REFCLSID clsid, REFIID riid, void **ppv);
HRESULT DllGetClassObject(REFCLSID clsid, REFIID riid, void **ppv)
{
    (void)clsid, (void)riid;
    *ppv = &factory;
    return S_OK;
}
