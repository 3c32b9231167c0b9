/* Layout: the offset and branch form of every node of the current list, recomputed when an
 * edit has made them stale. By default every branch takes its shortest form; widening one can
 * put another out of reach, so the short branches are widened to a fixpoint. The queries
 * that read offsets of the current list (the node at an offset, the IL map) are answered
 * here too. Encoding, editing and the checkers call il_layout_current before they read
 * offsets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* Grows the node order array to hold n entries, from the graph's arena: growth is
 * geometric, so the pieces left behind add up to less than the current one. */
static int reserve(struct clrie_il_graph *g, size_t n)
{
    if (g->cur_cap >= n)
        return 0;
    /* The first one takes what it needs; later ones (after edits) leave room. */
    size_t cap = g->cur_cap ? n + n / 2 + 16 : n;
    struct clrie_il_instr **p = il_arena_take_array(&g->arena, cap, sizeof(*p));
    if (!p)
        return -ENOMEM;
    g->cur = p;
    g->cur_cap = cap;
    return 0;
}

/* The branch form layout gives n: its long form when pinned, its decoded one under
 * PRESERVE for an original node, else its short one. */
static inline uint16_t branch_form(const struct clrie_il_instr *n, unsigned flags)
{
    if (n->keep_long)
        return il_long_form(n->opcode);
    if ((flags & CLRIE_IL_ENCODE_PRESERVE) && n->state == IL_ORIGINAL)
        return n->orig_opcode;
    return il_short_form(n->opcode);
}

/* A short branch, as the first walk finds it: its node and offset, and its target, whose
 * offset and index the check after the walk puts in place of the pointer, so that
 * widening reads no node. */
struct short_at {
    struct clrie_il_instr *at;
    union {
        const struct clrie_il_instr *to;
        struct {
            uint32_t to_offset, to_index;
        };
    };
    uint32_t at_offset;
};

/* A short branch the fixpoint may widen: 16 bytes, as the rounds stream through them.
 * Offsets are those with every short branch short, which are distinct (every instruction
 * takes a byte or more). */
struct short_branch {
    uint32_t at;           /* its offset */
    uint32_t widened : 31; /* short branches before this one widened, as of the last round */
    uint32_t wide : 1;     /* widened to the long form */
    uint32_t target;       /* its target's offset */
    uint32_t target_rank;  /* short branches before the target */
};
_Static_assert(sizeof(struct short_branch) == 16, "short branches stream 4 to a cache line");

/* The short branches that cannot reach are widened, repeatedly, until all that remain
 * short reach: widening only moves code apart, so this ends, at the least set of long
 * branches. Rounds look at the short branches only, not at every instruction: the offset
 * of an instruction is its offset with every short branch short plus 3 for each branch
 * widened before it. Within a round a backward target's count is this round's; a forward
 * target's is the last round's plus what this round has widened so far, a lower bound, so
 * one round catches most cascades and a last round confirms nothing moved. br has room for
 * shorts + 1 entries. Returns the number of branches widened. */
static uint32_t widen_branches(struct short_branch *br, size_t shorts)
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
                uint32_t t_widened = rank <= k ? br[rank].widened : br[rank].widened + (w - before);
                int64_t disp = ((int64_t)br[k].target + 3 * (int64_t)t_widened) -
                               ((int64_t)br[k].at + 3 * (int64_t)w + 2);
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

/* Short branches, and nodes whose ranks, a layout keeps on the stack; a method with more
 * uses the graph's scratch. */
#define STACK_SHORTS 128
#define STACK_NODES 1024

/* At least bytes of s, from g's arena when s is too small (its content is not kept); NULL on
 * ENOMEM. Growth is geometric, so the pieces left behind add up to less than the current one. */
static void *scratch(struct clrie_il_graph *g, struct il_scratch *s, size_t bytes)
{
    if (s->bytes >= bytes)
        return s->p;
    size_t want = bytes > 2 * s->bytes ? bytes : 2 * s->bytes;
    void *p = il_arena_take(&g->arena, want);
    if (!p)
        return NULL;
    s->p = p;
    s->bytes = want;
    return p;
}

/* Widens what must widen among the shorts short branches sh (in layout order, some not
 * reaching, their targets' offsets and indices in place), rank[i] the short branches before
 * position i, then moves the code after each widened one. Returns the bytes added, or
 * -ENOMEM. */
static int64_t widen(struct clrie_il_graph *g, const struct short_at *sh, size_t shorts,
                     const uint32_t *rank)
{
    struct short_branch stack[STACK_SHORTS + 1];
    struct short_branch *br = stack;
    if (shorts > STACK_SHORTS) {
        br = scratch(g, &g->layout_widen, (shorts + 1) * sizeof(*br));
        if (!br)
            return -ENOMEM;
    }
    for (size_t k = 0; k < shorts; k++)
        br[k] = (struct short_branch){
            .at = sh[k].at_offset, .target = sh[k].to_offset, .target_rank = rank[sh[k].to_index]};
    uint32_t widened = widen_branches(br, shorts);
    /* Every node from the first widened branch on moves by 3 bytes per widened branch
     * before it. */
    size_t k = 0;
    while (k < shorts && !br[k].wide)
        k++;
    if (k == shorts)
        return 0;
    uint32_t shift = 0;
    for (struct clrie_il_instr *n = sh[k].at; n; n = n->next) {
        uint32_t unshifted = n->offset;
        n->offset = unshifted + shift;
        if (k < shorts && br[k].at == unshifted) {
            if (br[k].wide) {
                n->opcode = il_long_form(n->opcode);
                shift += 3;
            }
            k++;
        }
    }
    return 3 * (int64_t)widened;
}

/* Whether the shortest layout of the unedited graph g is its decoded layout: whether the
 * widening fixpoint, run over the original branches alone from every one short, widens every
 * long one (it widens no other: the decoded layout has them short, and reaching). The answer
 * is kept. On ENOMEM it is no, and the layout's walk finds out. */
static bool decoded_is_shortest(struct clrie_il_graph *g)
{
    if (g->orig_shortest >= 0)
        return g->orig_shortest;
    const struct il_branch_at *b = g->orig_branches;
    size_t count = g->orig_branch_count;
    struct short_branch stack[STACK_SHORTS + 1];
    uint32_t stack_longs[STACK_SHORTS + 1];
    struct short_branch *br = stack;
    uint32_t *longs = stack_longs; /* long branches before each branch, and in all */
    if (count > STACK_SHORTS) {
        br = scratch(g, &g->layout_widen, (count + 1) * sizeof(*br));
        longs = scratch(g, &g->layout_rank, (count + 1) * sizeof(*longs));
        if (!br || !longs)
            return false;
    }
    /* Offsets with every branch short: 3 bytes less for each long branch before. */
    longs[0] = 0;
    for (size_t k = 0; k < count; k++) {
        const struct clrie_il_instr *at = &g->orig[b[k].at];
        br[k] = (struct short_branch){.at = at->orig_offset - 3 * longs[k]};
        longs[k + 1] = longs[k] + !il_is_short_branch(at->orig_opcode);
    }
    for (size_t k = 0; k < count; k++) {
        /* The target's rank: the branches before it (they are in offset order). */
        size_t lo = 0, hi = count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b[mid].at < b[k].to)
                lo = mid + 1;
            else
                hi = mid;
        }
        br[k].target_rank = (uint32_t)lo;
        br[k].target = g->orig[b[k].to].orig_offset - 3 * longs[lo];
    }
    g->orig_shortest = widen_branches(br, count) == longs[count];
    return g->orig_shortest;
}

/* One walk gives every node its index, its form and its offset with every short branch
 * short; then only the short branches are looked at. If each reaches (most methods), the
 * offsets are final; otherwise the fixpoint runs over the short branches alone and a last
 * walk moves the code after the first widened one. */
int clrie_il_graph_layout(struct clrie_il_graph *g, unsigned flags, struct clrie_il_diag *diag)
{
    if (!g)
        return -EINVAL;
    if (il_code_as_decoded(g) && ((flags & CLRIE_IL_ENCODE_PRESERVE) || decoded_is_shortest(g))) {
        /* It has the decoded layout, which is the one asked for (see orig_code). */
        g->layout_flags = flags;
        g->stale = false;
        return 0;
    }
    struct short_at stack[STACK_SHORTS];
    struct short_at *sh = stack;
    uint32_t stack_rank[STACK_NODES];
    uint32_t *rank = stack_rank; /* short branches before each position, for widening */
    if (g->count > STACK_NODES) {
        rank = scratch(g, &g->layout_rank, g->count * sizeof(*rank));
        if (!rank)
            return -ENOMEM;
    }
    size_t i = 0, shorts = 0, cap = STACK_SHORTS;
    uint64_t total = 0;
    for (struct clrie_il_instr *n = g->first; n; n = n->next, i++) {
        uint8_t d = il_opcode_decode[n->opcode];
        uint32_t sz = (uint32_t)(n->opcode >> 8) + (d & IL_DECODE_LEN);
        n->index = (uint32_t)i;
        n->offset = (uint32_t)total;
        rank[i] = (uint32_t)shorts;
        if (__builtin_expect(d & IL_DECODE_TARGETS, 0)) {
            int r = check_targets(g, n, i, diag);
            if (r < 0)
                return r;
            if (d & IL_DECODE_SWITCH) {
                sz += 4 * n->u.sw->count;
            } else {
                uint16_t op = branch_form(n, flags);
                n->opcode = op;
                sz = il_is_short_branch(op) ? 2 : 5; /* every branch opcode is one byte */
                if (sz == 2) {
                    if (shorts == cap) {
                        /* The graph's scratch is sh itself after the first growth: its
                         * content moves to the new piece. */
                        struct short_at *old = sh;
                        struct short_at *grown =
                            scratch(g, &g->layout_shorts, 2 * cap * sizeof(*grown));
                        if (!grown)
                            return -ENOMEM;
                        if (grown != old)
                            memcpy(grown, old, shorts * sizeof(*sh));
                        sh = grown;
                        cap = g->layout_shorts.bytes / sizeof(*sh);
                    }
                    sh[shorts++] = (struct short_at){
                        .at = n, .to = n->u.branch->target, .at_offset = (uint32_t)total};
                }
            }
        }
        total += sz; /* below 2^32 nodes of below 2^35 bytes each: no overflow */
    }
    if (total > UINT32_MAX - 16)
        return il_diag(diag, -ERANGE, 0, "code is larger than 4 GiB");
    bool all_reach = true;
    for (size_t k = 0; k < shorts; k++) {
        const struct clrie_il_instr *to = sh[k].to;
        uint32_t to_offset = to->offset, to_index = to->index;
        sh[k].to_offset = to_offset;
        sh[k].to_index = to_index;
        int64_t disp = (int64_t)to_offset - ((int64_t)sh[k].at_offset + 2);
        all_reach = all_reach && disp >= INT8_MIN && disp <= INT8_MAX;
    }
    if (!all_reach) {
        int64_t added = widen(g, sh, shorts, rank);
        if (added < 0)
            return (int)added;
        if (total + (uint64_t)added > UINT32_MAX - 16)
            return il_diag(diag, -ERANGE, 0, "code is larger than 4 GiB");
        total += (uint64_t)added;
    }
    g->cur_valid = false;
    g->code_size = (uint32_t)total;
    g->layout_flags = flags;
    g->stale = false;
    return 0;
}

int il_layout_current(struct clrie_il_graph *g, struct clrie_il_diag *diag)
{
    if (g->stale) {
        int r = clrie_il_graph_layout(g, g->layout_flags, diag);
        if (r < 0)
            return r;
    }
    if (g->cur_valid)
        return 0;
    /* The node order array, filled in list order, which is the order the layout's walk
     * gave the nodes' indices (decoding gives them in decoded order, the list's). */
    int r = reserve(g, g->count + 1);
    if (r < 0)
        return r;
    size_t i = 0;
    for (struct clrie_il_instr *n = g->first; n; n = n->next)
        g->cur[i++] = n;
    g->cur_valid = true;
    return 0;
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
