/* IInstruction with IOperandInstruction, IBranchInstruction and ISwitchInstruction: one object
 * per node, answering the operand interface that fits the opcode's operand kind. */
#include "il_private.h"

#include "utf16.h"

#include <string.h>

static struct il_instruction *instruction_from(IInstruction *iface);
static void instruction_init(struct il_instruction *obj);

static struct il_instruction *of_instr(IInstruction *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_instruction, iface);
}
static struct il_instruction *of_operand(IOperandInstruction *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_instruction, operand);
}
static struct il_instruction *of_branch(IBranchInstruction *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_instruction, branch);
}
static struct il_instruction *of_switch(ISwitchInstruction *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_instruction, sw);
}

static uint8_t operand_kind(const struct il_instruction *obj)
{
    return clrie_il_instr_info(obj->node)->operand_kind;
}

static bool is_branch(const struct il_instruction *obj)
{
    uint8_t k = operand_kind(obj);
    return k == CLRIE_IL_OPERAND_BRANCH8 || k == CLRIE_IL_OPERAND_BRANCH32;
}

static bool is_switch(const struct il_instruction *obj)
{
    return operand_kind(obj) == CLRIE_IL_OPERAND_SWITCH;
}

static bool has_plain_operand(const struct il_instruction *obj)
{
    uint8_t k = operand_kind(obj);
    return k != CLRIE_IL_OPERAND_NONE && k != CLRIE_IL_OPERAND_BRANCH8 &&
           k != CLRIE_IL_OPERAND_BRANCH32 && k != CLRIE_IL_OPERAND_SWITCH;
}

/* Brings a branch's form (short or long, chosen by the layout) up to date after edits; a no-op
 * when it is. Only branches change form, so other instructions never pay for a layout: a
 * plugin that edits and reads opcodes in turn stays linear. */
static void refresh(struct il_instruction *obj)
{
    if (is_branch(obj))
        (void)clrie_il_instr_offset(obj->node);
}

/* ---- IUnknown: one class per operand kind ---- */

/* Every instruction answers IInstruction and IDataContainer; one whose operand kind fits also
 * answers IOperandInstruction, IBranchInstruction or ISwitchInstruction. */
#define INSTRUCTION_IFACES(kind_iface)                                                             \
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstruction, struct il_instruction, iface),                       \
        CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_instruction, data.iface), kind_iface
static const struct clrie_plugin_com_iface plain_ifaces[] = {INSTRUCTION_IFACES()};
static const struct clrie_plugin_com_iface operand_ifaces[] = {INSTRUCTION_IFACES(
    CLRIE_PLUGIN_COM_IFACE(&IID_IOperandInstruction, struct il_instruction, operand))};
static const struct clrie_plugin_com_iface branch_ifaces[] = {INSTRUCTION_IFACES(
    CLRIE_PLUGIN_COM_IFACE(&IID_IBranchInstruction, struct il_instruction, branch))};
static const struct clrie_plugin_com_iface switch_ifaces[] = {
    INSTRUCTION_IFACES(CLRIE_PLUGIN_COM_IFACE(&IID_ISwitchInstruction, struct il_instruction, sw))};

CLRIE_PM_COM_CLASS_LOGGED(plain_class, "IInstruction", struct il_instruction, com, NULL,
                          plain_ifaces, IL_LOG_OF);
CLRIE_PM_COM_CLASS_LOGGED(operand_class, "IOperandInstruction", struct il_instruction, com, NULL,
                          operand_ifaces, IL_LOG_OF);
CLRIE_PM_COM_CLASS_LOGGED(branch_class, "IBranchInstruction", struct il_instruction, com, NULL,
                          branch_ifaces, IL_LOG_OF);
CLRIE_PM_COM_CLASS_LOGGED(switch_class, "ISwitchInstruction", struct il_instruction, com, NULL,
                          switch_ifaces, IL_LOG_OF);

CLRIE_PM_COM_OWNED(instr, IInstruction, struct il_instruction, iface, com, IL_OWNER)
CLRIE_PM_COM_OWNED(operand, IOperandInstruction, struct il_instruction, operand, com, IL_OWNER)
CLRIE_PM_COM_OWNED(branch, IBranchInstruction, struct il_instruction, branch, com, IL_OWNER)
CLRIE_PM_COM_OWNED(sw, ISwitchInstruction, struct il_instruction, sw, com, IL_OWNER)

/* ---- IInstruction ---- */

static HRESULT STDMETHODCALLTYPE instr_GetOffset(IInstruction *This, DWORD *pdwOffset)
{
    if (!pdwOffset)
        return E_POINTER;
    *pdwOffset = clrie_il_instr_offset(of_instr(This)->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOriginalOffset(IInstruction *This, DWORD *pdwOffset)
{
    if (!pdwOffset)
        return E_POINTER;
    uint32_t off = clrie_il_instr_original_offset(of_instr(This)->node);
    *pdwOffset = off == CLRIE_IL_NO_OFFSET ? 0 : off; /* new code: 0, as CLRIE says */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOpCodeName(IInstruction *This, BSTR *pbstrName)
{
    if (!pbstrName)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pbstrName = clrie_pm_bstr_from_utf8(clrie_il_instr_info(obj->node)->name);
    return *pbstrName ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE instr_GetOpCode(IInstruction *This, ILOrdinalOpcode *pOpCode)
{
    if (!pOpCode)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pOpCode = (ILOrdinalOpcode)clrie_il_instr_opcode(obj->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetAlternateOrdinalOpcode(IInstruction *This,
                                                                 ILOrdinalOpcode *pOpCode)
{
    if (!pOpCode)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pOpCode = (ILOrdinalOpcode)clrie_il_instr_info(obj->node)->alternate;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetInstructionLength(IInstruction *This, DWORD *pdwLength)
{
    if (!pdwLength)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pdwLength = clrie_il_instr_size(obj->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOpcodeFlags(IInstruction *This, ILOpcodeFlags *pFlags)
{
    if (!pFlags)
        return E_POINTER;
    *pFlags = (ILOpcodeFlags)clrie_il_instr_info(of_instr(This)->node)->clrie_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOpcodeLength(IInstruction *This, DWORD *pdwLength)
{
    if (!pdwLength)
        return E_POINTER;
    *pdwLength = clrie_il_instr_info(of_instr(This)->node)->opcode_len;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOperandType(IInstruction *This, ILOperandType *pType)
{
    if (!pType)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pType = (ILOperandType)clrie_il_instr_info(obj->node)->clrie_operand;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetOperandLength(IInstruction *This, DWORD *pdwLength)
{
    if (!pdwLength)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    refresh(obj);
    *pdwLength = clrie_il_instr_size(obj->node) - clrie_il_instr_info(obj->node)->opcode_len;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsNew(IInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    *pbValue = clrie_il_instr_is_new(of_instr(This)->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsRemoved(IInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    *pbValue = clrie_il_instr_is_removed(of_instr(This)->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsBranch(IInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    *pbValue = is_branch(of_instr(This));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsSwitch(IInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    *pbValue = is_switch(of_instr(This));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsCallInstruction(IInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    uint16_t op = clrie_il_instr_opcode(of_instr(This)->node);
    *pbValue = op == CLRIE_IL_OP_CALL || op == CLRIE_IL_OP_CALLI || op == CLRIE_IL_OP_CALLVIRT;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetTerminationType(IInstruction *This,
                                                          InstructionTerminationType *pType)
{
    if (!pType)
        return E_POINTER;
    *pType = (InstructionTerminationType)clrie_il_instr_info(of_instr(This)->node)->termination;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE instr_GetIsFallThrough(IInstruction *This, BOOL *pbIsFallThrough)
{
    if (!pbIsFallThrough)
        return E_POINTER;
    *pbIsFallThrough =
        clrie_il_instr_info(of_instr(This)->node)->termination == CLRIE_IL_TERM_FALL_THROUGH;
    return S_OK;
}

/* A neighbour: along the fragment while a decoded fragment's node is not placed, else along
 * the list the node is in. No neighbour is E_FAIL with NULL, as in CLRIE. */
static HRESULT neighbour(struct il_instruction *obj, bool next, bool original, IInstruction **out)
{
    if (!out)
        return E_POINTER;
    struct clrie_il_instr *n;
    if (obj->fragment && !original) {
        struct il_fragment *f = obj->fragment;
        size_t i = obj->fragment_index;
        n = next ? (i + 1 < f->count ? f->nodes[i + 1] : NULL) : (i ? f->nodes[i - 1] : NULL);
    } else if (original) {
        n = next ? clrie_il_instr_original_next(obj->node)
                 : clrie_il_instr_original_prev(obj->node);
    } else {
        n = next ? clrie_il_instr_next(obj->node) : clrie_il_instr_prev(obj->node);
    }
    /* A fragment's objects were all made, with their index, when it was decoded. */
    return clrie_pm__il_instruction_give(obj->body, obj->graph, n, E_FAIL, out);
}

static HRESULT STDMETHODCALLTYPE instr_GetNextInstruction(IInstruction *This, IInstruction **ppNext)
{
    return neighbour(of_instr(This), true, false, ppNext);
}

static HRESULT STDMETHODCALLTYPE instr_GetPreviousInstruction(IInstruction *This,
                                                              IInstruction **ppPrev)
{
    return neighbour(of_instr(This), false, false, ppPrev);
}

static HRESULT STDMETHODCALLTYPE instr_GetOriginalNextInstruction(IInstruction *This,
                                                                  IInstruction **ppNext)
{
    return neighbour(of_instr(This), true, true, ppNext);
}

static HRESULT STDMETHODCALLTYPE instr_GetOriginalPreviousInstruction(IInstruction *This,
                                                                      IInstruction **ppPrev)
{
    return neighbour(of_instr(This), false, true, ppPrev);
}

static HRESULT STDMETHODCALLTYPE instr_GetInstructionGeneration(IInstruction *This,
                                                                InstructionGeneration *pGen)
{
    if (!pGen)
        return E_POINTER;
    struct il_instruction *obj = of_instr(This);
    if (clrie_il_instr_is_new(obj->node))
        *pGen = Generation_New;
    else if (obj->body->baseline_set && obj->graph == obj->body->graph)
        *pGen = Generation_Baseline;
    else
        *pGen = Generation_Original;
    return S_OK;
}

static const struct IInstructionVtbl instruction_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(instr),
    .GetOffset = instr_GetOffset,
    .GetOriginalOffset = instr_GetOriginalOffset,
    .GetOpCodeName = instr_GetOpCodeName,
    .GetOpCode = instr_GetOpCode,
    .GetAlternateOrdinalOpcode = instr_GetAlternateOrdinalOpcode,
    .GetInstructionLength = instr_GetInstructionLength,
    .GetOpcodeFlags = instr_GetOpcodeFlags,
    .GetOpcodeLength = instr_GetOpcodeLength,
    .GetOperandType = instr_GetOperandType,
    .GetOperandLength = instr_GetOperandLength,
    .GetIsNew = instr_GetIsNew,
    .GetIsRemoved = instr_GetIsRemoved,
    .GetIsBranch = instr_GetIsBranch,
    .GetIsSwitch = instr_GetIsSwitch,
    .GetIsCallInstruction = instr_GetIsCallInstruction,
    .GetTerminationType = instr_GetTerminationType,
    .GetIsFallThrough = instr_GetIsFallThrough,
    .GetNextInstruction = instr_GetNextInstruction,
    .GetPreviousInstruction = instr_GetPreviousInstruction,
    .GetOriginalNextInstruction = instr_GetOriginalNextInstruction,
    .GetOriginalPreviousInstruction = instr_GetOriginalPreviousInstruction,
    .GetInstructionGeneration = instr_GetInstructionGeneration,
};

/* ---- IOperandInstruction ---- */

static HRESULT STDMETHODCALLTYPE operand_GetOperandType(IOperandInstruction *This,
                                                        ILOperandType *pType)
{
    return instr_GetOperandType(&of_operand(This)->iface, pType);
}

static HRESULT STDMETHODCALLTYPE operand_GetOperandValue(IOperandInstruction *This, DWORD dwSize,
                                                         BYTE *pBytes)
{
    struct il_instruction *obj = of_operand(This);
    if (!pBytes)
        return E_POINTER;
    uint8_t raw[8];
    int len = clrie_il_instr_operand_bytes(obj->node, raw);
    if (len < 0)
        return clrie_pm__il_hresult(len);
    if (dwSize < (DWORD)len) {
        IL_LOG(obj->body,
               "IOperandInstruction::GetOperandValue: %s has a %d-byte operand, the "
               "buffer holds %u",
               clrie_il_instr_info(obj->node)->name, len, dwSize);
        return E_INVALIDARG;
    }
    memcpy(pBytes, raw, (size_t)len);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE operand_SetOperandValue(IOperandInstruction *This, DWORD dwSize,
                                                         BYTE *pBytes)
{
    IL_EDIT(of_operand(This)->body, "IOperandInstruction::SetOperandValue");
    struct il_instruction *obj = of_operand(This);
    if (!pBytes)
        return E_POINTER;
    int r = clrie_il_instr_set_operand_bytes(obj->node, pBytes, dwSize);
    if (r < 0) {
        IL_LOG(obj->body,
               "IOperandInstruction::SetOperandValue: %s takes a %u-byte operand, "
               "not %u bytes",
               clrie_il_instr_info(obj->node)->name, clrie_il_instr_info(obj->node)->operand_len,
               dwSize);
        return clrie_pm__il_hresult(r);
    }
    obj->body->edits++;
    return S_OK;
}

static const struct IOperandInstructionVtbl operand_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(operand),
    .GetOperandType = operand_GetOperandType,
    .GetOperandValue = operand_GetOperandValue,
    .SetOperandValue = operand_SetOperandValue,
};

/* ---- IBranchInstruction ---- */

/* A branch or switch target a plugin passed: an instruction of the same graph, not removed; a
 * replaced one means its replacement. */
static struct clrie_il_instr *target_of(struct il_instruction *obj, IInstruction *target,
                                        const char *what, HRESULT *hr)
{
    if (!target) {
        *hr = E_POINTER;
        return NULL;
    }
    struct il_instruction *t = clrie_pm__il_instruction_own(obj->body, target, what);
    if (!t) {
        *hr = E_INVALIDARG;
        return NULL;
    }
    struct clrie_il_instr *node = clrie_il_instr_current(t->node);
    if (t->graph != obj->graph || clrie_il_instr_is_removed(node)) {
        IL_LOG(obj->body, "%s: the target is %s", what,
               t->graph != obj->graph ? "from the code a baseline replaced" : "removed");
        *hr = E_INVALIDARG;
        return NULL;
    }
    *hr = S_OK;
    return node;
}

static HRESULT STDMETHODCALLTYPE branch_IsShortBranch(IBranchInstruction *This, BOOL *pbValue)
{
    if (!pbValue)
        return E_POINTER;
    struct il_instruction *obj = of_branch(This);
    refresh(obj); /* the encoder picks the form: ask after the layout */
    *pbValue = clrie_il_instr_info(obj->node)->operand_kind == CLRIE_IL_OPERAND_BRANCH8;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE branch_ExpandBranch(IBranchInstruction *This)
{
    IL_EDIT(of_branch(This)->body, "IBranchInstruction::ExpandBranch");
    struct il_instruction *obj = of_branch(This);
    HRESULT hr = clrie_pm__il_hresult(clrie_il_instr_expand_branch(obj->node));
    if (SUCCEEDED(hr))
        obj->body->edits++;
    return hr;
}

static HRESULT STDMETHODCALLTYPE branch_GetBranchTarget(IBranchInstruction *This,
                                                        IInstruction **ppTarget)
{
    struct il_instruction *obj = of_branch(This);
    return clrie_pm__il_instruction_give(obj->body, obj->graph,
                                         clrie_il_instr_branch_target(obj->node), E_FAIL, ppTarget);
}

static HRESULT STDMETHODCALLTYPE branch_GetTargetOffset(IBranchInstruction *This, DWORD *pOffset)
{
    if (!pOffset)
        return E_POINTER;
    struct clrie_il_instr *t = clrie_il_instr_branch_target(of_branch(This)->node);
    if (!t)
        return E_FAIL;
    *pOffset = clrie_il_instr_offset(t);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE branch_SetBranchTarget(IBranchInstruction *This,
                                                        IInstruction *pTarget)
{
    IL_EDIT(of_branch(This)->body, "IBranchInstruction::SetBranchTarget");
    struct il_instruction *obj = of_branch(This);
    HRESULT hr;
    struct clrie_il_instr *t = target_of(obj, pTarget, "IBranchInstruction::SetBranchTarget", &hr);
    if (!t)
        return hr;
    hr = clrie_pm__il_hresult(clrie_il_instr_set_branch_target(obj->node, t));
    if (SUCCEEDED(hr))
        obj->body->edits++;
    return hr;
}

/* clang-format off */
static const struct IBranchInstructionVtbl branch_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(branch),
    .IsShortBranch = branch_IsShortBranch,
    .ExpandBranch = branch_ExpandBranch,
    .GetBranchTarget = branch_GetBranchTarget,
    .GetTargetOffset = branch_GetTargetOffset,
    .SetBranchTarget = branch_SetBranchTarget,
};
/* clang-format on */

/* ---- ISwitchInstruction ---- */

static bool index_ok(struct il_instruction *obj, DWORD index, const char *what)
{
    uint32_t count = clrie_il_instr_switch_count(obj->node);
    if (index < count)
        return true;
    IL_LOG(obj->body, "%s: index %u is past the switch's %u targets", what, index, count);
    return false;
}

static HRESULT STDMETHODCALLTYPE sw_GetBranchTarget(ISwitchInstruction *This, DWORD index,
                                                    IInstruction **ppTarget)
{
    struct il_instruction *obj = of_switch(This);
    if (!ppTarget)
        return E_POINTER;
    *ppTarget = NULL;
    if (!index_ok(obj, index, "ISwitchInstruction::GetBranchTarget"))
        return E_INVALIDARG;
    return clrie_pm__il_instruction_give(
        obj->body, obj->graph, clrie_il_instr_switch_target(obj->node, index), E_FAIL, ppTarget);
}

static HRESULT STDMETHODCALLTYPE sw_SetBranchTarget(ISwitchInstruction *This, DWORD index,
                                                    IInstruction *pTarget)
{
    IL_EDIT(of_switch(This)->body, "ISwitchInstruction::SetBranchTarget");
    struct il_instruction *obj = of_switch(This);
    if (!index_ok(obj, index, "ISwitchInstruction::SetBranchTarget"))
        return E_INVALIDARG;
    HRESULT hr;
    struct clrie_il_instr *t = target_of(obj, pTarget, "ISwitchInstruction::SetBranchTarget", &hr);
    if (!t)
        return hr;
    hr = clrie_pm__il_hresult(clrie_il_instr_set_switch_target(obj->node, index, t));
    if (SUCCEEDED(hr))
        obj->body->edits++;
    return hr;
}

static HRESULT STDMETHODCALLTYPE sw_RemoveBranchTargetAt(ISwitchInstruction *This, DWORD index)
{
    IL_EDIT(of_switch(This)->body, "ISwitchInstruction::RemoveBranchTargetAt");
    struct il_instruction *obj = of_switch(This);
    if (!index_ok(obj, index, "ISwitchInstruction::RemoveBranchTargetAt"))
        return E_INVALIDARG;
    HRESULT hr = clrie_pm__il_hresult(clrie_il_instr_remove_switch_target(obj->node, index));
    if (SUCCEEDED(hr))
        obj->body->edits++;
    return hr;
}

/* The node behind an instruction a plugin names as a current target (only compared). */
static struct clrie_il_instr *named_node(struct il_instruction *obj, IInstruction *instr)
{
    struct il_instruction *t = instruction_from(instr);
    return t && t->body == obj->body ? t->node : NULL;
}

static HRESULT STDMETHODCALLTYPE sw_RemoveBranchTarget(ISwitchInstruction *This,
                                                       IInstruction *pTarget)
{
    IL_EDIT(of_switch(This)->body, "ISwitchInstruction::RemoveBranchTarget");
    struct il_instruction *obj = of_switch(This);
    if (!pTarget)
        return E_POINTER;
    struct clrie_il_instr *t = named_node(obj, pTarget);
    HRESULT hr = S_FALSE;
    for (uint32_t i = clrie_il_instr_switch_count(obj->node); t && i-- > 0;) {
        if (clrie_il_instr_switch_target(obj->node, i) != t)
            continue;
        if (FAILED(hr = clrie_pm__il_hresult(clrie_il_instr_remove_switch_target(obj->node, i))))
            return hr;
        obj->body->edits++;
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE sw_ReplaceBranchTarget(ISwitchInstruction *This,
                                                        IInstruction *pOriginal, IInstruction *pNew)
{
    IL_EDIT(of_switch(This)->body, "ISwitchInstruction::ReplaceBranchTarget");
    struct il_instruction *obj = of_switch(This);
    if (!pOriginal)
        return E_POINTER;
    HRESULT hr;
    struct clrie_il_instr *to =
        target_of(obj, pNew, "ISwitchInstruction::ReplaceBranchTarget", &hr);
    if (!to)
        return hr;
    struct clrie_il_instr *from = named_node(obj, pOriginal);
    hr = S_FALSE;
    uint32_t count = clrie_il_instr_switch_count(obj->node);
    for (uint32_t i = 0; from && i < count; i++) {
        if (clrie_il_instr_switch_target(obj->node, i) != from)
            continue;
        if (FAILED(hr = clrie_pm__il_hresult(clrie_il_instr_set_switch_target(obj->node, i, to))))
            return hr;
        obj->body->edits++;
    }
    return hr;
}

static HRESULT STDMETHODCALLTYPE sw_GetBranchCount(ISwitchInstruction *This, DWORD *pBranchCount)
{
    if (!pBranchCount)
        return E_POINTER;
    *pBranchCount = clrie_il_instr_switch_count(of_switch(This)->node);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE sw_GetBranchOffset(ISwitchInstruction *This, DWORD index,
                                                    DWORD *pdwOffset)
{
    struct il_instruction *obj = of_switch(This);
    if (!pdwOffset)
        return E_POINTER;
    if (!index_ok(obj, index, "ISwitchInstruction::GetBranchOffset"))
        return E_INVALIDARG;
    struct clrie_il_instr *t = clrie_il_instr_switch_target(obj->node, index);
    if (!t)
        return E_FAIL;
    *pdwOffset = clrie_il_instr_offset(t);
    return S_OK;
}

/* clang-format off */
static const struct ISwitchInstructionVtbl switch_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(sw),
    .GetBranchTarget = sw_GetBranchTarget,
    .SetBranchTarget = sw_SetBranchTarget,
    .RemoveBranchTargetAt = sw_RemoveBranchTargetAt,
    .RemoveBranchTarget = sw_RemoveBranchTarget,
    .ReplaceBranchTarget = sw_ReplaceBranchTarget,
    .GetBranchCount = sw_GetBranchCount,
    .GetBranchOffset = sw_GetBranchOffset,
};
/* clang-format on */

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IINSTRUCTION_METHODS) == 25, "IInstruction");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IOPERANDINSTRUCTION_METHODS) == 6, "IOperand");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IBRANCHINSTRUCTION_METHODS) == 8, "IBranch");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_ISWITCHINSTRUCTION_METHODS) == 10, "ISwitch");

static void instruction_init(struct il_instruction *obj)
{
    obj->iface.lpVtbl = &instruction_vtbl;
    obj->operand.lpVtbl = &operand_vtbl;
    obj->branch.lpVtbl = &branch_vtbl;
    obj->sw.lpVtbl = &switch_vtbl;
    /* The opcode never changes, so neither does the operand kind. */
    const struct clrie_plugin_com_class *cls = &plain_class;
    if (has_plain_operand(obj))
        cls = &operand_class;
    else if (is_branch(obj))
        cls = &branch_class;
    else if (is_switch(obj))
        cls = &switch_class;
    clrie_plugin_com_init(&obj->com, cls);
    clrie_pm_data_container_init(&obj->data, (IUnknown *)&obj->iface);
}

static struct il_instruction *instruction_from(IInstruction *iface)
{
    if (!iface)
        return NULL;
    /* Plugins sometimes pass the operand, branch or switch interface where an IInstruction is
     * expected (CLRIE finds the object with QueryInterface): accept any of them. */
    const void *vtbl = iface->lpVtbl;
    if (vtbl == &instruction_vtbl)
        return of_instr(iface);
    if (vtbl == &operand_vtbl)
        return of_operand((IOperandInstruction *)(void *)iface);
    if (vtbl == &branch_vtbl)
        return of_branch((IBranchInstruction *)(void *)iface);
    if (vtbl == &switch_vtbl)
        return of_switch((ISwitchInstruction *)(void *)iface);
    return NULL;
}

/* ---- the body's instruction objects ---- */

struct il_instruction *clrie_pm__il_instruction_of(struct il_body *body,
                                                   struct clrie_il_graph *graph,
                                                   struct clrie_il_instr *node)
{
    struct il_instruction *obj = clrie_pm__il_ptr_map_get(&body->instructions, node);
    if (obj)
        return obj;
    /* A plugin that asks for one instruction object usually walks them all. */
    if (!body->instructions.capacity)
        clrie_pm__il_ptr_map_reserve(&body->instructions, clrie_il_graph_count(graph) + 8);
    obj = clrie_pm__il_alloc(body, sizeof(*obj));
    if (!obj || clrie_pm__il_ptr_map_put(&body->instructions, node, obj) < 0)
        return NULL; /* the chunk memory goes with the body */
    obj->body = body;
    obj->node = node;
    obj->graph = graph;
    instruction_init(obj);
    return obj;
}

HRESULT clrie_pm__il_instruction_give(struct il_body *body, struct clrie_il_graph *graph,
                                      struct clrie_il_instr *node, HRESULT missing,
                                      IInstruction **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!node)
        return missing;
    struct il_instruction *obj = clrie_pm__il_instruction_of(body, graph, node);
    if (!obj)
        return E_OUTOFMEMORY;
    obj->iface.lpVtbl->AddRef(&obj->iface);
    *out = &obj->iface;
    return S_OK;
}

struct il_instruction *clrie_pm__il_instruction_own(struct il_body *body, IInstruction *instr,
                                                    const char *what)
{
    struct il_instruction *obj = instruction_from(instr);
    if (!obj) {
        IL_LOG(body, "%s: the instruction was not made by this engine", what);
        return NULL;
    }
    if (obj->body != body) {
        IL_LOG(body, "%s: the instruction belongs to another method", what);
        return NULL;
    }
    return obj;
}
