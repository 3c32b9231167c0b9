/* A plugin for test_settings.c: in Initialize it asks its IProfilerManager for
 * IInstrumentationMethodAttachContext, enumerates the settings and writes them, one
 * `name=value` line each (UTF-16 code units below 0x80 as they are, others as \uXXXX), to the
 * file named by CLRIE_SETTINGS_PROBE_FILE. Everything else answers S_OK (probe_plugin.c). */
#include <stdio.h>
#include <stdlib.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/plugin.h>

#include "probe_plugin.h"

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

HRESULT probe_plugin_initialize(IProfilerManager *manager)
{
    const char *path = getenv("CLRIE_SETTINGS_PROBE_FILE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return E_FAIL;
    HRESULT hr = record_settings(manager, f);
    fclose(f);
    return hr;
}
