/* A shared object that exports the COM entry points but serves no class at all: what an
 * engine meets when a config file's ClassGuid does not match its module. */
#include "clrie/abi/base.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv);
EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);

HRESULT STDAPICALLTYPE DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (ppv)
        *ppv = NULL;
    return CLASS_E_CLASSNOTAVAILABLE;
}

HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    return S_OK;
}
