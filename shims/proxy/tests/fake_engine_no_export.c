/* A shared object (a DLL) that loads but is not an engine: it lacks DllGetClassObject. */
#include "clrie/abi/base.h"

CLRIE_ABI_EXPORT int not_an_engine(void);

int not_an_engine(void)
{
    return 42;
}
