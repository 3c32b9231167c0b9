/* The instruction graph as a plugin sees it: its header, navigation and lookups by original
 * offset, and editing the current list. Every edit keeps the original list and offsets intact
 * and marks the layout stale; layout.c recomputes offsets when they are next needed. The
 * graph's memory, its references and its clause table are store.c's. */
#include <assert.h>
#include <errno.h>

#include "graph_private.h"

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
    return g->orig_count ? &g->orig[0] : NULL;
}

struct clrie_il_instr *clrie_il_graph_original_last(const struct clrie_il_graph *g)
{
    return g->orig_count ? &g->orig[g->orig_count - 1] : NULL;
}

size_t clrie_il_graph_count(const struct clrie_il_graph *g)
{
    return g->count;
}

struct clrie_il_instr *clrie_il_graph_at_original_offset(const struct clrie_il_graph *g,
                                                         uint32_t offset)
{
    return il_original_at(g, offset);
}

/* ---- Edits ---- */

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
    il_graph_edited(g);
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
    il_graph_edited(g);
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
    n->removed = IL_REMOVED;
    g->count--;
    il_graph_edited(g);
}

#define KIND(k) (1u << (k))

int clrie_il_graph_insert_before(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                 struct clrie_il_instr *node)
{
    if (!g || !il_in_list(g, anchor) || !placeable(g, node))
        return -EINVAL;
    link_before(g, anchor, node);
    return 0;
}

int clrie_il_graph_insert_before_retarget(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                          struct clrie_il_instr *node)
{
    int r = clrie_il_graph_insert_before(g, anchor, node);
    if (r == 0)
        il_refs_move(anchor, node, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST), node);
    return r;
}

int clrie_il_graph_insert_after(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                                struct clrie_il_instr *node)
{
    if (!g || (anchor && !il_in_list(g, anchor)) || !placeable(g, node))
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
        il_refs_move(anchor, node, KIND(IL_REF_LAST), NULL);
    return r;
}

int clrie_il_graph_replace(struct clrie_il_graph *g, struct clrie_il_instr *old,
                           struct clrie_il_instr *node)
{
    if (!g || !il_in_list(g, old) || !placeable(g, node))
        return -EINVAL;
    link_before(g, old, node);
    /* Every reference, node's own operands included: old stands for node from now on. */
    il_refs_move(old, node, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST) | KIND(IL_REF_LAST), NULL);
    unlink_node(g, old);
    assert(!old->refs);
    old->removed = IL_REPLACED;
    old->replacement = node;
    return 0;
}

int clrie_il_graph_remove(struct clrie_il_graph *g, struct clrie_il_instr *node)
{
    if (!g || !il_in_list(g, node))
        return -EINVAL;
    struct clrie_il_instr *after = node->next ? node->next : node->prev;
    struct clrie_il_instr *before = node->prev ? node->prev : node->next;
    if (!after)
        return -EINVAL;
    il_refs_move(node, after, KIND(IL_REF_BRANCH) | KIND(IL_REF_FIRST), NULL);
    il_refs_move(node, before, KIND(IL_REF_LAST), NULL);
    unlink_node(g, node);
    return 0;
}

void clrie_il_graph_expand_branches(struct clrie_il_graph *g)
{
    for (struct clrie_il_instr *n = g ? g->first : NULL; n; n = n->next)
        if (il_is_branch(n->opcode))
            (void)clrie_il_instr_expand_branch(n);
}

void clrie_il_graph_remove_all(struct clrie_il_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->clause_count; i++)
        il_clause_detach(g->clauses[i]);
    if (g->clause_count)
        g->clauses_edited = true;
    g->clause_count = 0;
    while (g->first)
        unlink_node(g, g->first);
}
