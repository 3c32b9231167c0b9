/* A plugin for test_settings.c: in Initialize it asks its IProfilerManager for
 * IInstrumentationMethodAttachContext, enumerates the settings and writes them, one
 * `name=value` line each (UTF-16 code units below 0x80 as they are, others as \uXXXX), to the
 * file named by CLRIE_SETTINGS_PROBE_FILE. Everything else answers S_OK. */
#include <stdio.h>
#include <stdlib.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/plugin.h>

static void put(FILE *f, IProfilerStringManager *strings, BSTR text)
{
    for (const WCHAR *c = text; c && *c; c++) {
        if (*c < 0x80)
            fputc((int)*c, f);
        else
            fprintf(f, "\\u%04X", (unsigned)*c);
    }
    clrie_plugin_free_bstr(strings, text);
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
        clrie_plugin_release(setting);
    }
out:
    clrie_plugin_release(settings);
    clrie_plugin_release(context);
    clrie_plugin_release(strings);
    return hr;
}

struct probe {
    IInstrumentationMethod iface;
    struct clrie_plugin_com com;
};

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, iface),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "settings-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = free,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, IInstrumentationMethod, struct probe, iface, com)

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
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe),
    .Initialize = probe_Initialize,
};
// clang-format on

/* ---- DllGetClassObject and DllCanUnloadNow: libclrie-plugin's class factory ------------------ */

static HRESULT create_probe(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &probe_vtbl;
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_probe)
