/* The IL objects as a plugin sees them: everything is driven through the COM vtables of
 * il_body.h's objects, and each edit is checked by the bytes libilgraph then encodes and by
 * its verifier, since that is what the runtime will get. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "il_body.h"
#include "il_private.h" /* only to see that objects are made lazily */
#include "utf16.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})
/* A tiny-header body around the given code bytes. */
#define TINY(...)                                                                                  \
    ((const uint8_t[]){(uint8_t)((sizeof((const uint8_t[]){__VA_ARGS__}) << 2) | 2),               \
                       __VA_ARGS__}),                                                              \
        (sizeof((const uint8_t[]){__VA_ARGS__}) + 1)

/* ---- a method info stand-in: counts the references every object forwards to it ---- */

struct outer {
    IUnknown iface;
    long refs;
};

static HRESULT STDMETHODCALLTYPE outer_QueryInterface(IUnknown *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE outer_AddRef(IUnknown *This)
{
    return (ULONG)++((struct outer *)This)->refs;
}

static ULONG STDMETHODCALLTYPE outer_Release(IUnknown *This)
{
    struct outer *o = (struct outer *)This;
    assert_true(o->refs > 0);
    return (ULONG)--o->refs;
}

static const struct IUnknownVtbl outer_vtbl = {outer_QueryInterface, outer_AddRef, outer_Release};

/* ---- the method's locals, as ILocalVariableCollection would hold them ---- */

struct locals {
    uint8_t sig[64];
    size_t len;
    int sets;
};

static HRESULT locals_get(void *ctx, const uint8_t **sig, size_t *len)
{
    struct locals *l = ctx;
    *sig = l->sig;
    *len = l->len;
    return S_OK;
}

static HRESULT locals_set(void *ctx, const uint8_t *sig, size_t len)
{
    struct locals *l = ctx;
    assert_true(len <= sizeof(l->sig));
    memcpy(l->sig, sig, len);
    l->len = len;
    l->sets++;
    return S_OK;
}

/* ---- the log: errors are captured to check that misuse is reported ---- */

struct fixture {
    struct outer outer;
    struct locals locals;
    struct clrie_pm_log log;
    char last_error[512];
    int errors;
    struct il_body *body;
    IInstructionGraph *graph;
    IInstructionFactory *factory;
    IExceptionSection *eh;
    bool returns_void;
};

static void capture(void *ctx, enum clrie_pm_log_kind kind, const char *line)
{
    struct fixture *f = ctx;
    snprintf(f->last_error, sizeof(f->last_error), "%s", line);
    f->errors++;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    f->outer.iface.lpVtbl = &outer_vtbl;
    char *env[] = {"MicrosoftInstrumentationEngine_FileLogPath=/dev/null", NULL};
    assert_int_equal(clrie_pm_log_init(&f->log, env), 0);
    struct clrie_pm_log_host host = {capture, f, CLRIE_PM_LOG_ERRORS};
    clrie_pm_log_set_host(&f->log, &host);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    /* Every reference handed out was given back. */
    assert_int_equal(f->outer.refs, 0);
    clrie_pm_il_body_free(f->body);
    clrie_pm_log_finish(&f->log);
    free(f);
    return 0;
}

static const uint8_t sig_void[] = {0x00, 0x00, 0x01};
static const uint8_t sig_int[] = {0x00, 0x00, 0x08};

static void open_body_sig(struct fixture *f, const uint8_t *bytes, size_t len, const uint8_t *sig,
                          size_t sig_len)
{
    struct il_body_params p = {
        .outer = &f->outer.iface,
        .method = NULL,
        .method_sig = sig,
        .method_sig_len = sig_len,
        .locals = {locals_get, locals_set, &f->locals},
        .log = &f->log,
    };
    assert_int_equal(clrie_pm_il_body_new(&p, bytes, len, &f->body), S_OK);
    f->graph = clrie_pm_il_body_graph(f->body);
    f->factory = clrie_pm_il_body_factory(f->body);
    f->eh = clrie_pm_il_body_exceptions(f->body);
    f->returns_void = sig[2] == 0x01;
}

static void open_body(struct fixture *f, const uint8_t *bytes, size_t len)
{
    open_body_sig(f, bytes, len, sig_int, sizeof(sig_int));
}

/* Stack effects for the verifier: calls take and give nothing; ret takes the return value. */
static int resolve(void *ctx, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out)
{
    struct fixture *f = ctx;
    out->pop = opcode == CLRIE_IL_OP_RET && !f->returns_void;
    out->push = 0;
    return 0;
}

static void report(void *ctx, uint32_t offset, const char *message)
{
    fprintf(stderr, "verify: IL_%04X: %s\n", offset, message);
}

/* The code the method would now be given, compared byte for byte, and verified. */
static void expect_code(struct fixture *f, const uint8_t *want, size_t want_len)
{
    struct clrie_il_graph *g = clrie_pm_il_body_ilgraph(f->body);
    uint8_t *code = NULL;
    size_t len = 0;
    struct clrie_il_diag d = {0};
    int r = clrie_il_graph_encode_code(g, 0, &code, &len, &d);
    if (r != 0)
        fail_msg("encode failed (%d): %s", r, d.message);
    if (len != want_len || memcmp(code, want, len) != 0) {
        fprintf(stderr, "got  (%zu):", len);
        for (size_t i = 0; i < len; i++)
            fprintf(stderr, " %02X", code[i]);
        fprintf(stderr, "\nwant (%zu):", want_len);
        for (size_t i = 0; i < want_len; i++)
            fprintf(stderr, " %02X", want[i]);
        fprintf(stderr, "\n");
        fail_msg("%s", "encoded code differs");
    }
    free(code);
    assert_int_equal(clrie_il_graph_verify(g, resolve, f, report, NULL), 0);
}

/* ---- small plugin-side helpers ---- */

static IInstruction *at(struct fixture *f, DWORD offset)
{
    IInstruction *i = NULL;
    assert_int_equal(f->graph->lpVtbl->GetInstructionAtOffset(f->graph, offset, &i), S_OK);
    return i;
}

static IInstruction *next_of(IInstruction *i)
{
    IInstruction *n = NULL;
    assert_int_equal(i->lpVtbl->GetNextInstruction(i, &n), S_OK);
    return n;
}

static DWORD offset_of(IInstruction *i)
{
    DWORD off = 0;
    assert_int_equal(i->lpVtbl->GetOffset(i, &off), S_OK);
    return off;
}

static ILOrdinalOpcode opcode_of(IInstruction *i)
{
    ILOrdinalOpcode op;
    assert_int_equal(i->lpVtbl->GetOpCode(i, &op), S_OK);
    return op;
}

static void release(void *iface)
{
    IUnknown *u = iface;
    if (u)
        u->lpVtbl->Release(u);
}

static IInstruction *make(struct fixture *f, ILOrdinalOpcode op)
{
    IInstruction *i = NULL;
    assert_int_equal(f->factory->lpVtbl->CreateInstruction(f->factory, op, &i), S_OK);
    return i;
}

/* ldarg.0; brtrue.s L; ldc.i4.1; ret; L: ldc.i4.2; ret */
#define BRANCHY TINY(0x02, 0x2D, 0x02, 0x17, 0x2A, 0x18, 0x2A)

/* ---- tests ---- */

static void a_decoded_body_walks_in_both_lists_with_offsets(void **state)
{
    struct fixture *f = *state;
    open_body(f, BRANCHY);
    /* A method nobody walks gets no instruction objects, even when encoded. */
    expect_code(f, BYTES(0x02, 0x2D, 0x02, 0x17, 0x2A, 0x18, 0x2A));
    assert_int_equal(f->body->instructions.count, 0);
    IInstruction *first = NULL, *last = NULL, *ofirst = NULL;
    assert_int_equal(f->graph->lpVtbl->GetFirstInstruction(f->graph, &first), S_OK);
    /* What a plugin holds, it holds on the method info. */
    assert_int_equal(f->outer.refs, 1);
    assert_int_equal(f->body->instructions.count, 1);
    assert_int_equal(f->graph->lpVtbl->GetLastInstruction(f->graph, &last), S_OK);
    assert_int_equal(f->graph->lpVtbl->GetOriginalFirstInstruction(f->graph, &ofirst), S_OK);
    assert_ptr_equal(first, ofirst); /* one object per node */
    static const DWORD offsets[] = {0, 1, 3, 4, 5, 6};
    static const ILOrdinalOpcode ops[] = {Cee_Ldarg_0, Cee_Brtrue_S, Cee_Ldc_I4_1,
                                          Cee_Ret,     Cee_Ldc_I4_2, Cee_Ret};
    IInstruction *i = first;
    i->lpVtbl->AddRef(i);
    for (size_t k = 0; k < 6; k++) {
        assert_int_equal(offset_of(i), offsets[k]);
        DWORD orig;
        assert_int_equal(i->lpVtbl->GetOriginalOffset(i, &orig), S_OK);
        assert_int_equal(orig, offsets[k]);
        assert_int_equal(opcode_of(i), ops[k]);
        InstructionGeneration gen;
        assert_int_equal(i->lpVtbl->GetInstructionGeneration(i, &gen), S_OK);
        assert_int_equal(gen, Generation_Original);
        IInstruction *n = NULL;
        HRESULT hr = i->lpVtbl->GetNextInstruction(i, &n);
        if (k == 5) {
            assert_int_equal(hr, E_FAIL);
            assert_null(n);
            assert_ptr_equal(i, last);
        }
        release(i);
        i = n;
    }
    /* Backwards along the original list. */
    IInstruction *olast = NULL, *prev = NULL;
    assert_int_equal(f->graph->lpVtbl->GetOriginalLastInstruction(f->graph, &olast), S_OK);
    assert_ptr_equal(olast, last);
    assert_int_equal(olast->lpVtbl->GetOriginalPreviousInstruction(olast, &prev), S_OK);
    assert_int_equal(offset_of(prev), 5);
    /* Lookups by offset give the same objects; no instruction starts at 2. */
    IInstruction *x = at(f, 5), *y = NULL;
    assert_ptr_equal(x, prev);
    assert_int_equal(f->graph->lpVtbl->GetInstructionAtOffset(f->graph, 2, &y), E_FAIL);
    assert_null(y);
    assert_int_equal(f->graph->lpVtbl->GetInstructionAtOriginalOffset(f->graph, 6, &y), S_OK);
    assert_ptr_equal(y, last);
    release(y);
    /* Opcode facts. */
    IInstruction *br = at(f, 1);
    BSTR name = NULL;
    assert_int_equal(br->lpVtbl->GetOpCodeName(br, &name), S_OK);
    char *utf8 = NULL;
    assert_int_equal(clrie_pm_utf16_to_utf8(name, clrie_pm_bstr_len(name), false, &utf8, NULL), 0);
    assert_string_equal(utf8, "brtrue.s");
    free(utf8);
    clrie_pm_bstr_free(name);
    ILOrdinalOpcode alt;
    ILOpcodeFlags flags;
    InstructionTerminationType term;
    DWORD len;
    BOOL b;
    assert_int_equal(br->lpVtbl->GetAlternateOrdinalOpcode(br, &alt), S_OK);
    assert_int_equal(alt, Cee_Brtrue);
    assert_int_equal(br->lpVtbl->GetOpcodeFlags(br, &flags), S_OK);
    assert_int_equal(flags, ILOpcodeFlag_Branch);
    assert_int_equal(br->lpVtbl->GetTerminationType(br, &term), S_OK);
    assert_int_equal(term, TerminationType_ConditionalBranch);
    assert_int_equal(br->lpVtbl->GetInstructionLength(br, &len), S_OK);
    assert_int_equal(len, 2);
    assert_int_equal(br->lpVtbl->GetIsBranch(br, &b), S_OK);
    assert_true(b);
    assert_int_equal(br->lpVtbl->GetIsFallThrough(br, &b), S_OK);
    assert_false(b);
    assert_int_equal(last->lpVtbl->GetTerminationType(last, &term), S_OK);
    assert_int_equal(term, TerminationType_Return);
    assert_int_equal(first->lpVtbl->GetIsFallThrough(first, &b), S_OK);
    assert_true(b);
    /* The branch target is the very object found at its offset. */
    IBranchInstruction *bi = NULL;
    assert_int_equal(br->lpVtbl->QueryInterface(br, &IID_IBranchInstruction, (void **)&bi), S_OK);
    IInstruction *target = NULL;
    assert_int_equal(bi->lpVtbl->GetBranchTarget(bi, &target), S_OK);
    assert_ptr_equal(target, x);
    assert_int_equal(bi->lpVtbl->GetTargetOffset(bi, &len), S_OK);
    assert_int_equal(len, 5);
    assert_int_equal(bi->lpVtbl->IsShortBranch(bi, &b), S_OK);
    assert_true(b);
    release(target);
    release(bi);
    release(br);
    release(x);
    release(prev);
    release(olast);
    release(first);
    release(ofirst);
    release(last);
    assert_false(clrie_pm_il_body_changed(f->body));
    expect_code(f, BYTES(0x02, 0x2D, 0x02, 0x17, 0x2A, 0x18, 0x2A));
}

static void query_interface_answers_what_the_operand_kind_fits(void **state)
{
    struct fixture *f = *state;
    /* ldarg.0; ldc.i4.s 5; switch (1) L; L: pop; ret */
    open_body_sig(f, TINY(0x02, 0x1F, 0x05, 0x45, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x26, 0x2A), sig_void,
                  sizeof(sig_void));
    IInstruction *ldarg = at(f, 0), *ldc = at(f, 1), *sw = at(f, 3);
    void *p = NULL;
    assert_int_equal(ldarg->lpVtbl->QueryInterface(ldarg, &IID_IOperandInstruction, &p),
                     E_NOINTERFACE);
    assert_null(p);
    assert_int_equal(ldarg->lpVtbl->QueryInterface(ldarg, &IID_IBranchInstruction, &p),
                     E_NOINTERFACE);
    assert_int_equal(ldc->lpVtbl->QueryInterface(ldc, &IID_ISwitchInstruction, &p), E_NOINTERFACE);
    assert_int_equal(sw->lpVtbl->QueryInterface(sw, &IID_IBranchInstruction, &p), E_NOINTERFACE);
    assert_int_equal(sw->lpVtbl->QueryInterface(sw, &IID_IOperandInstruction, &p), E_NOINTERFACE);
    assert_int_equal(ldarg->lpVtbl->QueryInterface(ldarg, NULL, &p), E_POINTER);
    assert_int_equal(ldarg->lpVtbl->QueryInterface(ldarg, &IID_IInstruction, NULL), E_POINTER);
    IOperandInstruction *op = NULL;
    assert_int_equal(ldc->lpVtbl->QueryInterface(ldc, &IID_IOperandInstruction, (void **)&op),
                     S_OK);
    IUnknown *unk = NULL;
    assert_int_equal(op->lpVtbl->QueryInterface(op, &IID_IUnknown, (void **)&unk), S_OK);
    assert_ptr_equal(unk, ldc); /* IUnknown is the IInstruction: identity holds */
    release(unk);
    ILOperandType type;
    assert_int_equal(op->lpVtbl->GetOperandType(op, &type), S_OK);
    assert_int_equal(type, ILOperandType_Byte);
    BYTE raw[8] = {0};
    assert_int_equal(op->lpVtbl->GetOperandValue(op, 1, raw), S_OK);
    assert_int_equal(raw[0], 5);
    assert_int_equal(op->lpVtbl->GetOperandValue(op, 0, raw), E_INVALIDARG);
    raw[0] = 0xF0; /* -16 */
    assert_int_equal(op->lpVtbl->SetOperandValue(op, 4, raw), E_INVALIDARG);
    assert_non_null(strstr(f->last_error, "SetOperandValue"));
    assert_int_equal(op->lpVtbl->SetOperandValue(op, 1, raw), S_OK);
    assert_true(clrie_pm_il_body_changed(f->body));
    ISwitchInstruction *si = NULL;
    assert_int_equal(sw->lpVtbl->QueryInterface(sw, &IID_ISwitchInstruction, (void **)&si), S_OK);
    /* Each object carries its own data container. */
    IDataContainer *dc = NULL;
    assert_int_equal(ldc->lpVtbl->QueryInterface(ldc, &IID_IDataContainer, (void **)&dc), S_OK);
    static const GUID component = {1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &component, (IUnknown *)ldarg), S_OK);
    IUnknown *item = NULL;
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &component, &item), S_OK);
    assert_ptr_equal(item, ldarg);
    release(item);
    IInstruction *back = NULL;
    assert_int_equal(dc->lpVtbl->QueryInterface(dc, &IID_IInstruction, (void **)&back), S_OK);
    assert_ptr_equal(back, ldc);
    release(back);
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &component, NULL), S_OK);
    release(dc);
    /* The operand interface stands for the instruction where an IInstruction is expected. */
    IInstruction *nop = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, (IInstruction *)(void *)op, nop),
                     S_OK);
    release(nop);
    release(si);
    release(op);
    release(ldarg);
    release(ldc);
    release(sw);
    expect_code(f, BYTES(0x02, 0x00, 0x1F, 0xF0, 0x45, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x26, 0x2A));
}

static void edits_move_branches_as_each_edit_says(void **state)
{
    struct fixture *f = *state;
    open_body(f, BRANCHY);
    IInstruction *ldc1 = at(f, 3), *ldc2 = at(f, 5);
    /* InsertBefore: the branch still reaches ldc.i4.2, skipping the new nop. */
    IInstruction *nop1 = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, ldc2, nop1), S_OK);
    expect_code(f, BYTES(0x02, 0x2D, 0x03, 0x17, 0x2A, 0x00, 0x18, 0x2A));
    /* InsertBeforeAndRetargetOffsets: the branch now enters at the new code. */
    IInstruction *nop2 = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBeforeAndRetargetOffsets(f->graph, ldc2, nop2), S_OK);
    expect_code(f, BYTES(0x02, 0x2D, 0x03, 0x17, 0x2A, 0x00, 0x00, 0x18, 0x2A));
    /* InsertAfter(NULL) puts the new instruction first. */
    IInstruction *head = make(f, Cee_Nop), *first = NULL;
    assert_int_equal(f->graph->lpVtbl->InsertAfter(f->graph, NULL, head), S_OK);
    assert_int_equal(f->graph->lpVtbl->GetFirstInstruction(f->graph, &first), S_OK);
    assert_ptr_equal(first, head);
    release(first);
    /* Replace: the new instruction takes ldc.i4.1's place; the old one is removed. */
    IInstruction *ldc3 = make(f, Cee_Ldc_I4_3);
    assert_int_equal(f->graph->lpVtbl->Replace(f->graph, ldc1, ldc3), S_OK);
    BOOL removed;
    assert_int_equal(ldc1->lpVtbl->GetIsRemoved(ldc1, &removed), S_OK);
    assert_true(removed);
    expect_code(f, BYTES(0x00, 0x02, 0x2D, 0x03, 0x19, 0x2A, 0x00, 0x00, 0x18, 0x2A));
    /* Remove retargets the branch to the next instruction (CLRIE left it dangling). */
    assert_int_equal(f->graph->lpVtbl->Remove(f->graph, nop2), S_OK);
    expect_code(f, BYTES(0x00, 0x02, 0x2D, 0x03, 0x19, 0x2A, 0x00, 0x18, 0x2A));
    IInstruction *target = NULL;
    IBranchInstruction *bi = NULL;
    IInstruction *br = at(f, 2);
    assert_int_equal(br->lpVtbl->QueryInterface(br, &IID_IBranchInstruction, (void **)&bi), S_OK);
    assert_int_equal(bi->lpVtbl->GetBranchTarget(bi, &target), S_OK);
    assert_ptr_equal(target, ldc2);
    /* New and removed instructions know what they are; the original list is unchanged. */
    BOOL is_new;
    InstructionGeneration gen;
    assert_int_equal(ldc3->lpVtbl->GetIsNew(ldc3, &is_new), S_OK);
    assert_true(is_new);
    assert_int_equal(ldc3->lpVtbl->GetInstructionGeneration(ldc3, &gen), S_OK);
    assert_int_equal(gen, Generation_New);
    DWORD orig = 99;
    assert_int_equal(ldc3->lpVtbl->GetOriginalOffset(ldc3, &orig), S_OK);
    assert_int_equal(orig, 0);
    IInstruction *onext = NULL;
    assert_int_equal(br->lpVtbl->GetOriginalNextInstruction(br, &onext), S_OK);
    assert_ptr_equal(onext, ldc1);
    assert_true(clrie_pm_il_body_changed(f->body));
    /* RemoveAll leaves an empty method. */
    assert_int_equal(f->graph->lpVtbl->RemoveAll(f->graph), S_OK);
    assert_int_equal(f->graph->lpVtbl->GetFirstInstruction(f->graph, &first), S_OK);
    assert_null(first);
    IEnumInstructions *e = NULL;
    DWORD count = 9;
    assert_int_equal(clrie_pm_il_body_enum_instructions(f->body, true, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 6);
    release(e);
    release(onext);
    release(target);
    release(bi);
    release(br);
    release(ldc1);
    release(ldc2);
    release(ldc3);
    release(nop1);
    release(nop2);
    release(head);
}

static void enumerators_snapshot_and_clone(void **state)
{
    struct fixture *f = *state;
    open_body(f, BRANCHY);
    IEnumInstructions *e = NULL, *c = NULL;
    assert_int_equal(clrie_pm_il_body_enum_instructions(f->body, false, &e), S_OK);
    IInstruction *got[4] = {NULL};
    ULONG fetched = 0;
    assert_int_equal(e->lpVtbl->Next(e, 2, got, &fetched), S_OK);
    assert_int_equal(fetched, 2);
    assert_int_equal(opcode_of(got[1]), Cee_Brtrue_S);
    release(got[0]);
    release(got[1]);
    assert_int_equal(e->lpVtbl->Clone(e, &c), S_OK);
    assert_int_equal(e->lpVtbl->Skip(e, 10), S_FALSE);
    assert_int_equal(c->lpVtbl->Next(c, 4, &got[0] + 0, &fetched), S_OK);
    assert_int_equal(opcode_of(got[0]), Cee_Ldc_I4_1);
    for (int i = 0; i < 4; i++)
        release(got[i]);
    assert_int_equal(c->lpVtbl->Next(c, 4, got, &fetched), S_FALSE);
    assert_int_equal(fetched, 0);
    assert_null(got[0]);
    assert_int_equal(c->lpVtbl->Reset(c), S_OK);
    assert_int_equal(c->lpVtbl->Next(c, 1, got, NULL), S_OK);
    assert_int_equal(opcode_of(got[0]), Cee_Ldarg_0);
    release(got[0]);
    release(c);
    release(e);
}

static void factory_helpers_choose_the_shortest_form(void **state)
{
    struct fixture *f = *state;
    open_body(f, TINY(0x2A));
    IInstructionFactory *fa = f->factory;
    static const struct {
        int value;
        ILOrdinalOpcode op;
    } ldc[] = {{-1, Cee_Ldc_I4_M1},  {8, Cee_Ldc_I4_8}, {9, Cee_Ldc_I4_S},  {127, Cee_Ldc_I4_S},
               {-128, Cee_Ldc_I4_S}, {128, Cee_Ldc_I4}, {-1000, Cee_Ldc_I4}};
    for (size_t k = 0; k < sizeof(ldc) / sizeof(ldc[0]); k++) {
        IInstruction *i = NULL;
        assert_int_equal(fa->lpVtbl->CreateLoadConstInstruction(fa, ldc[k].value, &i), S_OK);
        assert_int_equal(opcode_of(i), ldc[k].op);
        release(i);
    }
    typedef HRESULT(STDMETHODCALLTYPE * indexed)(IInstructionFactory *, USHORT, IInstruction **);
    static const struct {
        int helper; /* 0 ldloc, 1 stloc, 2 ldloca, 3 ldarg, 4 ldarga */
        USHORT index;
        ILOrdinalOpcode op;
        DWORD operand;
    } idx[] = {
        {0, 3, Cee_Ldloc_3, 0},   {0, 4, Cee_Ldloc_S, 4},      {0, 256, Cee_Ldloc, 256},
        {1, 0, Cee_Stloc_0, 0},   {1, 255, Cee_Stloc_S, 255},  {1, 300, Cee_Stloc, 300},
        {2, 2, Cee_Ldloca_S, 2},  {2, 4000, Cee_Ldloca, 4000}, {3, 1, Cee_Ldarg_1, 0},
        {3, 300, Cee_Ldarg, 300}, {4, 0, Cee_Ldarga_S, 0},     {4, 0x1234, Cee_Ldarga, 0x1234},
    };
    for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
        indexed fn = idx[k].helper == 0   ? fa->lpVtbl->CreateLoadLocalInstruction
                     : idx[k].helper == 1 ? fa->lpVtbl->CreateStoreLocalInstruction
                     : idx[k].helper == 2 ? fa->lpVtbl->CreateLoadLocalAddressInstruction
                     : idx[k].helper == 3 ? fa->lpVtbl->CreateLoadArgInstruction
                                          : fa->lpVtbl->CreateLoadArgAddressInstruction;
        IInstruction *i = NULL;
        assert_int_equal(fn(fa, idx[k].index, &i), S_OK);
        assert_int_equal(opcode_of(i), idx[k].op);
        IOperandInstruction *op = NULL;
        if (SUCCEEDED(i->lpVtbl->QueryInterface(i, &IID_IOperandInstruction, (void **)&op))) {
            BYTE raw[8] = {0};
            assert_int_equal(op->lpVtbl->GetOperandValue(op, sizeof(raw), raw), S_OK);
            assert_int_equal(raw[0] | raw[1] << 8, idx[k].operand); /* never truncated */
            release(op);
        }
        release(i);
    }
    /* 65535 is no local or argument number. */
    IInstruction *bad = (IInstruction *)1;
    assert_int_equal(fa->lpVtbl->CreateLoadArgInstruction(fa, 65535, &bad), E_INVALIDARG);
    assert_null(bad);
    /* Operand creation by kind, with the operand's size and bytes. */
    IInstruction *i4 = NULL, *i8 = NULL, *r4 = NULL, *r8 = NULL, *tok = NULL, *u16 = NULL,
                 *u8 = NULL;
    assert_int_equal(fa->lpVtbl->CreateIntOperandInstruction(fa, Cee_Ldc_I4, -5, &i4), S_OK);
    assert_int_equal(
        fa->lpVtbl->CreateLongOperandInstruction(fa, Cee_Ldc_I8, 0x0102030405060708, &i8), S_OK);
    assert_int_equal(fa->lpVtbl->CreateFloatOperandInstruction(fa, Cee_Ldc_R4, 1.5f, &r4), S_OK);
    assert_int_equal(fa->lpVtbl->CreateDoubleOperandInstruction(fa, Cee_Ldc_R8, -2.5, &r8), S_OK);
    assert_int_equal(fa->lpVtbl->CreateTokenOperandInstruction(fa, Cee_Ldstr, 0x70000001, &tok),
                     S_OK);
    assert_int_equal(fa->lpVtbl->CreateUShortOperandInstruction(fa, Cee_Ldarg, 0x1234, &u16), S_OK);
    assert_int_equal(fa->lpVtbl->CreateByteOperandInstruction(fa, Cee_Ldc_I4_S, 0xFE, &u8), S_OK);
    /* Wrong sizes and kinds are refused and reported. */
    assert_int_equal(fa->lpVtbl->CreateByteOperandInstruction(fa, Cee_Ldc_I4, 1, &bad),
                     E_INVALIDARG);
    assert_non_null(strstr(f->last_error, "CreateByteOperandInstruction"));
    assert_int_equal(fa->lpVtbl->CreateIntOperandInstruction(fa, Cee_Br, 1, &bad), E_INVALIDARG);
    assert_int_equal(fa->lpVtbl->CreateInstruction(fa, Cee_Unused49, &bad), E_INVALIDARG);
    assert_int_equal(fa->lpVtbl->CreateInstruction(fa, (ILOrdinalOpcode)0x5000, &bad),
                     E_INVALIDARG);
    assert_int_equal(fa->lpVtbl->CreateInstruction(fa, Cee_Nop, NULL), E_POINTER);
    /* All of it, before the ret: exact bytes. */
    IInstruction *ret = at(f, 0);
    IInstruction *seq[] = {i4, i8, r4, r8, tok, u16, u8};
    for (size_t k = 0; k < 7; k++)
        assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, ret, seq[k]), S_OK);
    static const uint8_t want[] = {
        0x20, 0xFB, 0xFF, 0xFF, 0xFF,                         /* ldc.i4 -5 */
        0x21, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* ldc.i8 */
        0x22, 0x00, 0x00, 0xC0, 0x3F,                         /* ldc.r4 1.5 */
        0x23, 0,    0,    0,    0,    0,    0,    0x04, 0xC0, /* ldc.r8 -2.5 */
        0x72, 0x01, 0x00, 0x00, 0x70,                         /* ldstr */
        0xFE, 0x09, 0x34, 0x12,                               /* ldarg 0x1234 */
        0x1F, 0xFE,                                           /* ldc.i4.s -2 */
        0x2A};
    struct clrie_il_graph *g = clrie_pm_il_body_ilgraph(f->body);
    uint8_t *code;
    size_t len;
    assert_int_equal(clrie_il_graph_encode_code(g, 0, &code, &len, NULL), 0);
    assert_int_equal(len, sizeof(want));
    assert_memory_equal(code, want, len);
    free(code);
    for (size_t k = 0; k < 7; k++)
        release(seq[k]);
    release(ret);
}

static void switch_and_branch_targets_are_edited_by_instruction(void **state)
{
    struct fixture *f = *state;
    /* ldarg.0; switch (L0, L1); L2: ldc.i4.0 ret; L0: ldc.i4.1 ret; L1: ldc.i4.2 ret */
    open_body(f, TINY(0x02, 0x45, 0x02, 0, 0, 0, 0x02, 0, 0, 0, 0x04, 0, 0, 0, 0x16, 0x2A, 0x17,
                      0x2A, 0x18, 0x2A));
    IInstruction *sw = at(f, 1), *l0 = at(f, 16), *l1 = at(f, 18), *l2 = at(f, 14);
    ISwitchInstruction *si = NULL;
    assert_int_equal(sw->lpVtbl->QueryInterface(sw, &IID_ISwitchInstruction, (void **)&si), S_OK);
    DWORD count, off;
    assert_int_equal(si->lpVtbl->GetBranchCount(si, &count), S_OK);
    assert_int_equal(count, 2);
    IInstruction *t = NULL;
    assert_int_equal(si->lpVtbl->GetBranchTarget(si, 0, &t), S_OK);
    assert_ptr_equal(t, l0);
    release(t);
    assert_int_equal(si->lpVtbl->GetBranchOffset(si, 1, &off), S_OK);
    assert_int_equal(off, 18);
    assert_int_equal(si->lpVtbl->GetBranchTarget(si, 2, &t), E_INVALIDARG);
    assert_null(t);
    assert_non_null(strstr(f->last_error, "index 2"));
    assert_int_equal(si->lpVtbl->SetBranchTarget(si, 5, l0), E_INVALIDARG);
    assert_int_equal(si->lpVtbl->SetBranchTarget(si, 0, NULL), E_POINTER);
    /* Both targets to L1, then every L1 to L2: the switch is (L2, L2). */
    assert_int_equal(si->lpVtbl->SetBranchTarget(si, 0, l1), S_OK);
    assert_int_equal(si->lpVtbl->ReplaceBranchTarget(si, l1, l2), S_OK);
    expect_code(f, BYTES(0x02, 0x45, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16, 0x2A, 0x17, 0x2A,
                         0x18, 0x2A));
    assert_int_equal(si->lpVtbl->RemoveBranchTargetAt(si, 1), S_OK);
    assert_int_equal(si->lpVtbl->RemoveBranchTargetAt(si, 1), E_INVALIDARG);
    assert_int_equal(si->lpVtbl->SetBranchTarget(si, 0, l1), S_OK);
    assert_int_equal(si->lpVtbl->RemoveBranchTarget(si, l0), S_FALSE);
    assert_int_equal(si->lpVtbl->RemoveBranchTarget(si, l1), S_OK);
    assert_int_equal(si->lpVtbl->GetBranchCount(si, &count), S_OK);
    assert_int_equal(count, 0);
    expect_code(f, BYTES(0x02, 0x45, 0, 0, 0, 0, 0x16, 0x2A, 0x17, 0x2A, 0x18, 0x2A));

    /* A new branch: the encoder picks the short form; ExpandBranch pins the long one. */
    IInstruction *br = NULL;
    IInstructionFactory *fa = f->factory;
    assert_int_equal(fa->lpVtbl->CreateBranchInstruction(fa, Cee_Br, l1, &br), S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, l2, br), S_OK);
    IBranchInstruction *bi = NULL;
    assert_int_equal(br->lpVtbl->QueryInterface(br, &IID_IBranchInstruction, (void **)&bi), S_OK);
    BOOL is_short;
    assert_int_equal(bi->lpVtbl->IsShortBranch(bi, &is_short), S_OK);
    assert_true(is_short);
    expect_code(f, BYTES(0x02, 0x45, 0, 0, 0, 0, 0x2B, 0x04, 0x16, 0x2A, 0x17, 0x2A, 0x18, 0x2A));
    assert_int_equal(bi->lpVtbl->GetTargetOffset(bi, &off), S_OK);
    assert_int_equal(off, 12);
    assert_int_equal(bi->lpVtbl->ExpandBranch(bi), S_OK);
    assert_int_equal(bi->lpVtbl->IsShortBranch(bi, &is_short), S_OK);
    assert_false(is_short);
    expect_code(
        f, BYTES(0x02, 0x45, 0, 0, 0, 0, 0x38, 0x04, 0, 0, 0, 0x16, 0x2A, 0x17, 0x2A, 0x18, 0x2A));
    assert_int_equal(bi->lpVtbl->SetBranchTarget(bi, l0), S_OK);
    expect_code(
        f, BYTES(0x02, 0x45, 0, 0, 0, 0, 0x38, 0x02, 0, 0, 0, 0x16, 0x2A, 0x17, 0x2A, 0x18, 0x2A));
    /* ExpandBranches widens the original code's short branches too (none left here). */
    assert_int_equal(f->graph->lpVtbl->ExpandBranches(f->graph), S_OK);
    /* A switch from the factory. */
    IInstruction *targets[2] = {l0, l1}, *sw2 = NULL;
    assert_int_equal(fa->lpVtbl->CreateSwitchInstruction(fa, Cee_Switch, 2, targets, &sw2), S_OK);
    assert_int_equal(fa->lpVtbl->CreateSwitchInstruction(fa, Cee_Br, 2, targets, &t), E_INVALIDARG);
    assert_int_equal(f->graph->lpVtbl->Replace(f->graph, sw, sw2), S_OK);
    expect_code(f, BYTES(0x02, 0x45, 0x02, 0, 0, 0, 0x07, 0, 0, 0, 0x09, 0, 0, 0, 0x38, 0x02, 0, 0,
                         0, 0x16, 0x2A, 0x17, 0x2A, 0x18, 0x2A));
    release(sw2);
    release(bi);
    release(br);
    release(si);
    release(sw);
    release(l0);
    release(l1);
    release(l2);
}

/* nop; leave.s 4; endfinally; leave.s 7; endfinally; ret, with an inner try/finally
 * [0,3) [3,4) and an outer one [0,6) [6,7) (fat header, small EH section). */
static const uint8_t nested_finally[] = {
    0x0B, 0x30, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* fat header */
    0x00, 0xDE, 0x01, 0xDC, 0xDE, 0x01, 0xDC, 0x2A,                         /* code */
    0x01, 0x1C, 0x00, 0x00,                                                 /* small EH */
    0x02, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* inner */
    0x02, 0x00, 0x00, 0x00, 0x06, 0x06, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* outer */
};

/* The clauses in table order (AddRef'd), count returned. */
static size_t clauses(struct fixture *f, IExceptionClause **out, size_t max)
{
    IEnumExceptionClauses *e = NULL;
    assert_int_equal(f->eh->lpVtbl->GetExceptionClauses(f->eh, &e), S_OK);
    ULONG n = 0;
    DWORD count = 0;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_true(count <= max);
    e->lpVtbl->Next(e, (ULONG)max, out, &n);
    assert_int_equal(n, count);
    release(e);
    return n;
}

static DWORD clause_offset(IExceptionClause *c, bool try_last)
{
    IInstruction *i = NULL;
    if (try_last)
        assert_int_equal(c->lpVtbl->GetTryLastInstruction(c, &i), S_OK);
    else
        assert_int_equal(c->lpVtbl->GetTryFirstInstruction(c, &i), S_OK);
    DWORD off = offset_of(i);
    release(i);
    return off;
}

static void exception_clauses_follow_edits_and_keep_nesting_order(void **state)
{
    struct fixture *f = *state;
    open_body_sig(f, nested_finally, sizeof(nested_finally), sig_void, sizeof(sig_void));
    IExceptionClause *c[4] = {NULL};
    assert_int_equal(clauses(f, c, 4), 2);
    DWORD flags;
    assert_int_equal(c[0]->lpVtbl->GetFlags(c[0], &flags), S_OK);
    assert_int_equal(flags, CLRIE_IL_EH_FINALLY);
    assert_int_equal(clause_offset(c[0], true), 1);
    assert_int_equal(clause_offset(c[1], true), 4);
    IExceptionClause *inner = c[0], *outer = c[1];
    IMethodInfo *mi = (IMethodInfo *)1;
    assert_int_equal(f->eh->lpVtbl->GetMethodInfo(f->eh, &mi), E_FAIL);

    /* InsertBefore leaves the try starting at the old first instruction ... */
    IInstruction *nop = at(f, 0), *n1 = make(f, Cee_Nop), *n2 = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, nop, n1), S_OK);
    IInstruction *first = NULL;
    assert_int_equal(inner->lpVtbl->GetTryFirstInstruction(inner, &first), S_OK);
    assert_ptr_equal(first, nop);
    release(first);
    /* ... InsertBeforeAndRetargetOffsets moves both try starts to the new code. */
    assert_int_equal(f->graph->lpVtbl->InsertBeforeAndRetargetOffsets(f->graph, nop, n2), S_OK);
    assert_int_equal(inner->lpVtbl->GetTryFirstInstruction(inner, &first), S_OK);
    assert_ptr_equal(first, n2);
    release(first);
    assert_int_equal(clause_offset(outer, false), 1);
    expect_code(f, BYTES(0x00, 0x00, 0x00, 0xDE, 0x01, 0xDC, 0xDE, 0x01, 0xDC, 0x2A));

    /* AddExceptionClause appends: put back after the outer one, the order is wrong. */
    assert_int_equal(f->eh->lpVtbl->RemoveExceptionClause(f->eh, inner), S_OK);
    assert_int_equal(f->eh->lpVtbl->RemoveExceptionClause(f->eh, inner), E_INVALIDARG);
    assert_int_equal(clauses(f, c, 4), 1);
    release(c[0]);
    assert_int_equal(f->eh->lpVtbl->AddExceptionClause(f->eh, inner), S_OK);
    assert_int_equal(f->eh->lpVtbl->AddExceptionClause(f->eh, inner), E_INVALIDARG);
    assert_int_equal(clauses(f, c, 4), 2);
    assert_ptr_equal(c[0], outer);
    assert_ptr_equal(c[1], inner); /* the same object stands for the clause again */
    release(c[0]);
    release(c[1]);
    assert_int_equal(
        clrie_il_graph_verify(clrie_pm_il_body_ilgraph(f->body), resolve, f, NULL, NULL), -EILSEQ);

    /* AddNewExceptionClause finds the place: outer first, then inner, gives inner, outer. */
    assert_int_equal(f->eh->lpVtbl->RemoveAllExceptionClauses(f->eh), S_OK);
    assert_int_equal(clauses(f, c, 4), 0);
    IInstruction *l1 = at(f, 3), *ef1 = at(f, 5), *l2 = at(f, 6), *ef2 = at(f, 8);
    IExceptionClause *o = NULL, *i = NULL;
    assert_int_equal(f->eh->lpVtbl->AddNewExceptionClause(f->eh, CLRIE_IL_EH_FINALLY, n2, l2, ef2,
                                                          ef2, NULL, 0, &o),
                     S_OK);
    assert_int_equal(f->eh->lpVtbl->AddNewExceptionClause(f->eh, CLRIE_IL_EH_FINALLY, n2, l1, ef1,
                                                          ef1, NULL, 0, &i),
                     S_OK);
    assert_int_equal(clauses(f, c, 4), 2);
    assert_ptr_equal(c[0], i);
    assert_ptr_equal(c[1], o);
    release(c[0]);
    release(c[1]);
    expect_code(f, BYTES(0x00, 0x00, 0x00, 0xDE, 0x01, 0xDC, 0xDE, 0x01, 0xDC, 0x2A));

    /* Setters. A removed clause takes none. */
    assert_int_equal(inner->lpVtbl->SetTryFirstInstruction(inner, nop), E_UNEXPECTED);
    assert_non_null(strstr(f->last_error, "no longer in the method"));
    assert_int_equal(i->lpVtbl->SetTryFirstInstruction(i, nop), S_OK);
    assert_int_equal(clause_offset(i, false), 2);
    assert_int_equal(i->lpVtbl->SetFlags(i, CLRIE_IL_EH_FILTER), E_INVALIDARG);
    assert_int_equal(i->lpVtbl->SetFilterFirstInstruction(i, nop), S_OK); /* kept for SetFlags */
    assert_int_equal(i->lpVtbl->SetFlags(i, CLRIE_IL_EH_FILTER), S_OK);
    IInstruction *filter = NULL;
    assert_int_equal(i->lpVtbl->GetFilterFirstInstruction(i, &filter), S_OK);
    assert_ptr_equal(filter, nop);
    release(filter);
    assert_int_equal(i->lpVtbl->SetFlags(i, CLRIE_IL_EH_CATCH), S_OK);
    assert_int_equal(i->lpVtbl->SetExceptionHandlerType(i, 0x01000007), S_OK);
    mdToken tok;
    assert_int_equal(i->lpVtbl->GetExceptionHandlerType(i, &tok), S_OK);
    assert_int_equal(tok, 0x01000007);
    assert_int_equal(i->lpVtbl->GetFilterFirstInstruction(i, &filter), S_OK);
    assert_null(filter);
    assert_int_equal(i->lpVtbl->SetHandlerLastInstruction(i, NULL), E_POINTER);

    /* A removed instruction cannot bound a clause. */
    assert_int_equal(f->graph->lpVtbl->Remove(f->graph, n1), S_OK);
    IExceptionClause *bad = NULL;
    assert_int_equal(f->eh->lpVtbl->AddNewExceptionClause(f->eh, CLRIE_IL_EH_FAULT, n1, l1, ef1,
                                                          ef1, NULL, 0, &bad),
                     E_INVALIDARG);
    assert_null(bad);
    assert_int_equal(f->eh->lpVtbl->AddNewExceptionClause(f->eh, CLRIE_IL_EH_FILTER, n2, l1, ef1,
                                                          ef1, NULL, 0, &bad),
                     E_POINTER);
    release(o);
    release(i);
    release(inner);
    release(outer);
    release(nop);
    release(n1);
    release(n2);
    release(l1);
    release(l2);
    release(ef1);
    release(ef2);
}

/* `br T` inserted before T with InsertBeforeAndRetargetOffsets: the branch that reached T
 * reaches the new br, which still jumps to T (it used to jump to itself: a hang). */
static void a_retargeting_insert_leaves_the_new_branch_on_its_target(void **state)
{
    struct fixture *f = *state;
    open_body(f, BRANCHY);
    IInstruction *ldc2 = at(f, 5), *br = NULL, *target = NULL;
    assert_int_equal(f->factory->lpVtbl->CreateBranchInstruction(f->factory, Cee_Br_S, ldc2, &br),
                     S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertBeforeAndRetargetOffsets(f->graph, ldc2, br), S_OK);
    IBranchInstruction *bi = NULL;
    assert_int_equal(br->lpVtbl->QueryInterface(br, &IID_IBranchInstruction, (void **)&bi), S_OK);
    assert_int_equal(bi->lpVtbl->GetBranchTarget(bi, &target), S_OK);
    assert_ptr_equal(target, ldc2);
    /* ldarg.0; brtrue.s BR; ldc.i4.1; ret; BR: br.s L; L: ldc.i4.2; ret */
    expect_code(f, BYTES(0x02, 0x2D, 0x02, 0x17, 0x2A, 0x2B, 0x00, 0x18, 0x2A));
    release(target);
    release(bi);
    release(br);
    release(ldc2);
}

/* The case: a body that is one ret, the ret replaced by a nop, then a clause naming the
 * old ret. CLRIE accepts it and starts the try at the replacement; so do branch targets. */
static void a_replaced_instruction_names_its_replacement(void **state)
{
    struct fixture *f = *state;
    open_body_sig(f, TINY(0x2A), sig_void, sizeof(sig_void));
    IInstruction *ret = at(f, 0), *nop = make(f, Cee_Nop), *fin = make(f, Cee_Endfinally);
    IInstruction *last = make(f, Cee_Ret);
    assert_int_equal(f->graph->lpVtbl->Replace(f->graph, ret, nop), S_OK);
    IInstruction *leave = NULL;
    assert_int_equal(
        f->factory->lpVtbl->CreateBranchInstruction(f->factory, Cee_Leave_S, ret, &leave), S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertAfter(f->graph, nop, leave), S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertAfter(f->graph, leave, fin), S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertAfter(f->graph, fin, last), S_OK);
    /* The leave was created aimed at the old ret: it now aims at the nop; aim it at the end. */
    IBranchInstruction *bi = NULL;
    IInstruction *target = NULL;
    assert_int_equal(leave->lpVtbl->QueryInterface(leave, &IID_IBranchInstruction, (void **)&bi),
                     S_OK);
    assert_int_equal(bi->lpVtbl->GetBranchTarget(bi, &target), S_OK);
    assert_ptr_equal(target, nop);
    release(target);
    assert_int_equal(bi->lpVtbl->SetBranchTarget(bi, last), S_OK);

    IExceptionClause *c = NULL;
    assert_int_equal(f->eh->lpVtbl->AddNewExceptionClause(f->eh, CLRIE_IL_EH_FINALLY, ret, leave,
                                                          fin, fin, NULL, 0, &c),
                     S_OK);
    /* The try starts at the nop; asked, the clause names the instruction it was given, as
     * CLRIE's does. */
    IInstruction *first = NULL;
    assert_int_equal(c->lpVtbl->GetTryFirstInstruction(c, &first), S_OK);
    assert_ptr_equal(first, ret);
    release(first);
    struct clrie_il_graph *g = clrie_pm_il_body_ilgraph(f->body);
    struct clrie_il_clause_info info;
    clrie_il_clause_get(clrie_il_graph_clause(g, 0), &info);
    assert_ptr_equal(info.try_first, clrie_il_graph_first(g));
    assert_int_equal(c->lpVtbl->SetHandlerFirstInstruction(c, fin), S_OK);
    assert_int_equal(c->lpVtbl->SetTryLastInstruction(c, ret), S_OK); /* the nop, again */
    assert_int_equal(c->lpVtbl->GetTryLastInstruction(c, &first), S_OK);
    assert_ptr_equal(first, ret);
    release(first);
    assert_int_equal(c->lpVtbl->SetTryLastInstruction(c, leave), S_OK);
    /* try { nop; leave.s END } finally { endfinally } END: ret */
    expect_code(f, BYTES(0x00, 0xDE, 0x01, 0xDC, 0x2A));
    /* Once an edit moves the boundary on, the clause names where it is. */
    IInstruction *head = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBeforeAndRetargetOffsets(f->graph, nop, head), S_OK);
    assert_int_equal(c->lpVtbl->GetTryFirstInstruction(c, &first), S_OK);
    assert_ptr_equal(first, head);
    release(first);
    release(head);
    /* Edits still refuse the replaced instruction as the place to insert at, as CLRIE does. */
    IInstruction *extra = make(f, Cee_Nop);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, ret, extra), E_UNEXPECTED);
    release(extra);
    release(c);
    release(bi);
    release(leave);
    release(last);
    release(fin);
    release(nop);
    release(ret);
}

static void decoded_byte_streams_are_new_code_to_insert(void **state)
{
    struct fixture *f = *state;
    open_body_sig(f, TINY(0x2A), sig_void, sizeof(sig_void));
    IInstructionFactory *fa = f->factory;
    IInstructionGraph *frag = NULL;
    /* ldc.i4.5; pop; br.s +0; nop */
    static const uint8_t code[] = {0x1B, 0x26, 0x2B, 0x00, 0x00};
    assert_int_equal(fa->lpVtbl->DecodeInstructionByteStream(fa, sizeof(code), code, &frag), S_OK);
    IMethodInfo *mi = (IMethodInfo *)1;
    assert_int_equal(frag->lpVtbl->GetMethodInfo(frag, &mi), E_FAIL);
    assert_null(mi);
    IInstruction *nodes[4], *end = NULL, *br = NULL;
    assert_int_equal(frag->lpVtbl->GetFirstInstruction(frag, &nodes[0]), S_OK);
    for (int k = 1; k < 4; k++)
        nodes[k] = next_of(nodes[k - 1]);
    assert_int_equal(nodes[3]->lpVtbl->GetNextInstruction(nodes[3], &end), E_FAIL);
    assert_int_equal(frag->lpVtbl->GetLastInstruction(frag, &end), S_OK);
    assert_ptr_equal(end, nodes[3]);
    release(end);
    assert_int_equal(frag->lpVtbl->GetInstructionAtOffset(frag, 2, &br), S_OK);
    assert_ptr_equal(br, nodes[2]);
    IBranchInstruction *bi = NULL;
    IInstruction *target = NULL;
    assert_int_equal(br->lpVtbl->QueryInterface(br, &IID_IBranchInstruction, (void **)&bi), S_OK);
    assert_int_equal(bi->lpVtbl->GetBranchTarget(bi, &target), S_OK);
    assert_ptr_equal(target, nodes[3]);
    release(target);
    release(bi);
    release(br);
    InstructionGeneration gen;
    assert_int_equal(nodes[0]->lpVtbl->GetInstructionGeneration(nodes[0], &gen), S_OK);
    assert_int_equal(gen, Generation_New);
    BOOL set = TRUE;
    assert_int_equal(frag->lpVtbl->HasBaselineBeenSet(frag, &set), S_OK);
    assert_false(set);
    /* The view only reads; the method's graph takes the instructions. */
    IInstruction *ret = at(f, 0);
    assert_int_equal(frag->lpVtbl->InsertBefore(frag, nodes[0], nodes[1]), E_NOTIMPL);
    assert_int_equal(frag->lpVtbl->RemoveAll(frag), E_NOTIMPL);
    for (int k = 0; k < 4; k++)
        assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, ret, nodes[k]), S_OK);
    assert_int_equal(f->graph->lpVtbl->InsertBefore(f->graph, ret, nodes[0]), E_UNEXPECTED);
    assert_non_null(strstr(f->last_error, "already in the method"));
    IInstruction *after = next_of(nodes[3]);
    assert_ptr_equal(after, ret); /* placed: its neighbours are the method's */
    release(after);
    expect_code(f, BYTES(0x1B, 0x26, 0x2B, 0x00, 0x00, 0x2A));
    for (int k = 0; k < 4; k++)
        release(nodes[k]);
    release(ret);
    release(frag);
    /* Malformed streams: an unused opcode, a branch out of the bytes. */
    int errors = f->errors;
    static const uint8_t unused_opcode[] = {0x24};
    assert_int_equal(fa->lpVtbl->DecodeInstructionByteStream(fa, 1, unused_opcode, &frag), E_FAIL);
    assert_int_equal(f->errors, errors + 1);
    assert_non_null(strstr(f->last_error, "DecodeInstructionByteStream"));
    static const uint8_t out_of_range[] = {0x2B, 0x05};
    assert_int_equal(
        fa->lpVtbl->DecodeInstructionByteStream(fa, sizeof(out_of_range), out_of_range, &frag),
        E_FAIL);
    assert_int_equal(fa->lpVtbl->DecodeInstructionByteStream(fa, 1, NULL, &frag), E_POINTER);
}

static void create_baseline_replaces_the_code_once_before_instrumentation(void **state)
{
    struct fixture *f = *state;
    open_body(f, BRANCHY);
    IInstructionGraph *g = f->graph;
    static const uint8_t code[] = {0x00, 0x17, 0x2A};
    COR_IL_MAP map[] = {{0, 1, TRUE}, {4, 2, TRUE}};
    DWORD seq[] = {0, 1};
    IInstruction *x = NULL;
    /* Before the baseline, the uninstrumented view is the original one. */
    assert_int_equal(g->lpVtbl->GetUninstrumentedFirstInstruction(g, &x), S_FALSE);
    assert_null(x);
    assert_int_equal(g->lpVtbl->GetInstructionAtUninstrumentedOffset(g, 3, &x), S_OK);
    assert_int_equal(opcode_of(x), Cee_Ldc_I4_1);
    release(x);
    IInstruction *old_first = at(f, 0);

    assert_int_equal(g->lpVtbl->CreateBaseline(g, code, code + 3, 2, map, 2, seq), E_FAIL);
    assert_non_null(strstr(f->last_error, "BeforeInstrumentMethod"));
    clrie_pm_il_body_allow_baseline(f->body, true);
    assert_int_equal(g->lpVtbl->CreateBaseline(g, code, code, 0, NULL, 0, NULL), E_INVALIDARG);
    assert_int_equal(g->lpVtbl->CreateBaseline(g, code, code + 3, 2, NULL, 0, NULL), E_POINTER);
    static const uint8_t malformed[] = {0x24};
    assert_int_equal(g->lpVtbl->CreateBaseline(g, malformed, malformed + 1, 0, NULL, 0, NULL),
                     E_FAIL); /* malformed: nothing changes */
    BOOL set = TRUE;
    assert_int_equal(g->lpVtbl->HasBaselineBeenSet(g, &set), S_OK);
    assert_false(set);
    assert_int_equal(g->lpVtbl->CreateBaseline(g, code, code + 3, 2, map, 2, seq), S_OK);
    assert_int_equal(g->lpVtbl->HasBaselineBeenSet(g, &set), S_OK);
    assert_true(set);
    assert_int_equal(g->lpVtbl->CreateBaseline(g, code, code + 3, 2, map, 2, seq), E_FAIL);
    assert_non_null(strstr(f->last_error, "already"));
    clrie_pm_il_body_allow_baseline(f->body, false);

    /* The baseline is the method now, and its "original" code. */
    IInstruction *first = NULL, *ofirst = NULL, *ufirst = NULL, *ulast = NULL;
    assert_int_equal(g->lpVtbl->GetFirstInstruction(g, &first), S_OK);
    assert_int_equal(g->lpVtbl->GetOriginalFirstInstruction(g, &ofirst), S_OK);
    assert_ptr_equal(first, ofirst);
    InstructionGeneration gen;
    assert_int_equal(first->lpVtbl->GetInstructionGeneration(first, &gen), S_OK);
    assert_int_equal(gen, Generation_Baseline);
    assert_int_equal(opcode_of(first), Cee_Nop);
    /* The code it replaced stays reachable as "uninstrumented", all of it removed. */
    assert_int_equal(g->lpVtbl->GetUninstrumentedFirstInstruction(g, &ufirst), S_OK);
    assert_ptr_equal(ufirst, old_first);
    assert_int_equal(g->lpVtbl->GetUninstrumentedLastInstruction(g, &ulast), S_OK);
    assert_int_equal(opcode_of(ulast), Cee_Ret);
    BOOL removed;
    assert_int_equal(ufirst->lpVtbl->GetIsRemoved(ufirst, &removed), S_OK);
    assert_true(removed);
    assert_int_equal(ufirst->lpVtbl->GetInstructionGeneration(ufirst, &gen), S_OK);
    assert_int_equal(gen, Generation_Original);
    /* Uninstrumented offsets go through the plugin's map, exact matches only. */
    assert_int_equal(g->lpVtbl->GetInstructionAtUninstrumentedOffset(g, 0, &x), S_OK);
    assert_int_equal(opcode_of(x), Cee_Ldc_I4_1);
    release(x);
    assert_int_equal(g->lpVtbl->GetInstructionAtUninstrumentedOffset(g, 3, &x), E_FAIL);
    /* Old instructions cannot be edited into the baseline. */
    assert_int_equal(g->lpVtbl->InsertBefore(g, first, ufirst), E_UNEXPECTED);
    struct il_body_baseline b;
    assert_true(clrie_pm_il_body_baseline(f->body, &b));
    assert_int_equal(b.map_count, 2);
    assert_int_equal(b.original_to_baseline[1].oldOffset, 4);
    assert_int_equal(b.sequence_point_count, 2);
    assert_true(clrie_pm_il_body_changed(f->body));
    expect_code(f, BYTES(0x00, 0x17, 0x2A));
    release(first);
    release(ofirst);
    release(ufirst);
    release(ulast);
    release(old_first);
}

static ISingleRetDefaultInstrumentation2 *single_ret(struct fixture *f)
{
    ISingleRetDefaultInstrumentation2 *sr = clrie_pm_il_body_single_ret(f->body);
    assert_int_equal(sr->lpVtbl->Initialize(sr, f->graph), S_OK);
    return sr;
}

static void single_ret_void_branches_to_one_final_ret(void **state)
{
    struct fixture *f = *state;
    /* ldc.i4.0; brtrue.s L; ret; L: ret */
    open_body_sig(f, TINY(0x16, 0x2D, 0x01, 0x2A, 0x2A), sig_void, sizeof(sig_void));
    ISingleRetDefaultInstrumentation2 *sr = clrie_pm_il_body_single_ret(f->body);
    assert_int_equal(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr), E_UNEXPECTED);
    assert_int_equal(sr->lpVtbl->Initialize(sr, NULL), E_POINTER);
    sr = single_ret(f);
    ISingleRetDefaultInstrumentation *v1 = NULL;
    assert_int_equal(
        sr->lpVtbl->QueryInterface(sr, &IID_ISingleRetDefaultInstrumentation, (void **)&v1), S_OK);
    assert_int_equal(v1->lpVtbl->ApplySingleRetDefaultInstrumentation(v1), S_OK);
    release(v1);
    expect_code(f, BYTES(0x16, 0x2D, 0x02, 0x2B, 0x02, 0x2B, 0x00, 0x2A));
    IInstruction *exit = NULL;
    assert_int_equal(sr->lpVtbl->GetBranchTargetInstruction(sr, &exit), S_OK);
    assert_int_equal(offset_of(exit), 7);
    assert_int_equal(opcode_of(exit), Cee_Ret);
    release(exit);
    assert_int_equal(f->locals.sets, 0);
}

static void single_ret_int_keeps_the_value_in_a_new_local(void **state)
{
    struct fixture *f = *state;
    memcpy(f->locals.sig, "\x07\x01\x08", 3); /* one int32 local already */
    f->locals.len = 3;
    /* ldc.i4.1; ldc.i4.0; brtrue.s L; ret; L: ret */
    open_body(f, TINY(0x17, 0x16, 0x2D, 0x01, 0x2A, 0x2A));
    ISingleRetDefaultInstrumentation2 *sr = single_ret(f);
    assert_int_equal(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr), S_OK);
    /* stloc.1 before each branch, ldloc.1 before the final ret. */
    expect_code(f, BYTES(0x17, 0x16, 0x2D, 0x03, 0x0B, 0x2B, 0x03, 0x0B, 0x2B, 0x00, 0x07, 0x2A));
    assert_int_equal(f->locals.sets, 1);
    assert_int_equal(f->locals.len, 4);
    assert_memory_equal(f->locals.sig, "\x07\x02\x08\x08", 4);
    IInstruction *exit = NULL;
    assert_int_equal(sr->lpVtbl->GetBranchTargetInstruction(sr, &exit), S_OK);
    assert_int_equal(opcode_of(exit), Cee_Ldloc_1);
    release(exit);
}

static void single_ret_byref_keeps_the_value_on_the_stack(void **state)
{
    struct fixture *f = *state;
    static const uint8_t sig_byref[] = {0x00, 0x00, 0x10, 0x08};
    /* ldc.i4.0; brtrue.s L; ldnull; ret; L: ldnull; ret */
    open_body_sig(f, TINY(0x16, 0x2D, 0x02, 0x14, 0x2A, 0x14, 0x2A), sig_byref, sizeof(sig_byref));
    ISingleRetDefaultInstrumentation2 *sr = single_ret(f);
    assert_int_equal(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr), S_OK);
    expect_code(f, BYTES(0x16, 0x2D, 0x03, 0x14, 0x2B, 0x03, 0x14, 0x2B, 0x00, 0x2A));
    assert_int_equal(f->locals.sets, 0);
}

static void single_ret_leaves_a_tail_call_alone(void **state)
{
    struct fixture *f = *state;
    /* ldc.i4.0; brtrue.s L; tail. call 0A000001; ret; L: ret */
    open_body_sig(f, TINY(0x16, 0x2D, 0x08, 0xFE, 0x14, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x2A, 0x2A),
                  sig_void, sizeof(sig_void));
    ISingleRetDefaultInstrumentation2 *sr = single_ret(f);
    assert_int_equal(sr->lpVtbl->ApplySingleRetDefaultInstrumentation(sr), S_OK);
    IInstruction *exit = (IInstruction *)1;
    assert_int_equal(sr->lpVtbl->GetBranchTargetInstruction(sr, &exit), S_FALSE);
    assert_null(exit);
    assert_false(clrie_pm_il_body_changed(f->body));
    expect_code(f, BYTES(0x16, 0x2D, 0x08, 0xFE, 0x14, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x2A, 0x2A));
}

static void misuse_returns_errors_and_is_reported(void **state)
{
    struct fixture *f = *state;
    /* A malformed body: logged with its offset, no body. */
    struct il_body_params p = {.outer = &f->outer.iface, .log = &f->log};
    struct il_body *broken = (struct il_body *)1;
    assert_int_equal(clrie_pm_il_body_new(&p, BYTES(0x1E, 0x02), &broken), E_FAIL);
    assert_null(broken);
    assert_non_null(strstr(f->last_error, "malformed at byte"));

    open_body_sig(f, TINY(0x00, 0x2A), sig_void, sizeof(sig_void));
    IInstructionGraph *g = f->graph;
    IInstruction *ldc = at(f, 0), *ret = at(f, 1), *nop = make(f, Cee_Nop);
    IInstruction *x = NULL;
    assert_int_equal(g->lpVtbl->GetFirstInstruction(g, NULL), E_POINTER);
    assert_int_equal(g->lpVtbl->InsertBefore(g, NULL, nop), E_POINTER);
    assert_int_equal(g->lpVtbl->InsertAfter(g, ret, NULL), E_POINTER);
    assert_int_equal(g->lpVtbl->Remove(g, NULL), E_POINTER);
    /* Not an instruction of this engine. */
    assert_int_equal(g->lpVtbl->InsertBefore(g, ret, (IInstruction *)&f->outer.iface),
                     E_INVALIDARG);
    assert_non_null(strstr(f->last_error, "not made by this engine"));
    /* An instruction of another method. */
    struct il_body *other = NULL;
    struct il_body_params po = {.outer = &f->outer.iface, .log = &f->log};
    assert_int_equal(clrie_pm_il_body_new(&po, TINY(0x00, 0x2A), &other), S_OK);
    IInstructionFactory *ofa = clrie_pm_il_body_factory(other);
    IInstruction *foreign = NULL;
    assert_int_equal(ofa->lpVtbl->CreateInstruction(ofa, Cee_Nop, &foreign), S_OK);
    assert_int_equal(g->lpVtbl->InsertBefore(g, ret, foreign), E_INVALIDARG);
    assert_non_null(strstr(f->last_error, "another method"));
    IExceptionClause *c = NULL;
    assert_int_equal(
        f->eh->lpVtbl->AddNewExceptionClause(f->eh, 0, ldc, ldc, foreign, ret, NULL, 0, &c),
        E_INVALIDARG);
    release(foreign);
    clrie_pm_il_body_free(other);
    /* Inserting what is already in the method, removing the last instruction. */
    assert_int_equal(g->lpVtbl->InsertBefore(g, ret, ldc), E_UNEXPECTED);
    assert_int_equal(g->lpVtbl->InsertAfter(g, nop, ret), E_UNEXPECTED);
    assert_int_equal(g->lpVtbl->Remove(g, nop), E_UNEXPECTED);
    assert_int_equal(g->lpVtbl->Remove(g, ldc), S_OK);
    assert_int_equal(g->lpVtbl->Remove(g, ret), E_UNEXPECTED);
    assert_non_null(strstr(f->last_error, "only instruction"));
    assert_int_equal(g->lpVtbl->Replace(g, ldc, nop), E_UNEXPECTED);
    assert_non_null(strstr(f->last_error, "was removed"));
    /* Nothing of the failed calls reached the method. */
    expect_code(f, BYTES(0x2A));
    assert_int_equal(g->lpVtbl->GetInstructionAtOffset(g, 7, &x), E_FAIL);
    release(ldc);
    release(ret);
    release(nop);
}

/* A Release beyond what an object handed out never reaches its owner; a closed body edits
 * nothing and says so. */
/* The closed method's name, asked for only when a line needs it. */
static int closed_name_calls;

static const char *closed_name(void *ctx)
{
    closed_name_calls++;
    return "Program.Closed";
}

static void surplus_releases_are_ignored_and_a_closed_body_refuses_edits(void **state)
{
    struct fixture *f = *state;
    open_body_sig(f, TINY(0x00, 0x2A), sig_void, sizeof(sig_void));
    IInstruction *ldc = at(f, 0), *ret = at(f, 1);
    assert_int_equal(f->outer.refs, 2); /* one owner reference per object with references out */
    ldc->lpVtbl->AddRef(ldc);
    assert_int_equal(f->outer.refs, 2);
    release(ldc);
    release(ldc);
    assert_int_equal(f->outer.refs, 1);
    release(ldc); /* surplus: ret's owner reference is not ldc's to give back */
    assert_int_equal(f->outer.refs, 1);
    IInstructionGraph *g = f->graph;
    assert_int_equal(g->lpVtbl->Release(g), 0); /* never handed out */
    assert_int_equal(f->outer.refs, 1);
    closed_name_calls = 0;
    clrie_pm_il_body_close(f->body, (struct clrie_pm_log_name){closed_name, NULL});
    assert_int_equal(closed_name_calls, 0);
    assert_int_equal(g->lpVtbl->Remove(g, ret), E_UNEXPECTED);
    assert_non_null(strstr(f->last_error, "Program.Closed: IInstructionGraph::Remove called after "
                                          "the method's instrumentation was over"));
    IInstruction *nop = NULL;
    assert_int_equal(f->factory->lpVtbl->CreateInstruction(f->factory, Cee_Nop, &nop),
                     E_UNEXPECTED);
    expect_code(f, BYTES(0x00, 0x2A));
    release(ret);
    assert_int_equal(f->outer.refs, 0);
}

/* A long method: every node keeps one object however many there are. */
static void identity_holds_across_a_long_method(void **state)
{
    struct fixture *f = *state;
    enum { N = 5000 };
    /* fat header, N nops, ret */
    uint8_t *body = calloc(1, 12 + N + 1);
    body[0] = 0x03;
    body[1] = 0x30;
    body[2] = 0x08;
    uint32_t code_size = N + 1;
    memcpy(body + 4, &code_size, 4);
    body[12 + N] = 0x2A;
    open_body_sig(f, body, 12 + N + 1, sig_void, sizeof(sig_void));
    free(body);
    IInstruction *i = NULL;
    assert_int_equal(f->graph->lpVtbl->GetFirstInstruction(f->graph, &i), S_OK);
    for (DWORD k = 0; k <= N; k++) {
        IInstruction *same = at(f, k);
        assert_ptr_equal(same, i);
        release(same);
        IInstruction *n = NULL;
        HRESULT hr = i->lpVtbl->GetNextInstruction(i, &n);
        assert_int_equal(hr, k == N ? E_FAIL : S_OK);
        release(i);
        i = n;
    }
    assert_int_equal(f->body->instructions.count, N + 1);
    IEnumInstructions *e = NULL;
    DWORD count;
    assert_int_equal(clrie_pm_il_body_enum_instructions(f->body, false, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, N + 1);
    release(e);
}

/* A clause object a plugin implemented itself. */
struct plugin_clause {
    IExceptionClause iface;
    IInstruction *parts[4];
};

static HRESULT STDMETHODCALLTYPE pc_QueryInterface(IExceptionClause *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE pc_AddRef(IExceptionClause *This)
{
    return 1;
}
static ULONG STDMETHODCALLTYPE pc_Release(IExceptionClause *This)
{
    return 1;
}
static HRESULT STDMETHODCALLTYPE pc_GetFlags(IExceptionClause *This, DWORD *flags)
{
    *flags = CLRIE_IL_EH_FAULT;
    return S_OK;
}
static HRESULT pc_part(IExceptionClause *This, int k, IInstruction **out)
{
    *out = ((struct plugin_clause *)(void *)This)->parts[k];
    (*out)->lpVtbl->AddRef(*out);
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE pc_TryFirst(IExceptionClause *This, IInstruction **out)
{
    return pc_part(This, 0, out);
}
static HRESULT STDMETHODCALLTYPE pc_TryLast(IExceptionClause *This, IInstruction **out)
{
    return pc_part(This, 1, out);
}
static HRESULT STDMETHODCALLTYPE pc_HandlerFirst(IExceptionClause *This, IInstruction **out)
{
    return pc_part(This, 2, out);
}
static HRESULT STDMETHODCALLTYPE pc_HandlerLast(IExceptionClause *This, IInstruction **out)
{
    return pc_part(This, 3, out);
}
static HRESULT STDMETHODCALLTYPE pc_FilterFirst(IExceptionClause *This, IInstruction **out)
{
    *out = NULL;
    return S_OK;
}
static HRESULT STDMETHODCALLTYPE pc_GetType(IExceptionClause *This, mdToken *token)
{
    *token = 0;
    return S_OK;
}

static const struct IExceptionClauseVtbl plugin_clause_vtbl = {
    .QueryInterface = pc_QueryInterface,
    .AddRef = pc_AddRef,
    .Release = pc_Release,
    .GetFlags = pc_GetFlags,
    .GetTryFirstInstruction = pc_TryFirst,
    .GetTryLastInstruction = pc_TryLast,
    .GetHandlerFirstInstruction = pc_HandlerFirst,
    .GetHandlerLastInstruction = pc_HandlerLast,
    .GetFilterFirstInstruction = pc_FilterFirst,
    .GetExceptionHandlerType = pc_GetType,
};

static void a_plugin_made_clause_is_read_through_its_interface(void **state)
{
    struct fixture *f = *state;
    IUnknown *method_unknown = &f->outer.iface;
    /* The method info the objects name is the outer object here (only AddRef'd). */
    struct il_body_params p = {
        .outer = &f->outer.iface,
        .method = (IMethodInfo *)(void *)method_unknown,
        .method_sig = sig_void,
        .method_sig_len = sizeof(sig_void),
        .log = &f->log,
    };
    /* nop; leave.s 4; endfinally; ret: a try and a handler without a clause yet */
    assert_int_equal(clrie_pm_il_body_new(&p, TINY(0x00, 0xDE, 0x01, 0xDC, 0x2A), &f->body), S_OK);
    f->graph = clrie_pm_il_body_graph(f->body);
    f->eh = clrie_pm_il_body_exceptions(f->body);
    f->returns_void = true;
    IMethodInfo *mi = NULL;
    assert_int_equal(f->eh->lpVtbl->GetMethodInfo(f->eh, &mi), S_OK);
    assert_ptr_equal(mi, method_unknown);
    release(mi);
    assert_int_equal(f->graph->lpVtbl->GetMethodInfo(f->graph, &mi), S_OK);
    release(mi);
    struct plugin_clause pc = {.iface.lpVtbl = &plugin_clause_vtbl};
    pc.parts[0] = at(f, 0);
    pc.parts[1] = at(f, 1);
    pc.parts[2] = at(f, 3);
    pc.parts[3] = at(f, 3);
    assert_int_equal(f->eh->lpVtbl->AddExceptionClause(f->eh, &pc.iface), S_OK);
    IExceptionClause *c[2] = {NULL};
    assert_int_equal(clauses(f, c, 2), 1);
    DWORD flags;
    assert_int_equal(c[0]->lpVtbl->GetFlags(c[0], &flags), S_OK);
    assert_int_equal(flags, CLRIE_IL_EH_FAULT);
    assert_int_equal(clause_offset(c[0], true), 1);
    release(c[0]);
    expect_code(f, BYTES(0x00, 0xDE, 0x01, 0xDC, 0x2A));
    /* Its instructions must be the method's: one removed, it is refused. */
    assert_int_equal(f->graph->lpVtbl->Remove(f->graph, pc.parts[0]), S_OK);
    assert_int_equal(f->eh->lpVtbl->AddExceptionClause(f->eh, &pc.iface), E_INVALIDARG);
    for (int k = 0; k < 4; k++)
        release(pc.parts[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_decoded_body_walks_in_both_lists_with_offsets, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(query_interface_answers_what_the_operand_kind_fits, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(edits_move_branches_as_each_edit_says, setup, teardown),
        cmocka_unit_test_setup_teardown(enumerators_snapshot_and_clone, setup, teardown),
        cmocka_unit_test_setup_teardown(factory_helpers_choose_the_shortest_form, setup, teardown),
        cmocka_unit_test_setup_teardown(switch_and_branch_targets_are_edited_by_instruction, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(exception_clauses_follow_edits_and_keep_nesting_order,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_retargeting_insert_leaves_the_new_branch_on_its_target,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_replaced_instruction_names_its_replacement, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(decoded_byte_streams_are_new_code_to_insert, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            create_baseline_replaces_the_code_once_before_instrumentation, setup, teardown),
        cmocka_unit_test_setup_teardown(single_ret_void_branches_to_one_final_ret, setup, teardown),
        cmocka_unit_test_setup_teardown(single_ret_int_keeps_the_value_in_a_new_local, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(single_ret_byref_keeps_the_value_on_the_stack, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(single_ret_leaves_a_tail_call_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(misuse_returns_errors_and_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(
            surplus_releases_are_ignored_and_a_closed_body_refuses_edits, setup, teardown),
        cmocka_unit_test_setup_teardown(identity_holds_across_a_long_method, setup, teardown),
        cmocka_unit_test_setup_teardown(a_plugin_made_clause_is_read_through_its_interface, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("profmgr-il-objects", tests, NULL, NULL);
}
