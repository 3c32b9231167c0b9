/* One method's IL objects, top of the folder: decoding the body, creating its objects (the
 * graph, exception section, factory and single-ret, each file's init) and freeing them all, and
 * what the pipeline asks of the body. The objects' memory and tables are il_store.c. */
#include "il_private.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* ---- the body ---- */

HRESULT clrie_pm_il_body_new(const struct il_body_params *params, const uint8_t *code, size_t len,
                             struct il_body **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!params || !params->outer || (!code && len))
        return E_INVALIDARG;
    struct il_body *body = calloc(1, sizeof(*body));
    if (!body)
        return E_OUTOFMEMORY;
    body->params = *params;
    body->log = params->log;
    if (params->method_sig_len) {
        if (!params->method_sig) {
            free(body);
            return E_INVALIDARG;
        }
        body->sig_copy = malloc(params->method_sig_len);
        if (!body->sig_copy) {
            free(body);
            return E_OUTOFMEMORY;
        }
        memcpy(body->sig_copy, params->method_sig, params->method_sig_len);
    }
    body->params.method_sig = body->sig_copy;

    struct clrie_il_diag diag = {0};
    int r = clrie_il_graph_decode(code, len, &body->graph, &diag);
    if (r < 0) {
        if (r == -EILSEQ)
            IL_LOG(body, "the method body is malformed at byte %u: %s", diag.offset, diag.message);
        else
            IL_LOG(body, "the method body could not be decoded (error %d)", -r);
        free(body->sig_copy);
        free(body);
        return r == -ENOMEM ? E_OUTOFMEMORY : E_FAIL;
    }
    clrie_pm__il_graph_view_init(&body->graph_view, body, NULL);
    clrie_pm__il_exceptions_init(&body->exceptions, body);
    clrie_pm__il_factory_init(&body->factory, body);
    clrie_pm__il_single_ret_init(&body->single_ret, body);
    *out = body;
    return S_OK;
}

void clrie_pm_il_body_free(struct il_body *body)
{
    if (!body)
        return;
    for (size_t i = 0; i < body->instructions.capacity; i++) {
        struct il_instruction *obj = body->instructions.slots[i].value;
        if (body->instructions.slots[i].key)
            clrie_pm_data_container_finish(&obj->data);
    }
    for (size_t i = 0; i < body->clauses.capacity; i++) {
        struct il_clause *obj = body->clauses.slots[i].value;
        /* A clause removed and added again is listed under both of its libilgraph clauses. */
        if (body->clauses.slots[i].key && obj->clause == body->clauses.slots[i].key)
            clrie_pm_data_container_finish(&obj->data);
    }
    while (body->fragments) {
        struct il_fragment *f = body->fragments;
        body->fragments = f->next;
        clrie_pm_data_container_finish(&f->view.data);
        free(f->nodes);
    }
    clrie_pm_data_container_finish(&body->graph_view.data);
    clrie_pm_data_container_finish(&body->exceptions.data);
    clrie_pm_data_container_finish(&body->factory.data);
    clrie_pm_data_container_finish(&body->single_ret.data);
    clrie_pm__il_ptr_map_finish(&body->instructions);
    clrie_pm__il_ptr_map_finish(&body->clauses);
    clrie_pm__il_alloc_finish(body);
    clrie_il_graph_free(body->graph);
    clrie_il_graph_free(body->uninstrumented);
    free(body->baseline_map);
    free(body->sequence_points);
    free(body->sig_copy);
    free(body);
}

IInstructionGraph *clrie_pm_il_body_graph(struct il_body *body)
{
    return &body->graph_view.iface;
}

IExceptionSection *clrie_pm_il_body_exceptions(struct il_body *body)
{
    return &body->exceptions.iface;
}

IInstructionFactory *clrie_pm_il_body_factory(struct il_body *body)
{
    return &body->factory.iface;
}

ISingleRetDefaultInstrumentation2 *clrie_pm_il_body_single_ret(struct il_body *body)
{
    return &body->single_ret.iface;
}

struct clrie_il_graph *clrie_pm_il_body_ilgraph(struct il_body *body)
{
    return body->graph;
}

bool clrie_pm_il_body_changed(const struct il_body *body)
{
    return body->edits != 0;
}

unsigned long clrie_pm_il_body_edits(const struct il_body *body)
{
    return body->edits;
}

void clrie_pm_il_body_close(struct il_body *body, struct clrie_pm_log_name method_name)
{
    body->method_name = method_name;
    atomic_store_explicit(&body->closed, true, memory_order_release);
}

void clrie_pm_il_body_allow_baseline(struct il_body *body, bool allow)
{
    body->allow_baseline = allow;
}

bool clrie_pm_il_body_baseline(const struct il_body *body, struct il_body_baseline *out)
{
    if (!body->baseline_set)
        return false;
    if (out)
        *out = (struct il_body_baseline){
            .original_to_baseline = body->baseline_map,
            .map_count = body->baseline_map_count,
            .sequence_points = body->sequence_points,
            .sequence_point_count = body->sequence_point_count,
        };
    return true;
}

HRESULT clrie_pm_il_body_enum_instructions(struct il_body *body, bool original,
                                           IEnumInstructions **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    struct clrie_il_graph *g = body->graph;
    size_t count = 0;
    struct clrie_il_instr *first =
        original ? clrie_il_graph_original_first(g) : clrie_il_graph_first(g);
    for (struct clrie_il_instr *n = first; n;
         n = original ? clrie_il_instr_original_next(n) : clrie_il_instr_next(n))
        count++;
    IInstruction **items = malloc((count ? count : 1) * sizeof(*items));
    if (!items)
        return E_OUTOFMEMORY;
    size_t i = 0;
    HRESULT hr = S_OK;
    for (struct clrie_il_instr *n = first; n && SUCCEEDED(hr);
         n = original ? clrie_il_instr_original_next(n) : clrie_il_instr_next(n))
        if (SUCCEEDED(hr = clrie_pm__il_instruction_give(body, g, n, E_FAIL, &items[i])))
            i++;
    void *e = NULL;
    if (SUCCEEDED(hr))
        hr = il_body_enum(body, &IID_IEnumInstructions, items, i, &e);
    if (SUCCEEDED(hr))
        *out = e;
    for (size_t k = 0; k < i; k++)
        items[k]->lpVtbl->Release(items[k]);
    free(items);
    return hr;
}
