/* The smallest runtime a profiler manager can be initialised with: an ICorProfilerInfo15 whose
 * every slot answers E_NOTIMPL except QueryInterface (IUnknown, Info3, Info5, Info15),
 * AddRef/Release (not counted: the test owns the object) and SetEventMask2, which it records.
 * For the manager's own tests; the domains and the pipeline have the fuller fakes beside it. */
#ifndef CLRIE_PM_TESTING_FAKE_MASK_INFO_H
#define CLRIE_PM_TESTING_FAKE_MASK_INFO_H

#include "clrie/abi/corprof.h"

struct fake_mask_info {
    ICorProfilerInfo15 iface;
    DWORD low, high; /* the last mask set */
    int set_calls;
};

/* A fake with no mask set yet (low and high as given, to tell "never set" from "set to 0"). */
void fake_mask_info_init(struct fake_mask_info *info, DWORD low, DWORD high);

#endif
