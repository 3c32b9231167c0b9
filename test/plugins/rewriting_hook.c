/* An ordinary CoreCLR profiler that rewrites IL itself, as an APM agent does, for the tests of
 * the engine's raw hook beside a plugin (test/dotnet/test_hook_compose.py, app
 * test/dotnet/compose). On `Program.Value(int x)` it puts `x += N` in front of the body
 * GetILFunctionBody gives it (the first JIT and every ReJIT), with an
 * IL map that moves every offset by the length of that code:
 *
 *   first JIT   N = 100
 *   k-th ReJIT  N = 100 * (k + 1)
 *
 * When `Program.RejitByHook` is jitted, a thread of its own asks the runtime to rejit Value;
 * when `Program.RevertByHook` is, to revert it.
 * Each time a compilation of Value finishes it records the IL offsets the runtime reports for
 * the native code (GetILToNativeMapping), which the runtime has taken back through the IL map
 * to offsets of the original body. Lines, appended to CLRIE_REWRITING_HOOK_FILE:
 *
 *   rewrote Value at jit|rejit <k> with +<N> (body <bytes> bytes in)
 *   requested rejit hr=0x<hr>
 *   requested revert hr=0x<hr> status=0x<hr>
 *   offsets Value <rejit id> <offset>,<offset>,...     (prolog/epilog/none marks left out)
 *   failed <what> 0x<hr>
 *
 * With CLRIE_REWRITING_HOOK_CONFLICTS=1 it also does what cannot compose with a plugin: at each
 * ReJIT of Value it sets code-gen flags 0x1 (COR_PRF_CODEGEN_DISABLE_INLINING), and when the
 * first compilation of Value has finished it sets Value's body again through
 * ICorProfilerInfo::SetILFunctionBody (its own +100 body over the IL the runtime now holds), and
 * its IL map through SetILInstrumentedCodeMap:
 *
 *   set body late hr=0x<hr>
 *   set map late hr=0x<hr>
 *
 * It also works as the process's only profiler. DllGetClassObject accepts any class ID. */
#define _GNU_SOURCE /* usleep */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/corprof.h"
#include "clrie/os/thread.h"
#include "clrie/plugin.h"

#include "hook_common.h"

struct hook {
    struct test_hook base;         /* info4: the runtime's ICorProfilerInfo4 */
    _Atomic ModuleID value_module; /* Program.Value, once seen */
    _Atomic mdMethodDef value_token;
    atomic_int rejits; /* GetReJITParameters calls for Value */
};

static struct hook *from_iface(ICorProfilerCallback11 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct hook, base.iface);
}

static HRESULT STDMETHODCALLTYPE hook_Initialize(ICorProfilerCallback11 *This,
                                                 IUnknown *pICorProfilerInfoUnk)
{
    struct hook *hook = from_iface(This);
    test_hook_open_file(&hook->base, "CLRIE_REWRITING_HOOK_FILE");
    if (!pICorProfilerInfoUnk ||
        FAILED(pICorProfilerInfoUnk->lpVtbl->QueryInterface(
            pICorProfilerInfoUnk, &IID_ICorProfilerInfo4, (void **)&hook->base.info4)))
        return E_FAIL;
    HRESULT hr = hook->base.info4->lpVtbl->SetEventMask(
        hook->base.info4, COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_REJIT);
    if (FAILED(hr))
        clrie_plugin_append_line(hook->base.fd, "failed SetEventMask 0x%08X", (unsigned)hr);
    return S_OK;
}

/* The method's name, "" when it cannot be read. */
static void method_name(struct hook *hook, ModuleID module, mdMethodDef token, char *out,
                        size_t size)
{
    IMetaDataImport *import = NULL;
    WCHAR wide[128];
    ULONG len = 0;
    out[0] = '\0';
    if (FAILED(hook->base.info4->lpVtbl->GetModuleMetaData(
            hook->base.info4, module, 0, &IID_IMetaDataImport, (IUnknown **)(void *)&import)))
        return;
    mdTypeDef type = 0;
    if (SUCCEEDED(import->lpVtbl->GetMethodProps(import, token, &type, wide, 128, &len, NULL, NULL,
                                                 NULL, NULL, NULL))) {
        size_t n = 0;
        for (ULONG i = 0; i < len && wide[i] && n + 1 < size; i++)
            out[n++] = (char)wide[i];
        out[n] = '\0';
    }
    import->lpVtbl->Release(import);
}

/* `x += add` in front of body (a method header and its code, no exception sections), as a new
 * body in *out (malloc'd, *out_len bytes); false when the body is not one it can change. */
#define PRELUDE_LEN 9
static bool prepend(const uint8_t *body, ULONG len, int32_t add, uint8_t **out, size_t *out_len)
{
    const uint8_t *code;
    uint32_t code_len, max_stack = 8, local_sig = 0;
    uint16_t flags = 0x0010; /* InitLocals */
    if (len < 1)
        return false;
    if ((body[0] & 3) == 2) { /* tiny */
        code = body + 1;
        code_len = body[0] >> 2;
    } else {
        if (len < 12 || (body[0] & 3) != 3 || (body[0] & 0x08)) /* fat, no more sections */
            return false;
        flags = (uint16_t)((body[0] | body[1] << 8) & 0x0FF0);
        max_stack = body[2] | body[3] << 8;
        memcpy(&code_len, body + 4, 4);
        memcpy(&local_sig, body + 8, 4);
        code = body + 12;
    }
    if (code + code_len > body + len)
        return false;
    *out_len = 12 + PRELUDE_LEN + code_len;
    uint8_t *b = *out = malloc(*out_len);
    if (!b)
        return false;
    uint16_t fat = (uint16_t)(flags | 0x3003); /* fat, 3 dwords */
    uint16_t stack = (uint16_t)(max_stack < 2 ? 2 : max_stack);
    uint32_t new_len = PRELUDE_LEN + code_len;
    memcpy(b, &fat, 2);
    memcpy(b + 2, &stack, 2);
    memcpy(b + 4, &new_len, 4);
    memcpy(b + 8, &local_sig, 4);
    uint8_t prelude[PRELUDE_LEN] = {0x02, 0x20, 0, 0, 0, 0, 0x58, 0x10, 0x00};
    memcpy(prelude + 2, &add, 4); /* ldarg.0; ldc.i4 add; add; starg.s 0 */
    memcpy(b + 12, prelude, PRELUDE_LEN);
    memcpy(b + 12 + PRELUDE_LEN, code, code_len);
    return true;
}

/* Every offset of the body given moves by the prelude. */
static COR_IL_MAP shift_map[1] = {{0, PRELUDE_LEN, TRUE}};

struct rejit_request {
    struct hook *hook;
    ModuleID module;
    mdMethodDef token;
    bool revert;
};

static void request_rejit(void *arg)
{
    struct rejit_request *r = arg;
    usleep(50 * 1000);
    if (r->revert) {
        HRESULT status = E_FAIL;
        HRESULT hr = r->hook->base.info4->lpVtbl->RequestRevert(r->hook->base.info4, 1, &r->module,
                                                                &r->token, &status);
        clrie_plugin_append_line(r->hook->base.fd, "requested revert hr=0x%08X status=0x%08X",
                                 (unsigned)hr, (unsigned)status);
    } else {
        HRESULT hr = r->hook->base.info4->lpVtbl->RequestReJIT(r->hook->base.info4, 1, &r->module,
                                                               &r->token);
        clrie_plugin_append_line(r->hook->base.fd, "requested rejit hr=0x%08X", (unsigned)hr);
    }
    free(r);
}

static HRESULT STDMETHODCALLTYPE hook_JITCompilationStarted(ICorProfilerCallback11 *This,
                                                            FunctionID functionId,
                                                            BOOL fIsSafeToBlock)
{
    struct hook *hook = from_iface(This);
    ClassID cls = 0;
    ModuleID module = 0;
    mdMethodDef token = 0;
    char name[128];
    if (FAILED(hook->base.info4->lpVtbl->GetFunctionInfo(hook->base.info4, functionId, &cls,
                                                         &module, &token)))
        return S_OK;
    method_name(hook, module, token, name, sizeof name);
    bool revert = !strcmp(name, "RevertByHook");
    if ((revert || !strcmp(name, "RejitByHook")) && atomic_load(&hook->value_module)) {
        struct rejit_request *r = malloc(sizeof *r);
        if (r) {
            *r = (struct rejit_request){hook, atomic_load(&hook->value_module),
                                        atomic_load(&hook->value_token), revert};
            if (clrie_os_thread_start_detached(request_rejit, r) != 0)
                free(r);
        }
        return S_OK;
    }
    if (strcmp(name, "Value") != 0)
        return S_OK;
    atomic_store(&hook->value_module, module);
    atomic_store(&hook->value_token, token);
    LPCBYTE body = NULL;
    ULONG len = 0;
    uint8_t *rewritten = NULL;
    size_t rewritten_len = 0;
    HRESULT hr =
        hook->base.info4->lpVtbl->GetILFunctionBody(hook->base.info4, module, token, &body, &len);
    if (FAILED(hr) || !prepend(body, len, 100, &rewritten, &rewritten_len)) {
        clrie_plugin_append_line(hook->base.fd, "failed GetILFunctionBody 0x%08X", (unsigned)hr);
        return S_OK;
    }
    IMethodMalloc *allocator = NULL;
    hr = hook->base.info4->lpVtbl->GetILFunctionBodyAllocator(hook->base.info4, module, &allocator);
    void *memory = SUCCEEDED(hr) ? allocator->lpVtbl->Alloc(allocator, (ULONG)rewritten_len) : NULL;
    if (memory) {
        memcpy(memory, rewritten, rewritten_len);
        hr = hook->base.info4->lpVtbl->SetILFunctionBody(hook->base.info4, module, token, memory);
        if (SUCCEEDED(hr))
            hr = hook->base.info4->lpVtbl->SetILInstrumentedCodeMap(hook->base.info4, functionId,
                                                                    TRUE, 1, shift_map);
    }
    if (allocator)
        allocator->lpVtbl->Release(allocator);
    free(rewritten);
    if (FAILED(hr) || !memory)
        clrie_plugin_append_line(hook->base.fd, "failed SetILFunctionBody 0x%08X", (unsigned)hr);
    else
        clrie_plugin_append_line(hook->base.fd, "rewrote Value at jit with +100 (body %u bytes in)",
                                 (unsigned)len);
    return S_OK;
}

static bool conflicts(void)
{
    const char *value = getenv("CLRIE_REWRITING_HOOK_CONFLICTS");
    return value && !strcmp(value, "1");
}

/* Sets Value's body and map through ICorProfilerInfo outside any JITCompilationStarted of it. */
static void set_body_late(struct hook *hook, FunctionID function, ModuleID module,
                          mdMethodDef token)
{
    LPCBYTE body = NULL;
    ULONG len = 0;
    uint8_t *rewritten = NULL;
    size_t rewritten_len = 0;
    IMethodMalloc *allocator = NULL;
    void *memory = NULL;
    HRESULT hr =
        hook->base.info4->lpVtbl->GetILFunctionBody(hook->base.info4, module, token, &body, &len);
    if (SUCCEEDED(hr) && !prepend(body, len, 100, &rewritten, &rewritten_len))
        hr = E_OUTOFMEMORY;
    if (SUCCEEDED(hr))
        hr = hook->base.info4->lpVtbl->GetILFunctionBodyAllocator(hook->base.info4, module,
                                                                  &allocator);
    if (SUCCEEDED(hr) && !(memory = allocator->lpVtbl->Alloc(allocator, (ULONG)rewritten_len)))
        hr = E_OUTOFMEMORY;
    if (SUCCEEDED(hr)) {
        memcpy(memory, rewritten, rewritten_len);
        hr = hook->base.info4->lpVtbl->SetILFunctionBody(hook->base.info4, module, token, memory);
    }
    if (allocator)
        allocator->lpVtbl->Release(allocator);
    free(rewritten);
    clrie_plugin_append_line(hook->base.fd, "set body late hr=0x%08X", (unsigned)hr);
    hr = hook->base.info4->lpVtbl->SetILInstrumentedCodeMap(hook->base.info4, function, TRUE, 1,
                                                            shift_map);
    clrie_plugin_append_line(hook->base.fd, "set map late hr=0x%08X", (unsigned)hr);
}

static HRESULT STDMETHODCALLTYPE
hook_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                        ICorProfilerFunctionControl *pFunctionControl)
{
    struct hook *hook = from_iface(This);
    if (methodId != atomic_load(&hook->value_token) || moduleId != atomic_load(&hook->value_module))
        return S_OK;
    int k = atomic_fetch_add(&hook->rejits, 1) + 1;
    LPCBYTE body = NULL;
    ULONG len = 0;
    uint8_t *rewritten = NULL;
    size_t rewritten_len = 0;
    HRESULT hr = hook->base.info4->lpVtbl->GetILFunctionBody(hook->base.info4, moduleId, methodId,
                                                             &body, &len);
    if (FAILED(hr) || !prepend(body, len, 100 * (k + 1), &rewritten, &rewritten_len)) {
        clrie_plugin_append_line(hook->base.fd, "failed GetILFunctionBody 0x%08X", (unsigned)hr);
        return S_OK;
    }
    if (conflicts())
        pFunctionControl->lpVtbl->SetCodegenFlags(pFunctionControl, 0x1);
    hr = pFunctionControl->lpVtbl->SetILFunctionBody(pFunctionControl, (ULONG)rewritten_len,
                                                     rewritten);
    if (SUCCEEDED(hr))
        hr = pFunctionControl->lpVtbl->SetILInstrumentedCodeMap(pFunctionControl, 1, shift_map);
    free(rewritten);
    if (FAILED(hr))
        clrie_plugin_append_line(hook->base.fd, "failed control 0x%08X", (unsigned)hr);
    else
        clrie_plugin_append_line(hook->base.fd,
                                 "rewrote Value at rejit %d with +%d (body %u bytes in)", k,
                                 100 * (k + 1), (unsigned)len);
    return S_OK;
}

/* The IL offsets the runtime reports for the function's native code. */
static void record_offsets(struct hook *hook, FunctionID functionId, ReJITID rejit)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdMethodDef token = 0;
    if (FAILED(hook->base.info4->lpVtbl->GetFunctionInfo(hook->base.info4, functionId, &cls,
                                                         &module, &token)) ||
        token != atomic_load(&hook->value_token) || module != atomic_load(&hook->value_module))
        return;
    COR_DEBUG_IL_TO_NATIVE_MAP map[64];
    ULONG32 count = 0;
    HRESULT hr = rejit
                     ? hook->base.info4->lpVtbl->GetILToNativeMapping2(hook->base.info4, functionId,
                                                                       rejit, 64, &count, map)
                     : hook->base.info4->lpVtbl->GetILToNativeMapping(hook->base.info4, functionId,
                                                                      64, &count, map);
    if (FAILED(hr)) {
        clrie_plugin_append_line(hook->base.fd, "failed GetILToNativeMapping 0x%08X", (unsigned)hr);
        return;
    }
    char text[512];
    size_t used = 0;
    text[0] = '\0';
    for (ULONG32 i = 0; i < count && i < 64 && used + 12 < sizeof text; i++) {
        if ((int32_t)map[i].ilOffset < 0) /* NO_MAPPING, PROLOG, EPILOG */
            continue;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%u", used ? "," : "",
                                 (unsigned)map[i].ilOffset);
    }
    clrie_plugin_append_line(hook->base.fd, "offsets Value %llu %s", (unsigned long long)rejit,
                             text);
}

static HRESULT STDMETHODCALLTYPE hook_JITCompilationFinished(ICorProfilerCallback11 *This,
                                                             FunctionID functionId,
                                                             HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    struct hook *hook = from_iface(This);
    record_offsets(hook, functionId, 0);
    ClassID cls = 0;
    ModuleID module = 0;
    mdMethodDef token = 0;
    static atomic_bool done;
    if (conflicts() &&
        SUCCEEDED(hook->base.info4->lpVtbl->GetFunctionInfo(hook->base.info4, functionId, &cls,
                                                            &module, &token)) &&
        token == atomic_load(&hook->value_token) && module == atomic_load(&hook->value_module) &&
        !atomic_exchange(&done, true))
        set_body_late(hook, functionId, module, token);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE hook_ReJITCompilationFinished(ICorProfilerCallback11 *This,
                                                               FunctionID functionId,
                                                               ReJITID rejitId, HRESULT hrStatus,
                                                               BOOL fIsSafeToBlock)
{
    record_offsets(from_iface(This), functionId, rejitId);
    return S_OK;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
// clang-format off
static const struct ICorProfilerCallback11Vtbl hook_vtbl = {
    TEST_HOOK_SLOTS,
    .Initialize = hook_Initialize,
    .JITCompilationStarted = hook_JITCompilationStarted,
    .JITCompilationFinished = hook_JITCompilationFinished,
    .GetReJITParameters = hook_GetReJITParameters,
    .ReJITCompilationFinished = hook_ReJITCompilationFinished,
};
// clang-format on
#pragma GCC diagnostic pop

static HRESULT create_hook(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    return test_hook_create(sizeof(struct hook), &hook_vtbl, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_hook)
