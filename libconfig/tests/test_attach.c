/* The client data of an attach request (clrie_config_attach_parse): CLRIE's schema read as
 * CLRIE reads it, and data that is not that schema refused with its line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/config.h"

static struct clrie_config_attach *parse_ok(const char *text)
{
    struct clrie_config_attach *a = NULL;
    char why[CLRIE_CONFIG_REASON_SIZE];
    int rc = clrie_config_attach_parse(text, strlen(text), &a, why, sizeof(why));
    if (rc != 0)
        fail_msg("refused: %s", why);
    return a;
}

static void test_engine_settings_and_methods_are_read(void **state)
{
    (void)state;
    struct clrie_config_attach *a =
        parse_ok("<InstrumentationEngineConfiguration>\n"
                 "  <InstrumentationEngine><Settings>\n"
                 "    <Setting Name=\"LogLevel\" Value=\"Errors|Messages\"/>\n"
                 "    <Setting Name=\"LogLevel\" Value=\"All\"/>\n"
                 "    <Setting Name=\"LogFilePath\" Value=\"/tmp/x.log\"/>\n"
                 "  </Settings></InstrumentationEngine>\n"
                 "  <InstrumentationMethods>\n"
                 "    <AddInstrumentationMethod ConfigPath=\"/opt/a/a.xml\">\n"
                 "      <Settings><Setting Name=\"Key\" Value=\" spaced \"/></Settings>\n"
                 "    </AddInstrumentationMethod>\n"
                 "    <AddInstrumentationMethod ConfigPath=\"/opt/b/b.xml\"/>\n"
                 "  </InstrumentationMethods>\n"
                 "</InstrumentationEngineConfiguration>");
    assert_int_equal(clrie_config_attach_setting_count(a), 2); /* the first LogLevel wins */
    assert_string_equal(clrie_config_attach_setting(a, "LogLevel"), "Errors|Messages");
    assert_string_equal(clrie_config_attach_setting(a, "LogFilePath"), "/tmp/x.log");
    assert_null(clrie_config_attach_setting(a, "LogFileLevel"));
    assert_int_equal(clrie_config_attach_method_count(a), 2);
    const struct clrie_config_attach_method *m = clrie_config_attach_method_at(a, 0);
    assert_string_equal(m->config_path, "/opt/a/a.xml");
    assert_int_equal(m->setting_count, 1);
    assert_string_equal(m->settings[0].value, " spaced "); /* values as written */
    assert_int_equal(clrie_config_attach_method_at(a, 1)->setting_count, 0);
    clrie_config_attach_free(a);
}

static void test_data_ending_in_nul_is_read(void **state)
{
    (void)state;
    static const char text[] = "<InstrumentationEngineConfiguration/>";
    struct clrie_config_attach *a = NULL;
    assert_int_equal(clrie_config_attach_parse(text, sizeof(text), &a, NULL, 0), 0);
    assert_int_equal(clrie_config_attach_method_count(a), 0);
    clrie_config_attach_free(a);
}

static void refused(const char *text, int expected, const char *reason)
{
    struct clrie_config_attach *a = NULL;
    char why[CLRIE_CONFIG_REASON_SIZE];
    assert_int_equal(clrie_config_attach_parse(text, strlen(text), &a, why, sizeof(why)), expected);
    assert_null(a);
    if (!strstr(why, reason))
        fail_msg("expected '%s' in '%s'", reason, why);
}

static void test_data_outside_the_schema_is_refused_with_its_line(void **state)
{
    (void)state;
    refused("", -ENODATA, "empty");
    refused("<Other/>", -EILSEQ, "root element");
    refused("<InstrumentationEngineConfiguration>", -EILSEQ, "line 1");
    refused("<InstrumentationEngineConfiguration>\n<Bogus/>\n"
            "</InstrumentationEngineConfiguration>",
            -EILSEQ, "line 2: unexpected <Bogus>");
    refused("<InstrumentationEngineConfiguration><InstrumentationMethods>\n"
            "<AddInstrumentationMethod/></InstrumentationMethods>"
            "</InstrumentationEngineConfiguration>",
            -EILSEQ, "line 2: <AddInstrumentationMethod> needs a non-empty ConfigPath");
    refused("<InstrumentationEngineConfiguration><InstrumentationEngine><Settings>"
            "<Setting Name=\"A\" Value=\"\"/></Settings></InstrumentationEngine>"
            "</InstrumentationEngineConfiguration>",
            -EILSEQ, "non-empty Name and Value");
    refused("<!DOCTYPE x [<!ENTITY e \"e\">]><InstrumentationEngineConfiguration/>", -EILSEQ,
            "DOCTYPE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_settings_and_methods_are_read),
        cmocka_unit_test(test_data_ending_in_nul_is_read),
        cmocka_unit_test(test_data_outside_the_schema_is_refused_with_its_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
