/* Reading CLRIE's variables: the same answers for the engine and the proxy. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "env.h"
#include "support.h"

static void a_variable_is_found_only_by_its_whole_name(void **state)
{
    char *env[] = {(char *)"MicrosoftInstrumentationEngine_LogLevel_X=Dumps",
                   (char *)"MicrosoftInstrumentationEngine_LogLevel=Errors",
                   (char *)"Empty=", NULL};
    assert_string_equal(clrie_pm_env_lookup(env, "MicrosoftInstrumentationEngine_LogLevel"),
                        "Errors");
    assert_string_equal(clrie_pm_env_lookup(env, "Empty"), "");
    assert_null(clrie_pm_env_lookup(env, "MicrosoftInstrumentationEngine"));
    assert_null(clrie_pm_env_lookup(NULL, "Empty"));
}

static void an_empty_path_names_nothing(void **state)
{
    char *env[] = {(char *)"Empty=", (char *)"Log=/tmp/x.log", NULL};
    assert_null(clrie_pm_env_path(env, "Empty"));
    assert_null(clrie_pm_env_path(env, "Unset"));
    assert_string_equal(clrie_pm_env_path(env, "Log"), "/tmp/x.log");
}

static void switches_are_one_or_zero_true_or_false(void **state)
{
    char *env[] = {(char *)"One=1",  (char *)"True=TRUE", (char *)"Zero=0", (char *)"False=false",
                   (char *)"Empty=", (char *)"Yes=yes",   (char *)"Ten=10", NULL};
    static const struct {
        const char *name;
        int result;
        bool on;
    } cases[] = {
        {"One", 0, true},    {"True", 0, true},   {"Zero", 0, false},      {"False", 0, false},
        {"Empty", 0, false}, {"Unset", 0, false}, {"Yes", -EINVAL, false}, {"Ten", -EINVAL, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool on = !cases[i].on;
        assert_int_equal(clrie_pm_env_switch(env, cases[i].name, &on), cases[i].result);
        assert_int_equal(on, cases[i].on);
    }
}

/* The engine's view of the environment: clrie's own names stand for CLRIE's, whose variables
 * are then left out; without clrie's own names, the environment itself. */
static void own_names_stand_for_clries(void **state)
{
    test_env_set("MicrosoftInstrumentationEngine_LogLevel", "Errors");
    assert_string_equal(
        clrie_pm_env_lookup(clrie_pm_env_engine(), "MicrosoftInstrumentationEngine_LogLevel"),
        "Errors");
    test_env_set("MicrosoftInstrumentationEngine_LogLevel", "Errors");
    test_env_set("MicrosoftInstrumentationEngine_ConfigPath64_Theirs", "/theirs.config");
    test_env_set("ClrieEngine_LogLevel", "All");
    test_env_set("ClrieEngine_ConfigPath64_Mine", "/mine.config");
    test_env_set("CLRIE_TEST_OTHER", "kept");
    char *const *view = clrie_pm_env_engine();
    assert_string_equal(clrie_pm_env_lookup(view, "MicrosoftInstrumentationEngine_LogLevel"),
                        "All");
    assert_string_equal(
        clrie_pm_env_lookup(view, "MicrosoftInstrumentationEngine_ConfigPath64_Mine"),
        "/mine.config");
    assert_null(clrie_pm_env_lookup(view, "MicrosoftInstrumentationEngine_ConfigPath64_Theirs"));
    assert_null(clrie_pm_env_lookup(view, "ClrieEngine_LogLevel"));
    assert_string_equal(clrie_pm_env_lookup(view, "CLRIE_TEST_OTHER"), "kept");
    assert_ptr_equal(clrie_pm_env_engine(), view); /* built again only when environ changes */
    test_env_set("ClrieEngine_FileLogPath", "/tmp/mine.log");
    assert_string_equal(
        clrie_pm_env_lookup(clrie_pm_env_engine(), "MicrosoftInstrumentationEngine_FileLogPath"),
        "/tmp/mine.log");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_variable_is_found_only_by_its_whole_name),
        cmocka_unit_test(an_empty_path_names_nothing),
        cmocka_unit_test(switches_are_one_or_zero_true_or_false),
        cmocka_unit_test(own_names_stand_for_clries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
