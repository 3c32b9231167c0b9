/* timer: what the plugin object (timer.c) and the IL rewrite (rewrite.c) share. */
#ifndef CLRIE_EXAMPLE_TIMER_H
#define CLRIE_EXAMPLE_TIMER_H

#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>
#include <clrie/plugin.h>

/* A method to time and the user string of its name. */
struct timed_method {
    mdMethodDef token;
    mdString name;
};

/* What OnModuleLoaded prepared for one module: its timed_methods and the helper's members. */
struct module_plan {
    struct clrie_plugin_plan base;
    mdMemberRef enter; /* Clrie.Timer.Probe::Enter(string) -> int64 */
    mdMemberRef exit;  /* Clrie.Timer.Probe::Exit(string, int64, string) */
    mdString output;   /* the Output setting; mdTokenNil: none (Exit gets null) */
};

/* Wraps one selected method (see timer.c's comment). S_OK when rewritten, S_FALSE when the
 * method is left as it is (a tail call or a byref return), a failure HRESULT otherwise (the
 * engine then leaves the method unchanged). */
HRESULT timer_rewrite(IMethodInfo *method, const struct timed_method *timed,
                      const struct module_plan *plan);

#endif
