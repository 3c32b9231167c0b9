/* The plugin of the JIT pipeline's tests: see pipeline_plugin.h. */
#include "pipeline_plugin.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/plugin.h"
#include "clrie/profmgr.h"
#include "pipeline_fakes.h"

#define COR_ILEXCEPTION_CLAUSE_FINALLY 2u

static const CLSID plugin_clsid = {
    0x6A3B1D52, 0x0F7C, 0x4E1B, {0x9D, 0x5E, 0x2C, 0x1F, 0x00, 0xC0, 0xFF, 0xEE}};
static const CLSID second_plugin_clsid = {
    0x6A3B1D52, 0x0F7C, 0x4E1B, {0x9D, 0x5E, 0x2C, 0x1F, 0x00, 0xC0, 0xFF, 0xEF}};

/* plugin_cfg.changed is initialised by the test's main. */
struct pipeline_plugin_config plugin_cfg = {.lock = CLRIE_OS_MUTEX_INIT};

static atomic_int plugins_live;

int pipeline_plugins_live(void)
{
    return atomic_load(&plugins_live);
}

/* The engine here is linked in, not a loaded libInstrumentationEngine.so: its strings are
 * freed directly. */
static void narrow(BSTR text, char *out, size_t size)
{
    clrie_plugin_bstr_to_utf8_buf(text, out, size);
    clrie_pm_free_string(text);
}

static void method_name(IMethodInfo *mi, char *out, size_t size)
{
    BSTR text = NULL;
    out[0] = '\0';
    if (SUCCEEDED(mi->lpVtbl->GetName(mi, &text)))
        narrow(text, out, size);
}

void pipeline_plugin_full_name(IMethodInfo *mi, char *out, size_t size)
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
    if (!plugin_cfg.target)
        return false;
    return plugin_cfg.prefix ? strncmp(name, plugin_cfg.target, strlen(plugin_cfg.target)) == 0
                             : strcmp(name, plugin_cfg.target) == 0;
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
    clrie_plugin_release(e->graph);
    clrie_plugin_release(e->factory);
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
    clrie_plugin_release(at);
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
    clrie_plugin_release(first);
    return hr;
}

static HRESULT pop_first(struct edit *e)
{
    IInstruction *first = first_instruction(e);
    HRESULT hr = first ? insert(e, first, false, op(e, Cee_Pop)) : E_FAIL;
    clrie_plugin_release(first);
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
    clrie_plugin_release(first);
    clrie_plugin_release(int32);
    clrie_plugin_release(types);
    clrie_plugin_release(module);
    clrie_plugin_release(locals);
    return hr;
}

static HRESULT remove_all(struct edit *e)
{
    IInstruction *at = NULL;
    HRESULT hr = S_OK;
    while (SUCCEEDED(hr) && (at = first_instruction(e))) {
        hr = e->graph->lpVtbl->Remove(e->graph, at);
        at->lpVtbl->Release(at);
    }
    return hr;
}

static HRESULT nop_instead(struct edit *e, IInstruction *ret)
{
    IInstruction *nop = op(e, Cee_Nop);
    HRESULT hr = nop ? e->graph->lpVtbl->Replace(e->graph, ret, nop) : E_FAIL;
    clrie_plugin_release(nop);
    return hr;
}

/* Multi's `brfalse.s` (IL_0001) retargeted from IL_0005 to IL_000B: an operand changed, every
 * instruction in its place. */
static HRESULT retarget_in_place(struct edit *e)
{
    IInstruction *branch = NULL, *target = NULL;
    IBranchInstruction *b = NULL;
    HRESULT hr = e->graph->lpVtbl->GetInstructionAtOriginalOffset(e->graph, 1, &branch);
    if (SUCCEEDED(hr))
        hr = e->graph->lpVtbl->GetInstructionAtOriginalOffset(e->graph, 11, &target);
    if (SUCCEEDED(hr))
        hr = branch->lpVtbl->QueryInterface(branch, &IID_IBranchInstruction, (void **)&b);
    if (SUCCEEDED(hr))
        hr = b->lpVtbl->SetBranchTarget(b, target);
    clrie_plugin_release(b);
    clrie_plugin_release(branch);
    clrie_plugin_release(target);
    return hr;
}

static HRESULT replace_rets_with_nops(struct edit *e)
{
    return for_each_ret(e, nop_instead);
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
                    clrie_plugin_release(try_last);
                    made->lpVtbl->AddRef(made);
                    try_last = made;
                }
            }
            clrie_plugin_release(made);
            clrie_plugin_release(target);
            clrie_plugin_release(branch);
        }
        at->lpVtbl->Release(at);
        at = last ? NULL : next;
        if (last)
            clrie_plugin_release(next);
    }
    clrie_plugin_release(at);

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
    clrie_plugin_release(clause);
    clrie_plugin_release(eh);
    clrie_plugin_release(endfinally);
    clrie_plugin_release(pop);
    clrie_plugin_release(call);
    clrie_plugin_release(leave);
    clrie_plugin_release(try_last);
    clrie_plugin_release(first);
    clrie_plugin_release(exit);
    clrie_plugin_release(sr2);
    clrie_plugin_release(sr);
    return hr;
}

static void note_hostile(HRESULT hr)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    if (plugin_cfg.hostile_count <
        (int)(sizeof(plugin_cfg.hostile) / sizeof(plugin_cfg.hostile[0])))
        plugin_cfg.hostile[plugin_cfg.hostile_count++] = hr;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
}

/* Every call here is wrong; each must fail and change nothing. */
static HRESULT hostile(struct edit *e)
{
    char name[64];
    method_name(e->mi, name, sizeof(name));
    if (strcmp(name, "Small") == 0) { /* keep an instruction of this method for the next */
        clrie_os_mutex_lock(&plugin_cfg.lock);
        plugin_cfg.foreign = first_instruction(e);
        clrie_os_mutex_unlock(&plugin_cfg.lock);
        return S_OK;
    }
    IInstruction *foreign = plugin_cfg.foreign;
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
        clrie_plugin_release(clause);
        clause = NULL;
        note_hostile(eh->lpVtbl->AddNewExceptionClause(eh, COR_ILEXCEPTION_CLAUSE_FINALLY, foreign,
                                                       first, first, first, NULL, 0, &clause));
        clrie_plugin_release(clause);
        note_hostile(eh->lpVtbl->AddExceptionClause(eh, NULL));
    }
    if (SUCCEEDED(e->mi->lpVtbl->GetSingleRetDefaultInstrumentation(e->mi, &sr))) {
        note_hostile(sr->lpVtbl->Initialize(sr, NULL));
        note_hostile(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr)); /* not initialised */
    }
    clrie_plugin_release(sr);
    clrie_plugin_release(eh);
    clrie_plugin_release(locals);
    clrie_plugin_release(branch);
    clrie_plugin_release(fresh);
    clrie_plugin_release(first);
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
    clrie_plugin_release(graph);
    return hr;
}

static HRESULT instrument(IMethodInfo *mi, enum action action)
{
    struct edit e;
    HRESULT hr = edit_begin(mi, &e);
    if (SUCCEEDED(hr)) {
        switch (action) {
        case DO_NOTHING:
        case SHOULD_FAIL: /* never asked to instrument */
        case BLOCK:       /* im_InstrumentMethod waits, then changes nothing */
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
            plugin_cfg.baseline_late = create_baseline(mi);
            hr = for_each_ret(&e, call_and_add);
            break;
        case KEEP:
            mi->lpVtbl->AddRef(mi);
            plugin_cfg.kept = mi;
            e.graph->lpVtbl->AddRef(e.graph);
            plugin_cfg.kept_graph = e.graph;
            hr = for_each_ret(&e, call_and_add);
            break;
        case SIG_TOKEN:
            hr = mi->lpVtbl->SetLocalVarSigToken(mi, PF_MULTI_LOCALS);
            break;
        case EMPTY:
            hr = remove_all(&e);
            break;
        case FALL_OFF:
            hr = replace_rets_with_nops(&e);
            break;
        case IN_PLACE:
            hr = retarget_in_place(&e);
            break;
        }
    }
    edit_end(&e);
    return hr;
}

/* ---- the plugin object: IInstrumentationMethod, JitEvents2, ExceptionEvents ------------------ */

struct plugin {
    IInstrumentationMethod iface;
    IInstrumentationMethodAttach attach;
    IInstrumentationMethodJitEvents2 jit;
    IInstrumentationMethodExceptionEvents exceptions;
    struct clrie_plugin_com com;
    bool second; /* PIPELINE_SECOND_PLUGIN_CLSID_TEXT's */
};

static struct plugin *plugin_of(IInstrumentationMethod *This)
{
    return CLRIE_CONTAINER_OF(This, struct plugin, iface);
}

static void note_order(const char *what)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    size_t used = strlen(plugin_cfg.order);
    if (used + strlen(what) + 1 < sizeof(plugin_cfg.order))
        memcpy(plugin_cfg.order + used, what, strlen(what) + 1);
    clrie_os_mutex_unlock(&plugin_cfg.lock);
}

static void plugin_destroy(void *object)
{
    free(object);
    atomic_fetch_sub(&plugins_live, 1);
}

static const struct clrie_plugin_com_iface plugin_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct plugin, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents, struct plugin, jit),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents2, struct plugin, jit),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodExceptionEvents, struct plugin, exceptions),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodAttach, struct plugin, attach),
};

static const struct clrie_plugin_com_class plugin_class = {
    .name = "pipeline test plugin",
    .ifaces = plugin_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(plugin_ifaces),
    .com_offset = offsetof(struct plugin, com),
    .destroy = plugin_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(im, IInstrumentationMethod, struct plugin, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(je, IInstrumentationMethodJitEvents2, struct plugin, jit, com)
CLRIE_PLUGIN_COM_IUNKNOWN(ee, IInstrumentationMethodExceptionEvents, struct plugin, exceptions, com)
CLRIE_PLUGIN_COM_IUNKNOWN(at, IInstrumentationMethodAttach, struct plugin, attach, com)

static HRESULT STDMETHODCALLTYPE im_Initialize(IInstrumentationMethod *This,
                                               IProfilerManager *manager)
{
    if (!plugin_cfg.exceptions)
        return S_OK;
    ICorProfilerInfo *info = NULL;
    HRESULT hr = clrie_plugin_profiler_info(manager, &IID_ICorProfilerInfo, (void **)&info);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->SetEventMask(info, COR_PRF_MONITOR_EXCEPTIONS);
    clrie_plugin_release(info);
    return hr;
}

static HRESULT STDMETHODCALLTYPE im_OnAppDomainCreated(IInstrumentationMethod *This,
                                                       IAppDomainInfo *domain)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.domains_created++;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnAssemblyLoaded(IInstrumentationMethod *This,
                                                     IAssemblyInfo *assembly)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.assemblies_loaded++;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_OnModuleLoaded(IInstrumentationMethod *This,
                                                   IModuleInfo *module)
{
    ModuleID id = 0;
    module->lpVtbl->GetModuleID(module, &id);
    if (id == PF_MODULE) {
        clrie_os_mutex_lock(&plugin_cfg.lock);
        plugin_cfg.module_loads++;
        if (!plugin_cfg.module) {
            module->lpVtbl->AddRef(module);
            plugin_cfg.module = module;
        }
        clrie_os_mutex_unlock(&plugin_cfg.lock);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                           IMethodInfo *mi, BOOL isRejit,
                                                           BOOL *pbInstrument)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.should_calls++;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    *pbInstrument = is_target(mi) && (!plugin_of(This)->second || plugin_cfg.second_wants);
    if (*pbInstrument && !plugin_of(This)->second && plugin_cfg.action == SHOULD_FAIL)
        return E_ACCESSDENIED; /* says yes, and fails: taken as no */
    return S_OK;
}

/* Baselines that are wrong: each must fail and leave the method as it was. */
static void hostile_baselines(IMethodInfo *mi)
{
    static const BYTE bad_opcode[] = {0xFE, 0xFF, 0x2A};
    static const BYTE cut_operand[] = {0x20, 0x01}; /* ldc.i4 with 1 of its 4 bytes */
    static const BYTE code[] = {0x17, 0x2A};
    COR_IL_MAP map[] = {{0, 0, TRUE}};
    DWORD points[] = {0};
    IInstructionGraph *graph = NULL;
    if (FAILED(mi->lpVtbl->GetInstructions(mi, &graph)))
        return;
    IInstructionGraph *g = graph;
    note_hostile(g->lpVtbl->CreateBaseline(g, NULL, NULL, 1, map, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, code + 2, code, 1, map, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, code, code, 1, map, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, bad_opcode, bad_opcode + 3, 1, map, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, cut_operand, cut_operand + 2, 1, map, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, code, code + 2, 1, NULL, 1, points));
    note_hostile(g->lpVtbl->CreateBaseline(g, code, code + 2, 1, map, 1, NULL));
    graph->lpVtbl->Release(graph);
}

static HRESULT STDMETHODCALLTYPE im_BeforeInstrumentMethod(IInstrumentationMethod *This,
                                                           IMethodInfo *mi, BOOL isRejit)
{
    if (plugin_cfg.action == HOSTILE && is_target(mi) && plugin_cfg.foreign)
        hostile_baselines(mi);
    if (plugin_cfg.action != BASELINE || !is_target(mi))
        return S_OK;
    plugin_cfg.baseline_before = create_baseline(mi);
    return plugin_cfg.baseline_before;
}

static HRESULT STDMETHODCALLTYPE im_InstrumentMethod(IInstrumentationMethod *This, IMethodInfo *mi,
                                                     BOOL isRejit)
{
    DWORD count = 0;
    mi->lpVtbl->GetRejitCount(mi, &count);
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.instrument_calls++;
    plugin_cfg.last_rejit = isRejit;
    plugin_cfg.last_rejit_count = count;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    if (isRejit && plugin_cfg.codegen_flags)
        mi->lpVtbl->SetRejitCodeGenFlags(mi, plugin_cfg.codegen_flags);
    bool second = plugin_of(This)->second;
    note_order(second ? "second " : "first ");
    enum action action = second ? plugin_cfg.second_action : plugin_cfg.action;
    if (action == BLOCK) {
        clrie_os_mutex_lock(&plugin_cfg.lock);
        plugin_cfg.inside = true;
        clrie_os_cond_broadcast(&plugin_cfg.changed);
        while (!plugin_cfg.go)
            clrie_os_cond_wait(&plugin_cfg.changed, &plugin_cfg.lock);
        clrie_os_mutex_unlock(&plugin_cfg.lock);
        return S_OK;
    }
    return instrument(mi, action);
}

static HRESULT STDMETHODCALLTYPE im_OnInstrumentationComplete(IInstrumentationMethod *This,
                                                              IMethodInfo *mi, BOOL isRejit)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.complete_calls++;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE im_AllowInlineSite(IInstrumentationMethod *This,
                                                    IMethodInfo *inlinee, IMethodInfo *caller,
                                                    BOOL *pbAllowInline)
{
    char name[64];
    method_name(inlinee, name, sizeof(name));
    *pbAllowInline = !(plugin_cfg.deny_inline && strcmp(name, plugin_cfg.deny_inline) == 0);
    return S_OK;
}

static const struct IInstrumentationMethodVtbl plugin_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(im),
    .Initialize = im_Initialize,
    .OnAppDomainCreated = im_OnAppDomainCreated,
    .OnAppDomainShutdown = clrie_plugin_ignore_app_domain,
    .OnAssemblyLoaded = im_OnAssemblyLoaded,
    .OnAssemblyUnloaded = clrie_plugin_ignore_assembly,
    .OnModuleLoaded = im_OnModuleLoaded,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = im_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = im_BeforeInstrumentMethod,
    .InstrumentMethod = im_InstrumentMethod,
    .OnInstrumentationComplete = im_OnInstrumentationComplete,
    .AllowInlineSite = im_AllowInlineSite,
};

/* Loaded at attach: the same plugin, with no settings to read. */
static HRESULT STDMETHODCALLTYPE
at_InitializeForAttach(IInstrumentationMethodAttach *This, IProfilerManager *manager,
                       IInstrumentationMethodAttachContext *context)
{
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE at_AttachComplete(IInstrumentationMethodAttach *This)
{
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.attach_complete_calls++;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return S_OK;
}

static const struct IInstrumentationMethodAttachVtbl attach_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(at),
    .InitializeForAttach = at_InitializeForAttach,
    .AttachComplete = at_AttachComplete,
};

static HRESULT STDMETHODCALLTYPE je_JitComplete(IInstrumentationMethodJitEvents2 *This,
                                                FunctionID id, BOOL rejit, HRESULT hr)
{
    plugin_cfg.jit_info_hr = E_UNEXPECTED; /* v1 must not be called on a plugin with JitEvents2 */
    return S_OK;
}

/* Runs on the racing threads too: records, never asserts (cmocka's failures are for the test
 * thread); the tests check jit_info_hr. */
static HRESULT STDMETHODCALLTYPE je_JitComplete2(IInstrumentationMethodJitEvents2 *This,
                                                 IMethodJitInfo *info)
{
    IMethodJitInfo2 *info2 = NULL;
    HRESULT hr = info->lpVtbl->QueryInterface(info, &IID_IMethodJitInfo2, (void **)&info2);
    if (FAILED(hr)) {
        plugin_cfg.jit_info_hr = hr;
        return S_OK;
    }
    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.jit_complete_seen = true;
    HRESULT results[] = {
        info2->lpVtbl->GetILTransformationStatus(info2, &plugin_cfg.transformed),
        info2->lpVtbl->GetILInstrumentationMap(info2, MAX_SEEN, plugin_cfg.map,
                                               &plugin_cfg.map_count),
        info2->lpVtbl->GetJitHR(info2, &plugin_cfg.jit_hr),
        info2->lpVtbl->GetMethodToken(info2, &plugin_cfg.jit_token),
        info2->lpVtbl->GetIsRejit(info2, &plugin_cfg.jit_rejit),
        info2->lpVtbl->GetNativeCodeAddress(info2, &plugin_cfg.native_code),
        info2->lpVtbl->GetILNativeMapping(info2, 0, NULL, &plugin_cfg.native_map_count),
    };
    for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++)
        if (results[i] != S_OK)
            plugin_cfg.jit_info_hr = results[i];
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    info2->lpVtbl->Release(info2);
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl jit_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(je),
    .JitStarted = clrie_plugin_ignore_jit_started,
    .JitComplete = je_JitComplete,
    .JitComplete2 = je_JitComplete2,
};

static HRESULT seen_exception(IMethodInfo *mi)
{
    IInstructionGraph *graph = NULL;
    plugin_cfg.info_only_il = mi->lpVtbl->GetInstructions(mi, &graph);
    clrie_plugin_release(graph);
    clrie_os_mutex_lock(&plugin_cfg.lock);
    if (plugin_cfg.exception_count < MAX_SEEN)
        pipeline_plugin_full_name(mi, plugin_cfg.exception_names[plugin_cfg.exception_count++], 64);
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ee_with_method(IInstrumentationMethodExceptionEvents *This,
                                                IMethodInfo *mi)
{
    return seen_exception(mi);
}

static HRESULT STDMETHODCALLTYPE ee_CatcherEnter(IInstrumentationMethodExceptionEvents *This,
                                                 IMethodInfo *mi, UINT_PTR object)
{
    return seen_exception(mi);
}

static HRESULT STDMETHODCALLTYPE ee_Thrown(IInstrumentationMethodExceptionEvents *This,
                                           UINT_PTR object)
{
    return S_OK;
}

static const struct IInstrumentationMethodExceptionEventsVtbl exception_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(ee),
    .ExceptionCatcherEnter = ee_CatcherEnter,
    .ExceptionCatcherLeave = clrie_plugin_ignore_exception_event,
    .ExceptionSearchCatcherFound = ee_with_method,
    .ExceptionSearchFilterEnter = ee_with_method,
    .ExceptionSearchFilterLeave = clrie_plugin_ignore_exception_event,
    .ExceptionSearchFunctionEnter = ee_with_method,
    .ExceptionSearchFunctionLeave = clrie_plugin_ignore_exception_event,
    .ExceptionThrown = ee_Thrown,
    .ExceptionUnwindFinallyEnter = ee_with_method,
    .ExceptionUnwindFinallyLeave = clrie_plugin_ignore_exception_event,
    .ExceptionUnwindFunctionEnter = ee_with_method,
    .ExceptionUnwindFunctionLeave = clrie_plugin_ignore_exception_event,
};

/* ---- its class factory, reached from the shim's DllGetClassObject ---------------------------- */

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **ppv)
{
    struct plugin *p = calloc(1, sizeof(*p));
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &plugin_vtbl;
    p->attach.lpVtbl = &attach_vtbl;
    p->jit.lpVtbl = &jit_vtbl;
    p->exceptions.lpVtbl = &exception_vtbl;
    p->second = IsEqualIID(clsid, &second_plugin_clsid);
    atomic_fetch_add(&plugins_live, 1);
    clrie_plugin_com_init(&p->com, &plugin_class);
    return clrie_plugin_com_give(&p->com, riid, ppv);
}

HRESULT pipeline_test_get_class_object(REFCLSID clsid, REFIID iid, void **out)
{
    if (!IsEqualIID(clsid, &plugin_clsid) && !IsEqualIID(clsid, &second_plugin_clsid)) {
        *out = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return clrie_plugin_get_class_object(create_instance, clsid, iid, out);
}
