/* The JIT and ReJIT pipeline end to end against a fake runtime (pipeline_fakes.h), so that it
 * runs under the sanitizers (the engine cannot load into a sanitized dotnet). A real manager is
 * created through the class factory, initialised with the fake ICorProfilerInfo15, told about
 * an app domain, an assembly and its modules, and loads a plugin from a configuration file as
 * in production; the plugin (below, reached through pipeline_plugin_shim.c) edits methods
 * through the COM interfaces the way third-party plugins do. Each test checks what the runtime
 * received (bodies, IL maps, ReJIT requests), what the plugin observed, the log, and that every
 * reference the engine took was given back. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/config.h"
#include "clrie/ilgraph.h"
#include "clrie/profmgr.h"
#include "pipeline_fakes.h"

#define COR_ILEXCEPTION_CLAUSE_FINALLY 2u

/* {6A3B1D52-0F7C-4E1B-9D5E-2C1F00C0FFEE} */
static const CLSID plugin_clsid = {
    0x6A3B1D52, 0x0F7C, 0x4E1B, {0x9D, 0x5E, 0x2C, 0x1F, 0x00, 0xC0, 0xFF, 0xEE}};

/* ---- what the plugin does, set per test, and what it saw ------------------------------------ */

enum action {
    DO_NOTHING,  /* says yes, changes nothing */
    INSERT_CALL, /* `call Helper; add` before every ret */
    DEEP,        /* nine ldc.i4.0 then nine pop first */
    ADD_LOCAL,   /* a new int32 local, `ldc.i4.5; stloc.0` first */
    WRAP,        /* single ret, then the whole body in a new try/finally */
    FAIL,        /* InstrumentMethod fails */
    INVALID,     /* a pop first: stack underflow */
    NOP,         /* a nop before every ret */
    HOSTILE,     /* bad arguments through every interface; keeps Small's first instruction */
    BASELINE,    /* BeforeInstrumentMethod: CreateBaseline `ldc.i4.s 99; ret`; then INSERT_CALL */
    KEEP,        /* INSERT_CALL, and keeps the method info and its graph after the callback */
    SIG_TOKEN,   /* SetLocalVarSigToken(Multi's local signature) */
};

#define MAX_SEEN 8

static struct {
    pthread_mutex_t lock; /* protects the records below */
    /* set by the test before the manager is made */
    const char *target; /* the method name (or name prefix) to instrument; NULL: none */
    bool prefix;
    enum action action;
    const char *deny_inline; /* AllowInlineSite says no for this inlinee */
    bool exceptions;         /* subscribe to exception events */
    DWORD codegen_flags;     /* IMethodInfo::SetRejitCodeGenFlags at a ReJIT */
    /* records */
    int should_calls, instrument_calls, complete_calls;
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
    HRESULT jit_info_hr; /* the first IMethodJitInfo2 call that did not answer S_OK */
    HRESULT baseline_before, baseline_late;
    HRESULT info_only_il; /* GetInstructions on an exception event's method info */
    HRESULT hostile[32];
    int hostile_count;
    IInstruction *foreign; /* from another method, for HOSTILE */
    IModuleInfo *module;   /* PF_MODULE, from OnModuleLoaded */
    IMethodInfo *kept;     /* KEEP: released after the manager is gone */
    IInstructionGraph *kept_graph;
} cfg = {.lock = PTHREAD_MUTEX_INITIALIZER};

static atomic_int plugins_live;

static void narrow(BSTR text, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; text && text[i] && n + 1 < size; i++)
        out[n++] = text[i] < 0x80 ? (char)text[i] : '?';
    out[n] = '\0';
    clrie_pm_free_string(text);
}

static void method_name(IMethodInfo *mi, char *out, size_t size)
{
    BSTR text = NULL;
    out[0] = '\0';
    if (SUCCEEDED(mi->lpVtbl->GetName(mi, &text)))
        narrow(text, out, size);
}

static void full_name(IMethodInfo *mi, char *out, size_t size)
{
    BSTR text = NULL;
    out[0] = '\0';
    if (SUCCEEDED(mi->lpVtbl->GetFullName(mi, &text)))
        narrow(text, out, size);
}

static bool is_target(IMethodInfo *mi)
{
    char name[64];
    method_name(mi, name, sizeof(name));
    if (!cfg.target)
        return false;
    return cfg.prefix ? strncmp(name, cfg.target, strlen(cfg.target)) == 0
                      : strcmp(name, cfg.target) == 0;
}

static void release(void *object)
{
    if (object)
        ((IUnknown *)object)->lpVtbl->Release((IUnknown *)object);
}

/* ---- the plugin's edits, through the COM interfaces ----------------------------------------- */

struct edit {
    IMethodInfo *mi;
    IInstructionGraph *graph;
    IInstructionFactory *factory;
};

static HRESULT edit_begin(IMethodInfo *mi, struct edit *e)
{
    *e = (struct edit){.mi = mi};
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &e->graph);
    return SUCCEEDED(hr) ? mi->lpVtbl->GetInstructionFactory(mi, &e->factory) : hr;
}

static void edit_end(struct edit *e)
{
    release(e->graph);
    release(e->factory);
}

/* Inserts a new instruction of factory's making before (or after) `at`. */
static HRESULT insert(struct edit *e, IInstruction *at, bool after, IInstruction *made)
{
    if (!made)
        return E_FAIL;
    HRESULT hr = after ? e->graph->lpVtbl->InsertAfter(e->graph, at, made)
                       : e->graph->lpVtbl->InsertBefore(e->graph, at, made);
    made->lpVtbl->Release(made);
    return hr;
}

static IInstruction *op(struct edit *e, ILOrdinalOpcode opcode)
{
    IInstruction *made = NULL;
    e->factory->lpVtbl->CreateInstruction(e->factory, opcode, &made);
    return made;
}

static IInstruction *op_token(struct edit *e, ILOrdinalOpcode opcode, mdToken token)
{
    IInstruction *made = NULL;
    e->factory->lpVtbl->CreateTokenOperandInstruction(e->factory, opcode, token, &made);
    return made;
}

static IInstruction *ldc(struct edit *e, int value)
{
    IInstruction *made = NULL;
    e->factory->lpVtbl->CreateLoadConstInstruction(e->factory, value, &made);
    return made;
}

static IInstruction *first_instruction(struct edit *e)
{
    IInstruction *first = NULL;
    e->graph->lpVtbl->GetFirstInstruction(e->graph, &first);
    return first;
}

/* Calls before(e, ret) for every ret of the method. */
static HRESULT for_each_ret(struct edit *e, HRESULT (*before)(struct edit *, IInstruction *))
{
    IInstruction *at = first_instruction(e);
    HRESULT hr = at ? S_OK : E_FAIL;
    while (SUCCEEDED(hr) && at) {
        ILOrdinalOpcode opcode = Cee_Invalid;
        IInstruction *next = NULL;
        at->lpVtbl->GetOpCode(at, &opcode);
        if (opcode == Cee_Ret)
            hr = before(e, at);
        if (at->lpVtbl->GetNextInstruction(at, &next) != S_OK)
            next = NULL;
        at->lpVtbl->Release(at);
        at = next;
    }
    release(at);
    return hr;
}

static HRESULT call_and_add(struct edit *e, IInstruction *ret)
{
    HRESULT hr = insert(e, ret, false, op_token(e, Cee_Call, PF_MEMBER_REF));
    return SUCCEEDED(hr) ? insert(e, ret, false, op(e, Cee_Add)) : hr;
}

static HRESULT nop_before(struct edit *e, IInstruction *ret)
{
    return insert(e, ret, false, op(e, Cee_Nop));
}

static HRESULT deep(struct edit *e)
{
    IInstruction *first = first_instruction(e);
    HRESULT hr = first ? S_OK : E_FAIL;
    for (int i = 0; i < 9 && SUCCEEDED(hr); i++)
        hr = insert(e, first, false, ldc(e, 0));
    for (int i = 0; i < 9 && SUCCEEDED(hr); i++)
        hr = insert(e, first, false, op(e, Cee_Pop));
    release(first);
    return hr;
}

static HRESULT pop_first(struct edit *e)
{
    IInstruction *first = first_instruction(e);
    HRESULT hr = first ? insert(e, first, false, op(e, Cee_Pop)) : E_FAIL;
    release(first);
    return hr;
}

static HRESULT add_local(struct edit *e)
{
    ILocalVariableCollection *locals = NULL;
    IModuleInfo *module = NULL;
    ITypeCreator *types = NULL;
    IType *int32 = NULL;
    IInstruction *first = NULL;
    DWORD index = 99;
    HRESULT hr = e->mi->lpVtbl->GetLocalVariables(e->mi, &locals);
    if (SUCCEEDED(hr))
        hr = e->mi->lpVtbl->GetModuleInfo(e->mi, &module);
    if (SUCCEEDED(hr))
        hr = module->lpVtbl->CreateTypeFactory(module, &types);
    if (SUCCEEDED(hr))
        hr = types->lpVtbl->FromCorElement(types, ELEMENT_TYPE_I4, &int32);
    if (SUCCEEDED(hr))
        hr = locals->lpVtbl->AddLocal(locals, int32, &index);
    if (SUCCEEDED(hr) && index != 0)
        hr = E_UNEXPECTED;
    if (SUCCEEDED(hr) && !(first = first_instruction(e)))
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = insert(e, first, false, ldc(e, 5));
    if (SUCCEEDED(hr))
        hr = insert(e, first, false, op(e, Cee_Stloc_0));
    release(first);
    release(int32);
    release(types);
    release(module);
    release(locals);
    return hr;
}

/* Single return, then `try { body; leave exit } finally { call Helper; pop; endfinally }
 * exit: ...`: branches to the exit from inside the new try become leaves. */
static HRESULT wrap(struct edit *e)
{
    ISingleRetDefaultInstrumentation *sr = NULL;
    ISingleRetDefaultInstrumentation2 *sr2 = NULL;
    IExceptionSection *eh = NULL;
    IExceptionClause *clause = NULL;
    IInstruction *exit = NULL, *first = NULL, *try_last = NULL, *at = NULL;
    IInstruction *leave = NULL, *call = NULL, *pop = NULL, *endfinally = NULL;
    HRESULT hr = e->mi->lpVtbl->GetSingleRetDefaultInstrumentation(e->mi, &sr);
    if (SUCCEEDED(hr))
        hr = sr->lpVtbl->Initialize(sr, e->graph);
    if (SUCCEEDED(hr))
        hr = sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr);
    if (SUCCEEDED(hr))
        hr = sr->lpVtbl->QueryInterface(sr, &IID_ISingleRetDefaultInstrumentation2, (void **)&sr2);
    if (SUCCEEDED(hr))
        hr = sr2->lpVtbl->GetBranchTargetInstruction(sr2, &exit);
    if (SUCCEEDED(hr) && !exit)
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = exit->lpVtbl->GetPreviousInstruction(exit, &try_last);
    if (SUCCEEDED(hr) && !(first = first_instruction(e)))
        hr = E_FAIL;

    /* br exit inside the try becomes leave exit */
    if (SUCCEEDED(hr))
        hr = first->lpVtbl->QueryInterface(first, &IID_IInstruction, (void **)&at);
    while (SUCCEEDED(hr) && at) {
        ILOrdinalOpcode opcode = Cee_Invalid;
        IInstruction *next = NULL;
        at->lpVtbl->GetOpCode(at, &opcode);
        bool last = at == try_last;
        if (at->lpVtbl->GetNextInstruction(at, &next) != S_OK)
            next = NULL;
        if (opcode == Cee_Br || opcode == Cee_Br_S) {
            IBranchInstruction *branch = NULL;
            IInstruction *target = NULL, *made = NULL;
            hr = at->lpVtbl->QueryInterface(at, &IID_IBranchInstruction, (void **)&branch);
            if (SUCCEEDED(hr))
                hr = branch->lpVtbl->GetBranchTarget(branch, &target);
            if (SUCCEEDED(hr) && target == exit)
                hr =
                    e->factory->lpVtbl->CreateBranchInstruction(e->factory, Cee_Leave, exit, &made);
            if (SUCCEEDED(hr) && made) {
                hr = e->graph->lpVtbl->Replace(e->graph, at, made);
                if (last) {
                    release(try_last);
                    made->lpVtbl->AddRef(made);
                    try_last = made;
                }
            }
            release(made);
            release(target);
            release(branch);
        }
        at->lpVtbl->Release(at);
        at = last ? NULL : next;
        if (last)
            release(next);
    }
    release(at);

    if (SUCCEEDED(hr))
        hr = e->factory->lpVtbl->CreateBranchInstruction(e->factory, Cee_Leave, exit, &leave);
    if (SUCCEEDED(hr))
        hr = e->graph->lpVtbl->InsertAfter(e->graph, try_last, leave);
    if (SUCCEEDED(hr) && !(call = op_token(e, Cee_Call, PF_MEMBER_REF)))
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = e->graph->lpVtbl->InsertAfter(e->graph, leave, call);
    if (SUCCEEDED(hr) && !(pop = op(e, Cee_Pop)))
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = e->graph->lpVtbl->InsertAfter(e->graph, call, pop);
    if (SUCCEEDED(hr) && !(endfinally = op(e, Cee_Endfinally)))
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = e->graph->lpVtbl->InsertAfter(e->graph, pop, endfinally);
    if (SUCCEEDED(hr))
        hr = e->mi->lpVtbl->GetExceptionSection(e->mi, &eh);
    if (SUCCEEDED(hr))
        hr = eh->lpVtbl->AddNewExceptionClause(eh, COR_ILEXCEPTION_CLAUSE_FINALLY, first, leave,
                                               call, endfinally, NULL, 0, &clause);
    release(clause);
    release(eh);
    release(endfinally);
    release(pop);
    release(call);
    release(leave);
    release(try_last);
    release(first);
    release(exit);
    release(sr2);
    release(sr);
    return hr;
}

static void note_hostile(HRESULT hr)
{
    pthread_mutex_lock(&cfg.lock);
    if (cfg.hostile_count < (int)(sizeof(cfg.hostile) / sizeof(cfg.hostile[0])))
        cfg.hostile[cfg.hostile_count++] = hr;
    pthread_mutex_unlock(&cfg.lock);
}

/* Every call here is wrong; each must fail and change nothing. */
static HRESULT hostile(struct edit *e)
{
    char name[64];
    method_name(e->mi, name, sizeof(name));
    if (strcmp(name, "Small") == 0) { /* keep an instruction of this method for the next */
        pthread_mutex_lock(&cfg.lock);
        cfg.foreign = first_instruction(e);
        pthread_mutex_unlock(&cfg.lock);
        return S_OK;
    }
    IInstruction *foreign = cfg.foreign;
    IInstruction *first = first_instruction(e);
    IInstruction *fresh = op(e, Cee_Nop);
    IInstruction *branch = NULL;
    ILocalVariableCollection *locals = NULL;
    IExceptionSection *eh = NULL;
    ISingleRetDefaultInstrumentation *sr = NULL;
    IExceptionClause *clause = NULL;
    DWORD index = 0;
    assert_non_null(foreign);
    assert_non_null(first);
    assert_non_null(fresh);

    note_hostile(e->graph->lpVtbl->InsertBefore(e->graph, NULL, fresh));
    note_hostile(e->graph->lpVtbl->InsertBefore(e->graph, first, NULL));
    note_hostile(e->graph->lpVtbl->InsertAfter(e->graph, NULL, NULL));
    note_hostile(e->graph->lpVtbl->InsertBefore(e->graph, foreign, fresh));
    note_hostile(e->graph->lpVtbl->InsertAfter(e->graph, first, foreign));
    note_hostile(e->graph->lpVtbl->InsertBeforeAndRetargetOffsets(e->graph, first, foreign));
    note_hostile(e->graph->lpVtbl->Replace(e->graph, first, foreign));
    note_hostile(e->graph->lpVtbl->Replace(e->graph, foreign, fresh));
    note_hostile(e->graph->lpVtbl->Remove(e->graph, foreign));
    note_hostile(e->graph->lpVtbl->Remove(e->graph, NULL));
    if (SUCCEEDED(
            e->factory->lpVtbl->CreateBranchInstruction(e->factory, Cee_Br, foreign, &branch)) &&
        branch)
        note_hostile(e->graph->lpVtbl->InsertBefore(e->graph, first, branch));
    note_hostile(e->mi->lpVtbl->GetInstructions(e->mi, NULL));
    note_hostile(e->mi->lpVtbl->SetLocalVarSigToken(e->mi, PF_TOKEN_TINY));
    if (SUCCEEDED(e->mi->lpVtbl->GetLocalVariables(e->mi, &locals))) {
        note_hostile(locals->lpVtbl->AddLocal(locals, NULL, &index));
    }
    if (SUCCEEDED(e->mi->lpVtbl->GetExceptionSection(e->mi, &eh))) {
        note_hostile(eh->lpVtbl->AddNewExceptionClause(eh, COR_ILEXCEPTION_CLAUSE_FINALLY, NULL,
                                                       NULL, NULL, NULL, NULL, 0, &clause));
        release(clause);
        clause = NULL;
        note_hostile(eh->lpVtbl->AddNewExceptionClause(eh, COR_ILEXCEPTION_CLAUSE_FINALLY, foreign,
                                                       first, first, first, NULL, 0, &clause));
        release(clause);
        note_hostile(eh->lpVtbl->AddExceptionClause(eh, NULL));
    }
    if (SUCCEEDED(e->mi->lpVtbl->GetSingleRetDefaultInstrumentation(e->mi, &sr))) {
        note_hostile(sr->lpVtbl->Initialize(sr, NULL));
        note_hostile(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr)); /* not initialised */
    }
    release(sr);
    release(eh);
    release(locals);
    release(branch);
    release(fresh);
    release(first);
    return S_OK;
}

/* Replaces the method's code with `ldc.i4.s 99; ret`; the sequence point at 0 maps. */
static HRESULT create_baseline(IMethodInfo *mi)
{
    static const BYTE code[] = {0x1F, 99, 0x2A};
    COR_IL_MAP map[] = {{0, 0, TRUE}};
    DWORD points[] = {0};
    IInstructionGraph *graph = NULL;
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->CreateBaseline(graph, code, code + sizeof(code), 1, map, 1, points);
    release(graph);
    return hr;
}

static HRESULT instrument(IMethodInfo *mi)
{
    struct edit e;
    HRESULT hr = edit_begin(mi, &e);
    if (SUCCEEDED(hr)) {
        switch (cfg.action) {
        case DO_NOTHING:
            break;
        case INSERT_CALL:
            hr = for_each_ret(&e, call_and_add);
            break;
        case DEEP:
            hr = deep(&e);
            break;
        case ADD_LOCAL:
            hr = add_local(&e);
            break;
        case WRAP:
            hr = wrap(&e);
            break;
        case FAIL:
            hr = E_FAIL;
            break;
        case INVALID:
            hr = pop_first(&e);
            break;
        case NOP:
            hr = for_each_ret(&e, nop_before);
            break;
        case HOSTILE:
            hr = hostile(&e);
            break;
        case BASELINE:
            cfg.baseline_late = create_baseline(mi);
            hr = for_each_ret(&e, call_and_add);
            break;
        case KEEP:
            mi->lpVtbl->AddRef(mi);
            cfg.kept = mi;
            e.graph->lpVtbl->AddRef(e.graph);
            cfg.kept_graph = e.graph;
            hr = for_each_ret(&e, call_and_add);
            break;
        case SIG_TOKEN:
            hr = mi->lpVtbl->SetLocalVarSigToken(mi, PF_MULTI_LOCALS);
            break;
        }
    }
    edit_end(&e);
    return hr;
}

/* ---- the plugin object: IInstrumentationMethod, JitEvents2, ExceptionEvents ------------------ */

struct plugin {
    IInstrumentationMethod iface;
    IInstrumentationMethodJitEvents2 jit;
    IInstrumentationMethodExceptionEvents exceptions;
    atomic_int refs;
};

static HRESULT plugin_query(struct plugin *p, REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IInstrumentationMethod))
        *ppv = &p->iface;
    else if (IsEqualIID(riid, &IID_IInstrumentationMethodJitEvents) ||
             IsEqualIID(riid, &IID_IInstrumentationMethodJitEvents2))
        *ppv = &p->jit;
    else if (IsEqualIID(riid, &IID_IInstrumentationMethodExceptionEvents))
        *ppv = &p->exceptions;
    else {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    atomic_fetch_add(&p->refs, 1);
    return S_OK;
}

static ULONG plugin_release(struct plugin *p)
{
    int left = atomic_fetch_sub(&p->refs, 1) - 1;
    if (left == 0) {
        free(p);
        atomic_fetch_sub(&plugins_live, 1);
    }
    return (ULONG)left;
}

#define PLUGIN_UNKNOWN(prefix, Iface, member)                                                      \
    static struct plugin *prefix##_plugin(Iface *This)                                             \
    {                                                                                              \
        return CLRIE_CONTAINER_OF(This, struct plugin, member);                                    \
    }                                                                                              \
    static HRESULT prefix##_QueryInterface(Iface *This, REFIID riid, void **ppv)                   \
    {                                                                                              \
        return plugin_query(prefix##_plugin(This), riid, ppv);                                     \
    }                                                                                              \
    static ULONG prefix##_AddRef(Iface *This)                                                      \
    {                                                                                              \
        return (ULONG)atomic_fetch_add(&prefix##_plugin(This)->refs, 1) + 1;                       \
    }                                                                                              \
    static ULONG prefix##_Release(Iface *This)                                                     \
    {                                                                                              \
        return plugin_release(prefix##_plugin(This));                                              \
    }
PLUGIN_UNKNOWN(im, IInstrumentationMethod, iface)
PLUGIN_UNKNOWN(je, IInstrumentationMethodJitEvents2, jit)
PLUGIN_UNKNOWN(ee, IInstrumentationMethodExceptionEvents, exceptions)

static HRESULT im_Initialize(IInstrumentationMethod *This, IProfilerManager *manager)
{
    if (!cfg.exceptions)
        return S_OK;
    IUnknown *unknown = NULL;
    ICorProfilerInfo *info = NULL;
    HRESULT hr = manager->lpVtbl->GetCorProfilerInfo(manager, &unknown);
    if (SUCCEEDED(hr))
        hr = unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo, (void **)&info);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->SetEventMask(info, COR_PRF_MONITOR_EXCEPTIONS);
    release(info);
    release(unknown);
    return hr;
}

#define IGNORED_EVENT(name, type)                                                                  \
    static HRESULT im_##name(IInstrumentationMethod *This, type *object)                           \
    {                                                                                              \
        return S_OK;                                                                               \
    }
IGNORED_EVENT(OnAppDomainCreated, IAppDomainInfo)
IGNORED_EVENT(OnAppDomainShutdown, IAppDomainInfo)
IGNORED_EVENT(OnAssemblyLoaded, IAssemblyInfo)
IGNORED_EVENT(OnAssemblyUnloaded, IAssemblyInfo)
IGNORED_EVENT(OnModuleUnloaded, IModuleInfo)

static HRESULT im_OnModuleLoaded(IInstrumentationMethod *This, IModuleInfo *module)
{
    ModuleID id = 0;
    module->lpVtbl->GetModuleID(module, &id);
    if (id == PF_MODULE) {
        pthread_mutex_lock(&cfg.lock);
        if (!cfg.module) {
            module->lpVtbl->AddRef(module);
            cfg.module = module;
        }
        pthread_mutex_unlock(&cfg.lock);
    }
    return S_OK;
}

static HRESULT im_OnShutdown(IInstrumentationMethod *This)
{
    return S_OK;
}

static HRESULT im_ShouldInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *mi,
                                         BOOL isRejit, BOOL *pbInstrument)
{
    pthread_mutex_lock(&cfg.lock);
    cfg.should_calls++;
    pthread_mutex_unlock(&cfg.lock);
    *pbInstrument = is_target(mi);
    return S_OK;
}

static HRESULT im_BeforeInstrumentMethod(IInstrumentationMethod *This, IMethodInfo *mi,
                                         BOOL isRejit)
{
    if (cfg.action != BASELINE || !is_target(mi))
        return S_OK;
    cfg.baseline_before = create_baseline(mi);
    return cfg.baseline_before;
}

static HRESULT im_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *mi, BOOL isRejit)
{
    DWORD count = 0;
    mi->lpVtbl->GetRejitCount(mi, &count);
    pthread_mutex_lock(&cfg.lock);
    cfg.instrument_calls++;
    cfg.last_rejit = isRejit;
    cfg.last_rejit_count = count;
    pthread_mutex_unlock(&cfg.lock);
    if (isRejit && cfg.codegen_flags)
        mi->lpVtbl->SetRejitCodeGenFlags(mi, cfg.codegen_flags);
    return instrument(mi);
}

static HRESULT im_OnInstrumentationComplete(IInstrumentationMethod *This, IMethodInfo *mi,
                                            BOOL isRejit)
{
    pthread_mutex_lock(&cfg.lock);
    cfg.complete_calls++;
    pthread_mutex_unlock(&cfg.lock);
    return S_OK;
}

static HRESULT im_AllowInlineSite(IInstrumentationMethod *This, IMethodInfo *inlinee,
                                  IMethodInfo *caller, BOOL *pbAllowInline)
{
    char name[64];
    method_name(inlinee, name, sizeof(name));
    *pbAllowInline = !(cfg.deny_inline && strcmp(name, cfg.deny_inline) == 0);
    return S_OK;
}

static const struct IInstrumentationMethodVtbl plugin_vtbl = {
    .QueryInterface = im_QueryInterface,
    .AddRef = im_AddRef,
    .Release = im_Release,
    .Initialize = im_Initialize,
    .OnAppDomainCreated = im_OnAppDomainCreated,
    .OnAppDomainShutdown = im_OnAppDomainShutdown,
    .OnAssemblyLoaded = im_OnAssemblyLoaded,
    .OnAssemblyUnloaded = im_OnAssemblyUnloaded,
    .OnModuleLoaded = im_OnModuleLoaded,
    .OnModuleUnloaded = im_OnModuleUnloaded,
    .OnShutdown = im_OnShutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = im_BeforeInstrumentMethod,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = im_OnInstrumentationComplete,
    .AllowInlineSite = im_AllowInlineSite,
};

static HRESULT je_JitStarted(IInstrumentationMethodJitEvents2 *This, FunctionID id, BOOL rejit)
{
    return S_OK;
}

static HRESULT je_JitComplete(IInstrumentationMethodJitEvents2 *This, FunctionID id, BOOL rejit,
                              HRESULT hr)
{
    cfg.jit_info_hr = E_UNEXPECTED; /* v1 must not be called on a plugin with JitEvents2 */
    return S_OK;
}

/* Runs on the racing threads too: records, never asserts (cmocka's failures are for the test
 * thread); the tests check jit_info_hr. */
static HRESULT je_JitComplete2(IInstrumentationMethodJitEvents2 *This, IMethodJitInfo *info)
{
    IMethodJitInfo2 *info2 = NULL;
    HRESULT hr = info->lpVtbl->QueryInterface(info, &IID_IMethodJitInfo2, (void **)&info2);
    if (FAILED(hr)) {
        cfg.jit_info_hr = hr;
        return S_OK;
    }
    pthread_mutex_lock(&cfg.lock);
    cfg.jit_complete_seen = true;
    HRESULT results[] = {
        info2->lpVtbl->GetILTransformationStatus(info2, &cfg.transformed),
        info2->lpVtbl->GetILInstrumentationMap(info2, MAX_SEEN, cfg.map, &cfg.map_count),
        info2->lpVtbl->GetJitHR(info2, &cfg.jit_hr),
        info2->lpVtbl->GetMethodToken(info2, &cfg.jit_token),
    };
    for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++)
        if (results[i] != S_OK)
            cfg.jit_info_hr = results[i];
    pthread_mutex_unlock(&cfg.lock);
    info2->lpVtbl->Release(info2);
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl jit_vtbl = {
    .QueryInterface = je_QueryInterface,
    .AddRef = je_AddRef,
    .Release = je_Release,
    .JitStarted = je_JitStarted,
    .JitComplete = je_JitComplete,
    .JitComplete2 = je_JitComplete2,
};

static HRESULT seen_exception(IMethodInfo *mi)
{
    IInstructionGraph *graph = NULL;
    cfg.info_only_il = mi->lpVtbl->GetInstructions(mi, &graph);
    release(graph);
    pthread_mutex_lock(&cfg.lock);
    if (cfg.exception_count < MAX_SEEN)
        full_name(mi, cfg.exception_names[cfg.exception_count++], 64);
    pthread_mutex_unlock(&cfg.lock);
    return S_OK;
}

static HRESULT ee_with_method(IInstrumentationMethodExceptionEvents *This, IMethodInfo *mi)
{
    return seen_exception(mi);
}

static HRESULT ee_CatcherEnter(IInstrumentationMethodExceptionEvents *This, IMethodInfo *mi,
                               UINT_PTR object)
{
    return seen_exception(mi);
}

static HRESULT ee_plain(IInstrumentationMethodExceptionEvents *This)
{
    return S_OK;
}

static HRESULT ee_Thrown(IInstrumentationMethodExceptionEvents *This, UINT_PTR object)
{
    return S_OK;
}

static const struct IInstrumentationMethodExceptionEventsVtbl exception_vtbl = {
    .QueryInterface = ee_QueryInterface,
    .AddRef = ee_AddRef,
    .Release = ee_Release,
    .ExceptionCatcherEnter = ee_CatcherEnter,
    .ExceptionCatcherLeave = ee_plain,
    .ExceptionSearchCatcherFound = ee_with_method,
    .ExceptionSearchFilterEnter = ee_with_method,
    .ExceptionSearchFilterLeave = ee_plain,
    .ExceptionSearchFunctionEnter = ee_with_method,
    .ExceptionSearchFunctionLeave = ee_plain,
    .ExceptionThrown = ee_Thrown,
    .ExceptionUnwindFinallyEnter = ee_with_method,
    .ExceptionUnwindFinallyLeave = ee_plain,
    .ExceptionUnwindFunctionEnter = ee_with_method,
    .ExceptionUnwindFunctionLeave = ee_plain,
};

/* ---- its class factory, reached from the shim's DllGetClassObject ---------------------------- */

static HRESULT cf_QueryInterface(IClassFactory *This, REFIID riid, void **ppv)
{
    *ppv = IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, &IID_IClassFactory) ? This : NULL;
    return *ppv ? S_OK : E_NOINTERFACE;
}

static ULONG cf_ref(IClassFactory *This)
{
    return 1;
}

static HRESULT cf_CreateInstance(IClassFactory *This, IUnknown *outer, REFIID riid, void **ppv)
{
    struct plugin *p = calloc(1, sizeof(*p));
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &plugin_vtbl;
    p->jit.lpVtbl = &jit_vtbl;
    p->exceptions.lpVtbl = &exception_vtbl;
    atomic_init(&p->refs, 1);
    atomic_fetch_add(&plugins_live, 1);
    HRESULT hr = plugin_query(p, riid, ppv);
    plugin_release(p);
    return hr;
}

static HRESULT cf_LockServer(IClassFactory *This, BOOL lock)
{
    return S_OK;
}

static const struct IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = cf_QueryInterface,
    .AddRef = cf_ref,
    .Release = cf_ref,
    .CreateInstance = cf_CreateInstance,
    .LockServer = cf_LockServer,
};
static IClassFactory plugin_factory = {&factory_vtbl};

__attribute__((visibility("default"))) HRESULT
pipeline_test_get_class_object(REFCLSID clsid, REFIID iid, void **out);
HRESULT pipeline_test_get_class_object(REFCLSID clsid, REFIID iid, void **out)
{
    if (!IsEqualIID(clsid, &plugin_clsid)) {
        *out = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return cf_QueryInterface(&plugin_factory, iid, out);
}

/* ---- the log ------------------------------------------------------------------------------- */

static char log_path[256];

static size_t log_size(void)
{
    struct stat st;
    return stat(log_path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* What the engine logged since `mark` (a log_size()); free() it. */
static char *log_since(size_t mark)
{
    FILE *f = fopen(log_path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    size_t len = end > (long)mark ? (size_t)end - mark : 0;
    char *text = calloc(1, len + 1);
    assert_non_null(text);
    fseek(f, (long)mark, SEEK_SET);
    assert_int_equal(fread(text, 1, len, f), len);
    fclose(f);
    return text;
}

static void assert_logged(size_t mark, const char *needle)
{
    char *text = log_since(mark);
    if (!strstr(text, needle))
        fail_msg("the log does not say \"%s\"; it has:\n%s", needle, text);
    free(text);
}

static void assert_no_error_logged(size_t mark)
{
    char *text = log_since(mark);
    if (strstr(text, "LogError"))
        fail_msg("unexpected error in the log:\n%s", text);
    free(text);
}

/* ---- a runtime with the engine attached ----------------------------------------------------- */

static const CLSID engine_clsid = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;

struct world {
    ICorProfilerCallback11 *cb;
    int plugins_before; /* a failed test may leave its manager behind */
};

static void attach(struct world *w)
{
    IClassFactory *factory = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     (void **)&w->cb),
                     S_OK);
    factory->lpVtbl->Release(factory);
    ICorProfilerCallback11 *cb = w->cb;
    w->plugins_before = atomic_load(&plugins_live);
    assert_int_equal(cb->lpVtbl->Initialize(cb, pf_info()), S_OK);
    assert_int_equal(atomic_load(&plugins_live), w->plugins_before + 1);
    assert_int_equal(cb->lpVtbl->AppDomainCreationFinished(cb, PF_DOMAIN, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->AssemblyLoadFinished(cb, PF_ASSEMBLY, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_MODULE, PF_ASSEMBLY), S_OK);
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_DYNAMIC_MODULE, PF_ASSEMBLY),
                     S_OK);
    assert_non_null(cfg.module);
}

static void jit(struct world *w, FunctionID function)
{
    assert_int_equal(w->cb->lpVtbl->JITCompilationStarted(w->cb, function, TRUE), S_OK);
}

/* Shuts the engine down and proves every reference it took was given back. */
static void detach(struct world *w)
{
    release(cfg.foreign);
    cfg.foreign = NULL;
    release(cfg.module);
    cfg.module = NULL;
    assert_int_equal(w->cb->lpVtbl->Shutdown(w->cb), S_OK);
    assert_int_equal(w->cb->lpVtbl->Release(w->cb), 0);
    /* what a plugin kept in a global outlives the engine's objects */
    release(cfg.kept_graph);
    cfg.kept_graph = NULL;
    release(cfg.kept);
    cfg.kept = NULL;
    assert_int_equal(atomic_load(&plugins_live), w->plugins_before);
    assert_int_equal(pf_info_refs(), 1);
    assert_int_equal(pf_metadata_live(), 0);
    assert_int_equal(pf_allocators_live(), 0);
    assert_int_equal(pf_foreign_bodies(), 0);
}

static int setup(void **state)
{
    pf_reset();
    pthread_mutex_lock(&cfg.lock);
    cfg.target = NULL;
    cfg.prefix = false;
    cfg.action = DO_NOTHING;
    cfg.deny_inline = NULL;
    cfg.exceptions = false;
    cfg.codegen_flags = 0;
    cfg.baseline_before = cfg.baseline_late = cfg.info_only_il = E_NOTIMPL;
    cfg.should_calls = cfg.instrument_calls = cfg.complete_calls = 0;
    cfg.exception_count = 0;
    cfg.jit_complete_seen = false;
    cfg.jit_info_hr = S_OK;
    cfg.map_count = 0;
    cfg.hostile_count = 0;
    pthread_mutex_unlock(&cfg.lock);
    return 0;
}

static void assert_body(mdMethodDef token, const uint8_t *expected, size_t len)
{
    struct pf_body body;
    assert_true(pf_set_body(token, &body));
    assert_int_equal(body.module, PF_MODULE);
    assert_int_equal(body.len, len);
    assert_memory_equal(body.bytes, expected, len);
}

static void assert_map(FunctionID function, const COR_IL_MAP *expected, size_t count)
{
    COR_IL_MAP map[16];
    size_t got = 0;
    assert_true(pf_map(function, map, 16, &got));
    assert_int_equal(got, count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(map[i].oldOffset, expected[i].oldOffset);
        assert_int_equal(map[i].newOffset, expected[i].newOffset);
        assert_true(map[i].fAccurate);
    }
}

/* ---- the cases ------------------------------------------------------------------------------- */

/* The Tiny method with `call Helper; add` before its ret. */
static const uint8_t tiny_with_call[] = {0x22, 0x17, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x58, 0x2A};
/* New code is attributed to the original instruction it precedes (CLRIE's EncodeIL). */
static const COR_IL_MAP tiny_with_call_map[] = {{0, 0, TRUE}, {1, 1, TRUE}};

static void inserted_instructions_reach_the_runtime(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = INSERT_CALL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    /* A tiny header stays tiny when the stack (2) fits in it. */
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));
    assert_map(PF_FN_TINY, tiny_with_call_map, 2);
    assert_int_equal(cfg.complete_calls, 1);

    /* Nine items on the stack: the header becomes fat, with the computed max stack. */
    cfg.target = "Deep", cfg.action = DEEP;
    jit(&w, PF_FN_DEEP);
    static const uint8_t deep_body[] = {
        0x13, 0x30, 0x09, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
        0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16,                   /* ldc.i4.0 */
        0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,                   /* pop */
        0x17, 0x2A};
    assert_body(PF_TOKEN_DEEP, deep_body, sizeof(deep_body));
    static const COR_IL_MAP deep_map[] = {{0, 0, TRUE}, {1, 19, TRUE}};
    assert_map(PF_FN_DEEP, deep_map, 2);
    assert_int_equal(pf_set_body_count(), 2);
    assert_no_error_logged(mark);
    detach(&w);
}

static void a_baseline_replaces_the_code_and_maps_its_sequence_points(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = BASELINE;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(cfg.baseline_before, S_OK);
    assert_true(FAILED(cfg.baseline_late)); /* only from BeforeInstrumentMethod */
    /* ldc.i4.s 99; call Helper; add; ret */
    static const uint8_t expected[] = {0x26, 0x1F, 0x63, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x58, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    /* only the baseline's sequence points are mapped */
    static const COR_IL_MAP map[] = {{0, 0, TRUE}};
    assert_map(PF_FN_TINY, map, 1);
    detach(&w);
}

static void a_method_info_kept_past_its_jit_stays_usable(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = KEEP;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));
    assert_non_null(cfg.kept);
    char name[64];
    full_name(cfg.kept, name, sizeof(name));
    assert_string_equal(name, "Fake.Program.Tiny");
    IInstruction *first = NULL;
    assert_int_equal(cfg.kept_graph->lpVtbl->GetFirstInstruction(cfg.kept_graph, &first), S_OK);
    release(first);
    /* a ReJIT makes a method info of its own */
    struct pf_control control;
    pf_control_init(&control);
    cfg.action = INSERT_CALL;
    assert_int_equal(
        w.cb->lpVtbl->GetReJITParameters(w.cb, PF_MODULE, PF_TOKEN_TINY, &control.iface), S_OK);
    assert_int_equal(control.body_len, sizeof(tiny_with_call));
    pf_control_finish(&control);
    detach(&w);
}

static void a_plugin_chosen_local_signature_is_named_by_the_body(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = SIG_TOKEN;
    attach(&w);
    jit(&w, PF_FN_TINY);
    static const uint8_t expected[] = {0x13, 0x30, 0x01, 0x00, 0x02, 0x00, 0x00,
                                       0x00, 0x01, 0x00, 0x00, 0x11, 0x17, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    assert_int_equal(pf_token_from_sig_calls(), 0);
    detach(&w);
}

static void a_new_local_gets_a_signature_token_and_a_fat_header(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = ADD_LOCAL;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_token_from_sig_calls(), 1);
    uint8_t sig[16];
    static const uint8_t one_int32[] = {0x07, 0x01, 0x08};
    assert_int_equal(pf_last_token_sig(sig, sizeof(sig)), sizeof(one_int32));
    assert_memory_equal(sig, one_int32, sizeof(one_int32));
    /* fat | InitLocals, max stack 1, 4 bytes of code, the new token; ldc.i4.5; stloc.0 first */
    static const uint8_t expected[] = {0x13, 0x30, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00,
                                       0x10, 0x00, 0x00, 0x11, 0x1B, 0x0A, 0x17, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    detach(&w);
}

struct problems {
    int count;
    char first[256];
};

static void count_problem(void *ctx, uint32_t offset, const char *message)
{
    struct problems *p = ctx;
    if (p->count++ == 0)
        snprintf(p->first, sizeof(p->first), "IL_%04X: %s", (unsigned)offset, message);
}

static void single_ret_and_a_finally_wrap_verify(void **state)
{
    struct world w;
    cfg.target = "Multi", cfg.action = WRAP;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_MULTI);
    assert_no_error_logged(mark);
    struct pf_body body;
    assert_true(pf_set_body(PF_TOKEN_MULTI, &body));

    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag diag = {0};
    assert_int_equal(clrie_il_graph_decode(body.bytes, body.len, &g, &diag), 0);
    struct problems problems = {0};
    int rc = clrie_il_graph_verify(g, pf_stack_effect, (void *)(uintptr_t)PF_TOKEN_MULTI,
                                   count_problem, &problems);
    if (rc != 0 || problems.count)
        fail_msg("the wrapped method does not verify: %s", problems.first);
    assert_int_equal(clrie_il_graph_clause_count(g), 2);
    int rets = 0;
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n))
        rets += clrie_il_instr_opcode(n) == CLRIE_IL_OP_RET;
    assert_int_equal(rets, 1);
    struct clrie_il_header header;
    clrie_il_graph_header(g, &header);
    assert_true(header.fat);
    assert_true(header.flags & CLRIE_IL_HEADER_INIT_LOCALS);
    /* the return value got a local of its own, after Multi's int32 */
    assert_int_equal(pf_token_from_sig_calls(), 1);
    assert_int_equal(header.local_sig_token, PF_FIRST_NEW_SIG);
    uint8_t sig[16];
    static const uint8_t two_int32[] = {0x07, 0x02, 0x08, 0x08};
    assert_int_equal(pf_last_token_sig(sig, sizeof(sig)), sizeof(two_int32));
    assert_memory_equal(sig, two_int32, sizeof(two_int32));
    clrie_il_graph_free(g);
    detach(&w);
}

static void failing_or_invalid_instrumentation_is_not_applied(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = FAIL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_logged(mark, "InstrumentMethod failed for Fake.Program.Tiny");
    assert_int_equal(cfg.complete_calls, 0);

    cfg.action = INVALID;
    mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_logged(mark, "Fake.Program.Tiny: instrumented IL is invalid at IL_0000");
    detach(&w);
}

static void a_body_the_runtime_refuses_is_logged_and_not_reported_as_applied(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = INSERT_CALL;
    attach(&w);
    pf_refuse_bodies();
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_logged(mark, "Fake.Program.Tiny: the runtime refused the instrumented body");
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, S_OK, TRUE), S_OK);
    assert_true(cfg.jit_complete_seen);
    assert_false(cfg.transformed);
    detach(&w);
}

static void methods_nobody_instruments_are_left_alone(void **state)
{
    struct world w;
    cfg.target = NULL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(cfg.should_calls, 1);
    assert_int_equal(cfg.instrument_calls, 0);

    /* said yes, changed nothing */
    cfg.target = "Tiny", cfg.action = DO_NOTHING;
    jit(&w, PF_FN_TINY);
    assert_int_equal(cfg.instrument_calls, 1);

    /* no IL, a dynamic module, a module the engine never saw, a function the runtime denies */
    cfg.should_calls = 0;
    cfg.target = "Abstract", cfg.action = INSERT_CALL;
    jit(&w, PF_FN_ABSTRACT);
    cfg.target = "Tiny";
    jit(&w, PF_FN_DYNAMIC);
    jit(&w, PF_FN_UNKNOWN);
    jit(&w, 0xDEAD);
    assert_int_equal(cfg.should_calls, 0);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_no_error_logged(mark);
    detach(&w);
}

static void rejit_starts_from_the_original_il_every_time(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = INSERT_CALL;
    cfg.codegen_flags = 0x40; /* COR_PRF_CODEGEN_DISABLE_INLINING */
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));

    for (DWORD round = 1; round <= 2; round++) {
        struct pf_control control;
        pf_control_init(&control);
        assert_int_equal(
            w.cb->lpVtbl->GetReJITParameters(w.cb, PF_MODULE, PF_TOKEN_TINY, &control.iface), S_OK);
        assert_true(cfg.last_rejit);
        assert_int_equal(cfg.last_rejit_count, round);
        /* the runtime now answers the instrumented body; the engine still starts from the
         * original, so the call is there once */
        assert_int_equal(control.body_len, sizeof(tiny_with_call));
        assert_memory_equal(control.body, tiny_with_call, sizeof(tiny_with_call));
        assert_int_equal(control.map_count, 3);
        assert_int_equal(control.map[0].oldOffset, 0);
        assert_int_equal(control.map[0].newOffset, 0);
        assert_int_equal(control.map[1].oldOffset, 1);
        assert_int_equal(control.map[1].newOffset, 1);
        assert_int_equal(control.map[2].oldOffset, 0xFEEFEE);
        assert_int_equal(control.map[2].newOffset, round);
        assert_int_equal(control.codegen_flags, 0x40);
        assert_int_equal(control.refs, 1);
        pf_control_finish(&control);
    }
    assert_int_equal(pf_set_body_count(), 1); /* the ReJITs went through the control only */

    /* a module the engine does not know: logged, nothing set, the runtime carries on */
    struct pf_control control;
    pf_control_init(&control);
    size_t mark = log_size();
    assert_int_equal(
        w.cb->lpVtbl->GetReJITParameters(w.cb, PF_UNKNOWN_MODULE, PF_TOKEN_TINY, &control.iface),
        S_OK);
    assert_null(control.body);
    assert_int_equal(control.map_count, 0);
    assert_logged(mark, "ReJIT of method 0x06000001 in module 0x1200");
    pf_control_finish(&control);
    detach(&w);
}

static void request_rejit_includes_recorded_inline_callers(void **state)
{
    struct world w;
    attach(&w);
    BOOL inline_it = FALSE; /* runtimes before .NET 5 leave it uninitialised */
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(cfg.module->lpVtbl->RequestRejit(cfg.module, PF_TOKEN_SMALL), S_OK);
    assert_int_equal(pf_rejit_requests(), 1);
    ModuleID modules[4];
    mdMethodDef tokens[4];
    bool with_inliners = false;
    assert_int_equal(pf_last_rejit(modules, tokens, 4, &with_inliners), 2);
    assert_true(with_inliners);
    assert_int_equal(modules[0], PF_MODULE);
    assert_int_equal(tokens[0], PF_TOKEN_SMALL);
    assert_int_equal(modules[1], PF_MODULE);
    assert_int_equal(tokens[1], PF_TOKEN_TINY);
    /* not a method definition */
    assert_int_not_equal(cfg.module->lpVtbl->RequestRejit(cfg.module, PF_MEMBER_REF), S_OK);
    assert_int_equal(pf_rejit_requests(), 1);
    detach(&w);
}

static void a_denied_inline_site_is_refused_and_not_recorded(void **state)
{
    struct world w;
    cfg.deny_inline = "Small";
    attach(&w);
    BOOL inline_it = TRUE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, &inline_it), S_OK);
    assert_false(inline_it);
    inline_it = FALSE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_SMALL, PF_FN_TINY, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, NULL), E_POINTER);

    assert_int_equal(cfg.module->lpVtbl->RequestRejit(cfg.module, PF_TOKEN_SMALL), S_OK);
    ModuleID modules[4];
    mdMethodDef tokens[4];
    bool with_inliners;
    assert_int_equal(pf_last_rejit(modules, tokens, 4, &with_inliners), 1);
    assert_int_equal(tokens[0], PF_TOKEN_SMALL);
    detach(&w);
}

static void jit_complete2_reports_the_instrumentation(void **state)
{
    struct world w;
    cfg.target = "Tiny", cfg.action = INSERT_CALL;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, S_OK, TRUE), S_OK);
    assert_true(cfg.jit_complete_seen);
    assert_int_equal(cfg.jit_info_hr, S_OK);
    assert_true(cfg.transformed);
    assert_int_equal(cfg.jit_hr, S_OK);
    assert_int_equal(cfg.jit_token, PF_TOKEN_TINY);
    assert_int_equal(cfg.map_count, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(cfg.map[i].oldOffset, tiny_with_call_map[i].oldOffset);
        assert_int_equal(cfg.map[i].newOffset, tiny_with_call_map[i].newOffset);
    }

    /* a method nobody changed */
    cfg.jit_complete_seen = false;
    jit(&w, PF_FN_SMALL);
    assert_int_equal(
        w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_SMALL, CLRIE_HRESULT(0x80004005u), TRUE),
        S_OK);
    assert_true(cfg.jit_complete_seen);
    assert_false(cfg.transformed);
    assert_int_equal(cfg.map_count, 0);
    assert_int_equal(cfg.jit_hr, CLRIE_HRESULT(0x80004005u));
    detach(&w);
}

static void exception_events_name_the_method(void **state)
{
    struct world w;
    cfg.exceptions = true;
    attach(&w);
    assert_true(pf_event_mask() & COR_PRF_MONITOR_EXCEPTIONS);
    ICorProfilerCallback11 *cb = w.cb;
    assert_int_equal(cb->lpVtbl->ExceptionThrown(cb, 0x1234), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionSearchFunctionEnter(cb, PF_FN_MULTI), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionSearchFunctionLeave(cb), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionUnwindFunctionEnter(cb, PF_FN_UNKNOWN), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionCatcherEnter(cb, PF_FN_TINY, 0x1234), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionCatcherLeave(cb), S_OK);
    assert_int_equal(cfg.exception_count, 2);
    assert_string_equal(cfg.exception_names[0], "Fake.Program+Inner.Multi");
    assert_string_equal(cfg.exception_names[1], "Fake.Program.Tiny");
    /* an event's method info describes the method; it has no IL to edit */
    assert_int_equal(cfg.info_only_il, E_UNEXPECTED);
    detach(&w);
}

struct racer {
    pthread_barrier_t *barrier;
    ICorProfilerCallback11 *cb;
    FunctionID function;
    mdMethodDef token;
    struct pf_control control; /* its ReJIT */
};

static void *race(void *arg)
{
    struct racer *r = arg;
    pthread_barrier_wait(r->barrier);
    r->cb->lpVtbl->JITCompilationStarted(r->cb, r->function, TRUE);
    r->cb->lpVtbl->JITCompilationFinished(r->cb, r->function, S_OK, TRUE);
    r->cb->lpVtbl->GetReJITParameters(r->cb, PF_MODULE, r->token, &r->control.iface);
    return NULL;
}

static void methods_jitted_and_rejitted_at_once_are_all_instrumented(void **state)
{
    struct world w;
    cfg.target = "Worker", cfg.prefix = true, cfg.action = NOP;
    attach(&w);
    size_t mark = log_size();
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, PF_WORKERS);
    struct racer racers[PF_WORKERS];
    pthread_t threads[PF_WORKERS];
    for (int i = 0; i < PF_WORKERS; i++) {
        racers[i] = (struct racer){.barrier = &barrier,
                                   .cb = w.cb,
                                   .function = PF_FN_WORKER + (FunctionID)i,
                                   .token = PF_TOKEN_WORKER + (mdMethodDef)i};
        pf_control_init(&racers[i].control);
        assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
    }
    for (int i = 0; i < PF_WORKERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&barrier);

    assert_int_equal(pf_set_body_count(), PF_WORKERS);
    for (int i = 0; i < PF_WORKERS; i++) {
        const uint8_t expected[] = {0x12, 0x1F, (uint8_t)i, 0x00, 0x2A}; /* ldc.i4.s i; nop; ret */
        assert_body(PF_TOKEN_WORKER + (mdMethodDef)i, expected, sizeof(expected));
        static const COR_IL_MAP map[] = {{0, 0, TRUE}, {2, 2, TRUE}};
        assert_map(PF_FN_WORKER + (FunctionID)i, map, 2);
        struct pf_control *c = &racers[i].control;
        assert_int_equal(c->body_len, sizeof(expected));
        assert_memory_equal(c->body, expected, sizeof(expected));
        assert_int_equal(c->map_count, 3);
        assert_int_equal(c->map[2].oldOffset, 0xFEEFEE);
        assert_int_equal(c->map[2].newOffset, 1);
        pf_control_finish(c);
    }
    assert_int_equal(cfg.complete_calls, 2 * PF_WORKERS);
    assert_true(cfg.jit_complete_seen);
    assert_int_equal(cfg.jit_info_hr, S_OK);
    assert_no_error_logged(mark);
    detach(&w);
}

static void hostile_calls_fail_and_change_nothing(void **state)
{
    struct world w;
    cfg.prefix = false, cfg.action = HOSTILE;
    attach(&w);
    cfg.target = "Small";
    jit(&w, PF_FN_SMALL); /* keeps an instruction of Small */
    assert_non_null(cfg.foreign);
    cfg.target = "Tiny";
    jit(&w, PF_FN_TINY);
    assert_true(cfg.hostile_count >= 15);
    for (int i = 0; i < cfg.hostile_count; i++)
        if (SUCCEEDED(cfg.hostile[i]))
            fail_msg("hostile call %d succeeded (hr 0x%08X)", i, (unsigned)cfg.hostile[i]);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_int_equal(pf_token_from_sig_calls(), 0);
    detach(&w);
}

/* ---- configuration: a plugin file naming the shim, a log file ------------------------------- */

static char temp_dir[] = "/tmp/clrie-pipeline-XXXXXX";
static char config_path[256];

static void configure(void)
{
    const char *shim = getenv("CLRIE_PIPELINE_PLUGIN");
    if (!shim) {
        fprintf(stderr, "CLRIE_PIPELINE_PLUGIN names the plugin shim; run through meson test\n");
        exit(77);
    }
    if (!mkdtemp(temp_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(config_path, sizeof(config_path), "%s/pipeline.xml", temp_dir);
    snprintf(log_path, sizeof(log_path), "%s/engine.log", temp_dir);
    FILE *f = fopen(config_path, "w");
    if (!f) {
        perror(config_path);
        exit(1);
    }
    fprintf(f,
            "<InstrumentationEngineConfiguration>\n"
            "  <InstrumentationMethod>\n"
            "    <Name>Pipeline test</Name>\n"
            "    <Description>edits methods for test_pipeline.c</Description>\n"
            "    <Module>%s</Module>\n"
            "    <ClassGuid>{6A3B1D52-0F7C-4E1B-9D5E-2C1F00C0FFEE}</ClassGuid>\n"
            "    <Priority>50</Priority>\n"
            "  </InstrumentationMethod>\n"
            "</InstrumentationEngineConfiguration>\n",
            shim);
    fclose(f);
    setenv(CLRIE_CONFIG_ENV_PREFIX "PipelineTest", config_path, 1);
    setenv("MicrosoftInstrumentationEngine_FileLogPath", log_path, 1);
    setenv("MicrosoftInstrumentationEngine_LogLevel", "Errors", 1);
}

static void clean_up(void)
{
    unlink(config_path);
    unlink(log_path);
    rmdir(temp_dir);
}

int main(void)
{
    configure();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(inserted_instructions_reach_the_runtime, setup),
        cmocka_unit_test_setup(a_baseline_replaces_the_code_and_maps_its_sequence_points, setup),
        cmocka_unit_test_setup(a_new_local_gets_a_signature_token_and_a_fat_header, setup),
        cmocka_unit_test_setup(a_plugin_chosen_local_signature_is_named_by_the_body, setup),
        cmocka_unit_test_setup(a_method_info_kept_past_its_jit_stays_usable, setup),
        cmocka_unit_test_setup(single_ret_and_a_finally_wrap_verify, setup),
        cmocka_unit_test_setup(failing_or_invalid_instrumentation_is_not_applied, setup),
        cmocka_unit_test_setup(a_body_the_runtime_refuses_is_logged_and_not_reported_as_applied,
                               setup),
        cmocka_unit_test_setup(methods_nobody_instruments_are_left_alone, setup),
        cmocka_unit_test_setup(rejit_starts_from_the_original_il_every_time, setup),
        cmocka_unit_test_setup(request_rejit_includes_recorded_inline_callers, setup),
        cmocka_unit_test_setup(a_denied_inline_site_is_refused_and_not_recorded, setup),
        cmocka_unit_test_setup(jit_complete2_reports_the_instrumentation, setup),
        cmocka_unit_test_setup(exception_events_name_the_method, setup),
        cmocka_unit_test_setup(methods_jitted_and_rejitted_at_once_are_all_instrumented, setup),
        cmocka_unit_test_setup(hostile_calls_fail_and_change_nothing, setup),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clean_up();
    return failed;
}
