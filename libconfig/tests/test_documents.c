/* libconfig on the documents a parser must survive, on every system: doctypes and entity
 * bombs, deep nesting, huge text and files over the limit, floods of problems, megabyte lines
 * and attribute floods in linear time, other encodings; and sharing the process, with threads
 * and with the host's own libxml2. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "clrie/config.h"
#include "clrie/os/process.h"
#include "clrie/os/thread.h"
#include "helpers.h"
#include "support.h"

/* --- hostile and huge documents ------------------------------------------------------------ */

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
        uint64_t start = clrie_os_monotonic_ns();
        struct clrie_config *config = clrie_config_new();
        assert_int_equal(load_text(config, root, docs[i]), -EILSEQ);
        assert_true(seconds_since(start) < 1.0);
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
    uint64_t start = clrie_os_monotonic_ns();
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(load_text(config, root, deep), -EILSEQ);
    const struct clrie_config_diag *d = clrie_config_diag_at(config, 0);
    assert_non_null(strstr(d->message, "Excessive depth in document: 256"));
    assert_int_equal(d->line, 2);
    assert_true(seconds_since(start) < 2.0);
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
    uint64_t start = clrie_os_monotonic_ns();
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, text, n, "t", root, NULL), -EILSEQ);
    assert_true(seconds_since(start) < 3.0);
    assert_int_equal(clrie_config_diag_count(config), 101);
    const struct clrie_config_diag *last = clrie_config_diag_at(config, 100);
    assert_string_equal(last->message, "too many problems; the rest of this file is not checked");
    assert_int_equal(clrie_config_diag_at(config, 99)->column, 1 + 99 * 4);
    clrie_config_free(config);
    free(text);
    test_tree_free(root);
}

/* The parser's time is measured without the trust rule, which is not the parser's and calls
 * into the system for every folder above each module. */
static const struct clrie_config_options untrusted = {.trust_check = false};

/* Seconds a method costs here beyond the parser: resolving its Module, a few calls into the
 * system (under Wine each a round trip to its server, a millisecond or more), measured on 64
 * methods one per line. */
static double seconds_per_module(const char *root)
{
    struct text doc = {0};
    text_append(&doc, "%s", HEAD);
    for (unsigned i = 0; i < 64; i++)
        text_append(&doc,
                    "<InstrumentationMethod><Name>m</Name><Module>plugin.so</Module>"
                    "<ClassGuid>{00000000-0000-0000-0000-%012X}</ClassGuid>"
                    "</InstrumentationMethod>\n",
                    i);
    text_append(&doc, "%s", TAIL);
    uint64_t start = clrie_os_monotonic_ns();
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, doc.data, doc.len, "t", root, &untrusted), 0);
    double seconds = seconds_since(start) / 64;
    clrie_config_free(config);
    free(doc.data);
    return seconds;
}

static void checks_a_megabyte_on_one_line_in_linear_time(void **state)
{
    /* Regressions: columns were counted from the start of the line for every element, and
     * setting names compared pair by pair; such files took 15 and 25 seconds. The budget is
     * the parser's, on top of what resolving each method's Module costs on this system. */
    char *root = new_tree();
    double per_module = seconds_per_module(root);
    struct text methods = {0};
    text_append(&methods, "%s", HEAD);
    size_t count = 0, last = 0;
    while (methods.len < CLRIE_CONFIG_MAX_FILE_SIZE - 200)
        last = methods.len,
        text_append(
            &methods,
            "<InstrumentationMethod><Name>m</Name><Module>plugin.so</Module>"
            "<ClassGuid>{00000000-0000-0000-0000-%012zX}</ClassGuid></InstrumentationMethod>",
            count++);
    text_append(&methods, "%s", TAIL);
    uint64_t start = clrie_os_monotonic_ns();
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(
        clrie_config_load_memory(config, methods.data, methods.len, "t", root, &untrusted), 0);
    assert_int_equal(clrie_config_method_count(config), count);
    assert_int_equal(clrie_config_method_at(config, count - 1)->column, last - strlen(HEAD) + 1);
    assert_true(seconds_since(start) < 5.0 + 2 * (double)count * per_module);
    clrie_config_free(config);

    struct text settings = {0};
    text_append(&settings, HEAD "<InstrumentationMethod><Name>s</Name><Module>plugin.so</Module>"
                                "<ClassGuid>" GUID_B "</ClassGuid><Settings>");
    count = 0;
    while (settings.len < CLRIE_CONFIG_MAX_FILE_SIZE - 200)
        text_append(&settings, "<Setting Name=\"n%zu\" Value=\"v\"/>", count++);
    text_append(&settings,
                "<Setting Name=\"n0\" Value=\"again\"/></Settings></InstrumentationMethod>" TAIL);
    start = clrie_os_monotonic_ns();
    config = clrie_config_new();
    assert_int_equal(
        clrie_config_load_memory(config, settings.data, settings.len, "t", root, &untrusted), 0);
    const struct clrie_config_method *m = clrie_config_method_at(config, 0);
    assert_int_equal(m->setting_count, count);
    assert_string_equal(m->settings[count - 1].value, "v");
    assert_int_equal(clrie_config_diag_count(config), 1);
    assert_string_equal(clrie_config_diag_at(config, 0)->message,
                        "Setting 'n0' is already given in this method; this one is ignored");
    assert_true(seconds_since(start) < 5.0);
    clrie_config_free(config);
    free(methods.data);
    free(settings.data);
    test_tree_free(root);
}

static void refuses_a_tag_with_hundreds_of_attributes_before_parsing(void **state)
{
    /* Regression: libxml2 2.9 compares attributes pair by pair; a megabyte of them took more
     * than a minute. */
    char *root = new_tree();
    struct text t = {0};
    text_append(&t,
                "<?xml version=\"1.0\"?><!-- a > b = c -->\n<InstrumentationEngineConfiguration");
    for (size_t i = 0; t.len < CLRIE_CONFIG_MAX_FILE_SIZE - 100; i++)
        text_append(&t, " a%zu=\"=\"", i);
    text_append(&t, "/>");
    uint64_t start = clrie_os_monotonic_ns();
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, t.data, t.len, "t", root, NULL), -EILSEQ);
    assert_true(seconds_since(start) < 1.0);
    expect_problems(config, root,
                    "t:2:1: error: an element with more than 256 attributes (configuration "
                    "elements have at most 2); the file is not parsed\n");
    clrie_config_free(config);

    /* 256 are still left to libxml2, and '=' in text, comments or values does not count. */
    t.len = 0;
    text_append(&t, "<!-- = = = -->" HEAD "<x");
    for (size_t i = 0; i < 256; i++)
        text_append(&t, " a%zu='=>'", i);
    text_append(&t, ">%s</x>" TAIL,
                "= = = = = = = = = = = = = = = = = = = = = = = = = = = = = = = =");
    config = clrie_config_new();
    assert_int_equal(clrie_config_load_memory(config, t.data, t.len, "t", root, NULL), -EILSEQ);
    assert_int_equal(clrie_config_error_count(config), 1); /* and a warning: no methods */
    const struct clrie_config_diag *d = clrie_config_diag_at(config, 1);
    if (!strstr(d->message, "unknown element <x>"))
        fail_msg("%u:%u: %s", d->line, d->column, d->message);
    clrie_config_free(config);
    free(t.data);
    test_tree_free(root);
}

static void accepts_other_encodings_as_libxml2_does(void **state)
{
    char *root = new_tree();
    const char *latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" HEAD
                         "<InstrumentationMethod><Name>Caf\xe9</Name><Module>plugin.so</Module>"
                         "<ClassGuid>" GUID_B "</ClassGuid>\n<Priority>\xe9</Priority>"
                         "</InstrumentationMethod>\n"
                         "<Bad/>\n" TAIL;
    struct clrie_config *config = clrie_config_new();
    assert_int_equal(load_text(config, root, latin1), -EILSEQ);
    /* Converted text has no byte offsets into the file: the line is known, the column not
     * (where the text is not the same bytes in the file, as the priority here). */
    expect_problems(config, root,
                    "t.config:4:0: error: <Priority> '\xc3\xa9' is not a whole number from 0 to "
                    "4294967295\n"
                    "t.config:5:0: error: unknown element <Bad> in "
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

/* --- sharing the process ------------------------------------------------------------------- */

struct thread_job {
    const char *path;
    int failures;
};

static void load_many(void *arg)
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
}

static void loads_from_several_threads_at_once(void **state)
{
    char *root = new_tree();
    write_text(root, "dir/plugin.so", "x");
    write_methods(root, "dir/a.config", 2, method("A", GUID_A, "2"), method("B", GUID_B, "1"));
    write_text(root, "dir/b.config", HEAD "<x>&bad;</x>" TAIL);
    write_text(root, "dir/c.config", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Nope/>");
    char *dir = test_path(root, "dir");
    struct clrie_os_thread threads[4];
    struct thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (struct thread_job){.path = dir};
        assert_int_equal(clrie_os_thread_start(&threads[i], load_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        clrie_os_thread_join(&threads[i]); /* all of them before any assertion can leave */
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
        cmocka_unit_test(refuses_doctypes_so_entity_bombs_and_external_entities_fail_fast),
        cmocka_unit_test(survives_deep_nesting_and_huge_text),
        cmocka_unit_test(stops_listing_after_a_hundred_problems),
        cmocka_unit_test(checks_a_megabyte_on_one_line_in_linear_time),
        cmocka_unit_test(refuses_a_tag_with_hundreds_of_attributes_before_parsing),
        cmocka_unit_test(accepts_other_encodings_as_libxml2_does),
        cmocka_unit_test(loads_from_several_threads_at_once),
        cmocka_unit_test(leaves_the_hosts_libxml2_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
