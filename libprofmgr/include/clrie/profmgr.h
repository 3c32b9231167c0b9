/* clrie/profmgr.h: the profiler manager, for shared objects that host it.
 *
 * The engine shim (libInstrumentationEngine.so) is the first four functions below behind
 * CLRIE's export names. A product that builds its own profiler around clrie links
 * libclrie-profmgr (pkg-config clrie-profmgr, Meson dependency('clrie-profmgr'), CMake
 * clrie::profmgr) and either exports those four the same way, or answers its own class ID
 * with its own object that hands the runtime's callbacks to a manager made by
 * clrie_pm_profiler_create (examples/custom-profiler does that). The COM interfaces are in
 * the clrie/abi headers.
 *
 * Environment: a manager reads what the engine reads (the MicrosoftInstrumentationEngine_*
 * config paths and log settings) whichever class ID the runtime loaded it under; the log
 * settings are read once per process, when the first manager is made. */
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

/* A new, independent profiler manager, queried for iid into *out: the object CoreCLR talks to
 * (ICorProfilerCallback up to ICorProfilerCallback11, and IUnknown), whatever class ID the
 * runtime was told to load. It is what CLSID_CProfilerManager's CreateInstance returns, with
 * the same logging, config files and plugin loading, for a profiler that has its own class ID
 * and forwards the runtime's callbacks to it.
 *
 * Returns S_OK, E_POINTER (iid or out NULL), E_NOINTERFACE (iid is none of those; *out is
 * NULL and no manager is left behind) or E_OUTOFMEMORY.
 *
 * Ownership: on S_OK the caller owns the one reference in *out and drops it with Release; the
 * manager, its plugins and what they hold live until the last reference goes. The runtime
 * never releases its profiler, so in practice a manager lives as long as the process; its
 * Shutdown callback releases the plugins. After the first manager is made,
 * clrie_pm_can_unload_now answers S_FALSE.
 *
 * Use: forward Initialize first, then every callback the runtime makes, unchanged and on the
 * thread it arrives on; forward each one exactly once. The manager calls SetEventMask on the
 * runtime's ICorProfilerInfo (in Initialize, and whenever a plugin changes its events), so
 * the forwarding profiler must not set the event mask itself.
 *
 * Threads: clrie_pm_profiler_create may be called from any thread, at any time; managers share
 * nothing but the process log. A manager's callbacks may be called from any thread at the
 * same time, as the runtime does. */
HRESULT clrie_pm_profiler_create(REFIID iid, void **out);

/* The engine's version, e.g. "1.0.0". */
const char *clrie_pm_version(void);

#ifdef __cplusplus
}
#endif

#endif
