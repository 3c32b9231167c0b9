/* The method tables are meant to generate the engine's forwarding wrappers (the wrapped
 * ICorProfilerInfo handed to plugins, the raw profiler hook). This builds such wrappers for
 * ICorProfilerCallback11 and ICorProfilerInfo15 from the tables alone and proves that a call
 * through each wrapper slot lands in the same-named slot of the wrapped object, with the
 * wrapped object as `This` and the caller's arguments unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/abi/corprof.h"

/* ---- the wrapped object: records the slot called and its This ------------------------ */

static struct {
    const char *method;
    const void *self;
} last;

static void record(const void *self, const char *method)
{
    last.method = method;
    last.self = self;
}

#define RECORD(prefix) \
    static HRESULT prefix##_record(const void *self, const char *method) \
    { \
        record(self, method); \
        return S_OK; \
    }
RECORD(cb)

#define RECORDER_CB(ret, name, params, args)                                                       \
    static ret STDMETHODCALLTYPE rec_cb_##name params                                              \
    {                                                                                              \
        record(This, #name);                                                                       \
        return (ret)0;                                                                             \
    }
#define RECORDER_INFO(ret, name, params, args)                                                     \
    static ret STDMETHODCALLTYPE rec_info_##name params                                            \
    {                                                                                              \
        record(This, #name);                                                                       \
        return (ret)0;                                                                             \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(RECORDER_CB, ICorProfilerCallback11 *This, This)
CLRIE_ICORPROFILERINFO15_METHODS(RECORDER_INFO, ICorProfilerInfo15 *This, This)

#define INIT_CB(ret, name, params, args) .name = rec_cb_##name,
#define INIT_INFO(ret, name, params, args) .name = rec_info_##name,
static const struct ICorProfilerCallback11Vtbl recorder_cb_vtbl = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(INIT_CB, ICorProfilerCallback11 *This, This)
};
static const struct ICorProfilerInfo15Vtbl recorder_info_vtbl = {
    CLRIE_ICORPROFILERINFO15_METHODS(INIT_INFO, ICorProfilerInfo15 *This, This)
};

/* ---- the wrapper: every slot generated from the table ------------------------------- */

struct wrapper {
    ICorProfilerCallback11 cb;
    ICorProfilerInfo15 info;
    ICorProfilerCallback11 *inner_cb;
    ICorProfilerInfo15 *inner_info;
};

#define FORWARD_CB(ret, name, params, args)                                                        \
    static ret STDMETHODCALLTYPE fwd_cb_##name params                                              \
    {                                                                                              \
        ICorProfilerCallback11 *inner = CLRIE_CONTAINER_OF(This, struct wrapper, cb)->inner_cb;    \
        return inner->lpVtbl->name args;                                                           \
    }
#define FORWARD_INFO(ret, name, params, args)                                                      \
    static ret STDMETHODCALLTYPE fwd_info_##name params                                            \
    {                                                                                              \
        ICorProfilerInfo15 *inner = CLRIE_CONTAINER_OF(This, struct wrapper, info)->inner_info;    \
        return inner->lpVtbl->name args;                                                           \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(FORWARD_CB, ICorProfilerCallback11 *This, inner)
CLRIE_ICORPROFILERINFO15_METHODS(FORWARD_INFO, ICorProfilerInfo15 *This, inner)

#define INIT_FWD_CB(ret, name, params, args) .name = fwd_cb_##name,
#define INIT_FWD_INFO(ret, name, params, args) .name = fwd_info_##name,
static const struct ICorProfilerCallback11Vtbl forward_cb_vtbl = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(INIT_FWD_CB, ICorProfilerCallback11 *This, This)
};
static const struct ICorProfilerInfo15Vtbl forward_info_vtbl = {
    CLRIE_ICORPROFILERINFO15_METHODS(INIT_FWD_INFO, ICorProfilerInfo15 *This, This)
};

static const char *const cb_names[] = {
    CLRIE_ICORPROFILERCALLBACK11_METHODS(CLRIE_ABI_SLOT_NAME, void *This, This)
};
static const char *const info_names[] = {
    CLRIE_ICORPROFILERINFO15_METHODS(CLRIE_ABI_SLOT_NAME, void *This, This)
};

/* ---- calling a slot by its index ---------------------------------------------------------
 * Every slot is called with pointer-sized arguments that all point at zeroed memory: the
 * SysV and AAPCS64 conventions pass the first arguments in the same registers whatever their
 * integer or pointer type, and a by-value struct read from that memory is zeros. */

typedef void (*generic_fn)(void);
typedef uintptr_t (*any_fn)(void *self, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
    uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

static uint64_t zeros[64];

static void call_slot(void *self, const void *vtbl, size_t index)
{
    generic_fn fn;
    memcpy(&fn, (const char *)vtbl + index * sizeof fn, sizeof fn);
    uintptr_t z = (uintptr_t)(void *)zeros;
    ((any_fn)fn)(self, z, z, z, z, z, z, z, z, z, z, z, z);
}

static void every_callback11_slot_forwards_to_the_same_slot(void **state)
{
    (void)state;
    ICorProfilerCallback11 inner = {&recorder_cb_vtbl};
    struct wrapper w = {.cb = {&forward_cb_vtbl}, .inner_cb = &inner};
    size_t n = sizeof cb_names / sizeof cb_names[0];
    assert_int_equal(n, 98);
    assert_int_equal(sizeof(struct ICorProfilerCallback11Vtbl), n * sizeof(void *));
    for (size_t i = 0; i < n; i++) {
        memset(&last, 0, sizeof last);
        call_slot(&w.cb, w.cb.lpVtbl, i);
        if (!last.method || strcmp(last.method, cb_names[i]) != 0)
            fail_msg("slot %zu (%s) reached %s", i, cb_names[i], last.method);
        assert_ptr_equal(last.self, &inner);
    }
}

static void every_info15_slot_forwards_to_the_same_slot(void **state)
{
    (void)state;
    ICorProfilerInfo15 inner = {&recorder_info_vtbl};
    struct wrapper w = {.info = {&forward_info_vtbl}, .inner_info = &inner};
    size_t n = sizeof info_names / sizeof info_names[0];
    assert_int_equal(n, 115);
    for (size_t i = 0; i < n; i++) {
        memset(&last, 0, sizeof last);
        call_slot(&w.info, w.info.lpVtbl, i);
        if (!last.method || strcmp(last.method, info_names[i]) != 0)
            fail_msg("slot %zu (%s) reached %s", i, info_names[i], last.method);
        assert_ptr_equal(last.self, &inner);
    }
}

/* ---- arguments arrive unchanged ---------------------------------------------------------- */

static struct {
    uintptr_t u[12];
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config;
} seen;

static HRESULT STDMETHODCALLTYPE check_ModuleLoadFinished(ICorProfilerCallback11 *This,
                                                          ModuleID moduleId, HRESULT hrStatus)
{
    seen.u[0] = moduleId;
    seen.u[1] = (uintptr_t)(uint32_t)hrStatus;
    return cb_record(This, "ModuleLoadFinished");
}

static HRESULT STDMETHODCALLTYPE check_JITCompilationFinished(ICorProfilerCallback11 *This,
                                                              FunctionID functionId,
                                                              HRESULT hrStatus, BOOL fIsSafeToBlock)
{
    seen.u[0] = functionId;
    seen.u[1] = (uintptr_t)(uint32_t)hrStatus;
    seen.u[2] = (uintptr_t)fIsSafeToBlock;
    return cb_record(This, "JITCompilationFinished");
}

static HRESULT STDMETHODCALLTYPE check_EventPipeEventDelivered(
    ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion,
    ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
    LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,
    UINT_PTR stackFrames[])
{
    uintptr_t v[12] = {provider, eventId, eventVersion, cbMetadataBlob,
        (uintptr_t)metadataBlob, cbEventData, (uintptr_t)eventData, (uintptr_t)pActivityId,
        (uintptr_t)pRelatedActivityId, eventThread, numStackFrames, (uintptr_t)stackFrames};
    memcpy(seen.u, v, sizeof v);
    return cb_record(This, "EventPipeEventDelivered");
}

static HRESULT STDMETHODCALLTYPE check_LoadAsNotificationOnly(ICorProfilerCallback11 *This,
                                                              BOOL *pb)
{
    *pb = TRUE;
    return cb_record(This, "LoadAsNotificationOnly");
}

static void callback_arguments_arrive_unchanged(void **state)
{
    (void)state;
    struct ICorProfilerCallback11Vtbl vtbl = recorder_cb_vtbl;
    vtbl.ModuleLoadFinished = check_ModuleLoadFinished;
    vtbl.JITCompilationFinished = check_JITCompilationFinished;
    vtbl.EventPipeEventDelivered = check_EventPipeEventDelivered;
    vtbl.LoadAsNotificationOnly = check_LoadAsNotificationOnly;
    ICorProfilerCallback11 inner = {&vtbl};
    struct wrapper w = {.cb = {&forward_cb_vtbl}, .inner_cb = &inner};
    ICorProfilerCallback11 *cb = &w.cb;

    assert_int_equal(cb->lpVtbl->ModuleLoadFinished(cb, (ModuleID)0x7F0011223344, E_FAIL), S_OK);
    assert_string_equal(last.method, "ModuleLoadFinished");
    assert_ptr_equal(last.self, &inner);
    assert_int_equal(seen.u[0], 0x7F0011223344);
    assert_int_equal(seen.u[1], 0x80004005u);

    cb->lpVtbl->JITCompilationFinished(cb, 0xABCDEF0123, S_FALSE, TRUE);
    assert_int_equal(seen.u[0], 0xABCDEF0123);
    assert_int_equal(seen.u[1], 1);
    assert_int_equal(seen.u[2], 1);

    static const BYTE meta[3], data[5];
    UINT_PTR frames[2];
    GUID activity = IID_IUnknown, related = IID_IClassFactory;
    cb->lpVtbl->EventPipeEventDelivered(cb, 0x1111, 22, 3, sizeof meta, meta, sizeof data,
        data, &activity, &related, 0x2222, 2, frames);
    uintptr_t want[12] = {0x1111, 22, 3, 3, (uintptr_t)meta, 5, (uintptr_t)data,
        (uintptr_t)&activity, (uintptr_t)&related, 0x2222, 2, (uintptr_t)frames};
    assert_memory_equal(seen.u, want, sizeof want);

    BOOL only = FALSE;
    cb->lpVtbl->LoadAsNotificationOnly(cb, &only);
    assert_int_equal(only, TRUE);
}

RECORD(info)

static HRESULT STDMETHODCALLTYPE check_SetEventMask2(ICorProfilerInfo15 *This, DWORD low,
                                                     DWORD high)
{
    seen.u[0] = low;
    seen.u[1] = high;
    return info_record(This, "SetEventMask2");
}

static HRESULT STDMETHODCALLTYPE check_GetILFunctionBody(ICorProfilerInfo15 *This,
                                                         ModuleID moduleId, mdMethodDef methodId,
                                                         LPCBYTE *ppMethodHeader,
                                                         ULONG *pcbMethodSize)
{
    static const BYTE header[] = {0x0A, 0x2A};
    seen.u[0] = moduleId;
    seen.u[1] = methodId;
    *ppMethodHeader = header;
    *pcbMethodSize = sizeof header;
    return info_record(This, "GetILFunctionBody");
}

static HRESULT STDMETHODCALLTYPE check_RequestReJITWithInliners(ICorProfilerInfo15 *This,
                                                                DWORD flags, ULONG cFunctions,
                                                                ModuleID moduleIds[],
                                                                mdMethodDef methodIds[])
{
    seen.u[0] = flags;
    seen.u[1] = cFunctions;
    seen.u[2] = moduleIds[1];
    seen.u[3] = methodIds[1];
    return info_record(This, "RequestReJITWithInliners");
}

static HRESULT STDMETHODCALLTYPE check_EventPipeAddProviderToSession(
    ICorProfilerInfo15 *This, EVENTPIPE_SESSION session, COR_PRF_EVENTPIPE_PROVIDER_CONFIG config)
{
    seen.u[0] = (uintptr_t)session;
    seen.config = config;
    return info_record(This, "EventPipeAddProviderToSession");
}

static HRESULT STDMETHODCALLTYPE check_EventPipeDefineEvent(
    ICorProfilerInfo15 *This, EVENTPIPE_PROVIDER provider, const WCHAR *eventName, UINT32 eventID,
    UINT64 keywords, UINT32 eventVersion, UINT32 level, UINT8 opcode, BOOL needStack,
    UINT32 cParamDescs, COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[], EVENTPIPE_EVENT *pEvent)
{
    uintptr_t v[11] = {provider, (uintptr_t)eventName, eventID, (uintptr_t)keywords,
        eventVersion, level, opcode, (uintptr_t)needStack, cParamDescs, (uintptr_t)pParamDescs,
        (uintptr_t)pEvent};
    memcpy(seen.u, v, sizeof v);
    return info_record(This, "EventPipeDefineEvent");
}

static BOOL STDMETHODCALLTYPE count_object(ObjectID object, void *callbackState)
{
    *(ObjectID *)callbackState += object;
    return TRUE;
}

static HRESULT STDMETHODCALLTYPE check_EnumerateGCHeapObjects(ICorProfilerInfo15 *This,
                                                              ObjectCallback callback,
                                                              void *callbackState)
{
    callback(40, callbackState);
    callback(2, callbackState);
    return info_record(This, "EnumerateGCHeapObjects");
}

static void info_arguments_arrive_unchanged(void **state)
{
    (void)state;
    struct ICorProfilerInfo15Vtbl vtbl = recorder_info_vtbl;
    vtbl.SetEventMask2 = check_SetEventMask2;
    vtbl.GetILFunctionBody = check_GetILFunctionBody;
    vtbl.RequestReJITWithInliners = check_RequestReJITWithInliners;
    vtbl.EventPipeAddProviderToSession = check_EventPipeAddProviderToSession;
    vtbl.EventPipeDefineEvent = check_EventPipeDefineEvent;
    vtbl.EnumerateGCHeapObjects = check_EnumerateGCHeapObjects;
    ICorProfilerInfo15 inner = {&vtbl};
    struct wrapper w = {.info = {&forward_info_vtbl}, .inner_info = &inner};
    ICorProfilerInfo15 *info = &w.info;

    info->lpVtbl->SetEventMask2(info, COR_PRF_ALL, COR_PRF_HIGH_DISABLE_TIERED_COMPILATION);
    assert_string_equal(last.method, "SetEventMask2");
    assert_ptr_equal(last.self, &inner);
    assert_int_equal(seen.u[0], 0x8FFFFFFFu);
    assert_int_equal(seen.u[1], 0x8);

    LPCBYTE body = NULL;
    ULONG size = 0;
    info->lpVtbl->GetILFunctionBody(info, 0x55AA, 0x06000042, &body, &size);
    assert_int_equal(seen.u[0], 0x55AA);
    assert_int_equal(seen.u[1], 0x06000042);
    assert_int_equal(size, 2);
    assert_int_equal(body[1], 0x2A);

    ModuleID modules[2] = {1, 0xFEEDFACE0};
    mdMethodDef methods[2] = {0x06000001, 0x06000002};
    info->lpVtbl->RequestReJITWithInliners(info, COR_PRF_REJIT_BLOCK_INLINING, 2, modules,
        methods);
    assert_int_equal(seen.u[0], 1);
    assert_int_equal(seen.u[1], 2);
    assert_int_equal(seen.u[2], 0xFEEDFACE0);
    assert_int_equal(seen.u[3], 0x06000002);

    static const WCHAR name[] = u"Provider";
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config = {name, 0xF00DF00DF00D, 5, NULL};
    info->lpVtbl->EventPipeAddProviderToSession(info, 0x123456789A, config);
    assert_int_equal(seen.u[0], 0x123456789A);
    assert_ptr_equal(seen.config.providerName, name);
    assert_int_equal(seen.config.keywords, 0xF00DF00DF00D);
    assert_int_equal(seen.config.loggingLevel, 5);
    assert_null(seen.config.filterData);

    COR_PRF_EVENTPIPE_PARAM_DESC desc[1];
    EVENTPIPE_EVENT event;
    info->lpVtbl->EventPipeDefineEvent(info, 9, name, 7, 0xC0FFEE, 2, 4, 0xFE, TRUE, 1, desc,
        &event);
    uintptr_t want[11] = {9, (uintptr_t)name, 7, 0xC0FFEE, 2, 4, 0xFE, 1, 1, (uintptr_t)desc,
        (uintptr_t)&event};
    assert_memory_equal(seen.u, want, sizeof want);

    ObjectID total = 0;
    info->lpVtbl->EnumerateGCHeapObjects(info, count_object, &total);
    assert_int_equal(total, 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_callback11_slot_forwards_to_the_same_slot),
        cmocka_unit_test(every_info15_slot_forwards_to_the_same_slot),
        cmocka_unit_test(callback_arguments_arrive_unchanged),
        cmocka_unit_test(info_arguments_arrive_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
