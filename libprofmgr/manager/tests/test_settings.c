/* A plugin's config settings reach it through CLRIE's attach interfaces: its IProfilerManager
 * answers QueryInterface(IInstrumentationMethodAttachContext), whose EnumSettings lists the
 * <Setting Name Value> pairs of its <InstrumentationMethod> entry, in file order, as BSTRs.
 *
 * First the objects on their own (settings.c), then end to end: a manager loads a probe plugin
 * (argv[1], settings_probe.c) from a real config file, and the probe writes what it read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/config.h"
#include "clrie/os/fs.h"
#include "clrie/profmgr.h"
#include "fake_mask_info.h"
#include "settings.h"
#include "support.h"
#include "utf16.h"

static char *probe_path;

static void assert_bstr(BSTR text, const char16_t *expected)
{
    size_t len = clrie_pm_utf16_len(expected);
    assert_non_null(text);
    assert_int_equal(clrie_pm_bstr_len(text), len);
    assert_memory_equal(text, expected, (len + 1) * sizeof(char16_t));
    clrie_pm_bstr_free(text);
}

static void assert_setting(IInstrumentationMethodSetting *setting, const char16_t *name,
                           const char16_t *value)
{
    BSTR text = NULL;
    assert_non_null(setting);
    assert_int_equal(setting->lpVtbl->GetName(setting, &text), S_OK);
    assert_bstr(text, name);
    text = NULL;
    assert_int_equal(setting->lpVtbl->GetValue(setting, &text), S_OK);
    assert_bstr(text, value);
}

static const struct clrie_config_setting three[] = {
    {"Pattern", "Sample.*"},
    {"Report", "/tmp/r\xC3\xA9sum\xC3\xA9.txt"}, /* UTF-8 é */
    {"Empty", ""},
};

static void settings_are_enumerated_in_file_order_as_bstrs(void **state)
{
    struct settings *table = NULL;
    assert_int_equal(clrie_pm__settings_new(three, 3, &table), S_OK);
    IEnumInstrumentationMethodSettings *e = NULL;
    assert_int_equal(clrie_pm__settings_enum_new(table, &e), S_OK);
    clrie_pm__settings_unref(table); /* the enumerator keeps it */

    DWORD count = 0;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 3);

    IInstrumentationMethodSetting *got[2] = {NULL, NULL};
    ULONG fetched = 0;
    assert_int_equal(e->lpVtbl->Next(e, 2, got, &fetched), S_OK);
    assert_int_equal(fetched, 2);
    assert_setting(got[0], u"Pattern", u"Sample.*");
    assert_setting(got[1], u"Report", u"/tmp/r\u00E9sum\u00E9.txt");
    got[0]->lpVtbl->Release(got[0]);
    got[1]->lpVtbl->Release(got[1]);

    /* Fewer left than asked: S_FALSE, the rest NULL. */
    got[1] = (void *)&count;
    assert_int_equal(e->lpVtbl->Next(e, 2, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 1);
    assert_null(got[1]);
    IInstrumentationMethodSetting *last = got[0];

    assert_int_equal(e->lpVtbl->Next(e, 1, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 0);
    assert_null(got[0]);

    /* Reset, Skip and Clone: a clone starts where its original was and moves on its own. */
    assert_int_equal(e->lpVtbl->Reset(e), S_OK);
    assert_int_equal(e->lpVtbl->Skip(e, 1), S_OK);
    IEnumInstrumentationMethodSettings *clone = NULL;
    assert_int_equal(e->lpVtbl->Clone(e, &clone), S_OK);
    assert_int_equal(e->lpVtbl->Skip(e, 5), S_FALSE);
    assert_int_equal(clone->lpVtbl->Next(clone, 1, got, NULL), S_OK);
    assert_setting(got[0], u"Report", u"/tmp/r\u00E9sum\u00E9.txt");
    got[0]->lpVtbl->Release(got[0]);
    void *same = NULL;
    assert_int_equal(
        clone->lpVtbl->QueryInterface(clone, &IID_IEnumInstrumentationMethodSettings, &same), S_OK);
    assert_ptr_equal(same, clone);
    clone->lpVtbl->Release(clone);
    clone->lpVtbl->Release(clone);
    e->lpVtbl->Release(e);

    /* A setting outlives the enumerator and the table it came from. */
    assert_setting(last, u"Empty", u"");
    void *other = &other;
    assert_int_equal(
        last->lpVtbl->QueryInterface(last, &IID_IEnumInstrumentationMethodSettings, &other),
        E_NOINTERFACE);
    assert_null(other);
    assert_int_equal(last->lpVtbl->Release(last), 0);
}

static void text_that_is_not_utf8_is_refused(void **state)
{
    const struct clrie_config_setting bad[] = {{"Good", "yes"}, {"Bad", "\xFF\xFE"}};
    struct settings *table = (void *)&table;
    assert_int_equal(clrie_pm__settings_new(bad, 2, &table), E_INVALIDARG);
    assert_null(table);
}

/* An outer object counting the references its parts forward to it. */
struct outer {
    IUnknown iface;
    int refs;
    int queries;
};

static HRESULT STDMETHODCALLTYPE outer_query(IUnknown *This, REFIID riid, void **ppv)
{
    struct outer *o = (struct outer *)(void *)This;
    o->queries++;
    if (!IsEqualIID(riid, &IID_IUnknown)) {
        *ppv = NULL;
        return E_NOINTERFACE;
    }
    o->refs++;
    *ppv = This;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE outer_add_ref(IUnknown *This)
{
    return (ULONG)++((struct outer *)(void *)This)->refs;
}

static ULONG STDMETHODCALLTYPE outer_release(IUnknown *This)
{
    return (ULONG)--((struct outer *)(void *)This)->refs;
}

static const struct IUnknownVtbl outer_vtbl = {outer_query, outer_add_ref, outer_release};

static void an_attach_context_belongs_to_its_outer_object(void **state)
{
    struct outer outer = {.iface = {&outer_vtbl}};
    struct attach_context context;
    clrie_pm__attach_context_init(&context, &outer.iface);
    IInstrumentationMethodAttachContext *iface = &context.iface;

    iface->lpVtbl->AddRef(iface);
    assert_int_equal(outer.refs, 1);
    iface->lpVtbl->Release(iface);
    assert_int_equal(outer.refs, 0);
    void *unknown = NULL;
    assert_int_equal(iface->lpVtbl->QueryInterface(iface, &IID_IUnknown, &unknown), S_OK);
    assert_ptr_equal(unknown, &outer.iface);
    assert_int_equal(outer.queries, 1);
    outer.refs = 0;

    /* Without settings: an empty enumeration, not an error. */
    IEnumInstrumentationMethodSettings *e = NULL;
    assert_int_equal(iface->lpVtbl->EnumSettings(iface, &e), S_OK);
    DWORD count = 7;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 0);
    IInstrumentationMethodSetting *none = (void *)&none;
    ULONG fetched = 9;
    assert_int_equal(e->lpVtbl->Next(e, 1, &none, &fetched), S_FALSE);
    assert_null(none);
    assert_int_equal(fetched, 0);
    e->lpVtbl->Release(e);

    struct settings *table = NULL;
    assert_int_equal(clrie_pm__settings_new(three, 1, &table), S_OK);
    clrie_pm__attach_context_set_settings(&context, table);
    assert_int_equal(iface->lpVtbl->EnumSettings(iface, &e), S_OK);
    clrie_pm__attach_context_finish(&context); /* the enumerator keeps the table alive */
    IInstrumentationMethodSetting *one = NULL;
    assert_int_equal(e->lpVtbl->Next(e, 1, &one, NULL), S_OK);
    assert_setting(one, u"Pattern", u"Sample.*");
    one->lpVtbl->Release(one);
    e->lpVtbl->Release(e);
    assert_int_equal(iface->lpVtbl->EnumSettings(iface, NULL), E_POINTER);
    assert_int_equal(outer.refs, 0);
}

/* ---- end to end: a manager, a config file, the probe plugin ------------------------------- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[4096];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void a_configured_plugin_reads_its_settings_through_its_manager(void **state)
{
    char *tree = test_tree_new();
    char *config = test_path(tree, "probe.config");
    char *out = test_path(tree, "settings.txt");
    char text[4096];
    int len = snprintf(text, sizeof(text),
                       "<InstrumentationEngineConfiguration>\n"
                       "  <InstrumentationMethod>\n"
                       "    <Name>WithSettings</Name><Description>probe</Description>\n"
                       "    <Module>%s</Module>\n"
                       "    <ClassGuid>{11111111-2222-3333-4444-555555555555}</ClassGuid>\n"
                       "    <Priority>1</Priority>\n"
                       "    <Settings>\n"
                       "      <Setting Name=\"Modules\" Value=\"ilshapes.dll;hello.dll\"/>\n"
                       "      <Setting Name=\"Caf\xC3\xA9\" Value=\" spaced value \"/>\n"
                       "    </Settings>\n"
                       "  </InstrumentationMethod>\n"
                       "  <InstrumentationMethod>\n"
                       "    <Name>WithoutSettings</Name><Description>probe</Description>\n"
                       "    <Module>%s</Module>\n"
                       "    <ClassGuid>{66666666-2222-3333-4444-555555555555}</ClassGuid>\n"
                       "    <Priority>2</Priority>\n"
                       "  </InstrumentationMethod>\n"
                       "</InstrumentationEngineConfiguration>\n",
                       probe_path, probe_path);
    assert_true(len > 0 && (size_t)len < sizeof(text));
    test_tree_write(tree, "probe.config", text, (size_t)len);
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "SettingsProbe", config);
    test_env_set("CLRIE_SETTINGS_PROBE_FILE", out);

    static const CLSID engine_clsid = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;
    IClassFactory *factory = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    ICorProfilerCallback11 *callback = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     (void **)&callback),
                     S_OK);
    factory->lpVtbl->Release(factory);
    struct fake_mask_info info;
    fake_mask_info_init(&info, 0, 0);
    assert_int_equal(callback->lpVtbl->Initialize(callback, (IUnknown *)(void *)&info), S_OK);

    /* Values are kept exactly (not trimmed); the second plugin has none. */
    assert_string_equal(read_file(out), "count=2\n"
                                        "Modules=ilshapes.dll;hello.dll\n"
                                        "Caf\\u00E9= spaced value \n"
                                        "count=0\n");
    callback->lpVtbl->Shutdown(callback);
    callback->lpVtbl->Release(callback);
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "SettingsProbe", NULL);
    free(out);
    free(config);
    test_tree_free(tree);
}

int main(int argc, char **argv)
{
    /* Meson passes it relative to the build folder. */
    if (argc < 2 || clrie_os_path_canonical(argv[1], &probe_path) != 0)
        probe_path = NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings_are_enumerated_in_file_order_as_bstrs),
        cmocka_unit_test(text_that_is_not_utf8_is_refused),
        cmocka_unit_test(an_attach_context_belongs_to_its_outer_object),
        cmocka_unit_test(a_configured_plugin_reads_its_settings_through_its_manager),
    };
    if (!probe_path) {
        fprintf(stderr, "usage: test-profmgr-settings <settings-probe.so>\n");
        return 1;
    }
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(probe_path);
    return failed;
}
