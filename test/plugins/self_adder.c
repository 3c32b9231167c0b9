/* A plugin that tries to load itself again from its own Initialize, through both routes a
 * plugin has: IProfilerManager::AddInstrumentationMethod with its own module and ClassGuid,
 * and IProfilerManager::SetupProfilingEnvironment with a config file naming it. The engine
 * must refuse both (the plugin is already being loaded) instead of loading it again and
 * again. test/dotnet/test_loading.py runs it.
 *
 * Environment:
 *   CLRIE_SELF_ADDER_FILE    where it appends its lines (required)
 *   CLRIE_SELF_ADDER_MODULE  its own .so, for AddInstrumentationMethod
 *   CLRIE_SELF_ADDER_GUID    its own ClassGuid, braced
 *   CLRIE_SELF_ADDER_CONFIG  a config file naming it, for SetupProfilingEnvironment
 *
 * Lines:
 *   initialize <n>           the n-th Initialize of any instance (1 is the only right answer)
 *   add hr=0x<hr>            what AddInstrumentationMethod returned
 *   setup hr=0x<hr>          what SetupProfilingEnvironment returned
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/plugin.h>

struct self_adder {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
};

static atomic_int initializations;

__attribute__((format(__printf__, 1, 2))) static void note(const char *fmt, ...)
{
    const char *path = getenv("CLRIE_SELF_ADDER_FILE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fclose(f);
    }
}

/* A BSTR of ASCII text: the byte length in the 4 bytes before the text, then a 0. */
static BSTR bstr(const char *text)
{
    if (!text)
        return NULL;
    size_t len = strlen(text);
    uint32_t *block = calloc(1, 4 + 2 * (len + 1));
    if (!block)
        return NULL;
    block[0] = (uint32_t)(2 * len);
    WCHAR *out = (WCHAR *)(block + 1);
    for (size_t i = 0; i < len; i++)
        out[i] = (WCHAR)(unsigned char)text[i];
    return (BSTR)(block + 1);
}

static void bstr_free(BSTR text)
{
    if (text)
        free((uint32_t *)(void *)text - 1);
}

static HRESULT STDMETHODCALLTYPE self_adder_Initialize(IInstrumentationMethod *This,
                                                       IProfilerManager *manager)
{
    int n = atomic_fetch_add(&initializations, 1) + 1;
    note("initialize %u", (unsigned)n);
    if (n > 3)
        return S_OK; /* the engine failed: keep the damage finite */

    BSTR module = bstr(getenv("CLRIE_SELF_ADDER_MODULE"));
    BSTR guid = bstr(getenv("CLRIE_SELF_ADDER_GUID"));
    BSTR name = bstr("SelfAdderAgain"), description = bstr("added from its own Initialize");
    if (module && guid) {
        IInstrumentationMethod *again = NULL;
        HRESULT hr = manager->lpVtbl->AddInstrumentationMethod(manager, NULL, name, description,
                                                               module, guid, 60, &again);
        note("add hr=0x%08X", (unsigned)hr);
        if (again)
            again->lpVtbl->Release(again);
    }
    bstr_free(module);
    bstr_free(guid);
    bstr_free(name);
    bstr_free(description);

    BSTR config = bstr(getenv("CLRIE_SELF_ADDER_CONFIG"));
    if (config) {
        HRESULT hr = manager->lpVtbl->SetupProfilingEnvironment(manager, &config, 1);
        note("setup hr=0x%08X", (unsigned)hr);
        bstr_free(config);
    }
    return S_OK;
}

CLRIE_PLUGIN_COM_IUNKNOWN(self_adder, IInstrumentationMethod, struct self_adder, method, com)

static const struct IInstrumentationMethodVtbl self_adder_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(self_adder),
    .Initialize = self_adder_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    CLRIE_PLUGIN_INSTRUMENT_NOTHING,
};

static void self_adder_destroy(void *object)
{
    free(object);
}

static const struct clrie_plugin_com_iface self_adder_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct self_adder, method),
};

static const struct clrie_plugin_com_class self_adder_class = {
    .name = "self-adder",
    .ifaces = self_adder_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(self_adder_ifaces),
    .com_offset = offsetof(struct self_adder, com),
    .destroy = self_adder_destroy,
    .module_ref = true,
};

static HRESULT self_adder_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct self_adder *s = calloc(1, sizeof *s);
    if (!s)
        return E_OUTOFMEMORY;
    s->method.lpVtbl = &self_adder_vtbl;
    clrie_plugin_com_init(&s->com, &self_adder_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(self_adder_create)
