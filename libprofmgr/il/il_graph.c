/* IInstructionGraph: the method's instruction lists and edits, the baseline (CreateBaseline),
 * and read-only views over the code DecodeInstructionByteStream decoded. */
#include "il_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct il_graph_view *of_view(IInstructionGraph *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_graph_view, iface);
}

static const struct clrie_plugin_com_iface view_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstructionGraph, struct il_graph_view, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_graph_view, data.iface),
};
CLRIE_PM_COM_CLASS_LOGGED(view_class, "IInstructionGraph", struct il_graph_view, com, NULL,
                          view_ifaces, IL_LOG_OF);
CLRIE_PM_COM_OWNED(view, IInstructionGraph, struct il_graph_view, iface, com, IL_OWNER)

static HRESULT STDMETHODCALLTYPE view_GetMethodInfo(IInstructionGraph *This,
                                                    IMethodInfo **ppMethodInfo)
{
    struct il_graph_view *view = of_view(This);
    if (!ppMethodInfo)
        return E_POINTER;
    *ppMethodInfo = NULL;
    IMethodInfo *method = view->fragment ? NULL : view->body->params.method;
    if (!method)
        return E_FAIL; /* decoded bytes belong to no method yet */
    method->lpVtbl->AddRef(method);
    *ppMethodInfo = method;
    return S_OK;
}

/* First or last node of a fragment. */
static struct clrie_il_instr *fragment_end(const struct il_fragment *f, bool last)
{
    return f->count ? f->nodes[last ? f->count - 1 : 0] : NULL;
}

static HRESULT give(struct il_graph_view *view, struct clrie_il_graph *g, struct clrie_il_instr *n,
                    HRESULT missing, IInstruction **out)
{
    return clrie_pm__il_instruction_give(view->body, g, n, missing, out);
}

static HRESULT STDMETHODCALLTYPE view_GetFirstInstruction(IInstructionGraph *This,
                                                          IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    return give(v, g, v->fragment ? fragment_end(v->fragment, false) : clrie_il_graph_first(g),
                S_OK, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetLastInstruction(IInstructionGraph *This, IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    return give(v, g, v->fragment ? fragment_end(v->fragment, true) : clrie_il_graph_last(g), S_OK,
                pp);
}

static HRESULT STDMETHODCALLTYPE view_GetOriginalFirstInstruction(IInstructionGraph *This,
                                                                  IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    return give(v, g,
                v->fragment ? fragment_end(v->fragment, false) : clrie_il_graph_original_first(g),
                S_OK, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetOriginalLastInstruction(IInstructionGraph *This,
                                                                 IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    return give(v, g,
                v->fragment ? fragment_end(v->fragment, true) : clrie_il_graph_original_last(g),
                S_OK, pp);
}

/* The code a baseline replaced: S_FALSE with NULL when there is none (CLRIE). */
static HRESULT uninstrumented_end(IInstructionGraph *This, bool last, IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *old = v->fragment ? NULL : v->body->uninstrumented;
    if (!pp)
        return E_POINTER;
    *pp = NULL;
    if (!old)
        return S_FALSE;
    return give(v, old,
                last ? clrie_il_graph_original_last(old) : clrie_il_graph_original_first(old),
                S_FALSE, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetUninstrumentedFirstInstruction(IInstructionGraph *This,
                                                                        IInstruction **pp)
{
    return uninstrumented_end(This, false, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetUninstrumentedLastInstruction(IInstructionGraph *This,
                                                                       IInstruction **pp)
{
    return uninstrumented_end(This, true, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetInstructionAtOffset(IInstructionGraph *This, DWORD offset,
                                                             IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    if (!v->fragment)
        return give(v, g, clrie_il_graph_at_offset(g, offset), E_FAIL, pp);
    /* A fragment's offsets: from its first byte, in decoded order. */
    uint32_t at = 0;
    for (size_t i = 0; i < v->fragment->count; i++) {
        if (at == offset)
            return give(v, g, v->fragment->nodes[i], E_FAIL, pp);
        at += clrie_il_instr_size(v->fragment->nodes[i]);
    }
    return give(v, g, NULL, E_FAIL, pp);
}

static HRESULT STDMETHODCALLTYPE view_GetInstructionAtOriginalOffset(IInstructionGraph *This,
                                                                     DWORD offset,
                                                                     IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct clrie_il_graph *g = v->body->graph;
    return give(v, g, v->fragment ? NULL : clrie_il_graph_at_original_offset(g, offset), E_FAIL,
                pp);
}

static HRESULT STDMETHODCALLTYPE view_GetInstructionAtUninstrumentedOffset(IInstructionGraph *This,
                                                                           DWORD offset,
                                                                           IInstruction **pp)
{
    struct il_graph_view *v = of_view(This);
    struct il_body *body = v->body;
    if (v->fragment || !body->baseline_set)
        return view_GetInstructionAtOriginalOffset(This, offset, pp);
    /* Exact matches only: a baseline differs from the original between sequence points. */
    for (size_t i = 0; i < body->baseline_map_count; i++)
        if (body->baseline_map[i].oldOffset == offset)
            return give(
                v, body->graph,
                clrie_il_graph_at_original_offset(body->graph, body->baseline_map[i].newOffset),
                E_FAIL, pp);
    return give(v, body->graph, NULL, E_FAIL, pp);
}

/* ---- edits ---- */

enum edit {
    EDIT_INSERT_BEFORE,
    EDIT_INSERT_AFTER,
    EDIT_INSERT_BEFORE_RETARGET,
    EDIT_REPLACE,
};

static const char *const edit_names[] = {
    [EDIT_INSERT_BEFORE] = "IInstructionGraph::InsertBefore",
    [EDIT_INSERT_AFTER] = "IInstructionGraph::InsertAfter",
    [EDIT_INSERT_BEFORE_RETARGET] = "IInstructionGraph::InsertBeforeAndRetargetOffsets",
    [EDIT_REPLACE] = "IInstructionGraph::Replace",
};

/* Edits go through the method's graph; a fragment's view only reads. */
static bool editable(struct il_graph_view *v, const char *what)
{
    if (!v->fragment)
        return true;
    IL_LOG(v->body,
           "%s: the graph DecodeInstructionByteStream returned only reads; insert its "
           "instructions through the method's graph",
           what);
    return false;
}

/* Whether n is in g's current list; only to say why libilgraph refused an edit. */
static bool listed(struct clrie_il_graph *g, struct clrie_il_instr *n)
{
    return clrie_il_instr_prev(n) || clrie_il_instr_next(n) || clrie_il_graph_first(g) == n;
}

/* Why libilgraph refused anchor/node, for the log. */
static const char *refusal(struct clrie_il_graph *g, struct il_instruction *anchor,
                           struct il_instruction *node)
{
    if (anchor && clrie_il_instr_is_removed(anchor->node))
        return "the instruction to insert at was removed";
    if (anchor && !listed(g, anchor->node))
        return "the instruction to insert at is not in the method yet";
    if (clrie_il_instr_is_removed(node->node))
        return "the instruction to insert was removed from the method";
    return "the instruction to insert is already in the method";
}

static HRESULT edit(IInstructionGraph *This, enum edit kind, IInstruction *pOrig,
                    IInstruction *pNew)
{
    struct il_graph_view *v = of_view(This);
    struct il_body *body = v->body;
    const char *what = edit_names[kind];
    if (!editable(v, what))
        return E_NOTIMPL;
    if ((!pOrig && kind != EDIT_INSERT_AFTER) || !pNew)
        return E_POINTER;
    struct il_instruction *anchor = NULL, *node;
    if (pOrig && !(anchor = clrie_pm__il_instruction_own(body, pOrig, what)))
        return E_INVALIDARG;
    if (!(node = clrie_pm__il_instruction_own(body, pNew, what)))
        return E_INVALIDARG;
    if ((anchor && anchor->graph != body->graph) || node->graph != body->graph) {
        IL_LOG(body, "%s: the instruction belongs to the code a baseline replaced", what);
        return E_UNEXPECTED;
    }
    struct clrie_il_graph *g = body->graph;
    struct clrie_il_instr *a = anchor ? anchor->node : NULL;
    int r;
    switch (kind) {
    case EDIT_INSERT_BEFORE:
        r = clrie_il_graph_insert_before(g, a, node->node);
        break;
    case EDIT_INSERT_AFTER:
        r = clrie_il_graph_insert_after(g, a, node->node);
        break;
    case EDIT_INSERT_BEFORE_RETARGET:
        r = clrie_il_graph_insert_before_retarget(g, a, node->node);
        break;
    default:
        r = clrie_il_graph_replace(g, a, node->node);
        break;
    }
    if (r == -EINVAL) {
        IL_LOG(body, "%s: %s", what, refusal(g, anchor, node));
        return E_UNEXPECTED;
    }
    if (r < 0)
        return clrie_pm__il_hresult(r);
    node->fragment = NULL; /* placed: its neighbours are the method's now */
    body->edits++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE view_InsertBefore(IInstructionGraph *This, IInstruction *pOrig,
                                                   IInstruction *pNew)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::InsertBefore");
    return edit(This, EDIT_INSERT_BEFORE, pOrig, pNew);
}

static HRESULT STDMETHODCALLTYPE view_InsertAfter(IInstructionGraph *This, IInstruction *pOrig,
                                                  IInstruction *pNew)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::InsertAfter");
    return edit(This, EDIT_INSERT_AFTER, pOrig, pNew);
}

static HRESULT STDMETHODCALLTYPE view_InsertBeforeAndRetargetOffsets(IInstructionGraph *This,
                                                                     IInstruction *pOrig,
                                                                     IInstruction *pNew)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::InsertBeforeAndRetargetOffsets");
    return edit(This, EDIT_INSERT_BEFORE_RETARGET, pOrig, pNew);
}

static HRESULT STDMETHODCALLTYPE view_Replace(IInstructionGraph *This, IInstruction *pOrig,
                                              IInstruction *pNew)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::Replace");
    return edit(This, EDIT_REPLACE, pOrig, pNew);
}

static HRESULT STDMETHODCALLTYPE view_Remove(IInstructionGraph *This, IInstruction *pInstruction)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::Remove");
    struct il_graph_view *v = of_view(This);
    struct il_body *body = v->body;
    const char *what = "IInstructionGraph::Remove";
    if (!editable(v, what))
        return E_NOTIMPL;
    if (!pInstruction)
        return E_POINTER;
    struct il_instruction *obj = clrie_pm__il_instruction_own(body, pInstruction, what);
    if (!obj)
        return E_INVALIDARG;
    if (obj->graph != body->graph) {
        IL_LOG(body, "%s: the instruction belongs to the code a baseline replaced", what);
        return E_UNEXPECTED;
    }
    int r = clrie_il_graph_remove(body->graph, obj->node);
    if (r == -EINVAL) {
        IL_LOG(body, "%s: %s", what,
               clrie_il_graph_count(body->graph) == 1 &&
                       clrie_il_graph_first(body->graph) == obj->node
                   ? "the method cannot lose its only instruction"
                   : "the instruction is not in the method");
        return E_UNEXPECTED;
    }
    if (r < 0)
        return clrie_pm__il_hresult(r);
    body->edits++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE view_RemoveAll(IInstructionGraph *This)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::RemoveAll");
    struct il_graph_view *v = of_view(This);
    if (!editable(v, "IInstructionGraph::RemoveAll"))
        return E_NOTIMPL;
    clrie_il_graph_remove_all(v->body->graph);
    v->body->edits++;
    return S_OK;
}

/* ---- baseline ---- */

static HRESULT STDMETHODCALLTYPE view_CreateBaseline(IInstructionGraph *This, LPCBYTE pCodeBase,
                                                     LPCBYTE pEndOfCode, DWORD mapSize,
                                                     COR_IL_MAP map[], DWORD seqSize, DWORD seq[])
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::CreateBaseline");
    struct il_graph_view *v = of_view(This);
    struct il_body *body = v->body;
    const char *what = "IInstructionGraph::CreateBaseline";
    if (!pCodeBase || !pEndOfCode || (mapSize && !map) || (seqSize && !seq))
        return E_POINTER;
    if (pCodeBase >= pEndOfCode)
        return E_INVALIDARG;
    if (v->fragment) {
        IL_LOG(body, "%s: the graph DecodeInstructionByteStream returned has no method", what);
        return E_FAIL;
    }
    if (body->baseline_set) {
        IL_LOG(body, "%s: the baseline has already been set", what);
        return E_FAIL;
    }
    if (!body->allow_baseline) {
        IL_LOG(body, "%s: a baseline can only be set during BeforeInstrumentMethod", what);
        return E_FAIL;
    }
    struct clrie_il_graph *baseline = NULL;
    struct clrie_il_diag diag = {0};
    int r =
        clrie_il_graph_decode_code(pCodeBase, (size_t)(pEndOfCode - pCodeBase), &baseline, &diag);
    if (r < 0) {
        IL_LOG(body, "%s: the baseline code is malformed at IL offset %u: %s", what, diag.offset,
               diag.message);
        return clrie_pm__il_hresult(r);
    }
    COR_IL_MAP *map_copy = malloc((mapSize ? mapSize : 1) * sizeof(*map_copy));
    DWORD *seq_copy = malloc((seqSize ? seqSize : 1) * sizeof(*seq_copy));
    if (!map_copy || !seq_copy) {
        free(map_copy);
        free(seq_copy);
        clrie_il_graph_free(baseline);
        return E_OUTOFMEMORY;
    }
    if (mapSize)
        memcpy(map_copy, map, mapSize * sizeof(*map_copy));
    if (seqSize)
        memcpy(seq_copy, seq, seqSize * sizeof(*seq_copy));

    /* The baseline keeps the method's header (locals, flags); the decoded code becomes the
     * uninstrumented view, all of it removed, with its clauses, as CLRIE's RemoveAll does. */
    struct clrie_il_header h;
    clrie_il_graph_header(body->graph, &h);
    if (h.fat)
        clrie_il_graph_set_fat_header(baseline, h.flags, h.max_stack, h.local_sig_token);
    clrie_il_graph_remove_all(body->graph);
    body->uninstrumented = body->graph;
    body->graph = baseline;
    body->baseline_map = map_copy;
    body->baseline_map_count = mapSize;
    body->sequence_points = seq_copy;
    body->sequence_point_count = seqSize;
    body->baseline_set = true;
    body->edits++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE view_HasBaselineBeenSet(IInstructionGraph *This, BOOL *pSet)
{
    struct il_graph_view *v = of_view(This);
    if (!pSet)
        return E_POINTER;
    *pSet = !v->fragment && v->body->baseline_set;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE view_ExpandBranches(IInstructionGraph *This)
{
    IL_EDIT(of_view(This)->body, "IInstructionGraph::ExpandBranches");
    struct il_graph_view *v = of_view(This);
    if (v->fragment) {
        /* Not the method's code until inserted (which marks the method changed). */
        for (size_t i = 0; i < v->fragment->count; i++)
            (void)clrie_il_instr_expand_branch(v->fragment->nodes[i]); /* -EINVAL: no branch */
        return S_OK;
    }
    clrie_il_graph_expand_branches(v->body->graph);
    v->body->edits++;
    return S_OK;
}

static const struct IInstructionGraphVtbl view_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(view),
    .GetMethodInfo = view_GetMethodInfo,
    .GetFirstInstruction = view_GetFirstInstruction,
    .GetLastInstruction = view_GetLastInstruction,
    .GetOriginalFirstInstruction = view_GetOriginalFirstInstruction,
    .GetOriginalLastInstruction = view_GetOriginalLastInstruction,
    .GetUninstrumentedFirstInstruction = view_GetUninstrumentedFirstInstruction,
    .GetUninstrumentedLastInstruction = view_GetUninstrumentedLastInstruction,
    .GetInstructionAtOffset = view_GetInstructionAtOffset,
    .GetInstructionAtOriginalOffset = view_GetInstructionAtOriginalOffset,
    .GetInstructionAtUninstrumentedOffset = view_GetInstructionAtUninstrumentedOffset,
    .InsertBefore = view_InsertBefore,
    .InsertAfter = view_InsertAfter,
    .InsertBeforeAndRetargetOffsets = view_InsertBeforeAndRetargetOffsets,
    .Replace = view_Replace,
    .Remove = view_Remove,
    .RemoveAll = view_RemoveAll,
    .CreateBaseline = view_CreateBaseline,
    .HasBaselineBeenSet = view_HasBaselineBeenSet,
    .ExpandBranches = view_ExpandBranches,
};

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IINSTRUCTIONGRAPH_METHODS) == 22, "IInstructionGraph");

void clrie_pm__il_graph_view_init(struct il_graph_view *view, struct il_body *body,
                                  struct il_fragment *fragment)
{
    view->iface.lpVtbl = &view_vtbl;
    view->body = body;
    view->fragment = fragment;
    clrie_plugin_com_init(&view->com, &view_class);
    clrie_pm_data_container_init(&view->data, (IUnknown *)&view->iface);
}

struct il_graph_view *clrie_pm__il_graph_view_from(IInstructionGraph *iface)
{
    return iface && iface->lpVtbl == &view_vtbl ? of_view(iface) : NULL;
}
