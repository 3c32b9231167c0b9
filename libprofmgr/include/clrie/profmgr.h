/* clrie/profmgr.h: the profiler manager, for shared objects that host it.
 *
 * The engine shim (libInstrumentationEngine.so) is these four functions behind CLRIE's export
 * names; a product that builds its own profiler around clrie links libclrie-profmgr and
 * exports them the same way. The COM interfaces are in the clrie/abi headers. */
#ifndef CLRIE_PROFMGR_H
#define CLRIE_PROFMGR_H

#include "clrie/abi/instrumentation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DllGetClassObject: the class factory for CLSID_CProfilerManager
 * ({324F817A-7420-4E6D-B3C1-143FBED6D855}), as IClassFactory or IUnknown. Any other class ID
 * gets CLASS_E_CLASSNOTAVAILABLE and a log line. Each CreateInstance makes an independent
 * profiler manager, so several runtimes in one process each get their own. Thread-safe. */
HRESULT clrie_pm_get_class_object(REFCLSID clsid, REFIID iid, void **out);

/* DllCanUnloadNow: S_OK while no profiler manager was ever created, S_FALSE after (plugins
 * loaded by a manager may call back into the engine at any time). */
HRESULT clrie_pm_can_unload_now(void);

/* GetInstrumentationEngineLogger: the engine's process-wide logger. Not reference counted. */
HRESULT clrie_pm_get_logger(IProfilerManagerLogging **out);

/* InstrumentationEngineFreeString: frees a BSTR the engine returned. NULL is fine. */
void clrie_pm_free_string(BSTR text);

/* The engine's version, e.g. "1.0.0". */
const char *clrie_pm_version(void);

#ifdef __cplusplus
}
#endif

#endif
