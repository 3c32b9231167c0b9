/* The tracer plugin's points files: what a good file yields, and that a bad one is reported at
 * its file:line:col and adds nothing while the other files of the folder still count. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/fs.h"
#include "points.h"
#include "support.h"

struct seen {
    char lines[8][600];
    size_t count;
};

static void record(void *data, const char *file, unsigned line, unsigned column,
                   const char *message)
{
    struct seen *s = data;
    if (s->count < 8)
        snprintf(s->lines[s->count], sizeof s->lines[0], "%s:%u:%u: %s", file, line, column,
                 message);
    s->count++;
}

static int load(struct clrie_tracer_points *points, const char *text, struct seen *seen)
{
    return clrie_tracer_points_load_memory(points, "/etc/tracing/app.xml", text, strlen(text),
                                           record, seen);
}

/* Loads a file that must be refused (-EILSEQ) with no point and one line reported: that line. */
static const char *refused_with_one_line(const char *text, struct seen *seen)
{
    struct clrie_tracer_points points = {0};
    assert_int_equal(load(&points, text, seen), -EILSEQ);
    assert_int_equal(points.count, 0);
    assert_int_equal(seen->count, 1);
    return seen->lines[0];
}

static void a_good_file_gives_one_point_per_method(void **state)
{
    (void)state;
    const char *text =
        "<?xml version=\"1.0\"?>\n"
        "<!-- what to trace -->\n"
        "<Tracing>\n"
        "  <Tracer factory=\"Sample.Recorder\" library=\"lib/Recorder.dll\">\n"
        "    <Method assembly=\"Sample\" type=\"Sample.Program\" name=\"Sum\"/>\n"
        "    <Method assembly=\"Sample\" type=\"Sample.Program+Inner\"\n"
        "            name=\"Add\" parameters=\" System.Int32, !!0[] \"/>\n"
        "  </Tracer>\n"
        "  <Tracer factory=\"Other.Factory, Other\">\n"
        "    <Method assembly=\"System.Net.Http\" type=\"System.Net.Http.HttpClient\""
        " name=\"SendAsync\"/>\n"
        "  </Tracer>\n"
        "</Tracing>\n";
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    assert_int_equal(load(&points, text, &seen), 0);
    assert_int_equal(seen.count, 0);
    assert_int_equal(points.count, 3);
    const struct clrie_tracer_point *p = &points.items[0];
    assert_string_equal(p->factory, "Sample.Recorder");
    assert_string_equal(p->library, "/etc/tracing/lib/Recorder.dll");
    assert_string_equal(p->assembly, "Sample");
    assert_string_equal(p->type, "Sample.Program");
    assert_string_equal(p->method, "Sum");
    assert_null(p->parameters);
    assert_int_equal(p->line, 5);
    assert_int_equal(p->column, 5);
    p = &points.items[1];
    assert_string_equal(p->type, "Sample.Program+Inner");
    assert_string_equal(p->parameters, "System.Int32,!!0[]");
    assert_int_equal(p->line, 6);
    assert_int_equal(p->column, 5);
    p = &points.items[2];
    assert_null(p->library);
    assert_string_equal(p->factory, "Other.Factory, Other");
    clrie_tracer_points_finish(&points);
}

static void overloads_are_told_apart_by_their_parameter_types(void **state)
{
    (void)state;
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    assert_int_equal(
        load(&points,
             "<Tracing><Tracer factory=\"F\">"
             "<Method assembly=\"A\" type=\"N.T\" name=\"M\" parameters=\"System.Int32,"
             " System.String\"/>"
             "<Method assembly=\"A\" type=\"N.T\" name=\"Any\"/>"
             "<Method assembly=\"A\" type=\"N.T\" name=\"None\" parameters=\"\"/>"
             "</Tracer></Tracing>",
             &seen),
        0);
    const struct clrie_tracer_point *m = &points.items[0], *any = &points.items[1],
                                    *none = &points.items[2];
    assert_true(clrie_tracer_point_matches(m, "a", "N.T", "M", "System.Int32, System.String"));
    assert_false(clrie_tracer_point_matches(m, "A", "N.T", "M", "System.Int32"));
    assert_false(clrie_tracer_point_matches(m, "A", "N.T", "M", NULL));
    assert_false(clrie_tracer_point_matches(m, "A", "N.t", "M", "System.Int32,System.String"));
    assert_true(clrie_tracer_point_matches(any, "A", "N.T", "Any", "System.Int64"));
    assert_true(clrie_tracer_point_matches(any, "A", "N.T", "Any", NULL));
    assert_true(clrie_tracer_point_matches(none, "A", "N.T", "None", ""));
    assert_false(clrie_tracer_point_matches(none, "A", "N.T", "None", "System.Int32"));
    clrie_tracer_points_finish(&points);
}

static void malformed_xml_is_reported_at_its_line_and_column(void **state)
{
    (void)state;
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    assert_int_equal(load(&points,
                          "<Tracing>\n"
                          "  <Tracer factory=\"F\">\n"
                          "    <Method assembly=\"A\" type=\"T\" name=\"M\">\n"
                          "  </Tracer>\n"
                          "</Tracing>\n",
                          &seen),
                     -EILSEQ);
    assert_int_equal(points.count, 0);
    assert_true(seen.count >= 1);
    assert_non_null(strstr(seen.lines[0], "/etc/tracing/app.xml:4:"));
    assert_non_null(strstr(seen.lines[0], "Method"));
}

/* A file in another encoding than UTF-8 gets the places of its problems too (they were 0:0). */
static void a_latin1_file_is_reported_at_its_line_and_column(void **state)
{
    (void)state;
    struct seen seen = {0};
    assert_string_equal(refused_with_one_line("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
                                              "<Tracing>\n"
                                              "  <Tracer factory=\"Caf\xe9\">\n"
                                              "    <Method assembly=\"A\" name=\"M\"/>\n"
                                              "  </Tracer>\n"
                                              "</Tracing>\n",
                                              &seen),
                        "/etc/tracing/app.xml:4:5: <Method> needs a non-empty 'type' attribute");
    struct clrie_tracer_points points = {0};
    assert_int_equal(load(&points,
                          "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
                          "<Tracing>\n"
                          "  <Tracer factory=\"Caf\xe9\">\n"
                          "    <Method assembly=\"A\" type=\"T\" name=\"M\"/>\n"
                          "  </Tracer>\n"
                          "</Tracing>\n",
                          &seen),
                     0);
    assert_int_equal(points.count, 1);
    assert_int_equal(points.items[0].line, 4);
    assert_int_equal(points.items[0].column, 5);
    assert_string_equal(points.items[0].factory, "Caf\xc3\xa9");
    clrie_tracer_points_finish(&points);
}

/* libxml2 reports bytes that the declared encoding (through iconv) cannot convert without a
 * parser context: the file was refused without a word (found by fuzz/fuzz_points.c). It is
 * refused with a line that names it. */
static void an_unsupported_encoding_is_reported(void **state)
{
    (void)state;
    struct seen seen = {0};
    const char *line =
        refused_with_one_line("<?xml version=\"1.0\" encoding=\"utf8-\"?>\n"
                              "<Tracing>\n"
                              "  <Tracer factory=\"F\">\n"
                              "    <Method assembly=\"A\" type=\"Shop.Order\xa4s\" name=\"M\"/>\n"
                              "  </Tracer>\n"
                              "</Tracing>\n",
                              &seen);
    /* glibc's iconv takes the name and fails on the bytes (no position then); a libxml2
     * without iconv (the musl build) refuses the name where it stands. */
    assert_non_null(strstr(line, "/etc/tracing/app.xml:"));
    bool by_iconv = strstr(line, "/etc/tracing/app.xml:0:0: ") && strstr(line, "conversion failed");
    bool by_name =
        strstr(line, "/etc/tracing/app.xml:1:37: ") && strstr(line, "Unsupported encoding utf8-");
    assert_true(by_iconv || by_name);
}

static void a_missing_attribute_names_the_element_and_adds_nothing(void **state)
{
    (void)state;
    struct seen seen = {0};
    assert_string_equal(
        refused_with_one_line("<Tracing>\n"
                              "  <Tracer factory=\"F\">\n"
                              "    <Method assembly=\"A\" type=\"T\" name=\"Fine\"/>\n"
                              "      <Method assembly=\"A\" name=\"M\"/>\n"
                              "  </Tracer>\n"
                              "</Tracing>\n",
                              &seen),
        "/etc/tracing/app.xml:4:7: <Method> needs a non-empty 'type' attribute");
}

static void unknown_elements_and_attributes_are_reported(void **state)
{
    (void)state;
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    assert_int_equal(load(&points,
                          "<Tracing>\n"
                          "  <Tracer factory=\"F\" libary=\"x.dll\">\n"
                          "    <Methods assembly=\"A\" type=\"T\" name=\"M\"/>\n"
                          "  </Tracer>\n"
                          "</Tracing>\n",
                          &seen),
                     -EILSEQ);
    assert_int_equal(seen.count, 3);
    assert_string_equal(seen.lines[0],
                        "/etc/tracing/app.xml:2:3: <Tracer> has no attribute 'libary'");
    assert_string_equal(seen.lines[1], "/etc/tracing/app.xml:3:5: unknown element <Methods> in "
                                       "<Tracer>: expected <Method>");
    assert_string_equal(seen.lines[2], "/etc/tracing/app.xml:2:3: <Tracer> names no <Method>");
    assert_int_equal(points.count, 0);
}

static void a_wrong_root_and_a_doctype_are_refused(void **state)
{
    (void)state;
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    assert_int_equal(load(&points, "<Tracers/>", &seen), -EILSEQ);
    assert_string_equal(
        seen.lines[0],
        "/etc/tracing/app.xml:1:1: the root element is <Tracers>: expected <Tracing>");
    seen.count = 0;
    assert_int_equal(load(&points, "<!DOCTYPE Tracing [<!ENTITY x \"y\">]>\n<Tracing/>", &seen),
                     -EILSEQ);
    assert_true(seen.count >= 1);
    assert_int_equal(points.count, 0);
}

static void a_bad_file_in_the_folder_leaves_the_others_in_force(void **state)
{
    (void)state;
    /* A folder named outside ASCII ("ü-中"): the points load through UTF-8 paths. */
    char *root = test_tree_new();
    const char *good = "<Tracing><Tracer factory=\"F\">"
                       "<Method assembly=\"A\" type=\"T\" name=\"One\"/></Tracer></Tracing>";
    const char *bad = "<Tracing>\n<Tracer factory=\"F\">\n<Method assembly=\"A\" type=\"T\" "
                      "name=\"Two\"/></Tracer>\n</Tracin>\n";
    test_tree_write(root, "\xc3\xbc-\xe4\xb8\xad/a.xml", good, strlen(good));
    test_tree_write(root, "\xc3\xbc-\xe4\xb8\xad/b.xml", bad, strlen(bad));
    test_tree_write(root, "\xc3\xbc-\xe4\xb8\xad/notes.txt", "not a points file", 17);
    char *folder = test_path(root, "\xc3\xbc-\xe4\xb8\xad");
    char a[512], b[512];
    snprintf(a, sizeof a, "%s%ca.xml", folder, CLRIE_OS_SEPARATOR);
    snprintf(b, sizeof b, "%s%cb.xml", folder, CLRIE_OS_SEPARATOR);
    struct clrie_tracer_points points = {0};
    struct seen seen = {0};
    size_t files = 0;
    assert_int_equal(clrie_tracer_points_load_folder(&points, folder, record, &seen, &files), 0);
    assert_int_equal(files, 1);
    assert_int_equal(points.count, 1);
    assert_string_equal(points.items[0].method, "One");
    assert_string_equal(points.items[0].file, a);
    assert_true(seen.count >= 1);
    char expected[560];
    snprintf(expected, sizeof expected, "%s:4:", b);
    assert_non_null(strstr(seen.lines[0], expected));
    clrie_tracer_points_finish(&points);

    char *missing = test_path(root, "missing");
    seen.count = 0;
    assert_int_equal(clrie_tracer_points_load_folder(&points, missing, record, &seen, NULL),
                     -ENOENT);
    assert_int_equal(seen.count, 1);
    free(missing);
    free(folder);
    test_tree_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_file_gives_one_point_per_method),
        cmocka_unit_test(overloads_are_told_apart_by_their_parameter_types),
        cmocka_unit_test(malformed_xml_is_reported_at_its_line_and_column),
        cmocka_unit_test(an_unsupported_encoding_is_reported),
        cmocka_unit_test(a_latin1_file_is_reported_at_its_line_and_column),
        cmocka_unit_test(a_missing_attribute_names_the_element_and_adds_nothing),
        cmocka_unit_test(unknown_elements_and_attributes_are_reported),
        cmocka_unit_test(a_wrong_root_and_a_doctype_are_refused),
        cmocka_unit_test(a_bad_file_in_the_folder_leaves_the_others_in_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
