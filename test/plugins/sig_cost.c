/* Measures the runtime's IMetaDataEmit::GetTokenFromSig alone against the number of StandAloneSig
 * rows of a module: the part of committing a method's new locals that clrie cannot take away
 * (the runtime compares every new signature with every row before it adds one). When the module
 * named below has loaded, the plugin commits CALLS signatures the module has never had, one
 * after the other, each adding a row, and writes the median thread-CPU time of each batch of 500
 * calls with the rows the module had when the batch began. test/bench-flatcost prints them.
 *
 * Environment:
 *   CLRIE_SIG_COST_MODULE  the module's file name (flat.dll)
 *   CLRIE_SIG_COST_CALLS   how many signatures to commit (default 16000, at most 200000)
 *   CLRIE_SIG_COST_OUT     the file it writes: `rows=<n> median_us=<t>` per batch, then `done`
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <clrie/plugin.h>

#define BATCH 500
#define STANDALONE_SIG_TABLE 0x11

struct sig_cost {
    IInstrumentationMethod method;
    struct clrie_plugin_com com;
};

/* A LOCAL_SIG of five primitive locals that spells k in base 12: distinct for every k below
 * 12^5, and unlike any signature of flatgen's modules (four locals). */
static void signature(unsigned long k, uint8_t out[7])
{
    static const uint8_t primitives[12] = {0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                           0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D};
    out[0] = 0x07;
    out[1] = 5;
    for (int i = 0; i < 5; i++, k /= 12)
        out[2 + i] = primitives[k % 12];
}

static double thread_cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(IMetaDataEmit *emit, ULONG rows, unsigned long calls, FILE *out)
{
    double times[BATCH];
    for (unsigned long done = 0; done + BATCH <= calls; done += BATCH) {
        for (int i = 0; i < BATCH; i++) {
            uint8_t sig[7];
            mdSignature token = 0;
            signature(done + (unsigned long)i, sig);
            double start = thread_cpu_us();
            HRESULT hr = emit->lpVtbl->GetTokenFromSig(emit, sig, sizeof sig, &token);
            times[i] = thread_cpu_us() - start;
            if (FAILED(hr)) {
                fprintf(out, "GetTokenFromSig failed: 0x%08X\n", (unsigned)hr);
                return;
            }
        }
        qsort(times, BATCH, sizeof times[0], by_value);
        fprintf(out, "rows=%lu median_us=%.2f\n", (unsigned long)rows + done, times[BATCH / 2]);
    }
}

static HRESULT STDMETHODCALLTYPE sig_cost_OnModuleLoaded(IInstrumentationMethod *This,
                                                         IModuleInfo *module)
{
    (void)This;
    const char *wanted = getenv("CLRIE_SIG_COST_MODULE");
    const char *path = getenv("CLRIE_SIG_COST_OUT");
    const char *calls_text = getenv("CLRIE_SIG_COST_CALLS");
    unsigned long calls = calls_text ? strtoul(calls_text, NULL, 10) : 16000;
    if (!wanted || !path || calls > 200000)
        return S_OK;
    BSTR name_bstr = NULL;
    char name[256] = "";
    if (FAILED(module->lpVtbl->GetModuleName(module, &name_bstr)) || !name_bstr)
        return S_OK;
    clrie_plugin_bstr_to_utf8_buf(name_bstr, name, sizeof name);
    clrie_plugin_free_bstr(NULL, name_bstr);
    if (strcasecmp(name, wanted) != 0)
        return S_OK;

    IUnknown *unknown = NULL;
    IMetaDataEmit *emit = NULL;
    IMetaDataTables *tables = NULL;
    ULONG rows = 0;
    FILE *out = fopen(path, "w");
    if (!out)
        return S_OK;
    if (SUCCEEDED(module->lpVtbl->GetMetaDataImport(module, &unknown)) && unknown &&
        SUCCEEDED(unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataTables, (void **)&tables)))
        tables->lpVtbl->GetTableInfo(tables, STANDALONE_SIG_TABLE, NULL, &rows, NULL, NULL, NULL);
    clrie_plugin_release(unknown);
    unknown = NULL;
    if (SUCCEEDED(module->lpVtbl->GetMetaDataEmit(module, &unknown)) && unknown &&
        SUCCEEDED(unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataEmit, (void **)&emit)))
        measure(emit, rows, calls, out);
    else
        fprintf(out, "no metadata emitter\n");
    fprintf(out, "done\n");
    fclose(out);
    clrie_plugin_release(unknown);
    clrie_plugin_release(emit);
    clrie_plugin_release(tables);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE sig_cost_Initialize(IInstrumentationMethod *This,
                                                     IProfilerManager *manager)
{
    (void)This, (void)manager;
    return S_OK;
}

CLRIE_PLUGIN_COM_IUNKNOWN(sig_cost, IInstrumentationMethod, struct sig_cost, method, com)

static const struct IInstrumentationMethodVtbl sig_cost_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(sig_cost),
    .Initialize = sig_cost_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = sig_cost_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    CLRIE_PLUGIN_INSTRUMENT_NOTHING,
};

static void sig_cost_destroy(void *object)
{
    free(object);
}

static const struct clrie_plugin_com_iface sig_cost_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct sig_cost, method),
};

static const struct clrie_plugin_com_class sig_cost_class = {
    .name = "sig-cost",
    .ifaces = sig_cost_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(sig_cost_ifaces),
    .com_offset = offsetof(struct sig_cost, com),
    .destroy = sig_cost_destroy,
    .module_ref = true,
};

static HRESULT sig_cost_create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct sig_cost *s = calloc(1, sizeof *s);
    if (!s)
        return E_OUTOFMEMORY;
    s->method.lpVtbl = &sig_cost_vtbl;
    clrie_plugin_com_init(&s->com, &sig_cost_class);
    return clrie_plugin_com_give(&s->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(sig_cost_create)
