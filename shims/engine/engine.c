/* libInstrumentationEngine.so: the profiler CoreCLR loads, under CLRIE's export names.
 * Plugins written for CLRIE find these exports with dlopen("libInstrumentationEngine.so",
 * RTLD_NOLOAD), so the file keeps CLRIE's name. */
#include "clrie/profmgr.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);
EXPORT HRESULT STDAPICALLTYPE GetInstrumentationEngineLogger(IProfilerManagerLogging **ppLogger);
EXPORT void STDAPICALLTYPE InstrumentationEngineFreeString(BSTR bstr);

HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    return clrie_pm_get_class_object(rclsid, riid, ppv);
}

HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    return clrie_pm_can_unload_now();
}

HRESULT STDAPICALLTYPE GetInstrumentationEngineLogger(IProfilerManagerLogging **ppLogger)
{
    return clrie_pm_get_logger(ppLogger);
}

void STDAPICALLTYPE InstrumentationEngineFreeString(BSTR bstr)
{
    clrie_pm_free_string(bstr);
}
