/* Private layout of the IL objects (il_*.c): the body, its object tables and the object
 * structs, with the helpers the files share. The files call one way, from the top down:
 * il_body.c (creates everything) -> il_factory.c, il_single_ret.c -> il_graph.c ->
 * il_instruction.c -> il_store.c (memory, tables, error codes); il_exceptions.c (below
 * il_body.c) -> il_instruction.c. */
#ifndef CLRIE_PM_IL_PRIVATE_H
#define CLRIE_PM_IL_PRIVATE_H

#include <stdatomic.h>

#include "com.h"
#include "domains.h"
#include "enum.h"
#include "il_body.h"

/* Every object below is owned by its body, which frees them all at once (clrie_pm_il_body_free):
 * each has interfaces of its own and counts the references it handed out in its `com`, holding
 * one reference on the body's outer object while any is out (com.h's owned IUnknown). */
#define IL_OWNER(obj) ((obj)->body->params.outer)
/* The log of the body's runtime, where a surplus Release of the object is reported. */
#define IL_LOG_OF(obj) ((obj)->body->log)

/* Pointer -> pointer table (open addressing). Objects are never removed from it. */
struct il_ptr_slot {
    void *key; /* NULL: empty */
    void *value;
};

struct il_ptr_map {
    struct il_ptr_slot *slots;
    size_t capacity; /* 0 or a power of two */
    size_t count;
};

void *clrie_pm__il_ptr_map_get(const struct il_ptr_map *map, const void *key);
int clrie_pm__il_ptr_map_put(struct il_ptr_map *map, void *key, void *value); /* 0 or -ENOMEM */
/* Room for count entries in all, so that filling the map does not grow it step by step. */
int clrie_pm__il_ptr_map_reserve(struct il_ptr_map *map, size_t count); /* 0 or -ENOMEM */
void clrie_pm__il_ptr_map_finish(struct il_ptr_map *map);

struct il_fragment;

/* One IInstructionGraph: the method's own (fragment NULL) or a view over the nodes one
 * DecodeInstructionByteStream call made. */
struct il_graph_view {
    IInstructionGraph iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
    struct il_fragment *fragment;
};

/* The nodes of one DecodeInstructionByteStream call, in order (detached until placed). */
struct il_fragment {
    struct il_graph_view view;
    struct clrie_il_instr **nodes; /* malloc'd */
    size_t count;
    struct il_fragment *next; /* the body's list */
};

/* One node's COM object: IInstruction, with IOperandInstruction, IBranchInstruction or
 * ISwitchInstruction when the opcode's operand kind fits. */
struct il_instruction {
    IInstruction iface;
    IOperandInstruction operand;
    IBranchInstruction branch;
    ISwitchInstruction sw;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
    struct clrie_il_instr *node;
    struct clrie_il_graph *graph; /* the graph the node belongs to */
    struct il_fragment *fragment; /* decoded by a fragment and not placed yet, else NULL */
    size_t fragment_index;
};

/* One clause's COM object. */
struct il_clause {
    IExceptionClause iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
    struct clrie_il_clause *clause;
    struct clrie_il_graph *graph;
    /* A filter start given while the clause is not (yet) a filter: used by SetFlags. */
    struct clrie_il_instr *pending_filter;
    /* Per boundary (try first, try last, handler first, handler last, filter first): a
     * replaced instruction the plugin named for it, given back by the getter while it still
     * stands for that boundary, as CLRIE keeps the instruction it was given. */
    struct clrie_il_instr *named[5];
    /* What the clause was when RemoveExceptionClause took it out, for AddExceptionClause. */
    bool saved;
    struct clrie_il_clause_info saved_info;
};

struct il_exceptions {
    IExceptionSection iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
};

struct il_factory {
    IInstructionFactory iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
};

struct il_single_ret {
    ISingleRetDefaultInstrumentation2 iface;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    struct il_body *body;
    bool initialized;
    struct clrie_il_instr *exit; /* the shared exit once a transform changed the method */
};

/* Memory for objects: chunks freed together by clrie_pm_il_body_free. */
struct il_chunk;

struct il_body {
    struct il_body_params params; /* method_sig points at sig_copy */
    uint8_t *sig_copy;
    struct clrie_pm_log *log;

    struct clrie_il_graph *graph;          /* current: the decoded body, or the baseline */
    struct clrie_il_graph *uninstrumented; /* the decoded body once a baseline replaced it */
    unsigned long edits;                   /* edits that reached the graph since it was decoded */
    bool allow_baseline;
    bool baseline_set;
    COR_IL_MAP *baseline_map;
    size_t baseline_map_count;
    DWORD *sequence_points;
    size_t sequence_point_count;

    struct il_graph_view graph_view;
    struct il_exceptions exceptions;
    struct il_factory factory;
    struct il_single_ret single_ret;

    struct il_ptr_map instructions; /* struct clrie_il_instr * -> struct il_instruction * */
    struct il_ptr_map clauses;      /* struct clrie_il_clause * -> struct il_clause * */
    struct il_fragment *fragments;
    struct il_chunk *chunks;
    size_t chunk_used;

    /* Set once the method's instrumentation is over (clrie_pm_il_body_close): every edit then
     * answers E_UNEXPECTED. A plugin may call from any thread, so it is atomic. */
    atomic_bool closed;
    struct clrie_pm_log_name method_name; /* for the line; set with closed */
};

/* Reports plugin misuse or a failure to the engine log. */
#define IL_LOG(body, ...)                                                                          \
    do {                                                                                           \
        if ((body)->log)                                                                           \
            CLRIE_PM_LOG_ERROR((body)->log, __VA_ARGS__);                                          \
    } while (0)

/* ---- il_store.c: the objects' memory and tables, error codes ---- */

/* Logs that `call` came after the method's instrumentation was over; E_UNEXPECTED. */
HRESULT clrie_pm__il_too_late(struct il_body *body, const char *call);
/* Starts every call that edits the method (or makes code for it): once the body is closed the
 * edit could no longer reach the runtime, so the call fails instead of doing nothing. */
#define IL_EDIT(body, call)                                                                        \
    do {                                                                                           \
        if (atomic_load_explicit(&(body)->closed, memory_order_acquire))                           \
            return clrie_pm__il_too_late((body), (call));                                          \
    } while (0)

/* The HRESULT for a libilgraph error code. */
HRESULT clrie_pm__il_hresult(int err);

/* Zeroed memory that lives until clrie_pm_il_body_free; NULL when out of memory. */
void *clrie_pm__il_alloc(struct il_body *body, size_t size);
/* Frees every chunk clrie_pm__il_alloc handed out (clrie_pm_il_body_free). */
void clrie_pm__il_alloc_finish(struct il_body *body);

/* ---- il_instruction.c: the body's instruction objects ---- */

/* The object of a node of graph (created on first need); NULL only when out of memory. */
struct il_instruction *clrie_pm__il_instruction_of(struct il_body *body,
                                                   struct clrie_il_graph *graph,
                                                   struct clrie_il_instr *node);
/* Hands node's IInstruction to a plugin: *out AddRef'd, or NULL when node is NULL. S_OK,
 * E_FAIL when node is NULL and missing is E_FAIL, E_OUTOFMEMORY. */
HRESULT clrie_pm__il_instruction_give(struct il_body *body, struct clrie_il_graph *graph,
                                      struct clrie_il_instr *node, HRESULT missing,
                                      IInstruction **out);
/* The body's object behind an IInstruction a plugin passed, or NULL (logged, with `what`
 * naming the call) when it is not an instruction of this body. */
struct il_instruction *clrie_pm__il_instruction_own(struct il_body *body, IInstruction *instr,
                                                    const char *what);

/* ---- il_exceptions.c: the exception section and the body's clause objects ---- */

/* The clause object for a clause of graph (created on first need); NULL when out of memory. */
struct il_clause *clrie_pm__il_clause_of(struct il_body *body, struct clrie_il_graph *graph,
                                         struct clrie_il_clause *clause);

/* A snapshot enumerator (enum.h) answering iid over items[0..count), interface pointers of the
 * body's objects; it holds a reference on the body, so the body outlives it. */
static inline HRESULT il_body_enum(struct il_body *body, const IID *iid, const void *items,
                                   size_t count, void **out)
{
    return clrie_pm_enum_from_array(iid, items, count, body->params.outer, 0, out);
}

/* Per-object setup of each file's vtables (il_body.c makes the body's; il_factory.c a
 * fragment's graph view). */
void clrie_pm__il_graph_view_init(struct il_graph_view *view, struct il_body *body,
                                  struct il_fragment *fragment);
void clrie_pm__il_exceptions_init(struct il_exceptions *obj, struct il_body *body);
void clrie_pm__il_factory_init(struct il_factory *obj, struct il_body *body);
void clrie_pm__il_single_ret_init(struct il_single_ret *obj, struct il_body *body);

/* True if view is a graph of this module's making. */
struct il_graph_view *clrie_pm__il_graph_view_from(IInstructionGraph *iface);

#endif
