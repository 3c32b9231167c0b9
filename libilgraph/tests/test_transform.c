/* The method-shape transforms: single return, fat header, try/finally
 * and try/catch wrapping. */
#include "helpers.h"

static const uint8_t int_sig[] = {0x00, 0x01, 0x08, 0x02};
static const uint8_t void_sig[] = {0x00, 0x00, 0x01};

static void single_ret_routes_returns_through_one_exit(void **state)
{
    /* ldarg.0; brfalse.s L; ldc.i4.1; ret; L: ldc.i4.2; ret */
    struct clrie_il_graph *g = decode_code(BYTES(0x02, 0x2C, 0x02, 0x17, 0x2A, 0x18, 0x2A));
    struct clrie_il_method_context m = {int_sig, sizeof(int_sig), NULL, 0};
    struct clrie_il_transform_result res;
    assert_int_equal(clrie_il_transform_single_ret(g, &m, &res, NULL), 0);
    assert_true(res.changed);
    assert_int_equal(res.local_index, 0);
    assert_bytes(res.local_sig, res.local_sig_len, BYTES(0x07, 0x01, 0x08));
    assert_int_equal(clrie_il_instr_opcode(res.exit), CLRIE_IL_OP_LDLOC_0);
    /* ldarg.0; brfalse.s L; ldc.i4.1; stloc.0; br.s X; L: ldc.i4.2; stloc.0; br.s X;
     * X: ldloc.0; ret */
    expect_code(
        g, 0, BYTES(0x02, 0x2C, 0x04, 0x17, 0x0A, 0x2B, 0x04, 0x18, 0x0A, 0x2B, 0x00, 0x06, 0x2A));
    int one = 1;
    struct reports rep = {0};
    assert_int_equal(clrie_il_graph_verify(g, test_resolver, &one, collect_report, &rep), 0);
    free(res.local_sig);
    clrie_il_graph_free(g);

    /* Void: no local, the exit is the final ret. */
    g = decode_code(BYTES(0x02, 0x2C, 0x01, 0x2A, 0x2A));
    m = (struct clrie_il_method_context){void_sig, sizeof(void_sig), NULL, 0};
    assert_int_equal(clrie_il_transform_single_ret(g, &m, &res, NULL), 0);
    assert_true(res.changed);
    assert_null(res.local_sig);
    assert_int_equal(clrie_il_instr_opcode(res.exit), CLRIE_IL_OP_RET);
    expect_code(g, 0, BYTES(0x02, 0x2C, 0x02, 0x2B, 0x02, 0x2B, 0x00, 0x2A));
    clrie_il_graph_free(g);
}

static void single_ret_keeps_tail_calls_and_byref_returns(void **state)
{
    /* tail. call X; ret; (unreachable) ret -- only one replaceable ret: unchanged. */
    struct clrie_il_graph *g =
        decode_code(BYTES(0xFE, 0x14, 0x28, 0x01, 0, 0, 0x0A, 0x2A, 0x17, 0x2A));
    struct clrie_il_method_context m = {int_sig, sizeof(int_sig), NULL, 0};
    struct clrie_il_transform_result res;
    assert_int_equal(clrie_il_transform_single_ret(g, &m, &res, NULL), 0);
    assert_false(res.changed);
    assert_ptr_equal(res.exit, nth(g, 4));
    clrie_il_graph_free(g);

    /* ref int32 M(): the byref stays on the stack across the branch; no local. */
    static const uint8_t byref_sig[] = {0x00, 0x00, 0x10, 0x08};
    /* ldarg.0; brfalse.s L; ldsflda A; ret; L: ldsflda B; ret */
    g = decode_code(
        BYTES(0x02, 0x2C, 0x06, 0x7F, 0x01, 0, 0, 0x04, 0x2A, 0x7F, 0x02, 0, 0, 0x04, 0x2A));
    m = (struct clrie_il_method_context){byref_sig, sizeof(byref_sig), NULL, 0};
    assert_int_equal(clrie_il_transform_single_ret(g, &m, &res, NULL), 0);
    assert_true(res.changed);
    assert_null(res.local_sig);
    assert_int_equal(clrie_il_instr_opcode(res.exit), CLRIE_IL_OP_RET);
    expect_code(g, 0,
                BYTES(0x02, 0x2C, 0x07, 0x7F, 0x01, 0, 0, 0x04, 0x2B, 0x07, 0x7F, 0x02, 0, 0, 0x04,
                      0x2B, 0x00, 0x2A));
    clrie_il_graph_free(g);
}

static void fat_header_transform_computes_max_stack(void **state)
{
    struct clrie_il_graph *g = decode_body(BYTES(0x12, 0x02, 0x03, 0x58, 0x2A));
    int one = 1;
    assert_int_equal(clrie_il_transform_fat_header(g, test_resolver, &one, NULL), 0);
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    assert_true(h.fat);
    assert_int_equal(h.max_stack, 2);
    assert_true(h.flags & CLRIE_IL_HEADER_INIT_LOCALS);
    expect_body(g, 0,
                BYTES(0x13, 0x30, 0x02, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x03, 0x58, 0x2A));
    clrie_il_graph_free(g);

    /* A fat header without InitLocals keeps its flags. */
    g = decode_body(BYTES(0x03, 0x30, 0x09, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A));
    int zero = 0;
    assert_int_equal(clrie_il_transform_fat_header(g, test_resolver, &zero, NULL), 0);
    expect_body(g, 0, BYTES(0x03, 0x30, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A));
    clrie_il_graph_free(g);
}

static void wrap_puts_the_body_in_try_finally(void **state)
{
    /* static void M(): nop; ret */
    struct clrie_il_graph *g = decode_body(BYTES(0x0A, 0x00, 0x2A));
    struct clrie_il_method_context m = {void_sig, sizeof(void_sig), NULL, 0};
    struct clrie_il_transform_result res;
    assert_int_equal(clrie_il_transform_wrap(g, CLRIE_IL_EH_FINALLY, 0, &m, &res, NULL), 0);
    assert_true(res.changed);
    assert_null(res.local_sig);
    assert_int_equal(clrie_il_instr_opcode(res.handler_first), CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_instr_opcode(res.handler_last), CLRIE_IL_OP_ENDFINALLY);
    assert_int_equal(clrie_il_instr_opcode(res.exit), CLRIE_IL_OP_RET);
    int zero = 0;
    struct reports rep = {0};
    assert_int_equal(clrie_il_graph_verify(g, test_resolver, &zero, collect_report, &rep), 0);
    /* A plugin's code goes after handler_first. */
    struct clrie_il_instr *call;
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_CALL, 0x0A000000, &call), 0);
    assert_int_equal(clrie_il_graph_insert_after(g, res.handler_first, call), 0);
    /* try { nop; leave.s X } finally { nop; call; endfinally } X: ret */
    expect_body(g, 0,
                BYTES(0x0B, 0x30, 0x08, 0x00, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xDE, 0x07, 0x00,
                      0x28, 0x00, 0x00, 0x00, 0x0A, 0xDC, 0x2A, 0x00, 0x01, 0x10, 0x00, 0x00, 0x02,
                      0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00));
    clrie_il_graph_free(g);
}

static void wrap_carries_the_return_value_and_drops_tail_prefixes(void **state)
{
    /* int32 M(bool): ldarg.0; brfalse.s L; tail. call F; ret; L: ldc.i4.2; ret */
    struct clrie_il_graph *g =
        decode_code(BYTES(0x02, 0x2C, 0x08, 0xFE, 0x14, 0x28, 0x01, 0, 0, 0x0A, 0x2A, 0x18, 0x2A));
    static const uint8_t locals[] = {0x07, 0x01, 0x0E};
    struct clrie_il_method_context m = {int_sig, sizeof(int_sig), locals, sizeof(locals)};
    struct clrie_il_transform_result res;
    assert_int_equal(clrie_il_transform_wrap(g, CLRIE_IL_EH_CATCH, 0x01000007, &m, &res, NULL), 0);
    assert_int_equal(res.local_index, 1);
    assert_bytes(res.local_sig, res.local_sig_len, BYTES(0x07, 0x02, 0x0E, 0x08));
    assert_int_equal(clrie_il_instr_opcode(res.exit), CLRIE_IL_OP_LDLOC_1);
    int one = 1;
    struct reports rep = {0};
    int r = clrie_il_graph_verify(g, test_resolver, &one, collect_report, &rep);
    if (r)
        dump_reports(&rep);
    assert_int_equal(r, 0);
    /* ldarg.0; brfalse.s L; call F; stloc.1; leave.s X; L: ldc.i4.2; stloc.1; leave.s X;
     * catch: pop; rethrow; X: ldloc.1; ret */
    expect_code(g, 0,
                BYTES(0x02, 0x2C, 0x08, 0x28, 0x01, 0, 0, 0x0A, 0x0B, 0xDE, 0x07, 0x18, 0x0B, 0xDE,
                      0x03, 0x26, 0xFE, 0x1A, 0x07, 0x2A));
    struct clrie_il_clause_info c;
    clrie_il_clause_get(res.clause, &c);
    assert_int_equal(c.flags, CLRIE_IL_EH_CATCH);
    assert_int_equal(c.class_token, 0x01000007);
    assert_ptr_equal(c.try_first, clrie_il_graph_first(g));
    assert_ptr_equal(c.handler_first, res.handler_first);
    assert_int_equal(clrie_il_instr_offset(c.try_last), 13);
    free(res.local_sig);
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0x27, 0x01, 0, 0, 0x06));
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_transform_wrap(g, CLRIE_IL_EH_FINALLY, 0, &m, &res, &d), -ENOTSUP);
    assert_non_null(strstr(d.message, "jmp"));
    assert_int_equal(clrie_il_transform_wrap(g, CLRIE_IL_EH_FILTER, 0, &m, &res, &d), -EINVAL);
    clrie_il_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_ret_routes_returns_through_one_exit),
        cmocka_unit_test(single_ret_keeps_tail_calls_and_byref_returns),
        cmocka_unit_test(fat_header_transform_computes_max_stack),
        cmocka_unit_test(wrap_puts_the_body_in_try_finally),
        cmocka_unit_test(wrap_carries_the_return_value_and_drops_tail_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
