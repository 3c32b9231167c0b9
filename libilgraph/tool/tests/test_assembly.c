/* The assembly reader on hand-made assemblies: what it reads from a valid one, and that
 * each kind of damage is refused with a diagnostic naming the place, never a crash. */
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
#include "builder.h"
#include "support.h"

static struct built build(const struct build_options *options)
{
    struct built b;
    assert_int_equal(clrie_il__test_assembly_build(options, &b), 0);
    return b;
}

static struct asm_assembly *open_ok(const struct built *b)
{
    struct asm_assembly *a = NULL;
    struct asm_diag diag = {0};
    int r = asm_assembly_new(b->data, b->len, &a, &diag);
    if (r != 0)
        fail_msg("open failed: %d at 0x%zX: %s", r, diag.offset, diag.message);
    return a;
}

/* Opening fails with -EILSEQ, a message containing expected, and an offset in the file. */
static void assert_rejected(const uint8_t *data, size_t len, const char *expected)
{
    struct asm_assembly *a = NULL;
    struct asm_diag diag = {0};
    int r = asm_assembly_new(data, len, &a, &diag);
    if (r != -EILSEQ)
        fail_msg("expected -EILSEQ mentioning '%s', got %d", expected, r);
    assert_null(a);
    assert_true(diag.offset <= len);
    if (!strstr(diag.message, expected))
        fail_msg("message '%s' does not mention '%s'", diag.message, expected);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void check_valid_assembly(const struct build_options *options)
{
    struct built b = build(options);
    struct asm_assembly *a = open_ok(&b);
    const struct asm_info *info = asm_assembly_info(a);
    assert_int_equal(info->pe32_plus, options->pe32_plus);
    assert_false(info->ready_to_run);
    assert_int_equal(info->uncompressed_tables, options->method_ptr);
    assert_string_equal(info->metadata_version, "v4.0.30319");
    assert_int_equal(info->metadata_offset, b.metadata_at);

    struct asm_module module;
    assert_int_equal(asm_module_get(a, &module, NULL), 0);
    assert_string_equal(module.name, "test.dll");
    assert_non_null(module.mvid);
    assert_int_equal(module.mvid[0], 1);
    assert_int_equal(module.mvid[15], 16);

    assert_int_equal(asm_table_rows(a, ASM_TABLE_TYPE_DEF), 3);
    assert_int_equal(asm_table_rows(a, ASM_TABLE_METHOD_DEF), 5);
    struct asm_typedef t;
    assert_int_equal(asm_typedef_get(a, 2, &t, NULL), 0);
    assert_string_equal(t.name, "C");
    assert_string_equal(t.namespace_, "Ns");
    assert_int_equal(t.extends, ASM_TOKEN(ASM_TABLE_TYPE_REF, 1));
    assert_int_equal(t.method_list, 1);
    assert_int_equal(t.method_count, 4);
    assert_int_equal(t.enclosing, 0);
    assert_int_equal(asm_typedef_get(a, 3, &t, NULL), 0);
    assert_int_equal(t.enclosing, 2);
    assert_int_equal(t.method_count, 1);
    assert_int_equal(asm_typedef_get(a, 4, &t, NULL), -ENOENT);

    for (uint32_t row = 1; row <= BUILT_METHODS; row++) {
        struct asm_methoddef m;
        assert_int_equal(asm_methoddef_get(a, row, &m, NULL), 0);
        assert_int_equal(m.rva, b.body_rva[row]);
        assert_int_equal(m.owner, row == 5 ? 3 : 2);
        struct asm_body body;
        struct asm_diag diag;
        int r = asm_method_body(a, row, &body, &diag);
        if (row == 4) {
            assert_int_equal(r, -ENOENT);
            continue;
        }
        assert_int_equal(r, 0);
        assert_ptr_equal(body.start, b.data + b.body_at[row]);
        assert_int_equal(body.file_offset, b.body_at[row]);
        assert_int_equal(body.len, b.body_len[row]);
        assert_int_equal(body.code_size, b.code_size[row]);
    }
    struct asm_body body;
    assert_int_equal(asm_method_body(a, 2, &body, NULL), 0);
    assert_true(body.fat);
    assert_true(body.init_locals);
    assert_int_equal(body.max_stack, 2);
    assert_int_equal(body.local_sig_token, 0x11000001);
    assert_int_equal(body.section_count, 1);
    assert_ptr_equal(body.sections, body.start + 24);
    assert_int_equal(body.sections_len, 16);
    assert_int_equal(asm_method_body(a, 3, &body, NULL), 0);
    assert_int_equal(body.section_count, 2);
    assert_false(body.init_locals);
    assert_int_equal(asm_method_body(a, 1, &body, NULL), 0);
    assert_false(body.fat);
    assert_int_equal(body.max_stack, 8);
    assert_int_equal(body.local_sig_token, 0);
    assert_ptr_equal(body.code, body.start + 1);
    assert_int_equal(asm_method_body(a, 6, &body, NULL), -ENOENT);

    struct asm_memberref ref;
    assert_int_equal(asm_memberref_get(a, 2, &ref, NULL), 0);
    assert_int_equal(ref.parent, ASM_TOKEN(ASM_TABLE_TYPE_SPEC, 1));
    assert_string_equal(ref.name, "Add");
    struct asm_methodspec spec;
    assert_int_equal(asm_methodspec_get(a, 1, &spec, NULL), 0);
    assert_int_equal(spec.method, ASM_TOKEN(ASM_TABLE_METHOD_DEF, 3));
    assert_int_equal(spec.instantiation.len, 3);
    struct asm_typeref tr;
    assert_int_equal(asm_typeref_get(a, 2, &tr, NULL), 0);
    assert_string_equal(tr.namespace_, "System.Collections.Generic");
    assert_int_equal(tr.resolution_scope, ASM_TOKEN(ASM_TABLE_ASSEMBLY_REF, 1));
    struct asm_blob blob;
    assert_int_equal(asm_standalonesig_get(a, 1, &blob, NULL), 0);
    assert_int_equal(blob.len, 3);
    assert_int_equal(blob.data[0], 0x07);
    assert_int_equal(asm_typespec_get(a, 1, &blob, NULL), 0);
    assert_int_equal(blob.data[0], 0x15);
    assert_int_equal(asm_user_string(a, 1, &blob, NULL), 0);
    assert_int_equal(blob.len, 4);
    assert_memory_equal(blob.data, "h\0i\0", 4);
    struct asm_field field;
    assert_int_equal(asm_field_get(a, 1, &field, NULL), 0);
    assert_string_equal(field.name, "count");
    assert_int_equal(field.owner, 2);
    asm_assembly_free(a);
    free(b.data);
}

static void reads_a_hand_made_pe32_assembly(void **state)
{
    check_valid_assembly(&(struct build_options){0});
}

static void reads_a_hand_made_pe32_plus_assembly(void **state)
{
    check_valid_assembly(&(struct build_options){.pe32_plus = true});
}

static void reads_wide_heap_indexes(void **state)
{
    check_valid_assembly(&(struct build_options){.wide_heaps = true});
}

static void follows_the_method_pointer_table_of_uncompressed_metadata(void **state)
{
    check_valid_assembly(&(struct build_options){.method_ptr = true, .pe32_plus = true});
}

/* Coded indexes become 4 bytes when a table they can name reaches 2^(16 - tag bits) rows:
 * TypeRef rows at and either side of the thresholds of MemberRefParent (3 bits) and of
 * ResolutionScope and TypeDefOrRef (2 bits). */
static void sizes_coded_indexes_at_their_thresholds(void **state)
{
    static const uint32_t type_refs[] = {8191, 8192, 16383, 16384};
    for (size_t i = 0; i < sizeof(type_refs) / sizeof(type_refs[0]); i++) {
        struct build_options options = {.extra_type_refs = type_refs[i] - 2};
        check_valid_assembly(&options);
        struct built b = build(&options);
        struct asm_assembly *a = open_ok(&b);
        assert_int_equal(asm_table_rows(a, ASM_TABLE_TYPE_REF), type_refs[i]);
        char name[128];
        assert_int_equal(asm_token_name(a, 0x0A000002, name, sizeof(name), NULL), 0);
        assert_string_equal(name, "System.Collections.Generic.List`1::Add");
        assert_int_equal(asm_token_name(a, ASM_TOKEN(ASM_TABLE_TYPE_REF, type_refs[i]), name,
                                        sizeof(name), NULL),
                         0);
        assert_string_equal(name, "System.");
        asm_assembly_free(a);
        free(b.data);
    }
}

static void assert_name(const struct asm_assembly *a, uint32_t token, const char *expected)
{
    char buf[256];
    struct asm_diag diag = {0};
    int r = asm_token_name(a, token, buf, sizeof(buf), &diag);
    if (r != 0)
        fail_msg("name of 0x%08X: %d %s", token, r, diag.message);
    assert_string_equal(buf, expected);
}

static void names_methods_types_and_references(void **state)
{
    struct built b = build(NULL);
    struct asm_assembly *a = open_ok(&b);
    assert_name(a, 0x06000001, "Ns.C::.ctor");
    assert_name(a, 0x06000002, "Ns.C::Fat");
    assert_name(a, 0x06000005, "Ns.C/Inner::M");
    assert_name(a, 0x02000001, "<Module>");
    assert_name(a, 0x02000003, "Ns.C/Inner");
    assert_name(a, 0x04000001, "Ns.C::count");
    assert_name(a, 0x01000002, "System.Collections.Generic.List`1");
    assert_name(a, 0x0A000001, "System.Object::.ctor");
    assert_name(a, 0x0A000002, "System.Collections.Generic.List`1::Add");
    assert_name(a, 0x2B000001, "Ns.C::Chain");
    assert_name(a, 0x1B000001, "System.Collections.Generic.List`1");

    /* a vararg call site: the MemberRef's parent is the MethodDef itself (tag 3) */
    put16(b.data + b.memberref_rows_at + 2 * b.memberref_row_size, (5 << 3) | 3);
    assert_name(a, 0x0A000003, "Ns.C/Inner::f");
    put16(b.data + b.memberref_rows_at + 2 * b.memberref_row_size, (1 << 3) | 2); /* ModuleRef */
    struct asm_diag diag = {0};
    char small[8];
    assert_int_equal(asm_token_name(a, 0x0A000003, small, sizeof(small), &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "does not exist"));

    assert_int_equal(asm_token_name(a, 0x06000002, small, sizeof(small), NULL), -ERANGE);
    assert_string_equal(small, "Ns.C::F");
    assert_int_equal(asm_token_name(a, 0x06000009, small, sizeof(small), NULL), -ENOENT);
    assert_int_equal(asm_token_name(a, 0x70000001, small, sizeof(small), NULL), -EINVAL);
    asm_assembly_free(a);
    free(b.data);
}

static struct clrie_il_method_sig sig_ok(const struct asm_assembly *a, uint32_t token)
{
    struct clrie_il_method_sig s;
    struct asm_diag diag = {0};
    int r = asm_token_method_sig(a, token, &s, &diag);
    if (r != 0)
        fail_msg("signature of 0x%08X: %d %s", token, r, diag.message);
    return s;
}

static void summarises_call_site_signatures(void **state)
{
    struct built b = build(NULL);
    struct asm_assembly *a = open_ok(&b);
    struct clrie_il_method_sig s = sig_ok(a, 0x06000001);
    assert_true(s.has_this);
    assert_int_equal(s.param_count, 0);
    assert_true(s.returns_void);

    s = sig_ok(a, 0x06000002); /* modopt before the return type is skipped */
    assert_false(s.has_this);
    assert_int_equal(s.param_count, 2);
    assert_false(s.returns_void);

    s = sig_ok(a, 0x06000003);
    assert_true(s.calling_convention & CLRIE_IL_CALLCONV_GENERIC);
    assert_int_equal(s.generic_count, 1);
    assert_int_equal(s.param_count, 1);
    assert_true(s.returns_void);

    s = sig_ok(a, 0x06000005);
    assert_int_equal(s.calling_convention & CLRIE_IL_CALLCONV_KIND_MASK, CLRIE_IL_CALLCONV_VARARG);

    s = sig_ok(a, 0x0A000002);
    assert_true(s.has_this);
    assert_int_equal(s.param_count, 1);

    s = sig_ok(a, 0x2B000001); /* MethodSpec: its generic method's signature */
    assert_true(s.calling_convention & CLRIE_IL_CALLCONV_GENERIC);
    assert_int_equal(s.param_count, 1);

    s = sig_ok(a, 0x11000002); /* calli */
    assert_int_equal(s.param_count, 1);
    assert_false(s.returns_void);

    struct asm_diag diag = {0};
    assert_int_equal(asm_token_method_sig(a, 0x11000001, &s, &diag), -EILSEQ); /* locals */
    assert_non_null(strstr(diag.message, "not a method"));
    assert_int_equal(asm_token_method_sig(a, 0x0A000003, &s, &diag), -EILSEQ); /* a field */
    assert_int_equal(asm_token_method_sig(a, 0x02000001, &s, &diag), -EINVAL);
    assert_int_equal(asm_token_method_sig(a, 0x0A000009, &s, &diag), -ENOENT);
    asm_assembly_free(a);
    free(b.data);
}

static void decodes_compressed_integers(void **state)
{
    static const struct {
        uint8_t bytes[4];
        size_t len;
        uint32_t value;
        size_t used;
    } good[] = {
        {{0x03}, 1, 0x03, 1},
        {{0x7F}, 1, 0x7F, 1},
        {{0x80, 0x80}, 2, 0x80, 2},
        {{0xBF, 0xFF}, 2, 0x3FFF, 2},
        {{0xC0, 0x00, 0x40, 0x00}, 4, 0x4000, 4},
        {{0xDF, 0xFF, 0xFF, 0xFF}, 4, 0x1FFFFFFF, 4},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint32_t v;
        size_t used;
        assert_int_equal(clrie_il_sig_read_uint(good[i].bytes, good[i].len, &v, &used), 0);
        assert_int_equal(v, good[i].value);
        assert_int_equal(used, good[i].used);
    }
    static const uint8_t bad[] = {0xE0, 0x80, 0xC0, 0x00, 0x00};
    uint32_t v;
    size_t used;
    assert_int_equal(clrie_il_sig_read_uint(bad, 4, &v, &used), -EILSEQ);     /* 111xxxxx */
    assert_int_equal(clrie_il_sig_read_uint(bad + 1, 1, &v, &used), -EILSEQ); /* cut short */
    assert_int_equal(clrie_il_sig_read_uint(bad + 2, 3, &v, &used), -EILSEQ);
    assert_int_equal(clrie_il_sig_read_uint(bad, 0, &v, &used), -EILSEQ);

    struct clrie_il_method_sig s;
    struct clrie_il_diag diag;
    static const uint8_t cmod_only[] = {0x00, 0x01, 0x1F, 0x05};
    assert_int_equal(clrie_il_sig_parse_method(cmod_only, sizeof(cmod_only), &s, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "return type"));
    static const uint8_t two_cmods[] = {0x20, 0x00, 0x1F, 0x05, 0x20, 0x09, 0x01};
    assert_int_equal(clrie_il_sig_parse_method(two_cmods, sizeof(two_cmods), &s, &diag), 0);
    assert_true(s.returns_void);
    assert_int_equal(clrie_il_sig_parse_method(two_cmods, 0, &s, &diag), -EILSEQ);
}

/* Every prefix of a valid file either opens (only padding was cut) or is refused; an
 * opened prefix still bounds every body inside what is there. */
static void refuses_every_truncation_cleanly(void **state)
{
    struct built b = build(NULL);
    for (size_t len = 0; len < b.len; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, b.data, len);
        struct asm_assembly *a = NULL;
        struct asm_diag diag = {0};
        int r = asm_assembly_new(copy, len, &a, &diag);
        if (r == 0) {
            assert_true(len >= b.metadata_at);
            for (uint32_t row = 1; row <= BUILT_METHODS; row++) {
                struct asm_body body;
                if (asm_method_body(a, row, &body, &diag) == 0)
                    assert_true(body.start + body.len <= copy + len);
            }
            asm_assembly_free(a);
        } else {
            assert_int_equal(r, -EILSEQ);
            assert_true(diag.offset <= len);
            assert_true(strlen(diag.message) > 0);
        }
        free(copy);
    }
    free(b.data);
}

static void refuses_broken_pe_headers(void **state)
{
    struct built b = build(NULL);
    uint8_t *d = b.data;

    assert_rejected(d, 10, "shorter than a DOS header");
    d[0] = 'Z';
    assert_rejected(d, b.len, "MZ");
    d[0] = 'M';

    put32(d + b.lfanew_at, 0xFFFFFFF0); /* PE header offset past the end, and overflowing */
    assert_rejected(d, b.len, "PE header offset");
    put32(d + b.lfanew_at, 0x80);

    d[0x81] = 'X';
    assert_rejected(d, b.len, "PE signature");
    d[0x81] = 'E';

    put16(d + b.optional_at, 0x107);
    assert_rejected(d, b.len, "neither PE32");
    put16(d + b.optional_at, 0x10B);

    put32(d + b.directory_count_at, 14);
    assert_rejected(d, b.len, "no CLI header");
    put32(d + b.directory_count_at, 0x40000000);
    assert_rejected(d, b.len, "do not fit");
    put32(d + b.directory_count_at, 16);

    put16(d + 0x80 + 6, 0); /* no sections */
    assert_rejected(d, b.len, "no sections");
    put16(d + 0x80 + 6, 0xFFFF);
    assert_rejected(d, b.len, "section table");
    put16(d + 0x80 + 6, 1);

    put32(d + b.cli_directory_at, 0x9000); /* CLI header RVA outside every section */
    assert_rejected(d, b.len, "not inside any section");
    put32(d + b.cli_directory_at, 0);
    assert_rejected(d, b.len, "not a .NET assembly");
    put32(d + b.cli_directory_at, 0x2000);

    uint32_t raw_size = b.text_raw_size;
    put32(d + b.sections_at + 16, 0x20); /* raw data shorter than the CLI header needs */
    assert_rejected(d, b.len, "CLI header");
    put32(d + b.sections_at + 16, raw_size);

    put32(d + b.sections_at + 20, 0xFFFFFF00); /* raw data past the end of the file */
    assert_rejected(d, b.len, "past the end of the file");
    put32(d + b.sections_at + 20, b.text_raw_at);

    put32(d + b.cli_at + 12, 0x00100000); /* metadata bigger than its section */
    assert_rejected(d, b.len, "metadata");
    put32(d + b.cli_at + 8, 0x1000); /* metadata RVA below the section */
    assert_rejected(d, b.len, "not inside any section");

    free(b.data);
}

static void refuses_broken_metadata(void **state)
{
    struct built b = build(NULL);
    uint8_t *d = b.data;
    uint8_t *root = d + b.metadata_at;

    root[0] = 'X';
    assert_rejected(d, b.len, "BSJB");
    root[0] = 'B';

    put32(root + 12, 13);
    assert_rejected(d, b.len, "version length");
    put32(root + 12, 12);

    uint8_t *first_stream = d + b.stream_headers_at; /* #~ */
    uint32_t offset = 0, size = 0;
    memcpy(&offset, first_stream, 4);
    memcpy(&size, first_stream + 4, 4);
    put32(first_stream + 4, 0x7FFFFFFF);
    assert_rejected(d, b.len, "runs past the metadata");
    put32(first_stream + 4, size);

    first_stream[9] = 'X'; /* "#~" -> "#X": no table stream */
    assert_rejected(d, b.len, "no table stream");
    first_stream[9] = '~';

    put16(root + 30, 200); /* more stream headers than there are */
    assert_rejected(d, b.len, "stream");
    put16(root + 30, 5);
    free(b.data);
}

static void refuses_bogus_row_counts(void **state)
{
    struct built b = build(NULL);
    uint8_t *d = b.data;
    uint8_t *counts = d + b.row_counts_at; /* Module, TypeRef, TypeDef, Field, MethodDef... */

    put32(counts + 8, 0x01000000); /* TypeDef: more rows than a token can name */
    assert_rejected(d, b.len, "more than a token can address");
    put32(counts + 8, 0x00FFFFFF); /* fits a token, and wide indexes, but not the stream */
    assert_rejected(d, b.len, "runs past the table stream");
    put32(counts + 8, 3);

    put32(counts, 0x00FFFFFF); /* Module: rows * row size must not wrap */
    assert_rejected(d, b.len, "table 0x00");
    put32(counts, 1);

    uint8_t *valid = d + b.tables_at + 8;
    valid[6] |= 0x80; /* table 0x37: unknown to ECMA-335 II.22 */
    assert_rejected(d, b.len, "does not know");
    valid[6] &= 0x7F;

    /* TypeDef 3's method list before TypeDef 2's */
    uint8_t *typedef3 = d + b.typedef_rows_at + 2 * b.typedef_row_size;
    put16(typedef3 + 12, 0);
    assert_rejected(d, b.len, "lists method rows");
    put16(typedef3 + 12, 7);
    assert_rejected(d, b.len, "out of order");
    put16(typedef3 + 12, 5);

    put16(d + b.nested_rows_at + 2, 9); /* enclosing type that does not exist */
    assert_rejected(d, b.len, "NestedClass");
    put16(d + b.nested_rows_at + 2, 3); /* a type enclosing itself */
    assert_rejected(d, b.len, "NestedClass");
    put16(d + b.nested_rows_at + 2, 2);

    struct asm_assembly *a = open_ok(&b);
    asm_assembly_free(a);
    free(b.data);
}

static void refuses_heap_indexes_out_of_range(void **state)
{
    struct built b = build(NULL);
    uint8_t *d = b.data;
    uint8_t *method2 = d + b.methoddef_rows_at + b.methoddef_row_size;
    struct asm_diag diag = {0};
    struct asm_methoddef m;

    put16(method2 + 8, 0xFFFF); /* name index */
    struct asm_assembly *a = open_ok(&b);
    assert_int_equal(asm_methoddef_get(a, 2, &m, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "outside #Strings"));
    char name[64];
    assert_int_equal(asm_token_name(a, 0x06000002, name, sizeof(name), &diag), -EILSEQ);
    asm_assembly_free(a);

    /* a name that runs to the end of #Strings without a NUL */
    put16(method2 + 8, (uint16_t)(b.strings_size - 1));
    d[b.strings_at + b.strings_size - 1] = 'x';
    a = open_ok(&b);
    assert_int_equal(asm_methoddef_get(a, 2, &m, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "without a NUL"));
    asm_assembly_free(a);
    d[b.strings_at + b.strings_size - 1] = 0;
    put16(method2 + 8, 1);

    put16(method2 + 10, 0xFFFF); /* signature index */
    a = open_ok(&b);
    assert_int_equal(asm_methoddef_get(a, 2, &m, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "#Blob"));
    struct clrie_il_method_sig s;
    assert_int_equal(asm_token_method_sig(a, 0x06000002, &s, &diag), -EILSEQ);
    asm_assembly_free(a);

    /* a blob whose length runs past the heap */
    put16(method2 + 10, (uint16_t)(b.blobs_size - 1));
    d[b.blobs_at + b.blobs_size - 1] = 0x7F;
    a = open_ok(&b);
    assert_int_equal(asm_methoddef_get(a, 2, &m, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "runs past the heap"));
    asm_assembly_free(a);

    /* a MemberRef parent whose tag names no table */
    uint8_t *memberref1 = d + b.memberref_rows_at;
    put16(memberref1, (1 << 3) | 6);
    a = open_ok(&b);
    struct asm_memberref ref;
    assert_int_equal(asm_memberref_get(a, 1, &ref, &diag), -EILSEQ);
    assert_non_null(strstr(diag.message, "names no table"));
    put16(memberref1, (9 << 3) | 1); /* TypeRef 9 does not exist */
    assert_int_equal(asm_token_name(a, 0x0A000001, name, sizeof(name), &diag), -EILSEQ);
    asm_assembly_free(a);

    assert_int_equal(asm_guid(a = open_ok(&b), 2, &(const uint8_t *){NULL}, &diag), -EILSEQ);
    assert_int_equal(asm_user_string(a, 1000, &(struct asm_blob){0}, &diag), -EILSEQ);
    asm_assembly_free(a);
    free(b.data);
}

/* The body of MethodDef row fails with -EILSEQ and a message containing expected. */
static void assert_body_rejected(const struct built *b, uint32_t row, const char *expected)
{
    struct asm_assembly *a = open_ok(b);
    struct asm_body body;
    struct asm_diag diag = {0};
    int r = asm_method_body(a, row, &body, &diag);
    if (r != -EILSEQ)
        fail_msg("body %u: expected -EILSEQ mentioning '%s', got %d", row, expected, r);
    assert_true(diag.offset <= b->len);
    if (!strstr(diag.message, expected))
        fail_msg("message '%s' does not mention '%s'", diag.message, expected);
    asm_assembly_free(a);
}

static void refuses_bodies_that_run_past_their_section(void **state)
{
    struct built b = build(NULL);
    uint8_t *d = b.data;
    uint8_t *method_rva = d + b.methoddef_rows_at;
    size_t row = b.methoddef_row_size;

    put32(method_rva + 1 * row, 0x00900000); /* MethodDef 2 RVA outside every section */
    assert_body_rejected(&b, 2, "not inside any section");
    put32(method_rva + 1 * row, b.body_rva[2]);

    uint8_t *fat = d + b.body_at[2];
    put32(fat + 4, 0xFFFFFFF0); /* code size */
    assert_body_rejected(&b, 2, "code bytes runs past");
    put32(fat + 4, 11);

    fat[1] = 0x40; /* header size 4 dwords */
    assert_body_rejected(&b, 2, "not 3");
    fat[1] = 0x30;

    fat[24] |= 0x40; /* EH section made fat: 65535 bytes, past the section's end */
    fat[24 + 1] = 0xFF;
    fat[24 + 2] = 0xFF;
    assert_body_rejected(&b, 2, "data section 1");
    fat[24] &= 0x3F;
    fat[24 + 2] = 0;
    fat[24 + 1] = 2; /* smaller than its header */
    assert_body_rejected(&b, 2, "smaller than its own");
    fat[24 + 1] = 0x10;

    uint8_t *chain = d + b.body_at[3];
    chain[32 + 3] = 0x7F; /* the fat section's 3-byte size, now ~8 MiB */
    assert_body_rejected(&b, 3, "data section 2");
    chain[32 + 3] = 0;
    uint8_t chain_copy[60];
    memcpy(chain_copy, chain, sizeof(chain_copy));
    chain_copy[32] |= 0x80; /* MoreSects on the last section: the chain runs off the end */
    struct asm_diag diag;
    struct asm_body body;
    assert_int_equal(asm_body_parse(chain_copy, sizeof(chain_copy), &body, &diag), -EILSEQ);
    assert_int_equal(diag.offset, 60);
    assert_non_null(strstr(diag.message, "data section 3"));

    uint8_t *tiny = d + b.body_at[1];
    tiny[0] = 0x00; /* neither tiny nor fat */
    assert_body_rejected(&b, 1, "neither tiny");
    tiny[0] = 0x1E;

    /* a tiny body claiming more code than is left in the section */
    /* the last two bytes of the section's virtual extent (the #Blob heap's padding) */
    size_t end = b.text_raw_at + b.text_len;
    put32(method_rva, b.text_rva + (uint32_t)b.text_len - 2);
    d[end - 2] = 0xFE; /* tiny, 63 bytes of code */
    assert_body_rejected(&b, 1, "tiny method body");
    d[end - 2] = 0x06; /* tiny ret: fits exactly */
    d[end - 1] = 0x2A;
    struct asm_assembly *a = open_ok(&b);
    assert_int_equal(asm_method_body(a, 1, &body, NULL), 0);
    assert_int_equal(body.len, 2);
    assert_ptr_equal(body.start + body.len, d + end);
    asm_assembly_free(a);

    /* the same fat body parsed bare, cut inside its EH section: offsets relative to it */
    assert_int_equal(asm_body_parse(fat, 39, &body, &diag), -EILSEQ);
    assert_int_equal(diag.offset, 24);
    assert_int_equal(asm_body_parse(fat, 40, &body, &diag), 0);
    assert_int_equal(body.len, 40);
    free(b.data);
}

static void parses_bare_bodies_exactly(void **state)
{
    static const uint8_t fat_no_sections[] = {0x03, 0x30, 0x04, 0x00, 0x01, 0x00, 0x00,
                                              0x00, 0x00, 0x00, 0x00, 0x00, 0x2A};
    struct asm_body body;
    struct asm_diag diag;
    assert_int_equal(asm_body_parse(fat_no_sections, sizeof(fat_no_sections), &body, &diag), 0);
    assert_int_equal(body.len, 13);
    assert_int_equal(body.max_stack, 4);
    assert_null(body.sections);
    assert_int_equal(asm_body_parse(fat_no_sections, 12, &body, &diag), -EILSEQ);
    assert_int_equal(diag.offset, 4);
    assert_int_equal(asm_body_parse(fat_no_sections, 0, &body, &diag), -EILSEQ);

    /* MoreSects with the section header cut off after the padding */
    static const uint8_t cut[] = {0x0B, 0x30, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x01, 0x04};
    assert_int_equal(asm_body_parse(cut, sizeof(cut), &body, &diag), -EILSEQ);
    assert_int_equal(diag.offset, 16);
    /* an empty small section (no clauses) is 4 bytes */
    static const uint8_t empty_section[] = {0x0B, 0x30, 0x01, 0x00, 0x01, 0x00, 0x00,
                                            0x00, 0x00, 0x00, 0x00, 0x00, 0x2A, 0x00,
                                            0x00, 0x00, 0x01, 0x04, 0x00, 0x00};
    assert_int_equal(asm_body_parse(empty_section, sizeof(empty_section), &body, &diag), 0);
    assert_int_equal(body.len, 20);
    assert_int_equal(body.section_count, 1);
}

static void reads_files_and_refuses_huge_ones(void **state)
{
    struct built b = build(NULL);
    char *root = test_tree_new();
    test_tree_write(root, "ok.dll", b.data, b.len);
    char *path = test_path(root, "ok.dll");
    struct asm_assembly *a = NULL;
    struct asm_diag diag = {0};
    assert_int_equal(asm_assembly_new_from_file(path, &a, &diag), 0);
    assert_int_equal(asm_assembly_bytes(a).len, b.len);
    asm_assembly_free(a);
    free(path);

    path = test_path(root, "missing.dll");
    assert_int_equal(asm_assembly_new_from_file(path, &a, &diag), -ENOENT);
    free(path);
    assert_int_equal(asm_assembly_new_from_file(root, &a, &diag), -EINVAL);

    test_tree_sparse(root, "huge.dll", (uint64_t)ASM_MAX_FILE_SIZE + 1);
    path = test_path(root, "huge.dll");
    assert_int_equal(asm_assembly_new_from_file(path, &a, &diag), -EFBIG);
    free(path);

    path = test_path(root, "garbage.dll");
    test_tree_write(root, "garbage.dll", "MZ", 2);
    assert_int_equal(asm_assembly_new_from_file(path, &a, &diag), -EILSEQ);
    free(path);

    asm_assembly_free(NULL);
    assert_int_equal(asm_assembly_new(NULL, 0, &a, &diag), -EINVAL);
    test_tree_free(root);
    free(b.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_hand_made_pe32_assembly),
        cmocka_unit_test(reads_a_hand_made_pe32_plus_assembly),
        cmocka_unit_test(reads_wide_heap_indexes),
        cmocka_unit_test(follows_the_method_pointer_table_of_uncompressed_metadata),
        cmocka_unit_test(sizes_coded_indexes_at_their_thresholds),
        cmocka_unit_test(names_methods_types_and_references),
        cmocka_unit_test(summarises_call_site_signatures),
        cmocka_unit_test(decodes_compressed_integers),
        cmocka_unit_test(refuses_every_truncation_cleanly),
        cmocka_unit_test(refuses_broken_pe_headers),
        cmocka_unit_test(refuses_broken_metadata),
        cmocka_unit_test(refuses_bogus_row_counts),
        cmocka_unit_test(refuses_heap_indexes_out_of_range),
        cmocka_unit_test(refuses_bodies_that_run_past_their_section),
        cmocka_unit_test(parses_bare_bodies_exactly),
        cmocka_unit_test(reads_files_and_refuses_huge_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
