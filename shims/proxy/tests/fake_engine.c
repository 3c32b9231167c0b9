/* A stand-in engine for the proxy tests. DllGetClassObject answers with a string naming the
 * file it was loaded from and the first words of the CLSID and IID it was given, so a test can
 * tell which installed copy the proxy chose and that the arguments were forwarded.
 * DllCanUnloadNow agrees to unload only when FAKE_ENGINE_CAN_UNLOAD=1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t Data1;
    uint16_t Data2, Data3;
    uint8_t Data4[8];
} GUID;

__attribute__((visibility("default"))) int32_t DllGetClassObject(const GUID *clsid, const GUID *iid,
                                                                 void **out);
__attribute__((visibility("default"))) int32_t DllCanUnloadNow(void);

static char answer[8192];
static const char own_address_marker;

int32_t DllGetClassObject(const GUID *clsid, const GUID *iid, void **out)
{
    Dl_info info;
    if (!dladdr(&own_address_marker, &info))
        return (int32_t)0x80004005;
    snprintf(answer, sizeof(answer), "%s|%08x|%08x", info.dli_fname, clsid ? clsid->Data1 : 0,
             iid ? iid->Data1 : 0);
    *out = answer;
    return 0;
}

int32_t DllCanUnloadNow(void)
{
    const char *v = getenv("FAKE_ENGINE_CAN_UNLOAD");
    return v && strcmp(v, "1") == 0 ? 0 : 1;
}
