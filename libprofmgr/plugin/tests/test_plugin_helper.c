/* libclrie-plugin as a plugin uses it: text from the engine's BSTRs, the config entry's
 * settings and the runtime's ICorProfilerInfo read through a fake IProfilerManager, pattern
 * lists and flags, the shared framework's modules, the class factory's exports with the module
 * count, what a rewrite with a single exit holds, on a fake IMethodInfo, and a walk over fake
 * instructions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/plugin.h"
#include "support.h"

/* ---- a fake manager with an attach context and two settings ------------------------------- */

static const char *setting_names[] = {"Pattern", "Report"};
static const char *setting_values[] = {"Sample.*", "/tmp/report.txt"};
static int next_setting;
static int strings_out; /* BSTRs handed out and not yet freed */
static bool has_context = true;

static BSTR new_bstr(const char *text)
{
    size_t len = strlen(text);
    BSTR out = (BSTR)calloc(len + 1, sizeof(WCHAR));
    for (size_t i = 0; i < len; i++)
        out[i] = (WCHAR)(unsigned char)text[i];
    strings_out++;
    return out;
}

/* The fakes are static: reference counts are not theirs to keep. */
#define NO_REFS(T, prefix)                                                                         \
    static ULONG STDMETHODCALLTYPE prefix##_ref(T *This)                                           \
    {                                                                                              \
        (void)This;                                                                                \
        return 1;                                                                                  \
    }
NO_REFS(IInstrumentationMethodSetting, setting)
NO_REFS(IEnumInstrumentationMethodSettings, enum)
NO_REFS(IInstrumentationMethodAttachContext, context)
NO_REFS(IProfilerStringManager, sm)

static HRESULT STDMETHODCALLTYPE sm_FreeString(IProfilerStringManager *This, BSTR text)
{
    (void)This;
    free(text);
    strings_out--;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE setting_GetName(IInstrumentationMethodSetting *This, BSTR *out)
{
    (void)This;
    *out = new_bstr(setting_names[next_setting - 1]);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE setting_GetValue(IInstrumentationMethodSetting *This, BSTR *out)
{
    (void)This;
    *out = new_bstr(setting_values[next_setting - 1]);
    return S_OK;
}

static const struct IInstrumentationMethodSettingVtbl setting_vtbl = {
    .AddRef = setting_ref,
    .Release = setting_ref,
    .GetName = setting_GetName,
    .GetValue = setting_GetValue,
};
static IInstrumentationMethodSetting setting = {&setting_vtbl};

static HRESULT STDMETHODCALLTYPE enum_Next(IEnumInstrumentationMethodSettings *This, ULONG count,
                                           IInstrumentationMethodSetting **out, ULONG *fetched)
{
    (void)This, (void)count;
    if (next_setting == 2) {
        *fetched = 0;
        return S_FALSE;
    }
    next_setting++;
    out[0] = &setting;
    *fetched = 1;
    return S_OK;
}

static const struct IEnumInstrumentationMethodSettingsVtbl enum_vtbl = {
    .AddRef = enum_ref,
    .Release = enum_ref,
    .Next = enum_Next,
};
static IEnumInstrumentationMethodSettings settings = {&enum_vtbl};

static HRESULT STDMETHODCALLTYPE context_EnumSettings(IInstrumentationMethodAttachContext *This,
                                                      IEnumInstrumentationMethodSettings **out)
{
    (void)This;
    next_setting = 0;
    *out = &settings;
    return S_OK;
}

static const struct IInstrumentationMethodAttachContextVtbl context_vtbl = {
    .Release = context_ref,
    .EnumSettings = context_EnumSettings,
};
static IInstrumentationMethodAttachContext context = {&context_vtbl};

static const struct IProfilerStringManagerVtbl strings_vtbl = {
    .Release = sm_ref,
    .FreeString = sm_FreeString,
};
static IProfilerStringManager strings = {&strings_vtbl};

/* The runtime's info behind the manager: it answers ICorProfilerInfo and ICorProfilerInfo4,
 * and counts its references. */
static int info_refs;
static bool engine_has_info = true;

static ULONG STDMETHODCALLTYPE info_AddRef(ICorProfilerInfo4 *This)
{
    (void)This;
    return (ULONG)++info_refs;
}

static ULONG STDMETHODCALLTYPE info_Release(ICorProfilerInfo4 *This)
{
    (void)This;
    assert_true(info_refs > 0);
    return (ULONG)--info_refs;
}

static HRESULT STDMETHODCALLTYPE info_QueryInterface(ICorProfilerInfo4 *This, REFIID riid,
                                                     void **out)
{
    *out = NULL;
    if (!IsEqualIID(riid, &IID_ICorProfilerInfo) && !IsEqualIID(riid, &IID_ICorProfilerInfo4))
        return E_NOINTERFACE;
    info_AddRef(This);
    *out = This;
    return S_OK;
}

static const struct ICorProfilerInfo4Vtbl info_vtbl = {
    .QueryInterface = info_QueryInterface,
    .AddRef = info_AddRef,
    .Release = info_Release,
};
static ICorProfilerInfo4 runtime_info = {&info_vtbl};

static HRESULT STDMETHODCALLTYPE manager_GetCorProfilerInfo(IProfilerManager *This, IUnknown **out)
{
    (void)This;
    *out = NULL;
    if (engine_has_info) {
        info_AddRef(&runtime_info);
        *out = (IUnknown *)(void *)&runtime_info;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE manager_QueryInterface(IProfilerManager *This, REFIID riid,
                                                        void **out)
{
    (void)This;
    *out = NULL;
    if (IsEqualIID(riid, &IID_IInstrumentationMethodAttachContext) && has_context)
        *out = &context;
    else if (IsEqualIID(riid, &IID_IProfilerStringManager))
        *out = &strings;
    return *out ? S_OK : E_NOINTERFACE;
}

static const struct IProfilerManagerVtbl manager_vtbl = {
    .QueryInterface = manager_QueryInterface,
    .GetCorProfilerInfo = manager_GetCorProfilerInfo,
};
static IProfilerManager manager = {&manager_vtbl};

/* ---- tests ----------------------------------------------------------------------------------- */

static void collect(void *data, const char *name, const char *value)
{
    char *out = (char *)data;
    strcat(out, name);
    strcat(out, "=");
    strcat(out, value);
    strcat(out, ";");
}

static void settings_come_in_config_order_and_their_strings_are_freed(void **state)
{
    (void)state;
    char seen[128] = "";
    assert_int_equal(clrie_plugin_settings_each(&manager, collect, seen), 0);
    assert_string_equal(seen, "Pattern=Sample.*;Report=/tmp/report.txt;");
    assert_int_equal(strings_out, 0);
}

static void one_setting_is_found_by_name_in_any_case(void **state)
{
    (void)state;
    char value[64];
    assert_int_equal(clrie_plugin_setting(&manager, "report", value, sizeof value), 0);
    assert_string_equal(value, "/tmp/report.txt");
    assert_int_equal(clrie_plugin_setting(&manager, "Output", value, sizeof value), -ENOENT);
    char small[6];
    assert_int_equal(clrie_plugin_setting(&manager, "Pattern", small, sizeof small), -ENOSPC);
    assert_string_equal(small, "Sampl");
    assert_int_equal(strings_out, 0);
}

static void an_engine_without_attach_context_says_so(void **state)
{
    (void)state;
    char value[64];
    has_context = false;
    assert_int_equal(clrie_plugin_setting(&manager, "Pattern", value, sizeof value), -ENOSYS);
    has_context = true;
}

static void the_runtimes_info_comes_in_the_version_asked_and_nothing_else_is_held(void **state)
{
    (void)state;
    ICorProfilerInfo4 *info = NULL;
    assert_int_equal(clrie_plugin_profiler_info(&manager, &IID_ICorProfilerInfo4, (void **)&info),
                     S_OK);
    assert_ptr_equal(info, &runtime_info);
    assert_int_equal(info_refs, 1);
    clrie_plugin_release(info);
    assert_int_equal(info_refs, 0);

    void *other = &other;
    assert_int_equal(clrie_plugin_profiler_info(&manager, &IID_ICorProfilerInfo15, &other),
                     E_NOINTERFACE);
    assert_null(other);
    assert_int_equal(info_refs, 0);

    engine_has_info = false;
    other = &other;
    assert_int_equal(clrie_plugin_profiler_info(&manager, &IID_ICorProfilerInfo, &other),
                     E_NOINTERFACE);
    assert_null(other);
    engine_has_info = true;
    assert_int_equal(clrie_plugin_profiler_info(NULL, &IID_ICorProfilerInfo, &other), E_POINTER);
}

static void utf16_becomes_utf8_with_pairs_joined_and_lone_surrogates_replaced(void **state)
{
    (void)state;
    /* "aé€" U+1F600 and an unpaired high surrogate */
    const WCHAR text[] = {'a', 0xE9, 0x20AC, 0xD83D, 0xDE00, 0xD800, 0};
    char *utf8 = clrie_plugin_bstr_to_utf8(text);
    assert_string_equal(utf8, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD");
    free(utf8);
}

static void a_buffer_is_cut_before_a_character_that_does_not_fit(void **state)
{
    (void)state;
    const WCHAR text[] = {'a', '\n', 'b', 0x20AC, 0};
    char out[7]; /* room for "a?b" and 3 bytes more: not for any character of up to 4 */
    assert_int_equal(clrie_plugin_bstr_to_utf8_buf(text, out, sizeof out), 3);
    assert_string_equal(out, "a?b");
    char big[16];
    clrie_plugin_bstr_to_utf8_buf(text, big, sizeof big);
    assert_string_equal(big, "a?b\xE2\x82\xAC");
}

static void utf8_appends_to_utf16_with_bad_bytes_replaced(void **state)
{
    (void)state;
    WCHAR out[16] = {'x', 0};
    clrie_plugin_wcs_append_utf8(out, 16, "a\xC3\xA9\xF0\x9F\x98\x80\xFF");
    const WCHAR expected[] = {'x', 'a', 0xE9, 0xD83D, 0xDE00, 0xFFFD, 0};
    assert_memory_equal(out, expected, sizeof expected);
    WCHAR small[4] = {0};
    clrie_plugin_wcs_append_utf8(small, 4, "abcdef");
    assert_int_equal(clrie_plugin_wcs_len(small), 2); /* "ab": a pair would not fit after it */
}

/* A plugin object on the COM base: it holds a module reference while it lives. */
struct object {
    IUnknown iface;
    struct clrie_plugin_com com;
};

static int create_count, destroy_count;

static void object_destroy(void *object)
{
    destroy_count++;
    free(object);
}

static const struct clrie_plugin_com_iface object_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IUnknown, struct object, iface),
};

static const struct clrie_plugin_com_class object_class = {
    .name = "object",
    .ifaces = object_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(object_ifaces),
    .com_offset = offsetof(struct object, com),
    .destroy = object_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(object, IUnknown, struct object, iface, com)
static const struct IUnknownVtbl object_vtbl = {CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(object)};

static HRESULT create(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    create_count++;
    struct object *o = calloc(1, sizeof *o);
    o->iface.lpVtbl = &object_vtbl;
    clrie_plugin_com_init(&o->com, &object_class);
    return clrie_plugin_com_give(&o->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create)

static void the_module_stays_loaded_while_a_factory_object_or_lock_is_held(void **state)
{
    (void)state;
    IClassFactory *factory = NULL;
    assert_int_equal(DllCanUnloadNow(), S_OK);
    assert_int_equal(DllGetClassObject(&IID_IUnknown, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(DllCanUnloadNow(), S_FALSE);
    IUnknown *object = NULL;
    IUnknown outer = {NULL};
    assert_int_equal(
        factory->lpVtbl->CreateInstance(factory, &outer, &IID_IUnknown, (void **)&object),
        CLASS_E_NOAGGREGATION);
    assert_int_equal(
        factory->lpVtbl->CreateInstance(factory, NULL, &IID_IUnknown, (void **)&object), S_OK);
    assert_int_equal(create_count, 1);
    factory->lpVtbl->LockServer(factory, TRUE);
    factory->lpVtbl->Release(factory);
    assert_int_equal(DllCanUnloadNow(), S_FALSE); /* the object and the lock */
    object->lpVtbl->Release(object);
    assert_int_equal(destroy_count, 1);
    assert_int_equal(DllCanUnloadNow(), S_FALSE); /* the lock */
    assert_int_equal(DllGetClassObject(&IID_IUnknown, &IID_IUnknown, (void **)&factory), S_OK);
    factory->lpVtbl->LockServer(factory, FALSE);
    assert_int_equal(DllCanUnloadNow(), S_FALSE); /* the factory */
    factory->lpVtbl->Release(factory);
    assert_int_equal(DllCanUnloadNow(), S_OK);
}

static void an_interface_the_object_lacks_frees_it_and_holds_nothing(void **state)
{
    (void)state;
    IClassFactory *factory = NULL;
    void *out = &out;
    destroy_count = 0;
    assert_int_equal(DllGetClassObject(&IID_IUnknown, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_IClassFactory, &out),
                     E_NOINTERFACE);
    assert_null(out);
    assert_int_equal(destroy_count, 1);
    factory->lpVtbl->Release(factory);
    assert_int_equal(DllCanUnloadNow(), S_OK);
    assert_int_equal(DllGetClassObject(&IID_IUnknown, &IID_IClassFactory, NULL), E_POINTER);
    assert_int_equal(DllGetClassObject(NULL, &IID_IClassFactory, &out), E_INVALIDARG);
}

static void pattern_lists_are_split_trimmed_and_matched_as_shell_patterns(void **state)
{
    (void)state;
    struct clrie_plugin_patterns patterns = {0};
    assert_int_equal(clrie_plugin_patterns_add(&patterns, " Sample.* ;; *::Main ;"), 0);
    assert_int_equal(patterns.count, 2);
    assert_string_equal(patterns.items[0], "Sample.*");
    assert_true(clrie_plugin_patterns_match(&patterns, "Sample.Program::Sum"));
    assert_true(clrie_plugin_patterns_match(&patterns, "Other::Main"));
    assert_false(clrie_plugin_patterns_match(&patterns, "Other::Run"));
    const WCHAR wide[] = {'S', 'a', 'm', 'p', 'l', 'e', '.', 'X', 0};
    assert_true(clrie_plugin_patterns_match_wcs(&patterns, wide));
    clrie_plugin_patterns_finish(&patterns);
    assert_int_equal(patterns.count, 0);
    assert_false(clrie_plugin_patterns_match(&patterns, "Sample.X"));
}

static void flags_read_true_yes_on_and_one(void **state)
{
    (void)state;
    assert_true(clrie_plugin_is_true("TRUE"));
    assert_true(clrie_plugin_is_true("yes"));
    assert_true(clrie_plugin_is_true("On"));
    assert_true(clrie_plugin_is_true("1"));
    assert_false(clrie_plugin_is_true("0"));
    assert_false(clrie_plugin_is_true(""));
    assert_false(clrie_plugin_is_true(NULL));
}

/* Whether the framework has folder/name, the path written with the separators of the system,
 * which on Windows are '\' as in the Windows runtime's module paths. */
static bool has(struct clrie_plugin_framework *framework, const char *folder, const char *name)
{
    char *path = test_path(folder, name);
    bool answer = clrie_plugin_framework_has(framework, path);
    free(path);
    return answer;
}

static void the_framework_is_the_folder_corelib_came_from(void **state)
{
    (void)state;
    struct clrie_plugin_framework framework = {0};
    /* before CoreLib loads, nothing is known to be the framework's */
    assert_false(has(&framework, "/dotnet/shared/8.0", "System.Runtime.dll"));
    assert_true(has(&framework, "/dotnet/shared/8.0", "System.Private.CoreLib.dll"));
    assert_true(has(&framework, "/dotnet/shared/8.0", "System.Console.dll"));
    assert_false(has(&framework, "/app", "Sample.dll"));
    assert_false(has(&framework, "/dotnet/shared/8.0/sub", "X.dll"));
    assert_false(has(&framework, "/dotnet/shared/8.01", "X.dll"));
    clrie_plugin_framework_finish(&framework);
}

/* A self-contained app's files share the runtime's folder (which has no
 * Microsoft.NETCore.App.deps.json): only the names the runtime pack ships are the framework's
 * there, not the app's own assemblies. A real shared framework folder is all framework. */
static void a_self_contained_apps_own_assemblies_are_not_the_framework(void **state)
{
    (void)state;
    char *shared = test_tree_new();
    test_tree_write(shared, "Microsoft.NETCore.App.deps.json", "{}", 2);
    struct clrie_plugin_framework framework = {0};
    assert_true(has(&framework, shared, "System.Private.CoreLib.dll"));
    assert_true(has(&framework, shared, "Anything.dll"));
    clrie_plugin_framework_finish(&framework);
    test_tree_free(shared);

    struct clrie_plugin_framework app = {0};
    assert_true(has(&app, "/no/such/app", "System.Private.CoreLib.dll"));
    assert_false(has(&app, "/no/such/app", "sample.dll"));
    assert_false(has(&app, "/no/such/app", "Sample.Lib.dll"));
    assert_true(has(&app, "/no/such/app", "System.Console.dll"));
    assert_true(has(&app, "/no/such/app", "Microsoft.Win32.Primitives.dll"));
    assert_true(has(&app, "/no/such/app", "netstandard.dll"));
    assert_false(has(&app, "/elsewhere", "System.Console.dll"));
    clrie_plugin_framework_finish(&app);
}

/* ---- a fake method for struct clrie_plugin_rewrite ------------------------------------------ */

/* The graph, factory and single-ret the fake method hands out, each counting its references. */
static struct rw_fake {
    IInstructionGraph graph;
    IInstructionFactory factory;
    ISingleRetDefaultInstrumentation single;
    int graph_refs, factory_refs, single_refs;
    IInstructionGraph *initialized_with;
    int applied;
    HRESULT apply_result;
} rw_fake;

#define COUNTED(prefix, Iface, refs)                                                               \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        (void)This;                                                                                \
        return (ULONG)++rw_fake.refs;                                                              \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        (void)This;                                                                                \
        assert_true(rw_fake.refs > 0);                                                             \
        return (ULONG)--rw_fake.refs;                                                              \
    }
COUNTED(graph, IInstructionGraph, graph_refs)
COUNTED(factory, IInstructionFactory, factory_refs)
COUNTED(single, ISingleRetDefaultInstrumentation, single_refs)

static HRESULT STDMETHODCALLTYPE single_Initialize(ISingleRetDefaultInstrumentation *This,
                                                   IInstructionGraph *graph)
{
    (void)This;
    rw_fake.initialized_with = graph;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE single_Apply(ISingleRetDefaultInstrumentation *This)
{
    (void)This;
    rw_fake.applied++;
    return rw_fake.apply_result;
}

static const struct IInstructionGraphVtbl graph_vtbl = {.AddRef = graph_AddRef,
                                                        .Release = graph_Release};
static const struct IInstructionFactoryVtbl factory_vtbl = {.AddRef = factory_AddRef,
                                                            .Release = factory_Release};
static const struct ISingleRetDefaultInstrumentationVtbl single_vtbl = {
    .AddRef = single_AddRef,
    .Release = single_Release,
    .Initialize = single_Initialize,
    .ApplySingleRetDefaultInstrumentation = single_Apply,
};

static HRESULT STDMETHODCALLTYPE method_GetInstructions(IMethodInfo *This, IInstructionGraph **out)
{
    (void)This;
    graph_AddRef(&rw_fake.graph);
    *out = &rw_fake.graph;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_GetInstructionFactory(IMethodInfo *This,
                                                              IInstructionFactory **out)
{
    (void)This;
    factory_AddRef(&rw_fake.factory);
    *out = &rw_fake.factory;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_GetSingleRet(IMethodInfo *This,
                                                     ISingleRetDefaultInstrumentation **out)
{
    (void)This;
    single_AddRef(&rw_fake.single);
    *out = &rw_fake.single;
    return S_OK;
}

static const struct IMethodInfoVtbl method_vtbl = {
    .GetInstructions = method_GetInstructions,
    .GetInstructionFactory = method_GetInstructionFactory,
    .GetSingleRetDefaultInstrumentation = method_GetSingleRet,
};

static IMethodInfo rw_method = {&method_vtbl};

static void rw_fake_reset(HRESULT apply_result)
{
    rw_fake = (struct rw_fake){.graph = {&graph_vtbl},
                               .factory = {&factory_vtbl},
                               .single = {&single_vtbl},
                               .apply_result = apply_result};
}

static void
a_rewrite_applies_single_ret_to_the_methods_graph_and_finish_gives_all_back(void **state)
{
    (void)state;
    rw_fake_reset(S_OK);
    struct clrie_plugin_rewrite rw;
    assert_int_equal(clrie_plugin_rewrite_init(&rw, &rw_method), S_OK);
    assert_ptr_equal(rw.graph, &rw_fake.graph);
    assert_ptr_equal(rw.factory, &rw_fake.factory);
    assert_ptr_equal(rw.single, &rw_fake.single);
    assert_ptr_equal(rw_fake.initialized_with, &rw_fake.graph);
    assert_int_equal(rw_fake.applied, 1);
    assert_int_equal(rw_fake.graph_refs + rw_fake.factory_refs + rw_fake.single_refs, 3);
    clrie_plugin_rewrite_finish(&rw);
    assert_int_equal(rw_fake.graph_refs + rw_fake.factory_refs + rw_fake.single_refs, 0);
    assert_null(rw.graph);
    clrie_plugin_rewrite_finish(&rw); /* an empty one is fine */
}

static void a_rewrite_whose_single_ret_fails_holds_nothing(void **state)
{
    (void)state;
    rw_fake_reset(E_FAIL);
    struct clrie_plugin_rewrite rw;
    assert_int_equal(clrie_plugin_rewrite_init(&rw, &rw_method), E_FAIL);
    assert_null(rw.graph);
    assert_null(rw.factory);
    assert_null(rw.single);
    assert_int_equal(rw_fake.graph_refs + rw_fake.factory_refs + rw_fake.single_refs, 0);
}

/* ---- a walk over fake instructions ---------------------------------------------------------- */

/* Three instructions in a row, each counting its references; the last has no next. */
static struct walk_fake {
    IInstruction items[3];
    int refs[3];
} walk;

static ULONG STDMETHODCALLTYPE instruction_AddRef(IInstruction *This)
{
    return (ULONG)++walk.refs[This - walk.items];
}

static ULONG STDMETHODCALLTYPE instruction_Release(IInstruction *This)
{
    assert_true(walk.refs[This - walk.items] > 0);
    return (ULONG)--walk.refs[This - walk.items];
}

static HRESULT STDMETHODCALLTYPE instruction_GetNext(IInstruction *This, IInstruction **out)
{
    *out = NULL;
    if (This == &walk.items[2])
        return E_FAIL; /* as the engine answers after the last instruction */
    *out = This + 1;
    instruction_AddRef(*out);
    return S_OK;
}

static const struct IInstructionVtbl instruction_vtbl = {
    .AddRef = instruction_AddRef,
    .Release = instruction_Release,
    .GetNextInstruction = instruction_GetNext,
};

static void a_walk_holds_only_the_instruction_it_is_at_and_none_after_the_last(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        walk.items[i].lpVtbl = &instruction_vtbl;
    IInstruction *at = &walk.items[0];
    walk.refs[0] = 1; /* as GetFirstInstruction hands it out */
    for (int i = 0; i < 3; i++) {
        assert_ptr_equal(at, &walk.items[i]);
        assert_int_equal(walk.refs[0] + walk.refs[1] + walk.refs[2], 1);
        clrie_plugin_next_instruction(&at);
        assert_int_equal(walk.refs[i], 0);
    }
    assert_null(at);
    clrie_plugin_next_instruction(&at);
    assert_null(at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_come_in_config_order_and_their_strings_are_freed),
        cmocka_unit_test(one_setting_is_found_by_name_in_any_case),
        cmocka_unit_test(an_engine_without_attach_context_says_so),
        cmocka_unit_test(the_runtimes_info_comes_in_the_version_asked_and_nothing_else_is_held),
        cmocka_unit_test(utf16_becomes_utf8_with_pairs_joined_and_lone_surrogates_replaced),
        cmocka_unit_test(a_buffer_is_cut_before_a_character_that_does_not_fit),
        cmocka_unit_test(utf8_appends_to_utf16_with_bad_bytes_replaced),
        cmocka_unit_test(the_module_stays_loaded_while_a_factory_object_or_lock_is_held),
        cmocka_unit_test(an_interface_the_object_lacks_frees_it_and_holds_nothing),
        cmocka_unit_test(pattern_lists_are_split_trimmed_and_matched_as_shell_patterns),
        cmocka_unit_test(flags_read_true_yes_on_and_one),
        cmocka_unit_test(the_framework_is_the_folder_corelib_came_from),
        cmocka_unit_test(a_self_contained_apps_own_assemblies_are_not_the_framework),
        cmocka_unit_test(
            a_rewrite_applies_single_ret_to_the_methods_graph_and_finish_gives_all_back),
        cmocka_unit_test(a_rewrite_whose_single_ret_fails_holds_nothing),
        cmocka_unit_test(a_walk_holds_only_the_instruction_it_is_at_and_none_after_the_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
