// Every method table, in every ABI header, is usable for forwarding: for each interface this
// generates (from the table alone) a function per slot that takes the slot's parameters and
// calls the same slot with the table's argument list. C++ checks each argument's type against
// the slot's parameter, so a table whose argument names, count or order disagree with its
// parameters does not compile. Then the interface lists are compared with the IID lists.
#include <cstdio>
#include <cstring>

#include "clrie/abi/base.h"
#include "clrie/abi/corprof.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

#define CALL_THROUGH(ret, name, params, args) \
    static void name params { (void)This->lpVtbl->name args; }
#define CHECK_TABLE(iface, methods, slots) \
    struct check_##iface { \
        methods(CALL_THROUGH, iface *This, This) \
    }; \
    static_assert(CLRIE_ABI_SLOT_COUNT(methods) == (slots), #iface);

CLRIE_BASE_INTERFACES(CHECK_TABLE)
CLRIE_CORPROF_INTERFACES(CHECK_TABLE)
CLRIE_METADATA_INTERFACES(CHECK_TABLE)
CLRIE_INSTRUMENTATION_INTERFACES(CHECK_TABLE)

#define NAME(iface, ...) #iface,
static const char *const interfaces[] = {
    CLRIE_BASE_INTERFACES(NAME) CLRIE_CORPROF_INTERFACES(NAME) CLRIE_METADATA_INTERFACES(NAME)
    CLRIE_INSTRUMENTATION_INTERFACES(NAME)
};
static const char *const iids[] = {
    CLRIE_BASE_IIDS(NAME) CLRIE_CORPROF_IIDS(NAME) CLRIE_METADATA_IIDS(NAME)
    CLRIE_INSTRUMENTATION_IIDS(NAME)
};

int main()
{
    const size_t n = sizeof interfaces / sizeof interfaces[0];
    if (n != sizeof iids / sizeof iids[0] || n != 2 + 34 + 10 + 58) {
        std::printf("%zu interfaces, %zu IIDs\n", n, sizeof iids / sizeof iids[0]);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (std::strcmp(interfaces[i], iids[i]) != 0) {
            std::printf("interface %s has IID entry %s\n", interfaces[i], iids[i]);
            return 1;
        }
    }
    std::printf("%zu interfaces, each with an IID and a forwardable table\n", n);
    return 0;
}
