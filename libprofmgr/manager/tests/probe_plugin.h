/* The plugin the manager's probe modules (logging_probe.c, settings_probe.c) are, compiled into
 * each (meson.build): an IInstrumentationMethod whose every slot answers S_OK but Initialize,
 * which is the probe's own probe_plugin_initialize; DllGetClassObject (any class ID) and
 * DllCanUnloadNow from libclrie-plugin. */
#ifndef CLRIE_PM_TESTS_PROBE_PLUGIN_H
#define CLRIE_PM_TESTS_PROBE_PLUGIN_H

#include <clrie/abi/instrumentation.h>

/* What IInstrumentationMethod::Initialize answers, with the manager it was handed. Defined by
 * each probe. */
HRESULT probe_plugin_initialize(IProfilerManager *manager);

#endif
