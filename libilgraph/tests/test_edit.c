/* Graph edits: where nodes go, where branch targets and clause boundaries follow, what the
 * original view keeps, and the shortest-form creation helpers. */
#include "helpers.h"

/* ldarg.0; brtrue.s L; ldc.i4.0; ret; L: ldc.i4.1; ret */
static const uint8_t if_else[] = {0x02, 0x2D, 0x02, 0x16, 0x2A, 0x17, 0x2A};

static struct clrie_il_graph *if_else_graph(void)
{
    return decode_code(if_else, sizeof(if_else));
}

static void insert_before_leaves_branches_on_the_anchor(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *anchor = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *nop = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_before(g, anchor, nop), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)), anchor);
    assert_true(clrie_il_instr_is_new(nop));
    assert_int_equal(clrie_il_instr_original_offset(nop), CLRIE_IL_NO_OFFSET);
    expect_code(g, 0, BYTES(0x02, 0x2D, 0x03, 0x16, 0x2A, 0x00, 0x17, 0x2A));
    /* The original view does not see the new node. */
    assert_ptr_equal(clrie_il_instr_original_next(clrie_il_graph_at_original_offset(g, 4)), anchor);
    assert_ptr_equal(clrie_il_instr_next(clrie_il_graph_at_original_offset(g, 4)), nop);
    /* Current-offset lookups follow the new layout. */
    assert_ptr_equal(clrie_il_graph_at_offset(g, 5), nop);
    assert_ptr_equal(clrie_il_graph_at_offset(g, 6), anchor);
    assert_null(clrie_il_graph_at_offset(g, 2));
    assert_int_equal(clrie_il_instr_offset(anchor), 6);
    assert_int_equal(clrie_il_instr_original_offset(anchor), 5);
    clrie_il_graph_free(g);
}

static void insert_before_retarget_moves_branches_to_the_new_code(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *anchor = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *nop = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_instr_offset(anchor), 5);
    assert_int_equal(clrie_il_graph_insert_before_retarget(g, anchor, nop), 0);
    /* Reading an offset after an edit lays the graph out again. */
    assert_int_equal(clrie_il_instr_offset(anchor), 6);
    assert_int_equal(clrie_il_instr_offset(nop), 5);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)), nop);
    expect_code(g, 0, BYTES(0x02, 0x2D, 0x02, 0x16, 0x2A, 0x00, 0x17, 0x2A));
    clrie_il_graph_free(g);
}

/* Inserting `br T` before T with retargeting: the code that jumped to T now reaches the new
 * branch, which still jumps to T; it must not jump to itself (an endless loop). */
static void insert_before_retarget_keeps_the_new_branch_on_its_target(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *anchor = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *br = make_branch(g, CLRIE_IL_OP_BR_S, anchor);
    assert_int_equal(clrie_il_graph_insert_before_retarget(g, anchor, br), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)), br);
    assert_ptr_equal(clrie_il_instr_branch_target(br), anchor);
    expect_code(g, 0, BYTES(0x02, 0x2D, 0x02, 0x16, 0x2A, 0x2B, 0x00, 0x17, 0x2A));
    clrie_il_graph_free(g);

    /* The same for a switch whose targets include T. */
    g = if_else_graph();
    anchor = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *targets[2] = {anchor, anchor};
    struct clrie_il_instr *sw = NULL;
    assert_int_equal(clrie_il_instr_create_switch(g, 2, targets, &sw), 0);
    assert_int_equal(clrie_il_graph_insert_before_retarget(g, anchor, sw), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)), sw);
    assert_ptr_equal(clrie_il_instr_switch_target(sw, 0), anchor);
    assert_ptr_equal(clrie_il_instr_switch_target(sw, 1), anchor);
    clrie_il_graph_free(g);
}

/* A replaced node stands for its replacement: targets and clause boundaries named with it
 * land on the replacement, and so on down a chain of replacements. */
static void a_replaced_node_names_its_replacement(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *old = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *two = make(g, CLRIE_IL_OP_LDC_I4_0 + 2);
    assert_int_equal(clrie_il_graph_replace(g, old, two), 0);
    assert_ptr_equal(clrie_il_instr_current(old), two);
    assert_ptr_equal(clrie_il_instr_current(two), two);

    /* A new branch aimed at the replaced node, and a branch retargeted to it. */
    struct clrie_il_instr *br = make_branch(g, CLRIE_IL_OP_BR_S, old);
    assert_ptr_equal(clrie_il_instr_branch_target(br), two);
    assert_int_equal(clrie_il_graph_insert_before(g, nth(g, 0), br), 0);
    assert_int_equal(clrie_il_instr_set_branch_target(nth(g, 2), old), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 2)), two);

    /* Replaced again: both old nodes name the newest. */
    struct clrie_il_instr *three = make(g, CLRIE_IL_OP_LDC_I4_0 + 3);
    assert_int_equal(clrie_il_graph_replace(g, two, three), 0);
    assert_ptr_equal(clrie_il_instr_current(old), three);
    assert_ptr_equal(clrie_il_instr_branch_target(br), three);
    struct clrie_il_clause_info info = {
        .flags = CLRIE_IL_EH_FAULT,
        .try_first = old,
        .try_last = two,
        .handler_first = clrie_il_graph_last(g),
        .handler_last = clrie_il_graph_last(g),
    };
    struct clrie_il_clause *c = NULL;
    assert_int_equal(clrie_il_graph_add_clause(g, &info, &c), 0);
    struct clrie_il_clause_info got;
    clrie_il_clause_get(c, &got);
    assert_ptr_equal(got.try_first, three);
    assert_ptr_equal(got.try_last, three);
    info.try_first = info.try_last = nth(g, 0);
    info.handler_first = two;
    assert_int_equal(clrie_il_clause_set(g, c, &info), 0);
    clrie_il_clause_get(c, &got);
    assert_ptr_equal(got.handler_first, three);
    /* br.s L; ldarg.0; brtrue.s L; ldc.i4.0; ret; L: ldc.i4.3; ret */
    expect_code(g, 0, BYTES(0x2B, 0x05, 0x02, 0x2D, 0x02, 0x16, 0x2A, 0x19, 0x2A));

    /* A removed node names nothing, and no replaced node is an anchor. */
    struct clrie_il_instr *gone = nth(g, 1);
    assert_int_equal(clrie_il_graph_remove(g, gone), 0);
    assert_ptr_equal(clrie_il_instr_current(gone), gone);
    info.try_first = info.try_last = gone;
    assert_int_equal(clrie_il_clause_set(g, c, &info), -EINVAL);
    assert_int_equal(clrie_il_graph_insert_before(g, old, make(g, CLRIE_IL_OP_NOP)), -EINVAL);
    assert_int_equal(clrie_il_graph_replace(g, two, make(g, CLRIE_IL_OP_NOP)), -EINVAL);
    assert_int_equal(clrie_il_graph_remove(g, old), -EINVAL);
    clrie_il_graph_free(g);
}

static void insert_after_null_puts_the_node_first(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *nop = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, nop), 0);
    assert_ptr_equal(clrie_il_graph_first(g), nop);
    assert_ptr_equal(clrie_il_graph_original_first(g), clrie_il_graph_at_original_offset(g, 0));
    struct clrie_il_instr *tail = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), tail), 0);
    assert_ptr_equal(clrie_il_graph_last(g), tail);
    expect_code(g, 0, BYTES(0x00, 0x02, 0x2D, 0x02, 0x16, 0x2A, 0x17, 0x2A, 0x00));
    clrie_il_graph_free(g);
}

static void replace_moves_every_reference_to_the_replacement(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *old = clrie_il_graph_at_original_offset(g, 5);
    struct clrie_il_instr *two = make(g, CLRIE_IL_OP_LDC_I4_0 + 2);
    assert_int_equal(clrie_il_graph_replace(g, old, two), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)), two);
    assert_true(clrie_il_instr_is_removed(old));
    assert_false(clrie_il_instr_is_removed(two));
    assert_ptr_equal(clrie_il_graph_at_original_offset(g, 5), old);
    assert_int_equal(clrie_il_graph_count(g), 6);
    expect_code(g, 0, BYTES(0x02, 0x2D, 0x02, 0x16, 0x2A, 0x18, 0x2A));
    /* A removed node cannot be an anchor, and a placed node cannot be placed again. */
    assert_int_equal(clrie_il_graph_insert_before(g, old, make(g, CLRIE_IL_OP_NOP)), -EINVAL);
    assert_int_equal(clrie_il_graph_insert_before(g, nth(g, 0), two), -EINVAL);
    assert_int_equal(clrie_il_graph_insert_before(g, nth(g, 0), old), -EINVAL);
    clrie_il_graph_free(g);
}

static void remove_moves_branches_to_the_following_instruction(void **state)
{
    struct clrie_il_graph *g = if_else_graph();
    struct clrie_il_instr *gone = clrie_il_graph_at_original_offset(g, 5);
    assert_int_equal(clrie_il_graph_remove(g, gone), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 1)),
                     clrie_il_graph_at_original_offset(g, 6));
    assert_true(clrie_il_instr_is_removed(gone));
    expect_code(g, 0, BYTES(0x02, 0x2D, 0x02, 0x16, 0x2A, 0x2A));
    assert_int_equal(clrie_il_graph_remove(g, gone), -EINVAL);
    clrie_il_graph_free(g);

    /* br.s L; L: ret -- removing the last node moves its referrers back. */
    g = decode_code(BYTES(0x2B, 0x00, 0x2A));
    assert_int_equal(clrie_il_graph_remove(g, nth(g, 1)), 0);
    assert_ptr_equal(clrie_il_instr_branch_target(nth(g, 0)), nth(g, 0));
    assert_int_equal(clrie_il_graph_remove(g, nth(g, 0)), -EINVAL); /* the only node */
    clrie_il_graph_free(g);
}

/* try { nop; leave.s END } catch { pop; leave.s END } END: ret */
static const uint8_t try_catch[] = {
    0x1B, 0x30, 0x01, 0x00, 0x07, 0,    0,    0,    0x05, 0,    0,    0x11,
    0x00, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A, 0x00, 0x01, 0x10, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x03, 0x01, 0x00, 0x00, 0x01,
};

static struct clrie_il_clause_info clause0(struct clrie_il_graph *g)
{
    struct clrie_il_clause_info c;
    clrie_il_clause_get(clrie_il_graph_clause(g, 0), &c);
    return c;
}

static void edits_move_clause_boundaries_by_their_rules(void **state)
{
    struct clrie_il_graph *g = decode_body(try_catch, sizeof(try_catch));
    struct clrie_il_instr *nop0 = nth(g, 0), *leave1 = nth(g, 1), *pop = nth(g, 2);
    struct clrie_il_instr *leave2 = nth(g, 3);

    /* Plain insert before the try start: the try still starts at the old node. */
    struct clrie_il_instr *a = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_before(g, nop0, a), 0);
    assert_ptr_equal(clause0(g).try_first, nop0);
    /* Retargeting insert: the new code starts the try; its end is unchanged. */
    struct clrie_il_instr *b = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_before_retarget(g, nop0, b), 0);
    assert_ptr_equal(clause0(g).try_first, b);
    assert_ptr_equal(clause0(g).try_last, leave1);
    /* Insert after the try end with retarget: the try now ends at the new node. */
    struct clrie_il_instr *c = make(g, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_graph_insert_after_retarget(g, leave1, c), 0);
    assert_ptr_equal(clause0(g).try_last, c);
    /* Removing the handler's first node moves the start forward; its last, backward. */
    assert_int_equal(clrie_il_graph_remove(g, pop), 0);
    assert_ptr_equal(clause0(g).handler_first, leave2);
    assert_int_equal(clrie_il_graph_remove(g, c), 0);
    assert_ptr_equal(clause0(g).try_last, leave1);
    /* nop(a) nop(b) nop leave.s | leave.s | ret; try = b..leave1, handler = leave2. */
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE,
                BYTES(0x1B, 0x30, 0x01, 0x00, 0x08, 0, 0, 0, 0x05, 0, 0, 0x11, 0x00, 0x00, 0x00,
                      0xDE, 0x02, 0xDE, 0x00, 0x2A, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                      0x04, 0x05, 0x00, 0x02, 0x01, 0x00, 0x00, 0x01));

    clrie_il_graph_remove_all(g);
    assert_int_equal(clrie_il_graph_count(g), 0);
    assert_int_equal(clrie_il_graph_clause_count(g), 0);
    assert_null(clrie_il_graph_first(g));
    assert_true(clrie_il_instr_is_removed(nop0));
    assert_ptr_equal(clrie_il_graph_original_first(g), nop0);
    clrie_il_graph_free(g);
}

static void creation_helpers_pick_the_shortest_form(void **state)
{
    struct clrie_il_graph *g;
    assert_int_equal(clrie_il_graph_new(&g), 0);
    struct clrie_il_instr *n;
    int64_t v;
    static const struct {
        int32_t value;
        uint16_t op;
    } consts[] = {
        {-1, CLRIE_IL_OP_LDC_I4_M1},     {0, CLRIE_IL_OP_LDC_I4_0},   {8, CLRIE_IL_OP_LDC_I4_8},
        {9, CLRIE_IL_OP_LDC_I4_S},       {127, CLRIE_IL_OP_LDC_I4_S}, {-2, CLRIE_IL_OP_LDC_I4_S},
        {-128, CLRIE_IL_OP_LDC_I4_S},    {128, CLRIE_IL_OP_LDC_I4},   {-129, CLRIE_IL_OP_LDC_I4},
        {INT32_MIN, CLRIE_IL_OP_LDC_I4},
    };
    for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
        assert_int_equal(clrie_il_instr_create_ldc_i4(g, consts[i].value, &n), 0);
        assert_int_equal(clrie_il_instr_opcode(n), consts[i].op);
        if (consts[i].op == CLRIE_IL_OP_LDC_I4_S || consts[i].op == CLRIE_IL_OP_LDC_I4) {
            assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
            assert_true(v == consts[i].value);
        }
    }
    typedef int (*maker)(struct clrie_il_graph *, uint32_t, struct clrie_il_instr **);
    static const struct {
        maker fn;
        uint32_t index;
        uint16_t op;
    } indexed[] = {
        {clrie_il_instr_create_ldloc, 0, CLRIE_IL_OP_LDLOC_0},
        {clrie_il_instr_create_ldloc, 3, CLRIE_IL_OP_LDLOC_0 + 3},
        {clrie_il_instr_create_ldloc, 4, CLRIE_IL_OP_LDLOC_S},
        {clrie_il_instr_create_ldloc, 255, CLRIE_IL_OP_LDLOC_S},
        {clrie_il_instr_create_ldloc, 256, CLRIE_IL_OP_LDLOC},
        {clrie_il_instr_create_ldloc, 65534, CLRIE_IL_OP_LDLOC},
        {clrie_il_instr_create_stloc, 2, CLRIE_IL_OP_STLOC_0 + 2},
        {clrie_il_instr_create_stloc, 200, CLRIE_IL_OP_STLOC_S},
        {clrie_il_instr_create_stloc, 1000, CLRIE_IL_OP_STLOC},
        {clrie_il_instr_create_ldarg, 1, CLRIE_IL_OP_LDARG_1},
        {clrie_il_instr_create_ldarg, 4, CLRIE_IL_OP_LDARG_S},
        {clrie_il_instr_create_ldarg, 300, CLRIE_IL_OP_LDARG}, /* CLRIE truncated this to 44 */
        {clrie_il_instr_create_ldarga, 0, CLRIE_IL_OP_LDARGA_S},
        {clrie_il_instr_create_ldarga, 256, CLRIE_IL_OP_LDARGA},
        {clrie_il_instr_create_ldloca, 3, CLRIE_IL_OP_LDLOCA_S},
        {clrie_il_instr_create_ldloca, 70, CLRIE_IL_OP_LDLOCA_S},
        {clrie_il_instr_create_ldloca, 5000, CLRIE_IL_OP_LDLOCA},
        {clrie_il_instr_create_starg, 0, CLRIE_IL_OP_STARG_S},
        {clrie_il_instr_create_starg, 999, CLRIE_IL_OP_STARG},
    };
    for (size_t i = 0; i < sizeof(indexed) / sizeof(indexed[0]); i++) {
        assert_int_equal(indexed[i].fn(g, indexed[i].index, &n), 0);
        assert_int_equal(clrie_il_instr_opcode(n), indexed[i].op);
        if (clrie_il_instr_info(n)->operand_len) {
            assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
            assert_int_equal(v, indexed[i].index);
        }
    }
    assert_int_equal(clrie_il_instr_create_ldloc(g, 65535, &n), -ERANGE);
    assert_int_equal(clrie_il_instr_create_ldarg(g, 1u << 20, &n), -ERANGE);
    /* ldarg 300 encodes its full index. */
    assert_int_equal(clrie_il_instr_create_ldarg(g, 300, &n), 0);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, n), 0);
    expect_code(g, 0, BYTES(0xFE, 0x09, 0x2C, 0x01));
    clrie_il_graph_free(g);
}

static void creation_checks_operand_kinds_and_ranges(void **state)
{
    struct clrie_il_graph *g, *other;
    assert_int_equal(clrie_il_graph_new(&g), 0);
    assert_int_equal(clrie_il_graph_new(&other), 0);
    struct clrie_il_instr *n = NULL, *foreign = make(other, CLRIE_IL_OP_NOP);
    assert_int_equal(clrie_il_instr_create(g, CLRIE_IL_OP_LDSTR, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create(g, 0x24, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_NOP, 1, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4_S, 128, &n), -ERANGE);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDARG_S, -1, &n), -ERANGE);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDSTR, 0x100000000LL, &n), -ERANGE);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I8, INT64_MIN, &n), 0);
    assert_int_equal(clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_I4, 1.0, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_R4, 0.5, &n), 0);
    assert_int_equal(clrie_il_instr_create_branch(g, CLRIE_IL_OP_NOP, NULL, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create_branch(g, CLRIE_IL_OP_BR, foreign, &n), -EINVAL);
    assert_int_equal(clrie_il_instr_create_switch(g, 1, &foreign, &n), -EINVAL);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, foreign), -EINVAL);
    /* A switch of new nodes, encoded relative to its end. */
    struct clrie_il_instr *ret = make(g, CLRIE_IL_OP_RET);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, ret), 0);
    struct clrie_il_instr *targets[2] = {ret, NULL};
    assert_int_equal(clrie_il_instr_create_switch(g, 2, targets, &n), 0);
    assert_int_equal(clrie_il_graph_insert_before(g, ret, n), 0);
    uint8_t *out;
    size_t len;
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_graph_encode_code(g, 0, &out, &len, &d), -EINVAL);
    assert_non_null(strstr(d.message, "target 1 is not in the method"));
    assert_int_equal(clrie_il_instr_set_switch_target(n, 1, n), 0);
    assert_int_equal(clrie_il_instr_set_switch_target(n, 2, n), -EINVAL);
    expect_code(g, 0, BYTES(0x45, 0x02, 0, 0, 0, 0x00, 0, 0, 0, 0xF3, 0xFF, 0xFF, 0xFF, 0x2A));
    /* Removing target 0 moves the self-reference down; the ret is no longer referenced. */
    assert_int_equal(clrie_il_instr_remove_switch_target(n, 0), 0);
    assert_int_equal(clrie_il_instr_switch_count(n), 1);
    assert_ptr_equal(clrie_il_instr_switch_target(n, 0), n);
    assert_int_equal(clrie_il_instr_remove_switch_target(n, 1), -EINVAL);
    assert_int_equal(clrie_il_graph_replace(g, n, make(g, CLRIE_IL_OP_NOP)), 0);
    expect_code(g, 0, BYTES(0x00, 0x2A));
    clrie_il_graph_free(g);
    clrie_il_graph_free(other);
}

/* Raw operand bytes round-trip through set_operand_bytes, with each kind's signedness. */
static void operand_bytes_set_what_operand_bytes_reads(void **state)
{
    struct clrie_il_graph *g;
    assert_int_equal(clrie_il_graph_new(&g), 0);
    struct clrie_il_instr *s8 = make(g, CLRIE_IL_OP_NOP), *n;
    int64_t v;
    double d;
    uint8_t raw[8];
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4_S, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0xFE)), 0);
    assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
    assert_int_equal(v, -2);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0xFE, 0)), -EINVAL);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDARG, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0x34, 0x82)), 0);
    assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
    assert_int_equal(v, 0x8234);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_CALL, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0x01, 0x00, 0x00, 0xA0)), 0);
    assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
    assert_int_equal(v, 0xA0000001LL);
    assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0xFF, 0xFF, 0xFF, 0xFF)), 0);
    assert_int_equal(clrie_il_instr_operand_int(n, &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_R4, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0x00, 0x00, 0xC0, 0x3F)), 0);
    assert_int_equal(clrie_il_instr_operand_real(n, &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(clrie_il_instr_operand_bytes(n, raw), 4);
    assert_memory_equal(raw, "\x00\x00\xC0\x3F", 4);
    assert_int_equal(clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_R8, 0, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0, 0, 0, 0, 0, 0, 0x04, 0xC0)), 0);
    assert_int_equal(clrie_il_instr_operand_real(n, &d), 0);
    assert_true(d == -2.5);
    /* No operand, branches and switches have no raw operand to set. */
    assert_int_equal(clrie_il_instr_set_operand_bytes(s8, BYTES(0)), -EINVAL);
    assert_int_equal(clrie_il_instr_create_branch(g, CLRIE_IL_OP_BR, NULL, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0, 0, 0, 0)), -EINVAL);
    assert_int_equal(clrie_il_instr_create_switch(g, 0, NULL, &n), 0);
    assert_int_equal(clrie_il_instr_set_operand_bytes(n, BYTES(0, 0, 0, 0)), -EINVAL);
    clrie_il_graph_free(g);
}

static void clauses_are_added_inner_before_outer(void **state)
{
    uint8_t code[9];
    memset(code, 0x00, 8);
    code[8] = 0x2A;
    struct clrie_il_graph *g = decode_code(code, sizeof(code));
    struct clrie_il_clause *a, *b, *c;
    struct clrie_il_clause_info info = {CLRIE_IL_EH_FINALLY, nth(g, 2), nth(g, 3), nth(g, 4),
                                        nth(g, 4),           NULL,      0};
    assert_int_equal(clrie_il_graph_add_clause(g, &info, &a), 0);
    info = (struct clrie_il_clause_info){CLRIE_IL_EH_CATCH, nth(g, 0), nth(g, 4), nth(g, 5),
                                         nth(g, 5),         NULL,      0x01000001};
    assert_int_equal(clrie_il_graph_add_clause(g, &info, &b), 0);
    info = (struct clrie_il_clause_info){CLRIE_IL_EH_FAULT, nth(g, 2), nth(g, 2), nth(g, 6),
                                         nth(g, 6),         NULL,      0};
    assert_int_equal(clrie_il_graph_add_clause(g, &info, &c), 0);
    assert_ptr_equal(clrie_il_graph_clause(g, 0), c);
    assert_ptr_equal(clrie_il_graph_clause(g, 1), a);
    assert_ptr_equal(clrie_il_graph_clause(g, 2), b);
    assert_int_equal(clrie_il_graph_remove_clause(g, a), 0);
    assert_int_equal(clrie_il_graph_remove_clause(g, a), -EINVAL);
    assert_int_equal(clrie_il_graph_clause_count(g), 2);
    assert_ptr_equal(clrie_il_graph_clause(g, 1), b);
    assert_null(clrie_il_graph_clause(g, 2));
    /* Appending does not reorder: an outer clause appended goes last even before an inner
     * one appended after it. */
    struct clrie_il_clause *outer, *inner;
    struct clrie_il_clause_info o = {CLRIE_IL_EH_FINALLY, nth(g, 0), nth(g, 6), nth(g, 7),
                                     nth(g, 7),           NULL,      0};
    struct clrie_il_clause_info in = {CLRIE_IL_EH_FINALLY, nth(g, 1), nth(g, 1), nth(g, 2),
                                      nth(g, 2),           NULL,      0};
    assert_int_equal(clrie_il_graph_append_clause(g, &o, &outer), 0);
    assert_int_equal(clrie_il_graph_append_clause(g, &in, &inner), 0);
    assert_ptr_equal(clrie_il_graph_clause(g, 2), outer);
    assert_ptr_equal(clrie_il_graph_clause(g, 3), inner);
    assert_int_equal(clrie_il_graph_remove_clause(g, outer), 0);
    assert_int_equal(clrie_il_graph_remove_clause(g, inner), 0);
    /* A filter clause needs a filter; others must not have one. */
    info.flags = CLRIE_IL_EH_FILTER;
    assert_int_equal(clrie_il_graph_add_clause(g, &info, NULL), -EINVAL);
    info.filter_first = nth(g, 5);
    assert_int_equal(clrie_il_graph_add_clause(g, &info, NULL), 0);
    info.flags = CLRIE_IL_EH_FINALLY;
    assert_int_equal(clrie_il_clause_set(g, c, &info), -EINVAL);
    info.filter_first = NULL;
    assert_int_equal(clrie_il_clause_set(g, c, &info), 0);
    clrie_il_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(insert_before_leaves_branches_on_the_anchor),
        cmocka_unit_test(insert_before_retarget_moves_branches_to_the_new_code),
        cmocka_unit_test(insert_before_retarget_keeps_the_new_branch_on_its_target),
        cmocka_unit_test(a_replaced_node_names_its_replacement),
        cmocka_unit_test(insert_after_null_puts_the_node_first),
        cmocka_unit_test(replace_moves_every_reference_to_the_replacement),
        cmocka_unit_test(remove_moves_branches_to_the_following_instruction),
        cmocka_unit_test(edits_move_clause_boundaries_by_their_rules),
        cmocka_unit_test(creation_helpers_pick_the_shortest_form),
        cmocka_unit_test(creation_checks_operand_kinds_and_ranges),
        cmocka_unit_test(operand_bytes_set_what_operand_bytes_reads),
        cmocka_unit_test(clauses_are_added_inner_before_outer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
