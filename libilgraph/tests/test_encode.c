/* Encoding: branch forms (shrinking, widening, cascades to a fixpoint), preserve mode,
 * header choice and the IL map. */
#include "helpers.h"

static void shortest_mode_shrinks_and_preserve_keeps_long_branches(void **state)
{
    static const uint8_t code[] = {0x38, 0x00, 0x00, 0x00, 0x00, 0x2A};
    struct clrie_il_graph *g = decode_code(code, sizeof(code));
    expect_code(g, CLRIE_IL_ENCODE_PRESERVE, code, sizeof(code));
    expect_code(g, 0, BYTES(0x2B, 0x00, 0x2A));
    assert_int_equal(clrie_il_instr_opcode(nth(g, 0)), CLRIE_IL_OP_BR_S);
    expect_code(g, CLRIE_IL_ENCODE_PRESERVE, code, sizeof(code));
    assert_int_equal(clrie_il_instr_opcode(nth(g, 0)), CLRIE_IL_OP_BR);
    clrie_il_graph_free(g);
}

/* ldc.i4 0x11223344; ldarg.s 7; switch (to the nop); br.s (to the second br.s); nop; br.s
 * (to the nop); ret */
static const uint8_t edited_code[] = {0x20, 0x44, 0x33, 0x22, 0x11, 0x0E, 0x07, 0x45,
                                      0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
                                      0x2B, 0x01, 0x00, 0x2B, 0xFD, 0x2A};

/* An unedited graph encodes to the bytes it was decoded from, copied or written; every kind
 * of edit, a layout-neutral operand change included, is written from the nodes. */
static void every_edit_is_encoded_and_unedited_code_is_copied(void **state)
{
    for (int edit = 0; edit <= 6; edit++) {
        struct clrie_il_graph *g = decode_code(edited_code, sizeof(edited_code));
        struct clrie_il_instr *ldc = nth(g, 0), *ldarg = nth(g, 1), *sw = nth(g, 2);
        struct clrie_il_instr *br = nth(g, 3), *ret = nth(g, 6);
        switch (edit) {
        case 0: /* none */
            break;
        case 1:
            assert_int_equal(clrie_il_instr_set_operand_int(ldc, 5), 0);
            break;
        case 2:
            assert_int_equal(clrie_il_instr_set_operand_bytes(ldarg, BYTES(9)), 0);
            break;
        case 3:
            assert_int_equal(clrie_il_instr_set_branch_target(br, ret), 0);
            break;
        case 4:
            assert_int_equal(clrie_il_instr_set_switch_target(sw, 0, ret), 0);
            break;
        case 5:
            assert_int_equal(clrie_il_instr_remove_switch_target(sw, 0), 0);
            break;
        case 6:
            assert_int_equal(clrie_il_instr_expand_branch(br), 0);
            break;
        }
        uint8_t *copied, *written;
        size_t copied_len, written_len;
        assert_int_equal(
            clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE, &copied, &copied_len, NULL), 0);
        assert_int_equal(
            clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE | CLRIE_IL_ENCODE_REWRITE,
                                       &written, &written_len, NULL),
            0);
        assert_bytes(copied, copied_len, written, written_len);
        if (edit == 0)
            assert_bytes(copied, copied_len, edited_code, sizeof(edited_code));
        else
            assert_true(copied_len != sizeof(edited_code) ||
                        memcmp(copied, edited_code, copied_len) != 0);
        free(copied);
        free(written);
        clrie_il_graph_free(g);
    }
}

/* With no long branch to shorten, the shortest layout of an unedited graph is the decoded
 * one; with one, its code is written shorter, then copied again under PRESERVE. */
static void unedited_graphs_lay_out_as_decoded_unless_a_branch_shrinks(void **state)
{
    struct clrie_il_graph *g = decode_code(edited_code, sizeof(edited_code));
    expect_code(g, 0, edited_code, sizeof(edited_code));
    expect_code(g, CLRIE_IL_ENCODE_PRESERVE, edited_code, sizeof(edited_code));
    assert_int_equal(clrie_il_instr_offset(nth(g, 6)), sizeof(edited_code) - 1);
    clrie_il_graph_free(g);

    static const uint8_t wide[] = {0x00, 0x38, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2A};
    g = decode_code(wide, sizeof(wide));
    expect_code(g, 0, BYTES(0x00, 0x2B, 0x01, 0x00, 0x2A));
    assert_int_equal(clrie_il_instr_offset(nth(g, 3)), 4);
    expect_code(g, CLRIE_IL_ENCODE_PRESERVE, wide, sizeof(wide));
    assert_int_equal(clrie_il_instr_offset(nth(g, 3)), 7);
    clrie_il_graph_free(g);
}

/* Appends count nops before `before` (or at the end when NULL). */
static void nops(struct clrie_il_graph *g, struct clrie_il_instr *before, int count)
{
    for (int i = 0; i < count; i++) {
        struct clrie_il_instr *n = make(g, CLRIE_IL_OP_NOP);
        if (before)
            assert_int_equal(clrie_il_graph_insert_before(g, before, n), 0);
        else
            assert_int_equal(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), n), 0);
    }
}

static void short_branches_widen_when_the_target_moves_out_of_reach(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x2B, 0x00, 0x2A)); /* br.s +0; ret */
    struct clrie_il_instr *ret = nth(g, 1);
    nops(g, ret, 127);
    uint8_t *out;
    size_t len;
    assert_int_equal(clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, NULL), 0);
    assert_int_equal(len, 130);
    assert_int_equal(out[0], 0x2B);
    assert_int_equal(out[1], 127);
    free(out);
    nops(g, ret, 1);
    assert_int_equal(clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, NULL), 0);
    assert_int_equal(len, 134);
    assert_memory_equal(out, "\x38\x80\x00\x00\x00", 5);
    free(out);
    clrie_il_graph_free(g);
}

static void backward_branches_reach_exactly_minus_128(void **state)
{
    for (int pad = 126; pad <= 127; pad++) {
        struct clrie_il_graph *g;
        assert_int_equal(clrie_il_graph_new(&g), 0);
        nops(g, NULL, pad);
        struct clrie_il_instr *br = make_branch(g, CLRIE_IL_OP_BR, clrie_il_graph_first(g));
        assert_int_equal(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), br), 0);
        uint8_t *out;
        size_t len;
        assert_int_equal(clrie_il_graph_encode_code(g, 0, &out, &len, NULL), 0);
        if (pad == 126) {
            assert_int_equal(len, 128);
            assert_memory_equal(out + 126, "\x2B\x80", 2);
        } else {
            assert_int_equal(len, 132);
            assert_memory_equal(out + 127, "\x38\x7C\xFF\xFF\xFF", 5); /* -132 */
        }
        free(out);
        clrie_il_graph_free(g);
    }
}

/* A: br.s T sits 127 bytes short of T while B (between them) is short; B must widen (its
 * target is far), which pushes T out of A's reach: both end long. */
static void widening_cascades_to_a_fixpoint(void **state)
{
    struct clrie_il_graph *g;
    assert_int_equal(clrie_il_graph_new(&g), 0);
    struct clrie_il_instr *t = make(g, CLRIE_IL_OP_RET), *f = make(g, CLRIE_IL_OP_RET);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, t), 0);
    nops(g, NULL, 200);
    assert_int_equal(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), f), 0);
    nops(g, t, 125);
    struct clrie_il_instr *b = make_branch(g, CLRIE_IL_OP_BR_S, f);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, b), 0);
    struct clrie_il_instr *a = make_branch(g, CLRIE_IL_OP_BR_S, t);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, a), 0);
    uint8_t *out;
    size_t len;
    assert_int_equal(clrie_il_graph_encode_code(g, 0, &out, &len, NULL), 0);
    /* A at 0 (5 bytes), B at 5 (5 bytes), 125 nops, T at 135, 200 nops, F at 336. */
    assert_int_equal(len, 337);
    assert_memory_equal(out, "\x38\x82\x00\x00\x00", 5);     /* 135 - 5 */
    assert_memory_equal(out + 5, "\x38\x46\x01\x00\x00", 5); /* 336 - 10 */
    assert_int_equal(clrie_il_instr_offset(t), 135);
    assert_int_equal(clrie_il_instr_offset(f), 336);
    free(out);
    /* Three nops fewer: B still cannot reach F, but A now reaches T at exactly +127. Each
     * layout starts from the short forms, so A shrinks back. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(clrie_il_graph_remove(g, clrie_il_instr_next(b)), 0);
    assert_int_equal(clrie_il_graph_encode_code(g, 0, &out, &len, NULL), 0);
    /* A at 0 (2 bytes), B at 2 (5 bytes), 122 nops, T at 129, 200 nops, F at 330. */
    assert_int_equal(len, 331);
    assert_memory_equal(out, "\x2B\x7F", 2);
    free(out);
    clrie_il_graph_free(g);
}

/* The reference: every branch short, then widen every short branch that does not reach at
 * the current offsets, all at once, until none changes. sizes[i] is instruction i's size
 * when it is not a branch; target[i] is a branch's target index, or -1. Fills is_long. */
static void reference_forms(size_t n, const uint32_t *sizes, const long *target, bool *is_long)
{
    uint32_t *off = calloc(n + 1, sizeof(*off));
    assert_non_null(off);
    for (size_t i = 0; i < n; i++)
        is_long[i] = false;
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < n; i++)
            off[i + 1] = off[i] + (target[i] < 0 ? sizes[i] : is_long[i] ? 5u : 2u);
        for (size_t i = 0; i < n; i++) {
            if (target[i] < 0 || is_long[i])
                continue;
            long disp = (long)off[target[i]] - (long)(off[i] + 2);
            if (disp < -128 || disp > 127) {
                is_long[i] = true;
                changed = true;
            }
        }
    }
    free(off);
}

/* Random methods whose branches straddle the reach of the short form, forward and back,
 * nested and chained: the encoder picks the same long branches as the reference, and every
 * node's offset is where the encoded code puts it, however often the method is laid out,
 * built or decoded. */
static void branch_forms_match_a_reference_fixpoint(void **state)
{
    uint64_t rng = 0x2545F4914F6CDD1Du;
    for (int round = 0; round < 200; round++) {
        size_t n = 20 + (size_t)(rng % 400);
        struct clrie_il_graph *g;
        assert_int_equal(clrie_il_graph_new(&g), 0);
        struct clrie_il_instr **nodes = calloc(n, sizeof(*nodes));
        uint32_t *sizes = calloc(n, sizeof(*sizes));
        long *target = calloc(n, sizeof(*target));
        bool *is_long = calloc(n, sizeof(*is_long));
        assert_true(nodes && sizes && target && is_long);
        for (size_t i = 0; i < n; i++) {
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            unsigned pick = (unsigned)(rng >> 33) % 8;
            target[i] = -1;
            if (i + 1 == n) {
                nodes[i] = make(g, CLRIE_IL_OP_RET);
            } else if (pick < 3) { /* a branch, aimed below */
                nodes[i] = make_branch(g, pick ? CLRIE_IL_OP_BR : CLRIE_IL_OP_BRTRUE, NULL);
                target[i] = -2;
            } else if (pick < 5) {
                nodes[i] = make(g, CLRIE_IL_OP_NOP);
            } else {
                struct clrie_il_instr *ldc;
                assert_int_equal(clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4, 1, &ldc), 0);
                nodes[i] = ldc;
            }
            sizes[i] = clrie_il_instr_size(nodes[i]);
            assert_int_equal(clrie_il_graph_insert_after(g, clrie_il_graph_last(g), nodes[i]), 0);
        }
        for (size_t i = 0; i < n; i++) {
            if (target[i] != -2)
                continue;
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            /* Mostly 20 to 60 instructions away (about the short form's reach), either way. */
            long span = 20 + (long)((rng >> 33) % 41),
                 t = (rng >> 40) & 1 ? (long)i + span : (long)i - span;
            t = t < 0 ? 0 : t >= (long)n ? (long)n - 1 : t;
            target[i] = t;
            assert_int_equal(clrie_il_instr_set_branch_target(nodes[i], nodes[t]), 0);
        }
        reference_forms(n, sizes, target, is_long);
        uint8_t *out;
        size_t len;
        assert_int_equal(clrie_il_graph_encode_code(g, 0, &out, &len, NULL), 0);
        size_t at = 0;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(clrie_il_instr_offset(nodes[i]), at);
            if (target[i] >= 0) {
                uint8_t op = out[at];
                bool long_form = op == 0x38 || op == 0x3A; /* br, brtrue */
                assert_true(long_form || op == 0x2B || op == 0x2D);
                assert_int_equal(long_form, is_long[i]);
                at += long_form ? 5 : 2;
            } else {
                at += sizes[i];
            }
        }
        assert_int_equal(at, len);
        /* Laid out again, as an engine does after each edit, with the layout's memory from
         * the layouts before: the same bytes, in either mode's order. */
        for (int again = 0; again < 2; again++) {
            uint8_t *out2;
            size_t len2;
            assert_int_equal(
                clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE, &out2, &len2, NULL), 0);
            free(out2);
            assert_int_equal(clrie_il_graph_encode_code(g, 0, &out2, &len2, NULL), 0);
            assert_int_equal(len2, len);
            assert_memory_equal(out2, out, len);
            free(out2);
        }
        /* Decoded, the shortest code is its own shortest layout (which the fixpoint over its
         * branches alone finds), and the same code with every branch long shrinks to it. */
        clrie_il_graph_expand_branches(g);
        uint8_t *wide;
        size_t wide_len;
        assert_int_equal(
            clrie_il_graph_encode_code(g, CLRIE_IL_ENCODE_PRESERVE, &wide, &wide_len, NULL), 0);
        for (int k = 0; k < 2; k++) {
            struct clrie_il_graph *h = decode_code(k ? wide : out, k ? wide_len : len);
            expect_code(h, 0, out, len);
            expect_code(h, CLRIE_IL_ENCODE_PRESERVE, k ? wide : out, k ? wide_len : len);
            clrie_il_graph_free(h);
        }
        free(wide);
        free(out);
        free(nodes);
        free(sizes);
        free(target);
        free(is_long);
        clrie_il_graph_free(g);
    }
}

static void expanded_branches_stay_long(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x2B, 0x00, 0x2D, 0x00, 0x2A));
    assert_int_equal(clrie_il_instr_expand_branch(nth(g, 0)), 0);
    assert_int_equal(clrie_il_instr_opcode(nth(g, 0)), CLRIE_IL_OP_BR);
    expect_code(g, 0, BYTES(0x38, 0x00, 0x00, 0x00, 0x00, 0x2D, 0x00, 0x2A));
    expect_code(g, CLRIE_IL_ENCODE_PRESERVE, BYTES(0x38, 0x00, 0x00, 0x00, 0x00, 0x2D, 0x00, 0x2A));
    clrie_il_graph_expand_branches(g);
    expect_code(g, 0, BYTES(0x38, 0, 0, 0, 0, 0x3A, 0, 0, 0, 0, 0x2A));
    assert_int_equal(clrie_il_instr_expand_branch(nth(g, 2)), -EINVAL);
    clrie_il_graph_free(g);
}

static void il_map_attributes_new_code_to_the_next_original(void **state)
{
    /* ldarg.0; brtrue.s L; ldc.i4.0; ret; L: ldc.i4.1; ret */
    struct clrie_il_graph *g = decode_code(BYTES(0x02, 0x2D, 0x02, 0x16, 0x2A, 0x17, 0x2A));
    struct clrie_il_instr *l = clrie_il_graph_at_original_offset(g, 5);
    assert_int_equal(clrie_il_graph_insert_before_retarget(g, l, make(g, CLRIE_IL_OP_NOP)), 0);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, make(g, CLRIE_IL_OP_NOP)), 0);
    assert_int_equal(clrie_il_graph_remove(g, clrie_il_graph_at_original_offset(g, 3)), 0);
    expect_code(g, 0, BYTES(0x00, 0x02, 0x2D, 0x01, 0x2A, 0x00, 0x17, 0x2A));
    struct clrie_il_map_entry *map;
    size_t n;
    assert_int_equal(clrie_il_graph_il_map(g, &map, &n), 0);
    static const struct clrie_il_map_entry want[] = {{0, 0}, {1, 2}, {4, 4}, {5, 5}, {6, 7}};
    assert_int_equal(n, 5);
    assert_memory_equal(map, want, sizeof(want));
    free(map);
    clrie_il_graph_free(g);
}

static void headers_grow_to_fat_when_needed(void **state)
{
    struct clrie_il_graph *g = decode_body(BYTES(0x06, 0x2A)); /* tiny: ret */
    nops(g, nth(g, 0), 62);
    uint8_t *out;
    size_t len;
    assert_int_equal(clrie_il_graph_encode(g, 0, &out, &len, NULL), 0);
    assert_int_equal(len, 64);
    assert_int_equal(out[0], (63 << 2) | 2);
    free(out);
    nops(g, nth(g, 0), 1);
    assert_int_equal(clrie_il_graph_encode(g, 0, &out, &len, NULL), 0);
    assert_int_equal(len, 76);
    assert_memory_equal(out, "\x03\x30\x08\x00\x40\x00\x00\x00\x00\x00\x00\x00", 12);
    free(out);
    /* An explicit fat header carries flags, max stack and locals. */
    clrie_il_graph_set_fat_header(g, CLRIE_IL_HEADER_INIT_LOCALS, 20, 0x11000002);
    assert_int_equal(clrie_il_graph_encode(g, 0, &out, &len, NULL), 0);
    assert_memory_equal(out, "\x13\x30\x14\x00\x40\x00\x00\x00\x02\x00\x00\x11", 12);
    free(out);
    clrie_il_graph_free(g);
}

static void branches_without_targets_are_refused(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x2A));
    struct clrie_il_instr *br = make_branch(g, CLRIE_IL_OP_BRTRUE, NULL);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, br), 0);
    uint8_t *out = NULL;
    size_t len;
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_graph_encode(g, 0, &out, &len, &d), -EINVAL);
    assert_null(out);
    assert_non_null(strstr(d.message, "brtrue (instruction 0) has no target"));
    assert_int_equal(clrie_il_instr_set_branch_target(br, nth(g, 1)), 0);
    expect_code(g, 0, BYTES(0x2D, 0x00, 0x2A));
    assert_int_equal(clrie_il_instr_set_branch_target(nth(g, 1), br), -EINVAL); /* ret */
    clrie_il_graph_free(g);
}

static void eh_sections_grow_to_fat_when_offsets_do_not_fit(void **state)
{
    /* try { nop; leave.s END } finally { endfinally } END: ret */
    static const uint8_t body[] = {
        0x0B, 0x30, 0x01, 0x00, 0x05, 0, 0,    0, 0, 0, 0, 0, 0x00, 0xDE, 0x01, 0xDC, 0x2A, 0,
        0,    0,    0x01, 0x10, 0,    0, 0x02, 0, 0, 0, 3, 3, 0,    1,    0,    0,    0,    0,
    };
    struct clrie_il_graph *g = decode_body(body, sizeof(body));
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, body, sizeof(body));
    nops(g, nth(g, 1), 300); /* the try block is now 303 bytes: too long for a small clause */
    uint8_t *out;
    size_t len;
    assert_int_equal(clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE, &out, &len, NULL), 0);
    /* 12 header + 305 code (leave.s still reaches END), then one fat section: try 0..303. */
    size_t eh = (12 + 305 + 3) & ~3u;
    assert_int_equal(len, eh + 28);
    assert_memory_equal(out + eh, "\x41\x1C\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x2F\x01", 14);
    free(out);
    clrie_il_graph_free(g);
}

/* Two sections decoded; once the clause table is edited, PRESERVE writes one section. */
static void edited_clause_tables_are_written_as_one_section(void **state)
{
    static const uint8_t body[] =
        {
            0x0B, 0x30, 0x02, 0x00, 0x0B, 0,    0,    0,    0,    0,    0,    0, /* fat, MoreSects
                                                                                  */
            0x00, 0xDE, 0x07, 0x26, 0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A, 0x00, 0x81,
            0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x07, 0x00, 0x03, 0x03, 0x00,
            0x00, 0x00, 0x41, 0x1C, 0x00, 0x00, 0,    0,    0,    0,    0,    0,    0,
            0,    3,    0,    0,    0,    7,    0,    0,    0,    3,    0,    0,    0,
            2,    0,    0,    1,    0xEE, 0xEE, /* trailing bytes after the body are ignored */
        };
    struct clrie_il_graph *g = decode_body(body, sizeof(body));
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, body, sizeof(body) - 2);
    assert_int_equal(clrie_il_graph_remove_clause(g, clrie_il_graph_clause(g, 1)), 0);
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE,
                BYTES(0x0B, 0x30, 0x02, 0x00, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xDE, 0x07, 0x26,
                      0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A, 0x00, 0x01, 0x10, 0x00, 0x00, 0x01,
                      0x00, 0x00, 0x00, 0x03, 0x07, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00));
    /* No clauses left: no MoreSects, no section. */
    assert_int_equal(clrie_il_graph_remove_clause(g, clrie_il_graph_clause(g, 0)), 0);
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE,
                BYTES(0x03, 0x30, 0x02, 0x00, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xDE, 0x07, 0x26,
                      0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A));
    clrie_il_graph_free(g);
}

static void il_map_drops_replaced_originals(void **state)
{
    /* ldc.i4.1; ldc.i4.2; add; ret -- replace the add with sub plus a nop before it. */
    struct clrie_il_graph *g = decode_code(BYTES(0x17, 0x18, 0x58, 0x2A));
    struct clrie_il_instr *sub = make(g, CLRIE_IL_OP_ADD + 1);
    assert_int_equal(clrie_il_graph_replace(g, nth(g, 2), sub), 0);
    assert_int_equal(clrie_il_graph_insert_before(g, sub, make(g, CLRIE_IL_OP_NOP)), 0);
    expect_code(g, 0, BYTES(0x17, 0x18, 0x00, 0x59, 0x2A));
    struct clrie_il_map_entry *map;
    size_t n;
    assert_int_equal(clrie_il_graph_il_map(g, &map, &n), 0);
    static const struct clrie_il_map_entry want[] = {{0, 0}, {1, 1}, {3, 2}};
    assert_int_equal(n, 3);
    assert_memory_equal(map, want, sizeof(want));
    free(map);
    clrie_il_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shortest_mode_shrinks_and_preserve_keeps_long_branches),
        cmocka_unit_test(every_edit_is_encoded_and_unedited_code_is_copied),
        cmocka_unit_test(unedited_graphs_lay_out_as_decoded_unless_a_branch_shrinks),
        cmocka_unit_test(short_branches_widen_when_the_target_moves_out_of_reach),
        cmocka_unit_test(backward_branches_reach_exactly_minus_128),
        cmocka_unit_test(widening_cascades_to_a_fixpoint),
        cmocka_unit_test(branch_forms_match_a_reference_fixpoint),
        cmocka_unit_test(expanded_branches_stay_long),
        cmocka_unit_test(il_map_attributes_new_code_to_the_next_original),
        cmocka_unit_test(headers_grow_to_fat_when_needed),
        cmocka_unit_test(branches_without_targets_are_refused),
        cmocka_unit_test(eh_sections_grow_to_fat_when_offsets_do_not_fit),
        cmocka_unit_test(edited_clause_tables_are_written_as_one_section),
        cmocka_unit_test(il_map_drops_replaced_originals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
