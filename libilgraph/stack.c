/* Stack depth by dataflow over the control-flow graph. Each instruction's entry depth is
 * fixed by the first path that reaches it; every other path must agree. Depth propagates
 * along fall-through, branches (backward ones too), switch targets and leave (which empties
 * the stack); handlers are entered with the exception object (catch, filter) or nothing
 * (finally, fault). */
#include <errno.h>
#include <stdio.h>

#include "graph_private.h"

struct walk {
    struct clrie_il_graph *g;
    int32_t *entry;
    uint32_t *work;
    size_t work_len;
    bool *mismatch_reported;
    struct il_reporter out;
};

static void merge(struct walk *w, size_t j, int32_t depth)
{
    if (w->entry[j] < 0) {
        w->entry[j] = depth;
        w->work[w->work_len++] = (uint32_t)j;
    } else if (w->entry[j] != depth && !w->mismatch_reported[j]) {
        w->mismatch_reported[j] = true;
        il_report(&w->out, w->g->cur[j]->offset,
                  "stack height differs where paths meet: %d items on one path, %d on another",
                  w->entry[j], depth);
    }
}

static void fall_through(struct walk *w, size_t i, int32_t depth)
{
    const struct clrie_il_instr *n = w->g->cur[i];
    if (i + 1 >= w->g->count)
        il_report(&w->out, n->offset, "execution falls off the end of the method after %s",
                  (&il_opcode_infos[n->opcode])->name);
    else
        merge(w, i + 1, depth);
}

static int effect(struct walk *w, const struct clrie_il_instr *n, clrie_il_stack_fn resolve,
                  void *ctx, struct clrie_il_stack_effect *eff)
{
    const struct clrie_il_opcode_info *info = (&il_opcode_infos[n->opcode]);
    if (info->pop != CLRIE_IL_STACK_VARIABLE && info->push != CLRIE_IL_STACK_VARIABLE) {
        eff->pop = (uint32_t)info->pop;
        eff->push = (uint32_t)info->push;
        return 0;
    }
    uint32_t token = n->opcode == CLRIE_IL_OP_RET ? 0 : (uint32_t)n->u.i;
    int r = resolve ? resolve(ctx, n->opcode, token, eff) : -EINVAL;
    if (r < 0) {
        il_report(&w->out, n->offset, "cannot tell the stack effect of %s (token 0x%08X)",
                  info->name, token);
        return r < 0 ? r : -EINVAL;
    }
    return 0;
}

int il_stack_analyse(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                     clrie_il_report_fn report, void *report_ctx, int32_t *entry_out,
                     uint32_t *max_out)
{
    int r = il_layout_current(g, NULL);
    if (r < 0)
        return r;
    size_t n = g->count;
    struct walk w = {.g = g, .out = {report, report_ctx, 0}};
    /* The check's scratch: entry depths (unless the caller's), the work list and the
     * mismatch flags. */
    size_t cap = n ? n : 1;
    w.work = il_check_take_array(g, cap, sizeof(*w.work));
    w.entry = entry_out ? entry_out : il_check_take_array(g, cap, sizeof(*w.entry));
    w.mismatch_reported = il_check_alloc(g, cap * sizeof(bool));
    if (!w.work || !w.entry || !w.mismatch_reported)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        w.entry[i] = -1;
    if (n)
        merge(&w, 0, 0);
    for (size_t k = 0; k < g->clause_count; k++) {
        const struct clrie_il_clause *c = g->clauses[k];
        uint32_t kind = c->flags & CLRIE_IL_EH_KIND_MASK;
        int32_t with = kind == CLRIE_IL_EH_CATCH || kind == CLRIE_IL_EH_FILTER ? 1 : 0;
        if (c->handler_first.target && c->handler_first.target->attached)
            merge(&w, c->handler_first.target->index, with);
        if (kind == CLRIE_IL_EH_FILTER && c->filter_first.target &&
            c->filter_first.target->attached)
            merge(&w, c->filter_first.target->index, 1);
    }
    uint32_t max = 0;
    while (w.work_len) {
        size_t i = w.work[--w.work_len];
        const struct clrie_il_instr *node = g->cur[i];
        const struct clrie_il_opcode_info *info = (&il_opcode_infos[node->opcode]);
        int32_t depth = w.entry[i];
        struct clrie_il_stack_effect eff;
        r = effect(&w, node, resolve, ctx, &eff);
        if (r < 0)
            return r;
        int64_t after;
        if ((int64_t)depth < (int64_t)eff.pop) {
            il_report(&w.out, node->offset, "stack underflow: %s takes %u items, the stack has %d",
                      info->name, eff.pop, depth);
            after = eff.push;
        } else {
            after = (int64_t)depth - eff.pop + eff.push;
        }
        if (after > INT32_MAX / 2) {
            il_report(&w.out, node->offset, "stack depth overflows");
            after = INT32_MAX / 2;
        }
        if ((uint32_t)after > max)
            max = (uint32_t)after;
        if ((uint32_t)depth > max)
            max = (uint32_t)depth;
        switch (info->flow) {
        case CLRIE_IL_FLOW_NEXT:
        case CLRIE_IL_FLOW_CALL:
        case CLRIE_IL_FLOW_BREAK:
        case CLRIE_IL_FLOW_PREFIX:
            fall_through(&w, i, (int32_t)after);
            break;
        case CLRIE_IL_FLOW_BRANCH:
            merge(&w, node->u.branch->target->index, (int32_t)after);
            break;
        case CLRIE_IL_FLOW_COND_BRANCH:
            merge(&w, node->u.branch->target->index, (int32_t)after);
            fall_through(&w, i, (int32_t)after);
            break;
        case CLRIE_IL_FLOW_SWITCH:
            for (uint32_t t = 0; t < node->u.sw->count; t++)
                merge(&w, node->u.sw->targets[t].target->index, (int32_t)after);
            fall_through(&w, i, (int32_t)after);
            break;
        case CLRIE_IL_FLOW_LEAVE:
            merge(&w, node->u.branch->target->index, 0);
            break;
        case CLRIE_IL_FLOW_RETURN:
            if (after != 0)
                il_report(&w.out, node->offset, "ret leaves %lld items on the stack",
                          (long long)after);
            break;
        case CLRIE_IL_FLOW_JMP:
            if (depth != 0)
                il_report(&w.out, node->offset, "jmp needs an empty stack, it has %d items", depth);
            break;
        default: /* throw, rethrow, endfinally, endfilter: nothing follows */
            break;
        }
    }
    if (max_out)
        *max_out = max;
    return w.out.problems;
}

/* Keeps the first problem for a diag. */
struct first {
    struct clrie_il_diag *diag;
    bool seen;
};

static void keep_first(void *ctx, uint32_t offset, const char *message)
{
    struct first *f = ctx;
    if (f->seen || !f->diag)
        return;
    f->seen = true;
    f->diag->offset = offset;
    snprintf(f->diag->message, sizeof(f->diag->message), "%s", message);
}

int clrie_il_graph_max_stack(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                             uint32_t *out, struct clrie_il_diag *diag)
{
    if (!g || !out)
        return -EINVAL;
    int r = il_layout_current(g, diag);
    if (r < 0)
        return r;
    struct first f = {diag, false};
    uint32_t max;
    il_check_begin(g);
    r = il_stack_analyse(g, resolve, ctx, keep_first, &f, NULL, &max);
    if (r < 0)
        return r;
    if (r > 0)
        return -EILSEQ;
    *out = max;
    return 0;
}
