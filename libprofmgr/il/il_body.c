/* One method's IL objects: decoding the body, the node -> object and clause -> object tables,
 * the memory objects live in, and what the pipeline asks of the body. */
#include "il_private.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* ---- pointer table ---- */

static size_t slot_of(const void *key, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (capacity - 1);
}

void *il_ptr_map_get(const struct il_ptr_map *map, const void *key)
{
    if (!map->capacity)
        return NULL;
    for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->keys[i] == key)
            return map->values[i];
        if (!map->keys[i])
            return NULL;
    }
}

static void put_slot(void **keys, void **values, size_t capacity, void *key, void *value)
{
    size_t i = slot_of(key, capacity);
    while (keys[i] && keys[i] != key)
        i = (i + 1) & (capacity - 1);
    keys[i] = key;
    values[i] = value;
}

int il_ptr_map_put(struct il_ptr_map *map, void *key, void *value)
{
    if ((map->count + 1) * 2 > map->capacity) {
        size_t capacity = map->capacity ? map->capacity * 2 : 16;
        void **keys = calloc(capacity, sizeof(*keys));
        void **values = calloc(capacity, sizeof(*values));
        if (!keys || !values) {
            free(keys);
            free(values);
            return -ENOMEM;
        }
        for (size_t i = 0; i < map->capacity; i++)
            if (map->keys[i])
                put_slot(keys, values, capacity, map->keys[i], map->values[i]);
        free(map->keys);
        free(map->values);
        map->keys = keys;
        map->values = values;
        map->capacity = capacity;
    }
    put_slot(map->keys, map->values, map->capacity, key, value);
    map->count++;
    return 0;
}

void il_ptr_map_finish(struct il_ptr_map *map)
{
    free(map->keys);
    free(map->values);
    memset(map, 0, sizeof(*map));
}

/* ---- object memory ---- */

struct il_chunk {
    struct il_chunk *next;
    size_t size;
    alignas(max_align_t) unsigned char data[];
};

#define CHUNK_SIZE 8192u

void *il_body_alloc(struct il_body *body, size_t size)
{
    size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    struct il_chunk *c = body->chunks;
    if (!c || c->size - body->chunk_used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->size = cap;
        c->next = body->chunks;
        body->chunks = c;
        body->chunk_used = 0;
    }
    void *p = c->data + body->chunk_used;
    body->chunk_used += size;
    memset(p, 0, size);
    return p;
}

/* ---- errors ---- */

HRESULT il_hresult(int err)
{
    switch (err) {
    case 0:
        return S_OK;
    case -ENOMEM:
        return E_OUTOFMEMORY;
    case -ENOTSUP:
        return E_NOTIMPL;
    case -EILSEQ:
        return E_FAIL;
    default:
        return E_INVALIDARG;
    }
}

/* ---- objects of nodes and clauses ---- */

struct il_instruction *il_body_instruction(struct il_body *body, struct clrie_il_graph *graph,
                                           struct clrie_il_instr *node)
{
    struct il_instruction *obj = il_ptr_map_get(&body->instructions, node);
    if (obj)
        return obj;
    obj = il_body_alloc(body, sizeof(*obj));
    if (!obj || il_ptr_map_put(&body->instructions, node, obj) < 0)
        return NULL; /* the chunk memory goes with the body */
    obj->body = body;
    obj->node = node;
    obj->graph = graph;
    il_instruction_init(obj);
    return obj;
}

HRESULT il_body_give_instruction(struct il_body *body, struct clrie_il_graph *graph,
                                 struct clrie_il_instr *node, HRESULT missing, IInstruction **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!node)
        return missing;
    struct il_instruction *obj = il_body_instruction(body, graph, node);
    if (!obj)
        return E_OUTOFMEMORY;
    il_body_add_ref(body);
    *out = &obj->iface;
    return S_OK;
}

struct il_instruction *il_body_own_instruction(struct il_body *body, IInstruction *instr,
                                               const char *what)
{
    struct il_instruction *obj = il_instruction_from(instr);
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

struct il_clause *il_body_clause(struct il_body *body, struct clrie_il_graph *graph,
                                 struct clrie_il_clause *clause)
{
    struct il_clause *obj = il_ptr_map_get(&body->clauses, clause);
    if (obj)
        return obj;
    obj = il_body_alloc(body, sizeof(*obj));
    if (!obj || il_ptr_map_put(&body->clauses, clause, obj) < 0)
        return NULL;
    obj->body = body;
    obj->clause = clause;
    obj->graph = graph;
    il_clause_init(obj);
    return obj;
}

/* ---- the body ---- */

HRESULT il_body_new(const struct il_body_params *params, const uint8_t *code, size_t len,
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
    il_graph_view_init(&body->graph_view, body, NULL);
    il_exceptions_init(&body->exceptions, body);
    il_factory_init(&body->factory, body);
    il_single_ret_init(&body->single_ret, body);
    *out = body;
    return S_OK;
}

void il_body_free(struct il_body *body)
{
    if (!body)
        return;
    for (size_t i = 0; i < body->instructions.capacity; i++) {
        struct il_instruction *obj = body->instructions.values[i];
        if (body->instructions.keys[i])
            clrie_pm_data_container_finish(&obj->data);
    }
    for (size_t i = 0; i < body->clauses.capacity; i++) {
        struct il_clause *obj = body->clauses.values[i];
        /* A clause removed and added again is listed under both of its libilgraph clauses. */
        if (body->clauses.keys[i] && obj->clause == body->clauses.keys[i])
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
    il_ptr_map_finish(&body->instructions);
    il_ptr_map_finish(&body->clauses);
    while (body->chunks) {
        struct il_chunk *c = body->chunks;
        body->chunks = c->next;
        free(c);
    }
    clrie_il_graph_free(body->graph);
    clrie_il_graph_free(body->uninstrumented);
    free(body->baseline_map);
    free(body->sequence_points);
    free(body->sig_copy);
    free(body);
}

IInstructionGraph *il_body_graph(struct il_body *body)
{
    return &body->graph_view.iface;
}

IExceptionSection *il_body_exceptions(struct il_body *body)
{
    return &body->exceptions.iface;
}

IInstructionFactory *il_body_factory(struct il_body *body)
{
    return &body->factory.iface;
}

ISingleRetDefaultInstrumentation2 *il_body_single_ret(struct il_body *body)
{
    return &body->single_ret.iface;
}

struct clrie_il_graph *il_body_ilgraph(struct il_body *body)
{
    return body->graph;
}

bool il_body_changed(const struct il_body *body)
{
    return body->changed;
}

void il_body_allow_baseline(struct il_body *body, bool allow)
{
    body->allow_baseline = allow;
}

bool il_body_baseline(const struct il_body *body, struct il_body_baseline *out)
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

HRESULT il_body_enum_instructions(struct il_body *body, bool original, IEnumInstructions **out)
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
        if (SUCCEEDED(hr = il_body_give_instruction(body, g, n, E_FAIL, &items[i])))
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
