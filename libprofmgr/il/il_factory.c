/* IInstructionFactory: new detached instructions of the method's graph, by operand kind, the
 * shortest-form helpers, and DecodeInstructionByteStream. */
#include "il_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct il_factory *of_factory(IInstructionFactory *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_factory, iface);
}

static const struct clrie_plugin_com_iface factory_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstructionFactory, struct il_factory, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_factory, data.iface),
};
CLRIE_PM_COM_CLASS_LOGGED(factory_class, "IInstructionFactory", struct il_factory, com, NULL,
                          factory_ifaces, IL_LOG_OF);
CLRIE_PM_COM_OWNED(factory, IInstructionFactory, struct il_factory, iface, com, IL_OWNER)

/* Hands a node libilgraph made (r its result) to the plugin. */
static HRESULT made(struct il_factory *f, int r, struct clrie_il_instr *n, const char *what,
                    ILOrdinalOpcode opcode, IInstruction **out)
{
    if (r < 0) {
        const struct clrie_il_opcode_info *info = clrie_il_opcode_info((uint16_t)opcode);
        if (r == -ERANGE)
            IL_LOG(f->body, "%s: the value does not fit the operand of %s", what,
                   info ? info->name : "the opcode");
        else if (r != -ENOMEM)
            IL_LOG(f->body, "%s: opcode 0x%X (%s) does not take this kind of operand", what,
                   (unsigned)opcode, info ? info->name : "no opcode");
        return clrie_pm__il_hresult(r);
    }
    return clrie_pm__il_instruction_give(f->body, f->body->graph, n, E_FAIL, out);
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstruction(IInstructionFactory *This,
                                                           ILOrdinalOpcode opcode,
                                                           IInstruction **ppInstruction)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateInstruction");
    struct il_factory *f = of_factory(This);
    if (!ppInstruction)
        return E_POINTER;
    *ppInstruction = NULL;
    struct clrie_il_graph *g = f->body->graph;
    const struct clrie_il_opcode_info *info =
        (unsigned)opcode <= UINT16_MAX ? clrie_il_opcode_info((uint16_t)opcode) : NULL;
    struct clrie_il_instr *n = NULL;
    int r;
    /* Any opcode: one with an operand starts at 0, or no target, to be set afterwards. */
    switch (info ? info->operand_kind : CLRIE_IL_OPERAND_NONE) {
    case CLRIE_IL_OPERAND_BRANCH8:
    case CLRIE_IL_OPERAND_BRANCH32:
        r = clrie_il_instr_create_branch(g, (uint16_t)opcode, NULL, &n);
        break;
    case CLRIE_IL_OPERAND_SWITCH:
        r = clrie_il_instr_create_switch(g, 0, NULL, &n);
        break;
    case CLRIE_IL_OPERAND_FLOAT32:
    case CLRIE_IL_OPERAND_FLOAT64:
        r = clrie_il_instr_create_real(g, (uint16_t)opcode, 0, &n);
        break;
    case CLRIE_IL_OPERAND_NONE:
        r = info ? clrie_il_instr_create(g, (uint16_t)opcode, &n) : -EINVAL;
        break;
    default:
        r = clrie_il_instr_create_int(g, (uint16_t)opcode, 0, &n);
        break;
    }
    return made(f, r, n, "IInstructionFactory::CreateInstruction", opcode, ppInstruction);
}

/* An instruction whose operand is the given raw bytes. `kinds` lists the operand kinds the
 * calling function is for (CLRIE copies bytes of the operand's size). */
static HRESULT create_operand(IInstructionFactory *This, const char *what, ILOrdinalOpcode opcode,
                              unsigned kinds, const void *value, size_t size, IInstruction **out)
{
    struct il_factory *f = of_factory(This);
    if (!out)
        return E_POINTER;
    *out = NULL;
    const struct clrie_il_opcode_info *info =
        (unsigned)opcode <= UINT16_MAX ? clrie_il_opcode_info((uint16_t)opcode) : NULL;
    if (!info || !(kinds & (1u << info->operand_kind)) || info->operand_len != size)
        return made(f, -EINVAL, NULL, what, opcode, out);
    uint8_t raw[8];
    memcpy(raw, value, size); /* little-endian hosts: the encoded byte order */
    struct clrie_il_graph *g = f->body->graph;
    struct clrie_il_instr *n = NULL;
    int r = info->operand_kind == CLRIE_IL_OPERAND_FLOAT32 ||
                    info->operand_kind == CLRIE_IL_OPERAND_FLOAT64
                ? clrie_il_instr_create_real(g, (uint16_t)opcode, 0, &n)
                : clrie_il_instr_create_int(g, (uint16_t)opcode, 0, &n);
    if (r == 0)
        r = clrie_il_instr_set_operand_bytes(n, raw, size);
    return made(f, r, n, what, opcode, out);
}

#define KIND(k) (1u << CLRIE_IL_OPERAND_##k)

static HRESULT STDMETHODCALLTYPE factory_CreateByteOperandInstruction(IInstructionFactory *This,
                                                                      ILOrdinalOpcode opcode,
                                                                      BYTE operand,
                                                                      IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateByteOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateByteOperandInstruction", opcode,
                          KIND(INT8) | KIND(UINT8), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateUShortOperandInstruction(IInstructionFactory *This,
                                                                        ILOrdinalOpcode opcode,
                                                                        USHORT operand,
                                                                        IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateUShortOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateUShortOperandInstruction", opcode,
                          KIND(UINT16), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateIntOperandInstruction(IInstructionFactory *This,
                                                                     ILOrdinalOpcode opcode,
                                                                     INT32 operand,
                                                                     IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateIntOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateIntOperandInstruction", opcode,
                          KIND(INT32) | KIND(TOKEN), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLongOperandInstruction(IInstructionFactory *This,
                                                                      ILOrdinalOpcode opcode,
                                                                      INT64 operand,
                                                                      IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLongOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateLongOperandInstruction", opcode,
                          KIND(INT64), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateFloatOperandInstruction(IInstructionFactory *This,
                                                                       ILOrdinalOpcode opcode,
                                                                       float operand,
                                                                       IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateFloatOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateFloatOperandInstruction", opcode,
                          KIND(FLOAT32), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateDoubleOperandInstruction(IInstructionFactory *This,
                                                                        ILOrdinalOpcode opcode,
                                                                        double operand,
                                                                        IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateDoubleOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateDoubleOperandInstruction", opcode,
                          KIND(FLOAT64), &operand, sizeof(operand), pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateTokenOperandInstruction(IInstructionFactory *This,
                                                                       ILOrdinalOpcode opcode,
                                                                       mdToken operand,
                                                                       IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateTokenOperandInstruction");
    return create_operand(This, "IInstructionFactory::CreateTokenOperandInstruction", opcode,
                          KIND(TOKEN) | KIND(INT32), &operand, sizeof(operand), pp);
}

/* A target a plugin passed to a create call: NULL, or an instruction of the current graph (a
 * replaced one means its replacement). */
static bool target_ok(struct il_factory *f, IInstruction *target, const char *what,
                      struct clrie_il_instr **out)
{
    *out = NULL;
    if (!target)
        return true;
    struct il_instruction *t = clrie_pm__il_instruction_own(f->body, target, what);
    if (!t)
        return false;
    struct clrie_il_instr *node = clrie_il_instr_current(t->node); /* a replaced one's successor */
    if (t->graph != f->body->graph || clrie_il_instr_is_removed(node)) {
        IL_LOG(f->body, "%s: the target was removed from the method", what);
        return false;
    }
    *out = node;
    return true;
}

static HRESULT STDMETHODCALLTYPE factory_CreateBranchInstruction(IInstructionFactory *This,
                                                                 ILOrdinalOpcode opcode,
                                                                 IInstruction *pBranchTarget,
                                                                 IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateBranchInstruction");
    struct il_factory *f = of_factory(This);
    const char *what = "IInstructionFactory::CreateBranchInstruction";
    if (!pp)
        return E_POINTER;
    *pp = NULL;
    struct clrie_il_instr *target, *n = NULL;
    if (!target_ok(f, pBranchTarget, what, &target))
        return E_INVALIDARG;
    int r = (unsigned)opcode <= UINT16_MAX
                ? clrie_il_instr_create_branch(f->body->graph, (uint16_t)opcode, target, &n)
                : -EINVAL;
    return made(f, r, n, what, opcode, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateSwitchInstruction(IInstructionFactory *This,
                                                                 ILOrdinalOpcode opcode,
                                                                 DWORD cBranchTargets,
                                                                 IInstruction **ppBranchTargets,
                                                                 IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateSwitchInstruction");
    struct il_factory *f = of_factory(This);
    const char *what = "IInstructionFactory::CreateSwitchInstruction";
    if (!pp || (cBranchTargets && !ppBranchTargets))
        return E_POINTER;
    *pp = NULL;
    if (opcode != Cee_Switch)
        return made(f, -EINVAL, NULL, what, opcode, pp);
    struct clrie_il_instr **targets =
        malloc((cBranchTargets ? cBranchTargets : 1) * sizeof(*targets));
    if (!targets)
        return E_OUTOFMEMORY;
    for (DWORD i = 0; i < cBranchTargets; i++) {
        if (!target_ok(f, ppBranchTargets[i], what, &targets[i])) {
            free(targets);
            return E_INVALIDARG;
        }
    }
    struct clrie_il_instr *n = NULL;
    int r = clrie_il_instr_create_switch(f->body->graph, cBranchTargets, targets, &n);
    free(targets);
    return made(f, r, n, what, opcode, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLoadConstInstruction(IInstructionFactory *This,
                                                                    int value, IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLoadConstInstruction");
    struct il_factory *f = of_factory(This);
    struct clrie_il_instr *n = NULL;
    if (!pp)
        return E_POINTER;
    int r = clrie_il_instr_create_ldc_i4(f->body->graph, value, &n);
    return made(f, r, n, "IInstructionFactory::CreateLoadConstInstruction", Cee_Ldc_I4, pp);
}

typedef int (*indexed_fn)(struct clrie_il_graph *g, uint32_t index, struct clrie_il_instr **out);

static HRESULT create_indexed(IInstructionFactory *This, indexed_fn fn, USHORT index,
                              const char *what, ILOrdinalOpcode long_form, IInstruction **pp)
{
    struct il_factory *f = of_factory(This);
    struct clrie_il_instr *n = NULL;
    if (!pp)
        return E_POINTER;
    *pp = NULL;
    int r = fn(f->body->graph, index, &n);
    return made(f, r, n, what, long_form, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLoadLocalInstruction(IInstructionFactory *This,
                                                                    USHORT index, IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLoadLocalInstruction");
    return create_indexed(This, clrie_il_instr_create_ldloc, index,
                          "IInstructionFactory::CreateLoadLocalInstruction", Cee_Ldloc, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLoadLocalAddressInstruction(
    IInstructionFactory *This, USHORT index, IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLoadLocalAddressInstruction");
    return create_indexed(This, clrie_il_instr_create_ldloca, index,
                          "IInstructionFactory::CreateLoadLocalAddressInstruction", Cee_Ldloca, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateStoreLocalInstruction(IInstructionFactory *This,
                                                                     USHORT index,
                                                                     IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateStoreLocalInstruction");
    return create_indexed(This, clrie_il_instr_create_stloc, index,
                          "IInstructionFactory::CreateStoreLocalInstruction", Cee_Stloc, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLoadArgInstruction(IInstructionFactory *This,
                                                                  USHORT index, IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLoadArgInstruction");
    return create_indexed(This, clrie_il_instr_create_ldarg, index,
                          "IInstructionFactory::CreateLoadArgInstruction", Cee_Ldarg, pp);
}

static HRESULT STDMETHODCALLTYPE factory_CreateLoadArgAddressInstruction(IInstructionFactory *This,
                                                                         USHORT index,
                                                                         IInstruction **pp)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::CreateLoadArgAddressInstruction");
    return create_indexed(This, clrie_il_instr_create_ldarga, index,
                          "IInstructionFactory::CreateLoadArgAddressInstruction", Cee_Ldarga, pp);
}

static HRESULT STDMETHODCALLTYPE factory_DecodeInstructionByteStream(
    IInstructionFactory *This, DWORD cbMethod, LPCBYTE instructionBytes,
    IInstructionGraph **ppInstructionGraph)
{
    IL_EDIT(of_factory(This)->body, "IInstructionFactory::DecodeInstructionByteStream");
    struct il_factory *f = of_factory(This);
    struct il_body *body = f->body;
    if (!ppInstructionGraph || !instructionBytes)
        return E_POINTER;
    *ppInstructionGraph = NULL;
    struct il_fragment *frag = clrie_pm__il_alloc(body, sizeof(*frag));
    if (!frag)
        return E_OUTOFMEMORY;
    struct clrie_il_diag diag = {0};
    int r = clrie_il_graph_decode_fragment(body->graph, instructionBytes, cbMethod, &frag->nodes,
                                           &frag->count, &diag);
    if (r < 0) {
        if (r == -EILSEQ)
            IL_LOG(body,
                   "IInstructionFactory::DecodeInstructionByteStream: malformed IL at "
                   "offset %u: %s",
                   diag.offset, diag.message);
        return clrie_pm__il_hresult(r);
    }
    /* Every object now, with its place in the fragment, so walking it needs nothing else. */
    for (size_t i = 0; i < frag->count; i++) {
        if (!clrie_pm__il_instruction_of(body, body->graph, frag->nodes[i])) {
            free(frag->nodes);
            return E_OUTOFMEMORY;
        }
    }
    for (size_t i = 0; i < frag->count; i++) {
        struct il_instruction *obj = clrie_pm__il_instruction_of(body, body->graph, frag->nodes[i]);
        obj->fragment = frag;
        obj->fragment_index = i;
    }
    clrie_pm__il_graph_view_init(&frag->view, body, frag);
    frag->next = body->fragments;
    body->fragments = frag;
    frag->view.iface.lpVtbl->AddRef(&frag->view.iface);
    *ppInstructionGraph = &frag->view.iface;
    return S_OK;
}

static const struct IInstructionFactoryVtbl factory_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(factory),
    .CreateInstruction = factory_CreateInstruction,
    .CreateByteOperandInstruction = factory_CreateByteOperandInstruction,
    .CreateUShortOperandInstruction = factory_CreateUShortOperandInstruction,
    .CreateIntOperandInstruction = factory_CreateIntOperandInstruction,
    .CreateLongOperandInstruction = factory_CreateLongOperandInstruction,
    .CreateFloatOperandInstruction = factory_CreateFloatOperandInstruction,
    .CreateDoubleOperandInstruction = factory_CreateDoubleOperandInstruction,
    .CreateTokenOperandInstruction = factory_CreateTokenOperandInstruction,
    .CreateBranchInstruction = factory_CreateBranchInstruction,
    .CreateSwitchInstruction = factory_CreateSwitchInstruction,
    .CreateLoadConstInstruction = factory_CreateLoadConstInstruction,
    .CreateLoadLocalInstruction = factory_CreateLoadLocalInstruction,
    .CreateLoadLocalAddressInstruction = factory_CreateLoadLocalAddressInstruction,
    .CreateStoreLocalInstruction = factory_CreateStoreLocalInstruction,
    .CreateLoadArgInstruction = factory_CreateLoadArgInstruction,
    .CreateLoadArgAddressInstruction = factory_CreateLoadArgAddressInstruction,
    .DecodeInstructionByteStream = factory_DecodeInstructionByteStream,
};

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IINSTRUCTIONFACTORY_METHODS) == 20,
               "IInstructionFactory");

void clrie_pm__il_factory_init(struct il_factory *obj, struct il_body *body)
{
    obj->iface.lpVtbl = &factory_vtbl;
    clrie_plugin_com_init(&obj->com, &factory_class);
    obj->body = body;
    clrie_pm_data_container_init(&obj->data, (IUnknown *)&obj->iface);
}
