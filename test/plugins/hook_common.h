/* What the test profilers raw_hook.c and rewriting_hook.c share, compiled into each
 * (test/plugins/meson.build): an ordinary CoreCLR profiler object (every ICorProfilerCallback
 * version, answered by one ICorProfilerCallback11) whose slots answer S_OK unless the hook's
 * vtable sets its own, the file it appends its lines to, and the ICorProfilerInfo it asked the
 * runtime for. */
#ifndef CLRIE_TEST_HOOK_COMMON_H
#define CLRIE_TEST_HOOK_COMMON_H

#include <clrie/plugin.h>

struct test_hook {
    ICorProfilerCallback11 iface;
    struct clrie_plugin_com com;
    int fd; /* the file the hook appends to (test_hook_open_file), -1 when there is none */
    /* What the hook's Initialize asked the runtime for (raw_hook.c: info, rewriting_hook.c:
     * info4), NULL until then; released with the hook. */
    union {
        ICorProfilerInfo *info;
        ICorProfilerInfo4 *info4;
    };
};

/* The hook whose ICorProfilerCallback11 `iface` is. */
struct test_hook *test_hook_from_iface(ICorProfilerCallback11 *iface);

/* Makes a hook of `size` bytes (a struct test_hook, or a struct that starts with one; zeroed),
 * with `vtbl` and no file, and gives it out queried for riid (clrie_plugin_com_give). */
HRESULT test_hook_create(size_t size, const struct ICorProfilerCallback11Vtbl *vtbl, REFIID riid,
                         void **out);

/* Opens the file named by the environment variable `variable` for appending, unless the hook
 * has one already or the variable is unset or empty. */
void test_hook_open_file(struct test_hook *hook, const char *variable);

/* test_hook_stub_<slot>: every slot answering S_OK, and the three IUnknown slots of the hook. */
#define TEST_HOOK_DECLARE_STUB(ret, name, params, args)                                            \
    ret STDMETHODCALLTYPE test_hook_stub_##name params;
CLRIE_ICORPROFILERCALLBACK11_METHODS(TEST_HOOK_DECLARE_STUB, ICorProfilerCallback11 *This, This)
HRESULT STDMETHODCALLTYPE test_hook_QueryInterface(ICorProfilerCallback11 *This, REFIID riid,
                                                   void **out);
ULONG STDMETHODCALLTYPE test_hook_AddRef(ICorProfilerCallback11 *This);
ULONG STDMETHODCALLTYPE test_hook_Release(ICorProfilerCallback11 *This);

/* The designated initialisers a hook's vtable starts with: the S_OK slots, then the IUnknown
 * ones. The hook's own slots follow, so the vtable is compiled with -Woverride-init off. */
#define TEST_HOOK_STUB_SLOT(ret, name, params, args) .name = test_hook_stub_##name,
// clang-format off
#define TEST_HOOK_SLOTS                                                                            \
    CLRIE_ICORPROFILERCALLBACK11_METHODS(TEST_HOOK_STUB_SLOT, ICorProfilerCallback11 *This, This)  \
    .QueryInterface = test_hook_QueryInterface, .AddRef = test_hook_AddRef,                        \
    .Release = test_hook_Release
// clang-format on

#endif
