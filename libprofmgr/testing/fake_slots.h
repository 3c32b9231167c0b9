/* The do-nothing slots of the fakes, generated from the ABI's method tables. A fake passes its
 * own prefix on through an X-macro per interface,
 *
 *     #define NI_INFO(ret, name, params, args) FAKE_NOT_IMPLEMENTED(info, ret, name, params)
 *     CLRIE_ICORPROFILERINFO3_METHODS(NI_INFO, ICorProfilerInfo3 *This, This)
 *     #define SLOT_INFO(ret, name, params, args) .name = info_ni_##name,
 *
 * fills its vtable from SLOT_INFO and then sets the slots it implements. The four metadata
 * interfaces come ready made: FAKE_METADATA_NOT_IMPLEMENTED and FAKE_SLOT_MDI and its siblings. */
#ifndef CLRIE_PM_TESTS_FAKE_SLOTS_H
#define CLRIE_PM_TESTS_FAKE_SLOTS_H

#include "clrie/abi/metadata.h"

#define FAKE_NOTIMPL_BODY_HRESULT return E_NOTIMPL;
#define FAKE_NOTIMPL_BODY_ULONG return 0;
#define FAKE_NOTIMPL_BODY_BOOL return FALSE;
#define FAKE_NOTIMPL_BODY_PVOID return NULL;
#define FAKE_NOTIMPL_BODY_void

/* `static ret prefix_ni_name params`, answering E_NOTIMPL (0, FALSE or NULL for the slots
 * that return those, nothing for void). */
#define FAKE_NOT_IMPLEMENTED(prefix, ret, name, params)                                            \
    __attribute__((unused)) static ret STDMETHODCALLTYPE prefix##_ni_##name params                 \
    {                                                                                              \
        FAKE_NOTIMPL_BODY_##ret                                                                    \
    }

/* The four metadata interfaces' do-nothing slots, mdi_ni_* (IMetaDataImport2), mda_ni_*
 * (IMetaDataAssemblyImport), mde_ni_* (IMetaDataEmit2) and mdae_ni_* (IMetaDataAssemblyEmit),
 * and the X-macros that name them in a vtable. */
#define FAKE_NI_MDI(ret, name, params, args) FAKE_NOT_IMPLEMENTED(mdi, ret, name, params)
#define FAKE_NI_MDA(ret, name, params, args) FAKE_NOT_IMPLEMENTED(mda, ret, name, params)
#define FAKE_NI_MDE(ret, name, params, args) FAKE_NOT_IMPLEMENTED(mde, ret, name, params)
#define FAKE_NI_MDAE(ret, name, params, args) FAKE_NOT_IMPLEMENTED(mdae, ret, name, params)
#define FAKE_METADATA_NOT_IMPLEMENTED                                                              \
    CLRIE_IMETADATAIMPORT2_METHODS(FAKE_NI_MDI, IMetaDataImport2 *This, This)                      \
    CLRIE_IMETADATAASSEMBLYIMPORT_METHODS(FAKE_NI_MDA, IMetaDataAssemblyImport *This, This)        \
    CLRIE_IMETADATAEMIT2_METHODS(FAKE_NI_MDE, IMetaDataEmit2 *This, This)                          \
    CLRIE_IMETADATAASSEMBLYEMIT_METHODS(FAKE_NI_MDAE, IMetaDataAssemblyEmit *This, This)
#define FAKE_SLOT_MDI(ret, name, params, args) .name = mdi_ni_##name,
#define FAKE_SLOT_MDA(ret, name, params, args) .name = mda_ni_##name,
#define FAKE_SLOT_MDE(ret, name, params, args) .name = mde_ni_##name,
#define FAKE_SLOT_MDAE(ret, name, params, args) .name = mdae_ni_##name,

#endif
