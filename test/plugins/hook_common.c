/* What the test profilers share (hook_common.h). */
#include <stdlib.h>

#include "hook_common.h"

struct test_hook *test_hook_from_iface(ICorProfilerCallback11 *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct test_hook, iface);
}

#define STUB(ret, name, params, args)                                                              \
    ret STDMETHODCALLTYPE test_hook_stub_##name params                                             \
    {                                                                                              \
        (void)This;                                                                                \
        return (ret)S_OK;                                                                          \
    }
CLRIE_ICORPROFILERCALLBACK11_METHODS(STUB, ICorProfilerCallback11 *This, This)

HRESULT STDMETHODCALLTYPE test_hook_QueryInterface(ICorProfilerCallback11 *This, REFIID riid,
                                                   void **out)
{
    return clrie_plugin_com_query(&test_hook_from_iface(This)->com, riid, out);
}

ULONG STDMETHODCALLTYPE test_hook_AddRef(ICorProfilerCallback11 *This)
{
    return clrie_plugin_com_add_ref(&test_hook_from_iface(This)->com);
}

ULONG STDMETHODCALLTYPE test_hook_Release(ICorProfilerCallback11 *This)
{
    return clrie_plugin_com_release(&test_hook_from_iface(This)->com);
}

static void hook_destroy(void *object)
{
    struct test_hook *hook = object;
    if (hook->fd >= 0)
        clrie_plugin_close_lines(hook->fd);
    clrie_plugin_release(hook->info);
    free(hook);
}

static const struct clrie_plugin_com_iface hook_ifaces[] = {
    CLRIE_PLUGIN_COM_PROFILER_CALLBACK_IFACES(struct test_hook, iface),
};

static const struct clrie_plugin_com_class hook_class = {
    .name = "test-hook",
    .ifaces = hook_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(hook_ifaces),
    .com_offset = offsetof(struct test_hook, com),
    .destroy = hook_destroy,
    .module_ref = true,
};

HRESULT test_hook_create(size_t size, const struct ICorProfilerCallback11Vtbl *vtbl, REFIID riid,
                         void **out)
{
    struct test_hook *hook = calloc(1, size);
    if (!hook)
        return E_OUTOFMEMORY;
    hook->iface.lpVtbl = vtbl;
    hook->fd = -1;
    clrie_plugin_com_init(&hook->com, &hook_class);
    return clrie_plugin_com_give(&hook->com, riid, out);
}

void test_hook_open_file(struct test_hook *hook, const char *variable)
{
    const char *path = getenv(variable);
    if (path && *path && hook->fd < 0)
        clrie_plugin_open_lines(path, false, &hook->fd);
}
