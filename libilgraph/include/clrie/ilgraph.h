/* clrie/ilgraph.h: CIL method bodies <-> an editable instruction graph.
 *
 * A method body (ECMA-335 II.25.4: tiny or fat header, code, exception-handling sections) is
 * decoded into a graph: a doubly linked list of instruction nodes in which branch targets,
 * switch targets and exception-clause boundaries are references to nodes, not offsets. Edits
 * move nodes and references; encoding recomputes offsets, picks branch forms and writes a new
 * body plus the map from original to new offsets.
 *
 * It is also clrie's one ECMA-335 encoding layer (sections at the end): signatures
 * (compressed integers, coded tokens, element types, method and local signatures), method
 * body layout and raw EH clauses, and PE images (a file, or a module the runtime has loaded).
 *
 * Memory: every node, clause and switch-target array of a graph lives in one arena owned by
 * the graph and freed by clrie_il_graph_free(). Node and clause pointers are borrowed: they
 * stay valid until the graph is freed or reset (clrie_il_graph_reset(),
 * clrie_il_graph_decode_into()), including after the node is removed from the list.
 * Buffers a function hands back through a `uint8_t **` or array out-parameter are malloc'd
 * and belong to the caller (release them with free()).
 *
 * Threads: a graph and everything in it is used by one thread at a time; different graphs
 * may be used on different threads concurrently. The one global state is a slot where the
 * memory of a freed graph (at most 64 KiB) waits for the next graph, swapped atomically.
 * Nothing here prints or reads the environment.
 *
 * Errors: fallible functions return 0 or a negative errno: -EILSEQ for malformed input,
 * -EINVAL for a bad argument (NULL, a node of another graph, a wrong operand kind), -ERANGE
 * for a value that does not fit, -ENOMEM, -ENOTSUP for a body this library cannot transform.
 * Out-parameters are only written on success. Where a `struct clrie_il_diag *` is accepted
 * (it may be NULL) it receives the byte offset and a sentence saying what was wrong.
 *
 * Opcodes are numbered as CLRIE's ILOrdinalOpcode: a one-byte opcode is its byte, a two-byte
 * opcode 0xFE xx is 0x100 | xx.
 */
#ifndef CLRIE_ILGRAPH_H
#define CLRIE_ILGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Opcodes ---------------------------------------------------------------------------- */

/* clang-format off */
enum clrie_il_opcode {
    CLRIE_IL_OP_NOP = 0x00, /* nop */
    CLRIE_IL_OP_BREAK = 0x01, /* break */
    CLRIE_IL_OP_LDARG_0 = 0x02, /* ldarg.0 */
    CLRIE_IL_OP_LDARG_1 = 0x03, /* ldarg.1 */
    CLRIE_IL_OP_LDARG_2 = 0x04, /* ldarg.2 */
    CLRIE_IL_OP_LDARG_3 = 0x05, /* ldarg.3 */
    CLRIE_IL_OP_LDLOC_0 = 0x06, /* ldloc.0 */
    CLRIE_IL_OP_LDLOC_1 = 0x07, /* ldloc.1 */
    CLRIE_IL_OP_LDLOC_2 = 0x08, /* ldloc.2 */
    CLRIE_IL_OP_LDLOC_3 = 0x09, /* ldloc.3 */
    CLRIE_IL_OP_STLOC_0 = 0x0A, /* stloc.0 */
    CLRIE_IL_OP_STLOC_1 = 0x0B, /* stloc.1 */
    CLRIE_IL_OP_STLOC_2 = 0x0C, /* stloc.2 */
    CLRIE_IL_OP_STLOC_3 = 0x0D, /* stloc.3 */
    CLRIE_IL_OP_LDARG_S = 0x0E, /* ldarg.s */
    CLRIE_IL_OP_LDARGA_S = 0x0F, /* ldarga.s */
    CLRIE_IL_OP_STARG_S = 0x10, /* starg.s */
    CLRIE_IL_OP_LDLOC_S = 0x11, /* ldloc.s */
    CLRIE_IL_OP_LDLOCA_S = 0x12, /* ldloca.s */
    CLRIE_IL_OP_STLOC_S = 0x13, /* stloc.s */
    CLRIE_IL_OP_LDNULL = 0x14, /* ldnull */
    CLRIE_IL_OP_LDC_I4_M1 = 0x15, /* ldc.i4.m1 */
    CLRIE_IL_OP_LDC_I4_0 = 0x16, /* ldc.i4.0 */
    CLRIE_IL_OP_LDC_I4_1 = 0x17, /* ldc.i4.1 */
    CLRIE_IL_OP_LDC_I4_2 = 0x18, /* ldc.i4.2 */
    CLRIE_IL_OP_LDC_I4_3 = 0x19, /* ldc.i4.3 */
    CLRIE_IL_OP_LDC_I4_4 = 0x1A, /* ldc.i4.4 */
    CLRIE_IL_OP_LDC_I4_5 = 0x1B, /* ldc.i4.5 */
    CLRIE_IL_OP_LDC_I4_6 = 0x1C, /* ldc.i4.6 */
    CLRIE_IL_OP_LDC_I4_7 = 0x1D, /* ldc.i4.7 */
    CLRIE_IL_OP_LDC_I4_8 = 0x1E, /* ldc.i4.8 */
    CLRIE_IL_OP_LDC_I4_S = 0x1F, /* ldc.i4.s */
    CLRIE_IL_OP_LDC_I4 = 0x20, /* ldc.i4 */
    CLRIE_IL_OP_LDC_I8 = 0x21, /* ldc.i8 */
    CLRIE_IL_OP_LDC_R4 = 0x22, /* ldc.r4 */
    CLRIE_IL_OP_LDC_R8 = 0x23, /* ldc.r8 */
    CLRIE_IL_OP_DUP = 0x25, /* dup */
    CLRIE_IL_OP_POP = 0x26, /* pop */
    CLRIE_IL_OP_JMP = 0x27, /* jmp */
    CLRIE_IL_OP_CALL = 0x28, /* call */
    CLRIE_IL_OP_CALLI = 0x29, /* calli */
    CLRIE_IL_OP_RET = 0x2A, /* ret */
    CLRIE_IL_OP_BR_S = 0x2B, /* br.s */
    CLRIE_IL_OP_BRFALSE_S = 0x2C, /* brfalse.s */
    CLRIE_IL_OP_BRTRUE_S = 0x2D, /* brtrue.s */
    CLRIE_IL_OP_BEQ_S = 0x2E, /* beq.s */
    CLRIE_IL_OP_BGE_S = 0x2F, /* bge.s */
    CLRIE_IL_OP_BGT_S = 0x30, /* bgt.s */
    CLRIE_IL_OP_BLE_S = 0x31, /* ble.s */
    CLRIE_IL_OP_BLT_S = 0x32, /* blt.s */
    CLRIE_IL_OP_BNE_UN_S = 0x33, /* bne.un.s */
    CLRIE_IL_OP_BGE_UN_S = 0x34, /* bge.un.s */
    CLRIE_IL_OP_BGT_UN_S = 0x35, /* bgt.un.s */
    CLRIE_IL_OP_BLE_UN_S = 0x36, /* ble.un.s */
    CLRIE_IL_OP_BLT_UN_S = 0x37, /* blt.un.s */
    CLRIE_IL_OP_BR = 0x38, /* br */
    CLRIE_IL_OP_BRFALSE = 0x39, /* brfalse */
    CLRIE_IL_OP_BRTRUE = 0x3A, /* brtrue */
    CLRIE_IL_OP_BEQ = 0x3B, /* beq */
    CLRIE_IL_OP_BGE = 0x3C, /* bge */
    CLRIE_IL_OP_BGT = 0x3D, /* bgt */
    CLRIE_IL_OP_BLE = 0x3E, /* ble */
    CLRIE_IL_OP_BLT = 0x3F, /* blt */
    CLRIE_IL_OP_BNE_UN = 0x40, /* bne.un */
    CLRIE_IL_OP_BGE_UN = 0x41, /* bge.un */
    CLRIE_IL_OP_BGT_UN = 0x42, /* bgt.un */
    CLRIE_IL_OP_BLE_UN = 0x43, /* ble.un */
    CLRIE_IL_OP_BLT_UN = 0x44, /* blt.un */
    CLRIE_IL_OP_SWITCH = 0x45, /* switch */
    CLRIE_IL_OP_LDIND_I1 = 0x46, /* ldind.i1 */
    CLRIE_IL_OP_LDIND_U1 = 0x47, /* ldind.u1 */
    CLRIE_IL_OP_LDIND_I2 = 0x48, /* ldind.i2 */
    CLRIE_IL_OP_LDIND_U2 = 0x49, /* ldind.u2 */
    CLRIE_IL_OP_LDIND_I4 = 0x4A, /* ldind.i4 */
    CLRIE_IL_OP_LDIND_U4 = 0x4B, /* ldind.u4 */
    CLRIE_IL_OP_LDIND_I8 = 0x4C, /* ldind.i8 */
    CLRIE_IL_OP_LDIND_I = 0x4D, /* ldind.i */
    CLRIE_IL_OP_LDIND_R4 = 0x4E, /* ldind.r4 */
    CLRIE_IL_OP_LDIND_R8 = 0x4F, /* ldind.r8 */
    CLRIE_IL_OP_LDIND_REF = 0x50, /* ldind.ref */
    CLRIE_IL_OP_STIND_REF = 0x51, /* stind.ref */
    CLRIE_IL_OP_STIND_I1 = 0x52, /* stind.i1 */
    CLRIE_IL_OP_STIND_I2 = 0x53, /* stind.i2 */
    CLRIE_IL_OP_STIND_I4 = 0x54, /* stind.i4 */
    CLRIE_IL_OP_STIND_I8 = 0x55, /* stind.i8 */
    CLRIE_IL_OP_STIND_R4 = 0x56, /* stind.r4 */
    CLRIE_IL_OP_STIND_R8 = 0x57, /* stind.r8 */
    CLRIE_IL_OP_ADD = 0x58, /* add */
    CLRIE_IL_OP_SUB = 0x59, /* sub */
    CLRIE_IL_OP_MUL = 0x5A, /* mul */
    CLRIE_IL_OP_DIV = 0x5B, /* div */
    CLRIE_IL_OP_DIV_UN = 0x5C, /* div.un */
    CLRIE_IL_OP_REM = 0x5D, /* rem */
    CLRIE_IL_OP_REM_UN = 0x5E, /* rem.un */
    CLRIE_IL_OP_AND = 0x5F, /* and */
    CLRIE_IL_OP_OR = 0x60, /* or */
    CLRIE_IL_OP_XOR = 0x61, /* xor */
    CLRIE_IL_OP_SHL = 0x62, /* shl */
    CLRIE_IL_OP_SHR = 0x63, /* shr */
    CLRIE_IL_OP_SHR_UN = 0x64, /* shr.un */
    CLRIE_IL_OP_NEG = 0x65, /* neg */
    CLRIE_IL_OP_NOT = 0x66, /* not */
    CLRIE_IL_OP_CONV_I1 = 0x67, /* conv.i1 */
    CLRIE_IL_OP_CONV_I2 = 0x68, /* conv.i2 */
    CLRIE_IL_OP_CONV_I4 = 0x69, /* conv.i4 */
    CLRIE_IL_OP_CONV_I8 = 0x6A, /* conv.i8 */
    CLRIE_IL_OP_CONV_R4 = 0x6B, /* conv.r4 */
    CLRIE_IL_OP_CONV_R8 = 0x6C, /* conv.r8 */
    CLRIE_IL_OP_CONV_U4 = 0x6D, /* conv.u4 */
    CLRIE_IL_OP_CONV_U8 = 0x6E, /* conv.u8 */
    CLRIE_IL_OP_CALLVIRT = 0x6F, /* callvirt */
    CLRIE_IL_OP_CPOBJ = 0x70, /* cpobj */
    CLRIE_IL_OP_LDOBJ = 0x71, /* ldobj */
    CLRIE_IL_OP_LDSTR = 0x72, /* ldstr */
    CLRIE_IL_OP_NEWOBJ = 0x73, /* newobj */
    CLRIE_IL_OP_CASTCLASS = 0x74, /* castclass */
    CLRIE_IL_OP_ISINST = 0x75, /* isinst */
    CLRIE_IL_OP_CONV_R_UN = 0x76, /* conv.r.un */
    CLRIE_IL_OP_UNBOX = 0x79, /* unbox */
    CLRIE_IL_OP_THROW = 0x7A, /* throw */
    CLRIE_IL_OP_LDFLD = 0x7B, /* ldfld */
    CLRIE_IL_OP_LDFLDA = 0x7C, /* ldflda */
    CLRIE_IL_OP_STFLD = 0x7D, /* stfld */
    CLRIE_IL_OP_LDSFLD = 0x7E, /* ldsfld */
    CLRIE_IL_OP_LDSFLDA = 0x7F, /* ldsflda */
    CLRIE_IL_OP_STSFLD = 0x80, /* stsfld */
    CLRIE_IL_OP_STOBJ = 0x81, /* stobj */
    CLRIE_IL_OP_CONV_OVF_I1_UN = 0x82, /* conv.ovf.i1.un */
    CLRIE_IL_OP_CONV_OVF_I2_UN = 0x83, /* conv.ovf.i2.un */
    CLRIE_IL_OP_CONV_OVF_I4_UN = 0x84, /* conv.ovf.i4.un */
    CLRIE_IL_OP_CONV_OVF_I8_UN = 0x85, /* conv.ovf.i8.un */
    CLRIE_IL_OP_CONV_OVF_U1_UN = 0x86, /* conv.ovf.u1.un */
    CLRIE_IL_OP_CONV_OVF_U2_UN = 0x87, /* conv.ovf.u2.un */
    CLRIE_IL_OP_CONV_OVF_U4_UN = 0x88, /* conv.ovf.u4.un */
    CLRIE_IL_OP_CONV_OVF_U8_UN = 0x89, /* conv.ovf.u8.un */
    CLRIE_IL_OP_CONV_OVF_I_UN = 0x8A, /* conv.ovf.i.un */
    CLRIE_IL_OP_CONV_OVF_U_UN = 0x8B, /* conv.ovf.u.un */
    CLRIE_IL_OP_BOX = 0x8C, /* box */
    CLRIE_IL_OP_NEWARR = 0x8D, /* newarr */
    CLRIE_IL_OP_LDLEN = 0x8E, /* ldlen */
    CLRIE_IL_OP_LDELEMA = 0x8F, /* ldelema */
    CLRIE_IL_OP_LDELEM_I1 = 0x90, /* ldelem.i1 */
    CLRIE_IL_OP_LDELEM_U1 = 0x91, /* ldelem.u1 */
    CLRIE_IL_OP_LDELEM_I2 = 0x92, /* ldelem.i2 */
    CLRIE_IL_OP_LDELEM_U2 = 0x93, /* ldelem.u2 */
    CLRIE_IL_OP_LDELEM_I4 = 0x94, /* ldelem.i4 */
    CLRIE_IL_OP_LDELEM_U4 = 0x95, /* ldelem.u4 */
    CLRIE_IL_OP_LDELEM_I8 = 0x96, /* ldelem.i8 */
    CLRIE_IL_OP_LDELEM_I = 0x97, /* ldelem.i */
    CLRIE_IL_OP_LDELEM_R4 = 0x98, /* ldelem.r4 */
    CLRIE_IL_OP_LDELEM_R8 = 0x99, /* ldelem.r8 */
    CLRIE_IL_OP_LDELEM_REF = 0x9A, /* ldelem.ref */
    CLRIE_IL_OP_STELEM_I = 0x9B, /* stelem.i */
    CLRIE_IL_OP_STELEM_I1 = 0x9C, /* stelem.i1 */
    CLRIE_IL_OP_STELEM_I2 = 0x9D, /* stelem.i2 */
    CLRIE_IL_OP_STELEM_I4 = 0x9E, /* stelem.i4 */
    CLRIE_IL_OP_STELEM_I8 = 0x9F, /* stelem.i8 */
    CLRIE_IL_OP_STELEM_R4 = 0xA0, /* stelem.r4 */
    CLRIE_IL_OP_STELEM_R8 = 0xA1, /* stelem.r8 */
    CLRIE_IL_OP_STELEM_REF = 0xA2, /* stelem.ref */
    CLRIE_IL_OP_LDELEM = 0xA3, /* ldelem */
    CLRIE_IL_OP_STELEM = 0xA4, /* stelem */
    CLRIE_IL_OP_UNBOX_ANY = 0xA5, /* unbox.any */
    CLRIE_IL_OP_CONV_OVF_I1 = 0xB3, /* conv.ovf.i1 */
    CLRIE_IL_OP_CONV_OVF_U1 = 0xB4, /* conv.ovf.u1 */
    CLRIE_IL_OP_CONV_OVF_I2 = 0xB5, /* conv.ovf.i2 */
    CLRIE_IL_OP_CONV_OVF_U2 = 0xB6, /* conv.ovf.u2 */
    CLRIE_IL_OP_CONV_OVF_I4 = 0xB7, /* conv.ovf.i4 */
    CLRIE_IL_OP_CONV_OVF_U4 = 0xB8, /* conv.ovf.u4 */
    CLRIE_IL_OP_CONV_OVF_I8 = 0xB9, /* conv.ovf.i8 */
    CLRIE_IL_OP_CONV_OVF_U8 = 0xBA, /* conv.ovf.u8 */
    CLRIE_IL_OP_REFANYVAL = 0xC2, /* refanyval */
    CLRIE_IL_OP_CKFINITE = 0xC3, /* ckfinite */
    CLRIE_IL_OP_MKREFANY = 0xC6, /* mkrefany */
    CLRIE_IL_OP_LDTOKEN = 0xD0, /* ldtoken */
    CLRIE_IL_OP_CONV_U2 = 0xD1, /* conv.u2 */
    CLRIE_IL_OP_CONV_U1 = 0xD2, /* conv.u1 */
    CLRIE_IL_OP_CONV_I = 0xD3, /* conv.i */
    CLRIE_IL_OP_CONV_OVF_I = 0xD4, /* conv.ovf.i */
    CLRIE_IL_OP_CONV_OVF_U = 0xD5, /* conv.ovf.u */
    CLRIE_IL_OP_ADD_OVF = 0xD6, /* add.ovf */
    CLRIE_IL_OP_ADD_OVF_UN = 0xD7, /* add.ovf.un */
    CLRIE_IL_OP_MUL_OVF = 0xD8, /* mul.ovf */
    CLRIE_IL_OP_MUL_OVF_UN = 0xD9, /* mul.ovf.un */
    CLRIE_IL_OP_SUB_OVF = 0xDA, /* sub.ovf */
    CLRIE_IL_OP_SUB_OVF_UN = 0xDB, /* sub.ovf.un */
    CLRIE_IL_OP_ENDFINALLY = 0xDC, /* endfinally */
    CLRIE_IL_OP_LEAVE = 0xDD, /* leave */
    CLRIE_IL_OP_LEAVE_S = 0xDE, /* leave.s */
    CLRIE_IL_OP_STIND_I = 0xDF, /* stind.i */
    CLRIE_IL_OP_CONV_U = 0xE0, /* conv.u */
    CLRIE_IL_OP_ARGLIST = 0x100, /* arglist */
    CLRIE_IL_OP_CEQ = 0x101, /* ceq */
    CLRIE_IL_OP_CGT = 0x102, /* cgt */
    CLRIE_IL_OP_CGT_UN = 0x103, /* cgt.un */
    CLRIE_IL_OP_CLT = 0x104, /* clt */
    CLRIE_IL_OP_CLT_UN = 0x105, /* clt.un */
    CLRIE_IL_OP_LDFTN = 0x106, /* ldftn */
    CLRIE_IL_OP_LDVIRTFTN = 0x107, /* ldvirtftn */
    CLRIE_IL_OP_LDARG = 0x109, /* ldarg */
    CLRIE_IL_OP_LDARGA = 0x10A, /* ldarga */
    CLRIE_IL_OP_STARG = 0x10B, /* starg */
    CLRIE_IL_OP_LDLOC = 0x10C, /* ldloc */
    CLRIE_IL_OP_LDLOCA = 0x10D, /* ldloca */
    CLRIE_IL_OP_STLOC = 0x10E, /* stloc */
    CLRIE_IL_OP_LOCALLOC = 0x10F, /* localloc */
    CLRIE_IL_OP_ENDFILTER = 0x111, /* endfilter */
    CLRIE_IL_OP_UNALIGNED = 0x112, /* unaligned. */
    CLRIE_IL_OP_VOLATILE = 0x113, /* volatile. */
    CLRIE_IL_OP_TAIL = 0x114, /* tail. */
    CLRIE_IL_OP_INITOBJ = 0x115, /* initobj */
    CLRIE_IL_OP_CONSTRAINED = 0x116, /* constrained. */
    CLRIE_IL_OP_CPBLK = 0x117, /* cpblk */
    CLRIE_IL_OP_INITBLK = 0x118, /* initblk */
    CLRIE_IL_OP_NO = 0x119, /* no. */
    CLRIE_IL_OP_RETHROW = 0x11A, /* rethrow */
    CLRIE_IL_OP_SIZEOF = 0x11C, /* sizeof */
    CLRIE_IL_OP_REFANYTYPE = 0x11D, /* refanytype */
    CLRIE_IL_OP_READONLY = 0x11E, /* readonly. */
    /* One past the largest ordinal (CLRIE's Cee_Count); every opcode is below it. */
    CLRIE_IL_OP_COUNT = 0x123,
    CLRIE_IL_OP_INVALID = 0xFFFF,
};
/* clang-format on */

/* How an operand is encoded. */
enum clrie_il_operand_kind {
    CLRIE_IL_OPERAND_NONE = 0,
    CLRIE_IL_OPERAND_INT8,     /* ldc.i4.s */
    CLRIE_IL_OPERAND_UINT8,    /* ldarg.s, ldloc.s, ..., unaligned., no. */
    CLRIE_IL_OPERAND_UINT16,   /* ldarg, ldloc, ... */
    CLRIE_IL_OPERAND_INT32,    /* ldc.i4 */
    CLRIE_IL_OPERAND_INT64,    /* ldc.i8 */
    CLRIE_IL_OPERAND_FLOAT32,  /* ldc.r4 */
    CLRIE_IL_OPERAND_FLOAT64,  /* ldc.r8 */
    CLRIE_IL_OPERAND_TOKEN,    /* metadata token (also the calli signature token) */
    CLRIE_IL_OPERAND_BRANCH8,  /* short branch: signed byte displacement */
    CLRIE_IL_OPERAND_BRANCH32, /* long branch: signed 32-bit displacement */
    CLRIE_IL_OPERAND_SWITCH,   /* uint32 count, then count signed 32-bit displacements */
};

/* CLRIE's ILOperandType values, for the COM wrapper (IInstruction::GetOperandType). */
enum clrie_il_clrie_operand_type {
    CLRIE_IL_CLRIE_OPERAND_NONE = 0,
    CLRIE_IL_CLRIE_OPERAND_BYTE = 1,
    CLRIE_IL_CLRIE_OPERAND_INT = 2,
    CLRIE_IL_CLRIE_OPERAND_USHORT = 3,
    CLRIE_IL_CLRIE_OPERAND_LONG = 4,
    CLRIE_IL_CLRIE_OPERAND_SINGLE = 5,
    CLRIE_IL_CLRIE_OPERAND_DOUBLE = 6,
    CLRIE_IL_CLRIE_OPERAND_TOKEN = 7,
    CLRIE_IL_CLRIE_OPERAND_SWITCH = 8,
};

/* What happens after an instruction runs. */
enum clrie_il_flow {
    CLRIE_IL_FLOW_NEXT = 0,    /* falls through */
    CLRIE_IL_FLOW_BRANCH,      /* br, br.s */
    CLRIE_IL_FLOW_COND_BRANCH, /* brtrue, beq, ...: target or next */
    CLRIE_IL_FLOW_SWITCH,      /* one of the targets or next */
    CLRIE_IL_FLOW_LEAVE,       /* leave, leave.s: empties the stack, exits protected blocks */
    CLRIE_IL_FLOW_RETURN,      /* ret */
    CLRIE_IL_FLOW_END_HANDLER, /* endfinally, endfilter */
    CLRIE_IL_FLOW_THROW,       /* throw, rethrow */
    CLRIE_IL_FLOW_CALL,        /* call, callvirt, calli, newobj: falls through */
    CLRIE_IL_FLOW_JMP,         /* jmp: leaves the method */
    CLRIE_IL_FLOW_PREFIX,      /* a prefix: modifies the next instruction */
    CLRIE_IL_FLOW_BREAK,       /* break: falls through */
};

/* CLRIE's InstructionTerminationType values (IInstruction::GetTerminationType). */
enum clrie_il_termination {
    CLRIE_IL_TERM_FALL_THROUGH = 0,
    CLRIE_IL_TERM_BRANCH = 1,
    CLRIE_IL_TERM_CONDITIONAL_BRANCH = 2,
    CLRIE_IL_TERM_THROW = 3,
    CLRIE_IL_TERM_SWITCH = 4,
    CLRIE_IL_TERM_CALL = 5,
    CLRIE_IL_TERM_INDIRECT_CALL = 6,
    CLRIE_IL_TERM_RETURN = 7,
    CLRIE_IL_TERM_TRAP = 8,
};

/* Stack counts in struct clrie_il_opcode_info that depend on a signature. */
#define CLRIE_IL_STACK_VARIABLE (-1)

/* Static facts about one opcode. Borrowed from a constant table: valid forever. */
struct clrie_il_opcode_info {
    const char *name; /* "ldarg.s"; NULL for an unused ordinal */
    uint16_t ordinal;
    uint8_t opcode_len;    /* 1 or 2 */
    uint8_t operand_len;   /* 0, 1, 2, 4 or 8; switch: 4 (the count; targets follow) */
    uint8_t operand_kind;  /* enum clrie_il_operand_kind */
    uint8_t clrie_operand; /* enum clrie_il_clrie_operand_type */
    uint8_t flow;          /* enum clrie_il_flow */
    uint8_t termination;   /* enum clrie_il_termination */
    int8_t pop, push;      /* stack items; CLRIE_IL_STACK_VARIABLE for call/ret forms */
    uint16_t alternate;    /* short <-> long branch form, else CLRIE_IL_OP_INVALID */
    uint8_t clrie_flags;   /* CLRIE's ILOpcodeFlags: CLRIE_IL_CLRIE_FLAG_* */
};

/* CLRIE's ILOpcodeFlags values (IInstruction::GetOpcodeFlags): every branch and leave, short
 * or long, carries Branch; no opcode carries Meta or Unused (CLRIE gives them to its
 * placeholder rows only). */
#define CLRIE_IL_CLRIE_FLAG_META 0x1u
#define CLRIE_IL_CLRIE_FLAG_UNUSED 0x2u
#define CLRIE_IL_CLRIE_FLAG_BRANCH 0x4u

/* The facts for an ordinal, or NULL when the ordinal names no opcode (unused, prefixN, or
 * beyond the table). */
const struct clrie_il_opcode_info *clrie_il_opcode_info(uint16_t ordinal);

/* ---- Diagnostics ------------------------------------------------------------------------ */

struct clrie_il_diag {
    uint32_t offset;   /* byte offset the problem is at (see each function) */
    char message[160]; /* what was wrong and what was expected; NUL-terminated */
};

/* Receives each problem a checker finds: the IL offset and a sentence. */
typedef void (*clrie_il_report_fn)(void *ctx, uint32_t offset, const char *message);

/* ---- Graphs and nodes ------------------------------------------------------------------- */

struct clrie_il_graph;  /* one method's instructions, clauses and header */
struct clrie_il_instr;  /* one instruction node */
struct clrie_il_clause; /* one exception-handling clause */

#define CLRIE_IL_NO_OFFSET UINT32_MAX /* original offset of a node that was not decoded */

/* Exception clause kinds (CorExceptionFlag). */
#define CLRIE_IL_EH_CATCH 0x0u
#define CLRIE_IL_EH_FILTER 0x1u
#define CLRIE_IL_EH_FINALLY 0x2u
#define CLRIE_IL_EH_FAULT 0x4u
#define CLRIE_IL_EH_DUPLICATED 0x8u /* informational; kept as given */
#define CLRIE_IL_EH_KIND_MASK 0x7u

/* "catch", "filter", "finally" or "fault" for one of those kinds; NULL for any other value
 * (mask flags with CLRIE_IL_EH_KIND_MASK first to ignore DUPLICATED). For dumps and tools. */
const char *clrie_il_eh_kind_name(uint32_t kind);

/* Method header flags (CorILMethodFlags, fat headers). */
#define CLRIE_IL_HEADER_INIT_LOCALS 0x10u
#define CLRIE_IL_HEADER_MORE_SECTS 0x08u

/* Header facts of a graph's method. */
struct clrie_il_header {
    bool fat;       /* fat header (tiny: max_stack 8, no locals, no clauses) */
    uint16_t flags; /* fat header flag bits (low 12 bits), e.g. INIT_LOCALS */
    uint16_t max_stack;
    uint32_t local_sig_token; /* 0: no locals */
    uint32_t code_size;       /* of the code as of the last decode or layout */
};

/* Decodes a whole method body: header, code and exception sections. body[0..len) must hold
 * at least the body (trailing bytes are ignored). Every node is "original". On -EILSEQ,
 * diag->offset is the offset into body of the first thing that is wrong. */
int clrie_il_graph_decode(const uint8_t *body, size_t len, struct clrie_il_graph **out,
                          struct clrie_il_diag *diag);

/* Decodes bare IL bytes with no header and no clauses (CLRIE's DecodeInstructionByteStream).
 * The graph has a tiny header whose code size is len; nodes are "original". */
int clrie_il_graph_decode_code(const uint8_t *code, size_t len, struct clrie_il_graph **out,
                               struct clrie_il_diag *diag);

/* An empty graph with a tiny header, to build a method from scratch. */
int clrie_il_graph_new(struct clrie_il_graph **out);

/* Frees the graph with all its nodes and clauses. Accepts NULL. */
void clrie_il_graph_free(struct clrie_il_graph *g);

/* Empties g for reuse: it becomes what clrie_il_graph_new() returns (no nodes, no clauses,
 * a tiny header), but keeps its memory for the nodes and clauses that come next, so a
 * graph reused for many methods (one per thread, say) stops allocating memory for them once
 * it has held the biggest. Every node and clause pointer taken from g before the reset becomes
 * invalid. clrie_il_graph_free() releases the memory. Accepts NULL. */
void clrie_il_graph_reset(struct clrie_il_graph *g);

/* clrie_il_graph_decode() into an existing graph, reusing its memory: g is reset, then
 * holds the decoded body. On failure g is left reset (empty) and diag says why, as for
 * clrie_il_graph_decode(). */
int clrie_il_graph_decode_into(struct clrie_il_graph *g, const uint8_t *body, size_t len,
                               struct clrie_il_diag *diag);

/* Header facts; code_size is as of the last decode, layout or encode. */
void clrie_il_graph_header(const struct clrie_il_graph *g, struct clrie_il_header *out);
/* Makes the header fat (it stays fat), with the given flags, max stack and local signature. */
void clrie_il_graph_set_fat_header(struct clrie_il_graph *g, uint16_t flags, uint16_t max_stack,
                                   uint32_t local_sig_token);

/* Current list (after edits) and original list (as decoded, removed nodes included). */
struct clrie_il_instr *clrie_il_graph_first(const struct clrie_il_graph *g);
struct clrie_il_instr *clrie_il_graph_last(const struct clrie_il_graph *g);
struct clrie_il_instr *clrie_il_graph_original_first(const struct clrie_il_graph *g);
struct clrie_il_instr *clrie_il_graph_original_last(const struct clrie_il_graph *g);
size_t clrie_il_graph_count(const struct clrie_il_graph *g); /* nodes in the current list */

/* The node at a current offset (offsets are recomputed after edits with the last encoding
 * mode; O(log n) once computed) or at an original offset (O(log n)); NULL when no
 * instruction starts there. The original lookup may return a removed node. */
struct clrie_il_instr *clrie_il_graph_at_offset(struct clrie_il_graph *g, uint32_t offset);
struct clrie_il_instr *clrie_il_graph_at_original_offset(const struct clrie_il_graph *g,
                                                         uint32_t offset);

/* Node accessors. */
uint16_t clrie_il_instr_opcode(const struct clrie_il_instr *n);
const struct clrie_il_opcode_info *clrie_il_instr_info(const struct clrie_il_instr *n);
/* Current offset; lays the graph out first if an edit made offsets stale (with the last
 * encoding mode). A node not in the list keeps the offset it last had. */
uint32_t clrie_il_instr_offset(struct clrie_il_instr *n);
uint32_t clrie_il_instr_original_offset(const struct clrie_il_instr *n);
uint32_t clrie_il_instr_size(const struct clrie_il_instr *n); /* opcode + operand bytes */
bool clrie_il_instr_is_new(const struct clrie_il_instr *n);
bool clrie_il_instr_is_removed(const struct clrie_il_instr *n);
struct clrie_il_instr *clrie_il_instr_next(const struct clrie_il_instr *n);
struct clrie_il_instr *clrie_il_instr_prev(const struct clrie_il_instr *n);
struct clrie_il_instr *clrie_il_instr_original_next(const struct clrie_il_instr *n);
struct clrie_il_instr *clrie_il_instr_original_prev(const struct clrie_il_instr *n);

/* Integer-like operand (INT8, UINT8, UINT16, INT32, INT64, TOKEN): -EINVAL for other kinds. */
int clrie_il_instr_operand_int(const struct clrie_il_instr *n, int64_t *out);
int clrie_il_instr_set_operand_int(struct clrie_il_instr *n, int64_t value); /* -ERANGE */
/* FLOAT32/FLOAT64 operand. */
int clrie_il_instr_operand_real(const struct clrie_il_instr *n, double *out);
/* Raw little-endian operand bytes as encoded (not for branches and switch); returns the
 * operand length, or -EINVAL. buf must hold 8 bytes. */
int clrie_il_instr_operand_bytes(const struct clrie_il_instr *n, uint8_t buf[8]);
/* Sets the operand from raw little-endian bytes as encoded, the inverse of
 * clrie_il_instr_operand_bytes (CLRIE's IOperandInstruction::SetOperandValue): len must be
 * the operand length of the node's opcode. -EINVAL for branches, switch, no operand or
 * another length. */
int clrie_il_instr_set_operand_bytes(struct clrie_il_instr *n, const uint8_t *buf, size_t len);

/* Branch target (branches and leave), NULL for other nodes. */
struct clrie_il_instr *clrie_il_instr_branch_target(const struct clrie_il_instr *n);
int clrie_il_instr_set_branch_target(struct clrie_il_instr *n, struct clrie_il_instr *target);
/* Keeps a branch in its long form whatever the encoding mode (CLRIE's ExpandBranch); the
 * node's opcode becomes the long form at once. -EINVAL for other nodes. */
int clrie_il_instr_expand_branch(struct clrie_il_instr *n);
/* Expands every branch of the current list (CLRIE's ExpandBranches). */
void clrie_il_graph_expand_branches(struct clrie_il_graph *g);
/* Switch targets. */
uint32_t clrie_il_instr_switch_count(const struct clrie_il_instr *n);
struct clrie_il_instr *clrie_il_instr_switch_target(const struct clrie_il_instr *n, uint32_t i);
int clrie_il_instr_set_switch_target(struct clrie_il_instr *n, uint32_t i,
                                     struct clrie_il_instr *target);
/* Removes target i; later targets move down one place. */
int clrie_il_instr_remove_switch_target(struct clrie_il_instr *n, uint32_t i);

/* ---- Creating nodes --------------------------------------------------------------------- */
/* Each creates a detached "new" node in g's arena, to be placed with an insert or replace.
 * -EINVAL when the opcode's operand kind does not match the function, -ERANGE when the value
 * does not fit the operand. */

int clrie_il_instr_create(struct clrie_il_graph *g, uint16_t opcode, struct clrie_il_instr **out);
int clrie_il_instr_create_int(struct clrie_il_graph *g, uint16_t opcode, int64_t value,
                              struct clrie_il_instr **out);
int clrie_il_instr_create_real(struct clrie_il_graph *g, uint16_t opcode, double value,
                               struct clrie_il_instr **out);
/* target may be NULL and set later; the encoder rejects a branch without a target. Either
 * the short or the long opcode may be given: the encoder chooses the form. */
int clrie_il_instr_create_branch(struct clrie_il_graph *g, uint16_t opcode,
                                 struct clrie_il_instr *target, struct clrie_il_instr **out);
int clrie_il_instr_create_switch(struct clrie_il_graph *g, uint32_t count,
                                 struct clrie_il_instr *const *targets,
                                 struct clrie_il_instr **out);
/* Shortest forms: ldc.i4.m1..8 / ldc.i4.s / ldc.i4; ldloc.0..3 / ldloc.s / ldloc and the
 * same for stloc and ldarg; ldloca.s / ldloca, ldarga.s / ldarga, starg.s / starg. Indices
 * up to 65534 are encoded exactly; larger ones give -ERANGE. */
int clrie_il_instr_create_ldc_i4(struct clrie_il_graph *g, int32_t value,
                                 struct clrie_il_instr **out);
int clrie_il_instr_create_ldloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out);
int clrie_il_instr_create_stloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out);
int clrie_il_instr_create_ldloca(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out);
int clrie_il_instr_create_ldarg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out);
int clrie_il_instr_create_ldarga(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out);
int clrie_il_instr_create_starg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out);

/* Decodes bare IL bytes into new detached nodes of g (branches inside the fragment refer to
 * its own nodes; a branch leaving the fragment is -EILSEQ). *nodes is a malloc'd array of
 * *count nodes in order, to be inserted by the caller. */
int clrie_il_graph_decode_fragment(struct clrie_il_graph *g, const uint8_t *code, size_t len,
                                   struct clrie_il_instr ***nodes, size_t *count,
                                   struct clrie_il_diag *diag);

/* ---- Edits ------------------------------------------------------------------------------ */
/* All take a node of the current list (anchor) and a new detached node of the same graph;
 * -EINVAL otherwise (a removed or replaced node is no anchor). Original links and original
 * offsets never change.
 *
 * A reference is a branch target, a switch target, or a clause boundary: a "first" (the
 * first node of a try, handler or filter block) or a "last" (the last node of a try or
 * handler block). Each edit says which references aimed at the anchor move to the new node
 * and which stay. The new node's own operands (its branch or switch targets) never move with
 * the anchor's referrers: `br T` inserted before T with retargeting still jumps to T, as in
 * CLRIE (a new switch keeps its targets too, where CLRIE would aim them at the switch).
 *
 * A replaced node stands for its replacement wherever a node is named as a reference, later
 * too: a branch or switch target set to it, a clause boundary set or added with it, end up
 * on the replacement (followed if that was replaced in turn), as under CLRIE, where the
 * replaced node keeps the offset its replacement occupies. A node removed by remove or
 * remove_all names nothing: a branch aimed at it does not encode, and a clause with it is
 * -EINVAL. */

/* The node that stands for n now: n itself, or for a replaced node its replacement. */
struct clrie_il_instr *clrie_il_instr_current(struct clrie_il_instr *n);

/* Places node before anchor. Every reference to anchor stays on anchor: branches to anchor
 * skip node, and a block starting at anchor does not include it (CLRIE's InsertBefore). */
int clrie_il_graph_insert_before(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                 struct clrie_il_instr *node);
/* Places node before anchor and moves to node every branch, switch target and clause start
 * (try, handler, filter) aimed at anchor, except node's own operands: the new code runs
 * wherever anchor used to be entered (CLRIE's InsertBeforeAndRetargetOffsets). Clause ends
 * stay on anchor. */
int clrie_il_graph_insert_before_retarget(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                          struct clrie_il_instr *node);
/* Places node after anchor; anchor NULL places it first. No reference moves (CLRIE's
 * InsertAfter): a block ending at anchor does not include node. */
int clrie_il_graph_insert_after(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                struct clrie_il_instr *node);
/* Places node after anchor and moves to node every clause end (try, handler) that was
 * anchor, so blocks ending at anchor now include node. Branches, switch targets and clause
 * starts stay on anchor. (clrie's own; CLRIE has no such edit.) */
int clrie_il_graph_insert_after_retarget(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                         struct clrie_il_instr *node);
/* Puts node in old's place; every reference to old, of every kind, now refers to node, node's
 * own operands included (a `br old` replacing old jumps to itself, as under CLRIE); old is
 * removed and stands for node from then on (CLRIE's Replace). */
int clrie_il_graph_replace(struct clrie_il_graph *g, struct clrie_il_instr *old,
                           struct clrie_il_instr *node);
/* Removes node from the current list. Branches, switch targets and clause starts aimed at it
 * move to the following instruction (the previous one if it was last); clause ends move to
 * the previous instruction (the following one if it was first). Removing the only
 * instruction is -EINVAL. (CLRIE moves the clause boundaries the same way but leaves
 * branches aimed at the removed node.) */
int clrie_il_graph_remove(struct clrie_il_graph *g, struct clrie_il_instr *node);
/* Removes every instruction and every clause (CLRIE's RemoveAll); branches among the removed
 * nodes keep their targets. */
void clrie_il_graph_remove_all(struct clrie_il_graph *g);

/* ---- Exception clauses ------------------------------------------------------------------ */

struct clrie_il_clause_info {
    uint32_t flags; /* CLRIE_IL_EH_* */
    struct clrie_il_instr *try_first, *try_last;
    struct clrie_il_instr *handler_first, *handler_last;
    struct clrie_il_instr *filter_first; /* filter clauses; NULL otherwise */
    uint32_t class_token; /* catch type of catch clauses; as decoded for finally/fault */
};

size_t clrie_il_graph_clause_count(const struct clrie_il_graph *g);
/* Clauses in table order (inner before outer); NULL past the end. */
struct clrie_il_clause *clrie_il_graph_clause(const struct clrie_il_graph *g, size_t index);
void clrie_il_clause_get(const struct clrie_il_clause *c, struct clrie_il_clause_info *out);
/* Changes a clause; nodes must be in g's current list, or replaced by nodes that are. */
int clrie_il_clause_set(struct clrie_il_graph *g, struct clrie_il_clause *c,
                        const struct clrie_il_clause_info *info);
/* Adds a clause before the first clause whose try block strictly encloses the new one's, or
 * last when none does: inner clauses stay before outer ones as the runtime requires, a
 * clause sharing a try block goes after those already there, and unrelated clauses keep
 * their order. */
int clrie_il_graph_add_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                              struct clrie_il_clause **out);
/* Appends a clause at the end of the table without reordering (CLRIE's AddExceptionClause);
 * the caller answers for the order, which the verifier checks. */
int clrie_il_graph_append_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                                 struct clrie_il_clause **out);
int clrie_il_graph_remove_clause(struct clrie_il_graph *g, struct clrie_il_clause *c);

/* ---- Encoding --------------------------------------------------------------------------- */

/* Keep each original instruction's encoding (a decoded short branch stays short unless its
 * target moved out of reach, a long one stays long); new branches take the shortest form.
 * Without it every branch takes the shortest form that fits. Either way widening one
 * branch may widen others; the encoder iterates to a fixpoint. An unedited graph encoded
 * with PRESERVE gives back the decoded bytes (header kind, flags, EH section formats). */
#define CLRIE_IL_ENCODE_PRESERVE 0x1u
#define CLRIE_IL_ENCODE_FAT_HEADER 0x2u /* write a fat header even if a tiny one would do */
#define CLRIE_IL_ENCODE_FAT_EH 0x4u     /* write one fat EH section */
/* Write every instruction from its node. Without it the code of a graph that is laid out as
 * decoded and has not been edited (no edit, no operand set) is copied from the decoded
 * bytes, which the nodes would write again; with it the writer itself can be checked. */
#define CLRIE_IL_ENCODE_REWRITE 0x8u

/* Lays out the current list (offsets and branch forms) with the given flags, as encoding
 * would. Edits make the layout stale; offset lookups redo it with the last flags used. */
int clrie_il_graph_layout(struct clrie_il_graph *g, unsigned flags, struct clrie_il_diag *diag);

/* Writes the method body: header, code, EH sections. A tiny header is written when the
 * graph's header is tiny and the code still fits one (< 64 bytes, no clauses, max stack
 * <= 8); otherwise fat. diag->offset is the current offset of the offending instruction. */
int clrie_il_graph_encode(struct clrie_il_graph *g, unsigned flags, uint8_t **body, size_t *len,
                          struct clrie_il_diag *diag);
/* Writes only the code bytes. */
int clrie_il_graph_encode_code(struct clrie_il_graph *g, unsigned flags, uint8_t **code,
                               size_t *len, struct clrie_il_diag *diag);

/* One IL map entry (COR_IL_MAP without fAccurate). */
struct clrie_il_map_entry {
    uint32_t old_offset;
    uint32_t new_offset;
};
/* The map for the current layout: one entry per original node still present, in current
 * order; new code is attributed to the original instruction that follows it (its entry's
 * new_offset is where that new code starts), as CLRIE does. *entries is malloc'd (NULL when
 * *count is 0). */
int clrie_il_graph_il_map(struct clrie_il_graph *g, struct clrie_il_map_entry **entries,
                          size_t *count);

/* ---- Stack depth and verification ------------------------------------------------------- */

struct clrie_il_stack_effect {
    uint32_t pop;
    uint32_t push;
};

/* Gives the stack effect of call, callvirt, newobj, calli (token = the operand; pop includes
 * `this` and calli's function pointer) and ret (token = 0; pop 1 unless the method returns
 * void). Returns 0, or a negative errno if it cannot tell. */
typedef int (*clrie_il_stack_fn)(void *ctx, uint16_t opcode, uint32_t token,
                                 struct clrie_il_stack_effect *out);

/* Maximum stack depth by dataflow over the control-flow graph: backward branches, switch,
 * catch and filter blocks entered with one item, finally and fault with none. -EILSEQ when
 * the stack underflows or paths meet with different heights (first problem in diag,
 * offset = current IL offset); the resolver's error when it fails. */
int clrie_il_graph_max_stack(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                             uint32_t *out, struct clrie_il_diag *diag);

/* Checks the graph and calls report for every problem: branch targets that are not in the
 * method, falling off the end, stack underflow and mismatched heights, ret with extra items,
 * clauses that overlap without nesting or are out of order, and entering or leaving blocks
 * illegally (branching into or out of a block, leave out of a handler, falling into a
 * handler, ret inside a block, endfinally/endfilter/rethrow outside their blocks). Returns 0
 * when nothing was found, -EILSEQ when something was (report may be NULL to just ask),
 * another negative errno when it could not check. Its working memory (and max_stack's)
 * comes from the graph's arena, kept for the next check of the graph or of the next method
 * decoded into it, and freed with the graph. */
int clrie_il_graph_verify(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                          clrie_il_report_fn report, void *report_ctx);

/* What the verifier may ask of the method's module: plain C callbacks that the engine answers
 * from the runtime's metadata and clrie-il from the assembly's tables. One verify call asks
 * each callback about a token once (resolve: once per token and opcode) and keeps the
 * answer for the rest of the call, so an answer must not change while the call runs. */
struct clrie_il_metadata {
    void *ctx;
    /* Whether the row a token names exists in its table; for a user-string token
     * (0x70xxxxxx), whether the offset lies inside the #US heap. NULL: rows are not checked. */
    bool (*token_exists)(void *ctx, uint32_t token);
    /* The signature blob of a MethodDef, MemberRef, MethodSpec (its generic method's
     * signature), FieldDef or StandAloneSig token. The bytes are borrowed until the verify
     * call returns. 0, or a negative errno (what the member gives is then not checked).
     * NULL: the types of members are not checked. */
    int (*signature)(void *ctx, uint32_t token, const uint8_t **sig, size_t *len);
    /* Whether the field a FieldDef or MemberRef token names is static: 1 static, 0 an
     * instance field, a negative errno when it cannot tell (a MemberRef to another module).
     * ldfld, ldflda and stfld need an instance field, ldsfld, ldsflda and stsfld a static
     * one. NULL: not checked. */
    int (*field_is_static)(void *ctx, uint32_t token);
    /* What the value type a TypeDef or TypeRef token names is on the stack: the element type
     * of its primitive (CLRIE_IL_ELEMENT_TYPE_I4 ... for System.Int32 ..., and for an enum
     * the type of its instance field value__), CLRIE_IL_ELEMENT_TYPE_VALUETYPE for a struct,
     * or a negative errno when it cannot tell (the type is then an enum's integer or a
     * struct). NULL: never told. */
    int (*value_type)(void *ctx, uint32_t token);
    /* The generic arguments a call, callvirt or newobj token supplies to its callee: for a
     * MemberRef whose parent is a TypeSpec, that TypeSpec's blob in *type_spec (GENERICINST,
     * CLASS or VALUETYPE, the type, the count and the arguments: what !0, !1 ... of the
     * callee's signature are); for a MethodSpec, its instantiation blob in *method_inst
     * (0x0A, the count and the arguments: what !!0, !!1 ... are) and, when its method is
     * such a MemberRef, that TypeSpec's blob in *type_spec too. What the token does not supply
     * is left NULL with length 0. The bytes are borrowed until the verify call returns. 0, or
     * a negative errno (nothing is substituted). NULL, or an instantiation that cannot be
     * read: a parameter or result of a generic parameter's type is anything. */
    int (*generic_args)(void *ctx, uint32_t token, const uint8_t **type_spec, size_t *type_spec_len,
                        const uint8_t **method_inst, size_t *method_inst_len);
};

/* What the verifier knows about the method. Borrowed for the call. */
struct clrie_il_verify_context {
    clrie_il_stack_fn resolve; /* as for clrie_il_graph_verify */
    void *resolve_ctx;
    /* The method's MethodDefSig and its LOCAL_SIG blob (local_sig_len 0: no locals). With
     * method_sig NULL, argument and local indices and types and the returned value are not
     * checked. */
    const uint8_t *method_sig;
    size_t method_sig_len;
    const uint8_t *local_sig;
    size_t local_sig_len;
    /* NULL: tokens are checked for their table only (0x0A000001 is no ldstr operand), not
     * for their row, and what members take and give is not checked. */
    const struct clrie_il_metadata *metadata;
};

/* Everything clrie_il_graph_verify checks, and with the context also what the runtime's JIT
 * rejects with InvalidProgramException: argument and local indices against the signatures;
 * each token's table for its opcode (ldstr: user string; call, callvirt, ldftn, ldvirtftn,
 * jmp: MethodDef, MemberRef of a method, MethodSpec; newobj: MethodDef or MemberRef; field
 * opcodes: FieldDef or MemberRef of a field; type opcodes: TypeDef, TypeRef, TypeSpec;
 * calli: StandAloneSig; ldtoken: a type, method or field) and its row; the stack types of
 * ECMA-335 III.1.5 (int32, int64, native int, F, O, &; an int64 is also an address for the
 * indirect loads and stores and the *obj opcodes, as the JIT of a 64-bit runtime takes it)
 * for arithmetic, shifts, comparisons,
 * conditional branches, conversions, switch, stores to arguments, locals, fields and
 * parameters, paths that meet with different types, and the value ret returns. A callee's
 * parameters and result of a generic parameter's type (!0, !!0) are checked as the types the
 * token instantiates them with, when metadata->generic_args tells them. A stack item whose
 * type cannot be told (a generic parameter otherwise, a value type) is accepted everywhere. */
int clrie_il_graph_verify_in(struct clrie_il_graph *g, const struct clrie_il_verify_context *c,
                             clrie_il_report_fn report, void *report_ctx);
/* clrie_il_graph_verify_in that also sets *max_stack, when the stack heights check out, to the
 * maximum stack depth clrie_il_graph_max_stack would compute: one analysis instead of two. */
int clrie_il_graph_verify_in_max_stack(struct clrie_il_graph *g,
                                       const struct clrie_il_verify_context *c,
                                       clrie_il_report_fn report, void *report_ctx,
                                       uint32_t *max_stack);

/* ---- ECMA-335 encodings: signatures (II.23.2) ------------------------------------------- */
/* The one reader and writer of signature blobs in clrie: compressed integers, coded tokens,
 * element types and the shape of types, method, field and local-variable signatures. Every
 * reader takes the bytes it may look at (p[0..len)) and reads nothing past them; malformed or
 * truncated input is -EILSEQ, nesting deeper than 64 types included. */

/* Element types (II.23.1.16): the first byte of a type in a signature. */
enum clrie_il_element_type {
    CLRIE_IL_ELEMENT_TYPE_END = 0x00,
    CLRIE_IL_ELEMENT_TYPE_VOID = 0x01,
    CLRIE_IL_ELEMENT_TYPE_BOOLEAN = 0x02,
    CLRIE_IL_ELEMENT_TYPE_CHAR = 0x03,
    CLRIE_IL_ELEMENT_TYPE_I1 = 0x04,
    CLRIE_IL_ELEMENT_TYPE_U1 = 0x05,
    CLRIE_IL_ELEMENT_TYPE_I2 = 0x06,
    CLRIE_IL_ELEMENT_TYPE_U2 = 0x07,
    CLRIE_IL_ELEMENT_TYPE_I4 = 0x08,
    CLRIE_IL_ELEMENT_TYPE_U4 = 0x09,
    CLRIE_IL_ELEMENT_TYPE_I8 = 0x0A,
    CLRIE_IL_ELEMENT_TYPE_U8 = 0x0B,
    CLRIE_IL_ELEMENT_TYPE_R4 = 0x0C,
    CLRIE_IL_ELEMENT_TYPE_R8 = 0x0D,
    CLRIE_IL_ELEMENT_TYPE_STRING = 0x0E,
    CLRIE_IL_ELEMENT_TYPE_PTR = 0x0F,
    CLRIE_IL_ELEMENT_TYPE_BYREF = 0x10,
    CLRIE_IL_ELEMENT_TYPE_VALUETYPE = 0x11,
    CLRIE_IL_ELEMENT_TYPE_CLASS = 0x12,
    CLRIE_IL_ELEMENT_TYPE_VAR = 0x13,
    CLRIE_IL_ELEMENT_TYPE_ARRAY = 0x14,
    CLRIE_IL_ELEMENT_TYPE_GENERICINST = 0x15,
    CLRIE_IL_ELEMENT_TYPE_TYPEDBYREF = 0x16,
    CLRIE_IL_ELEMENT_TYPE_I = 0x18,
    CLRIE_IL_ELEMENT_TYPE_U = 0x19,
    CLRIE_IL_ELEMENT_TYPE_FNPTR = 0x1B,
    CLRIE_IL_ELEMENT_TYPE_OBJECT = 0x1C,
    CLRIE_IL_ELEMENT_TYPE_SZARRAY = 0x1D,
    CLRIE_IL_ELEMENT_TYPE_MVAR = 0x1E,
    CLRIE_IL_ELEMENT_TYPE_CMOD_REQD = 0x1F,
    CLRIE_IL_ELEMENT_TYPE_CMOD_OPT = 0x20,
    CLRIE_IL_ELEMENT_TYPE_INTERNAL = 0x21, /* runtime-internal: a type handle pointer follows */
    CLRIE_IL_ELEMENT_TYPE_SENTINEL = 0x41, /* vararg: the parameters after it are optional */
    CLRIE_IL_ELEMENT_TYPE_PINNED = 0x45,
};

/* The first byte of a signature (II.23.2.1-3): its kind in the low four bits, plus flags. */
#define CLRIE_IL_CALLCONV_KIND_MASK 0x0Fu
#define CLRIE_IL_CALLCONV_DEFAULT 0x00u
#define CLRIE_IL_CALLCONV_VARARG 0x05u
#define CLRIE_IL_CALLCONV_FIELD 0x06u
#define CLRIE_IL_CALLCONV_LOCAL_SIG 0x07u
#define CLRIE_IL_CALLCONV_PROPERTY 0x08u
#define CLRIE_IL_CALLCONV_UNMANAGED 0x09u
#define CLRIE_IL_CALLCONV_GENERICINST 0x0Au
#define CLRIE_IL_CALLCONV_GENERIC 0x10u
#define CLRIE_IL_CALLCONV_HASTHIS 0x20u
#define CLRIE_IL_CALLCONV_EXPLICITTHIS 0x40u

/* Whether a type that starts with this element type is that one byte and nothing more (the
 * primitives, string, object, typedbyref, I, U, void). */
bool clrie_il_sig_element_is_simple(uint8_t element_type);

/* Compressed unsigned integer: reads one from p[0..len), *used = its byte count. */
int clrie_il_sig_read_uint(const uint8_t *p, size_t len, uint32_t *value, size_t *used);
/* Writes value (< 2^29) to out (4 bytes); returns the byte count or -ERANGE. */
int clrie_il_sig_write_uint(uint32_t value, uint8_t out[4]);
/* Compressed signed integer (the sign rotated into bit 0 within 7, 14 or 29 bits). */
int clrie_il_sig_read_int(const uint8_t *p, size_t len, int32_t *value, size_t *used);
/* Writes value (in [-2^28, 2^28-1]) to out; returns the byte count or -ERANGE. */
int clrie_il_sig_write_int(int32_t value, uint8_t out[4]);
/* TypeDefOrRef coded token: TypeDef (0x02), TypeRef (0x01), TypeSpec (0x1B) tokens. */
int clrie_il_sig_read_token(const uint8_t *p, size_t len, uint32_t *token, size_t *used);
int clrie_il_sig_write_token(uint32_t token, uint8_t out[4]); /* count, -ERANGE or -EINVAL */
/* Length of the custom modifiers (CMOD_REQD/CMOD_OPT and their tokens) at the start of
 * p[0..len): 0 when there are none. */
int clrie_il_sig_skip_custom_mods(const uint8_t *p, size_t len, size_t *used);
/* Length of the type (with custom modifiers) at p[0..len). */
int clrie_il_sig_type_len(const uint8_t *p, size_t len, size_t *type_len);

struct clrie_il_method_sig {
    uint8_t calling_convention; /* the first byte */
    bool has_this, explicit_this;
    uint32_t generic_count;
    uint32_t param_count;             /* all parameters, those after a vararg sentinel too */
    size_t ret_offset, ret_len;       /* the return type's bytes within the signature */
    bool returns_void, returns_byref; /* custom modifiers skipped */
};
/* A whole method signature (MethodDefSig, MethodRefSig, StandAloneMethodSig: calling
 * conventions default to vararg and unmanaged, II.23.2.1-3), every type measured. diag (may be
 * NULL) gets the offset in sig and what was wrong. */
int clrie_il_sig_parse_method(const uint8_t *sig, size_t len, struct clrie_il_method_sig *out,
                              struct clrie_il_diag *diag);
/* Stack effect of calling a method with this signature through opcode (call, callvirt,
 * newobj, calli) or of ret in a method with this signature. */
int clrie_il_sig_stack_effect(const struct clrie_il_method_sig *sig, uint16_t opcode,
                              struct clrie_il_stack_effect *out);

/* Number of locals in a LOCAL_SIG blob (len 0 = no locals) and where its first type starts
 * (types_at may be NULL; 0 when len is 0). */
int clrie_il_sig_local_header(const uint8_t *sig, size_t len, uint32_t *count, size_t *types_at);
/* A new LOCAL_SIG with the type appended; *index is the new local's index. sig may be
 * empty (no locals yet). *out is malloc'd. */
int clrie_il_sig_local_append(const uint8_t *sig, size_t len, const uint8_t *type, size_t type_len,
                              uint8_t **out, size_t *out_len, uint32_t *index);

/* ---- ECMA-335 encodings: method bodies (II.25.4) ---------------------------------------- */

/* Extra data section kinds (CorILMethodSect) and the fat header's format bits. */
#define CLRIE_IL_SECTION_EH_TABLE 0x01u
#define CLRIE_IL_SECTION_OPT_IL_TABLE 0x02u
#define CLRIE_IL_SECTION_FAT_FORMAT 0x40u
#define CLRIE_IL_SECTION_MORE_SECTS 0x80u

/* Where the parts of a method body lie, from its start. */
struct clrie_il_body_layout {
    struct clrie_il_header header; /* as stored; code_size is the header's */
    size_t code_offset;            /* 1 after a tiny header, 12 after a fat one */
    size_t sections_offset;        /* first extra data section; 0 when there is none */
    uint32_t section_count;
    size_t len; /* the whole body: header, code, padding and every data section */
};

/* Measures the body at the start of body[0..len): its header, its code and the chain of
 * data sections that follows at 4-byte boundaries (their kinds are not checked). -EILSEQ
 * (diag: offset into body) when the header is neither tiny nor fat or a part runs past len. */
int clrie_il_body_measure(const uint8_t *body, size_t len, struct clrie_il_body_layout *out,
                          struct clrie_il_diag *diag);

/* One exception clause as stored in a small (12-byte) or fat (24-byte) EH section; extra is
 * the class token of a catch clause, the filter offset of a filter clause. */
struct clrie_il_eh_clause_raw {
    uint32_t flags;
    uint32_t try_offset, try_length;
    uint32_t handler_offset, handler_length;
    uint32_t extra;
};
/* Reads the clause at p (12 bytes when small, 24 when fat). */
void clrie_il_eh_clause_read(const uint8_t *p, bool fat, struct clrie_il_eh_clause_raw *out);

/* ---- ECMA-335 encodings: PE images (II.25) ---------------------------------------------- */
/* The one reader of PE/COFF and CLI headers in clrie: for an assembly file (size known, flat
 * layout) and for a module image the runtime has loaded (mapped, sections at their RVAs, or
 * flat, the file as it is on disk; size unknown). Every read is bounded by what the headers
 * already read declare: before SizeOfHeaders is known, the first page (every loaded image has
 * it); the headers by SizeOfHeaders; an RVA by SizeOfImage (mapped) or by its section's raw
 * data (flat); and, when the size is known, by the size as well. */

#define CLRIE_IL_PE_CLI_HEADER_SIZE 72 /* IMAGE_COR20_HEADER */
#define CLRIE_IL_COMIMAGE_FLAGS_ILONLY 0x1u
#define CLRIE_IL_COMIMAGE_FLAGS_NATIVE_ENTRYPOINT 0x10u

struct clrie_il_pe_section {
    uint32_t virtual_address;
    uint32_t virtual_size;
    uint32_t raw_offset;
    uint32_t raw_size;
};

struct clrie_il_pe_image {
    const uint8_t *base;
    uint64_t readable; /* bytes at base known to be readable; UINT64_MAX when unknown */
    bool flat;
    bool pe32_plus;   /* optional header magic 0x20B rather than 0x10B */
    uint16_t machine; /* COFF machine, as stored (ReadyToRun images xor an OS value) */
    uint32_t size_of_image, size_of_headers;
    uint16_t section_count;
    struct clrie_il_pe_section *sections; /* owned by the image */
    bool has_cli_header; /* false: a PE without data directory 14, not a .NET image */
    uint8_t cli_header[CLRIE_IL_PE_CLI_HEADER_SIZE]; /* a copy */
    uint32_t cli_header_offset;                      /* from base, as resolved */
    uint16_t runtime_major, runtime_minor;
    uint32_t metadata_rva, metadata_size;
    uint32_t cli_flags;         /* COMIMAGE_FLAGS_* */
    uint32_t entry_point;       /* as stored: a token, or an RVA with NATIVE_ENTRYPOINT */
    uint32_t entry_point_token; /* the token, 0 with a native entry point */
    bool ready_to_run;          /* the CLI header has a managed native (ReadyToRun) header */
};

/* Reads the headers of the image at base: size bytes, or 0 when unknown (a runtime's image,
 * whose headers are then trusted to describe it); flat for the file layout. Returns 0,
 * -EILSEQ for a malformed image (diag: the offset from base and what was wrong), -EINVAL for
 * a NULL argument, -ENOMEM. Release with clrie_il_pe_image_finish() after success. */
int clrie_il_pe_image_init(struct clrie_il_pe_image *image, const uint8_t *base, size_t size,
                           bool flat, struct clrie_il_diag *diag);
void clrie_il_pe_image_finish(struct clrie_il_pe_image *image); /* accepts NULL */

/* Where rva lies, as an offset from base, and how many bytes of the image follow it there
 * (within its section's data, SizeOfImage, and the size if known). -EILSEQ if it lies in no
 * readable part of the image. */
int clrie_il_pe_image_rva_to_offset(const struct clrie_il_pe_image *image, uint32_t rva,
                                    size_t *offset, size_t *available, struct clrie_il_diag *diag);
/* The address of rva[0..size) inside the image, or NULL if it does not lie wholly inside. */
const uint8_t *clrie_il_pe_image_resolve(const struct clrie_il_pe_image *image, uint32_t rva,
                                         uint32_t size);

/* ---- Transforms ------------------------------------------------------------------------- */

/* What a transform needs to know about the method: its signature (for the return type) and
 * its current LOCAL_SIG blob (len 0 for none). Borrowed for the call. */
struct clrie_il_method_context {
    const uint8_t *method_sig;
    size_t method_sig_len;
    const uint8_t *local_sig;
    size_t local_sig_len;
};

/* What a transform did. local_sig is malloc'd (NULL when no local was added); the caller
 * turns it into a token and sets it with clrie_il_graph_set_fat_header. When a transform
 * fails part-way (-ENOMEM) the graph may be partly changed and should be discarded. */
struct clrie_il_transform_result {
    bool changed;
    struct clrie_il_instr *exit;          /* shared exit: where every return now goes */
    struct clrie_il_instr *handler_first; /* wrap: first and last node of the new handler */
    struct clrie_il_instr *handler_last;
    struct clrie_il_clause *clause; /* wrap: the new clause */
    uint8_t *local_sig;
    size_t local_sig_len;
    uint32_t local_index; /* the return-value local, if one was added */
};

/* Single return: with two or more replaceable rets, appends one final ret and turns every
 * other ret into a branch to it; a non-void, non-byref return value travels through a new
 * local (stloc before each branch, ldloc before the final ret). A ret right after a `tail.`
 * call stays. exit is the node every return now reaches (the ldloc, or the final ret; with
 * fewer than two replaceable rets, the only ret and changed = false). */
int clrie_il_transform_single_ret(struct clrie_il_graph *g, const struct clrie_il_method_context *m,
                                  struct clrie_il_transform_result *out,
                                  struct clrie_il_diag *diag);

/* Tiny to fat: a fat header whose max stack is the computed one, with InitLocals set when
 * the header was tiny (a tiny body has no locals, and locals added later must start zeroed,
 * as verifiable code needs). A fat header keeps its flags and gets the computed max stack. */
int clrie_il_transform_fat_header(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                                  struct clrie_il_diag *diag);

/* Wraps the whole body in a try block with a new finally (kind CLRIE_IL_EH_FINALLY) or catch
 * (CLRIE_IL_EH_CATCH, catching class_token, handler `pop; rethrow`) handler added as the
 * outermost clause. Every ret becomes `leave` to one exit (ldloc of a new return-value local,
 * then ret); `tail.` prefixes are dropped (a tail call cannot sit in a try block). The
 * finally handler is `nop; endfinally`: insert the plugin's code after handler_first. A body
 * with `jmp` is -ENOTSUP. */
int clrie_il_transform_wrap(struct clrie_il_graph *g, uint32_t kind, uint32_t class_token,
                            const struct clrie_il_method_context *m,
                            struct clrie_il_transform_result *out, struct clrie_il_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
