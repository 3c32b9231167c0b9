/* A stand-in engine for the proxy tests. DllGetClassObject answers with a string naming the
 * file it was loaded from and the first words of the CLSID and IID it was given, so a test can
 * tell which installed copy the proxy chose and that the arguments were forwarded.
 * DllCanUnloadNow agrees to unload only when FAKE_ENGINE_CAN_UNLOAD=1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/base.h"
#include "clrie/os/module.h"

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid,
                                                          void **out);
CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);

static char answer[8192];
static const char own_address_marker;

HRESULT STDAPICALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid, void **out)
{
    char *file = NULL;
    if (clrie_os_module_path_of(&own_address_marker, &file) != 0)
        return (int32_t)0x80004005;
    snprintf(answer, sizeof(answer), "%s|%08x|%08x", file, clsid ? (unsigned)clsid->Data1 : 0u,
             iid ? (unsigned)iid->Data1 : 0u);
    free(file);
    *out = answer;
    return 0;
}

HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    const char *v = getenv("FAKE_ENGINE_CAN_UNLOAD");
    return v && strcmp(v, "1") == 0 ? 0 : 1;
}
