/* A plugin that exercises the engine's JIT and ReJIT pipelines on test/dotnet/pipeline, with
 * effects a test can see. By method name (IMethodInfo::GetName) of the app's Program class:
 *
 *   Answer    every ret gets `ldc.i4.1; add` before it: the app prints 42 instead of 41
 *   Failing   InstrumentMethod fails: the method must run unchanged
 *   Invalid   a `pop` is put first (stack underflow): the engine must refuse to apply it
 *   Rejitted  after its first JIT completes, a thread asks IModuleInfo::RequestRejit; the
 *             rejitted body returns 2 instead of 1
 *   RevertNow, RejitAgainNow  when their first JIT completes, a thread asks the runtime to
 *             revert Rejitted (ICorProfilerInfo4::RequestRevert through the engine's wrapped
 *             info), or to rejit it again: the second ReJIT starts again from the original IL
 *   Replaced  BeforeInstrumentMethod replaces its code (CreateBaseline) with `ldc.i4.s 99; ret`,
 *             then InstrumentMethod adds one as for Answer: the app prints 100; a second
 *             CreateBaseline from InstrumentMethod must be refused
 *   Small     AllowInlineSite says no to inlining it
 *   ConcurrentA, ConcurrentB  (jitted at the same time on two threads) InstrumentMethod of
 *             each waits up to 20 s for the other to be inside InstrumentMethod too: they
 *             meet only if the engine instruments methods concurrently
 *
 * With CLRIE_PIPELINE_PROBE_PUSH set to a config file path, the first instance's Initialize
 * hands that file to IProfilerManager::SetupProfilingEnvironment (a host pushing more
 * configuration); the plugins it names load at once.
 *
 * It appends lines to the file named by CLRIE_PIPELINE_PROBE_FILE:
 *
 *   initialize
 *   push hr=<hr of SetupProfilingEnvironment>
 *   instrument <full name> rejit=<0|1> count=<rejit count>
 *   complete <full name> rejit=<0|1>
 *   jitcomplete <full name> rejit=<0|1> transformed=<0|1> map=<IL map entries> hr=<jit hr>
 *   requestrejit <full name> hr=<hr>
 *   requestrevert <full name> hr=<hr> status=<hr>
 *   noinline <inlinee full name> into <caller full name>
 *   concurrent <full name> met=<0|1>
 *   baseline <full name> before=<hr> late=<hr>
 *
 * Only the ABI headers are used, as by any third-party plugin. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* usleep */
#endif

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/os/thread.h"
#include "clrie/plugin.h"
#include "plugin_edits.h"

struct probe {
    IInstrumentationMethod iface;
    IInstrumentationMethodJitEvents2 jit_events;
    struct clrie_plugin_com com;
    int fd;
    atomic_int inside_concurrent; /* ConcurrentA/B calls inside InstrumentMethod */
    ICorProfilerInfo4 *info;      /* the engine's wrapped info */
    HRESULT baseline_hr;          /* CreateBaseline from BeforeInstrumentMethod */
    /* Rejitted, once its first JIT completed: what RevertNow and RejitAgainNow act on. */
    struct clrie_os_mutex lock;
    IModuleInfo *rejitted_module;
    ModuleID rejitted_module_id;
    mdMethodDef rejitted_token;
};

static struct probe *from_iface(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, iface);
}

static struct probe *from_jit_events(IInstrumentationMethodJitEvents2 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct probe, jit_events);
}

/* A test log line: one write() (clrie_plugin_append_line); a failed write is let go. */
#define record(p, ...) ((void)clrie_plugin_append_line((p)->fd, __VA_ARGS__))

/* The method's name and full name, freed through the engine's export as CLRIE plugins do. */
static void method_names(IMethodInfo *mi, char *name, size_t name_size, char *full,
                         size_t full_size)
{
    clrie_plugin_method_name(mi, NULL, name, name_size);
    clrie_plugin_method_full_name(mi, NULL, full, full_size);
}

static bool is_program(const char *full)
{
    return strncmp(full, "Program.", 8) == 0;
}

/* ---- IInstrumentationMethod ---------------------------------------------------------------- */

static void probe_destroy(void *object)
{
    struct probe *p = object;
    if (p->fd >= 0)
        close(p->fd);
    clrie_plugin_release(p->info);
    clrie_plugin_release(p->rejitted_module);
    clrie_os_mutex_finish(&p->lock);
    free(p);
}

static const struct clrie_plugin_com_iface probe_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct probe, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents, struct probe, jit_events),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents2, struct probe, jit_events),
};

static const struct clrie_plugin_com_class probe_class = {
    .name = "pipeline-probe",
    .ifaces = probe_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(probe_ifaces),
    .com_offset = offsetof(struct probe, com),
    .destroy = probe_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(probe, IInstrumentationMethod, struct probe, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(probe_jit, IInstrumentationMethodJitEvents2, struct probe, jit_events,
                          com)

static HRESULT STDMETHODCALLTYPE probe_Initialize(IInstrumentationMethod *This,
                                                  IProfilerManager *pProfilerManager)
{
    struct probe *p = from_iface(This);
    const char *path = getenv("CLRIE_PIPELINE_PROBE_FILE");
    if (path)
        p->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    clrie_plugin_profiler_info(pProfilerManager, &IID_ICorProfilerInfo4, (void **)&p->info);
    record(p, "initialize");
    static atomic_bool pushed;
    const char *push = getenv("CLRIE_PIPELINE_PROBE_PUSH");
    if (push && !atomic_exchange(&pushed, true)) {
        /* A BSTR: the byte length in the 4 bytes before the text, then a 0 (ASCII paths). */
        size_t len = strlen(push);
        uint32_t *block = calloc(1, 4 + 2 * (len + 1));
        if (block) {
            WCHAR *text = (WCHAR *)(block + 1);
            block[0] = (uint32_t)(2 * len);
            for (size_t i = 0; i < len; i++)
                text[i] = (WCHAR)(unsigned char)push[i];
            BSTR paths[] = {text};
            HRESULT hr =
                pProfilerManager->lpVtbl->SetupProfilingEnvironment(pProfilerManager, paths, 1);
            record(p, "push hr=0x%08X", (unsigned)hr);
            free(block);
        }
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *pMethodInfo,
                                                              BOOL isRejit, BOOL *pbInstrument)
{
    char name[256], full[512];
    method_names(pMethodInfo, name, sizeof name, full, sizeof full);
    *pbInstrument =
        is_program(full) && (!strcmp(name, "Answer") || !strcmp(name, "Failing") ||
                             !strcmp(name, "Invalid") || !strncmp(name, "Concurrent", 10) ||
                             !strcmp(name, "Replaced") || (!strcmp(name, "Rejitted") && isRejit));
    return S_OK;
}

/* Replaces the method's code with `ldc.i4.s 99; ret`; the sequence point at 0 maps. */
static HRESULT replace_code(IMethodInfo *mi)
{
    static const BYTE code[] = {0x1F, 99, 0x2A};
    COR_IL_MAP map[] = {{0, 0, TRUE}};
    DWORD points[] = {0};
    IInstructionGraph *graph = NULL;
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (SUCCEEDED(hr)) {
        hr = graph->lpVtbl->CreateBaseline(graph, code, code + sizeof code, 1, map, 1, points);
        clrie_plugin_release(graph);
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE probe_BeforeInstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *pMethodInfo,
                                                              BOOL isRejit)
{
    struct probe *p = from_iface(This);
    char name[256], full[512];
    method_names(pMethodInfo, name, sizeof name, full, sizeof full);
    if (strcmp(name, "Replaced") != 0)
        return S_OK;
    p->baseline_hr = replace_code(pMethodInfo);
    return p->baseline_hr;
}

/* Puts a `pop` first: the stack is empty there, so the method no longer verifies. */
static HRESULT pop_first(IMethodInfo *mi)
{
    IInstructionGraph *graph = NULL;
    IInstructionFactory *factory = NULL;
    IInstruction *first = NULL, *pop = NULL;
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &graph);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetInstructionFactory(mi, &factory);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->GetFirstInstruction(graph, &first);
    if (SUCCEEDED(hr))
        hr = factory->lpVtbl->CreateInstruction(factory, Cee_Pop, &pop);
    if (SUCCEEDED(hr))
        hr = graph->lpVtbl->InsertBefore(graph, first, pop);
    clrie_plugin_release(pop);
    clrie_plugin_release(first);
    clrie_plugin_release(factory);
    clrie_plugin_release(graph);
    return hr;
}

static HRESULT STDMETHODCALLTYPE probe_InstrumentMethod(IInstrumentationMethod *This,
                                                        IMethodInfo *pMethodInfo, BOOL isRejit)
{
    struct probe *p = from_iface(This);
    char name[256], full[512];
    DWORD count = 0;
    method_names(pMethodInfo, name, sizeof name, full, sizeof full);
    pMethodInfo->lpVtbl->GetRejitCount(pMethodInfo, &count);
    record(p, "instrument %s rejit=%d count=%u", full, isRejit ? 1 : 0, (unsigned)count);
    if (!strcmp(name, "Failing"))
        return E_FAIL;
    if (!strcmp(name, "Invalid"))
        return pop_first(pMethodInfo);
    if (!strcmp(name, "Replaced"))
        record(p, "baseline %s before=0x%08X late=0x%08X", full, (unsigned)p->baseline_hr,
               (unsigned)replace_code(pMethodInfo));
    if (!strncmp(name, "Concurrent", 10)) {
        atomic_fetch_add(&p->inside_concurrent, 1);
        int waited = 0;
        while (atomic_load(&p->inside_concurrent) < 2 && waited++ < 2000)
            usleep(10 * 1000);
        record(p, "concurrent %s met=%d", full, atomic_load(&p->inside_concurrent) >= 2);
    }
    return test_plugin_add_before_rets(pMethodInfo, 1);
}

static HRESULT STDMETHODCALLTYPE probe_OnInstrumentationComplete(IInstrumentationMethod *This,
                                                                 IMethodInfo *pMethodInfo,
                                                                 BOOL isRejit)
{
    char name[256], full[512];
    method_names(pMethodInfo, name, sizeof name, full, sizeof full);
    if (is_program(full))
        record(from_iface(This), "complete %s rejit=%d", full, isRejit ? 1 : 0);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE probe_AllowInlineSite(IInstrumentationMethod *This,
                                                       IMethodInfo *pMethodInfoInlinee,
                                                       IMethodInfo *pMethodInfoCaller,
                                                       BOOL *pbAllowInline)
{
    char name[256], full[512], caller_name[256], caller_full[512];
    method_names(pMethodInfoInlinee, name, sizeof name, full, sizeof full);
    *pbAllowInline = TRUE;
    if (is_program(full) && !strcmp(name, "Small")) {
        method_names(pMethodInfoCaller, caller_name, sizeof caller_name, caller_full,
                     sizeof caller_full);
        record(from_iface(This), "noinline %s into %s", full, caller_full);
        *pbAllowInline = FALSE;
    }
    return S_OK;
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe),
    .Initialize = probe_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = probe_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = probe_BeforeInstrumentMethod,
    .InstrumentMethod = probe_InstrumentMethod,
    .OnInstrumentationComplete = probe_OnInstrumentationComplete,
    .AllowInlineSite = probe_AllowInlineSite,
};

/* ---- IInstrumentationMethodJitEvents2 ------------------------------------------------------ */

struct rejit_request {
    struct probe *probe;
    IModuleInfo *module;
    ModuleID module_id;
    mdMethodDef token;
    bool revert;
    char full[512];
};

/* RequestRejit or RequestRevert from a thread of the plugin's own, not from inside the JIT
 * callback. */
static void request_rejit(void *arg)
{
    struct rejit_request *r = arg;
    if (r->revert) {
        HRESULT status = E_FAIL;
        HRESULT hr = r->probe->info ? r->probe->info->lpVtbl->RequestRevert(
                                          r->probe->info, 1, &r->module_id, &r->token, &status)
                                    : E_NOINTERFACE;
        record(r->probe, "requestrevert %s hr=0x%08X status=0x%08X", r->full, (unsigned)hr,
               (unsigned)status);
    } else {
        HRESULT hr = r->module->lpVtbl->RequestRejit(r->module, r->token);
        record(r->probe, "requestrejit %s hr=0x%08X", r->full, (unsigned)hr);
    }
    clrie_plugin_release(r->module);
    clrie_plugin_com_release(&r->probe->com);
    free(r);
}

static void start_request(struct probe *p, IModuleInfo *module, ModuleID module_id,
                          mdMethodDef token, bool revert, const char *full)
{
    struct rejit_request *r = calloc(1, sizeof *r);
    if (!r)
        return;
    clrie_plugin_com_add_ref(&p->com);
    module->lpVtbl->AddRef(module);
    *r = (struct rejit_request){p, module, module_id, token, revert, ""};
    snprintf(r->full, sizeof r->full, "%s", full);
    if (clrie_os_thread_start_detached(request_rejit, r) != 0)
        request_rejit(r);
}

static HRESULT STDMETHODCALLTYPE probe_JitComplete2(IInstrumentationMethodJitEvents2 *This,
                                                    IMethodJitInfo *info)
{
    struct probe *p = from_jit_events(This);
    IMethodJitInfo2 *info2 = NULL;
    IModuleInfo *module = NULL;
    IMethodInfo *mi = NULL;
    mdMethodDef token = 0;
    BOOL rejit = FALSE, transformed = FALSE;
    HRESULT status = S_OK;
    ULONG32 map = 0;
    char name[256], full[512];

    if (FAILED(info->lpVtbl->QueryInterface(info, &IID_IMethodJitInfo2, (void **)&info2)))
        return S_OK;
    if (FAILED(info2->lpVtbl->GetModuleInfo(info2, &module)) ||
        FAILED(info2->lpVtbl->GetMethodToken(info2, &token)) ||
        FAILED(module->lpVtbl->GetMethodInfoByToken(module, token, &mi)))
        goto out;
    method_names(mi, name, sizeof name, full, sizeof full);
    if (!is_program(full))
        goto out;
    info2->lpVtbl->GetIsRejit(info2, &rejit);
    info2->lpVtbl->GetILTransformationStatus(info2, &transformed);
    info2->lpVtbl->GetJitHR(info2, &status);
    info2->lpVtbl->GetILInstrumentationMap(info2, 0, NULL, &map);
    record(p, "jitcomplete %s rejit=%d transformed=%d map=%u hr=0x%08X", full, rejit ? 1 : 0,
           transformed ? 1 : 0, (unsigned)map, (unsigned)status);
    if (!strcmp(name, "Rejitted") && !rejit) {
        clrie_os_mutex_lock(&p->lock);
        if (!p->rejitted_module) {
            module->lpVtbl->AddRef(module);
            p->rejitted_module = module;
            module->lpVtbl->GetModuleID(module, &p->rejitted_module_id);
            p->rejitted_token = token;
        }
        clrie_os_mutex_unlock(&p->lock);
        start_request(p, module, 0, token, false, full);
    } else if ((!strcmp(name, "RevertNow") || !strcmp(name, "RejitAgainNow")) && !rejit) {
        clrie_os_mutex_lock(&p->lock);
        IModuleInfo *target = p->rejitted_module;
        if (target)
            start_request(p, target, p->rejitted_module_id, p->rejitted_token,
                          !strcmp(name, "RevertNow"), "Program.Rejitted");
        clrie_os_mutex_unlock(&p->lock);
    }
out:
    clrie_plugin_release(mi);
    clrie_plugin_release(module);
    clrie_plugin_release(info2);
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl jit_events_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(probe_jit),
    .JitStarted = clrie_plugin_ignore_jit_started,
    .JitComplete = clrie_plugin_ignore_jit_complete, /* superseded by JitComplete2 */
    .JitComplete2 = probe_JitComplete2,
};

/* ---- class factory: any class ID ------------------------------------------------------------ */

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct probe *p = calloc(1, sizeof *p);
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &method_vtbl;
    p->jit_events.lpVtbl = &jit_events_vtbl;
    p->fd = -1;
    clrie_os_mutex_init(&p->lock);
    clrie_plugin_com_init(&p->com, &probe_class);
    return clrie_plugin_com_give(&p->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
