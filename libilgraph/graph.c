/* The instruction graph: nodes, the references between them, creating nodes and editing the
 * current list. Every edit keeps the original list and offsets intact and marks the layout
 * stale; encode.c recomputes offsets when they are next needed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

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

/* ---- References ---- */

void il_ref_set(struct il_ref *ref, struct clrie_il_instr *target)
{
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

void il_refs_move(struct clrie_il_instr *from, struct clrie_il_instr *to, unsigned kinds)
{
    struct il_ref *r = from->refs;
    while (r) {
        struct il_ref *next = r->next;
        if (kinds & (1u << r->kind))
            il_ref_set(r, to);
        r = next;
    }
}

/* ---- Graph lifetime ---- */

struct clrie_il_graph *il_graph_alloc(void)
{
    struct clrie_il_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    il_arena_init(&g->arena);
    g->max_stack = 8;
    g->stale = true;
    g->layout_flags = CLRIE_IL_ENCODE_PRESERVE;
    return g;
}

int clrie_il_graph_new(struct clrie_il_graph **out)
{
    if (!out)
        return -EINVAL;
    struct clrie_il_graph *g = il_graph_alloc();
    if (!g)
        return -ENOMEM;
    *out = g;
    return 0;
}

void clrie_il_graph_free(struct clrie_il_graph *g)
{
    if (!g)
        return;
    il_arena_finish(&g->arena);
    free(g->clauses);
    free(g->cur);
    free(g->layout_off);
    free(g->layout_size);
    free(g->orig);
    free(g);
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
    g->stale = true;
}

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

void clrie_il_graph_header(const struct clrie_il_graph *g, struct clrie_il_header *out)
{
    out->fat = g->fat;
    out->flags = g->flags;
    out->max_stack = g->max_stack;
    out->local_sig_token = g->local_sig_token;
    out->code_size = g->code_size;
}

void clrie_il_graph_set_fat_header(struct clrie_il_graph *g, uint16_t flags, uint16_t max_stack,
                                   uint32_t local_sig_token)
{
    g->fat = true;
    g->flags = flags & 0x0FFF;
    g->max_stack = max_stack;
    g->local_sig_token = local_sig_token;
}

/* ---- Navigation and lookups ---- */

struct clrie_il_instr *clrie_il_graph_first(const struct clrie_il_graph *g)
{
    return g->first;
}

struct clrie_il_instr *clrie_il_graph_last(const struct clrie_il_graph *g)
{
    return g->last;
}

struct clrie_il_instr *clrie_il_graph_original_first(const struct clrie_il_graph *g)
{
    return g->orig_count ? g->orig[0] : NULL;
}

struct clrie_il_instr *clrie_il_graph_original_last(const struct clrie_il_graph *g)
{
    return g->orig_count ? g->orig[g->orig_count - 1] : NULL;
}

size_t clrie_il_graph_count(const struct clrie_il_graph *g)
{
    return g->count;
}

/* Binary search over nodes sorted by the offset field selected by `original`. */
static struct clrie_il_instr *search(struct clrie_il_instr *const *nodes, size_t count,
                                     uint32_t offset, bool original)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at = original ? nodes[mid]->orig_offset : nodes[mid]->offset;
        if (at == offset)
            return nodes[mid];
        if (at < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct clrie_il_instr *clrie_il_graph_at_offset(struct clrie_il_graph *g, uint32_t offset)
{
    if (il_layout_current(g, NULL) != 0)
        return NULL;
    return search(g->cur, g->count, offset, false);
}

struct clrie_il_instr *clrie_il_graph_at_original_offset(const struct clrie_il_graph *g,
                                                         uint32_t offset)
{
    return search(g->orig, g->orig_count, offset, true);
}

/* ---- Node accessors ---- */

uint16_t clrie_il_instr_opcode(const struct clrie_il_instr *n)
{
    return n->opcode;
}

const struct clrie_il_opcode_info *clrie_il_instr_info(const struct clrie_il_instr *n)
{
    return clrie_il_opcode_info(n->opcode);
}

uint32_t clrie_il_instr_offset(struct clrie_il_instr *n)
{
    if (n->attached && n->graph->stale)
        (void)il_layout_current(n->graph, NULL); /* on failure the old offsets stand */
    return n->offset;
}

uint32_t clrie_il_instr_original_offset(const struct clrie_il_instr *n)
{
    return n->orig_offset;
}

uint32_t clrie_il_instr_size(const struct clrie_il_instr *n)
{
    return il_instr_size(n);
}

bool clrie_il_instr_is_new(const struct clrie_il_instr *n)
{
    return n->state == IL_NEW;
}

bool clrie_il_instr_is_removed(const struct clrie_il_instr *n)
{
    return n->removed;
}

struct clrie_il_instr *clrie_il_instr_next(const struct clrie_il_instr *n)
{
    return n->next;
}

struct clrie_il_instr *clrie_il_instr_prev(const struct clrie_il_instr *n)
{
    return n->prev;
}

struct clrie_il_instr *clrie_il_instr_original_next(const struct clrie_il_instr *n)
{
    return n->orig_next;
}

struct clrie_il_instr *clrie_il_instr_original_prev(const struct clrie_il_instr *n)
{
    return n->orig_prev;
}

static uint8_t kind_of(const struct clrie_il_instr *n)
{
    return clrie_il_opcode_info(n->opcode)->operand_kind;
}

static bool is_int_kind(uint8_t kind)
{
    return kind == CLRIE_IL_OPERAND_INT8 || kind == CLRIE_IL_OPERAND_UINT8 ||
           kind == CLRIE_IL_OPERAND_UINT16 || kind == CLRIE_IL_OPERAND_INT32 ||
           kind == CLRIE_IL_OPERAND_INT64 || kind == CLRIE_IL_OPERAND_TOKEN;
}

static bool int_fits(uint8_t kind, int64_t v)
{
    switch (kind) {
    case CLRIE_IL_OPERAND_INT8:
        return v >= INT8_MIN && v <= INT8_MAX;
    case CLRIE_IL_OPERAND_UINT8:
        return v >= 0 && v <= UINT8_MAX;
    case CLRIE_IL_OPERAND_UINT16:
        return v >= 0 && v <= UINT16_MAX;
    case CLRIE_IL_OPERAND_INT32:
        return v >= INT32_MIN && v <= INT32_MAX;
    case CLRIE_IL_OPERAND_TOKEN:
        return v >= 0 && v <= UINT32_MAX;
    default:
        return true;
    }
}

int clrie_il_instr_operand_int(const struct clrie_il_instr *n, int64_t *out)
{
    if (!n || !out || !is_int_kind(kind_of(n)))
        return -EINVAL;
    *out = n->u.i;
    return 0;
}

int clrie_il_instr_set_operand_int(struct clrie_il_instr *n, int64_t value)
{
    if (!n || !is_int_kind(kind_of(n)))
        return -EINVAL;
    if (!int_fits(kind_of(n), value))
        return -ERANGE;
    n->u.i = value;
    return 0;
}

int clrie_il_instr_operand_real(const struct clrie_il_instr *n, double *out)
{
    if (!n || !out)
        return -EINVAL;
    if (kind_of(n) == CLRIE_IL_OPERAND_FLOAT32)
        *out = n->u.r4;
    else if (kind_of(n) == CLRIE_IL_OPERAND_FLOAT64)
        *out = n->u.r8;
    else
        return -EINVAL;
    return 0;
}

int clrie_il_instr_operand_bytes(const struct clrie_il_instr *n, uint8_t buf[8])
{
    if (!n || !buf)
        return -EINVAL;
    uint8_t kind = kind_of(n);
    int len = clrie_il_opcode_info(n->opcode)->operand_len;
    uint64_t bits;
    if (kind == CLRIE_IL_OPERAND_FLOAT32) {
        uint32_t b32;
        memcpy(&b32, &n->u.r4, 4);
        bits = b32;
    } else if (kind == CLRIE_IL_OPERAND_FLOAT64) {
        memcpy(&bits, &n->u.r8, 8);
    } else if (is_int_kind(kind) || kind == CLRIE_IL_OPERAND_NONE) {
        bits = (uint64_t)n->u.i;
    } else {
        return -EINVAL;
    }
    for (int i = 0; i < 8; i++)
        buf[i] = i < len ? (uint8_t)(bits >> (8 * i)) : 0;
    return len;
}

struct clrie_il_instr *clrie_il_instr_branch_target(const struct clrie_il_instr *n)
{
    return n && il_is_branch(n->opcode) ? n->u.branch.target : NULL;
}

static bool same_graph(const struct clrie_il_instr *a, const struct clrie_il_instr *b)
{
    return b == NULL || a->graph == b->graph;
}

int clrie_il_instr_set_branch_target(struct clrie_il_instr *n, struct clrie_il_instr *target)
{
    if (!n || !il_is_branch(n->opcode) || !same_graph(n, target))
        return -EINVAL;
    il_ref_set(&n->u.branch, target);
    n->graph->stale = true;
    return 0;
}

uint32_t clrie_il_instr_switch_count(const struct clrie_il_instr *n)
{
    return n && n->opcode == CLRIE_IL_OP_SWITCH ? n->u.sw.count : 0;
}

struct clrie_il_instr *clrie_il_instr_switch_target(const struct clrie_il_instr *n, uint32_t i)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw.count)
        return NULL;
    return n->u.sw.targets[i].target;
}

int clrie_il_instr_set_switch_target(struct clrie_il_instr *n, uint32_t i,
                                     struct clrie_il_instr *target)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw.count || !same_graph(n, target))
        return -EINVAL;
    il_ref_set(&n->u.sw.targets[i], target);
    n->graph->stale = true;
    return 0;
}

int clrie_il_instr_remove_switch_target(struct clrie_il_instr *n, uint32_t i)
{
    if (!n || n->opcode != CLRIE_IL_OP_SWITCH || i >= n->u.sw.count)
        return -EINVAL;
    /* References are linked by address: unlink the ones that move, then relink them. */
    struct il_ref *refs = n->u.sw.targets;
    for (uint32_t k = i; k < n->u.sw.count; k++) {
        struct clrie_il_instr *t = refs[k].target;
        il_ref_set(&refs[k], NULL);
        if (k > i)
            il_ref_set(&refs[k - 1], t);
    }
    n->u.sw.count--;
    n->graph->stale = true;
    return 0;
}

/* ---- Creating nodes ---- */

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
    n->u.branch.kind = IL_REF_BRANCH;
    return n;
}

static int create(struct clrie_il_graph *g, uint16_t opcode, uint8_t want,
                  struct clrie_il_instr **out)
{
    if (!g || !out)
        return -EINVAL;
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(opcode);
    if (!info)
        return -EINVAL;
    bool ok = want == 0xFF ? is_int_kind(info->operand_kind) : info->operand_kind == want;
    if (want == CLRIE_IL_OPERAND_BRANCH32)
        ok = info->operand_kind == CLRIE_IL_OPERAND_BRANCH8 ||
             info->operand_kind == CLRIE_IL_OPERAND_BRANCH32;
    if (want == CLRIE_IL_OPERAND_FLOAT64)
        ok = info->operand_kind == CLRIE_IL_OPERAND_FLOAT32 ||
             info->operand_kind == CLRIE_IL_OPERAND_FLOAT64;
    if (!ok)
        return -EINVAL;
    struct clrie_il_instr *n = il_instr_alloc(g, opcode);
    if (!n)
        return -ENOMEM;
    *out = n;
    return 0;
}

int clrie_il_instr_create(struct clrie_il_graph *g, uint16_t opcode, struct clrie_il_instr **out)
{
    return create(g, opcode, CLRIE_IL_OPERAND_NONE, out);
}

int clrie_il_instr_create_int(struct clrie_il_graph *g, uint16_t opcode, int64_t value,
                              struct clrie_il_instr **out)
{
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(opcode);
    if (info && is_int_kind(info->operand_kind) && !int_fits(info->operand_kind, value))
        return -ERANGE;
    struct clrie_il_instr *n;
    int r = create(g, opcode, 0xFF, &n);
    if (r < 0)
        return r;
    n->u.i = value;
    *out = n;
    return 0;
}

int clrie_il_instr_create_real(struct clrie_il_graph *g, uint16_t opcode, double value,
                               struct clrie_il_instr **out)
{
    struct clrie_il_instr *n;
    int r = create(g, opcode, CLRIE_IL_OPERAND_FLOAT64, &n);
    if (r < 0)
        return r;
    if (opcode == CLRIE_IL_OP_LDC_R4)
        n->u.r4 = (float)value;
    else
        n->u.r8 = value;
    *out = n;
    return 0;
}

int clrie_il_instr_create_branch(struct clrie_il_graph *g, uint16_t opcode,
                                 struct clrie_il_instr *target, struct clrie_il_instr **out)
{
    if (target && target->graph != g)
        return -EINVAL;
    struct clrie_il_instr *n;
    int r = create(g, opcode, CLRIE_IL_OPERAND_BRANCH32, &n);
    if (r < 0)
        return r;
    il_ref_set(&n->u.branch, target);
    *out = n;
    return 0;
}

int clrie_il_instr_create_switch(struct clrie_il_graph *g, uint32_t count,
                                 struct clrie_il_instr *const *targets, struct clrie_il_instr **out)
{
    if (!g || !out || (count && !targets) || count > (UINT32_MAX - 5) / 4)
        return -EINVAL;
    for (uint32_t i = 0; i < count; i++)
        if (targets[i] && targets[i]->graph != g)
            return -EINVAL;
    struct clrie_il_instr *n = il_instr_alloc(g, CLRIE_IL_OP_SWITCH);
    struct il_ref *refs = il_arena_array(&g->arena, count ? count : 1, sizeof(*refs));
    if (!n || !refs)
        return -ENOMEM;
    n->u.sw.count = count;
    n->u.sw.targets = refs;
    for (uint32_t i = 0; i < count; i++) {
        refs[i].kind = IL_REF_BRANCH;
        il_ref_set(&refs[i], targets[i]);
    }
    *out = n;
    return 0;
}

int clrie_il_instr_create_ldc_i4(struct clrie_il_graph *g, int32_t value,
                                 struct clrie_il_instr **out)
{
    if (value >= -1 && value <= 8)
        return clrie_il_instr_create(g, (uint16_t)(CLRIE_IL_OP_LDC_I4_0 + value), out);
    if (value >= INT8_MIN && value <= INT8_MAX)
        return clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4_S, value, out);
    return clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I4, value, out);
}

/* Picks the macro form (index < 4, when there is one), the .s form (<= 255) or the long form
 * (<= 65534; 65535 is not a valid local or argument number). */
static int create_indexed(struct clrie_il_graph *g, uint32_t index, int macro0, uint16_t s_form,
                          uint16_t long_form, struct clrie_il_instr **out)
{
    if (index > 65534)
        return -ERANGE;
    if (macro0 >= 0 && index < 4)
        return clrie_il_instr_create(g, (uint16_t)(macro0 + (int)index), out);
    if (index <= 255)
        return clrie_il_instr_create_int(g, s_form, index, out);
    return clrie_il_instr_create_int(g, long_form, index, out);
}

int clrie_il_instr_create_ldloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_LDLOC_0, CLRIE_IL_OP_LDLOC_S, CLRIE_IL_OP_LDLOC,
                          out);
}

int clrie_il_instr_create_stloc(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_STLOC_0, CLRIE_IL_OP_STLOC_S, CLRIE_IL_OP_STLOC,
                          out);
}

int clrie_il_instr_create_ldloca(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_LDLOCA_S, CLRIE_IL_OP_LDLOCA, out);
}

int clrie_il_instr_create_ldarg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, CLRIE_IL_OP_LDARG_0, CLRIE_IL_OP_LDARG_S, CLRIE_IL_OP_LDARG,
                          out);
}

int clrie_il_instr_create_ldarga(struct clrie_il_graph *g, uint32_t index,
                                 struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_LDARGA_S, CLRIE_IL_OP_LDARGA, out);
}

int clrie_il_instr_create_starg(struct clrie_il_graph *g, uint32_t index,
                                struct clrie_il_instr **out)
{
    return create_indexed(g, index, -1, CLRIE_IL_OP_STARG_S, CLRIE_IL_OP_STARG, out);
}

/* ---- Edits ---- */

static bool in_list(const struct clrie_il_graph *g, const struct clrie_il_instr *n)
{
    return n && n->graph == g && n->attached;
}

static bool placeable(const struct clrie_il_graph *g, const struct clrie_il_instr *n)
{
    return n && n->graph == g && !n->attached && !n->removed && n->state == IL_NEW;
}

static void link_before(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                        struct clrie_il_instr *n)
{
    n->next = anchor;
    n->prev = anchor->prev;
    if (anchor->prev)
        anchor->prev->next = n;
    else
        g->first = n;
    anchor->prev = n;
    n->attached = true;
    g->count++;
    g->stale = true;
}

static void link_after(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                       struct clrie_il_instr *n)
{
    if (!anchor) {
        if (g->first) {
            link_before(g, g->first, n);
        } else {
            il_graph_append(g, n);
        }
        return;
    }
    n->prev = anchor;
    n->next = anchor->next;
    if (anchor->next)
        anchor->next->prev = n;
    else
        g->last = n;
    anchor->next = n;
    n->attached = true;
    g->count++;
    g->stale = true;
}

static void unlink_node(struct clrie_il_graph *g, struct clrie_il_instr *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    n->next = n->prev = NULL;
    n->attached = false;
    n->removed = true;
    g->count--;
    g->stale = true;
}

#define KIND(k) (1u << (k))

int clrie_il_graph_insert_before(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                 struct clrie_il_instr *node)
{
    if (!g || !in_list(g, anchor) || !placeable(g, node))
        return -EINVAL;
    link_before(g, anchor, node);
    return 0;
}

int clrie_il_graph_insert_before_retarget(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                          struct clrie_il_instr *node)
{
    int r = clrie_il_graph_insert_before(g, anchor, node);
    if (r == 0)
        il_refs_move(anchor, node, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST));
    return r;
}

int clrie_il_graph_insert_after(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                struct clrie_il_instr *node)
{
    if (!g || (anchor && !in_list(g, anchor)) || !placeable(g, node))
        return -EINVAL;
    link_after(g, anchor, node);
    return 0;
}

int clrie_il_graph_insert_after_retarget(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                         struct clrie_il_instr *node)
{
    if (!anchor)
        return -EINVAL;
    int r = clrie_il_graph_insert_after(g, anchor, node);
    if (r == 0)
        il_refs_move(anchor, node, KIND(IL_REF_LAST));
    return r;
}

int clrie_il_graph_replace(struct clrie_il_graph *g, struct clrie_il_instr *old,
                           struct clrie_il_instr *node)
{
    if (!g || !in_list(g, old) || !placeable(g, node))
        return -EINVAL;
    link_before(g, old, node);
    il_refs_move(old, node, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST) | KIND(IL_REF_LAST));
    unlink_node(g, old);
    return 0;
}

int clrie_il_graph_remove(struct clrie_il_graph *g, struct clrie_il_instr *node)
{
    if (!g || !in_list(g, node))
        return -EINVAL;
    struct clrie_il_instr *after = node->next ? node->next : node->prev;
    struct clrie_il_instr *before = node->prev ? node->prev : node->next;
    if (!after)
        return -EINVAL;
    il_refs_move(node, after, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST));
    il_refs_move(node, before, KIND(IL_REF_LAST));
    unlink_node(g, node);
    return 0;
}

static void clause_detach(struct clrie_il_clause *c)
{
    il_ref_set(&c->try_first, NULL);
    il_ref_set(&c->try_last, NULL);
    il_ref_set(&c->handler_first, NULL);
    il_ref_set(&c->handler_last, NULL);
    il_ref_set(&c->filter_first, NULL);
}

void clrie_il_graph_remove_all(struct clrie_il_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->clause_count; i++)
        clause_detach(g->clauses[i]);
    if (g->clause_count)
        g->clauses_edited = true;
    g->clause_count = 0;
    while (g->first)
        unlink_node(g, g->first);
}

/* ---- Exception clauses ---- */

size_t clrie_il_graph_clause_count(const struct clrie_il_graph *g)
{
    return g->clause_count;
}

struct clrie_il_clause *clrie_il_graph_clause(const struct clrie_il_graph *g, size_t index)
{
    return index < g->clause_count ? g->clauses[index] : NULL;
}

void clrie_il_clause_get(const struct clrie_il_clause *c, struct clrie_il_clause_info *out)
{
    out->flags = c->flags;
    out->try_first = c->try_first.target;
    out->try_last = c->try_last.target;
    out->handler_first = c->handler_first.target;
    out->handler_last = c->handler_last.target;
    out->filter_first = c->filter_first.target;
    out->class_token = c->class_token;
}

static bool clause_info_valid(const struct clrie_il_graph *g,
                              const struct clrie_il_clause_info *info)
{
    if (!info || !in_list(g, info->try_first) || !in_list(g, info->try_last) ||
        !in_list(g, info->handler_first) || !in_list(g, info->handler_last))
        return false;
    bool filter = (info->flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER;
    return filter ? in_list(g, info->filter_first) : info->filter_first == NULL;
}

static void clause_assign(struct clrie_il_clause *c, const struct clrie_il_clause_info *info)
{
    c->flags = info->flags;
    c->class_token = info->class_token;
    il_ref_set(&c->try_first, info->try_first);
    il_ref_set(&c->try_last, info->try_last);
    il_ref_set(&c->handler_first, info->handler_first);
    il_ref_set(&c->handler_last, info->handler_last);
    il_ref_set(&c->filter_first, info->filter_first);
}

int clrie_il_clause_set(struct clrie_il_graph *g, struct clrie_il_clause *c,
                        const struct clrie_il_clause_info *info)
{
    if (!g || !c || !clause_info_valid(g, info))
        return -EINVAL;
    clause_assign(c, info);
    g->clauses_edited = true;
    g->stale = true;
    return 0;
}

/* True if c's try block strictly encloses the one info describes (current offsets). */
static bool try_encloses(const struct clrie_il_clause *c, const struct clrie_il_clause_info *info)
{
    uint32_t s = c->try_first.target->offset, e = c->try_last.target->offset;
    uint32_t is = info->try_first->offset, ie = info->try_last->offset;
    return s <= is && ie <= e && (s != is || e != ie);
}

int clrie_il_graph_add_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                              struct clrie_il_clause **out)
{
    if (!g || !clause_info_valid(g, info))
        return -EINVAL;
    int r = il_layout_current(g, NULL);
    if (r < 0)
        return r;
    struct clrie_il_clause *c = il_arena_alloc(&g->arena, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->try_first.kind = IL_REF_FIRST;
    c->handler_first.kind = IL_REF_FIRST;
    c->filter_first.kind = IL_REF_FIRST;
    c->try_last.kind = IL_REF_LAST;
    c->handler_last.kind = IL_REF_LAST;
    c->section = UINT32_MAX;
    /* Before the first clause that encloses the new one, else last. In a valid table every
     * clause inside the new one is inside that encloser too, so it stays before. */
    size_t at = g->clause_count;
    for (size_t i = 0; i < g->clause_count; i++) {
        if (try_encloses(g->clauses[i], info)) {
            at = i;
            break;
        }
    }
    r = il_graph_push_clause(g, c);
    if (r < 0)
        return r;
    memmove(&g->clauses[at + 1], &g->clauses[at], (g->clause_count - 1 - at) * sizeof(*g->clauses));
    g->clauses[at] = c;
    clause_assign(c, info);
    g->clauses_edited = true;
    g->stale = true;
    if (out)
        *out = c;
    return 0;
}

int clrie_il_graph_remove_clause(struct clrie_il_graph *g, struct clrie_il_clause *c)
{
    if (!g || !c)
        return -EINVAL;
    for (size_t i = 0; i < g->clause_count; i++) {
        if (g->clauses[i] == c) {
            clause_detach(c);
            memmove(&g->clauses[i], &g->clauses[i + 1],
                    (g->clause_count - i - 1) * sizeof(*g->clauses));
            g->clause_count--;
            g->clauses_edited = true;
            g->stale = true;
            return 0;
        }
    }
    return -EINVAL;
}
