/* The ECMA-335 signature layer (sig.c): compressed integers, coded tokens, element types,
 * custom modifiers, method and local-variable signatures. */
#include "helpers.h"

static void compressed_integers_and_tokens(void **state)
{
    static const struct {
        uint32_t value;
        uint8_t bytes[4];
        int len;
    } cases[] = {
        {0x03, {0x03}, 1},
        {0x7F, {0x7F}, 1},
        {0x80, {0x80, 0x80}, 2},
        {0x2E57, {0xAE, 0x57}, 2},
        {0x3FFF, {0xBF, 0xFF}, 2},
        {0x4000, {0xC0, 0x00, 0x40, 0x00}, 4},
        {0x1FFFFFFF, {0xDF, 0xFF, 0xFF, 0xFF}, 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t out[4];
        assert_int_equal(clrie_il_sig_write_uint(cases[i].value, out), cases[i].len);
        assert_memory_equal(out, cases[i].bytes, (size_t)cases[i].len);
        uint32_t v;
        size_t used;
        assert_int_equal(clrie_il_sig_read_uint(cases[i].bytes, (size_t)cases[i].len, &v, &used),
                         0);
        assert_int_equal(v, cases[i].value);
        assert_int_equal(used, cases[i].len);
    }
    uint8_t out[4];
    uint32_t v;
    size_t used;
    assert_int_equal(clrie_il_sig_write_uint(0x20000000, out), -ERANGE);
    assert_int_equal(clrie_il_sig_read_uint(BYTES(0xE0, 0, 0, 0), &v, &used), -EILSEQ);
    assert_int_equal(clrie_il_sig_read_uint(BYTES(0xC0, 0), &v, &used), -EILSEQ);
    assert_int_equal(clrie_il_sig_read_uint(BYTES(0x80), &v, &used), -EILSEQ);
    /* TypeDefOrRef: (rid << 2) | tag. */
    assert_int_equal(clrie_il_sig_write_token(0x01000012, out), 1);
    assert_int_equal(out[0], 0x49);
    assert_int_equal(clrie_il_sig_write_token(0x1B000001, out), 1);
    assert_int_equal(out[0], 0x06);
    assert_int_equal(clrie_il_sig_write_token(0x02000100, out), 2);
    assert_memory_equal(out, "\x84\x00", 2);
    assert_int_equal(clrie_il_sig_write_token(0x06000001, out), -EINVAL);
    uint32_t token;
    assert_int_equal(clrie_il_sig_read_token(BYTES(0x49), &token, &used), 0);
    assert_int_equal(token, 0x01000012);
    assert_int_equal(clrie_il_sig_read_token(BYTES(0x03), &token, &used), -EILSEQ);
}

static void method_signatures_give_shape_and_stack_effect(void **state)
{
    struct clrie_il_method_sig m;
    struct clrie_il_stack_effect e;
    /* instance int32 (string, int32[]) */
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x20, 0x02, 0x08, 0x0E, 0x1D, 0x08), &m, NULL),
                     0);
    assert_true(m.has_this);
    assert_int_equal(m.param_count, 2);
    assert_int_equal(m.ret_offset, 2);
    assert_int_equal(m.ret_len, 1);
    assert_false(m.returns_void);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_CALLVIRT, &e), 0);
    assert_int_equal(e.pop, 3);
    assert_int_equal(e.push, 1);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_NEWOBJ, &e), 0);
    assert_int_equal(e.pop, 2);
    assert_int_equal(e.push, 1);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_CALLI, &e), 0);
    assert_int_equal(e.pop, 4);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_RET, &e), 0);
    assert_int_equal(e.pop, 1);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_NOP, &e), -EINVAL);
    /* generic <1> void (!!0, class [TypeRef 0x12] modreq(...) , valuetype Dictionary<int, string>)
     */
    assert_int_equal(
        clrie_il_sig_parse_method(BYTES(0x10, 0x01, 0x03, 0x01, 0x1E, 0x00, 0x1F, 0x49, 0x12, 0x49,
                                        0x15, 0x11, 0x49, 0x02, 0x08, 0x0E),
                                  &m, NULL),
        0);
    assert_int_equal(m.generic_count, 1);
    assert_int_equal(m.param_count, 3);
    assert_true(m.returns_void);
    assert_int_equal(clrie_il_sig_stack_effect(&m, CLRIE_IL_OP_CALL, &e), 0);
    assert_int_equal(e.pop, 3);
    assert_int_equal(e.push, 0);
    /* ref int32 with a custom modifier; int32[0...,0...] multi-dim array param; fnptr param */
    assert_int_equal(
        clrie_il_sig_parse_method(BYTES(0x00, 0x02, 0x20, 0x49, 0x10, 0x08, 0x14, 0x08, 0x02, 0x00,
                                        0x02, 0x00, 0x00, 0x1B, 0x00, 0x00, 0x01),
                                  &m, NULL),
        0);
    assert_true(m.returns_byref);
    assert_int_equal(m.ret_offset, 2);
    assert_int_equal(m.ret_len, 4);
    /* Truncated, wrong kinds, unknown element types, absurd nesting. */
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x20, 0x02, 0x08, 0x0E), &m, NULL), -EILSEQ);
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x06, 0x08), &m, NULL), -EILSEQ);
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x07, 0x01, 0x08), &m, NULL), -EILSEQ);
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x00, 0x00, 0x17), &m, NULL), -EILSEQ);
    uint8_t deep[300];
    deep[0] = 0x00;
    deep[1] = 0x00;
    memset(deep + 2, 0x0F, sizeof(deep) - 3); /* pointer to pointer to ... */
    deep[sizeof(deep) - 1] = 0x08;
    assert_int_equal(clrie_il_sig_parse_method(deep, sizeof(deep), &m, NULL), -EILSEQ);
    size_t len;
    assert_int_equal(clrie_il_sig_type_len(BYTES(0x1D, 0x0F, 0x08, 0xFF), &len), 0);
    assert_int_equal(len, 3);
}

static void local_signatures_grow_by_one(void **state)
{
    uint8_t *sig;
    size_t len;
    uint32_t index, count;
    assert_int_equal(clrie_il_sig_local_append(NULL, 0, BYTES(0x08), &sig, &len, &index), 0);
    assert_bytes(sig, len, BYTES(0x07, 0x01, 0x08));
    assert_int_equal(index, 0);
    free(sig);
    assert_int_equal(clrie_il_sig_local_append(BYTES(0x07, 0x02, 0x08, 0x0E), BYTES(0x1D, 0x08),
                                               &sig, &len, &index),
                     0);
    assert_bytes(sig, len, BYTES(0x07, 0x03, 0x08, 0x0E, 0x1D, 0x08));
    assert_int_equal(index, 2);
    assert_int_equal(clrie_il_sig_local_header(sig, len, &count, NULL), 0);
    assert_int_equal(count, 3);
    free(sig);
    /* 127 -> 128 locals: the count takes two bytes. */
    uint8_t big[129];
    big[0] = 0x07;
    big[1] = 0x7F;
    memset(big + 2, 0x08, 127);
    assert_int_equal(clrie_il_sig_local_append(big, sizeof(big), BYTES(0x0E), &sig, &len, &index),
                     0);
    assert_int_equal(len, 131);
    assert_memory_equal(sig, "\x07\x80\x80\x08", 4);
    assert_int_equal(sig[130], 0x0E);
    assert_int_equal(index, 127);
    free(sig);
    assert_int_equal(clrie_il_sig_local_append(BYTES(0x06, 0x01), BYTES(0x08), &sig, &len, &index),
                     -EILSEQ);
    assert_int_equal(clrie_il_sig_local_append(NULL, 0, BYTES(0x08, 0x08), &sig, &len, &index),
                     -EILSEQ);
}

/* static int32 M(bool) */
static void signed_integers_rotate_the_sign_into_bit_zero(void **state)
{
    /* The examples of ECMA-335 II.23.2. */
    static const struct {
        int32_t value;
        uint8_t bytes[4];
        int len;
    } cases[] = {
        {3, {0x06}, 1},
        {-3, {0x7B}, 1},
        {64, {0x80, 0x80}, 2},
        {-64, {0x01}, 1},
        {8192, {0xC0, 0x00, 0x40, 0x00}, 4},
        {-8192, {0x80, 0x01}, 2},
        {268435455, {0xDF, 0xFF, 0xFF, 0xFE}, 4},
        {-268435456, {0xC0, 0x00, 0x00, 0x01}, 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t out[4];
        assert_int_equal(clrie_il_sig_write_int(cases[i].value, out), cases[i].len);
        assert_memory_equal(out, cases[i].bytes, (size_t)cases[i].len);
        int32_t v;
        size_t used;
        assert_int_equal(clrie_il_sig_read_int(cases[i].bytes, (size_t)cases[i].len, &v, &used), 0);
        assert_int_equal(v, cases[i].value);
        assert_int_equal(used, cases[i].len);
    }
    uint8_t out[4];
    assert_int_equal(clrie_il_sig_write_int(268435456, out), -ERANGE);
    assert_int_equal(clrie_il_sig_write_int(-268435457, out), -ERANGE);
    int32_t v;
    size_t used;
    assert_int_equal(clrie_il_sig_read_int(BYTES(0xC0, 0x00), &v, &used), -EILSEQ);
    assert_int_equal(clrie_il_sig_read_int(out, 0, &v, &used), -EILSEQ);
}

static void custom_modifiers_and_simple_types(void **state)
{
    size_t used;
    /* modreq(TypeRef 0x12) modopt(TypeDef 0x01) int32 */
    assert_int_equal(clrie_il_sig_skip_custom_mods(BYTES(0x1F, 0x49, 0x20, 0x04, 0x08), &used), 0);
    assert_int_equal(used, 4);
    assert_int_equal(clrie_il_sig_skip_custom_mods(BYTES(0x08), &used), 0);
    assert_int_equal(used, 0);
    assert_int_equal(clrie_il_sig_skip_custom_mods(BYTES(0x1F, 0x03), &used), -EILSEQ);
    assert_int_equal(clrie_il_sig_skip_custom_mods(BYTES(0x1F), &used), -EILSEQ);
    for (unsigned et = 0; et < 0x100; et++) {
        size_t len;
        uint8_t one = (uint8_t)et;
        bool simple = clrie_il_sig_element_is_simple(one);
        /* a simple type is exactly one byte long */
        assert_int_equal(simple, clrie_il_sig_type_len(&one, 1, &len) == 0 && len == 1 &&
                                     et != CLRIE_IL_ELEMENT_TYPE_INTERNAL);
    }
}

static void malformed_method_signatures_say_where(void **state)
{
    struct clrie_il_method_sig m;
    struct clrie_il_diag d = {0};
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x07, 0x01, 0x08), &m, &d), -EILSEQ);
    assert_int_equal(d.offset, 0);
    assert_non_null(strstr(d.message, "not a method"));
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x00, 0x01, 0x1F, 0x05), &m, &d), -EILSEQ);
    assert_non_null(strstr(d.message, "return type"));
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x00, 0x02, 0x08, 0x08, 0x17), &m, &d),
                     -EILSEQ);
    assert_int_equal(d.offset, 4);
    assert_non_null(strstr(d.message, "0x17"));
    /* vararg: the sentinel before the optional parameters is skipped */
    assert_int_equal(clrie_il_sig_parse_method(BYTES(0x05, 0x02, 0x01, 0x08, 0x41, 0x0E), &m, &d),
                     0);
    assert_int_equal(m.param_count, 2);
    uint32_t count;
    size_t at;
    assert_int_equal(clrie_il_sig_local_header(BYTES(0x07, 0x02, 0x08, 0x0E), &count, &at), 0);
    assert_int_equal(count, 2);
    assert_int_equal(at, 2);
    assert_int_equal(clrie_il_sig_local_header(BYTES(0x06, 0x08), &count, &at), -EILSEQ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compressed_integers_and_tokens),
        cmocka_unit_test(signed_integers_rotate_the_sign_into_bit_zero),
        cmocka_unit_test(custom_modifiers_and_simple_types),
        cmocka_unit_test(method_signatures_give_shape_and_stack_effect),
        cmocka_unit_test(malformed_method_signatures_say_where),
        cmocka_unit_test(local_signatures_grow_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
