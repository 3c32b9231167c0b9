/* IExceptionSection and IExceptionClause: the method's exception clauses as instruction
 * references, in the table order the runtime needs. */
#include "il_private.h"

#include <stdlib.h>
#include <string.h>

static struct il_exceptions *of_section(IExceptionSection *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_exceptions, iface);
}

static struct il_clause *clause_from(IExceptionClause *iface);

static struct il_clause *of_clause(IExceptionClause *This)
{
    return CLRIE_CONTAINER_OF(This, struct il_clause, iface);
}

/* Whether c is in the table of the method's current graph. */
static bool in_table(struct il_body *body, const struct clrie_il_clause *c)
{
    size_t count = clrie_il_graph_clause_count(body->graph);
    for (size_t i = 0; i < count; i++)
        if (clrie_il_graph_clause(body->graph, i) == c)
            return true;
    return false;
}

static bool is_filter(uint32_t flags)
{
    return (flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER;
}

/* The node of an instruction a plugin gave as a clause boundary: of this body's current
 * graph; a replaced instruction means its replacement, as under CLRIE (*named is then the
 * replaced one, else NULL). NULL (logged) otherwise. */
static struct clrie_il_instr *boundary(struct il_body *body, IInstruction *instr, const char *what,
                                       struct clrie_il_instr **named)
{
    struct il_instruction *obj = clrie_pm__il_instruction_own(body, instr, what);
    if (!obj)
        return NULL;
    struct clrie_il_instr *node = clrie_il_instr_current(obj->node);
    if (obj->graph != body->graph || clrie_il_instr_is_removed(node)) {
        IL_LOG(body, "%s: the instruction was removed from the method", what);
        return NULL;
    }
    *named = node != obj->node ? obj->node : NULL;
    return node;
}

/* Hands out the object of clause c (current graph). */
static HRESULT give_clause(struct il_body *body, struct clrie_il_clause *c, IExceptionClause **out)
{
    struct il_clause *obj = clrie_pm__il_clause_of(body, body->graph, c);
    if (!obj)
        return E_OUTOFMEMORY;
    obj->iface.lpVtbl->AddRef(&obj->iface);
    *out = &obj->iface;
    return S_OK;
}

static void remember(struct il_clause *obj)
{
    clrie_il_clause_get(obj->clause, &obj->saved_info);
    obj->saved = true;
}

/* ---- IExceptionSection ---- */

static const struct clrie_plugin_com_iface section_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IExceptionSection, struct il_exceptions, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_exceptions, data.iface),
};
CLRIE_PM_COM_CLASS_LOGGED(section_class, "IExceptionSection", struct il_exceptions, com, NULL,
                          section_ifaces, IL_LOG_OF);
CLRIE_PM_COM_OWNED(section, IExceptionSection, struct il_exceptions, iface, com, IL_OWNER)

static HRESULT STDMETHODCALLTYPE section_GetMethodInfo(IExceptionSection *This,
                                                       IMethodInfo **ppMethodInfo)
{
    if (!ppMethodInfo)
        return E_POINTER;
    *ppMethodInfo = of_section(This)->body->params.method;
    if (!*ppMethodInfo)
        return E_FAIL;
    (*ppMethodInfo)->lpVtbl->AddRef(*ppMethodInfo);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE section_GetExceptionClauses(IExceptionSection *This,
                                                             IEnumExceptionClauses **ppEnum)
{
    struct il_body *body = of_section(This)->body;
    if (!ppEnum)
        return E_POINTER;
    *ppEnum = NULL;
    size_t count = clrie_il_graph_clause_count(body->graph);
    IExceptionClause **items = malloc((count ? count : 1) * sizeof(*items));
    if (!items)
        return E_OUTOFMEMORY;
    HRESULT hr = S_OK;
    size_t made = 0;
    for (; made < count && SUCCEEDED(hr); made += SUCCEEDED(hr))
        hr = give_clause(body, clrie_il_graph_clause(body->graph, made), &items[made]);
    void *e = NULL;
    if (SUCCEEDED(hr))
        hr = il_body_enum(body, &IID_IEnumExceptionClauses, items, count, &e);
    if (SUCCEEDED(hr))
        *ppEnum = e;
    for (size_t i = 0; i < made; i++)
        items[i]->lpVtbl->Release(items[i]);
    free(items);
    return hr;
}

/* The boundaries of a clause a plugin implemented itself, read through its interface. */
static HRESULT foreign_info(struct il_body *body, IExceptionClause *c,
                            struct clrie_il_clause_info *info)
{
    const char *what = "IExceptionSection::AddExceptionClause";
    DWORD flags = 0;
    mdToken token = 0;
    IInstruction *parts[5] = {NULL};
    HRESULT hr;
    if (FAILED(hr = c->lpVtbl->GetFlags(c, &flags)) ||
        FAILED(hr = c->lpVtbl->GetExceptionHandlerType(c, &token)) ||
        FAILED(hr = c->lpVtbl->GetTryFirstInstruction(c, &parts[0])) ||
        FAILED(hr = c->lpVtbl->GetTryLastInstruction(c, &parts[1])) ||
        FAILED(hr = c->lpVtbl->GetHandlerFirstInstruction(c, &parts[2])) ||
        FAILED(hr = c->lpVtbl->GetHandlerLastInstruction(c, &parts[3])) ||
        (is_filter(flags) && FAILED(hr = c->lpVtbl->GetFilterFirstInstruction(c, &parts[4]))))
        goto done;
    struct clrie_il_instr *nodes[5] = {NULL}, *named[5] = {NULL};
    for (int i = 0; i < 5; i++) {
        if ((i < 4 || is_filter(flags)) &&
            (!parts[i] || !(nodes[i] = boundary(body, parts[i], what, &named[i])))) {
            hr = E_INVALIDARG;
            goto done;
        }
    }
    *info = (struct clrie_il_clause_info){
        .flags = flags,
        .try_first = nodes[0],
        .try_last = nodes[1],
        .handler_first = nodes[2],
        .handler_last = nodes[3],
        .filter_first = nodes[4],
        .class_token = token,
    };
done:
    for (int i = 0; i < 5; i++)
        if (parts[i])
            parts[i]->lpVtbl->Release(parts[i]);
    return hr;
}

static HRESULT STDMETHODCALLTYPE section_AddExceptionClause(IExceptionSection *This,
                                                            IExceptionClause *pClause)
{
    IL_EDIT(of_section(This)->body, "IExceptionSection::AddExceptionClause");
    struct il_body *body = of_section(This)->body;
    const char *what = "IExceptionSection::AddExceptionClause";
    if (!pClause)
        return E_POINTER;
    struct il_clause *own = clause_from(pClause);
    struct clrie_il_clause_info info;
    if (own && own->body != body) {
        IL_LOG(body, "%s: the clause belongs to another method", what);
        return E_INVALIDARG;
    }
    if (own && in_table(body, own->clause)) {
        IL_LOG(body, "%s: the clause is already in the method", what);
        return E_INVALIDARG;
    }
    if (own && (!own->saved || own->graph != body->graph)) {
        IL_LOG(body, "%s: the clause's instructions are gone", what);
        return E_INVALIDARG;
    }
    if (own) {
        info = own->saved_info;
    } else {
        HRESULT hr = foreign_info(body, pClause, &info);
        if (FAILED(hr))
            return hr;
    }
    struct clrie_il_clause *c;
    int r = clrie_il_graph_append_clause(body->graph, &info, &c);
    if (r < 0) {
        IL_LOG(body, "%s: the clause's instructions are not in the method", what);
        return clrie_pm__il_hresult(r);
    }
    body->edits++;
    if (own) {
        /* The plugin's object stands for the clause again. */
        own->clause = c;
        own->saved = false;
        if (clrie_pm__il_ptr_map_put(&body->clauses, c, own) < 0)
            return E_OUTOFMEMORY;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE section_RemoveExceptionClause(IExceptionSection *This,
                                                               IExceptionClause *pClause)
{
    IL_EDIT(of_section(This)->body, "IExceptionSection::RemoveExceptionClause");
    struct il_body *body = of_section(This)->body;
    if (!pClause)
        return E_POINTER;
    struct il_clause *obj = clause_from(pClause);
    if (!obj || obj->body != body || !in_table(body, obj->clause)) {
        IL_LOG(body, "IExceptionSection::RemoveExceptionClause: the clause is not in the method");
        return E_INVALIDARG;
    }
    remember(obj);
    HRESULT hr = clrie_pm__il_hresult(clrie_il_graph_remove_clause(body->graph, obj->clause));
    if (SUCCEEDED(hr))
        body->edits++;
    return hr;
}

static HRESULT STDMETHODCALLTYPE section_RemoveAllExceptionClauses(IExceptionSection *This)
{
    IL_EDIT(of_section(This)->body, "IExceptionSection::RemoveAllExceptionClauses");
    struct il_body *body = of_section(This)->body;
    struct clrie_il_clause *c;
    while ((c = clrie_il_graph_clause(body->graph, 0))) {
        struct il_clause *obj = clrie_pm__il_ptr_map_get(&body->clauses, c);
        if (obj)
            remember(obj);
        HRESULT hr = clrie_pm__il_hresult(clrie_il_graph_remove_clause(body->graph, c));
        if (FAILED(hr))
            return hr;
        body->edits++;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE section_AddNewExceptionClause(
    IExceptionSection *This, DWORD flags, IInstruction *pTryFirst, IInstruction *pTryLast,
    IInstruction *pHandlerFirst, IInstruction *pHandlerLast, IInstruction *pFilterFirst,
    mdToken handlerTypeToken, IExceptionClause **ppClause)
{
    IL_EDIT(of_section(This)->body, "IExceptionSection::AddNewExceptionClause");
    struct il_body *body = of_section(This)->body;
    const char *what = "IExceptionSection::AddNewExceptionClause";
    if (!ppClause)
        return E_POINTER;
    *ppClause = NULL;
    if (!pTryFirst || !pTryLast || !pHandlerFirst || !pHandlerLast ||
        (is_filter(flags) && !pFilterFirst))
        return E_POINTER;
    struct clrie_il_clause_info info = {.flags = flags, .class_token = handlerTypeToken};
    struct clrie_il_instr *named[5] = {NULL};
    if (!(info.try_first = boundary(body, pTryFirst, what, &named[0])) ||
        !(info.try_last = boundary(body, pTryLast, what, &named[1])) ||
        !(info.handler_first = boundary(body, pHandlerFirst, what, &named[2])) ||
        !(info.handler_last = boundary(body, pHandlerLast, what, &named[3])) ||
        (is_filter(flags) && !(info.filter_first = boundary(body, pFilterFirst, what, &named[4]))))
        return E_INVALIDARG;
    struct clrie_il_clause *c;
    int r = clrie_il_graph_add_clause(body->graph, &info, &c);
    if (r < 0) {
        IL_LOG(body, "%s: the clause's instructions are not all in the method", what);
        return clrie_pm__il_hresult(r);
    }
    body->edits++;
    HRESULT hr = give_clause(body, c, ppClause);
    if (SUCCEEDED(hr))
        memcpy(of_clause(*ppClause)->named, named, sizeof(named));
    return hr;
}

static const struct IExceptionSectionVtbl section_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(section),
    .GetMethodInfo = section_GetMethodInfo,
    .GetExceptionClauses = section_GetExceptionClauses,
    .AddExceptionClause = section_AddExceptionClause,
    .RemoveExceptionClause = section_RemoveExceptionClause,
    .RemoveAllExceptionClauses = section_RemoveAllExceptionClauses,
    .AddNewExceptionClause = section_AddNewExceptionClause,
};

/* ---- IExceptionClause ---- */

static const struct clrie_plugin_com_iface clause_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IExceptionClause, struct il_clause, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IDataContainer, struct il_clause, data.iface),
};
CLRIE_PM_COM_CLASS_LOGGED(clause_class, "IExceptionClause", struct il_clause, com, NULL,
                          clause_ifaces, IL_LOG_OF);
CLRIE_PM_COM_OWNED(clause, IExceptionClause, struct il_clause, iface, com, IL_OWNER)

/* The clause as it is, or as it was when removed. */
static void current_info(struct il_clause *obj, struct clrie_il_clause_info *info)
{
    if (obj->saved)
        *info = obj->saved_info;
    else
        clrie_il_clause_get(obj->clause, info);
}

static HRESULT STDMETHODCALLTYPE clause_GetFlags(IExceptionClause *This, DWORD *pFlags)
{
    if (!pFlags)
        return E_POINTER;
    struct clrie_il_clause_info info;
    current_info(of_clause(This), &info);
    *pFlags = info.flags;
    return S_OK;
}

enum part { TRY_FIRST, TRY_LAST, HANDLER_FIRST, HANDLER_LAST, FILTER_FIRST };

static struct clrie_il_instr **part_of(struct clrie_il_clause_info *info, enum part p)
{
    switch (p) {
    case TRY_FIRST:
        return &info->try_first;
    case TRY_LAST:
        return &info->try_last;
    case HANDLER_FIRST:
        return &info->handler_first;
    case HANDLER_LAST:
        return &info->handler_last;
    default:
        return &info->filter_first;
    }
}

static HRESULT get_part(IExceptionClause *This, enum part p, IInstruction **out)
{
    struct il_clause *obj = of_clause(This);
    struct clrie_il_clause_info info;
    current_info(obj, &info);
    struct clrie_il_instr *n = *part_of(&info, p);
    if (obj->named[p] && clrie_il_instr_current(obj->named[p]) == n)
        n = obj->named[p]; /* the replaced instruction the plugin named, as CLRIE answers */
    return clrie_pm__il_instruction_give(obj->body, obj->graph, n, S_OK, out);
}

static HRESULT STDMETHODCALLTYPE clause_GetTryFirstInstruction(IExceptionClause *This,
                                                               IInstruction **pp)
{
    return get_part(This, TRY_FIRST, pp);
}

static HRESULT STDMETHODCALLTYPE clause_GetTryLastInstruction(IExceptionClause *This,
                                                              IInstruction **pp)
{
    return get_part(This, TRY_LAST, pp);
}

static HRESULT STDMETHODCALLTYPE clause_GetHandlerFirstInstruction(IExceptionClause *This,
                                                                   IInstruction **pp)
{
    return get_part(This, HANDLER_FIRST, pp);
}

static HRESULT STDMETHODCALLTYPE clause_GetHandlerLastInstruction(IExceptionClause *This,
                                                                  IInstruction **pp)
{
    return get_part(This, HANDLER_LAST, pp);
}

static HRESULT STDMETHODCALLTYPE clause_GetFilterFirstInstruction(IExceptionClause *This,
                                                                  IInstruction **pp)
{
    return get_part(This, FILTER_FIRST, pp);
}

static HRESULT STDMETHODCALLTYPE clause_GetExceptionHandlerType(IExceptionClause *This,
                                                                mdToken *pToken)
{
    if (!pToken)
        return E_POINTER;
    struct clrie_il_clause_info info;
    current_info(of_clause(This), &info);
    *pToken = info.class_token;
    return S_OK;
}

/* Applies a changed description to a clause of the method. */
static HRESULT apply(struct il_clause *obj, const struct clrie_il_clause_info *info,
                     const char *what)
{
    int r = clrie_il_clause_set(obj->body->graph, obj->clause, info);
    if (r < 0) {
        IL_LOG(obj->body, "%s: the clause's instructions are not all in the method", what);
        return clrie_pm__il_hresult(r);
    }
    obj->body->edits++;
    return S_OK;
}

/* The clause's description for a setter; E_UNEXPECTED (logged) when it left the method. */
static HRESULT editable(struct il_clause *obj, const char *what, struct clrie_il_clause_info *info)
{
    if (obj->graph != obj->body->graph || !in_table(obj->body, obj->clause)) {
        IL_LOG(obj->body, "%s: the clause is no longer in the method", what);
        return E_UNEXPECTED;
    }
    clrie_il_clause_get(obj->clause, info);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE clause_SetFlags(IExceptionClause *This, DWORD flags)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetFlags");
    struct il_clause *obj = of_clause(This);
    const char *what = "IExceptionClause::SetFlags";
    struct clrie_il_clause_info info;
    HRESULT hr = editable(obj, what, &info);
    if (FAILED(hr))
        return hr;
    if (is_filter(flags) && !info.filter_first) {
        if (!obj->pending_filter) {
            IL_LOG(obj->body,
                   "%s: a filter clause needs its filter's first instruction: set it "
                   "first",
                   what);
            return E_INVALIDARG;
        }
        info.filter_first = obj->pending_filter;
    } else if (!is_filter(flags) && info.filter_first) {
        obj->pending_filter = info.filter_first;
        info.filter_first = NULL;
    }
    info.flags = flags;
    return apply(obj, &info, what);
}

static HRESULT set_part(IExceptionClause *This, enum part p, IInstruction *instr, const char *what)
{
    struct il_clause *obj = of_clause(This);
    if (!instr)
        return E_POINTER;
    struct clrie_il_clause_info info;
    HRESULT hr = editable(obj, what, &info);
    if (FAILED(hr))
        return hr;
    struct clrie_il_instr *named = NULL;
    struct clrie_il_instr *n = boundary(obj->body, instr, what, &named);
    if (!n)
        return E_INVALIDARG;
    obj->named[p] = named;
    if (p == FILTER_FIRST && !is_filter(info.flags)) {
        obj->pending_filter = n; /* used once SetFlags makes the clause a filter */
        return S_OK;
    }
    *part_of(&info, p) = n;
    return apply(obj, &info, what);
}

static HRESULT STDMETHODCALLTYPE clause_SetTryFirstInstruction(IExceptionClause *This,
                                                               IInstruction *p)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetTryFirstInstruction");
    return set_part(This, TRY_FIRST, p, "IExceptionClause::SetTryFirstInstruction");
}

static HRESULT STDMETHODCALLTYPE clause_SetTryLastInstruction(IExceptionClause *This,
                                                              IInstruction *p)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetTryLastInstruction");
    return set_part(This, TRY_LAST, p, "IExceptionClause::SetTryLastInstruction");
}

static HRESULT STDMETHODCALLTYPE clause_SetHandlerFirstInstruction(IExceptionClause *This,
                                                                   IInstruction *p)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetHandlerFirstInstruction");
    return set_part(This, HANDLER_FIRST, p, "IExceptionClause::SetHandlerFirstInstruction");
}

static HRESULT STDMETHODCALLTYPE clause_SetHandlerLastInstruction(IExceptionClause *This,
                                                                  IInstruction *p)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetHandlerLastInstruction");
    return set_part(This, HANDLER_LAST, p, "IExceptionClause::SetHandlerLastInstruction");
}

static HRESULT STDMETHODCALLTYPE clause_SetFilterFirstInstruction(IExceptionClause *This,
                                                                  IInstruction *p)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetFilterFirstInstruction");
    return set_part(This, FILTER_FIRST, p, "IExceptionClause::SetFilterFirstInstruction");
}

static HRESULT STDMETHODCALLTYPE clause_SetExceptionHandlerType(IExceptionClause *This,
                                                                mdToken token)
{
    IL_EDIT(of_clause(This)->body, "IExceptionClause::SetExceptionHandlerType");
    struct il_clause *obj = of_clause(This);
    const char *what = "IExceptionClause::SetExceptionHandlerType";
    struct clrie_il_clause_info info;
    HRESULT hr = editable(obj, what, &info);
    if (FAILED(hr))
        return hr;
    info.class_token = token;
    return apply(obj, &info, what);
}

static const struct IExceptionClauseVtbl clause_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(clause),
    .GetFlags = clause_GetFlags,
    .GetTryFirstInstruction = clause_GetTryFirstInstruction,
    .GetTryLastInstruction = clause_GetTryLastInstruction,
    .GetHandlerFirstInstruction = clause_GetHandlerFirstInstruction,
    .GetHandlerLastInstruction = clause_GetHandlerLastInstruction,
    .GetFilterFirstInstruction = clause_GetFilterFirstInstruction,
    .GetExceptionHandlerType = clause_GetExceptionHandlerType,
    .SetFlags = clause_SetFlags,
    .SetTryFirstInstruction = clause_SetTryFirstInstruction,
    .SetTryLastInstruction = clause_SetTryLastInstruction,
    .SetHandlerFirstInstruction = clause_SetHandlerFirstInstruction,
    .SetHandlerLastInstruction = clause_SetHandlerLastInstruction,
    .SetFilterFirstInstruction = clause_SetFilterFirstInstruction,
    .SetExceptionHandlerType = clause_SetExceptionHandlerType,
};

_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IEXCEPTIONSECTION_METHODS) == 9, "IExceptionSection");
_Static_assert(CLRIE_ABI_SLOT_COUNT(CLRIE_IEXCEPTIONCLAUSE_METHODS) == 17, "IExceptionClause");

void clrie_pm__il_exceptions_init(struct il_exceptions *obj, struct il_body *body)
{
    obj->iface.lpVtbl = &section_vtbl;
    clrie_plugin_com_init(&obj->com, &section_class);
    obj->body = body;
    clrie_pm_data_container_init(&obj->data, (IUnknown *)&obj->iface);
}

static void clause_init(struct il_clause *obj)
{
    obj->iface.lpVtbl = &clause_vtbl;
    clrie_plugin_com_init(&obj->com, &clause_class);
    clrie_pm_data_container_init(&obj->data, (IUnknown *)&obj->iface);
}

static struct il_clause *clause_from(IExceptionClause *iface)
{
    return iface && iface->lpVtbl == &clause_vtbl ? of_clause(iface) : NULL;
}

/* ---- the body's clause objects ---- */

struct il_clause *clrie_pm__il_clause_of(struct il_body *body, struct clrie_il_graph *graph,
                                         struct clrie_il_clause *clause)
{
    struct il_clause *obj = clrie_pm__il_ptr_map_get(&body->clauses, clause);
    if (obj)
        return obj;
    obj = clrie_pm__il_alloc(body, sizeof(*obj));
    if (!obj || clrie_pm__il_ptr_map_put(&body->clauses, clause, obj) < 0)
        return NULL;
    obj->body = body;
    obj->clause = clause;
    obj->graph = graph;
    clause_init(obj);
    return obj;
}
