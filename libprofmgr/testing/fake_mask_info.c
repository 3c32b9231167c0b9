/* The event-mask fake runtime (fake_mask_info.h). */
#include "fake_mask_info.h"

#include <stddef.h>

#define NOT_IMPLEMENTED(ret, name, params, args)                                                   \
    __attribute__((unused)) static ret STDMETHODCALLTYPE fake_##name params                        \
    {                                                                                              \
        return (ret)E_NOTIMPL;                                                                     \
    }
CLRIE_ICORPROFILERINFO15_METHODS(NOT_IMPLEMENTED, ICorProfilerInfo15 *This, This)

static HRESULT STDMETHODCALLTYPE fake_query(ICorProfilerInfo15 *This, REFIID riid, void **ppv)
{
    static const IID *const known[] = {&IID_IUnknown, &IID_ICorProfilerInfo3,
                                       &IID_ICorProfilerInfo5, &IID_ICorProfilerInfo15};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (IsEqualIID(riid, known[i])) {
            *ppv = This;
            return S_OK;
        }
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE fake_ref(ICorProfilerInfo15 *This)
{
    return 1;
}

static HRESULT STDMETHODCALLTYPE fake_set_mask2(ICorProfilerInfo15 *This, DWORD low, DWORD high)
{
    struct fake_mask_info *f = CLRIE_CONTAINER_OF(This, struct fake_mask_info, iface);
    f->low = low;
    f->high = high;
    f->set_calls++;
    return S_OK;
}

#define INIT_NOT_IMPLEMENTED(ret, name, params, args) .name = fake_##name,
#if defined(__clang__)
#pragma clang diagnostic ignored "-Winitializer-overrides"
#else
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
/* The X-macro table, then the slots it overrides. */
// clang-format off
static const struct ICorProfilerInfo15Vtbl fake_vtbl = {
    CLRIE_ICORPROFILERINFO15_METHODS(INIT_NOT_IMPLEMENTED, ICorProfilerInfo15 *This, This)
    .QueryInterface = fake_query,
    .AddRef = fake_ref,
    .Release = fake_ref,
    .SetEventMask2 = fake_set_mask2,
};
// clang-format on

void fake_mask_info_init(struct fake_mask_info *info, DWORD low, DWORD high)
{
    *info = (struct fake_mask_info){.iface = {&fake_vtbl}, .low = low, .high = high};
}
