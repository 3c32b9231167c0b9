/* libconfig, the file format: what a configuration file may say, what each value means, how
 * methods are ordered, and every problem reported with its place. */
#include <errno.h>
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
#include "helpers.h"
#include "support.h"

/* --- the format ------------------------------------------------------------------------ */

static void loads_clrie_sample_config(void **state)
{
    /* The sample of CLRIE's ConfigurationLoaderTests, with every element. */
    char *root = new_tree();
    write_text(root, "sample.config",
               "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
               "<InstrumentationEngineConfiguration>\n"
               "  <InstrumentationMethod>\n"
               "    <Name>Test Instrumentation Method</Name>\n"
               "    <Description>Test description</Description>\n"
               "    <Module>plugin.so</Module>\n"
               "    <ClassGuid>{249E89A6-12D9-4E03-82FF-7FEAA41310E9}</ClassGuid>\n"
               "    <Priority>50</Priority>\n"
               "  </InstrumentationMethod>\n"
               "</InstrumentationEngineConfiguration>\n");
    char *path = test_path(root, "sample.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, path, NULL), 0);
    assert_int_equal(clrie_config_method_count(config), 1);
    assert_int_equal(clrie_config_diag_count(config), 0);
    const struct clrie_config_method *m = clrie_config_method_at(config, 0);
    assert_string_equal(m->name, "Test Instrumentation Method");
    assert_string_equal(m->description, "Test description");
    assert_string_equal(m->module, "plugin.so");
    char *module = test_path(root, "plugin.so");
    char *canonical = NULL;
    assert_int_equal(clrie_os_path_canonical(module, &canonical), 0);
    assert_string_equal(m->module_path, canonical);
    assert_string_equal(m->class_guid_text, GUID_A);
    assert_int_equal(m->class_guid.data1, 0x249E89A6);
    assert_int_equal(m->class_guid.data2, 0x12D9);
    assert_int_equal(m->class_guid.data3, 0x4E03);
    static const uint8_t data4[8] = {0x82, 0xFF, 0x7F, 0xEA, 0xA4, 0x13, 0x10, 0xE9};
    assert_memory_equal(m->class_guid.data4, data4, 8);
    assert_true(m->has_priority);
    assert_int_equal(m->priority, 50);
    assert_int_equal(m->setting_count, 0);
    assert_string_equal(m->file, path);
    assert_int_equal(m->line, 3);
    assert_int_equal(m->column, 3);
    assert_null(clrie_config_method_at(config, 1));
    clrie_config_free(config);
    free(canonical);
    free(module);
    free(path);
    test_tree_free(root);
}

static void description_is_optional(void **state)
{
    /* CLRIE fails such a file ("Missing child element"); the issue makes it optional. */
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    char *m = method("NoDescription", GUID_B, NULL);
    char *doc = document(m, NULL);
    assert_int_equal(load_text(config, root, doc), 0);
    assert_string_equal(clrie_config_method_at(config, 0)->description, "");
    assert_false(clrie_config_method_at(config, 0)->has_priority);
    expect_problems(config, root, "");
    clrie_config_free(config);
    free(doc);
    free(m);
    test_tree_free(root);
}

static void allows_comments_and_trims_values(void **state)
{
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    const char *doc = "<?xml version=\"1.0\"?>\n"
                      "<!-- before the root -->\n"
                      "<?some-pi data?>\n"
                      "<InstrumentationEngineConfiguration>\n"
                      "  <!-- a comment CLRIE would have failed the file for -->\n"
                      "  <InstrumentationMethod>\n"
                      "    <!-- inside a method -->\n"
                      "    <Name>\n\t  Spaced &amp; <![CDATA[<Named>]]>\r\n  </Name>\n"
                      "    <Description>  d  </Description>\n"
                      "    <Module>  plugin.so  </Module>\n"
                      "    <ClassGuid>\n  {249e89a6-12d9-4e03-82ff-7feaa41310e9}\n  </ClassGuid>\n"
                      "    <Priority> 7 </Priority>\n"
                      "  </InstrumentationMethod>\n"
                      "  <InstrumentationMethod64><Name>Sixty<!-- split -->Four</Name>"
                      "<Module>plugin.so</Module><ClassGuid>" GUID_B "</ClassGuid>"
                      "</InstrumentationMethod64>\n"
                      "</InstrumentationEngineConfiguration>\n"
                      "<!-- after -->\n";
    assert_int_equal(load_text(config, root, doc), 0);
    expect_problems(config, root, "");
    expect_list(config, "7 " GUID_A " Spaced & <Named>\n"
                        "- " GUID_B " SixtyFour\n");
    assert_string_equal(clrie_config_method_at(config, 0)->description, "d");
    assert_string_equal(clrie_config_method_at(config, 0)->module, "plugin.so");
    assert_int_equal(clrie_config_method_at(config, 1)->line, 18);
    clrie_config_free(config);
    test_tree_free(root);
}

static void ignores_attributes_with_a_warning(void **state)
{
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    const char *doc = "<InstrumentationEngineConfiguration version=\"1\">\n"
                      "  <InstrumentationMethod enabled=\"no\"><Name lang=\"en\">N</Name>"
                      "<Module>plugin.so</Module><ClassGuid>" GUID_B "</ClassGuid>"
                      "</InstrumentationMethod>\n" TAIL;
    assert_int_equal(load_text(config, root, doc), 0);
    expect_list(config, "- " GUID_B " N\n");
    expect_problems(config, root,
                    "t.config:1:1: warning: attribute 'version' of "
                    "<InstrumentationEngineConfiguration> is ignored\n"
                    "t.config:2:3: warning: attribute 'enabled' of <InstrumentationMethod> is "
                    "ignored\n"
                    "t.config:2:39: warning: attribute 'lang' of <Name> is ignored\n");
    clrie_config_free(config);
    test_tree_free(root);
}

struct malformed_case {
    const char *what;
    const char *text;
    size_t len; /* 0: strlen */
    unsigned line, column;
    const char *message;
};

static void rejects_malformed_xml_with_its_place(void **state)
{
    static const struct malformed_case cases[] = {
        {"empty file", "", 0, 1, 1, "Document is empty"},
        {"only white space", "  \n ", 0, 2, 2, "Start tag expected, '<' not found"},
        {"not XML", "Name=x\n", 0, 1, 1, "Start tag expected, '<' not found"},
        {"unclosed root", HEAD "  <InstrumentationMethod>\n", 0, 3, 1,
         "Premature end of data in tag InstrumentationMethod line 2"},
        {"mismatched tags", HEAD "  <InstrumentationMethod></Method>\n" TAIL, 0, 2, 35,
         "Opening and ending tag mismatch: InstrumentationMethod line 2 and Method"},
        {"two roots", HEAD TAIL HEAD TAIL, 0, 3, 1, "Extra content at the end of the document"},
        {"unquoted attribute", "<InstrumentationEngineConfiguration a=b/>", 0, 1, 39,
         "AttValue: \" or ' expected"},
        {"undefined entity", HEAD "<x>&nope;</x>" TAIL, 0, 2, 10, "Entity 'nope' not defined"},
        {"bad character reference", HEAD "<x>&#0;</x>" TAIL, 0, 2, 8,
         "xmlParseCharRef: invalid xmlChar value 0"},
        {"invalid UTF-8", HEAD "<x>\xff\xfe</x>" TAIL, 0, 2, 4,
         "Input is not proper UTF-8, indicate encoding ! Bytes: 0xFF 0xFE 0x3C 0x2F"},
        {"NUL byte", HEAD "<x>\0</x>" TAIL, sizeof(HEAD "<x>\0</x>" TAIL) - 1, 2, 4,
         "Premature end of data in tag x line 2"},
        {"text before root", "junk" HEAD TAIL, 0, 1, 1, "Start tag expected, '<' not found"},
        {"unclosed comment", HEAD "<!-- no end" TAIL, 0, 3, 1, "Comment not terminated"},
        {"XML declaration not first", "\n<?xml version=\"1.0\"?>" HEAD TAIL, 0, 2, 6,
         "XML declaration allowed only at the start of the document"},
        {"unknown encoding", "<?xml version=\"1.0\" encoding=\"no-such\"?>" HEAD TAIL, 0, 1, 39,
         "Unsupported encoding no-such"},
    };
    int failures = 0;
    char *root = new_tree();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct malformed_case *c = &cases[i];
        struct clrie_config *config = clrie_config_new();
        size_t len = c->len ? c->len : strlen(c->text);
        int r = clrie_config_load_memory(config, c->text, len, "m.config", root, NULL);
        const struct clrie_config_diag *d = clrie_config_diag_at(config, 0);
        if (r != -EILSEQ || !d || clrie_config_method_count(config) != 0)
            fail_msg("%s: returned %d", c->what, r);
        if (d->severity != CLRIE_CONFIG_ERROR || d->line != c->line || d->column != c->column ||
            strcmp(d->message, c->message) != 0 || strcmp(d->file, "m.config") != 0) {
            print_error("%s: got %s:%u:%u: %s\n", c->what, d->file, d->line, d->column, d->message);
            failures++;
        }
        clrie_config_free(config);
    }
    assert_int_equal(failures, 0);
    test_tree_free(root);
}

static void rejects_a_wrong_root(void **state)
{
    static const char *const docs[] = {
        "<Configuration/>",
        "<instrumentationengineconfiguration/>",
        "<InstrumentationMethod><Name>x</Name></InstrumentationMethod>",
    };
    static const char *const expected[] = {
        "t.config:1:1: error: the root element is <Configuration>; expected "
        "<InstrumentationEngineConfiguration>\n",
        "t.config:1:1: error: the root element is <instrumentationengineconfiguration>; "
        "expected <InstrumentationEngineConfiguration>\n",
        "t.config:1:1: error: the root element is <InstrumentationMethod>; expected "
        "<InstrumentationEngineConfiguration>\n",
    };
    char *root = new_tree();
    for (size_t i = 0; i < 3; i++) {
        struct clrie_config *config = clrie_config_new();
        assert_int_equal(load_text(config, root, docs[i]), -EILSEQ);
        expect_problems(config, root, expected[i]);
        clrie_config_free(config);
    }
    test_tree_free(root);
}

static void rejects_unknown_and_duplicate_elements_listing_every_one(void **state)
{
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    const char *doc = HEAD "  <InstrumentationMethod32/>\n"
                           "  <InstrumentationMethod>\n"
                           "    <Name>A</Name><Name>B</Name>\n"
                           "    <Module>plugin.so</Module>\n"
                           "    <ClassGuid>" GUID_A "</ClassGuid>\n"
                           "    <Path>x</Path>\n"
                           "    <Priority>1</Priority><Priority>2</Priority>\n"
                           "    stray text\n"
                           "  </InstrumentationMethod>\n"
                           "  <InstrumentationMethod><Name>ok</Name><Module>plugin.so</Module>"
                           "<ClassGuid>" GUID_B "</ClassGuid><Description>x<b>y</b></Description>"
                           "</InstrumentationMethod>\n"
                           "  text at the top\n" TAIL;
    assert_int_equal(load_text(config, root, doc), -EILSEQ);
    assert_int_equal(clrie_config_method_count(config), 0);
    expect_problems(
        config, root,
        "t.config:2:3: error: unknown element <InstrumentationMethod32> in "
        "<InstrumentationEngineConfiguration>; expected <InstrumentationMethod> or "
        "<InstrumentationMethod64>\n"
        "t.config:4:19: error: <Name> appears twice in one <InstrumentationMethod> "
        "(first at 4:5)\n"
        "t.config:7:5: error: unknown element <Path> in <InstrumentationMethod>; expected "
        "Name, Description, Module, ClassGuid, Priority or Settings\n"
        "t.config:8:27: error: <Priority> appears twice in one <InstrumentationMethod> "
        "(first at 8:5)\n"
        "t.config:9:5: error: unexpected text in <InstrumentationMethod>\n"
        "t.config:11:142: error: <b> is not allowed inside <Description>, which holds only "
        "text\n"
        "t.config:12:3: error: unexpected text in <InstrumentationEngineConfiguration>\n");
    assert_int_equal(clrie_config_error_count(config), 7);
    clrie_config_free(config);
    test_tree_free(root);
}

static void rejects_missing_and_empty_required_elements(void **state)
{
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    const char *doc =
        HEAD "  <InstrumentationMethod><Description>only</Description></InstrumentationMethod>\n"
             "  <InstrumentationMethod><Name> </Name><Module/><ClassGuid></ClassGuid>"
             "<Priority/></InstrumentationMethod>\n" TAIL;
    assert_int_equal(load_text(config, root, doc), -EILSEQ);
    expect_problems(config, root,
                    "t.config:2:3: error: <InstrumentationMethod> has no <Name>\n"
                    "t.config:2:3: error: <InstrumentationMethod> has no <Module>\n"
                    "t.config:2:3: error: <InstrumentationMethod> has no <ClassGuid>\n"
                    "t.config:3:26: error: <Name> is empty\n"
                    "t.config:3:40: error: <Module> is empty\n"
                    "t.config:3:49: error: <ClassGuid> is empty\n"
                    "t.config:3:72: error: <Priority> is empty\n");
    clrie_config_free(config);
    test_tree_free(root);
}

static void parses_guids_in_registry_form_only(void **state)
{
    static const char *const good[] = {
        "{249E89A6-12D9-4E03-82FF-7FEAA41310E9}",
        "{249e89a6-12d9-4e03-82ff-7feaa41310e9}",
        "{249e89A6-12D9-4e03-82fF-7FEAa41310E9}",
    };
    static const char *const bad[] = {
        "249E89A6-12D9-4E03-82FF-7FEAA41310E9", /* no braces */
        "(249E89A6-12D9-4E03-82FF-7FEAA41310E9)",
        "{249E89A6-12D9-4E03-82FF-7FEAA41310E}",   /* short */
        "{249E89A6-12D9-4E03-82FF-7FEAA41310E99}", /* long */
        "{249E89A612D94E0382FF7FEAA41310E9}",      /* no dashes */
        "{249E89A6-12D9-4E03-82FF7FEAA41310E9-}",  /* dash misplaced */
        "{G49E89A6-12D9-4E03-82FF-7FEAA41310E9}",  /* not hex */
        "{249E89A6-12D9-4E03-82FF-7FEAA41310Ez}",
        "{249E89A6-12D9-4E03-82FF-7FEAA4131 E9}",
        "{0x49E89A-12D9-4E03-82FF-7FEAA41310E9}",
        "{+49E89A6-12D9-4E03-82FF-7FEAA41310E9}",
        "",
    };
    struct clrie_config_guid g;
    char text[CLRIE_CONFIG_GUID_TEXT_LEN + 1];
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(clrie_config_guid_parse(good[i], strlen(good[i]), &g), 0);
        clrie_config_guid_format(&g, text);
        assert_string_equal(text, GUID_A);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (clrie_config_guid_parse(bad[i], strlen(bad[i]), &g) != -EILSEQ)
            fail_msg("'%s' parsed as a GUID", bad[i]);
    assert_int_equal(clrie_config_guid_parse(NULL, 0, &g), -EINVAL);

    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    char *m = method("G", "{249E89A6-12D9-4E03-82FF-7FEAA41310E}", NULL);
    char *doc = document(m, NULL);
    assert_int_equal(load_text(config, root, doc), -EILSEQ);
    expect_problems(config, root,
                    "t.config:2:66: error: <ClassGuid> '{249E89A6-12D9-4E03-82FF-7FEAA41310E}' "
                    "is not a GUID of the form {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}\n");
    clrie_config_free(config);
    free(doc);
    free(m);
    test_tree_free(root);
}

static void accepts_priorities_from_0_to_4294967295_only(void **state)
{
    static const struct {
        const char *text;
        long long value; /* -1: rejected */
    } cases[] = {
        {"0", 0},
        {"50", 50},
        {" 7\n", 7},
        {"007", 7},
        {"4294967295", 4294967295LL},
        {"000000000000000000000000004294967295", 4294967295LL},
        {"4294967296", -1},
        {"99999999999999999999999", -1},
        {"-1", -1},
        {"+5", -1},
        {"abc", -1},
        {"1.5", -1},
        {"1e3", -1},
        {"0x10", -1},
        {"5 5", -1},
        {"\xd9\xa3", -1},
    };
    char *root = new_tree();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct clrie_config *config = clrie_config_new();
        char *m = method("P", GUID_B, cases[i].text);
        char *doc = document(m, NULL);
        int r = load_text(config, root, doc);
        if (cases[i].value < 0) {
            const struct clrie_config_diag *d = clrie_config_diag_at(config, 0);
            if (r != -EILSEQ || !d ||
                !strstr(d->message, "is not a whole number from 0 to "
                                    "4294967295"))
                fail_msg("priority '%s' accepted", cases[i].text);
        } else {
            if (r != 0 || clrie_config_method_at(config, 0)->priority != cases[i].value)
                fail_msg("priority '%s' not read as %lld", cases[i].text, cases[i].value);
        }
        clrie_config_free(config);
        free(doc);
        free(m);
    }
    test_tree_free(root);
}

/* --- order and duplicates ---------------------------------------------------------------- */

static void orders_by_priority_keeping_load_order_for_ties(void **state)
{
    char *root = new_tree();
    write_methods(root, "one.config", 4,
                  method("NoPriority1", "{00000000-0000-0000-0000-000000000001}", NULL),
                  method("Fifty1", "{00000000-0000-0000-0000-000000000002}", "50"),
                  method("Max", "{00000000-0000-0000-0000-000000000003}", "4294967295"),
                  method("Ten", "{00000000-0000-0000-0000-000000000004}", "10"));
    write_methods(root, "two.config", 3,
                  method("Fifty2", "{00000000-0000-0000-0000-000000000005}", "50"),
                  method("NoPriority2", "{00000000-0000-0000-0000-000000000006}", NULL),
                  method("Zero", "{00000000-0000-0000-0000-000000000007}", "0"));
    struct clrie_config *config = clrie_config_new();
    char *one = test_path(root, "one.config"), *two = test_path(root, "two.config");
    assert_int_equal(clrie_config_load_file(config, one, NULL), 0);
    assert_int_equal(clrie_config_load_file(config, two, NULL), 0);
    expect_list(config, "0 {00000000-0000-0000-0000-000000000007} Zero\n"
                        "10 {00000000-0000-0000-0000-000000000004} Ten\n"
                        "50 {00000000-0000-0000-0000-000000000002} Fifty1\n"
                        "50 {00000000-0000-0000-0000-000000000005} Fifty2\n"
                        "4294967295 {00000000-0000-0000-0000-000000000003} Max\n"
                        "- {00000000-0000-0000-0000-000000000001} NoPriority1\n"
                        "- {00000000-0000-0000-0000-000000000006} NoPriority2\n");
    expect_problems(config, root, "");
    clrie_config_free(config);
    free(one);
    free(two);
    test_tree_free(root);
}

static void first_class_guid_wins_and_the_later_one_is_reported(void **state)
{
    char *root = new_tree();
    write_methods(root, "a.config", 1, method("First", GUID_B, "90"));
    /* Lower priority number, but declared later: still the loser. Case does not matter. */
    write_methods(root, "b.config", 2, method("Other", GUID_C, NULL),
                  method("Second", "{00000000-0000-0000-0000-00000000000b}", "1"));
    struct clrie_config *config = clrie_config_new();
    char *a = test_path(root, "a.config"), *b = test_path(root, "b.config");
    assert_int_equal(clrie_config_load_file(config, a, NULL), 0);
    assert_int_equal(clrie_config_load_file(config, b, NULL), 0);
    expect_list(config, "90 " GUID_B " First\n- " GUID_C " Other\n");
    expect_problems(config, root,
                    "ROOT/b.config:3:3: warning: ClassGuid " GUID_B " is already declared by "
                    "'First' at ROOT/a.config:2:3; 'Second' is ignored\n");
    assert_int_equal(clrie_config_error_count(config), 0);
    clrie_config_free(config);
    free(a);
    free(b);
    test_tree_free(root);
}

static void a_file_with_an_error_adds_nothing_and_others_still_load(void **state)
{
    /* CLRIE loads the methods before the first error of a file; here none of them load. */
    char *root = new_tree();
    write_methods(root, "bad.config", 2, method("BeforeError", GUID_B, "1"),
                  method("Broken", "not-a-guid", "2"));
    write_methods(root, "good.config", 1, method("Good", GUID_C, "3"));
    /* A method of the rejected file does not shadow a later one with its ClassGuid. */
    write_methods(root, "later.config", 1, method("LaterB", GUID_B, "4"));
    char *bad = test_path(root, "bad.config"), *good = test_path(root, "good.config");
    char *later = test_path(root, "later.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, bad, NULL), -EILSEQ);
    assert_int_equal(clrie_config_load_file(config, good, NULL), 0);
    assert_int_equal(clrie_config_load_file(config, later, NULL), 0);
    expect_list(config, "3 " GUID_C " Good\n4 " GUID_B " LaterB\n");
    expect_problems(config, root,
                    "ROOT/bad.config:3:71: error: <ClassGuid> 'not-a-guid' is not a GUID of the "
                    "form {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}\n");
    clrie_config_free(config);
    free(bad);
    free(good);
    free(later);
    test_tree_free(root);
}

/* --- settings ------------------------------------------------------------------------------ */

static void reads_settings_first_name_wins(void **state)
{
    char *root = new_tree();
    struct clrie_config *config = clrie_config_new();
    const char *doc = HEAD "  <InstrumentationMethod><Name>S</Name><Module>plugin.so</Module>"
                           "<ClassGuid>" GUID_B "</ClassGuid>\n"
                           "    <Settings>\n"
                           "      <!-- ok -->\n"
                           "      <Setting Name=\"LogLevel\" Value=\"Errors\"/>\n"
                           "      <Setting Value=\" spaced &amp; kept \" Name=\"Path\"></Setting>\n"
                           "      <Setting Name=\"LogLevel\" Value=\"All\"/>\n"
                           "    </Settings>\n"
                           "  </InstrumentationMethod>\n" TAIL;
    assert_int_equal(load_text(config, root, doc), 0);
    const struct clrie_config_method *m = clrie_config_method_at(config, 0);
    assert_int_equal(m->setting_count, 2);
    assert_string_equal(m->settings[0].name, "LogLevel");
    assert_string_equal(m->settings[0].value, "Errors");
    assert_string_equal(m->settings[1].name, "Path");
    assert_string_equal(m->settings[1].value, " spaced & kept ");
    expect_problems(config, root,
                    "t.config:7:7: warning: Setting 'LogLevel' is already given in this method; "
                    "this one is ignored\n");
    clrie_config_free(config);

    config = clrie_config_new();
    doc = HEAD "  <InstrumentationMethod><Name>S</Name><Module>plugin.so</Module>"
               "<ClassGuid>" GUID_B "</ClassGuid>\n"
               "    <Settings><Setting Name=\"\" Value=\"v\"/><Setting Name=\"n\"/>"
               "<Option Name=\"a\" Value=\"b\"/><Setting Name=\"x\" Value=\"y\">text</Setting>"
               "</Settings>\n"
               "  </InstrumentationMethod>\n" TAIL;
    assert_int_equal(load_text(config, root, doc), -EILSEQ);
    expect_problems(config, root,
                    "t.config:3:15: error: <Setting> needs a non-empty Name attribute\n"
                    "t.config:3:43: error: <Setting> needs a non-empty Value attribute\n"
                    "t.config:3:62: error: unknown element <Option> in <Settings>; expected "
                    "<Setting Name=\"…\" Value=\"…\"/>\n"
                    "t.config:3:118: error: unexpected text in <Setting>\n");
    clrie_config_free(config);
    test_tree_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_clrie_sample_config),
        cmocka_unit_test(description_is_optional),
        cmocka_unit_test(allows_comments_and_trims_values),
        cmocka_unit_test(ignores_attributes_with_a_warning),
        cmocka_unit_test(rejects_malformed_xml_with_its_place),
        cmocka_unit_test(rejects_a_wrong_root),
        cmocka_unit_test(rejects_unknown_and_duplicate_elements_listing_every_one),
        cmocka_unit_test(rejects_missing_and_empty_required_elements),
        cmocka_unit_test(parses_guids_in_registry_form_only),
        cmocka_unit_test(accepts_priorities_from_0_to_4294967295_only),
        cmocka_unit_test(orders_by_priority_keeping_load_order_for_ties),
        cmocka_unit_test(first_class_guid_wins_and_the_later_one_is_reported),
        cmocka_unit_test(a_file_with_an_error_adds_nothing_and_others_still_load),
        cmocka_unit_test(reads_settings_first_name_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
