/* Which methods the points name and, for a point that names none, the nearest candidates
 * (match.c), over a small assembly built byte by byte (libilgraph/tool/tests/builder.h: Ns.C
 * with .ctor, Fat(int32, int32), Chain<T>(T), Abstract without IL, and Ns.C+Inner::M) read
 * through clrie-tracer-check's IMetaDataImport (check/assembly_import.c); and the one-line
 * form of the managed library's log messages. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assembly.h"
#include "assembly_import.h"
#include "builder.h"
#include "match.h"
#include "support.h"

struct fixture {
    struct built built;
    struct asm_assembly *assembly;
    IMetaDataImport *import;
    struct clrie_tracer_points points;
};

static void open_built(struct fixture *f, bool method_ptr)
{
    struct build_options options = {.method_ptr = method_ptr};
    assert_int_equal(clrie_il__test_assembly_build(&options, &f->built), 0);
    assert_int_equal(asm_assembly_new(f->built.data, f->built.len, &f->assembly, NULL), 0);
    assert_int_equal(clrie_tracer_check_import_new(f->assembly, &f->import), 0);
}

static void close_built(struct fixture *f)
{
    clrie_tracer_points_finish(&f->points);
    f->import->lpVtbl->Release(f->import);
    asm_assembly_free(f->assembly);
    free(f->built.data);
}

/* One point of assembly "built" naming type::method (parameters NULL: any). */
static void point(struct fixture *f, const char *type, const char *method, const char *parameters)
{
    char xml[1024];
    char with[300] = "";
    if (parameters)
        snprintf(with, sizeof with, " parameters=\"%s\"", parameters);
    snprintf(xml, sizeof xml,
             "<Tracing><Tracer factory=\"F\"><Method assembly=\"Built\" type=\"%s\" name=\"%s\"%s/>"
             "</Tracer></Tracing>",
             type, method, with);
    assert_int_equal(
        clrie_tracer_points_load_memory(&f->points, "/p/a.xml", xml, strlen(xml), NULL, NULL), 0);
}

struct matches {
    char text[1024];
};

static void record(void *data, size_t point, mdMethodDef token, const char *type,
                   const char *method, const char *parameters)
{
    struct matches *m = data;
    size_t used = strlen(m->text);
    snprintf(m->text + used, sizeof m->text - used, "%zu %08X %s::%s(%s);", point, (unsigned)token,
             type, method, parameters ? parameters : "?");
}

static void matches_what_the_plugin_traces(bool method_ptr)
{
    struct fixture f = {0};
    open_built(&f, method_ptr);
    point(&f, "Ns.C", "Fat", NULL);
    point(&f, "Ns.C", "Fat", "System.Int32, System.Int32");
    point(&f, "Ns.C", "Chain", "!!0");
    point(&f, "Ns.C+Inner", "M", "");
    point(&f, "Ns.C", "Abstract", NULL); /* no IL: never traced */
    point(&f, "Ns.C", "Fat", "System.Int64");
    size_t counts[6] = {0};
    struct matches m = {""};
    /* the assembly's name is compared ignoring ASCII case, as in the plugin */
    assert_int_equal(clrie_tracer_match_module(f.import, "built", &f.points, counts, record, &m),
                     0);
    assert_string_equal(m.text, "0 06000002 Ns.C::Fat(System.Int32,System.Int32);"
                                "1 06000002 Ns.C::Fat(System.Int32,System.Int32);"
                                "2 06000003 Ns.C::Chain(!!0);"
                                "3 06000005 Ns.C+Inner::M();");
    size_t expected[6] = {1, 1, 1, 1, 0, 0};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(counts[i], expected[i]);
    /* another assembly's module matches nothing */
    size_t none[6] = {0};
    assert_int_equal(clrie_tracer_match_module(f.import, "Other", &f.points, none, NULL, NULL), 0);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(none[i], 0);
    close_built(&f);
}

static void matches_as_the_plugin_does(void **state)
{
    (void)state;
    matches_what_the_plugin_traces(false);
}

static void matches_through_a_method_ptr_table(void **state)
{
    (void)state;
    matches_what_the_plugin_traces(true);
}

/* The explanation of the single point of a fixture. */
static const char *explain(struct fixture *f, char *out, size_t size)
{
    assert_int_equal(
        clrie_tracer_explain_unmatched(f->import, "Built", &f->points.items[0], out, size), 0);
    return out;
}

static void other_parameters_are_offered_as_parameters_would_need_them(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[512];
    open_built(&f, false);
    point(&f, "Ns.C", "Fat", "System.Int64");
    assert_string_equal(explain(&f, out, sizeof out),
                        "Ns.C::Fat takes parameters=\"System.Int32,System.Int32\"");
    char named[128];
    clrie_tracer_point_text(&f.points.items[0], named, sizeof named);
    assert_string_equal(named, "Ns.C::Fat(System.Int64)");
    close_built(&f);
}

static void a_wrong_name_gets_the_nearest_names_of_the_type(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[512];
    open_built(&f, false);
    point(&f, "Ns.C", "Chian", NULL);
    /* Chain is 2 edits away; Fat (4), .ctor (5) and Abstract (7) are too far to offer */
    assert_string_equal(explain(&f, out, sizeof out), "Ns.C has no method Chian; nearest: Chain");
    close_built(&f);
}

static void a_name_near_none_gets_the_three_nearest_all_the_same(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[512];
    open_built(&f, false);
    point(&f, "Ns.C", "Xyzzy", NULL);
    /* .ctor, Chain and Fat are each 5 edits away (then by name), Abstract 8 */
    assert_string_equal(explain(&f, out, sizeof out),
                        "Ns.C has no method Xyzzy; nearest: .ctor, Chain, Fat");
    close_built(&f);
}

static void a_wrong_type_gets_the_nearest_types(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[512];
    open_built(&f, false);
    point(&f, "Ns.D", "Fat", NULL);
    /* Ns.C is 1 edit away, Ns.C+Inner 7; <Module> is never offered */
    assert_string_equal(explain(&f, out, sizeof out),
                        "no type Ns.D in assembly Built; nearest: Ns.C");
    close_built(&f);
}

static void a_method_without_il_says_so(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[512];
    open_built(&f, false);
    point(&f, "Ns.C", "Abstract", NULL);
    assert_string_equal(
        explain(&f, out, sizeof out),
        "Ns.C::Abstract has no IL (abstract, extern or runtime-implemented): never traced");
    close_built(&f);
}

static void the_explanation_is_cut_to_fit(void **state)
{
    (void)state;
    struct fixture f = {0};
    char out[20];
    open_built(&f, false);
    point(&f, "Ns.D", "Fat", NULL);
    assert_string_equal(explain(&f, out, sizeof out), "no type Ns.D in ass");
    close_built(&f);
}

static void edit_distance(void **state)
{
    (void)state;
    assert_int_equal(clrie_tracer_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(clrie_tracer_edit_distance("", "Add"), 3);
    assert_int_equal(clrie_tracer_edit_distance("Add", "Add"), 0);
    assert_int_equal(clrie_tracer_edit_distance("Ad", "Add"), 1);
}

static void a_message_becomes_one_line(void **state)
{
    (void)state;
    char out[32];
    clrie_tracer_one_line("cannot make\nthe factory\r\tX", out, sizeof out);
    assert_string_equal(out, "cannot make the factory  X");
    /* cut with "...", never inside a UTF-8 character (é is two bytes) */
    clrie_tracer_one_line("0123456789012345678901234567é89", out, sizeof out);
    assert_string_equal(out, "0123456789012345678901234567...");
    clrie_tracer_one_line("012345678901234567890123456é789", out, sizeof out);
    assert_string_equal(out, "012345678901234567890123456...");
    clrie_tracer_one_line("", out, sizeof out);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_as_the_plugin_does),
        cmocka_unit_test(matches_through_a_method_ptr_table),
        cmocka_unit_test(other_parameters_are_offered_as_parameters_would_need_them),
        cmocka_unit_test(a_wrong_name_gets_the_nearest_names_of_the_type),
        cmocka_unit_test(a_name_near_none_gets_the_three_nearest_all_the_same),
        cmocka_unit_test(a_wrong_type_gets_the_nearest_types),
        cmocka_unit_test(a_method_without_il_says_so),
        cmocka_unit_test(the_explanation_is_cut_to_fit),
        cmocka_unit_test(edit_distance),
        cmocka_unit_test(a_message_becomes_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
