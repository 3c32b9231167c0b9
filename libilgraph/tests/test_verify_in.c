/* The verifier with what it knows of the method and its module (clrie_il_graph_verify_in):
 * every fault of this file is one the runtime's JIT rejects with InvalidProgramException or
 * a TypeLoadException, and passed clrie_il_graph_verify alone. The method is
 * `static int32 M(int32, float64)` with locals (int32, string); the module has 3 MemberRefs
 * (1: void F(int32), 2: a static field of type float64, 3: string G(), 4: a field of the
 * struct TypeRef 1, 5: a field of the enum TypeRef 2, whose integer is int32, 6: instance
 * void Add(!0) of the TypeSpec List<int32>, 7: static !!0 Id<T>(!!0), 8: the constructor
 * (int32, int32) of the TypeSpec int32[,], 9: the constructor () of the TypeSpec of the
 * generic struct TypeRef 1<int32>), 2 MethodSpecs (1:
 * Id<int32>, 2: Id<string>), 3 TypeRefs and 5 user strings. */
#include "helpers.h"

static const uint8_t method_sig[] = {0x00, 0x02, 0x08, 0x08, 0x0D};
static const uint8_t local_sig[] = {0x07, 0x02, 0x08, 0x0E};
static const uint8_t sig_f[] = {0x00, 0x01, 0x01, 0x08};
static const uint8_t sig_field[] = {0x06, 0x0D};
static const uint8_t sig_g[] = {0x00, 0x00, 0x0E};
static const uint8_t sig_struct_field[] = {0x06, 0x11, 0x05};    /* valuetype TypeRef 1 */
static const uint8_t sig_enum_field[] = {0x06, 0x11, 0x09};      /* valuetype TypeRef 2 */
static const uint8_t sig_add[] = {0x20, 0x01, 0x01, 0x13, 0x00}; /* instance void (!0) */
static const uint8_t sig_id[] = {0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00}; /* !!0 <1>(!!0) */
static const uint8_t list_of_int32[] = {0x15, 0x12, 0x0D, 0x01, 0x08}; /* class TypeRef 3<int32> */
static const uint8_t sig_ctor2[] = {0x20, 0x02, 0x01, 0x08, 0x08};     /* instance void (i4, i4) */
static const uint8_t sig_ctor0[] = {0x20, 0x00, 0x01};                 /* instance void () */
static const uint8_t int32_2d[] = {0x14, 0x08, 0x02, 0x00, 0x00};      /* int32[,] */
static const uint8_t struct_of_int32[] = {0x15, 0x11, 0x05, 0x01, 0x08}; /* TypeRef 1<int32> */
static const uint8_t inst_int32[] = {0x0A, 0x01, 0x08};
static const uint8_t inst_string[] = {0x0A, 0x01, 0x0E};

static bool token_exists(void *ctx, uint32_t token)
{
    (void)ctx;
    uint32_t row = token & 0xFFFFFF;
    switch (token >> 24) {
    case 0x0A:
        return row >= 1 && row <= 9;
    case 0x2B:
        return row >= 1 && row <= 2;
    case 0x01:
        return row >= 1 && row <= 3;
    case 0x70:
        return row < 5;
    default:
        return false;
    }
}

static int signature(void *ctx, uint32_t token, const uint8_t **sig, size_t *len)
{
    (void)ctx;
    switch (token) {
    case 0x0A000001:
        *sig = sig_f, *len = sizeof(sig_f);
        return 0;
    case 0x0A000002:
        *sig = sig_field, *len = sizeof(sig_field);
        return 0;
    case 0x0A000003:
        *sig = sig_g, *len = sizeof(sig_g);
        return 0;
    case 0x0A000004:
        *sig = sig_struct_field, *len = sizeof(sig_struct_field);
        return 0;
    case 0x0A000005:
        *sig = sig_enum_field, *len = sizeof(sig_enum_field);
        return 0;
    case 0x0A000006:
        *sig = sig_add, *len = sizeof(sig_add);
        return 0;
    case 0x0A000008:
        *sig = sig_ctor2, *len = sizeof(sig_ctor2);
        return 0;
    case 0x0A000009:
        *sig = sig_ctor0, *len = sizeof(sig_ctor0);
        return 0;
    case 0x0A000007:
    case 0x2B000001:
    case 0x2B000002:
        *sig = sig_id, *len = sizeof(sig_id);
        return 0;
    default:
        return -ENOENT;
    }
}

static int resolve(void *ctx, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out)
{
    (void)ctx;
    const uint8_t *sig = method_sig;
    size_t len = sizeof(method_sig);
    if (opcode != CLRIE_IL_OP_RET && signature(NULL, token, &sig, &len) != 0)
        return -ENOENT;
    struct clrie_il_method_sig m;
    int r = clrie_il_sig_parse_method(sig, len, &m, NULL);
    return r ? r : clrie_il_sig_stack_effect(&m, opcode, out);
}

static int field_is_static(void *ctx, uint32_t token)
{
    (void)ctx;
    return token == 0x0A000002 ? 1 : token == 0x0A000004 || token == 0x0A000005 ? 0 : -ENOENT;
}

static int value_type(void *ctx, uint32_t token)
{
    (void)ctx;
    return token == 0x01000001   ? CLRIE_IL_ELEMENT_TYPE_VALUETYPE
           : token == 0x01000002 ? CLRIE_IL_ELEMENT_TYPE_I4
                                 : -ENOENT;
}

static int generic_args(void *ctx, uint32_t token, const uint8_t **type_spec, size_t *type_spec_len,
                        const uint8_t **method_inst, size_t *method_inst_len)
{
    (void)ctx;
    *type_spec = *method_inst = NULL;
    *type_spec_len = *method_inst_len = 0;
    switch (token) {
    case 0x0A000006:
        *type_spec = list_of_int32, *type_spec_len = sizeof(list_of_int32);
        return 0;
    case 0x0A000008:
        *type_spec = int32_2d, *type_spec_len = sizeof(int32_2d);
        return 0;
    case 0x0A000009:
        *type_spec = struct_of_int32, *type_spec_len = sizeof(struct_of_int32);
        return 0;
    case 0x2B000001:
        *method_inst = inst_int32, *method_inst_len = sizeof(inst_int32);
        return 0;
    case 0x2B000002:
        *method_inst = inst_string, *method_inst_len = sizeof(inst_string);
        return 0;
    default:
        return (token >> 24) == 0x0A ? 0 : -ENOENT;
    }
}

static const struct clrie_il_metadata metadata = {
    .token_exists = token_exists,
    .signature = signature,
    .field_is_static = field_is_static,
    .value_type = value_type,
    .generic_args = generic_args,
};
static const struct clrie_il_verify_context context = {
    resolve, NULL, method_sig, sizeof(method_sig), local_sig, sizeof(local_sig), &metadata,
};
/* The same module without generic_args: instantiations are not known. */
static const struct clrie_il_metadata metadata_without_generics = {
    .token_exists = token_exists,
    .signature = signature,
    .field_is_static = field_is_static,
    .value_type = value_type,
};
static const struct clrie_il_verify_context context_without_generics = {
    resolve,
    NULL,
    method_sig,
    sizeof(method_sig),
    local_sig,
    sizeof(local_sig),
    &metadata_without_generics,
};

static struct reports verify_code_in(const struct clrie_il_verify_context *c, const uint8_t *code,
                                     size_t len)
{
    struct clrie_il_graph *g = decode_code(code, len);
    struct reports rep = {0};
    int r = clrie_il_graph_verify_in(g, c, collect_report, &rep);
    assert_int_equal(r, rep.count ? -EILSEQ : 0);
    /* The structural verifier alone accepts these bodies (a call whose token is a field
     * it refuses too: the stack effect cannot be told). */
    struct reports plain = {0};
    if (code[0] != 0x28)
        assert_int_equal(clrie_il_graph_verify(g, resolve, NULL, collect_report, &plain), 0);
    clrie_il_graph_free(g);
    return rep;
}

static struct reports verify_code(const uint8_t *code, size_t len)
{
    return verify_code_in(&context, code, len);
}

#define EXPECT(rep, offset, words)                                                                 \
    do {                                                                                           \
        if (!has_report(&(rep), (offset), (words))) {                                              \
            dump_reports(&(rep));                                                                  \
            fail_msg("no report '%s' at %u", (words), (unsigned)(offset));                         \
        }                                                                                          \
    } while (0)

/* No report at all; the reports there are printed first. */
#define EXPECT_NONE(rep)                                                                           \
    do {                                                                                           \
        if ((rep).count)                                                                           \
            dump_reports(&(rep));                                                                  \
        assert_int_equal((rep).count, 0);                                                          \
    } while (0)

static void valid_code_passes(void **state)
{
    (void)state;
    /* ldarg.0; ldloc.0; add; ldarg.1; conv.i4; add; ldsfld 0A000002; conv.i4; add;
     * ldstr 70000001; stloc.1; dup; call 0A000001; ret */
    struct reports rep =
        verify_code(BYTES(0x02, 0x06, 0x58, 0x03, 0x69, 0x58, 0x7E, 0x02, 0, 0, 0x0A, 0x69, 0x58,
                          0x72, 0x01, 0, 0, 0x70, 0x0B, 0x25, 0x28, 0x01, 0, 0, 0x0A, 0x2A));
    EXPECT_NONE(rep);
}

static void local_and_argument_indices_are_checked(void **state)
{
    (void)state;
    /* ldloc 200; ret */
    struct reports rep = verify_code(BYTES(0xFE, 0x0C, 200, 0, 0x2A));
    EXPECT(rep, 0, "names local 200, the method has 2");
    /* ldarg 50; ret */
    rep = verify_code(BYTES(0xFE, 0x09, 50, 0, 0x2A));
    EXPECT(rep, 0, "names argument 50, the method has 2");
    /* ldarg.2 (implicit index); ret */
    rep = verify_code(BYTES(0x04, 0x2A));
    EXPECT(rep, 0, "names argument 2");
    /* ldc.i4.0; stloc.3; ldc.i4.0; ret */
    rep = verify_code(BYTES(0x16, 0x0D, 0x16, 0x2A));
    EXPECT(rep, 1, "names local 3");
}

static void tokens_are_checked_for_table_and_row(void **state)
{
    (void)state;
    /* ldstr 0A000001 (a MemberRef); pop; ldc.i4.0; ret */
    struct reports rep = verify_code(BYTES(0x72, 0x01, 0, 0, 0x0A, 0x26, 0x16, 0x2A));
    EXPECT(rep, 0, "ldstr takes a token of another kind");
    /* ldstr 70000099 (past the heap) */
    rep = verify_code(BYTES(0x72, 0x99, 0, 0, 0x70, 0x26, 0x16, 0x2A));
    EXPECT(rep, 0, "does not exist");
    /* ldtoken 01000007 (TypeRef row 7 of 2) */
    rep = verify_code(BYTES(0xD0, 0x07, 0, 0, 0x01, 0x26, 0x16, 0x2A));
    EXPECT(rep, 0, "ldtoken names token 0x01000007, which does not exist");
    /* call 0A000002 (a field) */
    rep = verify_code(BYTES(0x28, 0x02, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 0, "call needs a method");
    /* ldsfld 0A000001 (a method) */
    rep = verify_code(BYTES(0x7E, 0x01, 0, 0, 0x0A, 0x26, 0x16, 0x2A));
    EXPECT(rep, 0, "ldsfld needs a field");
    /* box 70000001 (a string, not a type) */
    rep = verify_code(BYTES(0x16, 0x8C, 0x01, 0, 0, 0x70, 0x26, 0x16, 0x2A));
    EXPECT(rep, 1, "box takes a token of another kind");
    /* ldnull; ldfld 0A000002 (a static field); conv.i4; ret */
    rep = verify_code(BYTES(0x14, 0x7B, 0x02, 0, 0, 0x0A, 0x69, 0x2A));
    EXPECT(rep, 1, "ldfld needs an instance field, 0x0A000002 is a static one");
    /* ldsfld 0A000005 (an instance field); ret */
    rep = verify_code(BYTES(0x7E, 0x05, 0, 0, 0x0A, 0x2A));
    EXPECT(rep, 0, "ldsfld needs a static field");
}

static void enums_are_told_from_structs(void **state)
{
    (void)state;
    /* ldnull; ldfld 0A000005 (an enum of int32); ldc.i4.1; add; ret */
    struct reports rep = verify_code(BYTES(0x14, 0x7B, 0x05, 0, 0, 0x0A, 0x17, 0x58, 0x2A));
    EXPECT_NONE(rep);
    /* ldnull; ldfld 0A000004 (a struct); ldc.i4.1; add; ret */
    rep = verify_code(BYTES(0x14, 0x7B, 0x04, 0, 0, 0x0A, 0x17, 0x58, 0x2A));
    EXPECT(rep, 7, "add cannot combine a value type and int32");
}

static void stack_types_are_checked(void **state)
{
    (void)state;
    /* ldarg.0; ldarg.1; add; ret: int32 + F */
    struct reports rep = verify_code(BYTES(0x02, 0x03, 0x58, 0x2A));
    EXPECT(rep, 2, "add cannot combine int32 and F");
    /* ldarg.1; ret: F returned as int32 */
    rep = verify_code(BYTES(0x03, 0x2A));
    EXPECT(rep, 1, "ret returns F from a method that returns int32");
    /* ldarg.0; ldc.i8 1; clt; ret */
    rep = verify_code(BYTES(0x02, 0x21, 1, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0x04, 0x2A));
    EXPECT(rep, 10, "clt cannot compare int32 with int64");
    /* ldarg.1; brtrue.s +0; ldc.i4.0; ret */
    rep = verify_code(BYTES(0x03, 0x2D, 0x00, 0x16, 0x2A));
    EXPECT(rep, 1, "brtrue.s needs an integer");
    /* ldc.i4.0; stloc.1 (a string local); ldc.i4.0; ret */
    rep = verify_code(BYTES(0x16, 0x0B, 0x16, 0x2A));
    EXPECT(rep, 1, "stores int32 into a local of type O");
    /* ldarg.1; call 0A000001 (takes int32); ldc.i4.0; ret */
    rep = verify_code(BYTES(0x03, 0x28, 0x01, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 1, "passes F as parameter 1 of type int32");
    /* call 0A000003 (string G()); ret */
    rep = verify_code(BYTES(0x28, 0x03, 0, 0, 0x0A, 0x2A));
    EXPECT(rep, 5, "ret returns O");
    /* ldnull; ldc.i4.1; shl; ... */
    rep = verify_code(BYTES(0x14, 0x17, 0x62, 0x26, 0x16, 0x2A));
    EXPECT(rep, 2, "shl needs an integer to shift");
}

/* The JIT of a 64-bit runtime takes an int64 as an address, as Microsoft's coverage plugin
 * writes its probes: `ldc.i8 <address of a counter>; ldc.i4.1; stind.i1`. */
static void an_int64_is_an_address(void **state)
{
    (void)state;
    /* ldc.i8 0x7f0000001000; ldc.i4.1; stind.i1; ldc.i8 0x7f0000001000; ldind.u1; ret */
    struct reports rep = verify_code(BYTES(0x21, 0x00, 0x10, 0, 0, 0, 0x7F, 0, 0, 0x17, 0x52, 0x21,
                                           0x00, 0x10, 0, 0, 0, 0x7F, 0, 0, 0x47, 0x2A));
    EXPECT_NONE(rep);
    /* ldc.r8 1.0; ldc.i4.1; stind.i1; ldc.i4.0; ret: a float still is not */
    rep = verify_code(BYTES(0x23, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x17, 0x52, 0x16, 0x2A));
    EXPECT(rep, 10, "stind.i1 needs an address");
}

static void paths_that_meet_with_different_types_are_reported(void **state)
{
    (void)state;
    /* ldarg.0; brtrue.s L; ldc.i4.0; br.s M; L: ldc.r8 1.0; M: conv.i4; ret */
    struct reports rep = verify_code(
        BYTES(0x02, 0x2D, 0x03, 0x16, 0x2B, 0x09, 0x23, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x69, 0x2A));
    EXPECT(rep, 15, "paths meet with");
    /* int32 and native int may meet: ldarg.0; brtrue.s L; ldc.i4.0; br.s M; L: ldc.i4.1;
     * conv.i; M: conv.i4; ret */
    rep = verify_code(BYTES(0x02, 0x2D, 0x03, 0x16, 0x2B, 0x02, 0x17, 0xD3, 0x69, 0x2A));
    assert_int_equal(rep.count, 0);
}

static void generic_parameters_are_substituted(void **state)
{
    (void)state;
    /* ldnull; ldarg.0; callvirt 0A000006 (List<int32>.Add(!0)); ldc.i4.0; ret */
    struct reports rep = verify_code(BYTES(0x14, 0x02, 0x6F, 0x06, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT_NONE(rep);
    /* ldnull; ldarg.1 (F); callvirt 0A000006; ldc.i4.0; ret */
    rep = verify_code(BYTES(0x14, 0x03, 0x6F, 0x06, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 2, "passes F as parameter 1 of type int32");
    /* ldnull; ldloca.s 0 (&); callvirt 0A000006; ldc.i4.0; ret */
    rep = verify_code(BYTES(0x14, 0x12, 0x00, 0x6F, 0x06, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 3, "passes & as parameter 1 of type int32");
    /* Without the instantiation the parameter takes anything. */
    rep = verify_code_in(&context_without_generics,
                         BYTES(0x14, 0x03, 0x6F, 0x06, 0, 0, 0x0A, 0x16, 0x2A));
    assert_int_equal(rep.count, 0);
    /* ldarg.0; call 2B000001 (Id<int32>(!!0)); ret */
    rep = verify_code(BYTES(0x02, 0x28, 0x01, 0, 0, 0x2B, 0x2A));
    EXPECT_NONE(rep);
    /* ldarg.1; call 2B000001; ret */
    rep = verify_code(BYTES(0x03, 0x28, 0x01, 0, 0, 0x2B, 0x2A));
    EXPECT(rep, 1, "passes F as parameter 1 of type int32");
    /* ldstr 70000001; call 2B000002 (Id<string>: returns O); ret (int32) */
    rep = verify_code(BYTES(0x72, 0x01, 0, 0, 0x70, 0x28, 0x02, 0, 0, 0x2B, 0x2A));
    EXPECT(rep, 10, "ret returns O");
    /* Without the instantiation: anything in, anything out. */
    rep = verify_code_in(&context_without_generics, BYTES(0x03, 0x28, 0x01, 0, 0, 0x2B, 0x2A));
    assert_int_equal(rep.count, 0);
}

static void newobj_results_are_told_by_their_type_spec(void **state)
{
    (void)state;
    /* ldc.i4.2; ldc.i4.3; newobj 0A000008 (int32[,]); call 0A000001 (F(int32)); ldc.i4.0;
     * ret: an array is no int32 */
    struct reports rep =
        verify_code(BYTES(0x18, 0x19, 0x73, 0x08, 0, 0, 0x0A, 0x28, 0x01, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 7, "passes O (object) as parameter 1 of type int32");
    /* newobj 0A000009 (a generic struct); call F; ldc.i4.0; ret */
    rep = verify_code(BYTES(0x73, 0x09, 0, 0, 0x0A, 0x28, 0x01, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 5, "passes a value type as parameter 1 of type int32");
    /* newobj 0A000008 then stloc.1 (string): an object, as far as stack types go */
    rep = verify_code(BYTES(0x18, 0x19, 0x73, 0x08, 0, 0, 0x0A, 0x0B, 0x16, 0x2A));
    EXPECT_NONE(rep);
    /* Without the instantiation a newobj result may be IntPtr's native int: no report. */
    rep = verify_code_in(&context_without_generics, BYTES(0x18, 0x19, 0x73, 0x08, 0, 0, 0x0A, 0x28,
                                                          0x01, 0, 0, 0x0A, 0x16, 0x2A));
    assert_int_equal(rep.count, 0);
}

/* What is reported is what the final types give: a problem that only an earlier pass over a
 * loop saw, before another path widened an item's types, is not one. */
static void a_problem_only_narrower_types_had_is_not_reported(void **state)
{
    (void)state;
    /* ldnull; L: conv.r4 (O on the first pass, O or int32 at the end); pop; ldc.i4.0;
     * ldarg.0; brtrue.s L; pop; ldc.i4.0; ret */
    struct reports rep =
        verify_code(BYTES(0x14, 0x6B, 0x26, 0x16, 0x02, 0x2D, 0xFA, 0x26, 0x16, 0x2A));
    EXPECT(rep, 1, "paths meet with O (object) and int32 in stack slot 0");
    assert_int_equal(rep.count, 1);
}

/* One verify call asks the module about each token once and keeps the answer: answers for
 * one token must never be taken for another's, nor one opcode's for another's. */
static void each_token_gets_its_own_answers(void **state)
{
    (void)state;
    /* ldarg.0; call 0A000001 (void F(int32)); call 0A000003 (string G()); pop; ldarg.0;
     * call 2B000001 (Id<int32>); call 2B000002 (Id<string>: same signature blob, another
     * instantiation); ret */
    struct reports rep =
        verify_code(BYTES(0x02, 0x28, 0x01, 0, 0, 0x0A, 0x28, 0x03, 0, 0, 0x0A, 0x26, 0x02, 0x28,
                          0x01, 0, 0, 0x2B, 0x28, 0x02, 0, 0, 0x2B, 0x2A));
    EXPECT(rep, 18, "call passes int32 as parameter 1 of type O (object)");
    EXPECT(rep, 23, "ret returns O (object) from a method that returns int32");
    assert_int_equal(rep.count, 2);
    /* ldsfld 0A000002 (float64); ldnull; ldfld 0A000005 (an enum of int32); add; ret */
    rep = verify_code(BYTES(0x7E, 0x02, 0, 0, 0x0A, 0x14, 0x7B, 0x05, 0, 0, 0x0A, 0x58, 0x2A));
    EXPECT(rep, 11, "add cannot combine F and int32");
    assert_int_equal(rep.count, 1);
}

static void one_token_called_two_ways_gets_both_answers(void **state)
{
    (void)state;
    /* ldloca.s 0; call 0A000009 (the struct's constructor on an address: takes it, gives
     * nothing); newobj 0A000009 (gives the struct); call 0A000001 (F(int32)); ldc.i4.0; ret */
    struct reports rep = verify_code(BYTES(0x12, 0x00, 0x28, 0x09, 0, 0, 0x0A, 0x73, 0x09, 0, 0,
                                           0x0A, 0x28, 0x01, 0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 12, "passes a value type as parameter 1 of type int32");
    assert_int_equal(rep.count, 1);
    /* The other way round: newobj 0A000009; ldloca.s 0; call 0A000009; call 0A000001; ... */
    rep = verify_code(BYTES(0x73, 0x09, 0, 0, 0x0A, 0x12, 0x00, 0x28, 0x09, 0, 0, 0x0A, 0x28, 0x01,
                            0, 0, 0x0A, 0x16, 0x2A));
    EXPECT(rep, 12, "passes a value type as parameter 1 of type int32");
    assert_int_equal(rep.count, 1);
}

/* How often the module was asked, by callback. */
struct asked {
    int resolve, exists, signature, is_static;
};

static int counted_resolve(void *ctx, uint16_t opcode, uint32_t token,
                           struct clrie_il_stack_effect *out)
{
    ((struct asked *)ctx)->resolve++;
    return resolve(NULL, opcode, token, out);
}

static bool counted_token_exists(void *ctx, uint32_t token)
{
    ((struct asked *)ctx)->exists++;
    return token_exists(NULL, token);
}

static int counted_signature(void *ctx, uint32_t token, const uint8_t **sig, size_t *len)
{
    ((struct asked *)ctx)->signature++;
    return signature(NULL, token, sig, len);
}

static int counted_field_is_static(void *ctx, uint32_t token)
{
    ((struct asked *)ctx)->is_static++;
    return field_is_static(NULL, token);
}

/* In the engine each callback is a metadata read through the runtime: a method that names a
 * token many times, in a loop the checks pass over more than once, still asks once. */
static void each_question_goes_to_the_module_once(void **state)
{
    (void)state;
    struct asked asked = {0};
    const struct clrie_il_metadata md = {
        .ctx = &asked,
        .token_exists = counted_token_exists,
        .signature = counted_signature,
        .field_is_static = counted_field_is_static,
        .value_type = value_type,
        .generic_args = generic_args,
    };
    const struct clrie_il_verify_context c = {
        counted_resolve, &asked, method_sig, sizeof(method_sig), local_sig, sizeof(local_sig), &md,
    };
    /* L: ldarg.0; call 0A000001; ldarg.0; call 0A000001; ldarg.0; brtrue.s L;
     * ldsfld 0A000002; pop; ldsfld 0A000002; pop; ldc.i4.0; ret */
    struct reports rep = verify_code_in(&c, BYTES(0x02, 0x28, 0x01, 0, 0, 0x0A, 0x02, 0x28, 0x01, 0,
                                                  0, 0x0A, 0x02, 0x2D, 0xF1, 0x7E, 0x02, 0, 0, 0x0A,
                                                  0x26, 0x7E, 0x02, 0, 0, 0x0A, 0x26, 0x16, 0x2A));
    EXPECT_NONE(rep);
    assert_int_equal(asked.resolve, 2);   /* call 0A000001, ret */
    assert_int_equal(asked.exists, 2);    /* 0A000001, 0A000002 */
    assert_int_equal(asked.signature, 2); /* 0A000001, 0A000002 */
    assert_int_equal(asked.is_static, 1); /* 0A000002 */
}

/* Asked for the max stack too, the check gives the same verdict and the depth
 * clrie_il_graph_max_stack computes, whenever the heights check out. */
static void the_check_gives_the_max_stack(void **state)
{
    (void)state;
    static const struct {
        uint8_t code[16];
        size_t len;
        int verdict;
        uint32_t max_stack; /* UINT32_MAX: the heights do not check out */
    } cases[] = {
        /* ldarg.0; ldloc.0; add; ret */
        {{0x02, 0x06, 0x58, 0x2A}, 4, 0, 2},
        /* ldarg.0; dup; dup; pop; pop; call 0A000001; ldc.i4.0; ret */
        {{0x02, 0x25, 0x25, 0x26, 0x26, 0x28, 0x01, 0, 0, 0x0A, 0x16, 0x2A}, 12, 0, 3},
        /* L: ldc.i4.0; brtrue.s L; ldc.i4.1; ret */
        {{0x16, 0x2D, 0xFD, 0x17, 0x2A}, 5, 0, 1},
        /* pop; ldc.i4.0; ret: underflow */
        {{0x26, 0x16, 0x2A}, 3, -EILSEQ, UINT32_MAX},
        /* ldarg.0; ldc.r8 0.0 ... add; ret: the types, not the heights, are wrong */
        {{0x02, 0x23, 0, 0, 0, 0, 0, 0, 0, 0, 0x58, 0x2A}, 12, -EILSEQ, 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct clrie_il_graph *g = decode_code(cases[i].code, cases[i].len);
        uint32_t with_check = UINT32_MAX, alone = 0;
        struct clrie_il_diag diag;
        assert_int_equal(clrie_il_graph_verify_in_max_stack(g, &context, NULL, NULL, &with_check),
                         cases[i].verdict);
        assert_int_equal(with_check, cases[i].max_stack);
        if (cases[i].max_stack != UINT32_MAX) {
            assert_int_equal(clrie_il_graph_max_stack(g, resolve, NULL, &alone, &diag), 0);
            assert_int_equal(alone, with_check);
        }
        assert_int_equal(clrie_il_graph_verify_in_max_stack(g, &context, NULL, NULL, NULL),
                         -EINVAL);
        clrie_il_graph_free(g);
    }
}

/* A method body with a fat header around code. */
static uint8_t *fat_body(const uint8_t *code, size_t len, size_t *body_len)
{
    uint8_t *b = malloc(12 + len);
    assert_non_null(b);
    const uint8_t header[12] = {
        0x03, 0x30, 8, 0, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), 0};
    memcpy(b, header, sizeof(header));
    memcpy(b + 12, code, len);
    *body_len = 12 + len;
    return b;
}

static struct reports verify_graph(struct clrie_il_graph *g)
{
    struct reports rep = {0};
    int r = clrie_il_graph_verify_in(g, &context, collect_report, &rep);
    assert_int_equal(r, rep.count ? -EILSEQ : 0);
    return rep;
}

/* The checks keep their memory in the graph for the next check: a graph checked again, after
 * an edit or with another method decoded into it, is checked afresh. */
static void a_graph_checked_again_is_checked_afresh(void **state)
{
    (void)state;
    /* A big method first (the checks' memory grows while they run): 2,000 calls of
     * F(ldarg.0), then ldc.i4.0; ret */
    enum { CALLS = 2000 };
    uint8_t code[CALLS * 6 + 2];
    for (size_t i = 0; i < CALLS; i++)
        memcpy(code + 6 * i, (const uint8_t[]){0x02, 0x28, 0x01, 0, 0, 0x0A}, 6);
    code[CALLS * 6] = 0x16;
    code[CALLS * 6 + 1] = 0x2A;
    size_t len;
    uint8_t *body = fat_body(code, sizeof(code), &len);
    struct clrie_il_graph *g = NULL;
    assert_int_equal(clrie_il_graph_decode(body, len, &g, NULL), 0);
    free(body);
    struct reports rep = verify_graph(g);
    assert_int_equal(rep.count, 0);
    /* ldarg.1 (F) for the first call's ldarg.0: reported, again and again */
    struct clrie_il_instr *f = NULL;
    assert_int_equal(clrie_il_instr_create(g, CLRIE_IL_OP_LDARG_1, &f), 0);
    assert_int_equal(clrie_il_graph_replace(g, nth(g, 0), f), 0);
    for (int again = 0; again < 2; again++) {
        rep = verify_graph(g);
        EXPECT(rep, 1, "call passes F as parameter 1 of type int32");
        assert_int_equal(rep.count, 1);
    }
    /* Another method in the same graph: ldarg.1; call 0A000003; ... its own tokens only */
    const uint8_t small[] = {0x03, 0x28, 0x01, 0, 0, 0x0A, 0x28, 0x03, 0, 0, 0x0A, 0x2A};
    body = fat_body(small, sizeof(small), &len);
    assert_int_equal(clrie_il_graph_decode_into(g, body, len, NULL), 0);
    free(body);
    rep = verify_graph(g);
    EXPECT(rep, 1, "call passes F as parameter 1 of type int32");
    EXPECT(rep, 11, "ret returns O (object) from a method that returns int32");
    assert_int_equal(rep.count, 2);
    clrie_il_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_code_passes),
        cmocka_unit_test(the_check_gives_the_max_stack),
        cmocka_unit_test(local_and_argument_indices_are_checked),
        cmocka_unit_test(tokens_are_checked_for_table_and_row),
        cmocka_unit_test(stack_types_are_checked),
        cmocka_unit_test(an_int64_is_an_address),
        cmocka_unit_test(enums_are_told_from_structs),
        cmocka_unit_test(paths_that_meet_with_different_types_are_reported),
        cmocka_unit_test(generic_parameters_are_substituted),
        cmocka_unit_test(newobj_results_are_told_by_their_type_spec),
        cmocka_unit_test(a_problem_only_narrower_types_had_is_not_reported),
        cmocka_unit_test(each_token_gets_its_own_answers),
        cmocka_unit_test(one_token_called_two_ways_gets_both_answers),
        cmocka_unit_test(each_question_goes_to_the_module_once),
        cmocka_unit_test(a_graph_checked_again_is_checked_afresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
