/* A plugin for test_logging_hosts.c: Initialize keeps the IProfilerManager it was handed, so
 * that the test can act as the plugin of each runtime (each manager) through it;
 * logging_probe_manager(i) gives the i-th one kept (a borrowed reference, NULL past the end).
 * Every other slot answers S_OK. */
#include <stdatomic.h>
#include <stdlib.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/plugin.h>

#define MAX_MANAGERS 4

__attribute__((visibility("default"))) IProfilerManager *logging_probe_manager(int index);
__attribute__((visibility("default"))) void logging_probe_forget(void);

static IProfilerManager *managers[MAX_MANAGERS];
static atomic_int manager_count;

__attribute__((visibility("default"))) IProfilerManager *logging_probe_manager(int index)
{
    return index >= 0 && index < atomic_load(&manager_count) ? managers[index] : NULL;
}

/* The test releases what it took before the managers go; this drops the probe's own. */
__attribute__((visibility("default"))) void logging_probe_forget(void)
{
    int count = atomic_exchange(&manager_count, 0);
    for (int i = 0; i < count; i++) {
        clrie_plugin_release(managers[i]);
        managers[i] = NULL;
    }
}

struct probe {
    IInstrumentationMethod iface;
    struct clrie_plugin_com com;
};

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, iface),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "logging-probe",
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
    int index = atomic_load(&manager_count);
    if (!manager || index >= MAX_MANAGERS)
        return E_FAIL;
    manager->lpVtbl->AddRef(manager);
    managers[index] = manager;
    atomic_store(&manager_count, index + 1);
    return S_OK;
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
