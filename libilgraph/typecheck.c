/* What each instruction takes and gives, checked against the method and its module: the
 * operand checks (argument and local indices against the signatures, each token's table for
 * its opcode and its row) and the stack types of ECMA-335 III.1.5 by dataflow over the
 * control-flow graph. These are the faults the runtime's JIT rejects with
 * InvalidProgramException (or a TypeLoadException for a token that names nothing), which
 * the structural checks of verify.c cannot see.
 *
 * Stack items have one of the categories of III.1.5: int32, int64, native int, F, O, & (a
 * managed pointer), or "any" when the checker cannot tell (a generic parameter, a value type,
 * a member whose signature it was not given). "Any" is accepted everywhere, so the checker
 * only reports what is wrong whatever the unknown types turn out to be. Paths that meet with
 * different types widen the slot to "any" after the check. The rules are ECMA-335's, with the
 * unverifiable-but-valid mixes the C# compiler and the runtime use (native int with int32,
 * native int with &). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph_private.h"

/* A stack item's type is the set of categories it may have: one bit for a known type, more
 * when the checker cannot tell (an enum or a struct, a generic parameter). An instruction is
 * reported only when no choice from the sets is valid. */
enum {
    I4 = 1,
    I8 = 2,
    NI = 4,
    F = 8,
    O = 16,
    REF = 32,
    VT = 64, /* a value type that is not a primitive */
    ANY = 127,
    VOID_ = 128, /* a signature's void return */
};
#define ENUM_OR_STRUCT (I4 | I8 | VT) /* valuetype T: an enum is its underlying integer */
#define NEWOBJ_RESULT (O | VT | NI)   /* a class, a struct, or IntPtr's constructors */

static const char *const bit_names[] = {"int32",      "int64", "native int",  "F",
                                        "O (object)", "&",     "a value type"};

/* "int32", "int32 or int64", ... in buf. */
static const char *set_name(uint8_t t, char buf[96])
{
    if (t == ANY || t == 0)
        return "unknown";
    buf[0] = 0;
    for (int b = 0; b < 7; b++)
        if (t & (1u << b))
            snprintf(buf + strlen(buf), 96 - strlen(buf), "%s%s", buf[0] ? " or " : "",
                     bit_names[b]);
    return buf;
}

/* Tables of ECMA-335 II.22 that tokens name. */
enum {
    T_TYPE_REF = 0x01,
    T_TYPE_DEF = 0x02,
    T_FIELD = 0x04,
    T_METHOD_DEF = 0x06,
    T_MEMBER_REF = 0x0A,
    T_STAND_ALONE_SIG = 0x11,
    T_TYPE_SPEC = 0x1B,
    T_METHOD_SPEC = 0x2B,
    T_USER_STRING = 0x70,
};

struct il_checker {
    struct clrie_il_graph *g;
    const struct clrie_il_verify_context *c;
    struct il_memo *memo;
    struct il_reporter *out;
    bool reporting; /* the final pass: problems are reported */
    bool found;     /* before it: the instruction being run has a problem */
    const struct clrie_il_instr *at;

    bool know_method;
    uint8_t *args, *locals;
    uint32_t arg_count, local_count;
    uint8_t ret;

    const int32_t *depth; /* entry depth per instruction (stack.c) */
    size_t *base;         /* where each instruction's entry types start in types */
    uint8_t *types;
    bool *visited, *queued;
    bool *found_in; /* per instruction: its last run in the dataflow found a problem */
    uint32_t *work;
    size_t work_len;
    uint32_t *conflict; /* per instruction: 1 + the slot where paths met with clashing types */
    uint8_t *conflict_types;

    uint8_t *stack;
    size_t sp;

    /* While a callee's signature is read: the generic arguments its token supplies (a
     * TypeSpec's GENERICINST blob for !n, a MethodSpec's instantiation blob for !!n), or
     * NULL. */
    const uint8_t *type_spec, *method_inst;
    size_t type_spec_len, method_inst_len;
};

static void problem(struct il_checker *k, const char *fmt, ...)
    __attribute__((format(__printf__, 2, 3)));

static void problem(struct il_checker *k, const char *fmt, ...)
{
    if (!k->reporting) {
        k->found = true;
        return;
    }
    char msg[180];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    il_report(k->out, k->at->offset, "%s", msg);
}

static const char *op_name(const struct clrie_il_instr *n)
{
    return il_opcode_infos[n->opcode].name;
}

/* ---- types from signatures ---- */

static uint8_t type_cat(struct il_checker *k, const uint8_t *p, size_t len);

/* A value type's category from its TypeDef or TypeRef token (p: the coded token after
 * VALUETYPE): its primitive's or enum's integer, a struct, or either when the module does not
 * say. */
static uint8_t value_type_cat(struct il_checker *k, const uint8_t *p, size_t len)
{
    const struct clrie_il_metadata *md = k->c->metadata;
    uint32_t token = 0;
    size_t used = 0;
    if (!md || !md->value_type || clrie_il_sig_read_token(p, len, &token, &used) < 0)
        return ENUM_OR_STRUCT;
    int et = md->value_type(md->ctx, token);
    if (et == CLRIE_IL_ELEMENT_TYPE_VALUETYPE)
        return VT;
    if (et < CLRIE_IL_ELEMENT_TYPE_BOOLEAN || et > CLRIE_IL_ELEMENT_TYPE_R8) {
        if (et != CLRIE_IL_ELEMENT_TYPE_I && et != CLRIE_IL_ELEMENT_TYPE_U)
            return ENUM_OR_STRUCT;
    }
    uint8_t b = (uint8_t)et;
    return type_cat(k, &b, 1);
}

/* The n-th type of an instantiation blob: a TypeSpec's GENERICINST (is_type true) or a
 * MethodSpec's 0x0A count types... -EILSEQ when the blob is not one or n is past its end. */
static int generic_arg(const uint8_t *p, size_t len, bool is_type, uint32_t n, const uint8_t **arg,
                       size_t *arg_len)
{
    size_t used = 0, at;
    uint32_t count = 0, token = 0;
    if (is_type) {
        if (len < 2 || p[0] != CLRIE_IL_ELEMENT_TYPE_GENERICINST ||
            (p[1] != CLRIE_IL_ELEMENT_TYPE_CLASS && p[1] != CLRIE_IL_ELEMENT_TYPE_VALUETYPE) ||
            clrie_il_sig_read_token(p + 2, len - 2, &token, &used) < 0)
            return -EILSEQ;
        at = 2 + used;
    } else {
        if (len < 1 || p[0] != CLRIE_IL_CALLCONV_GENERICINST)
            return -EILSEQ;
        at = 1;
    }
    if (clrie_il_sig_read_uint(p + at, len - at, &count, &used) < 0 || n >= count)
        return -EILSEQ;
    at += used;
    for (uint32_t i = 0;; i++) {
        size_t tl = 0;
        if (at >= len || clrie_il_sig_type_len(p + at, len - at, &tl) < 0)
            return -EILSEQ;
        if (i == n) {
            *arg = p + at;
            *arg_len = tl;
            return 0;
        }
        at += tl;
    }
}

/* The category of !n or !!n (p at VAR or MVAR) as the callee's token instantiates it; ANY when
 * it does not say. The argument's own generic parameters are the caller's: anything. */
static uint8_t generic_param_cat(struct il_checker *k, const uint8_t *p, size_t len)
{
    bool is_type = p[0] == CLRIE_IL_ELEMENT_TYPE_VAR;
    const uint8_t *blob = is_type ? k->type_spec : k->method_inst;
    size_t blob_len = is_type ? k->type_spec_len : k->method_inst_len;
    uint32_t n = 0;
    size_t used = 0, arg_len = 0;
    const uint8_t *arg = NULL;
    if (!blob || clrie_il_sig_read_uint(p + 1, len - 1, &n, &used) < 0 ||
        generic_arg(blob, blob_len, is_type, n, &arg, &arg_len) < 0)
        return ANY;
    const uint8_t *saved_type = k->type_spec, *saved_method = k->method_inst;
    k->type_spec = k->method_inst = NULL;
    uint8_t cat = type_cat(k, arg, arg_len);
    k->type_spec = saved_type;
    k->method_inst = saved_method;
    return cat == VOID_ ? ANY : cat;
}

static uint8_t type_cat(struct il_checker *k, const uint8_t *p, size_t len)
{
    size_t used = 0;
    for (int guard = 0; guard < 4; guard++) {
        if (clrie_il_sig_skip_custom_mods(p, len, &used) < 0)
            return ANY;
        p += used;
        len -= used;
        if (len && p[0] == CLRIE_IL_ELEMENT_TYPE_PINNED) {
            p++;
            len--;
            continue;
        }
        break;
    }
    if (!len)
        return ANY;
    switch (p[0]) {
    case CLRIE_IL_ELEMENT_TYPE_VOID:
        return VOID_;
    case CLRIE_IL_ELEMENT_TYPE_BOOLEAN:
    case CLRIE_IL_ELEMENT_TYPE_CHAR:
    case CLRIE_IL_ELEMENT_TYPE_I1:
    case CLRIE_IL_ELEMENT_TYPE_U1:
    case CLRIE_IL_ELEMENT_TYPE_I2:
    case CLRIE_IL_ELEMENT_TYPE_U2:
    case CLRIE_IL_ELEMENT_TYPE_I4:
    case CLRIE_IL_ELEMENT_TYPE_U4:
        return I4;
    case CLRIE_IL_ELEMENT_TYPE_I8:
    case CLRIE_IL_ELEMENT_TYPE_U8:
        return I8;
    case CLRIE_IL_ELEMENT_TYPE_R4:
    case CLRIE_IL_ELEMENT_TYPE_R8:
        return F;
    case CLRIE_IL_ELEMENT_TYPE_I:
    case CLRIE_IL_ELEMENT_TYPE_U:
    case CLRIE_IL_ELEMENT_TYPE_PTR:
    case CLRIE_IL_ELEMENT_TYPE_FNPTR:
        return NI;
    case CLRIE_IL_ELEMENT_TYPE_STRING:
    case CLRIE_IL_ELEMENT_TYPE_CLASS:
    case CLRIE_IL_ELEMENT_TYPE_OBJECT:
    case CLRIE_IL_ELEMENT_TYPE_SZARRAY:
    case CLRIE_IL_ELEMENT_TYPE_ARRAY:
        return O;
    case CLRIE_IL_ELEMENT_TYPE_BYREF:
        return REF;
    case CLRIE_IL_ELEMENT_TYPE_GENERICINST:
        /* an enum nested in a generic type is an instance of it too */
        if (len > 1 && p[1] == CLRIE_IL_ELEMENT_TYPE_CLASS)
            return O;
        return len > 2 ? value_type_cat(k, p + 2, len - 2) : ENUM_OR_STRUCT;
    case CLRIE_IL_ELEMENT_TYPE_VALUETYPE:
        return value_type_cat(k, p + 1, len - 1);
    case CLRIE_IL_ELEMENT_TYPE_TYPEDBYREF:
        return VT;
    case CLRIE_IL_ELEMENT_TYPE_VAR:
    case CLRIE_IL_ELEMENT_TYPE_MVAR:
        return generic_param_cat(k, p, len);
    default:
        return ANY;
    }
}

/* The categories of a method signature's parameters, after a vararg sentinel too, in a new
 * array of the check's scratch (count entries). -EILSEQ when the signature cannot be read;
 * a count the signature has no room for is refused before anything is allocated. */
static int param_cats(struct il_checker *k, const uint8_t *sig, size_t len,
                      const struct clrie_il_method_sig *m, uint8_t **cats)
{
    size_t pos = m->ret_offset + m->ret_len;
    if (pos > len || m->param_count > len - pos) /* each parameter takes a byte at least */
        return -EILSEQ;
    uint8_t *out = il_check_take(k->g, m->param_count);
    if (!out)
        return -ENOMEM;
    for (uint32_t i = 0; i < m->param_count; i++) {
        if (pos < len && sig[pos] == CLRIE_IL_ELEMENT_TYPE_SENTINEL)
            pos++;
        size_t tl = 0;
        if (pos >= len || clrie_il_sig_type_len(sig + pos, len - pos, &tl) < 0)
            return -EILSEQ;
        out[i] = type_cat(k, sig + pos, tl);
        pos += tl;
    }
    *cats = out;
    return 0;
}

static int load_method(struct il_checker *k)
{
    const struct clrie_il_verify_context *c = k->c;
    struct clrie_il_method_sig m;
    if (!c->method_sig || clrie_il_sig_parse_method(c->method_sig, c->method_sig_len, &m, NULL))
        return 0;
    uint32_t locals = 0;
    size_t at = 0;
    if (clrie_il_sig_local_header(c->local_sig, c->local_sig_len, &locals, &at) < 0)
        return 0;
    uint8_t *params = NULL;
    int r = param_cats(k, c->method_sig, c->method_sig_len, &m, &params);
    if (r == -EILSEQ)
        return 0;
    if (r < 0)
        return r;
    uint32_t this_arg = m.has_this && !m.explicit_this;
    k->arg_count = m.param_count + this_arg;
    if (locals > c->local_sig_len - at) /* each local takes a byte at least */
        return 0;
    k->args = il_check_take(k->g, k->arg_count);
    k->locals = il_check_take(k->g, locals);
    if (!k->args || !k->locals)
        return -ENOMEM;
    if (this_arg)
        k->args[0] = ANY; /* O for a class, & for a value type: not known here */
    memcpy(k->args + this_arg, params, m.param_count);
    for (uint32_t i = 0; i < locals; i++) {
        size_t tl = 0;
        if (at >= c->local_sig_len ||
            clrie_il_sig_type_len(c->local_sig + at, c->local_sig_len - at, &tl) < 0)
            return 0; /* a local signature we cannot read: nothing of the method is checked */
        k->locals[i] = type_cat(k, c->local_sig + at, tl);
        at += tl;
    }
    k->local_count = locals;
    k->ret = type_cat(k, c->method_sig + m.ret_offset, m.ret_len);
    k->know_method = true;
    return 0;
}

/* The signature of a member, or NULL. */
static const uint8_t *member_sig(struct il_checker *k, uint32_t token, size_t *len)
{
    return il_memo_signature(k->memo, token, len);
}

/* ---- operands: indices and tokens ---- */

#define BIT(t) (1ull << ((t)&0x3F))
#define TYPES (BIT(T_TYPE_DEF) | BIT(T_TYPE_REF) | BIT(T_TYPE_SPEC))
#define METHODS (BIT(T_METHOD_DEF) | BIT(T_MEMBER_REF) | BIT(T_METHOD_SPEC))
#define FIELDS (BIT(T_FIELD) | BIT(T_MEMBER_REF))

/* The tables a token operand may name, and what a MemberRef must be (1 method, 2 field). */
static uint64_t token_tables(uint16_t op, int *member_ref_kind)
{
    *member_ref_kind = 0;
    switch (op) {
    case CLRIE_IL_OP_LDSTR:
        return 0; /* the user-string heap: checked apart */
    case CLRIE_IL_OP_CALL:
    case CLRIE_IL_OP_CALLVIRT:
    case CLRIE_IL_OP_LDFTN:
    case CLRIE_IL_OP_LDVIRTFTN:
    case CLRIE_IL_OP_JMP:
        *member_ref_kind = 1;
        return METHODS;
    case CLRIE_IL_OP_NEWOBJ:
        *member_ref_kind = 1;
        return BIT(T_METHOD_DEF) | BIT(T_MEMBER_REF);
    case CLRIE_IL_OP_CALLI:
        return BIT(T_STAND_ALONE_SIG);
    case CLRIE_IL_OP_LDFLD:
    case CLRIE_IL_OP_LDFLDA:
    case CLRIE_IL_OP_STFLD:
    case CLRIE_IL_OP_LDSFLD:
    case CLRIE_IL_OP_LDSFLDA:
    case CLRIE_IL_OP_STSFLD:
        *member_ref_kind = 2;
        return FIELDS;
    case CLRIE_IL_OP_LDTOKEN:
        return TYPES | METHODS | BIT(T_FIELD);
    default:
        return TYPES; /* every other token operand names a type */
    }
}

static void check_token(struct il_checker *k, const struct clrie_il_instr *n)
{
    uint32_t token = (uint32_t)n->u.i, table = token >> 24, row = token & 0xFFFFFFu;
    int member_kind;
    uint64_t allowed = token_tables(n->opcode, &member_kind);
    bool ok_table = n->opcode == CLRIE_IL_OP_LDSTR ? table == T_USER_STRING
                                                   : table < 64 && (allowed & BIT(table));
    if (!ok_table) {
        problem(k, "%s takes a token of another kind, not 0x%08X", op_name(n), token);
        return;
    }
    const struct clrie_il_metadata *md = k->c->metadata;
    if (row == 0 || !il_memo_token_exists(k->memo, token)) {
        problem(k, "%s names token 0x%08X, which does not exist in the module", op_name(n), token);
        return;
    }
    if (table == T_MEMBER_REF || (table == T_STAND_ALONE_SIG)) {
        size_t len = 0;
        const uint8_t *sig = member_sig(k, token, &len);
        if (!sig)
            return;
        bool is_field = (sig[0] & CLRIE_IL_CALLCONV_KIND_MASK) == CLRIE_IL_CALLCONV_FIELD;
        bool is_method =
            !is_field && (sig[0] & CLRIE_IL_CALLCONV_KIND_MASK) != CLRIE_IL_CALLCONV_LOCAL_SIG;
        if ((member_kind == 1 || table == T_STAND_ALONE_SIG) && !is_method)
            problem(k, "%s needs a method, token 0x%08X is not one", op_name(n), token);
        else if (member_kind == 2 && !is_field) {
            problem(k, "%s needs a field, token 0x%08X is not one", op_name(n), token);
            return;
        }
    }
    if (member_kind == 2 && md && md->field_is_static) {
        int is_static = il_memo_field_is_static(k->memo, token);
        bool wants_static = n->opcode == CLRIE_IL_OP_LDSFLD || n->opcode == CLRIE_IL_OP_LDSFLDA ||
                            n->opcode == CLRIE_IL_OP_STSFLD;
        if (is_static >= 0 && (is_static != 0) != wants_static)
            problem(k, "%s needs %s field, 0x%08X is %s one", op_name(n),
                    wants_static ? "a static" : "an instance", token,
                    is_static ? "a static" : "an instance");
    }
}

/* The argument or local index an instruction names, or -1. */
static int64_t var_index(const struct clrie_il_instr *n, bool *is_arg)
{
    uint16_t op = n->opcode;
    *is_arg = true;
    switch (op) {
    case CLRIE_IL_OP_LDARG_0:
    case CLRIE_IL_OP_LDARG_1:
    case CLRIE_IL_OP_LDARG_2:
    case CLRIE_IL_OP_LDARG_3:
        return op - CLRIE_IL_OP_LDARG_0;
    case CLRIE_IL_OP_LDARG_S:
    case CLRIE_IL_OP_LDARGA_S:
    case CLRIE_IL_OP_STARG_S:
    case CLRIE_IL_OP_LDARG:
    case CLRIE_IL_OP_LDARGA:
    case CLRIE_IL_OP_STARG:
        return n->u.i;
    default:
        break;
    }
    *is_arg = false;
    switch (op) {
    case CLRIE_IL_OP_LDLOC_0:
    case CLRIE_IL_OP_LDLOC_1:
    case CLRIE_IL_OP_LDLOC_2:
    case CLRIE_IL_OP_LDLOC_3:
        return op - CLRIE_IL_OP_LDLOC_0;
    case CLRIE_IL_OP_STLOC_0:
    case CLRIE_IL_OP_STLOC_1:
    case CLRIE_IL_OP_STLOC_2:
    case CLRIE_IL_OP_STLOC_3:
        return op - CLRIE_IL_OP_STLOC_0;
    case CLRIE_IL_OP_LDLOC_S:
    case CLRIE_IL_OP_LDLOCA_S:
    case CLRIE_IL_OP_STLOC_S:
    case CLRIE_IL_OP_LDLOC:
    case CLRIE_IL_OP_LDLOCA:
    case CLRIE_IL_OP_STLOC:
        return n->u.i;
    default:
        return -1;
    }
}

static void check_operands(struct il_checker *k, const struct clrie_il_instr *n)
{
    k->at = n;
    if (il_opcode_infos[n->opcode].operand_kind == CLRIE_IL_OPERAND_TOKEN)
        check_token(k, n);
    bool is_arg;
    int64_t index = var_index(n, &is_arg);
    if (index < 0 || !k->know_method)
        return;
    if (is_arg && index >= k->arg_count)
        problem(k, "%s names argument %lld, the method has %u", op_name(n), (long long)index,
                k->arg_count);
    else if (!is_arg && index >= k->local_count)
        problem(k, "%s names local %lld, the method has %u", op_name(n), (long long)index,
                k->local_count);
}

/* ---- stack types ---- */

/* Whether the set t is one category (the usual case: the checks below then look at that one
 * pair rather than at every choice from the two sets). */
static bool one_category(uint8_t t)
{
    return t != 0 && t < VOID_ && (t & (t - 1)) == 0;
}

/* Whether a value of the single category v may be stored where d is declared (III.1.6, with
 * the native int mixes the runtime allows). */
static bool assignable1(uint8_t v, uint8_t d)
{
    if (v == d)
        return true;
    switch (d) {
    case I4:
        return v == NI;
    case NI:
        return v == I4 || v == REF;
    case REF:
        return v == NI;
    default:
        return false;
    }
}

/* Whether some choice from the sets v and d is assignable. */
static bool assignable(uint8_t v, uint8_t d)
{
    if (d == VOID_)
        return false;
    if (v & d & ANY) /* a category both may be: assignable to itself */
        return true;
    if (one_category(v) && one_category(d))
        return assignable1(v, d);
    for (uint8_t a = 1; a < 128; a <<= 1)
        for (uint8_t b = 1; b < 128; b <<= 1)
            if ((v & a) && (d & b) && assignable1(a, b))
                return true;
    return false;
}

static bool is_int(uint8_t t)
{
    return t == I4 || t == NI;
}

/* Whether the set t holds one of the categories in allowed. */
static bool may_be(uint8_t t, uint8_t allowed)
{
    return (t & allowed) != 0;
}

static uint8_t pop1(struct il_checker *k)
{
    return k->sp ? k->stack[--k->sp] : (uint8_t)ANY;
}

static void push(struct il_checker *k, uint8_t t)
{
    k->stack[k->sp++] = t == VOID_ ? ANY : t;
}

/* Reports unless the item v may be one of the categories in allowed. */
static void expect(struct il_checker *k, uint8_t v, uint8_t allowed, const char *what)
{
    char b1[96];
    if (!may_be(v, allowed))
        problem(k, "%s needs %s, the stack has %s", op_name(k->at), what, set_name(v, b1));
}

static void expect_store(struct il_checker *k, uint8_t v, uint8_t d, const char *where)
{
    char b1[96], b2[96];
    if (!assignable(v, d))
        problem(k, "%s stores %s into %s of type %s", op_name(k->at), set_name(v, b1), where,
                set_name(d, b2));
}

#define ADDRESS (NI | REF)
/* What ldind, stind, ldobj, stobj, cpobj and initobj take as an address: the JIT of a 64-bit
 * runtime also takes an int64 there (its native int), and plugins rely on it: Microsoft's
 * coverage plugin writes each probe as `ldc.i8 <address>; ldc.i4.1; stind.i1`. */
#define MEMORY_ADDRESS (NI | REF | I8)
#define NUMBER (I4 | I8 | NI | F)
#define INTEGER_ (I4 | I8 | NI)

enum binop { ARITH, INTEGER, ADD_ADDR, SUB_ADDR };

/* III.1.5 tables 2 and 5 (and 7 for the .ovf forms) for single categories: the result, or 0
 * when the operands do not go together. */
static uint8_t binary1(enum binop kind, bool float_ok, uint8_t a, uint8_t b)
{
    if (a == I4 && b == I4)
        return I4;
    if (is_int(a) && is_int(b))
        return NI;
    if (a == I8 && b == I8)
        return I8;
    if (a == F && b == F)
        return float_ok ? F : 0;
    if (kind == ADD_ADDR && ((a == REF && is_int(b)) || (is_int(a) && b == REF)))
        return REF;
    if (kind == SUB_ADDR && a == REF && is_int(b))
        return REF;
    if (kind == SUB_ADDR && a == REF && b == REF)
        return NI;
    return 0;
}

/* Every result some choice from the sets a and b gives; 0 when none is valid. */
static uint8_t binary(enum binop kind, bool float_ok, uint8_t a, uint8_t b)
{
    if (one_category(a) && one_category(b))
        return binary1(kind, float_ok, a, b);
    uint8_t r = 0;
    for (uint8_t x = 1; x < 128; x <<= 1)
        for (uint8_t y = 1; y < 128; y <<= 1)
            if ((a & x) && (b & y))
                r |= binary1(kind, float_ok, x, y);
    return r;
}

/* III.1.5 table 4: binary comparisons; O only for equality and cgt.un (a null test). */
static bool comparable1(bool equality, uint8_t a, uint8_t b)
{
    if (is_int(a) && is_int(b))
        return true;
    if ((a == I8 && b == I8) || (a == F && b == F) || (a == REF && b == REF))
        return true;
    if ((a == REF && b == NI) || (a == NI && b == REF))
        return true;
    return a == O && b == O && equality;
}

static bool comparable(bool equality, uint8_t a, uint8_t b)
{
    if (one_category(a) && one_category(b))
        return comparable1(equality, a, b);
    for (uint8_t x = 1; x < 128; x <<= 1)
        for (uint8_t y = 1; y < 128; y <<= 1)
            if ((a & x) && (b & y) && comparable1(equality, x, y))
                return true;
    return false;
}

static void do_binary(struct il_checker *k, enum binop kind, bool float_ok)
{
    uint8_t b = pop1(k), a = pop1(k);
    uint8_t r = binary(kind, float_ok, a, b);
    char b1[96], b2[96];
    if (r == 0) {
        problem(k, "%s cannot combine %s and %s", op_name(k->at), set_name(a, b1), set_name(b, b2));
        r = ANY;
    }
    push(k, r);
}

static void do_compare(struct il_checker *k, bool equality, bool push_result)
{
    uint8_t b = pop1(k), a = pop1(k);
    char b1[96], b2[96];
    if (!comparable(equality, a, b))
        problem(k, "%s cannot compare %s with %s", op_name(k->at), set_name(a, b1),
                set_name(b, b2));
    if (push_result)
        push(k, I4);
}

static uint8_t read_field_cat(struct il_checker *k, uint32_t token)
{
    size_t len = 0;
    const uint8_t *sig = member_sig(k, token, &len);
    if (!sig || (sig[0] & CLRIE_IL_CALLCONV_KIND_MASK) != CLRIE_IL_CALLCONV_FIELD)
        return ANY;
    return type_cat(k, sig + 1, len - 1);
}

/* The value a field token gives, or ANY; read once per check. */
static uint8_t field_cat(struct il_checker *k, uint32_t token)
{
    struct il_memo_entry *e = il_memo_find(k->memo, token);
    if (!e)
        return read_field_cat(k, token);
    if (!(e->known & IL_MEMO_FIELD_TYPE)) {
        e->field_type = read_field_cat(k, token);
        e->known |= IL_MEMO_FIELD_TYPE;
    }
    return e->field_type;
}

/* Takes the generic arguments a call, callvirt or newobj token supplies for the callee's
 * signature (op NOP: forgets them). */
static void instantiate(struct il_checker *k, uint16_t op, uint32_t token)
{
    const struct clrie_il_metadata *md = k->c->metadata;
    uint32_t table = token >> 24;
    k->type_spec = k->method_inst = NULL;
    k->type_spec_len = k->method_inst_len = 0;
    if ((op != CLRIE_IL_OP_CALL && op != CLRIE_IL_OP_CALLVIRT && op != CLRIE_IL_OP_NEWOBJ) ||
        (table != T_MEMBER_REF && table != T_METHOD_SPEC) || !md || !md->generic_args)
        return;
    const uint8_t *ts = NULL, *mi = NULL;
    size_t ts_len = 0, mi_len = 0;
    if (md->generic_args(md->ctx, token, &ts, &ts_len, &mi, &mi_len) < 0)
        return;
    if (ts && ts_len) {
        k->type_spec = ts;
        k->type_spec_len = ts_len;
    }
    if (mi && mi_len && table == T_METHOD_SPEC) {
        k->method_inst = mi;
        k->method_inst_len = mi_len;
    }
}

/* What newobj leaves: told by the constructor's TypeSpec parent when instantiate() found one
 * (an array, a class or an instance of a generic class is an object, an instance of a generic
 * struct a value type); otherwise a class, a struct or IntPtr's native int. */
static uint8_t newobj_result(const struct il_checker *k)
{
    if (!k->type_spec)
        return NEWOBJ_RESULT;
    uint8_t kind = k->type_spec[0];
    if (kind == CLRIE_IL_ELEMENT_TYPE_GENERICINST && k->type_spec_len > 1)
        return k->type_spec[1] == CLRIE_IL_ELEMENT_TYPE_CLASS       ? O
               : k->type_spec[1] == CLRIE_IL_ELEMENT_TYPE_VALUETYPE ? VT
                                                                    : NEWOBJ_RESULT;
    return kind == CLRIE_IL_ELEMENT_TYPE_ARRAY || kind == CLRIE_IL_ELEMENT_TYPE_SZARRAY ||
                   kind == CLRIE_IL_ELEMENT_TYPE_CLASS
               ? O
               : NEWOBJ_RESULT;
}

/* What a call, callvirt, calli or newobj of token does: resolve's stack effect and, when the
 * callee's signature agrees with it, its parameters and result as the token instantiates
 * them. */
static struct il_callee read_callee(struct il_checker *k, uint16_t op, uint32_t token)
{
    struct il_callee callee = {.typed = false};
    il_memo_resolve(k->memo, op, token, &callee.eff);
    size_t len = 0;
    const uint8_t *sig = member_sig(k, token, &len);
    struct clrie_il_method_sig m;
    struct clrie_il_stack_effect mine;
    uint8_t *params = NULL;
    instantiate(k, op, token);
    if (sig && clrie_il_sig_parse_method(sig, len, &m, NULL) == 0 &&
        clrie_il_sig_stack_effect(&m, op, &mine) == 0 && mine.pop == callee.eff.pop &&
        mine.push == callee.eff.push && param_cats(k, sig, len, &m, &params) == 0) {
        callee.typed = true;
        callee.this_arg = op != CLRIE_IL_OP_NEWOBJ && m.has_this && !m.explicit_this;
        callee.param_count = m.param_count;
        callee.params = params;
        if (op == CLRIE_IL_OP_NEWOBJ)
            callee.result = newobj_result(k);
        else if (callee.eff.push)
            callee.result = type_cat(k, sig + m.ret_offset, m.ret_len);
    }
    instantiate(k, CLRIE_IL_OP_NOP, 0);
    return callee;
}

/* read_callee's answer, read once per check for each token and opcode. */
static struct il_callee callee_of(struct il_checker *k, uint16_t op, uint32_t token)
{
    struct il_memo_entry *e = il_memo_find(k->memo, token);
    if (!e)
        return read_callee(k, op, token);
    if (!(e->known & IL_MEMO_CALLEE) || e->callee_op != op) {
        e->callee = read_callee(k, op, token);
        e->callee_op = op;
        e->known |= IL_MEMO_CALLEE;
    }
    return e->callee;
}

static void do_call(struct il_checker *k, const struct clrie_il_instr *n)
{
    uint16_t op = n->opcode;
    struct il_callee callee = callee_of(k, op, (uint32_t)n->u.i);
    if (!callee.typed) {
        for (uint32_t i = 0; i < callee.eff.pop; i++)
            pop1(k);
        for (uint32_t i = 0; i < callee.eff.push; i++)
            push(k, ANY);
        return;
    }
    if (op == CLRIE_IL_OP_CALLI) {
        uint8_t fn = pop1(k);
        expect(k, fn, ADDRESS, "a function pointer (native int)");
    }
    char b1[96], b2[96];
    for (uint32_t i = callee.param_count; i-- > 0;) {
        uint8_t v = pop1(k);
        if (!assignable(v, callee.params[i]))
            problem(k, "%s passes %s as parameter %u of type %s", op_name(n), set_name(v, b1),
                    i + 1, set_name(callee.params[i], b2));
    }
    if (callee.this_arg) {
        uint8_t t = pop1(k);
        expect(k, t, O | REF | NI | VT, "an object or address for this");
    }
    if (op == CLRIE_IL_OP_NEWOBJ || callee.eff.push)
        push(k, callee.result);
}

static uint8_t arg_cat(struct il_checker *k, int64_t i)
{
    return k->know_method && i >= 0 && i < k->arg_count ? k->args[i] : ANY;
}

static uint8_t local_cat(struct il_checker *k, int64_t i)
{
    return k->know_method && i >= 0 && i < k->local_count ? k->locals[i] : ANY;
}

/* ldind/stind/ldelem/stelem element categories by opcode. */
static uint8_t element_cat(uint16_t op)
{
    switch (op) {
    case CLRIE_IL_OP_LDIND_I8:
    case CLRIE_IL_OP_STIND_I8:
    case CLRIE_IL_OP_LDELEM_I8:
    case CLRIE_IL_OP_STELEM_I8:
        return I8;
    case CLRIE_IL_OP_LDIND_I:
    case CLRIE_IL_OP_STIND_I:
    case CLRIE_IL_OP_LDELEM_I:
    case CLRIE_IL_OP_STELEM_I:
        return NI;
    case CLRIE_IL_OP_LDIND_R4:
    case CLRIE_IL_OP_LDIND_R8:
    case CLRIE_IL_OP_STIND_R4:
    case CLRIE_IL_OP_STIND_R8:
    case CLRIE_IL_OP_LDELEM_R4:
    case CLRIE_IL_OP_LDELEM_R8:
    case CLRIE_IL_OP_STELEM_R4:
    case CLRIE_IL_OP_STELEM_R8:
        return F;
    case CLRIE_IL_OP_LDIND_REF:
    case CLRIE_IL_OP_STIND_REF:
    case CLRIE_IL_OP_LDELEM_REF:
    case CLRIE_IL_OP_STELEM_REF:
        return O;
    default:
        return I4;
    }
}

/* Applies one instruction to k->stack. */
static void step(struct il_checker *k, const struct clrie_il_instr *n)
{
    uint16_t op = n->opcode;
    uint8_t a, b;
    bool is_arg;
    k->at = n;
    switch (op) {
    case CLRIE_IL_OP_LDARG_0:
    case CLRIE_IL_OP_LDARG_1:
    case CLRIE_IL_OP_LDARG_2:
    case CLRIE_IL_OP_LDARG_3:
    case CLRIE_IL_OP_LDARG_S:
    case CLRIE_IL_OP_LDARG:
        push(k, arg_cat(k, var_index(n, &is_arg)));
        return;
    case CLRIE_IL_OP_LDLOC_0:
    case CLRIE_IL_OP_LDLOC_1:
    case CLRIE_IL_OP_LDLOC_2:
    case CLRIE_IL_OP_LDLOC_3:
    case CLRIE_IL_OP_LDLOC_S:
    case CLRIE_IL_OP_LDLOC:
        push(k, local_cat(k, var_index(n, &is_arg)));
        return;
    case CLRIE_IL_OP_STARG_S:
    case CLRIE_IL_OP_STARG:
        expect_store(k, pop1(k), arg_cat(k, var_index(n, &is_arg)), "an argument");
        return;
    case CLRIE_IL_OP_STLOC_0:
    case CLRIE_IL_OP_STLOC_1:
    case CLRIE_IL_OP_STLOC_2:
    case CLRIE_IL_OP_STLOC_3:
    case CLRIE_IL_OP_STLOC_S:
    case CLRIE_IL_OP_STLOC:
        expect_store(k, pop1(k), local_cat(k, var_index(n, &is_arg)), "a local");
        return;
    case CLRIE_IL_OP_LDARGA_S:
    case CLRIE_IL_OP_LDARGA:
    case CLRIE_IL_OP_LDLOCA_S:
    case CLRIE_IL_OP_LDLOCA:
        push(k, REF);
        return;
    case CLRIE_IL_OP_LDNULL:
    case CLRIE_IL_OP_LDSTR:
        push(k, O);
        return;
    case CLRIE_IL_OP_LDC_I8:
        push(k, I8);
        return;
    case CLRIE_IL_OP_LDC_R4:
    case CLRIE_IL_OP_LDC_R8:
        push(k, F);
        return;
    case CLRIE_IL_OP_DUP:
        a = pop1(k);
        push(k, a);
        push(k, a);
        return;
    case CLRIE_IL_OP_CALL:
    case CLRIE_IL_OP_CALLVIRT:
    case CLRIE_IL_OP_CALLI:
    case CLRIE_IL_OP_NEWOBJ:
        do_call(k, n);
        return;
    case CLRIE_IL_OP_RET:
        if (k->know_method && k->ret != VOID_ && k->sp) {
            char b1[96], b2[96];
            a = pop1(k);
            if (!assignable(a, k->ret))
                problem(k, "ret returns %s from a method that returns %s", set_name(a, b1),
                        set_name(k->ret, b2));
        }
        k->sp = 0;
        return;
    case CLRIE_IL_OP_BRFALSE_S:
    case CLRIE_IL_OP_BRTRUE_S:
    case CLRIE_IL_OP_BRFALSE:
    case CLRIE_IL_OP_BRTRUE:
        a = pop1(k);
        expect(k, a, INTEGER_ | O | REF, "an integer, object or address");
        return;
    case CLRIE_IL_OP_BEQ_S:
    case CLRIE_IL_OP_BNE_UN_S:
    case CLRIE_IL_OP_BEQ:
    case CLRIE_IL_OP_BNE_UN:
        do_compare(k, true, false);
        return;
    case CLRIE_IL_OP_CEQ:
    case CLRIE_IL_OP_CGT_UN:
        do_compare(k, true, true);
        return;
    case CLRIE_IL_OP_CGT:
    case CLRIE_IL_OP_CLT:
    case CLRIE_IL_OP_CLT_UN:
        do_compare(k, false, true);
        return;
    case CLRIE_IL_OP_SWITCH:
        a = pop1(k);
        expect(k, a, I4 | NI, "an int32");
        return;
    case CLRIE_IL_OP_ADD:
        do_binary(k, ADD_ADDR, true);
        return;
    case CLRIE_IL_OP_SUB:
        do_binary(k, SUB_ADDR, true);
        return;
    case CLRIE_IL_OP_MUL:
    case CLRIE_IL_OP_DIV:
    case CLRIE_IL_OP_REM:
        do_binary(k, ARITH, true);
        return;
    case CLRIE_IL_OP_ADD_OVF_UN:
        do_binary(k, ADD_ADDR, false);
        return;
    case CLRIE_IL_OP_SUB_OVF_UN:
        do_binary(k, SUB_ADDR, false);
        return;
    case CLRIE_IL_OP_DIV_UN:
    case CLRIE_IL_OP_REM_UN:
    case CLRIE_IL_OP_AND:
    case CLRIE_IL_OP_OR:
    case CLRIE_IL_OP_XOR:
    case CLRIE_IL_OP_ADD_OVF:
    case CLRIE_IL_OP_MUL_OVF:
    case CLRIE_IL_OP_MUL_OVF_UN:
    case CLRIE_IL_OP_SUB_OVF:
        do_binary(k, INTEGER, false);
        return;
    case CLRIE_IL_OP_SHL:
    case CLRIE_IL_OP_SHR:
    case CLRIE_IL_OP_SHR_UN:
        b = pop1(k);
        a = pop1(k);
        expect(k, b, I4 | NI, "an int32 or native int shift amount");
        expect(k, a, INTEGER_, "an integer to shift");
        push(k, a);
        return;
    case CLRIE_IL_OP_NEG:
        a = pop1(k);
        expect(k, a, NUMBER, "a number");
        push(k, a);
        return;
    case CLRIE_IL_OP_NOT:
        a = pop1(k);
        expect(k, a, INTEGER_, "an integer");
        push(k, a);
        return;
    case CLRIE_IL_OP_CONV_I1:
    case CLRIE_IL_OP_CONV_I2:
    case CLRIE_IL_OP_CONV_I4:
    case CLRIE_IL_OP_CONV_U4:
    case CLRIE_IL_OP_CONV_U2:
    case CLRIE_IL_OP_CONV_U1:
    case CLRIE_IL_OP_CONV_OVF_I1:
    case CLRIE_IL_OP_CONV_OVF_U1:
    case CLRIE_IL_OP_CONV_OVF_I2:
    case CLRIE_IL_OP_CONV_OVF_U2:
    case CLRIE_IL_OP_CONV_OVF_I4:
    case CLRIE_IL_OP_CONV_OVF_U4:
    case CLRIE_IL_OP_CONV_OVF_I1_UN:
    case CLRIE_IL_OP_CONV_OVF_I2_UN:
    case CLRIE_IL_OP_CONV_OVF_I4_UN:
    case CLRIE_IL_OP_CONV_OVF_U1_UN:
    case CLRIE_IL_OP_CONV_OVF_U2_UN:
    case CLRIE_IL_OP_CONV_OVF_U4_UN:
        a = pop1(k);
        expect(k, a, NUMBER | REF, "a number");
        push(k, I4);
        return;
    case CLRIE_IL_OP_CONV_I8:
    case CLRIE_IL_OP_CONV_U8:
    case CLRIE_IL_OP_CONV_OVF_I8:
    case CLRIE_IL_OP_CONV_OVF_U8:
    case CLRIE_IL_OP_CONV_OVF_I8_UN:
    case CLRIE_IL_OP_CONV_OVF_U8_UN:
        a = pop1(k);
        expect(k, a, NUMBER | REF, "a number");
        push(k, I8);
        return;
    case CLRIE_IL_OP_CONV_I:
    case CLRIE_IL_OP_CONV_U:
    case CLRIE_IL_OP_CONV_OVF_I:
    case CLRIE_IL_OP_CONV_OVF_U:
    case CLRIE_IL_OP_CONV_OVF_I_UN:
    case CLRIE_IL_OP_CONV_OVF_U_UN:
        a = pop1(k);
        expect(k, a, NUMBER | REF, "a number");
        push(k, NI);
        return;
    case CLRIE_IL_OP_CONV_R4:
    case CLRIE_IL_OP_CONV_R8:
    case CLRIE_IL_OP_CONV_R_UN:
        a = pop1(k);
        expect(k, a, NUMBER, "a number");
        push(k, F);
        return;
    case CLRIE_IL_OP_CKFINITE:
        a = pop1(k);
        expect(k, a, F, "a floating-point number");
        push(k, F);
        return;
    case CLRIE_IL_OP_LDIND_I1:
    case CLRIE_IL_OP_LDIND_U1:
    case CLRIE_IL_OP_LDIND_I2:
    case CLRIE_IL_OP_LDIND_U2:
    case CLRIE_IL_OP_LDIND_I4:
    case CLRIE_IL_OP_LDIND_U4:
    case CLRIE_IL_OP_LDIND_I8:
    case CLRIE_IL_OP_LDIND_I:
    case CLRIE_IL_OP_LDIND_R4:
    case CLRIE_IL_OP_LDIND_R8:
    case CLRIE_IL_OP_LDIND_REF:
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        push(k, element_cat(op));
        return;
    case CLRIE_IL_OP_STIND_REF:
    case CLRIE_IL_OP_STIND_I1:
    case CLRIE_IL_OP_STIND_I2:
    case CLRIE_IL_OP_STIND_I4:
    case CLRIE_IL_OP_STIND_I8:
    case CLRIE_IL_OP_STIND_R4:
    case CLRIE_IL_OP_STIND_R8:
    case CLRIE_IL_OP_STIND_I:
        b = pop1(k);
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        expect_store(k, b, element_cat(op), "memory");
        return;
    case CLRIE_IL_OP_LDELEM_I1:
    case CLRIE_IL_OP_LDELEM_U1:
    case CLRIE_IL_OP_LDELEM_I2:
    case CLRIE_IL_OP_LDELEM_U2:
    case CLRIE_IL_OP_LDELEM_I4:
    case CLRIE_IL_OP_LDELEM_U4:
    case CLRIE_IL_OP_LDELEM_I8:
    case CLRIE_IL_OP_LDELEM_I:
    case CLRIE_IL_OP_LDELEM_R4:
    case CLRIE_IL_OP_LDELEM_R8:
    case CLRIE_IL_OP_LDELEM_REF:
    case CLRIE_IL_OP_LDELEM:
    case CLRIE_IL_OP_LDELEMA:
        b = pop1(k);
        a = pop1(k);
        expect(k, b, I4 | NI, "an int32 or native int index");
        expect(k, a, O, "an array");
        push(k, op == CLRIE_IL_OP_LDELEM ? ANY : op == CLRIE_IL_OP_LDELEMA ? REF : element_cat(op));
        return;
    case CLRIE_IL_OP_STELEM_I:
    case CLRIE_IL_OP_STELEM_I1:
    case CLRIE_IL_OP_STELEM_I2:
    case CLRIE_IL_OP_STELEM_I4:
    case CLRIE_IL_OP_STELEM_I8:
    case CLRIE_IL_OP_STELEM_R4:
    case CLRIE_IL_OP_STELEM_R8:
    case CLRIE_IL_OP_STELEM_REF:
    case CLRIE_IL_OP_STELEM: {
        uint8_t v = pop1(k);
        b = pop1(k);
        a = pop1(k);
        expect(k, b, I4 | NI, "an int32 or native int index");
        expect(k, a, O, "an array");
        if (op != CLRIE_IL_OP_STELEM)
            expect_store(k, v, element_cat(op), "an array element");
        return;
    }
    case CLRIE_IL_OP_LDLEN:
        a = pop1(k);
        expect(k, a, O, "an array");
        push(k, NI);
        return;
    case CLRIE_IL_OP_NEWARR:
        a = pop1(k);
        expect(k, a, I4 | NI, "an int32 or native int length");
        push(k, O);
        return;
    case CLRIE_IL_OP_LDFLD:
    case CLRIE_IL_OP_LDFLDA:
        a = pop1(k);
        expect(k, a, O | REF | NI | VT, "an object, value or address");
        push(k, op == CLRIE_IL_OP_LDFLDA ? REF : field_cat(k, (uint32_t)n->u.i));
        return;
    case CLRIE_IL_OP_STFLD:
        b = pop1(k);
        a = pop1(k);
        expect(k, a, O | REF | NI, "an object or address");
        expect_store(k, b, field_cat(k, (uint32_t)n->u.i), "a field");
        return;
    case CLRIE_IL_OP_LDSFLD:
        push(k, field_cat(k, (uint32_t)n->u.i));
        return;
    case CLRIE_IL_OP_LDSFLDA:
        push(k, REF);
        return;
    case CLRIE_IL_OP_STSFLD:
        expect_store(k, pop1(k), field_cat(k, (uint32_t)n->u.i), "a field");
        return;
    case CLRIE_IL_OP_LDOBJ:
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        push(k, ANY);
        return;
    case CLRIE_IL_OP_STOBJ:
        pop1(k);
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        return;
    case CLRIE_IL_OP_CPOBJ:
        b = pop1(k);
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        expect(k, b, MEMORY_ADDRESS, "an address");
        return;
    case CLRIE_IL_OP_INITOBJ:
        a = pop1(k);
        expect(k, a, MEMORY_ADDRESS, "an address");
        return;
    case CLRIE_IL_OP_CASTCLASS:
    case CLRIE_IL_OP_ISINST:
        a = pop1(k);
        expect(k, a, O, "an object");
        push(k, O);
        return;
    case CLRIE_IL_OP_UNBOX:
        a = pop1(k);
        expect(k, a, O, "an object");
        push(k, REF);
        return;
    case CLRIE_IL_OP_UNBOX_ANY:
        a = pop1(k);
        expect(k, a, O, "an object");
        push(k, ANY);
        return;
    case CLRIE_IL_OP_THROW:
        a = pop1(k);
        expect(k, a, O, "an object");
        return;
    case CLRIE_IL_OP_BOX:
        pop1(k);
        push(k, O);
        return;
    case CLRIE_IL_OP_LDFTN:
        push(k, NI);
        return;
    case CLRIE_IL_OP_LDVIRTFTN:
        a = pop1(k);
        expect(k, a, O, "an object");
        push(k, NI);
        return;
    case CLRIE_IL_OP_LOCALLOC:
        a = pop1(k);
        expect(k, a, I4 | NI, "an int32 or native int size");
        push(k, NI);
        return;
    case CLRIE_IL_OP_SIZEOF:
        push(k, I4);
        return;
    case CLRIE_IL_OP_LDTOKEN:    /* a RuntimeXxxHandle */
    case CLRIE_IL_OP_ARGLIST:    /* a RuntimeArgumentHandle */
    case CLRIE_IL_OP_MKREFANY:   /* a TypedReference */
    case CLRIE_IL_OP_REFANYTYPE: /* a RuntimeTypeHandle */
        if (op == CLRIE_IL_OP_MKREFANY || op == CLRIE_IL_OP_REFANYTYPE)
            pop1(k);
        push(k, VT);
        return;
    case CLRIE_IL_OP_ENDFILTER:
        a = pop1(k);
        expect(k, a, I4, "an int32");
        return;
    default:
        break;
    }
    /* The rest by count: constants push int32; others take and give untyped items. */
    const struct clrie_il_opcode_info *info = &il_opcode_infos[op];
    if (op >= CLRIE_IL_OP_LDC_I4_M1 && op <= CLRIE_IL_OP_LDC_I4) {
        push(k, I4);
        return;
    }
    for (int i = 0; i < info->pop && k->sp; i++)
        pop1(k);
    for (int i = 0; i < info->push; i++)
        push(k, ANY);
}

/* ---- dataflow ---- */

static bool mergeable1(uint8_t a, uint8_t b)
{
    return a == b || (is_int(a) && is_int(b)) || (a == NI && b == REF) || (a == REF && b == NI);
}

static bool mergeable(uint8_t a, uint8_t b)
{
    for (uint8_t x = 1; x < 128; x <<= 1)
        for (uint8_t y = 1; y < 128; y <<= 1)
            if ((a & x) && (b & y) && mergeable1(x, y))
                return true;
    return false;
}

static void flow_to(struct il_checker *k, size_t j, const uint8_t *types, size_t count)
{
    if (j >= k->g->count || (size_t)k->depth[j] != count)
        return; /* a height mismatch stack.c reported */
    uint8_t *at = k->types + k->base[j];
    bool changed = false;
    if (!k->visited[j]) {
        memcpy(at, types, count);
        k->visited[j] = true;
        changed = true;
    } else {
        for (size_t s = 0; s < count; s++) {
            if ((at[s] | types[s]) == at[s])
                continue;
            if (!mergeable(at[s], types[s]) && !k->conflict[j]) {
                k->conflict[j] = (uint32_t)s + 1;
                k->conflict_types[2 * j] = at[s];
                k->conflict_types[2 * j + 1] = types[s];
            }
            at[s] |= types[s];
            changed = true;
        }
    }
    if (changed && !k->queued[j]) {
        k->queued[j] = true;
        k->work[k->work_len++] = (uint32_t)j;
    }
}

static void successors(struct il_checker *k, size_t i)
{
    const struct clrie_il_instr *n = k->g->cur[i];
    switch (il_opcode_infos[n->opcode].flow) {
    case CLRIE_IL_FLOW_BRANCH:
        flow_to(k, n->u.branch->target->index, k->stack, k->sp);
        break;
    case CLRIE_IL_FLOW_COND_BRANCH:
        flow_to(k, n->u.branch->target->index, k->stack, k->sp);
        flow_to(k, i + 1, k->stack, k->sp);
        break;
    case CLRIE_IL_FLOW_SWITCH:
        for (uint32_t t = 0; t < n->u.sw->count; t++)
            flow_to(k, n->u.sw->targets[t].target->index, k->stack, k->sp);
        flow_to(k, i + 1, k->stack, k->sp);
        break;
    case CLRIE_IL_FLOW_LEAVE:
        flow_to(k, n->u.branch->target->index, k->stack, 0);
        break;
    case CLRIE_IL_FLOW_NEXT:
    case CLRIE_IL_FLOW_CALL:
    case CLRIE_IL_FLOW_BREAK:
    case CLRIE_IL_FLOW_PREFIX:
        flow_to(k, i + 1, k->stack, k->sp);
        break;
    default:
        break;
    }
}

/* Runs instruction i from its entry types; with k->reporting, says what is wrong, otherwise
 * notes whether something is and passes its types on. */
static void run(struct il_checker *k, size_t i)
{
    size_t d = (size_t)k->depth[i];
    memcpy(k->stack, k->types + k->base[i], d);
    k->sp = d;
    k->found = false;
    step(k, k->g->cur[i]);
    if (!k->reporting) {
        k->found_in[i] = k->found;
        successors(k, i);
    }
}

static int typecheck(struct il_checker *k, uint32_t max_depth)
{
    struct clrie_il_graph *g = k->g;
    size_t n = g->count, total = 0;
    k->base = il_check_take_array(g, n, sizeof(*k->base));
    k->visited = il_check_alloc(g, n * sizeof(bool));
    k->queued = il_check_alloc(g, n * sizeof(bool));
    k->found_in = il_check_take_array(g, n, sizeof(bool));
    k->work = il_check_take_array(g, n, sizeof(*k->work));
    k->conflict = il_check_alloc(g, n * sizeof(*k->conflict));
    k->conflict_types = il_check_take_array(g, n, 2);
    k->stack = il_check_take(g, (size_t)max_depth + 8);
    if (!k->base || !k->visited || !k->queued || !k->found_in || !k->work || !k->conflict ||
        !k->conflict_types || !k->stack)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        k->base[i] = total;
        total += k->depth[i] > 0 ? (size_t)k->depth[i] : 0;
    }
    k->types = il_check_take(g, total);
    if (!k->types)
        return -ENOMEM;
    static const uint8_t none[1] = {0}, exception[1] = {O};
    flow_to(k, 0, none, 0);
    for (size_t c = 0; c < g->clause_count; c++) {
        const struct clrie_il_clause *cl = g->clauses[c];
        uint32_t kind = cl->flags & CLRIE_IL_EH_KIND_MASK;
        bool with = kind == CLRIE_IL_EH_CATCH || kind == CLRIE_IL_EH_FILTER;
        if (cl->handler_first.target && cl->handler_first.target->attached)
            flow_to(k, cl->handler_first.target->index, with ? exception : none, with);
        if (kind == CLRIE_IL_EH_FILTER && cl->filter_first.target &&
            cl->filter_first.target->attached)
            flow_to(k, cl->filter_first.target->index, exception, 1);
    }
    while (k->work_len) {
        size_t i = k->work[--k->work_len];
        k->queued[i] = false;
        run(k, i);
    }
    /* A change to an instruction's entry types queues it again, so its last run had its
     * final types: what that run found is what there is to report, and an instruction
     * whose last run found nothing is not run again. */
    k->reporting = true;
    for (size_t i = 0; i < n; i++) {
        if (!k->visited[i])
            continue;
        k->at = g->cur[i];
        char b1[96], b2[96];
        if (k->conflict[i])
            problem(k, "paths meet with %s and %s in stack slot %u",
                    set_name(k->conflict_types[2 * i], b1),
                    set_name(k->conflict_types[2 * i + 1], b2), k->conflict[i] - 1);
        if (k->found_in[i])
            run(k, i);
    }
    return 0;
}

int il_checker_new(struct clrie_il_graph *g, const struct clrie_il_verify_context *c,
                   struct il_memo *memo, struct il_reporter *out, struct il_checker **checker)
{
    struct il_checker *k = il_check_take(g, sizeof(*k));
    if (!k)
        return -ENOMEM;
    *k = (struct il_checker){.g = g, .c = c, .memo = memo, .out = out};
    int r = load_method(k);
    if (r == 0)
        *checker = k;
    return r;
}

void il_check_operands(struct il_checker *k)
{
    k->reporting = true;
    for (size_t i = 0; i < k->g->count; i++)
        check_operands(k, k->g->cur[i]);
}

int il_check_types(struct il_checker *k, const int32_t *depth, uint32_t max_depth)
{
    k->reporting = false;
    k->depth = depth;
    return typecheck(k, max_depth);
}
