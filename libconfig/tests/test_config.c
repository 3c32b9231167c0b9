/* libconfig: configuration files to the ordered list of instrumentation methods, and every
 * problem on the way with its place. */
#define _DEFAULT_SOURCE /* mkfifo, strndup */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "clrie/config.h"
#include "support.h"

#define GUID_A "{249E89A6-12D9-4E03-82FF-7FEAA41310E9}"
#define GUID_B "{00000000-0000-0000-0000-00000000000B}"
#define GUID_C "{00000000-0000-0000-0000-00000000000C}"
#define GUID_D "{00000000-0000-0000-0000-00000000000D}"

#define HEAD "<InstrumentationEngineConfiguration>\n"
#define TAIL "</InstrumentationEngineConfiguration>\n"

/* One method element on one line; priority NULL leaves it out. */
static char *method(const char *name, const char *guid, const char *priority)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    fprintf(f,
            "  <InstrumentationMethod><Name>%s</Name><Module>plugin.so</Module>"
            "<ClassGuid>%s</ClassGuid>",
            name, guid);
    if (priority)
        fprintf(f, "<Priority>%s</Priority>", priority);
    fprintf(f, "</InstrumentationMethod>\n");
    fclose(f);
    return s;
}

/* HEAD, the given method lines, TAIL. */
static char *document(const char *first, ...)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    fputs(HEAD, f);
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        fputs(p, f);
    va_end(ap);
    fputs(TAIL, f);
    fclose(f);
    return s;
}

static void write_text(const char *root, const char *relative, const char *text)
{
    test_tree_write(root, relative, text, strlen(text));
}

/* A tree holding a plugin module "plugin.so" the configurations can name. */
static char *new_tree(void)
{
    char *root = test_tree_new();
    write_text(root, "plugin.so", "not really a plugin");
    return root;
}

/* Writes a file of methods (each an argument, freed here) into root/relative. */
static void write_methods(const char *root, const char *relative, int count, ...)
{
    char *parts[8] = {0};
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        parts[i] = va_arg(ap, char *);
    va_end(ap);
    char *doc = document(parts[0] ? parts[0] : "", parts[1], parts[2], parts[3], parts[4], parts[5],
                         parts[6], parts[7]);
    write_text(root, relative, doc);
    free(doc);
    for (int i = 0; i < count; i++)
        free(parts[i]);
}

/* Replaces every occurrence of root in text by "ROOT". */
static char *relative_to(const char *text, const char *root)
{
    size_t rl = strlen(root);
    char *out = malloc(strlen(text) + 1);
    assert_non_null(out);
    char *o = out;
    while (*text) {
        if (strncmp(text, root, rl) == 0) {
            memcpy(o, "ROOT", 4);
            o += 4;
            text += rl;
        } else {
            *o++ = *text++;
        }
    }
    *o = '\0';
    return out;
}

/* The methods as "priority guid name\n" lines, "-" for no priority. */
static char *list(const struct clrie_config *config)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    for (size_t i = 0; i < clrie_config_method_count(config); i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        if (m->has_priority)
            fprintf(f, "%lu ", (unsigned long)m->priority);
        else
            fputs("- ", f);
        fprintf(f, "%s %s\n", m->class_guid_text, m->name);
    }
    fclose(f);
    return s;
}

/* The problems as the tool prints them, with the tree's path shown as ROOT. */
static char *problems(const struct clrie_config *config, const char *root)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        fprintf(f, "%s:%u:%u: %s: %s\n", d->file, d->line, d->column,
                clrie_config_severity_string(d->severity), d->message);
    }
    fclose(f);
    if (!root)
        return s;
    char *r = relative_to(s, root);
    free(s);
    return r;
}

static void expect_list(const struct clrie_config *config, const char *expected)
{
    char *got = list(config);
    assert_string_equal(got, expected);
    free(got);
}

static void expect_problems(const struct clrie_config *config, const char *root,
                            const char *expected)
{
    char *got = problems(config, root);
    assert_string_equal(got, expected);
    free(got);
}

/* Loads text from memory as "t.config" with relative Modules resolved in root. */
static int load_text(struct clrie_config *config, const char *root, const char *text)
{
    return clrie_config_load_memory(config, text, strlen(text), "t.config", root, NULL);
}

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
    char *canonical = realpath(module, NULL);
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

/* --- modules ------------------------------------------------------------------------------- */

static void resolves_modules_relative_to_the_config_folder_or_absolute(void **state)
{
    char *root = new_tree();
    test_tree_mkdir(root, "conf/sub");
    write_text(root, "lib/real.so", "x");
    char *real = test_path(root, "lib/real.so");
    test_tree_symlink(root, "lib/link.so", "real.so");
    char *canonical = realpath(real, NULL);
    char *doc = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&doc, &n);
    fprintf(f,
            HEAD "<InstrumentationMethod><Name>Rel</Name><Module>../lib/real.so</Module>"
                 "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
                 "<InstrumentationMethod><Name>Dots</Name><Module>sub/../../lib/./link.so</Module>"
                 "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n"
                 "<InstrumentationMethod><Name>Abs</Name><Module>%s</Module>"
                 "<ClassGuid>" GUID_D "</ClassGuid></InstrumentationMethod>\n" TAIL,
            real);
    fclose(f);
    write_text(root, "conf/c.config", doc);
    /* A configuration reached through a symbolic link resolves from where the file is. */
    test_tree_mkdir(root, "elsewhere");
    char *target = test_path(root, "conf/c.config");
    test_tree_symlink(root, "elsewhere/c.config", target);
    char *via_link = test_path(root, "elsewhere/c.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, via_link, NULL), 0);
    expect_problems(config, root, "");
    assert_int_equal(clrie_config_method_count(config), 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(clrie_config_method_at(config, i)->module_path, canonical);
    assert_string_equal(clrie_config_method_at(config, 2)->module, real);
    clrie_config_free(config);
    free(doc);
    free(target);
    free(via_link);
    free(real);
    free(canonical);
    test_tree_free(root);
}

static void rejects_missing_and_non_file_modules(void **state)
{
    char *root = new_tree();
    test_tree_mkdir(root, "folder.so");
    test_tree_symlink(root, "dangling.so", "nowhere.so");
    const char *doc =
        HEAD "<InstrumentationMethod><Name>M</Name><Module>missing.so</Module>"
             "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>F</Name><Module>folder.so</Module>"
             "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>D</Name><Module>dangling.so</Module>"
             "<ClassGuid>" GUID_D "</ClassGuid></InstrumentationMethod>\n"
             "<InstrumentationMethod><Name>A</Name><Module>/no/such/plugin.so</Module>"
             "<ClassGuid>" GUID_A "</ClassGuid></InstrumentationMethod>\n" TAIL;
    write_text(root, "m.config", doc);
    char *path = test_path(root, "m.config");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, path, NULL), -EILSEQ);
    assert_int_equal(clrie_config_method_count(config), 0);
    char *canonical_root = realpath(root, NULL);
    char *got = problems(config, canonical_root);
    char *got2 = relative_to(got, root);
    assert_string_equal(
        got2,
        "ROOT/m.config:2:38: error: <Module> 'missing.so' (ROOT/missing.so): No such file or "
        "directory\n"
        "ROOT/m.config:3:38: error: <Module> 'folder.so' (ROOT/folder.so): not a regular file\n"
        "ROOT/m.config:4:38: error: <Module> 'dangling.so' (ROOT/dangling.so): No such file "
        "or directory\n"
        "ROOT/m.config:5:38: error: <Module> '/no/such/plugin.so' (/no/such/plugin.so): No "
        "such file or directory\n");
    free(got);
    free(got2);
    free(canonical_root);

    /* From memory without a folder, a relative Module cannot be resolved. */
    clrie_config_free(config);
    config = clrie_config_new();
    char *m = method("R", GUID_B, NULL);
    char *d = document(m, NULL);
    assert_int_equal(clrie_config_load_memory(config, d, strlen(d), NULL, NULL, NULL), -EILSEQ);
    expect_problems(config, NULL,
                    "<memory>:2:40: error: <Module> 'plugin.so' is relative, and there is no "
                    "folder to resolve it in\n");
    clrie_config_free(config);
    free(m);
    free(d);
    free(path);
    test_tree_free(root);
}

/* --- trust ---------------------------------------------------------------------------------- */

static void refuses_files_and_modules_others_can_change(void **state)
{
    char *root = new_tree();
    write_methods(root, "shared.config", 1, method("S", GUID_B, NULL));
    test_tree_chmod(root, "shared.config", 0664);
    write_methods(root, "foreign.config", 1, method("F", GUID_C, NULL));
    char *foreign = test_path(root, "foreign.config");
    assert_int_equal(chown(foreign, 65534, 65534), 0);
    char *shared = test_path(root, "shared.config");

    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, shared, NULL), -EACCES);
    assert_int_equal(clrie_config_load_file(config, foreign, NULL), -EPERM);
    assert_int_equal(clrie_config_method_count(config), 0);
    expect_problems(config, root,
                    "ROOT/shared.config:0:0: error: the file is writable by group or others "
                    "(owner 0, mode 0664); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n"
                    "ROOT/foreign.config:0:0: error: the file is owned by another user than the "
                    "current one or root (owner 65534, mode 0644); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n");
    clrie_config_free(config);

    /* Turned off, both load. */
    struct clrie_config_options off = {.trust_check = false};
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, shared, &off), 0);
    assert_int_equal(clrie_config_load_file(config, foreign, &off), 0);
    expect_list(config, "- " GUID_B " S\n- " GUID_C " F\n");
    clrie_config_free(config);

    /* The same for modules. */
    test_tree_chmod(root, "plugin.so", 0646);
    write_text(root, "owned.so", "x");
    char *owned = test_path(root, "owned.so");
    assert_int_equal(chown(owned, 65534, 0), 0);
    const char *doc = HEAD "<InstrumentationMethod><Name>W</Name><Module>plugin.so</Module>"
                           "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
                           "<InstrumentationMethod><Name>O</Name><Module>owned.so</Module>"
                           "<ClassGuid>" GUID_C "</ClassGuid></InstrumentationMethod>\n" TAIL;
    config = clrie_config_new();
    char *canonical_root = realpath(root, NULL);
    assert_int_equal(load_text(config, canonical_root, doc), -EILSEQ);
    expect_problems(config, canonical_root,
                    "t.config:2:38: error: <Module> 'plugin.so' (ROOT/plugin.so): writable by "
                    "group or others (owner 0, mode 0646); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n"
                    "t.config:3:38: error: <Module> 'owned.so' (ROOT/owned.so): owned by another "
                    "user than the current one or root (owner 65534, mode 0644); refused unless "
                    "MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1\n");
    clrie_config_free(config);
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, doc, strlen(doc), "t", canonical_root, &off),
                     0);
    assert_int_equal(clrie_config_method_count(config), 2);
    clrie_config_free(config);
    free(canonical_root);
    free(owned);
    free(shared);
    free(foreign);
    test_tree_free(root);
}

/* Runs fn in a child that is not root, so permission bits apply. */
static void as_ordinary_user(void (*fn)(const char *root), const char *root)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!test_drop_root())
            _exit(3);
        fn(root);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void check_unreadable(const char *root)
{
    struct clrie_config *config = clrie_config_new();
    char *file = test_path(root, "secret.config"), *folder = test_path(root, "locked");
    struct clrie_config_options off = {.trust_check = false};
    if (clrie_config_load_file(config, file, &off) != -EACCES)
        _exit(1);
    if (clrie_config_load_path(config, folder, &off) != -EACCES)
        _exit(2);
    char *got = problems(config, root);
    if (strcmp(got, "ROOT/secret.config:0:0: error: cannot open: Permission denied\n"
                    "ROOT/locked:0:0: error: cannot read the folder: Permission denied\n") != 0) {
        fprintf(stderr, "got: %s", got);
        _exit(4);
    }
    free(got);
    free(file);
    free(folder);
    clrie_config_free(config);
}

static void reports_unreadable_files_and_folders(void **state)
{
    char *root = new_tree();
    write_methods(root, "secret.config", 1, method("S", GUID_B, NULL));
    test_tree_chmod(root, "secret.config", 0600);
    write_methods(root, "locked/a.config", 1, method("L", GUID_B, NULL));
    test_tree_chmod(root, "locked", 0700);
    as_ordinary_user(check_unreadable, root);
    test_tree_free(root);
}

static void refuses_what_is_not_a_regular_file(void **state)
{
    char *root = new_tree();
    char *fifo = test_path(root, "pipe.config");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_file(config, fifo, NULL), -EINVAL); /* and no hang */
    assert_int_equal(clrie_config_load_file(config, root, NULL), -EISDIR);
    char *missing = test_path(root, "missing.config");
    assert_int_equal(clrie_config_load_file(config, missing, NULL), -ENOENT);
    expect_problems(config, root,
                    "ROOT/pipe.config:0:0: error: not a regular file\n"
                    "ROOT:0:0: error: is a folder, not a configuration file\n"
                    "ROOT/missing.config:0:0: error: cannot open: No such file or directory\n");
    assert_int_equal(clrie_config_load_file(NULL, fifo, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_file(config, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_path(config, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_memory(config, NULL, 3, NULL, NULL, NULL), -EINVAL);
    assert_int_equal(clrie_config_load_env(config, NULL), -EINVAL);
    assert_int_equal(clrie_config_diag_count(config), 3);
    clrie_config_free(config);
    clrie_config_free(NULL);
    assert_int_equal(clrie_config_method_count(NULL), 0);
    assert_null(clrie_config_diag_at(NULL, 0));
    free(fifo);
    free(missing);
    test_tree_free(root);
}

/* --- hostile files ---------------------------------------------------------------------------- */

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void refuses_doctypes_so_entity_bombs_and_external_entities_fail_fast(void **state)
{
    char *root = new_tree();
    write_text(root, "secret.txt", "TOPSECRET");
    char *secret = test_path(root, "secret.txt");
    char bomb[4096];
    size_t n = (size_t)snprintf(bomb, sizeof(bomb),
                                "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n"
                                " <!ENTITY lol \"lol\">\n");
    for (int i = 1; i < 10; i++) {
        n += (size_t)snprintf(bomb + n, sizeof(bomb) - n, " <!ENTITY lol%d \"", i);
        for (int j = 0; j < 10; j++)
            n += (size_t)snprintf(bomb + n, sizeof(bomb) - n, "&lol%.0d;", i - 1);
        n += (size_t)snprintf(bomb + n, sizeof(bomb) - n, "\">\n");
    }
    snprintf(bomb + n, sizeof(bomb) - n,
             "]>\n<InstrumentationEngineConfiguration><x>&lol9;</x>"
             "</InstrumentationEngineConfiguration>\n");
    char xxe[1024];
    snprintf(xxe, sizeof(xxe),
             "<!DOCTYPE InstrumentationEngineConfiguration [\n"
             "  <!ENTITY xxe SYSTEM \"file://%s\">]>\n" HEAD
             "<InstrumentationMethod><Name>&xxe;</Name><Module>plugin.so</Module>"
             "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>" TAIL,
             secret);
    char external_dtd[512];
    snprintf(external_dtd, sizeof(external_dtd),
             "<?xml version=\"1.0\"?>\n  <!DOCTYPE InstrumentationEngineConfiguration SYSTEM "
             "\"http://127.0.0.1:9/x.dtd\">\n" HEAD TAIL);
    const char *parameter = "<!DOCTYPE x [<!ENTITY % p SYSTEM \"/etc/passwd\"> %p;]><x/>";
    const char *docs[] = {bomb, xxe, external_dtd, parameter};
    const char *where[] = {"t.config:2:1: ", "t.config:1:1: ", "t.config:2:3: ", "t.config:1:1: "};
    for (size_t i = 0; i < 4; i++) {
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        struct clrie_config *config = clrie_config_new();
        assert_int_equal(load_text(config, root, docs[i]), -EILSEQ);
        assert_true(seconds_since(&start) < 1.0);
        char expected[256];
        snprintf(expected, sizeof(expected),
                 "%serror: a DOCTYPE is not allowed in a configuration file (no DTDs or "
                 "entities)\n",
                 where[i]);
        expect_problems(config, root, expected);
        clrie_config_free(config);
    }
    free(secret);
    test_tree_free(root);
}

static void survives_deep_nesting_and_huge_text(void **state)
{
    char *root = new_tree();
    /* 100000 nested elements: libxml2's depth limit stops it, nothing recurses with it. */
    size_t depth = 100000;
    char *deep = malloc(depth * 7 + 200);
    assert_non_null(deep);
    size_t n = (size_t)sprintf(deep, "%s", HEAD);
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(deep + n, "<a>");
    deep[n] = '\0';
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(load_text(config, root, deep), -EILSEQ);
    const struct clrie_config_diag *d = clrie_config_diag_at(config, 0);
    assert_non_null(strstr(d->message, "Excessive depth in document: 256"));
    assert_int_equal(d->line, 2);
    assert_true(seconds_since(&start) < 2.0);
    clrie_config_free(config);
    free(deep);

    /* A name of almost 1 MiB is still just a name. */
    size_t big = CLRIE_CONFIG_MAX_FILE_SIZE - 400;
    char *huge = malloc(CLRIE_CONFIG_MAX_FILE_SIZE + 2);
    assert_non_null(huge);
    static const char prefix[] = HEAD "<InstrumentationMethod><Name>";
    memcpy(huge, prefix, sizeof(prefix) - 1);
    n = sizeof(prefix) - 1;
    for (size_t i = 0; i < big; i++)
        huge[n + i] = 'N';
    n += big;
    n += (size_t)sprintf(huge + n, "</Name><Module>plugin.so</Module><ClassGuid>" GUID_B
                                   "</ClassGuid></InstrumentationMethod>" TAIL);
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, huge, n, "t", root, NULL), 0);
    assert_int_equal(strlen(clrie_config_method_at(config, 0)->name), big);
    clrie_config_free(config);

    /* One byte over the limit is refused unread, from memory and from a file. */
    memset(huge, ' ', CLRIE_CONFIG_MAX_FILE_SIZE + 1);
    memcpy(huge, HEAD TAIL, strlen(HEAD TAIL));
    config = clrie_config_new();
    assert_int_equal(
        clrie_config_load_memory(config, huge, CLRIE_CONFIG_MAX_FILE_SIZE + 1, "big", root, NULL),
        -EFBIG);
    test_tree_write(root, "big.config", huge, CLRIE_CONFIG_MAX_FILE_SIZE + 1);
    char *big_path = test_path(root, "big.config");
    assert_int_equal(clrie_config_load_file(config, big_path, NULL), -EFBIG);
    /* Exactly at the limit it is read. */
    test_tree_write(root, "limit.config", huge, CLRIE_CONFIG_MAX_FILE_SIZE);
    char *limit_path = test_path(root, "limit.config");
    assert_int_equal(clrie_config_load_file(config, limit_path, NULL), 0);
    expect_problems(config, root,
                    "big:0:0: error: the file is larger than 1048576 bytes\n"
                    "ROOT/big.config:0:0: error: the file is larger than 1048576 bytes\n"
                    "ROOT/limit.config:1:1: warning: no <InstrumentationMethod> in this file\n");
    clrie_config_free(config);
    free(big_path);
    free(limit_path);
    free(huge);
    test_tree_free(root);
}

static void stops_listing_after_a_hundred_problems(void **state)
{
    char *root = new_tree();
    size_t count = 200000; /* ~1 MiB of unknown elements on one line */
    char *text = malloc(count * 4 + 100);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "%s", HEAD);
    for (size_t i = 0; i < count; i++)
        n += (size_t)sprintf(text + n, "<u/>");
    n += (size_t)sprintf(text + n, TAIL);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, text, n, "t", root, NULL), -EILSEQ);
    assert_true(seconds_since(&start) < 3.0);
    assert_int_equal(clrie_config_diag_count(config), 101);
    const struct clrie_config_diag *last = clrie_config_diag_at(config, 100);
    assert_string_equal(last->message, "too many problems; the rest of this file is not checked");
    assert_int_equal(clrie_config_diag_at(config, 99)->column, 1 + 99 * 4);
    clrie_config_free(config);
    free(text);
    test_tree_free(root);
}

static void accepts_other_encodings_as_libxml2_does(void **state)
{
    char *root = new_tree();
    const char *latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" HEAD
                         "<InstrumentationMethod><Name>Caf\xe9</Name><Module>plugin.so</Module>"
                         "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\n"
                         "<Bad/>\n" TAIL;
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(load_text(config, root, latin1), -EILSEQ);
    /* Converted text has no byte offsets into the file: the line is known, the column not. */
    expect_problems(config, root,
                    "t.config:4:0: error: unknown element <Bad> in "
                    "<InstrumentationEngineConfiguration>; expected <InstrumentationMethod> or "
                    "<InstrumentationMethod64>\n");
    clrie_config_free(config);

    /* UTF-16 with a byte-order mark, as a Windows editor writes it. */
    const char *ascii = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n" HEAD
                        "<InstrumentationMethod><Name>Wide</Name><Module>plugin.so</Module>"
                        "<ClassGuid>" GUID_B "</ClassGuid></InstrumentationMethod>\r\n" TAIL;
    size_t len = strlen(ascii);
    char *wide = malloc(2 * len + 2);
    wide[0] = (char)0xFF;
    wide[1] = (char)0xFE;
    for (size_t i = 0; i < len; i++) {
        wide[2 + 2 * i] = ascii[i];
        wide[3 + 2 * i] = 0;
    }
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, wide, 2 * len + 2, "w", root, NULL), 0);
    expect_list(config, "- " GUID_B " Wide\n");
    /* Invalid bytes for the declared encoding are a problem, not a message on stderr. */
    wide[2 + 2 * (len - 5)] = 0;
    wide[3 + 2 * (len - 5)] = (char)0xDC; /* a lone low surrogate */
    assert_int_equal(clrie_config_load_memory(config, wide, 2 * len + 2, "w2", root, NULL),
                     -EILSEQ);
    assert_true(clrie_config_error_count(config) >= 1);
    clrie_config_free(config);
    free(wide);

    /* UTF-8 with a byte-order mark keeps exact columns. */
    config = clrie_config_new();
    assert_int_equal(load_text(config, root, "\xef\xbb\xbf<Root/>"), -EILSEQ);
    expect_problems(config, root,
                    "t.config:1:1: error: the root element is <Root>; expected "
                    "<InstrumentationEngineConfiguration>\n");
    clrie_config_free(config);
    test_tree_free(root);
}

/* --- folders and the environment ---------------------------------------------------------- */

static void a_folder_contributes_its_config_and_xml_files_in_name_order(void **state)
{
    char *root = new_tree();
    write_text(root, "dir/plugin.so", "x");
    write_methods(root, "dir/b.xml", 1, method("B", GUID_B, NULL));
    write_methods(root, "dir/a.config", 1, method("A", GUID_A, NULL));
    write_methods(root, "dir/C.xml", 1, method("C", GUID_C, NULL));
    write_text(root, "dir/notes.txt", "not a config");
    write_text(root, "dir/.hidden.xml", "<broken");
    write_text(root, "dir/x.config.bak", "<broken");
    write_methods(root, "dir/sub/d.config", 1, method("D", GUID_D, NULL));
    test_tree_mkdir(root, "empty");
    char *dir = test_path(root, "dir"), *empty = test_path(root, "empty");
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_path(config, dir, NULL), 0);
    assert_int_equal(clrie_config_load_path(config, empty, NULL), 0);
    expect_list(config, "- " GUID_C " C\n- " GUID_A " A\n- " GUID_B " B\n");
    expect_problems(config, root,
                    "ROOT/empty:0:0: warning: the folder has no *.config or *.xml file\n");
    clrie_config_free(config);
    free(dir);
    free(empty);
    test_tree_free(root);
}

static void discovers_from_the_environment_in_order(void **state)
{
    char *root = new_tree();
    write_methods(root, "first.config", 2,
                  method("F50", "{00000000-0000-0000-0000-000000000001}", "50"),
                  method("Fnone", "{00000000-0000-0000-0000-000000000002}", NULL));
    write_text(root, "list/plugin.so", "x");
    write_methods(root, "list/a.xml", 1,
                  method("A50", "{00000000-0000-0000-0000-000000000003}", "50"));
    write_methods(root, "list/b.config", 1,
                  method("B10", "{00000000-0000-0000-0000-000000000004}", "10"));
    write_methods(root, "second.config", 2,
                  method("S50", "{00000000-0000-0000-0000-000000000005}", "50"),
                  method("Dup", "{00000000-0000-0000-0000-000000000001}", "0"));
    write_methods(root, "ignored.config", 1, method("Ignored", GUID_D, NULL));
    char vars[6][1024];
    snprintf(vars[0], sizeof(vars[0]), "PATH=/usr/bin");
    snprintf(vars[1], sizeof(vars[1]), CLRIE_CONFIG_ENV_PREFIX "Zeta=%s/first.config", root);
    snprintf(vars[2], sizeof(vars[2]),
             "microsoftinstrumentationengine_configpath64_X=%s/ignored.config", root);
    snprintf(vars[3], sizeof(vars[3]), CLRIE_CONFIG_ENV_PREFIX "=%s/missing.config::%s/list", root,
             root);
    snprintf(vars[4], sizeof(vars[4]), CLRIE_CONFIG_ENV_PREFIX "A=%s/second.config", root);
    snprintf(vars[5], sizeof(vars[5]),
             "MicrosoftInstrumentationEngine_ConfigPath32_A=%s/ignored.config", root);
    char *envp[] = {vars[0], vars[1], vars[2], vars[3], vars[4], vars[5], NULL};
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, envp), -ENOENT);
    expect_list(config, "10 {00000000-0000-0000-0000-000000000004} B10\n"
                        "50 {00000000-0000-0000-0000-000000000001} F50\n"
                        "50 {00000000-0000-0000-0000-000000000003} A50\n"
                        "50 {00000000-0000-0000-0000-000000000005} S50\n"
                        "- {00000000-0000-0000-0000-000000000002} Fnone\n");
    expect_problems(config, root,
                    "ROOT/missing.config:0:0: error: cannot open: No such file or directory "
                    "(listed in " CLRIE_CONFIG_ENV_PREFIX ")\n" CLRIE_CONFIG_ENV_PREFIX
                    ":0:0: warning: an empty entry in the path list is "
                    "ignored\n"
                    "ROOT/second.config:3:3: warning: ClassGuid "
                    "{00000000-0000-0000-0000-000000000001} is already declared by 'F50' at "
                    "ROOT/first.config:2:3; 'Dup' is ignored\n");
    clrie_config_free(config);

    char *none[] = {vars[0], NULL};
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, none), 0);
    assert_int_equal(clrie_config_method_count(config), 0);
    assert_int_equal(clrie_config_diag_count(config), 0);
    clrie_config_free(config);
    test_tree_free(root);
}

static void the_environment_can_turn_the_trust_check_off(void **state)
{
    char *root = new_tree();
    write_methods(root, "open.config", 1, method("Open", GUID_B, NULL));
    test_tree_chmod(root, "open.config", 0666);
    char var[1024];
    snprintf(var, sizeof(var), CLRIE_CONFIG_ENV_PREFIX "=%s/open.config", root);
    char off[] = CLRIE_CONFIG_ENV_DISABLE_TRUST "=1";
    char not_one[] = CLRIE_CONFIG_ENV_DISABLE_TRUST "=true";
    char *checked[] = {var, not_one, NULL};
    char *unchecked[] = {var, off, NULL};
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, checked), -EACCES);
    assert_int_equal(clrie_config_method_count(config), 0);
    assert_non_null(
        strstr(clrie_config_diag_at(config, 0)->message, "writable by group or others"));
    clrie_config_free(config);
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_env(config, unchecked), 0);
    expect_list(config, "- " GUID_B " Open\n");
    clrie_config_free(config);
    test_tree_free(root);
}

/* --- sharing the process ------------------------------------------------------------------- */

struct thread_job {
    const char *path;
    int failures;
};

static void *load_many(void *arg)
{
    struct thread_job *job = arg;
    for (int i = 0; i < 40; i++) {
        struct clrie_config *config = clrie_config_new();
        int r = clrie_config_load_path(config, job->path, NULL);
        if (r != -EILSEQ || clrie_config_method_count(config) != 2 ||
            clrie_config_diag_count(config) != 2)
            job->failures++;
        clrie_config_free(config);
    }
    return NULL;
}

static void loads_from_several_threads_at_once(void **state)
{
    char *root = new_tree();
    write_text(root, "dir/plugin.so", "x");
    write_methods(root, "dir/a.config", 2, method("A", GUID_A, "2"), method("B", GUID_B, "1"));
    write_text(root, "dir/b.config", HEAD "<x>&bad;</x>" TAIL);
    write_text(root, "dir/c.config", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Nope/>");
    char *dir = test_path(root, "dir");
    pthread_t threads[4];
    struct thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (struct thread_job){.path = dir};
        assert_int_equal(pthread_create(&threads[i], NULL, load_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL); /* all of them before any assertion can leave */
    for (int i = 0; i < 4; i++)
        assert_int_equal(jobs[i].failures, 0);
    free(dir);
    test_tree_free(root);
}

static int host_messages;

static void host_handler(void *ctx, const char *msg, ...)
{
    host_messages++;
}

static void leaves_the_hosts_libxml2_alone(void **state)
{
    /* The host has its own generic error handler and parses documents of its own. */
    xmlInitParser();
    int marker;
    xmlSetGenericErrorFunc(&marker, host_handler);
    char *root = new_tree();
    static const char *const bad[] = {
        HEAD "<x>&bad;</x>" TAIL,
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><x/>",
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\xff<x/>",
        "\xfe\xff\x00<\xdc\x00",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct clrie_config *config = clrie_config_new();
        assert_int_equal(load_text(config, root, bad[i]), -EILSEQ);
        clrie_config_free(config);
    }
    assert_int_equal(host_messages, 0);
    assert_ptr_equal(xmlGenericError, host_handler);
    assert_ptr_equal(xmlGenericErrorContext, &marker);
    /* The parser was not cleaned up under the host's feet. */
    xmlDocPtr own = xmlReadMemory("<own/>", 6, NULL, NULL, XML_PARSE_NONET);
    assert_non_null(own);
    xmlFreeDoc(own);
    xmlSetGenericErrorFunc(NULL, NULL);
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
        cmocka_unit_test(resolves_modules_relative_to_the_config_folder_or_absolute),
        cmocka_unit_test(rejects_missing_and_non_file_modules),
        cmocka_unit_test(refuses_files_and_modules_others_can_change),
        cmocka_unit_test(reports_unreadable_files_and_folders),
        cmocka_unit_test(refuses_what_is_not_a_regular_file),
        cmocka_unit_test(refuses_doctypes_so_entity_bombs_and_external_entities_fail_fast),
        cmocka_unit_test(survives_deep_nesting_and_huge_text),
        cmocka_unit_test(stops_listing_after_a_hundred_problems),
        cmocka_unit_test(accepts_other_encodings_as_libxml2_does),
        cmocka_unit_test(a_folder_contributes_its_config_and_xml_files_in_name_order),
        cmocka_unit_test(discovers_from_the_environment_in_order),
        cmocka_unit_test(the_environment_can_turn_the_trust_check_off),
        cmocka_unit_test(loads_from_several_threads_at_once),
        cmocka_unit_test(leaves_the_hosts_libxml2_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
