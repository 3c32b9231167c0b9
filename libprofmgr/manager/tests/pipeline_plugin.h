/* The plugin of the JIT pipeline's tests (pipeline_plugin.c): an IInstrumentationMethod with
 * JitEvents2 and ExceptionEvents that edits the methods it is told to through the COM
 * interfaces, the way third-party plugins do, and records what it saw. The engine loads it from
 * a configuration file naming pipeline_plugin_shim.c's module, whose DllGetClassObject comes
 * back to pipeline_test_get_class_object here.
 *
 * A test sets plugin_cfg before the manager is created and reads the records after; plugin
 * callbacks may run on several threads at once (records are written under plugin_cfg.lock). */
#ifndef CLRIE_PM_TESTS_PIPELINE_PLUGIN_H
#define CLRIE_PM_TESTS_PIPELINE_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/os/thread.h"

/* The plugin's class, as a configuration file names it; the second class makes a plugin that
 * applies second_action when second_wants, and otherwise declines every method. */
#define PIPELINE_PLUGIN_CLSID_TEXT "{6A3B1D52-0F7C-4E1B-9D5E-2C1F00C0FFEE}"
#define PIPELINE_SECOND_PLUGIN_CLSID_TEXT "{6A3B1D52-0F7C-4E1B-9D5E-2C1F00C0FFEF}"

enum action {
    DO_NOTHING,  /* says yes, changes nothing */
    INSERT_CALL, /* `call Helper; add` before every ret */
    DEEP,        /* nine ldc.i4.0 then nine pop first */
    ADD_LOCAL,   /* a new int32 local, `ldc.i4.5; stloc.0` first */
    WRAP,        /* single ret, then the whole body in a new try/finally */
    FAIL,        /* InstrumentMethod fails */
    INVALID,     /* a pop first: stack underflow */
    NOP,         /* a nop before every ret */
    HOSTILE,     /* bad arguments through every interface (and bad baselines before it, once
                    Small's first instruction is kept); keeps Small's first instruction */
    BASELINE,    /* BeforeInstrumentMethod: CreateBaseline `ldc.i4.s 99; ret`; then INSERT_CALL */
    KEEP,        /* INSERT_CALL, and keeps the method info and its graph after the callback */
    SIG_TOKEN,   /* SetLocalVarSigToken(Multi's local signature) */
    EMPTY,       /* removes every instruction */
    FALL_OFF,    /* every ret becomes a nop: execution falls off the end */
    BLOCK,       /* InstrumentMethod sets `inside` and waits for `go` (changes nothing) */
    SHOULD_FAIL, /* ShouldInstrumentMethod fails for the target */
    IN_PLACE,    /* Multi's first branch retargeted (every instruction stays in its place) */
};

#define MAX_SEEN 8

struct pipeline_plugin_config {
    struct clrie_os_mutex lock; /* protects the records below */
    /* set by the test before the manager is made */
    const char *target; /* the method name (or name prefix) to instrument; NULL: none */
    bool prefix;
    enum action action;
    const char *deny_inline; /* AllowInlineSite says no for this inlinee */
    bool exceptions;         /* subscribe to exception events */
    DWORD codegen_flags;     /* IMethodInfo::SetRejitCodeGenFlags at a ReJIT */
    bool second_wants;       /* the second plugin instruments the target too */
    enum action second_action;
    struct clrie_os_cond changed; /* signalled when `inside` or `go` changes (BLOCK); made by
                                     the test's main */
    bool inside, go;
    /* records */
    int should_calls, instrument_calls, complete_calls;
    /* OnAppDomainCreated, OnAssemblyLoaded, OnModuleLoaded for PF_MODULE, AttachComplete */
    int domains_created, assemblies_loaded, module_loads, attach_complete_calls;
    char order[64]; /* "first " or "second " per InstrumentMethod call */
    BOOL last_rejit;
    DWORD last_rejit_count;
    char exception_names[MAX_SEEN][64];
    int exception_count;
    bool jit_complete_seen;
    BOOL transformed;
    ULONG32 map_count;
    COR_IL_MAP map[MAX_SEEN];
    HRESULT jit_hr;
    mdToken jit_token;
    BOOL jit_rejit;
    UINT_PTR native_code;
    ULONG32 native_map_count;
    HRESULT jit_info_hr; /* the first IMethodJitInfo2 call that did not answer S_OK */
    HRESULT baseline_before, baseline_late;
    HRESULT info_only_il; /* GetInstructions on an exception event's method info */
    HRESULT hostile[32];
    int hostile_count;
    IInstruction *foreign; /* from another method, for HOSTILE */
    IModuleInfo *module;   /* PF_MODULE, from OnModuleLoaded */
    IMethodInfo *kept;     /* KEEP: released after the manager is gone */
    IInstructionGraph *kept_graph;
};

extern struct pipeline_plugin_config plugin_cfg;

/* Plugin objects alive. */
int pipeline_plugins_live(void);
/* IMethodInfo::GetFullName in ASCII ('?' for the rest); "" when it fails. */
void pipeline_plugin_full_name(IMethodInfo *mi, char *out, size_t size);
/* What the shim's DllGetClassObject forwards to (test_pipeline.c gives it to the shim). */
HRESULT pipeline_test_get_class_object(REFCLSID clsid, REFIID iid, void **out);

#endif
