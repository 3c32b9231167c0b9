/* The one definition of every IID (and the engine CLSID) the ABI headers declare, made from
 * the same X-macro lists the headers declare them from. */
#include "clrie/abi/base.h"
#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

#define DEFINE_IID(name, l, w1, w2, b0, b1, b2, b3, b4, b5, b6, b7)                                \
    const IID IID_##name = CLRIE_ABI_GUID_INIT(l, w1, w2, b0, b1, b2, b3, b4, b5, b6, b7);

CLRIE_BASE_IIDS(DEFINE_IID)
CLRIE_CORPROF_IIDS(DEFINE_IID)
CLRIE_METADATA_IIDS(DEFINE_IID)
CLRIE_INSTRUMENTATION_IIDS(DEFINE_IID)

const CLSID CLSID_CProfilerManager = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;
