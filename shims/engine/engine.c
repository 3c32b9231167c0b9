/* libInstrumentationEngine.so (MicrosoftInstrumentationEngine_x64.dll, _x86.dll on Windows):
 * the profiler CoreCLR loads, under CLRIE's export names. Plugins written for CLRIE find these
 * exports in the loaded module of that name, so the file keeps CLRIE's name. */
#include "clrie/profmgr.h"

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);
CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE
GetInstrumentationEngineLogger(IProfilerManagerLogging **ppLogger);
CLRIE_ABI_EXPORT void STDAPICALLTYPE InstrumentationEngineFreeString(BSTR bstr);

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
