/* The graph's storage, under every other file of the library: a graph's arena and lifetime,
 * allocating nodes and appending them to the current list, the references between nodes and
 * the clause table. Nothing here reads offsets or the layout. First, the two ways the library
 * reports a problem, which every file uses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

/* ---- Diagnostics ---- */

int il_diag(struct clrie_il_diag *diag, int err, uint32_t offset, const char *fmt, ...)
{
    if (diag) {
        va_list ap;
        va_start(ap, fmt);
        diag->offset = offset;
        vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
        va_end(ap);
    }
    return err;
}

void il_report(struct il_reporter *r, uint32_t offset, const char *fmt, ...)
{
    r->problems++;
    if (!r->report)
        return;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    r->report(r->ctx, offset, msg);
}

/* ---- Graph lifetime ---- */

/* Makes g an empty graph, but for its arena (its first member, set up by the caller) and the
 * clause table's storage (NULL, 0 for none). The rest of g is cleared 64 bytes at a time,
 * which gcc writes as vector stores: a clear of the whole struct at once is a `rep stos`,
 * whose start-up took 4 % of decoding a new graph per method on the build machine. */
_Static_assert(offsetof(struct clrie_il_graph, arena) == 0, "a graph starts with its arena");
static void graph_init(struct clrie_il_graph *g, struct clrie_il_clause **clauses,
                       size_t clause_cap)
{
    unsigned char *b = (unsigned char *)g;
    size_t at = sizeof(g->arena);
    for (; at + 64 <= sizeof(*g); at += 64)
        memset(b + at, 0, 64);
    memset(b + at, 0, sizeof(*g) - at);
    g->clauses = clauses;
    g->clause_cap = clause_cap;
    g->max_stack = 8;
    g->stale = true;
    g->layout_flags = CLRIE_IL_ENCODE_PRESERVE;
}

struct clrie_il_graph *il_graph_alloc(size_t first_chunk)
{
    /* The graph lives at the start of its own arena: one allocation for a small method. */
    struct clrie_il_graph *g =
        il_arena_new_within(first_chunk, sizeof(*g), offsetof(struct clrie_il_graph, arena));
    if (!g)
        return NULL;
    graph_init(g, NULL, 0);
    return g;
}

void clrie_il_graph_reset(struct clrie_il_graph *g)
{
    if (!g)
        return;
    il_arena_reset(&g->arena, sizeof(*g));    /* g stays where it is, at the arena's start */
    graph_init(g, g->clauses, g->clause_cap); /* the table's storage is kept too */
}

int clrie_il_graph_new(struct clrie_il_graph **out)
{
    if (!out)
        return -EINVAL;
    struct clrie_il_graph *g = il_graph_alloc(0);
    if (!g)
        return -ENOMEM;
    *out = g;
    return 0;
}

void clrie_il_graph_free(struct clrie_il_graph *g)
{
    if (!g)
        return;
    free(g->clauses);
    struct il_arena arena = g->arena; /* g itself is in the arena */
    il_arena_finish(&arena);
}

/* ---- The checkers' scratch ---- */

void *il_check_take_block(struct clrie_il_graph *g, size_t size)
{
    /* The block in use stays where it is (what it gave is still in use); the next one is at
     * least twice as big, so the blocks left behind add up to less than it. */
    struct il_check_scratch *s = &g->check;
    size_t want = 2 * s->bytes > size ? 2 * s->bytes : size;
    if (want < 1024)
        want = 1024;
    unsigned char *p = il_arena_take(&g->arena, want);
    if (!p)
        return NULL;
    s->p = p;
    s->bytes = want;
    s->used = size;
    return p;
}

void *il_check_alloc(struct clrie_il_graph *g, size_t size)
{
    void *p = il_check_take(g, size);
    if (p)
        memset(p, 0, size);
    return p;
}

void *il_check_take_array(struct clrie_il_graph *g, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / 4 / size)
        return NULL;
    return il_check_take(g, n * size);
}

/* ---- Nodes ---- */

struct clrie_il_instr *il_instr_alloc(struct clrie_il_graph *g, uint16_t opcode)
{
    struct clrie_il_instr *n = il_arena_alloc(&g->arena, sizeof(*n));
    if (!n)
        return NULL;
    n->graph = g;
    n->opcode = opcode;
    n->orig_opcode = opcode;
    n->orig_offset = CLRIE_IL_NO_OFFSET;
    n->state = IL_NEW;
    if (il_is_branch(opcode)) {
        n->u.branch = il_arena_alloc(&g->arena, sizeof(*n->u.branch));
        if (!n->u.branch)
            return NULL;
        n->u.branch->kind = IL_REF_BRANCH;
    }
    return n;
}

struct il_switch *il_switch_alloc(struct clrie_il_graph *g, uint32_t count)
{
    struct il_switch *sw =
        il_arena_take(&g->arena, sizeof(*sw) + (size_t)count * sizeof(sw->targets[0]));
    if (!sw)
        return NULL;
    sw->count = count;
    for (uint32_t i = 0; i < count; i++)
        sw->targets[i] = (struct il_ref){.kind = IL_REF_BRANCH};
    return sw;
}

void il_graph_append(struct clrie_il_graph *g, struct clrie_il_instr *n)
{
    n->prev = g->last;
    n->next = NULL;
    if (g->last)
        g->last->next = n;
    else
        g->first = n;
    g->last = n;
    n->attached = true;
    g->count++;
    il_graph_edited(g);
}

/* ---- References ---- */

void il_ref_set(struct il_ref *ref, struct clrie_il_instr *target)
{
    target = il_current(target);
    if (ref->target == target)
        return;
    if (ref->target) {
        if (ref->prev)
            ref->prev->next = ref->next;
        else
            ref->target->refs = ref->next;
        if (ref->next)
            ref->next->prev = ref->prev;
    }
    ref->target = target;
    ref->prev = NULL;
    ref->next = NULL;
    if (target) {
        ref->next = target->refs;
        if (target->refs)
            target->refs->prev = ref;
        target->refs = ref;
    }
}

/* True if r is one of n's operands: its branch target or an entry of its switch table. */
static bool is_operand_of(const struct il_ref *r, const struct clrie_il_instr *n)
{
    if (!n)
        return false;
    if (n->opcode == CLRIE_IL_OP_SWITCH)
        return r >= n->u.sw->targets && r < n->u.sw->targets + n->u.sw->count;
    return il_is_branch(n->opcode) && r == n->u.branch;
}

void il_refs_move(struct clrie_il_instr *from, struct clrie_il_instr *to, unsigned kinds,
                  const struct clrie_il_instr *keep)
{
    struct il_ref *r = from->refs;
    while (r) {
        struct il_ref *next = r->next;
        if ((kinds & (1u << r->kind)) && !is_operand_of(r, keep))
            il_ref_set(r, to);
        r = next;
    }
}

/* ---- The clause table ---- */

int il_graph_push_clause(struct clrie_il_graph *g, struct clrie_il_clause *c)
{
    if (g->clause_count == g->clause_cap) {
        size_t cap = g->clause_cap ? g->clause_cap * 2 : 8;
        struct clrie_il_clause **p = realloc(g->clauses, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        g->clauses = p;
        g->clause_cap = cap;
    }
    g->clauses[g->clause_count++] = c;
    return 0;
}

void il_clause_detach(struct clrie_il_clause *c)
{
    il_ref_set(&c->try_first, NULL);
    il_ref_set(&c->try_last, NULL);
    il_ref_set(&c->handler_first, NULL);
    il_ref_set(&c->handler_last, NULL);
    il_ref_set(&c->filter_first, NULL);
}
