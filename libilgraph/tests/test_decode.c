/* Decoding: every opcode and operand kind, both header kinds, EH sections, and each class of
 * malformed input rejected with its byte offset. */
#include "clrie/os/thread.h"

#include "helpers.h"

/* Builds "<opcode><operand> nop" for one opcode; returns the byte count. */
static size_t one_instruction(uint16_t op, uint8_t *buf)
{
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(op);
    size_t n = 0;
    if (op >= 0x100)
        buf[n++] = 0xFE;
    buf[n++] = (uint8_t)op;
    switch (info->operand_kind) {
    case CLRIE_IL_OPERAND_SWITCH: /* two targets: the nop after it, and itself */
        memcpy(buf + n, "\x02\x00\x00\x00\x00\x00\x00\x00\xF3\xFF\xFF\xFF", 12);
        n += 12;
        break;
    case CLRIE_IL_OPERAND_BRANCH8:
        buf[n++] = 0x00; /* to the next instruction */
        break;
    case CLRIE_IL_OPERAND_BRANCH32:
        memcpy(buf + n, "\x00\x00\x00\x00", 4);
        n += 4;
        break;
    default:
        for (unsigned i = 0; i < info->operand_len; i++)
            buf[n++] = (uint8_t)(0x81 + i);
        break;
    }
    buf[n++] = 0x00;
    return n;
}

static void every_opcode_decodes_and_encodes_back_exactly(void **state)
{
    int defined = 0;
    for (unsigned op = 0; op < CLRIE_IL_OP_COUNT + 2; op++) {
        const struct clrie_il_opcode_info *info = clrie_il_opcode_info((uint16_t)op);
        if (!info)
            continue;
        defined++;
        assert_int_equal(info->ordinal, op);
        assert_int_equal(info->opcode_len, op >= 0x100 ? 2 : 1);
        uint8_t buf[32];
        size_t n = one_instruction((uint16_t)op, buf);
        struct clrie_il_graph *g = decode_code(buf, n);
        assert_int_equal(clrie_il_graph_count(g), 2);
        struct clrie_il_instr *i = clrie_il_graph_first(g);
        assert_int_equal(clrie_il_instr_opcode(i), op);
        assert_int_equal(clrie_il_instr_size(i), n - 1);
        assert_int_equal(clrie_il_instr_original_offset(i), 0);
        assert_false(clrie_il_instr_is_new(i));
        struct clrie_il_instr *nop = clrie_il_instr_next(i);
        if (info->operand_kind == CLRIE_IL_OPERAND_BRANCH8 ||
            info->operand_kind == CLRIE_IL_OPERAND_BRANCH32)
            assert_ptr_equal(clrie_il_instr_branch_target(i), nop);
        if (info->operand_kind == CLRIE_IL_OPERAND_SWITCH) {
            assert_int_equal(clrie_il_instr_switch_count(i), 2);
            assert_ptr_equal(clrie_il_instr_switch_target(i, 0), nop);
            assert_ptr_equal(clrie_il_instr_switch_target(i, 1), i);
        }
        expect_code(g, CLRIE_IL_ENCODE_PRESERVE, buf, n);
        clrie_il_graph_free(g);
    }
    assert_int_equal(defined, 219);
    /* Undefined ordinals and CLRIE's own spelling rules. */
    assert_null(clrie_il_opcode_info(0x24));
    assert_null(clrie_il_opcode_info(0xA6));
    assert_null(clrie_il_opcode_info(0x108));
    assert_null(clrie_il_opcode_info(0x11F));
    assert_null(clrie_il_opcode_info(CLRIE_IL_OP_COUNT));
    assert_string_equal(clrie_il_opcode_info(CLRIE_IL_OP_CONSTRAINED)->name, "constrained.");
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BR_S)->alternate, CLRIE_IL_OP_BR);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_LEAVE)->alternate, CLRIE_IL_OP_LEAVE_S);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BR_S)->clrie_operand,
                     CLRIE_IL_CLRIE_OPERAND_BYTE);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_CALLVIRT)->termination,
                     CLRIE_IL_TERM_INDIRECT_CALL);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BREAK)->termination, CLRIE_IL_TERM_TRAP);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_ENDFINALLY)->termination,
                     CLRIE_IL_TERM_RETURN);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BLT)->termination,
                     CLRIE_IL_TERM_CONDITIONAL_BRANCH);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_NEWOBJ)->termination, CLRIE_IL_TERM_CALL);
    /* CLRIE's opcode flags (ILOpcodes.h): every branch and leave is Branch; prefixes carry none. */
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BR_S)->clrie_flags,
                     CLRIE_IL_CLRIE_FLAG_BRANCH);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_LEAVE_S)->clrie_flags,
                     CLRIE_IL_CLRIE_FLAG_BRANCH);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BR)->clrie_flags, CLRIE_IL_CLRIE_FLAG_BRANCH);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_BLT_UN)->clrie_flags,
                     CLRIE_IL_CLRIE_FLAG_BRANCH);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_SWITCH)->clrie_flags, 0);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_LDC_I4_S)->clrie_flags, 0);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_TAIL)->clrie_flags, 0);
    assert_int_equal(clrie_il_opcode_info(CLRIE_IL_OP_NOP)->clrie_flags, 0);
}

static void operands_have_their_values(void **state)
{
    struct clrie_il_graph *g =
        decode_code(BYTES(0x1F, 0xFB,                         /* ldc.i4.s -5 */
                          0x0E, 0xC8,                         /* ldarg.s 200 */
                          0xFE, 0x0C, 0x34, 0x12,             /* ldloc 0x1234 */
                          0x20, 0x60, 0x79, 0xFE, 0xFF,       /* ldc.i4 -100000 */
                          0x21, 0x01, 0, 0, 0, 0, 0, 0, 0x80, /* ldc.i8 INT64_MIN + 1 */
                          0x22, 0x00, 0x00, 0xC0, 0x3F,       /* ldc.r4 1.5 */
                          0x23, 0, 0, 0, 0, 0, 0, 0x02, 0xC0, /* ldc.r8 -2.25 */
                          0x28, 0x01, 0x00, 0x00, 0x0A,       /* call 0x0A000001 */
                          0xFE, 0x12, 0x04,                   /* unaligned. 4 */
                          0xFE, 0x16, 0x02, 0x00, 0x00, 0x1B, /* constrained. 0x1B000002 */
                          0xFE, 0x19, 0x03,                   /* no. 3 */
                          0x2A));
    int64_t v;
    double d;
    uint8_t raw[8];
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 0), &v), 0);
    assert_int_equal(v, -5);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 1), &v), 0);
    assert_int_equal(v, 200);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 2), &v), 0);
    assert_int_equal(v, 0x1234);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 3), &v), 0);
    assert_int_equal(v, -100000);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 4), &v), 0);
    assert_true(v == INT64_MIN + 1);
    assert_int_equal(clrie_il_instr_operand_real(nth(g, 5), &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(clrie_il_instr_operand_real(nth(g, 6), &d), 0);
    assert_true(d == -2.25);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 7), &v), 0);
    assert_int_equal(v, 0x0A000001);
    assert_int_equal(clrie_il_instr_operand_bytes(nth(g, 7), raw), 4);
    assert_memory_equal(raw, "\x01\x00\x00\x0A", 4);
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 8), &v), 0);
    assert_int_equal(v, 4);
    assert_int_equal(clrie_il_instr_opcode(nth(g, 9)), CLRIE_IL_OP_CONSTRAINED);
    assert_int_equal(clrie_il_instr_opcode(nth(g, 10)), CLRIE_IL_OP_NO);
    assert_int_equal(clrie_il_instr_original_offset(nth(g, 11)), 53);
    /* Operand accessors refuse the wrong kind. */
    assert_int_equal(clrie_il_instr_operand_int(nth(g, 5), &v), -EINVAL);
    assert_int_equal(clrie_il_instr_operand_real(nth(g, 0), &d), -EINVAL);
    assert_int_equal(clrie_il_instr_set_operand_int(nth(g, 1), 256), -ERANGE);
    assert_int_equal(clrie_il_instr_set_operand_int(nth(g, 1), 255), 0);
    clrie_il_graph_free(g);
}

/* ldarg.0 ldarg.1 add ret in a tiny header. */
static void tiny_header_round_trips(void **state)
{
    static const uint8_t b[] = {0x12, 0x02, 0x03, 0x58, 0x2A};
    const size_t n = sizeof(b);
    struct clrie_il_graph *g = decode_body(b, n);
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    assert_false(h.fat);
    assert_int_equal(h.max_stack, 8);
    assert_int_equal(h.code_size, 4);
    assert_int_equal(h.local_sig_token, 0);
    assert_int_equal(clrie_il_graph_count(g), 4);
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, b, n);
    expect_body(g, 0, b, n);
    /* Forced fat: flags are just the format; max stack 8 as the tiny header implied. */
    expect_body(g, CLRIE_IL_ENCODE_FAT_HEADER,
                BYTES(0x03, 0x30, 0x08, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x03, 0x58, 0x2A));
    clrie_il_graph_free(g);
}

/* try { nop; leave.s END } catch [0x01000001] { pop; leave.s END } END: ret */
static const uint8_t try_catch[] = {
    0x1B, 0x30, 0x01, 0x00, 0x07, 0,    0,    0,
    0x05, 0,    0,    0x11,                         /* fat, InitLocals, MoreSects */
    0x00, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A, 0x00, /* code, pad */
    0x01, 0x10, 0x00, 0x00,                         /* small EH section, 1 clause */
    0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x03,
    0x01, 0x00, 0x00, 0x01,
};

static void fat_header_and_small_eh_round_trip(void **state)
{
    struct clrie_il_graph *g = decode_body(try_catch, sizeof(try_catch));
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    assert_true(h.fat);
    assert_int_equal(h.max_stack, 1);
    assert_int_equal(h.local_sig_token, 0x11000005);
    assert_true(h.flags & CLRIE_IL_HEADER_INIT_LOCALS);
    assert_int_equal(clrie_il_graph_clause_count(g), 1);
    struct clrie_il_clause_info c;
    clrie_il_clause_get(clrie_il_graph_clause(g, 0), &c);
    assert_int_equal(c.flags, CLRIE_IL_EH_CATCH);
    assert_ptr_equal(c.try_first, nth(g, 0));
    assert_ptr_equal(c.try_last, nth(g, 1));
    assert_ptr_equal(c.handler_first, nth(g, 2));
    assert_ptr_equal(c.handler_last, nth(g, 3));
    assert_null(c.filter_first);
    assert_int_equal(c.class_token, 0x01000001);
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, try_catch, sizeof(try_catch));
    expect_body(g, 0, try_catch, sizeof(try_catch));
    /* Forced fat EH: same clause in 24 bytes. */
    expect_body(g, CLRIE_IL_ENCODE_FAT_EH,
                BYTES(0x1B, 0x30, 0x01, 0x00, 0x07, 0, 0, 0, 0x05, 0, 0, 0x11, 0x00, 0xDE, 0x03,
                      0x26, 0xDE, 0x00, 0x2A, 0x00, 0x41, 0x1C, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
                      3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 0x01, 0x00, 0x00, 0x01));
    clrie_il_graph_free(g);
}

/* Two sections (one small, one fat) and a filter clause survive a round trip as they were. */
static const uint8_t two_sections[] = {
    0x0B,
    0x30,
    0x02,
    0x00,
    0x0B,
    0,
    0,
    0,
    0,
    0,
    0,
    0, /* fat, MoreSects */
    /* 0 nop; 1 leave.s 10; 3 pop; 4 ldc.i4.1; 5 endfilter; 7 pop; 8 leave.s 10; 10 ret */
    0x00,
    0xDE,
    0x07,
    0x26,
    0x17,
    0xFE,
    0x11,
    0x26,
    0xDE,
    0x00,
    0x2A,
    0x00,
    0x81,
    0x10,
    0x00,
    0x00, /* small section, more follow: filter 3, handler 7..10 */
    0x01,
    0x00,
    0x00,
    0x00,
    0x03,
    0x07,
    0x00,
    0x03,
    0x03,
    0x00,
    0x00,
    0x00,
    0x41,
    0x1C,
    0x00,
    0x00, /* fat section, last: catch, handler 7..10 */
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    3,
    0,
    0,
    0,
    7,
    0,
    0,
    0,
    3,
    0,
    0,
    0,
    2,
    0,
    0,
    1,
};

static void several_sections_and_filters_round_trip(void **state)
{
    struct clrie_il_graph *g = decode_body(two_sections, sizeof(two_sections));
    assert_int_equal(clrie_il_graph_clause_count(g), 2);
    struct clrie_il_clause_info c;
    clrie_il_clause_get(clrie_il_graph_clause(g, 0), &c);
    assert_int_equal(c.flags, CLRIE_IL_EH_FILTER);
    assert_ptr_equal(c.filter_first, clrie_il_graph_at_original_offset(g, 3));
    assert_ptr_equal(c.handler_first, clrie_il_graph_at_original_offset(g, 7));
    assert_ptr_equal(c.handler_last, clrie_il_graph_at_original_offset(g, 8));
    clrie_il_clause_get(clrie_il_graph_clause(g, 1), &c);
    assert_int_equal(c.flags, CLRIE_IL_EH_CATCH);
    assert_int_equal(c.class_token, 0x01000002);
    assert_ptr_equal(c.try_last, clrie_il_graph_at_original_offset(g, 1));
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, two_sections, sizeof(two_sections));
    clrie_il_graph_free(g);
}

static void malformed_headers_are_rejected_with_offsets(void **state)
{
    expect_bad_body(NULL, 0, 0, "empty body");
    expect_bad_body(BYTES(0x00, 0x00), 0, "not a method header");
    expect_bad_body(BYTES(0x01), 0, "not a method header");
    expect_bad_body(BYTES(0x03, 0x30, 0x08, 0x00, 0x01), 5, "needs 12 bytes");
    expect_bad_body(BYTES(0x03, 0x20, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A), 1,
                    "size is 2 dwords");
    /* the offset of the size that claims too much: the tiny header, the fat CodeSize */
    expect_bad_body(BYTES(0x16, 0x00), 0, "runs past the end"); /* tiny, 5 bytes claimed */
    expect_bad_body(BYTES(0x03, 0x30, 0x08, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0x2A), 4,
                    "runs past the end");
}

static void malformed_code_is_rejected_with_offsets(void **state)
{
    expect_bad_code(BYTES(0x00, 0x24), 1, "unknown opcode 0x24");
    expect_bad_code(BYTES(0x00, 0xFE, 0x08), 1, "unknown opcode 0xFE 0x08");
    expect_bad_code(BYTES(0x00, 0xFE), 1, "cut off after 0xFE");
    expect_bad_code(BYTES(0x20, 0x01, 0x02), 0, "needs a 4-byte operand but only 2");
    expect_bad_code(BYTES(0xFE, 0x0C, 0x01), 0, "needs a 2-byte operand but only 1");
    expect_bad_code(BYTES(0x00, 0x2B, 0x05, 0x2A), 1, "outside the code");
    expect_bad_code(BYTES(0x2B, 0xFD, 0x2A), 0, "IL offset -1, outside");
    expect_bad_code(BYTES(0x38, 0xFF, 0xFF, 0xFF, 0x7F, 0x2A), 0, "outside the code");
    expect_bad_code(BYTES(0x20, 0, 0, 0, 0, 0x2B, 0xFA, 0x2A), 5,
                    "IL offset 1, inside an instruction");
    expect_bad_code(BYTES(0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0x00), 0, "has 4294967295 targets");
    expect_bad_code(BYTES(0x45, 0x01, 0, 0, 0), 0, "has 1 targets but only 0 bytes remain");
    expect_bad_code(BYTES(0x45, 0x01, 0, 0, 0, 0xF8, 0xFF, 0xFF, 0xFF, 0x2A), 0,
                    "target 0 is IL offset 1, inside an instruction");
    expect_bad_code(BYTES(0x45, 0x01, 0, 0, 0, 0x10, 0, 0, 0, 0x2A), 0, "outside the code");
    /* The same problem inside a body is reported at its offset in the body. */
    expect_bad_body(BYTES(0x0E, 0x00, 0x00, 0x24), 3, "unknown opcode 0x24 at IL offset 2");
}

/* A fat body with code "nop nop ldc.i4 0 ret" (8 bytes) and one small clause given by
 * the last 12 bytes. */
static void expect_bad_clause(const uint8_t clause[12], const char *words)
{
    uint8_t b[36] = {0x0B, 0x30, 0x01, 0x00, 0x08, 0, 0, 0,    0,    0,    0, 0,
                     0x00, 0x00, 0x20, 0,    0,    0, 0, 0x2A, 0x01, 0x10, 0, 0};
    memcpy(b + 24, clause, 12);
    expect_bad_body(b, sizeof(b), 24, words);
}

static void malformed_eh_sections_are_rejected(void **state)
{
    /* MoreSects but the body ends after the code. */
    expect_bad_body(BYTES(0x0B, 0x30, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A), 13,
                    "promises data section 1");
    expect_bad_body(
        BYTES(0x0B, 0x30, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0x02, 0x04, 0, 0),
        16, "not an exception table");
    expect_bad_body(
        BYTES(0x0B, 0x30, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0x01, 0x02, 0, 0),
        16, "smaller than its own 4-byte header");
    expect_bad_body(
        BYTES(0x0B, 0x30, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0x01, 0x10, 0, 0),
        16, "runs past the end of the body");
    expect_bad_body(BYTES(0x0B, 0x30, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x2A, 0, 0, 0, 0x41,
                          0xFF, 0xFF, 0xFF),
                    16, "runs past the end of the body");
    expect_bad_clause((const uint8_t[]){0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}, "try block at IL "
                                                                             "offset 0 is empty");
    expect_bad_clause((const uint8_t[]){0, 0, 0, 0, 9, 1, 0, 1, 0, 0, 0, 0}, "ends past the code");
    expect_bad_clause((const uint8_t[]){0, 0, 3, 0, 1, 1, 0, 1, 0, 0, 0, 0},
                      "try block starts at IL offset 3, inside an instruction");
    expect_bad_clause((const uint8_t[]){0, 0, 0, 0, 2, 2, 0, 4, 0, 0, 0, 0},
                      "handler block ends at IL offset 6, inside an instruction");
    expect_bad_clause((const uint8_t[]){1, 0, 0, 0, 2, 2, 0, 5, 3, 0, 0, 0},
                      "filter starts at IL offset 3");
    expect_bad_clause((const uint8_t[]){6, 0, 0, 0, 2, 2, 0, 5, 0, 0, 0, 0}, "more than one kind");
    /* Fat clause whose offset + length overflows 32 bits. */
    uint8_t b[48] = {0x0B, 0x30, 0x01, 0x00, 0x01, 0,    0, 0, 0, 0, 0,    0,    0x2A, 0,
                     0,    0,    0x41, 0x1C, 0x00, 0x00, 0, 0, 0, 0, 0xF0, 0xFF, 0xFF, 0xFF,
                     0x20, 0,    0,    0,    0,    0,    0, 0, 1, 0, 0,    0};
    expect_bad_body(b, 44, 20, "ends past the code");
}

static void bare_streams_and_fragments_decode(void **state)
{
    struct clrie_il_graph *g = decode_code(BYTES(0x16, 0x2C, 0x01, 0x00, 0x2A));
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    assert_false(h.fat);
    assert_int_equal(h.code_size, 5);
    assert_int_equal(clrie_il_graph_count(g), 4);
    assert_ptr_equal(clrie_il_graph_original_first(g), nth(g, 0));
    assert_ptr_equal(clrie_il_graph_original_last(g), nth(g, 3));

    struct clrie_il_instr **nodes = NULL;
    size_t count = 0;
    assert_int_equal(
        clrie_il_graph_decode_fragment(g, BYTES(0x2B, 0x00, 0x00, 0x00), &nodes, &count, NULL), 0);
    assert_int_equal(count, 3);
    assert_true(clrie_il_instr_is_new(nodes[0]));
    assert_ptr_equal(clrie_il_instr_branch_target(nodes[0]), nodes[1]);
    struct clrie_il_instr *at = nth(g, 0);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(clrie_il_graph_insert_after(g, at, nodes[i]), 0);
        at = nodes[i];
    }
    free(nodes);
    expect_code(g, 0, BYTES(0x16, 0x2B, 0x00, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x2A));
    struct clrie_il_diag d;
    assert_int_equal(clrie_il_graph_decode_fragment(g, BYTES(0x2B, 0x05), &nodes, &count, &d),
                     -EILSEQ);
    clrie_il_graph_free(g);
}

/* A fat body of n (ldarg.0; pop) pairs, then br back to the start and ret: one-byte
 * instructions throughout, denser than the decoder's first guess of the count. */
static uint8_t *dense_body(size_t n, size_t *len)
{
    size_t code = 2 * n + 5 + 1;
    uint8_t *b = malloc(12 + code);
    assert_non_null(b);
    memcpy(b, "\x03\x30\x01\x00", 4);
    b[4] = (uint8_t)code;
    b[5] = (uint8_t)(code >> 8);
    b[6] = (uint8_t)(code >> 16);
    b[7] = 0;
    memset(b + 8, 0, 4);
    for (size_t i = 0; i < n; i++) {
        b[12 + 2 * i] = 0x02;
        b[12 + 2 * i + 1] = 0x26;
    }
    uint8_t *br = b + 12 + 2 * n;
    int32_t back = -(int32_t)(2 * n + 5);
    br[0] = 0x38;
    memcpy(br + 1, &back, 4); /* little-endian hosts only, as the library */
    br[5] = 0x2A;
    *len = 12 + code;
    return b;
}

/* Original offsets are found alike in code with branches (decoding keeps a table of
 * instruction starts for them) and in code without: every start, and nothing inside an
 * instruction or past the end. */
static void original_offsets_are_found_with_and_without_branches(void **state)
{
    static const uint8_t plain[] = {0x20, 0x01, 0x00, 0x00, 0x00, 0x26, 0x14, 0x2A};
    static const uint8_t branchy[] = {0x20, 0x01, 0x00, 0x00, 0x00, 0x2B, 0x00, 0x14, 0x2A};
    static const uint32_t plain_starts[] = {0, 5, 6, 7}, branchy_starts[] = {0, 5, 7, 8};
    for (int b = 0; b < 2; b++) {
        const uint8_t *code = b ? branchy : plain;
        size_t len = b ? sizeof(branchy) : sizeof(plain);
        const uint32_t *starts = b ? branchy_starts : plain_starts;
        struct clrie_il_graph *g = decode_code(code, len);
        size_t k = 0;
        for (uint32_t offset = 0; offset <= len + 1; offset++) {
            struct clrie_il_instr *n = clrie_il_graph_at_original_offset(g, offset);
            if (k < 4 && offset == starts[k]) {
                assert_ptr_equal(n, nth(g, k));
                k++;
            } else {
                assert_null(n);
            }
        }
        clrie_il_graph_free(g);
    }
}

/* Graphs decoded and freed on several threads at once (their memory passes from one graph to
 * the next) each encode back to their own body. */
struct decoding_thread {
    const uint8_t *body;
    size_t len;
    int failures;
};

static void decode_in_turn(void *arg)
{
    struct decoding_thread *t = arg;
    for (int i = 0; i < 10000; i++) {
        struct clrie_il_graph *g = NULL;
        uint8_t *out = NULL;
        size_t len = 0;
        if (clrie_il_graph_decode(t->body, t->len, &g, NULL) != 0 ||
            clrie_il_graph_encode(g, CLRIE_IL_ENCODE_PRESERVE | CLRIE_IL_ENCODE_REWRITE, &out, &len,
                                  NULL) != 0 ||
            len != t->len || memcmp(out, t->body, len) != 0)
            t->failures++;
        free(out);
        clrie_il_graph_free(g);
    }
}

static void graphs_decoded_on_many_threads_stay_apart(void **state)
{
    size_t big_len;
    uint8_t *big = dense_body(300, &big_len);
    struct decoding_thread t[4] = {
        {try_catch, sizeof(try_catch), 0},
        {big, big_len, 0},
        {two_sections, sizeof(two_sections), 0},
        {BYTES(0x12, 0x18, 0x19, 0x58, 0x2A), 0},
    };
    struct clrie_os_thread id[4];
    for (int k = 0; k < 4; k++)
        assert_int_equal(clrie_os_thread_start(&id[k], decode_in_turn, &t[k]), 0);
    for (int k = 0; k < 4; k++) {
        clrie_os_thread_join(&id[k]);
        assert_int_equal(t[k].failures, 0);
    }
    free(big);
}

static void one_graph_decodes_many_bodies_in_turn(void **state)
{
    struct clrie_il_graph *g = NULL;
    assert_int_equal(clrie_il_graph_new(&g), 0);
    size_t big_len;
    uint8_t *big = dense_body(3000, &big_len);
    struct clrie_il_header h;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(clrie_il_graph_decode_into(g, try_catch, sizeof(try_catch), NULL), 0);
        assert_int_equal(clrie_il_graph_clause_count(g), 1);
        expect_body(g, CLRIE_IL_ENCODE_PRESERVE, try_catch, sizeof(try_catch));

        assert_int_equal(clrie_il_graph_decode_into(g, big, big_len, NULL), 0);
        assert_int_equal(clrie_il_graph_count(g), 6002);
        assert_int_equal(clrie_il_graph_clause_count(g), 0);
        assert_ptr_equal(
            clrie_il_instr_branch_target(clrie_il_instr_prev(clrie_il_graph_original_last(g))),
            clrie_il_graph_first(g));
        expect_body(g, CLRIE_IL_ENCODE_PRESERVE, big, big_len);

        assert_int_equal(clrie_il_graph_decode_into(g, two_sections, sizeof(two_sections), NULL),
                         0);
        assert_int_equal(clrie_il_graph_clause_count(g), 2);
        expect_body(g, CLRIE_IL_ENCODE_PRESERVE, two_sections, sizeof(two_sections));

        const uint8_t tiny[] = {0x12, 0x18, 0x19, 0x58, 0x2A}; /* ldc.i4.2 ldc.i4.3 add ret */
        assert_int_equal(clrie_il_graph_decode_into(g, tiny, sizeof(tiny), NULL), 0);
        clrie_il_graph_header(g, &h);
        assert_false(h.fat);
        assert_int_equal(clrie_il_graph_clause_count(g), 0);
        expect_body(g, CLRIE_IL_ENCODE_PRESERVE, tiny, sizeof(tiny));
    }
    free(big);

    /* A body that does not decode leaves the graph empty, and still usable. */
    struct clrie_il_diag d = {0};
    assert_int_equal(clrie_il_graph_decode_into(g, BYTES(0x0E, 0x00, 0xFE, 0x08), &d), -EILSEQ);
    assert_int_equal(d.offset, 2);
    assert_int_equal(clrie_il_graph_count(g), 0);
    assert_null(clrie_il_graph_first(g));
    assert_null(clrie_il_graph_original_first(g));
    assert_int_equal(clrie_il_graph_clause_count(g), 0);
    assert_int_equal(clrie_il_graph_decode_into(g, try_catch, sizeof(try_catch), NULL), 0);
    expect_body(g, 0, try_catch, sizeof(try_catch));
    clrie_il_graph_free(g);
}

static void a_reset_graph_is_a_new_graph(void **state)
{
    struct clrie_il_graph *g = decode_body(try_catch, sizeof(try_catch));
    clrie_il_graph_reset(g);
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    assert_false(h.fat);
    assert_int_equal(h.max_stack, 8);
    assert_int_equal(h.local_sig_token, 0);
    assert_int_equal(clrie_il_graph_count(g), 0);
    assert_int_equal(clrie_il_graph_clause_count(g), 0);
    assert_null(clrie_il_graph_original_last(g));
    struct clrie_il_instr *ldc = NULL, *ret = NULL;
    assert_int_equal(clrie_il_instr_create_ldc_i4(g, 300, &ldc), 0);
    assert_int_equal(clrie_il_instr_create(g, CLRIE_IL_OP_RET, &ret), 0);
    assert_int_equal(clrie_il_graph_insert_after(g, NULL, ldc), 0);
    assert_int_equal(clrie_il_graph_insert_after(g, ldc, ret), 0);
    expect_body(g, 0, BYTES(0x1A, 0x20, 0x2C, 0x01, 0x00, 0x00, 0x2A));
    clrie_il_graph_reset(NULL);
    clrie_il_graph_free(g);
}

static void dense_code_decodes_whole_and_as_a_fragment(void **state)
{
    size_t len;
    uint8_t *b = dense_body(5000, &len);
    struct clrie_il_graph *g = decode_body(b, len);
    assert_int_equal(clrie_il_graph_count(g), 10002);
    assert_ptr_equal(clrie_il_instr_prev(clrie_il_graph_original_last(g)),
                     clrie_il_instr_original_prev(clrie_il_graph_original_last(g)));
    expect_body(g, CLRIE_IL_ENCODE_PRESERVE, b, len);
    struct clrie_il_instr **nodes = NULL;
    size_t count = 0;
    assert_int_equal(clrie_il_graph_decode_fragment(g, b + 12, len - 12, &nodes, &count, NULL), 0);
    assert_int_equal(count, 10002);
    assert_ptr_equal(clrie_il_instr_branch_target(nodes[10000]), nodes[0]);
    assert_null(clrie_il_instr_next(nodes[1]));
    assert_true(clrie_il_instr_is_new(nodes[9999]));
    free(nodes);
    clrie_il_graph_free(g);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_opcode_decodes_and_encodes_back_exactly),
        cmocka_unit_test(operands_have_their_values),
        cmocka_unit_test(tiny_header_round_trips),
        cmocka_unit_test(fat_header_and_small_eh_round_trip),
        cmocka_unit_test(several_sections_and_filters_round_trip),
        cmocka_unit_test(malformed_headers_are_rejected_with_offsets),
        cmocka_unit_test(malformed_code_is_rejected_with_offsets),
        cmocka_unit_test(malformed_eh_sections_are_rejected),
        cmocka_unit_test(bare_streams_and_fragments_decode),
        cmocka_unit_test(one_graph_decodes_many_bodies_in_turn),
        cmocka_unit_test(original_offsets_are_found_with_and_without_branches),
        cmocka_unit_test(graphs_decoded_on_many_threads_stay_apart),
        cmocka_unit_test(a_reset_graph_is_a_new_graph),
        cmocka_unit_test(dense_code_decodes_whole_and_as_a_fragment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
