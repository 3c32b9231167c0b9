/* The opcode table: operand encoding, control flow and stack behaviour of every CIL opcode,
 * indexed by CLRIE's ordinal numbering. Built at compile time from opcode_list.h; the columns
 * CLRIE's COM API reports (operand type, termination type, alternate form) are derived here
 * so the list states each fact once. */
#include <stddef.h>

#include "clrie/ilgraph.h"
#include "graph_private.h"
#include "opcode_list.h"

#define VAR CLRIE_IL_STACK_VARIABLE

/* Operand bytes per kind (switch: the count; the targets follow). */
#define LEN_NONE 0
#define LEN_INT8 1
#define LEN_UINT8 1
#define LEN_UINT16 2
#define LEN_INT32 4
#define LEN_INT64 8
#define LEN_FLOAT32 4
#define LEN_FLOAT64 8
#define LEN_TOKEN 4
#define LEN_BRANCH8 1
#define LEN_BRANCH32 4
#define LEN_SWITCH 4

/* CLRIE describes operands by size: a short branch is a Byte operand, a long one an Int. */
#define CLR_NONE CLRIE_IL_CLRIE_OPERAND_NONE
#define CLR_INT8 CLRIE_IL_CLRIE_OPERAND_BYTE
#define CLR_UINT8 CLRIE_IL_CLRIE_OPERAND_BYTE
#define CLR_UINT16 CLRIE_IL_CLRIE_OPERAND_USHORT
#define CLR_INT32 CLRIE_IL_CLRIE_OPERAND_INT
#define CLR_INT64 CLRIE_IL_CLRIE_OPERAND_LONG
#define CLR_FLOAT32 CLRIE_IL_CLRIE_OPERAND_SINGLE
#define CLR_FLOAT64 CLRIE_IL_CLRIE_OPERAND_DOUBLE
#define CLR_TOKEN CLRIE_IL_CLRIE_OPERAND_TOKEN
#define CLR_BRANCH8 CLRIE_IL_CLRIE_OPERAND_BYTE
#define CLR_BRANCH32 CLRIE_IL_CLRIE_OPERAND_INT
#define CLR_SWITCH CLRIE_IL_CLRIE_OPERAND_SWITCH

/* CLRIE's termination types follow control flow, except that break is a trap and calli and
 * callvirt count as indirect calls. */
#define TERM_NEXT CLRIE_IL_TERM_FALL_THROUGH
#define TERM_BRANCH CLRIE_IL_TERM_BRANCH
#define TERM_COND_BRANCH CLRIE_IL_TERM_CONDITIONAL_BRANCH
#define TERM_SWITCH CLRIE_IL_TERM_SWITCH
#define TERM_LEAVE CLRIE_IL_TERM_BRANCH
#define TERM_RETURN CLRIE_IL_TERM_RETURN
#define TERM_END_HANDLER CLRIE_IL_TERM_RETURN
#define TERM_THROW CLRIE_IL_TERM_THROW
#define TERM_CALL CLRIE_IL_TERM_CALL
#define TERM_JMP CLRIE_IL_TERM_CALL
#define TERM_PREFIX CLRIE_IL_TERM_FALL_THROUGH
#define TERM_BREAK CLRIE_IL_TERM_TRAP
#define TERMINATION(ord, flow)                                                                     \
    ((ord) == CLRIE_IL_OP_CALLI || (ord) == CLRIE_IL_OP_CALLVIRT ? CLRIE_IL_TERM_INDIRECT_CALL     \
                                                                 : TERM_##flow)

/* CLRIE's ILOpcodes.h gives every branch and leave, short or long, the Branch flag, and Meta
 * only to its Count and Invalid rows (no opcode here): prefixes carry no flag. */
#define CLRIE_FLAGS_NEXT 0
#define CLRIE_FLAGS_BRANCH CLRIE_IL_CLRIE_FLAG_BRANCH
#define CLRIE_FLAGS_COND_BRANCH CLRIE_IL_CLRIE_FLAG_BRANCH
#define CLRIE_FLAGS_SWITCH 0
#define CLRIE_FLAGS_LEAVE CLRIE_IL_CLRIE_FLAG_BRANCH
#define CLRIE_FLAGS_RETURN 0
#define CLRIE_FLAGS_END_HANDLER 0
#define CLRIE_FLAGS_THROW 0
#define CLRIE_FLAGS_CALL 0
#define CLRIE_FLAGS_JMP 0
#define CLRIE_FLAGS_PREFIX 0
#define CLRIE_FLAGS_BREAK 0

/* Short <-> long branch forms: br.s..blt.un.s are br..blt.un minus 13, and leave.s/leave. */
#define BRANCH_DISTANCE (CLRIE_IL_OP_BR - CLRIE_IL_OP_BR_S)
#define ALTERNATE(ord)                                                                             \
    ((ord) >= CLRIE_IL_OP_BR_S && (ord) <= CLRIE_IL_OP_BLT_UN_S ? (ord) + BRANCH_DISTANCE          \
     : (ord) >= CLRIE_IL_OP_BR && (ord) <= CLRIE_IL_OP_BLT_UN   ? (ord)-BRANCH_DISTANCE            \
     : (ord) == CLRIE_IL_OP_LEAVE                               ? CLRIE_IL_OP_LEAVE_S              \
     : (ord) == CLRIE_IL_OP_LEAVE_S                             ? CLRIE_IL_OP_LEAVE                \
                                                                : CLRIE_IL_OP_INVALID)

#define INFO(o, id, text, k, f, po, pu)                                                            \
    [o] = {                                                                                        \
        .name = text,                                                                              \
        .ordinal = o,                                                                              \
        .opcode_len = (o) >= 0x100 ? 2 : 1,                                                        \
        .operand_len = LEN_##k,                                                                    \
        .operand_kind = CLRIE_IL_OPERAND_##k,                                                      \
        .clrie_operand = CLR_##k,                                                                  \
        .flow = CLRIE_IL_FLOW_##f,                                                                 \
        .termination = TERMINATION(o, f),                                                          \
        .pop = po,                                                                                 \
        .push = pu,                                                                                \
        .alternate = ALTERNATE(o),                                                                 \
        .clrie_flags = CLRIE_FLAGS_##f,                                                            \
    },
const struct clrie_il_opcode_info il_opcode_infos[CLRIE_IL_OP_COUNT] = {IL_OPCODE_LIST(INFO)};
#undef INFO

/* What decoding looks up per instruction, in one byte (see IL_DECODE_*). */
#define TARGETS_NONE 0
#define TARGETS_INT8 IL_DECODE_SIGNED
#define TARGETS_UINT8 0
#define TARGETS_UINT16 0
#define TARGETS_INT32 IL_DECODE_SIGNED
#define TARGETS_INT64 IL_DECODE_SIGNED
#define TARGETS_FLOAT32 0
#define TARGETS_FLOAT64 0
#define TARGETS_TOKEN 0
#define TARGETS_BRANCH8 (IL_DECODE_TARGETS | IL_DECODE_SIGNED)
#define TARGETS_BRANCH32 (IL_DECODE_TARGETS | IL_DECODE_SIGNED)
#define TARGETS_SWITCH (IL_DECODE_TARGETS | IL_DECODE_SWITCH)
#define DECODE(o, id, text, k, f, po, pu) [o] = (uint8_t)((LEN_##k + 1) | TARGETS_##k),
const uint8_t il_opcode_decode[0x200] = {IL_OPCODE_LIST(DECODE)};
#undef DECODE

/* How write_code puts an opcode down: its bytes as a little-endian word. */
#define BYTES(o, id, text, k, f, po, pu)                                                           \
    [o] = (uint16_t)((o) < 0x100 ? (o) : 0xFEu | ((o)&0xFFu) << 8),
const uint16_t il_opcode_bytes[CLRIE_IL_OP_COUNT] = {IL_OPCODE_LIST(BYTES)};
#undef BYTES

/* Indexed by a decode byte's low five bits (operand length + 1, signedness): which bits of
 * the 8 bytes at an operand are the operand, and its sign bit when it is signed. */
#define MASK(len) (UINT64_MAX >> (64 - 8 * (len))) /* len 1 to 8 */
#define SIGN(len) (UINT64_C(1) << (8 * (len)-1))
const uint64_t il_operand_mask[32] = {
    [1] = 0,       [2] = MASK(1),    [3] = MASK(2),    [5] = MASK(4),
    [9] = MASK(8), [0x12] = MASK(1), [0x15] = MASK(4), [0x19] = MASK(8),
};
const uint64_t il_operand_sign[32] = {[0x12] = SIGN(1), [0x15] = SIGN(4), [0x19] = SIGN(8)};
#undef MASK
#undef SIGN

/* The enum in the public header and the list must agree on every ordinal. */
#define CHECK(o, id, text, k, f, po, pu)                                                           \
    _Static_assert(CLRIE_IL_OP_##id == (o), "enum clrie_il_opcode disagrees on " text);
IL_OPCODE_LIST(CHECK)
#undef CHECK

const struct clrie_il_opcode_info *clrie_il_opcode_info(uint16_t ordinal)
{
    if (ordinal >= CLRIE_IL_OP_COUNT || il_opcode_infos[ordinal].name == NULL)
        return NULL;
    return &il_opcode_infos[ordinal];
}
