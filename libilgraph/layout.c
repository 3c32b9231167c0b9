/* Layout: the offset and branch form of every node of the current list, recomputed when an
 * edit has made them stale. By default every branch takes its shortest form; widening one can
 * put another out of reach, so the short branches are widened to a fixpoint. The queries
 * that read offsets of the current list (the node at an offset, the IL map) are answered
 * here too. Encoding, editing and the checkers call il_layout_current before they read
 * offsets. */
#include <errno.h>
#include <stdlib.h>

#include "graph_private.h"

/* Fails for a branch or switch aimed outside the current list; the diagnostic offset is the
 * node's offset as of the previous layout (this one has not placed it yet). */
static int check_targets(struct clrie_il_graph *g, const struct clrie_il_instr *n, size_t index,
                         struct clrie_il_diag *diag)
{
    if (il_is_branch(n->opcode) && !il_in_list(g, n->u.branch->target))
        return il_diag(diag, -EINVAL, n->offset, "%s (instruction %zu) has no target in the method",
                       (&il_opcode_infos[n->opcode])->name, index);
    if (n->opcode == CLRIE_IL_OP_SWITCH)
        for (uint32_t i = 0; i < n->u.sw->count; i++)
            if (!il_in_list(g, n->u.sw->targets[i].target))
                return il_diag(diag, -EINVAL, n->offset,
                               "switch (instruction %zu) target %u is not in the method", index, i);
    return 0;
}

/* Grows the layout arrays (node order, short branches, offsets, ranks) to hold n entries,
 * in one piece of the graph's arena: growth is geometric, so the pieces left behind add up
 * to less than the current one. */
static int reserve(struct clrie_il_graph *g, size_t n)
{
    if (g->cur_cap >= n)
        return 0;
    /* The first layout takes what it needs; later ones (after edits) leave room. */
    size_t cap = g->cur_cap ? n + n / 2 + 16 : n;
    const size_t entry = sizeof(*g->cur) + sizeof(*g->layout_branches) + 2 * sizeof(uint32_t);
    unsigned char *p = il_arena_take_array(&g->arena, cap, entry);
    if (!p)
        return -ENOMEM;
    g->cur = (struct clrie_il_instr **)p;
    g->layout_branches = (struct il_short_branch *)(p + cap * sizeof(*g->cur));
    g->layout_off = (uint32_t *)(p + cap * (sizeof(*g->cur) + sizeof(*g->layout_branches)));
    g->layout_rank = g->layout_off + cap;
    g->cur_cap = cap;
    return 0;
}

/* The short branches that cannot reach are widened, repeatedly, until all that remain
 * short reach: widening only moves code apart, so this ends, at the least set of long
 * branches. Rounds look at the short branches only, not at every instruction: the offset
 * of position i is off[i] (every short branch short) plus 3 for each branch widened before
 * it. Within a round a backward target's count is this round's; a forward target's is the
 * last round's plus what this round has widened so far, a lower bound, so one round
 * catches most cascades and a last round confirms nothing moved. Returns the number of
 * branches widened. */
static uint32_t widen_branches(struct il_short_branch *br, size_t shorts, const uint32_t *off)
{
    br[shorts].widened = 0; /* for targets after the last short branch */
    bool changed;
    do {
        changed = false;
        uint32_t w = 0; /* widened before branch k, this round */
        for (size_t k = 0; k < shorts; k++) {
            uint32_t before = br[k].widened, rank = br[k].target_rank;
            br[k].widened = w;
            if (!br[k].wide) {
                uint32_t t = br[k].target, at = br[k].at;
                uint32_t t_widened = rank <= k ? br[rank].widened : br[rank].widened + (w - before);
                int64_t disp = ((int64_t)off[t] + 3 * (int64_t)t_widened) -
                               ((int64_t)off[at] + 3 * (int64_t)w + 2);
                if (disp < INT8_MIN || disp > INT8_MAX) {
                    br[k].wide = 1;
                    changed = true;
                }
            }
            w += br[k].wide;
        }
        if (br[shorts].widened != w)
            changed = true;
        br[shorts].widened = w;
    } while (changed);
    return br[shorts].widened;
}

int clrie_il_graph_layout(struct clrie_il_graph *g, unsigned flags, struct clrie_il_diag *diag)
{
    if (!g)
        return -EINVAL;
    int r = reserve(g, g->count + 1);
    if (r < 0)
        return r;
    uint32_t *off = g->layout_off, *rank = g->layout_rank;
    struct il_short_branch *br = g->layout_branches;
    size_t i = 0, shorts = 0;
    uint64_t total = 0;
    for (struct clrie_il_instr *n = g->first; n; n = n->next, i++) {
        uint8_t d = il_opcode_decode[n->opcode];
        uint32_t sz;
        if (d & IL_DECODE_TARGETS) {
            r = check_targets(g, n, i, diag);
            if (r < 0)
                return r;
        }
        g->cur[i] = n;
        n->index = (uint32_t)i;
        rank[i] = (uint32_t)shorts;
        if ((d & (IL_DECODE_TARGETS | IL_DECODE_SWITCH)) == IL_DECODE_TARGETS) { /* a branch */
            if (n->keep_long)
                n->opcode = il_long_form(n->opcode);
            else if ((flags & CLRIE_IL_ENCODE_PRESERVE) && n->state == IL_ORIGINAL)
                n->opcode = n->orig_opcode;
            else
                n->opcode = il_short_form(n->opcode);
            if (il_is_short_branch(n->opcode))
                br[shorts++] =
                    (struct il_short_branch){.to = n->u.branch->target, .at = (uint32_t)i};
            sz = il_instr_size(n);
        } else {
            sz = (uint32_t)(n->opcode >> 8) + (d & IL_DECODE_LEN); /* il_instr_size */
            if (d & IL_DECODE_SWITCH)
                sz += 4 * n->u.sw->count;
        }
        off[i] = (uint32_t)total;
        n->offset = (uint32_t)total; /* final unless a short branch widens below */
        total += sz;
        if (total > UINT32_MAX - 16)
            return il_diag(diag, -ERANGE, (uint32_t)i, "code is larger than 4 GiB");
    }
    if (shorts == 0)
        goto finish; /* nothing can widen: the offsets above are final */
    /* Every index is set now: the short branches' targets, and whether they all reach. */
    bool all_reach = true;
    for (size_t k = 0; k < shorts; k++) {
        uint32_t at = br[k].at, t = br[k].to->index;
        br[k].target = t; /* in place of `to` */
        br[k].target_rank = rank[t];
        int64_t disp = (int64_t)off[t] - ((int64_t)off[at] + 2);
        all_reach = all_reach && disp >= INT8_MIN && disp <= INT8_MAX;
    }
    if (all_reach)
        goto finish; /* every short branch reaches at the unwidened offsets */
    uint32_t widened = widen_branches(br, shorts, off);
    if (total + 3 * (uint64_t)widened > UINT32_MAX - 16)
        return il_diag(diag, -ERANGE, 0, "code is larger than 4 GiB");
    total += 3 * (uint64_t)widened;
    uint32_t shift = 0;
    size_t k = 0;
    for (i = 0; i < g->count; i++) {
        struct clrie_il_instr *n = g->cur[i];
        n->offset = off[i] + shift;
        if (k < shorts && br[k].at == i) {
            if (br[k].wide) {
                n->opcode = il_long_form(n->opcode);
                shift += 3;
            }
            k++;
        }
    }
finish:
    g->code_size = (uint32_t)total;
    g->layout_flags = flags;
    g->stale = false;
    return 0;
}

int il_layout_current(struct clrie_il_graph *g, struct clrie_il_diag *diag)
{
    /* A decoded graph is laid out but has no node order array yet: the layout it was left
     * with, made again, gives the same offsets and forms. */
    return g->stale || !g->cur ? clrie_il_graph_layout(g, g->layout_flags, diag) : 0;
}

/* ---- Queries on the current layout ---- */

struct clrie_il_instr *clrie_il_graph_at_offset(struct clrie_il_graph *g, uint32_t offset)
{
    if (il_layout_current(g, NULL) != 0)
        return NULL;
    size_t lo = 0, hi = g->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at = g->cur[mid]->offset;
        if (at == offset)
            return g->cur[mid];
        if (at < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int clrie_il_graph_il_map(struct clrie_il_graph *g, struct clrie_il_map_entry **entries,
                          size_t *count)
{
    if (!g || !entries || !count)
        return -EINVAL;
    int r = il_layout_current(g, NULL);
    if (r < 0)
        return r;
    size_t n = 0;
    for (size_t i = 0; i < g->count; i++)
        n += g->cur[i]->state == IL_ORIGINAL;
    struct clrie_il_map_entry *map = NULL;
    if (n) {
        map = malloc(n * sizeof(*map));
        if (!map)
            return -ENOMEM;
    }
    size_t k = 0;
    uint32_t pending = CLRIE_IL_NO_OFFSET; /* start of new code not yet attributed */
    for (size_t i = 0; i < g->count; i++) {
        const struct clrie_il_instr *node = g->cur[i];
        if (node->state != IL_ORIGINAL) {
            if (pending == CLRIE_IL_NO_OFFSET)
                pending = node->offset;
            continue;
        }
        map[k].old_offset = node->orig_offset;
        map[k].new_offset = pending != CLRIE_IL_NO_OFFSET ? pending : node->offset;
        pending = CLRIE_IL_NO_OFFSET;
        k++;
    }
    *entries = map;
    *count = n;
    return 0;
}
