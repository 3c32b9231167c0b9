/* The real proxy, loaded from a temporary install tree, choosing among fake engines. Each
 * scenario runs in a child process of its own with exactly its environment (scenario.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/abi/base.h"
#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "clrie/os/thread.h"
#include "log.h"
#include "scenario.h"
#include "support.h"

/* The install layout with this system's names and separator (meson.build: engine_arch_folder,
 * engine_file_name, proxy_file_name). */
#define SEP CLRIE_OS_SEPARATOR_STRING
#define ARCH ENGINE_ARCH_FOLDER
#define ENGINE_REL ARCH SEP ENGINE_FILE
#define PROXY_REL "Proxy" SEP "v1" SEP PROXY_FILE

#define NOT_FOUND ((int32_t)0x80070002)
#define PROC_NOT_FOUND ((int32_t)0x8007007F)
#define THREADS_DISAGREED ((int32_t)0x7fff0001)

static const GUID profiler_clsid = {
    0x324F817A, 0x7420, 0x4E6D, {0xB3, 0xC1, 0x14, 0x3F, 0xBE, 0xD6, 0xD8, 0x55}};
static const GUID class_factory_iid = {0x00000001, 0, 0, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};

static const char *built_proxy, *built_engine, *built_no_export;

/* ---- in the scenario's child ------------------------------------------------------------ */

struct race {
    LPFNGETCLASSOBJECT get;
    struct clrie_os_barrier *barrier;
    int32_t hr;
    void *out;
};

static void race_call(void *arg)
{
    struct race *r = arg;
    clrie_os_barrier_wait(r->barrier);
    r->hr = r->get(&profiler_clsid, &class_factory_iid, &r->out);
}

/* threads first calls of get at once: their common HRESULT and *out, or THREADS_DISAGREED. */
static int32_t race_first_calls(LPFNGETCLASSOBJECT get, int threads, void **out)
{
    struct clrie_os_barrier barrier;
    clrie_os_barrier_init(&barrier, (unsigned)threads);
    struct race races[32];
    struct clrie_os_thread started[32];
    for (int i = 0; i < threads; i++) {
        races[i] = (struct race){.get = get, .barrier = &barrier, .out = *out};
        clrie_os_thread_start(&started[i], race_call, &races[i]);
    }
    for (int i = 0; i < threads; i++)
        clrie_os_thread_join(&started[i]);
    int32_t hr = races[0].hr;
    *out = races[0].out;
    for (int i = 1; i < threads; i++)
        if (races[i].hr != hr || races[i].out != *out)
            hr = THREADS_DISAGREED;
    return hr;
}

/* Whether a module of the engine's file name is loaded in this process. */
static bool engine_loaded(void)
{
    struct clrie_os_module *engine = NULL;
    if (clrie_os_module_find(ENGINE_FILE, &engine) != 0)
        return false;
    clrie_os_module_unload(engine);
    return true;
}

int scenario_play(const struct scenario *sc, struct outcome *o)
{
    struct clrie_os_module *proxy = NULL;
    char why[512] = "";
    if (clrie_os_module_load(sc->proxy, &proxy, why, sizeof(why)) != 0) {
        fprintf(stderr, "test: loading the proxy: %s\n", why);
        return 12;
    }
    LPFNGETCLASSOBJECT get =
        (LPFNGETCLASSOBJECT)clrie_os_module_function(proxy, "DllGetClassObject");
    LPFNCANUNLOADNOW unload = (LPFNCANUNLOADNOW)clrie_os_module_function(proxy, "DllCanUnloadNow");
    if (!get || !unload)
        return 13;

    if (sc->unload_first)
        o->unload_first_hr = unload();

    void *out = (void *)o; /* anything not NULL: the proxy must clear it on failure */
    if (sc->null_out) {
        o->hr = get(&profiler_clsid, &class_factory_iid, NULL);
        out = NULL;
    } else if (sc->threads > 1) {
        o->hr = race_first_calls(get, sc->threads, &out);
    } else {
        o->hr = get(&profiler_clsid, &class_factory_iid, &out);
    }
    o->out_was_null = out == NULL;
    if (out && o->hr == S_OK)
        snprintf(o->answer, sizeof(o->answer), "%s", (const char *)out);

    if (sc->unload) {
        o->unload_hr = unload();
        o->engine_resident = engine_loaded();
    }
    if (sc->again) {
        void *again_out = NULL;
        o->again_hr = get(&profiler_clsid, &class_factory_iid, &again_out);
    }
    return 0; /* the proxy stays loaded until the child ends */
}

/* ---- in the test ------------------------------------------------------------------------ */

static void outcome_free(struct outcome *o)
{
    free(o->log);
}

/* A fresh install tree: the proxy in <root>/Proxy/v1 and a fake engine per listed version. */
static char *install(const char *const *versions)
{
    char *root = test_tree_new();
    test_tree_copy(root, PROXY_REL, built_proxy);
    for (size_t i = 0; versions && versions[i]; i++) {
        char rel[1024];
        snprintf(rel, sizeof(rel), "%s" SEP ENGINE_REL, versions[i]);
        test_tree_copy(root, rel, built_engine);
    }
    return root;
}

static char *proxy_in(const char *root)
{
    return test_path(root, PROXY_REL);
}

/* The answer the fake engine installed as version v under root gives. */
static void assert_chose(const struct outcome *o, const char *root, const char *version)
{
    if (o->hr != S_OK)
        fail_msg("expected %s to be chosen, got hr 0x%08x; log:\n%s", version, (unsigned)o->hr,
                 o->log);
    char rel[1024], expected[4096];
    snprintf(rel, sizeof(rel), "%s" SEP ENGINE_REL, version);
    char *p = test_path(root, rel);
    char *real = NULL;
    assert_int_equal(clrie_os_path_canonical(p, &real), 0);
    snprintf(expected, sizeof(expected), "%s|324f817a|00000001", real);
    assert_string_equal(o->answer, expected);
    free(real);
    free(p);
}

static void assert_log_has(const struct outcome *o, const char *needle)
{
    if (!o->log || !strstr(o->log, needle))
        fail_msg("log lacks \"%s\"; log:\n%s", needle, o->log ? o->log : "(none)");
}

/* Whether this system can play the part of a scenario named what; when it cannot, the test's
 * output says which part was left out. */
static bool system_can(bool can, const char *what)
{
    if (!can)
        print_message("[ LEFT OUT ] %s: not on this system\n", what);
    return can;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; text && *text; text++)
        n += *text == '\n';
    return n;
}

static void chooses_the_newest_by_numeric_order(void **state)
{
    const char *versions[] = {"1.2.0", "1.9.0", "1.10.0", "1.0.99", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_chose(&o, root, "1.10.0");
    assert_string_equal(o.log, ""); /* quiet when all is well */
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void compares_numbers_longer_than_any_integer(void **state)
{
    const char *versions[] = {"1.99999999999999999999999999.0", "1.100000000000000000000000000.0",
                              "1.0.18446744073709551616", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_chose(&o, root, "1.100000000000000000000000000.0");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void debug_and_preview_switches_in_every_combination(void **state)
{
    const char *versions[] = {"1.1.0",       "1.2.0-build1", "1.2.0-build10",      "1.2.0-build9",
                              "1.0.0_Debug", "1.0.5_debug",  "1.3.0-build2_Debug", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    static const struct {
        const char *debug, *preview, *expected;
    } cases[] = {
        {NULL, NULL, "1.1.0"},
        {"InstrumentationEngineProxy_UseDebug=0", "InstrumentationEngineProxy_UsePreview=0",
         "1.1.0"},
        {NULL, "InstrumentationEngineProxy_UsePreview=1", "1.2.0-build10"},
        {"InstrumentationEngineProxy_UseDebug=1", NULL, "1.0.5_debug"},
        {"InstrumentationEngineProxy_UseDebug=1", "InstrumentationEngineProxy_UsePreview=1",
         "1.3.0-build2_Debug"},
        {"InstrumentationEngineProxy_UseDebug=true", NULL, "1.0.5_debug"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct scenario sc = {.proxy = proxy};
        size_t n = 0;
        if (cases[i].debug)
            sc.env[n++] = cases[i].debug;
        if (cases[i].preview)
            sc.env[n++] = cases[i].preview;
        struct outcome o = scenario_run(root, &sc);
        assert_chose(&o, root, cases[i].expected);
        outcome_free(&o);
    }
    free(proxy);
    test_tree_free(root);
}

static void an_unknown_switch_value_is_reported_and_off(void **state)
{
    const char *versions[] = {"1.1.0", "1.0.0_Debug", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(
        root, &(struct scenario){.proxy = proxy,
                                 .env = {"InstrumentationEngineProxy_UseDebug=yes", NULL}});
    assert_chose(&o, root, "1.1.0");
    assert_log_has(&o, "ignoring InstrumentationEngineProxy_UseDebug=yes: expected 1 or 0");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void a_specific_version_wins_or_fails_loudly(void **state)
{
    const char *versions[] = {"1.0.0", "1.5.0", "1.2.0_Debug", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);

    struct outcome o = scenario_run(
        root,
        &(struct scenario){.proxy = proxy,
                           .env = {"InstrumentationEngineProxy_UseSpecificVersion=1.0.0", NULL}});
    assert_chose(&o, root, "1.0.0");
    outcome_free(&o);

    o = scenario_run(
        root, &(struct scenario){
                  .proxy = proxy,
                  .env = {"InstrumentationEngineProxy_UseSpecificVersion=1.2.0_Debug", NULL}});
    assert_chose(&o, root, "1.2.0_Debug");
    outcome_free(&o);

    o = scenario_run(
        root,
        &(struct scenario){.proxy = proxy,
                           .env = {"InstrumentationEngineProxy_UseSpecificVersion=1.7.0", NULL}});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_true(o.out_was_null);
    assert_log_has(&o, "InstrumentationEngineProxy_UseSpecificVersion=1.7.0");
    assert_log_has(&o, "'1.7.0' no such folder");
    outcome_free(&o);

    o = scenario_run(root,
                     &(struct scenario){
                         .proxy = proxy,
                         .env = {"InstrumentationEngineProxy_UseSpecificVersion=../1.5.0", NULL}});
    assert_int_equal(o.hr, E_INVALIDARG);
    assert_true(o.out_was_null);
    assert_log_has(&o, "is not a folder name");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void junk_only_means_not_found_with_every_reason(void **state)
{
    char *root = install(NULL);
    test_tree_mkdir(root, "garbage");
    test_tree_mkdir(root, "1.0");
    test_tree_write(root, "1.1.0", "a file", 6);
    test_tree_mkdir(root, "1.2.0/" ARCH);
    test_tree_mkdir(root, "1.3.0/" ENGINE_REL);
    test_tree_copy(root, "2.0.0/" ENGINE_REL, built_engine);
    test_tree_copy(root, "1.4.0-build1/" ENGINE_REL, built_engine);
    /* A name that would forge a log line if written as it is; Windows refuses it. */
    bool forged = system_can(system_facts.names_take_control_characters,
                             "a version folder named with a newline");
    if (forged)
        test_tree_mkdir(root, "1.5.0\nLogError[00:00:00]: forged");
    char *proxy = proxy_in(root);

    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_true(o.out_was_null);
    assert_int_equal(count_lines(o.log), 1);
    assert_log_has(&o, "LogError[");
    assert_log_has(&o, "clrie proxy: no eligible engine under '");
    assert_log_has(&o,
                   "(looking for major 1, release builds, previews excluded, file " ENGINE_REL ")");
    assert_log_has(&o, "'garbage' not a version name (at byte 0)");
    assert_log_has(&o, "'1.0' not a version name (at byte 3)");
    assert_log_has(&o, "'1.1.0' not a directory");
    assert_log_has(&o, "'1.2.0' engine file missing");
    assert_log_has(&o, "'1.3.0' engine is not a regular file");
    assert_log_has(&o, "'2.0.0' different major version");
    assert_log_has(&o, "'1.4.0-build1' preview not allowed");
    if (forged)
        assert_log_has(&o, "'1.5.0\\x0aLogError[00:00:00]: forged' not a version name");
    assert_log_has(&o, "'Proxy' not a version name");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void a_missing_root_is_not_found_and_named(void **state)
{
    char *root = install(NULL);
    char *proxy = proxy_in(root);
    char *missing = test_path(root, "nonexistent/clrie");
    char env[4200], expected[4200];
    snprintf(env, sizeof(env), "InstrumentationEngineProxy_RootPath=%s", missing);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy, .env = {env, NULL}});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_true(o.out_was_null);
    snprintf(expected, sizeof(expected), "no eligible engine under '%s'", missing);
    assert_log_has(&o, expected);
    assert_log_has(&o, "cannot read the root folder: No such file or directory");
    outcome_free(&o);
    free(missing);
    free(proxy);
    test_tree_free(root);
}

static void the_root_override_replaces_the_proxy_location(void **state)
{
    const char *here[] = {"1.9.0", NULL};
    const char *there[] = {"1.3.0", "1.4.0", NULL};
    char *root = install(here);
    char *other = install(there);
    char *proxy = proxy_in(root);
    char env[4200];
    snprintf(env, sizeof(env), "InstrumentationEngineProxy_RootPath=%s", other);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy, .env = {env, NULL}});
    assert_chose(&o, other, "1.4.0");
    outcome_free(&o);
    free(proxy);
    test_tree_free(other);
    test_tree_free(root);
}

/* A symbolic link to the proxy (as a product might ship) still finds the real tree. */
static void a_link_to_the_proxy_finds_the_real_tree(const char *root, const char *proxy)
{
    char *elsewhere = test_tree_new();
    test_tree_symlink(elsewhere, "product/libproxy.so", proxy);
    char *link = test_path(elsewhere, "product/libproxy.so");
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = link});
    assert_chose(&o, root, "1.1.0");
    outcome_free(&o);
    free(link);
    test_tree_free(elsewhere);
}

static void a_copied_tree_works_unchanged(void **state)
{
    /* The install copied elsewhere, the original gone: the copy finds its own engines. */
    const char *versions[] = {"1.1.0", NULL};
    char *original = install(versions);
    char *root = test_tree_new();
    char *original_proxy = proxy_in(original);
    char *original_engine = test_path(original, "1.1.0" SEP ENGINE_REL);
    test_tree_copy(root, PROXY_REL, original_proxy);
    test_tree_copy(root, "1.1.0" SEP ENGINE_REL, original_engine);
    free(original_engine);
    free(original_proxy);
    test_tree_free(original);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_chose(&o, root, "1.1.0");
    outcome_free(&o);
    if (system_can(test_posix_files(), "a symbolic link to the proxy"))
        a_link_to_the_proxy_finds_the_real_tree(root, proxy);
    free(proxy);
    test_tree_free(root);
}

static void an_unloadable_engine_is_a_failure_not_a_null(void **state)
{
    char *root = install(NULL);
    test_tree_write(root, "1.0.0/" ENGINE_REL, "this is not a module", 20);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_int_equal(o.hr, (int32_t)0x800700C1); /* ERROR_BAD_EXE_FORMAT */
    assert_true(o.out_was_null);
    assert_log_has(&o, "cannot load engine '");
    char expected[256];
    snprintf(expected, sizeof(expected), "1.0.0" SEP ENGINE_REL "': %s", system_facts.not_a_module);
    assert_log_has(&o, expected);
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void an_engine_without_the_export_is_refused(void **state)
{
    char *root = install(NULL);
    test_tree_copy(root, "1.0.0/" ENGINE_REL, built_no_export);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy});
    assert_int_equal(o.hr, PROC_NOT_FOUND);
    assert_true(o.out_was_null);
    assert_log_has(&o, "does not export DllGetClassObject");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void a_null_out_pointer_is_refused(void **state)
{
    const char *versions[] = {"1.0.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy, .null_out = true});
    assert_int_equal(o.hr, E_POINTER);
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void concurrent_first_calls_load_the_engine_once(void **state)
{
    const char *versions[] = {"1.0.0", "1.1.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    /* If the engine had been opened more than once, one DllCanUnloadNow would leave it
     * loaded: being gone afterwards proves a single load. Where unloading never unmaps
     * (musl's dlclose) the proof is not available and only the rest is checked. */
    struct outcome o =
        scenario_run(root, &(struct scenario){.proxy = proxy,
                                              .threads = 16,
                                              .unload = true,
                                              .again = true,
                                              .env = {"FAKE_ENGINE_CAN_UNLOAD=1", NULL}});
    assert_chose(&o, root, "1.1.0");
    assert_int_equal(o.unload_hr, S_OK);
    if (system_can(system_facts.unload_unmaps, "the engine unmapped by its last unload"))
        assert_false(o.engine_resident);
    assert_int_equal(o.again_hr, S_OK); /* and it loads again after an unload */
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

static void unload_forwards_and_keeps_a_busy_engine(void **state)
{
    const char *versions[] = {"1.0.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(
        root,
        &(struct scenario){.proxy = proxy, .unload_first = true, .unload = true, .again = true});
    assert_int_equal(o.unload_first_hr, S_OK); /* nothing loaded yet */
    assert_chose(&o, root, "1.0.0");
    assert_int_equal(o.unload_hr, S_FALSE); /* the engine said no */
    assert_true(o.engine_resident);
    assert_int_equal(o.again_hr, S_OK);
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

/* The path of the one file in folder whose name is prefix, anything, suffix (malloc'd); fails
 * the test unless there is exactly one. */
static char *only_file_like(const char *folder, const char *prefix, const char *suffix)
{
    struct clrie_os_dir *dir = NULL;
    assert_int_equal(clrie_os_dir_open(folder, &dir), 0);
    char *found = NULL;
    size_t count = 0;
    const char *name;
    while (clrie_os_dir_next(dir, &name) == 1) {
        size_t n = strlen(name), before = strlen(prefix), after = strlen(suffix);
        if (n >= before + after && strncmp(name, prefix, before) == 0 &&
            strcmp(name + n - after, suffix) == 0) {
            count++;
            free(found);
            found = test_path(folder, name);
        }
    }
    clrie_os_dir_close(dir);
    assert_int_equal(count, 1);
    return found;
}

static void failures_go_to_the_log_file_when_one_is_named(void **state)
{
    char *root = install(NULL);
    char *proxy = proxy_in(root);
    char *file = test_path(root, "engine.log");
    char env[4200];
    snprintf(env, sizeof(env), "MicrosoftInstrumentationEngine_FileLogPath=%s", file);
    struct outcome o = scenario_run(root, &(struct scenario){.proxy = proxy, .env = {env, NULL}});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_string_equal(o.log, "");
    char *logged = test_read_file(file, NULL);
    assert_non_null(logged);
    assert_non_null(strstr(logged, "no eligible engine under"));
    free(logged);
    outcome_free(&o);

    /* A folder gets ProfilerLog_<pid>.txt. */
    test_tree_mkdir(root, "logs");
    char *folder = test_path(root, "logs");
    snprintf(env, sizeof(env), "MicrosoftInstrumentationEngine_FileLogPath=%s", folder);
    o = scenario_run(root, &(struct scenario){.proxy = proxy, .env = {env, NULL}});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_string_equal(o.log, "");
    char *named = only_file_like(folder, "ProfilerLog_", ".txt");
    logged = test_read_file(named, NULL);
    assert_non_null(strstr(logged, "no eligible engine under"));
    free(logged);
    free(named);
    outcome_free(&o);

    /* A log path that cannot be written still reaches stderr: never silent. */
    char *unwritable = test_path(root, "nonexistent/dir/x.log");
    snprintf(env, sizeof(env), "MicrosoftInstrumentationEngine_FileLogPath=%s", unwritable);
    o = scenario_run(root, &(struct scenario){.proxy = proxy, .env = {env, NULL}});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_log_has(&o, "no eligible engine under");
    outcome_free(&o);
    free(unwritable);
    free(folder);
    free(file);
    free(proxy);
    test_tree_free(root);
}

static void messages_level_logs_the_chosen_engine(void **state)
{
    const char *versions[] = {"1.0.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    /* Read as the engine reads it: words in any case (CLRIE itself wants "Messages"). */
    const char *levels[] = {"MicrosoftInstrumentationEngine_LogLevel=Messages",
                            "MicrosoftInstrumentationEngine_LogLevel=All",
                            "MicrosoftInstrumentationEngine_LogLevel=Errors|Messages",
                            "MicrosoftInstrumentationEngine_LogLevel=messages",
                            "MicrosoftInstrumentationEngine_LogLevel=MESSAGES",
                            "MicrosoftInstrumentationEngine_LogLevel=errors|mEsSaGeS",
                            "MicrosoftInstrumentationEngine_LogLevel=all"};
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        struct outcome o =
            scenario_run(root, &(struct scenario){.proxy = proxy, .env = {levels[i], NULL}});
        assert_chose(&o, root, "1.0.0");
        assert_log_has(&o, "LogMessage[");
        assert_log_has(&o, "loaded engine '");
        assert_log_has(&o, "(version 1.0.0, root '");
        outcome_free(&o);
    }
    struct outcome o = scenario_run(
        root, &(struct scenario){.proxy = proxy,
                                 .env = {"MicrosoftInstrumentationEngine_LogLevel=Errors", NULL}});
    assert_string_equal(o.log, "");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

/* The line's prefix with the time's digits as 'N': "LogError[NN:NN:NN]:". */
static void masked_prefix(const char *line, char *out, size_t size)
{
    const char *end = strstr(line, "]:");
    assert_non_null(end);
    size_t n = (size_t)(end + 2 - line);
    assert_true(n < size);
    for (size_t i = 0; i < n; i++)
        out[i] = line[i] >= '0' && line[i] <= '9' ? 'N' : line[i];
    out[n] = '\0';
}

static const char *line_with(char *const *lines, size_t count, const char *needle)
{
    for (size_t i = 0; i < count; i++)
        if (strstr(lines[i], needle))
            return lines[i];
    fail_msg("no line has \"%s\"", needle);
    return NULL;
}

static void the_proxy_and_the_engine_write_the_same_lines_to_one_file(void **state)
{
    const char *versions[] = {"1.0.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    char *file = test_path(root, "shared.log");
    char path_env[4200];
    snprintf(path_env, sizeof(path_env), "MicrosoftInstrumentationEngine_FileLogPath=%s", file);
    char *env[] = {path_env, (char *)"MicrosoftInstrumentationEngine_LogLevel=MESSAGES", NULL};

    /* The proxy: an error (a bad switch) and a message (the engine it loaded). */
    struct outcome o = scenario_run(
        root, &(struct scenario){
                  .proxy = proxy,
                  .env = {env[0], env[1], "InstrumentationEngineProxy_UseDebug=yes", NULL}});
    assert_chose(&o, root, "1.0.0");
    assert_string_equal(o.log, "");
    outcome_free(&o);

    /* The engine's log, configured from the same environment, appends to the same file. */
    struct clrie_pm_log engine_log;
    assert_int_equal(clrie_pm_log_init(&engine_log, env), 0);
    CLRIE_PM_LOG_ERROR(&engine_log, "engine error");
    CLRIE_PM_LOG_MESSAGE(&engine_log, "engine message");
    clrie_pm_log_finish(&engine_log);

    char *text = test_read_file(file, NULL);
    assert_non_null(text);
    char *lines[8];
    size_t count = 0;
    for (char *l = strtok(text, "\n"); l && count < 8; l = strtok(NULL, "\n"))
        lines[count++] = l;
    assert_int_equal(count, 4);
    static const struct {
        const char *proxy, *engine, *prefix;
    } pairs[] = {
        {"clrie proxy: ignoring InstrumentationEngineProxy_UseDebug=yes", "]:engine error",
         "LogError[NN:NN:NN]:"},
        {"clrie proxy: loaded engine '", "]:engine message", "LogMessage[NN:NN:NN]:"},
    };
    for (size_t i = 0; i < 2; i++) {
        char from_proxy[64], from_engine[64];
        masked_prefix(line_with(lines, count, pairs[i].proxy), from_proxy, sizeof(from_proxy));
        masked_prefix(line_with(lines, count, pairs[i].engine), from_engine, sizeof(from_engine));
        assert_string_equal(from_proxy, pairs[i].prefix);
        assert_string_equal(from_engine, pairs[i].prefix);
    }
    free(text);
    free(file);
    free(proxy);
    test_tree_free(root);
}

static size_t occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

#define LOG_MESSAGES "MicrosoftInstrumentationEngine_LogLevel=Messages"

/* The proxy with its log pointed at path and the Messages level: it chooses the engine anyway
 * and says so, on stderr. The caller frees the outcome. */
static struct outcome logging_to(const char *root, const char *proxy, const char *path)
{
    char path_env[4200];
    snprintf(path_env, sizeof(path_env), "MicrosoftInstrumentationEngine_FileLogPath=%s", path);
    struct outcome o =
        scenario_run(root, &(struct scenario){.proxy = proxy, .env = {path_env, LOG_MESSAGES}});
    assert_chose(&o, root, "1.0.0");
    assert_log_has(&o, "]:clrie proxy: loaded engine '");
    return o;
}

/* A pipe nobody reads (a FIFO; a named pipe on Windows) does not hang the proxy: refused once. */
static void a_pipe_is_refused(const char *root, const char *proxy)
{
    struct log_pipe pipe;
    log_pipe_make(root, &pipe);
    struct outcome o = logging_to(root, proxy, pipe.path);
    char expected[4400];
    snprintf(expected, sizeof(expected),
             "]:clrie proxy: cannot open the log file '%s' (%s); logging to stderr\n", pipe.path,
             pipe.refusal);
    assert_int_equal(occurrences(o.log, expected), 1);
    outcome_free(&o);
    log_pipe_free(&pipe);
}

/* A link planted in a folder others can write to is not followed. */
static void a_planted_link_is_not_followed(const char *root, const char *proxy)
{
    test_tree_write(root, "victim.txt", "precious\n", 9);
    char *victim = test_path(root, "victim.txt");
    test_tree_symlink(root, "shared/engine.log", victim);
    test_tree_chmod(root, "shared", 0777);
    char *link = test_path(root, "shared/engine.log");
    struct outcome o = logging_to(root, proxy, link);
    assert_log_has(&o, "(it is a symbolic link in a folder that group or others can write to)");
    char *kept = test_read_file(victim, NULL);
    assert_string_equal(kept, "precious\n");
    free(kept);
    outcome_free(&o);
    free(link);
    free(victim);
}

/* A failing write moves the log to stderr, said once. */
static void a_failing_write_moves_to_stderr(const char *root, const char *proxy, const char *device)
{
    struct outcome o = logging_to(root, proxy, device);
    char expected[4400];
    snprintf(expected, sizeof(expected),
             "]:clrie proxy: writing to the log file '%s' failed (No space left on device); "
             "logging to stderr from now on\n",
             device);
    assert_int_equal(occurrences(o.log, expected), 1);
    outcome_free(&o);
}

/* The proxy opens and writes its log as the engine does (log.c). Symbolic links and permission
 * bits are POSIX's (test_posix_files), a device that fails every write is Linux's /dev/full:
 * Windows has neither, so there only the pipe is tried. */
static void a_hostile_log_path_never_stops_the_proxy(void **state)
{
    const char *versions[] = {"1.0.0", NULL};
    char *root = install(versions);
    char *proxy = proxy_in(root);
    a_pipe_is_refused(root, proxy);
    if (system_can(test_posix_files(), "a symbolic link planted as the log file"))
        a_planted_link_is_not_followed(root, proxy);
    if (system_can(system_facts.full_device != NULL, "a log on a device that fails writes"))
        a_failing_write_moves_to_stderr(root, proxy, system_facts.full_device);
    free(proxy);
    test_tree_free(root);
}

/* Permission bits that bind the reader and a user other than root are POSIX's: on Windows an
 * access list that keeps the user out is another test's matter (libconfig's trust tests), and
 * Administrators read through them, so this runs only where test_posix_files(). */
static void unreadable_folders_are_skipped_and_named(void **state)
{
    if (!test_posix_files())
        skip();
    const char *versions[] = {"1.0.0", "1.1.0", NULL};
    char *root = install(versions);
    test_tree_chmod(root, "1.1.0", 0);
    char *proxy = proxy_in(root);
    struct outcome o = scenario_run(
        root, &(struct scenario){.proxy = proxy,
                                 .ordinary_user = true,
                                 .env = {"MicrosoftInstrumentationEngine_LogLevel=All", NULL}});
    assert_chose(&o, root, "1.0.0");
    outcome_free(&o);

    test_tree_chmod(root, "1.0.0", 0);
    o = scenario_run(root, &(struct scenario){.proxy = proxy, .ordinary_user = true});
    assert_int_equal(o.hr, NOT_FOUND);
    assert_log_has(&o, "'1.0.0' unreadable (Permission denied)");
    assert_log_has(&o, "'1.1.0' unreadable (Permission denied)");
    outcome_free(&o);
    free(proxy);
    test_tree_free(root);
}

int main(int argc, char **argv)
{
    int child_status = scenario_child_main();
    if (child_status >= 0)
        return child_status;
    if (argc != 4) {
        fprintf(stderr, "usage: %s PROXY FAKE_ENGINE FAKE_ENGINE_NO_EXPORT\n", argv[0]);
        return 2;
    }
    built_proxy = argv[1];
    built_engine = argv[2];
    built_no_export = argv[3];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chooses_the_newest_by_numeric_order),
        cmocka_unit_test(compares_numbers_longer_than_any_integer),
        cmocka_unit_test(debug_and_preview_switches_in_every_combination),
        cmocka_unit_test(an_unknown_switch_value_is_reported_and_off),
        cmocka_unit_test(a_specific_version_wins_or_fails_loudly),
        cmocka_unit_test(junk_only_means_not_found_with_every_reason),
        cmocka_unit_test(a_missing_root_is_not_found_and_named),
        cmocka_unit_test(the_root_override_replaces_the_proxy_location),
        cmocka_unit_test(a_copied_tree_works_unchanged),
        cmocka_unit_test(an_unloadable_engine_is_a_failure_not_a_null),
        cmocka_unit_test(an_engine_without_the_export_is_refused),
        cmocka_unit_test(a_null_out_pointer_is_refused),
        cmocka_unit_test(concurrent_first_calls_load_the_engine_once),
        cmocka_unit_test(unload_forwards_and_keeps_a_busy_engine),
        cmocka_unit_test(failures_go_to_the_log_file_when_one_is_named),
        cmocka_unit_test(messages_level_logs_the_chosen_engine),
        cmocka_unit_test(the_proxy_and_the_engine_write_the_same_lines_to_one_file),
        cmocka_unit_test(unreadable_folders_are_skipped_and_named),
        cmocka_unit_test(a_hostile_log_path_never_stops_the_proxy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
