/* Max stack by dataflow and the verifier's findings, each at its IL offset. */
#include "helpers.h"

static int returns_value = 1, returns_void = 0;

static uint32_t max_stack_of(struct clrie_il_graph *g, int *ret)
{
    uint32_t max = 0;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_max_stack(g, test_resolver, ret, &max, &d);
    if (r != 0)
        fail_msg("max stack failed (%d) at %u: %s", r, d.offset, d.message);
    return max;
}

static void verify_clean(struct clrie_il_graph *g, int *ret)
{
    struct reports rep = {0};
    int r = clrie_il_graph_verify(g, test_resolver, ret, collect_report, &rep);
    if (r != 0 || rep.count) {
        dump_reports(&rep);
        fail_msg("verify found %d problems (%d)", rep.count, r);
    }
}

static struct reports verify_dirty(struct clrie_il_graph *g, int *ret)
{
    struct reports rep = {0};
    assert_int_equal(clrie_il_graph_verify(g, test_resolver, ret, collect_report, &rep), -EILSEQ);
    assert_true(rep.count > 0);
    return rep;
}

static void expect_report(const struct reports *rep, uint32_t offset, const char *words)
{
    if (!has_report(rep, offset, words)) {
        dump_reports(rep);
        fail_msg("no report '%s' at %u", words, offset);
    }
}

static void add_clause(struct clrie_il_graph *g, uint32_t flags, size_t tf, size_t tl, size_t hf,
                       size_t hl, struct clrie_il_clause **out)
{
    struct clrie_il_clause_info c = {flags,
                                     nth(g, tf),
                                     nth(g, tl),
                                     nth(g, hf),
                                     nth(g, hl),
                                     NULL,
                                     flags == CLRIE_IL_EH_CATCH ? 0x01000001 : 0};
    assert_int_equal(clrie_il_graph_add_clause(g, &c, out), 0);
}

static void max_stack_follows_straight_code_and_calls(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x02, 0x03, 0x58, 0x2A));
    assert_int_equal(max_stack_of(g, &returns_value), 2);
    verify_clean(g, &returns_value);
    clrie_il_graph_free(g);
    /* call pops 3 and pushes 1 (the test resolver reads it from the token). */
    g = decode_code(BYTES(0x02, 0x03, 0x04, 0x28, 0x31, 0x00, 0x00, 0x0A, 0x2A));
    assert_int_equal(max_stack_of(g, &returns_value), 3);
    verify_clean(g, &returns_value);
    clrie_il_graph_free(g);
}

static void max_stack_follows_loops_and_switches(void **state)
{
    /* i = 0; do { i = i + 1 } while (i < 10) -- a backward blt.s to offset 2. */
    struct clrie_il_graph *g =
        decode_code(BYTES(0x16, 0x0A, 0x06, 0x17, 0x58, 0x25, 0x0A, 0x1F, 0x0A, 0x32, 0xF7, 0x2A));
    assert_int_equal(max_stack_of(g, &returns_void), 2);
    verify_clean(g, &returns_void);
    clrie_il_graph_free(g);
    /* ldarg.0; switch (L1, L2); ret; L1: ret; L2: ret */
    g = decode_code(
        BYTES(0x02, 0x45, 0x02, 0, 0, 0, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x2A, 0x2A, 0x2A));
    assert_int_equal(max_stack_of(g, &returns_void), 1);
    verify_clean(g, &returns_void);
    clrie_il_graph_free(g);
}

static void handlers_start_with_the_exception_or_nothing(void **state)
{
    /* try { nop; leave.s END } catch { pop; leave.s END } END: ret */
    struct clrie_il_graph *g = decode_body(
        BYTES(0x1B, 0x30, 0x01, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xDE, 0x03, 0x26, 0xDE, 0x00,
              0x2A, 0x00, 0x01, 0x10, 0x00, 0x00, 0, 0, 0, 0, 3, 3, 0, 3, 0x01, 0, 0, 0x01));
    assert_int_equal(max_stack_of(g, &returns_void), 1);
    verify_clean(g, &returns_void);
    clrie_il_graph_free(g);
    /* try { nop; leave.s END } filter { pop; ldc.i4.1; endfilter } { pop; leave.s END } END: ret */
    g = decode_body(BYTES(0x0B, 0x30, 0x02, 0x00, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xDE, 0x07, 0x26,
                          0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A, 0x00, 0x01, 0x10, 0, 0, 0x01,
                          0x00, 0x00, 0x00, 0x03, 0x07, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00));
    assert_int_equal(max_stack_of(g, &returns_void), 1);
    verify_clean(g, &returns_void);
    clrie_il_graph_free(g);
}

static void mismatched_heights_and_underflow_are_reported(void **state)
{
    /* ldarg.0; brtrue.s L; ldc.i4.1; L: ret -- one path brings 0 items, the other 1. */
    struct clrie_il_graph *g = decode_code(BYTES(0x02, 0x2D, 0x01, 0x17, 0x2A));
    uint32_t max;
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_graph_max_stack(g, test_resolver, &returns_void, &max, &d), -EILSEQ);
    assert_int_equal(d.offset, 4);
    assert_non_null(strstr(d.message, "stack height differs where paths meet"));
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0x58, 0x2A));
    assert_int_equal(clrie_il_graph_max_stack(g, test_resolver, &returns_void, &max, &d), -EILSEQ);
    assert_int_equal(d.offset, 0);
    assert_non_null(strstr(d.message, "stack underflow: add takes 2 items, the stack has 0"));
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0x16, 0x16, 0x2A));
    struct reports rep = verify_dirty(g, &returns_value);
    expect_report(&rep, 2, "ret leaves 1 items on the stack");
    clrie_il_graph_free(g);
}

static void calls_need_a_resolver_that_knows_them(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x28, 0x01, 0x00, 0x00, 0xEE, 0x2A));
    uint32_t max;
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_graph_max_stack(g, test_resolver, &returns_void, &max, &d), -ENOENT);
    assert_non_null(strstr(d.message, "cannot tell the stack effect of call (token 0xEE000001)"));
    assert_int_equal(clrie_il_graph_max_stack(g, NULL, NULL, &max, &d), -EINVAL);
    clrie_il_graph_free(g);
}

static void falling_off_the_end_and_misplaced_handler_ends(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x00));
    struct reports rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 0, "falls off the end of the method after nop");
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0xDC));
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 0, "endfinally at IL offset 0 is not in a finally or fault handler");
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0x16, 0xFE, 0x11));
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 1, "endfilter at IL offset 1 is not in a filter");
    clrie_il_graph_free(g);

    g = decode_code(BYTES(0xFE, 0x1A));
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 0, "rethrow at IL offset 0 is not in a catch handler");
    clrie_il_graph_free(g);

    struct clrie_il_graph *empty;
    assert_int_equal(clrie_il_graph_new(&empty), 0);
    rep = verify_dirty(empty, &returns_void);
    expect_report(&rep, 0, "no instructions");
    clrie_il_graph_free(empty);
}

static void branches_into_and_out_of_blocks_are_reported(void **state)
{
    /* br.s 3; [try: nop; nop; leave.s 7] [finally: endfinally] ret -- enters the try at 3. */
    struct clrie_il_graph *g = decode_code(BYTES(0x2B, 0x01, 0x00, 0x00, 0xDE, 0x01, 0xDC, 0x2A));
    add_clause(g, CLRIE_IL_EH_FINALLY, 1, 3, 4, 4, NULL);
    struct reports rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 0, "br.s at IL offset 0 enters the try block of clause 0 at 3");
    clrie_il_graph_free(g);

    /* [try: nop; br.s 5] [finally: endfinally] nop; ret -- leaves the try by a branch. */
    g = decode_code(BYTES(0x00, 0x2B, 0x02, 0xDC, 0x00, 0x2A));
    add_clause(g, CLRIE_IL_EH_FINALLY, 0, 1, 2, 2, NULL);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 1, "br.s at IL offset 1 leaves the try block of clause 0; use leave");
    clrie_il_graph_free(g);

    /* [try: nop; leave.s 6] [finally: leave.s 6] nop; ret -- leave out of a finally. */
    g = decode_code(BYTES(0x00, 0xDE, 0x03, 0xDE, 0x01, 0x00, 0x2A));
    add_clause(g, CLRIE_IL_EH_FINALLY, 0, 1, 2, 2, NULL);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 3, "leave at IL offset 3 exits the finally/fault handler of clause 0");
    clrie_il_graph_free(g);

    /* [try: nop; ret] [finally: endfinally] -- ret inside a try. */
    g = decode_code(BYTES(0x00, 0x2A, 0xDC));
    add_clause(g, CLRIE_IL_EH_FINALLY, 0, 1, 2, 2, NULL);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 1, "ret at IL offset 1 is inside the try block of clause 0");
    clrie_il_graph_free(g);

    /* [try: nop] [finally: endfinally] ret -- the try falls into its handler. */
    g = decode_code(BYTES(0x00, 0xDC, 0x2A));
    add_clause(g, CLRIE_IL_EH_FINALLY, 0, 0, 1, 1, NULL);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 1, "execution falls into the handler block of clause 0");
    expect_report(&rep, 0, "execution falls out of the try block of clause 0");
    clrie_il_graph_free(g);

    /* ldc.i4.0 [try: leave.s 4] [finally: endfinally] pop; ret -- try entered with 1 item. */
    g = decode_code(BYTES(0x16, 0xDE, 0x01, 0xDC, 0x26, 0x2A));
    add_clause(g, CLRIE_IL_EH_FINALLY, 1, 1, 2, 2, NULL);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 1, "try block of clause 0 is entered with 1 items on the stack");
    clrie_il_graph_free(g);
}

/* jmp (ECMA-335 III.3.37) hands the arguments on: code may come before it, but it needs an
 * empty stack and no enclosing block. */
static void jmp_needs_an_empty_stack_and_no_block(void **state)
{
    /* nop; jmp 0x06000001 -- what a rewriter that adds a probe before a jmp produces. */
    struct clrie_il_graph *g = decode_code(BYTES(0x00, 0x27, 0x01, 0x00, 0x00, 0x06));
    verify_clean(g, &returns_value);
    clrie_il_graph_free(g);

    /* ldc.i4.0; jmp 0x06000001 */
    g = decode_code(BYTES(0x16, 0x27, 0x01, 0x00, 0x00, 0x06));
    struct reports rep = verify_dirty(g, &returns_value);
    expect_report(&rep, 1, "jmp needs an empty stack, it has 1 items");
    clrie_il_graph_free(g);

    /* [try: nop; jmp 0x06000001] [finally: endfinally] */
    g = decode_code(BYTES(0x00, 0x27, 0x01, 0x00, 0x00, 0x06, 0xDC));
    add_clause(g, CLRIE_IL_EH_FINALLY, 0, 1, 2, 2, NULL);
    rep = verify_dirty(g, &returns_value);
    expect_report(&rep, 1, "jmp at IL offset 1 is inside the try block of clause 0");
    clrie_il_graph_free(g);
}

static void targets_outside_the_method_are_reported(void **state)
{
    /* br.s L; nop; L: ret -- then aim the branch at a removed node. */
    struct clrie_il_graph *g = decode_code(BYTES(0x2B, 0x01, 0x00, 0x2A));
    struct clrie_il_instr *nop = nth(g, 1);
    assert_int_equal(clrie_il_graph_remove(g, nop), 0);
    assert_int_equal(clrie_il_instr_set_branch_target(nth(g, 0), nop), 0);
    struct reports rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 0, "br.s (instruction 0) has no target in the method");
    clrie_il_graph_free(g);
}

static void clause_overlap_and_order_are_reported(void **state)
{
    uint8_t code[9];
    memset(code, 0x00, 8);
    code[8] = 0x2A;
    struct clrie_il_graph *g = decode_code(code, sizeof(code));
    add_clause(g, CLRIE_IL_EH_FAULT, 1, 3, 6, 6, NULL);
    add_clause(g, CLRIE_IL_EH_FAULT, 2, 4, 7, 7, NULL);
    struct reports rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 2, "overlap without nesting");
    clrie_il_graph_free(g);

    g = decode_code(code, sizeof(code));
    struct clrie_il_clause *first, *second;
    add_clause(g, CLRIE_IL_EH_FAULT, 0, 0, 6, 6, &first);
    add_clause(g, CLRIE_IL_EH_FAULT, 2, 2, 7, 7, &second);
    /* Make the first clause the outer one: it now encloses the second but precedes it. */
    struct clrie_il_clause_info c = {CLRIE_IL_EH_FAULT, nth(g, 0), nth(g, 4), nth(g, 5),
                                     nth(g, 5),         NULL,      0};
    assert_ptr_equal(clrie_il_graph_clause(g, 0), first);
    assert_int_equal(clrie_il_clause_set(g, first, &c), 0);
    rep = verify_dirty(g, &returns_void);
    expect_report(&rep, 2, "clause 1 is nested in the try block of clause 0 but comes after it");
    clrie_il_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(max_stack_follows_straight_code_and_calls),
        cmocka_unit_test(max_stack_follows_loops_and_switches),
        cmocka_unit_test(handlers_start_with_the_exception_or_nothing),
        cmocka_unit_test(mismatched_heights_and_underflow_are_reported),
        cmocka_unit_test(calls_need_a_resolver_that_knows_them),
        cmocka_unit_test(falling_off_the_end_and_misplaced_handler_ends),
        cmocka_unit_test(branches_into_and_out_of_blocks_are_reported),
        cmocka_unit_test(jmp_needs_an_empty_stack_and_no_block),
        cmocka_unit_test(targets_outside_the_method_are_reported),
        cmocka_unit_test(clause_overlap_and_order_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
