/* Exception-handling clauses: boundaries as node references, kept in the order the runtime
 * needs (inner before outer). */
#include <errno.h>
#include <string.h>

#include "graph_private.h"

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

/* Copies info into *out with every boundary as it stands now (a replaced node names its
 * replacement); false unless each is in g's current list. */
static bool clause_info_current(const struct clrie_il_graph *g,
                                const struct clrie_il_clause_info *info,
                                struct clrie_il_clause_info *out)
{
    if (!info)
        return false;
    *out = *info;
    out->try_first = il_current(info->try_first);
    out->try_last = il_current(info->try_last);
    out->handler_first = il_current(info->handler_first);
    out->handler_last = il_current(info->handler_last);
    out->filter_first = il_current(info->filter_first);
    if (!il_in_list(g, out->try_first) || !il_in_list(g, out->try_last) ||
        !il_in_list(g, out->handler_first) || !il_in_list(g, out->handler_last))
        return false;
    bool filter = (info->flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER;
    return filter ? il_in_list(g, out->filter_first) : out->filter_first == NULL;
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
    struct clrie_il_clause_info now;
    if (!g || !c || !clause_info_current(g, info, &now))
        return -EINVAL;
    clause_assign(c, &now);
    g->clauses_edited = true;
    il_graph_edited(g);
    return 0;
}

/* True if c's try block strictly encloses the one info describes (current offsets). */
static bool try_encloses(const struct clrie_il_clause *c, const struct clrie_il_clause_info *info)
{
    uint32_t s = c->try_first.target->offset, e = c->try_last.target->offset;
    uint32_t is = info->try_first->offset, ie = info->try_last->offset;
    return s <= is && ie <= e && (s != is || e != ie);
}

/* Makes a clause from info and puts it at table position at (clause_count: last). */
static int insert_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                         size_t at, struct clrie_il_clause **out)
{
    struct clrie_il_clause *c = il_arena_alloc(&g->arena, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->try_first.kind = IL_REF_FIRST;
    c->handler_first.kind = IL_REF_FIRST;
    c->filter_first.kind = IL_REF_FIRST;
    c->try_last.kind = IL_REF_LAST;
    c->handler_last.kind = IL_REF_LAST;
    c->section = UINT32_MAX;
    int r = il_graph_push_clause(g, c);
    if (r < 0)
        return r;
    memmove(&g->clauses[at + 1], &g->clauses[at], (g->clause_count - 1 - at) * sizeof(*g->clauses));
    g->clauses[at] = c;
    clause_assign(c, info);
    g->clauses_edited = true;
    il_graph_edited(g);
    if (out)
        *out = c;
    return 0;
}

int clrie_il_graph_add_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                              struct clrie_il_clause **out)
{
    struct clrie_il_clause_info now;
    if (!g || !clause_info_current(g, info, &now))
        return -EINVAL;
    int r = il_layout_current(g, NULL);
    if (r < 0)
        return r;
    /* Before the first clause that encloses the new one, else last. In a valid table every
     * clause inside the new one is inside that encloser too, so it stays before. */
    size_t at = g->clause_count;
    for (size_t i = 0; i < g->clause_count; i++) {
        if (try_encloses(g->clauses[i], &now)) {
            at = i;
            break;
        }
    }
    return insert_clause(g, &now, at, out);
}

int clrie_il_graph_append_clause(struct clrie_il_graph *g, const struct clrie_il_clause_info *info,
                                 struct clrie_il_clause **out)
{
    struct clrie_il_clause_info now;
    if (!g || !clause_info_current(g, info, &now))
        return -EINVAL;
    return insert_clause(g, &now, g->clause_count, out);
}

int clrie_il_graph_remove_clause(struct clrie_il_graph *g, struct clrie_il_clause *c)
{
    if (!g || !c)
        return -EINVAL;
    for (size_t i = 0; i < g->clause_count; i++) {
        if (g->clauses[i] == c) {
            il_clause_detach(c);
            memmove(&g->clauses[i], &g->clauses[i + 1],
                    (g->clause_count - i - 1) * sizeof(*g->clauses));
            g->clause_count--;
            g->clauses_edited = true;
            il_graph_edited(g);
            return 0;
        }
    }
    return -EINVAL;
}

const char *clrie_il_eh_kind_name(uint32_t kind)
{
    switch (kind) {
    case CLRIE_IL_EH_CATCH:
        return "catch";
    case CLRIE_IL_EH_FILTER:
        return "filter";
    case CLRIE_IL_EH_FINALLY:
        return "finally";
    case CLRIE_IL_EH_FAULT:
        return "fault";
    default:
        return NULL;
    }
}
