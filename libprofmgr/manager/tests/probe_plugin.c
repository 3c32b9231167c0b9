/* The plugin of the manager's probe modules (probe_plugin.h). */
#include <stdlib.h>

#include <clrie/plugin.h>

#include "probe_plugin.h"

struct probe {
    IInstrumentationMethod iface;
    struct clrie_plugin_com com;
};

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, iface),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "manager-test-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = free,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, IInstrumentationMethod, struct probe, iface, com)

static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *manager)
{
    (void)This;
    return probe_plugin_initialize(manager);
}

#define ANSWER_OK(ret, name, params, args)                                                         \
    __attribute__((unused)) static ret STDMETHODCALLTYPE ok_##name params                          \
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
