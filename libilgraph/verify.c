/* The verifier: structural checks of a graph before it goes to the runtime. It reports every
 * problem it finds, each at an IL offset of the current layout, rather than stopping at the
 * first: a plugin author fixing an edit wants the whole list. */
#include <errno.h>
#include <stdio.h>

#include "graph_private.h"

enum block_kind { BLOCK_TRY, BLOCK_HANDLER, BLOCK_FILTER };

static const char *const block_names[] = {"try", "handler", "filter"};

struct block {
    uint32_t start, end; /* [start, end) */
    uint8_t kind;        /* enum block_kind */
    uint32_t clause_kind;
    size_t clause;
};

struct verifier {
    struct clrie_il_graph *g;
    struct block *blocks;
    size_t block_count;
    struct il_reporter out;
};

/* Forwards stack-analysis reports and counts them. */
static void forward(void *ctx, uint32_t offset, const char *message)
{
    struct verifier *v = ctx;
    il_report(&v->out, offset, "%s", message);
}

static bool in(const struct block *b, uint32_t off)
{
    return off >= b->start && off < b->end;
}

static uint32_t end_of(const struct clrie_il_instr *n)
{
    return n->offset + il_instr_size(n);
}

/* Collects the blocks of every clause and checks each clause on its own. */
static int collect_blocks(struct verifier *v, const int32_t *entry)
{
    struct clrie_il_graph *g = v->g;
    v->blocks = il_check_take_array(g, g->clause_count * 3 + 1, sizeof(*v->blocks));
    if (!v->blocks)
        return -ENOMEM;
    for (size_t k = 0; k < g->clause_count; k++) {
        const struct clrie_il_clause *c = g->clauses[k];
        uint32_t kind = c->flags & CLRIE_IL_EH_KIND_MASK;
        const struct clrie_il_instr *tf = c->try_first.target, *tl = c->try_last.target;
        const struct clrie_il_instr *hf = c->handler_first.target, *hl = c->handler_last.target;
        const struct clrie_il_instr *ff = c->filter_first.target;
        if (!tf || !tl || !hf || !hl || !tf->attached || !tl->attached || !hf->attached ||
            !hl->attached || (kind == CLRIE_IL_EH_FILTER && (!ff || !ff->attached))) {
            il_report(&v->out, 0, "exception clause %zu refers to an instruction not in the method",
                      k);
            continue;
        }
        struct block t = {tf->offset, end_of(tl), BLOCK_TRY, kind, k};
        struct block h = {hf->offset, end_of(hl), BLOCK_HANDLER, kind, k};
        if (tl->offset < tf->offset) {
            il_report(&v->out, tf->offset, "try block of clause %zu ends before it starts", k);
            continue;
        }
        if (hl->offset < hf->offset) {
            il_report(&v->out, hf->offset, "handler of clause %zu ends before it starts", k);
            continue;
        }
        if (t.start < h.end && h.start < t.end)
            il_report(&v->out, h.start, "handler of clause %zu overlaps its own try block", k);
        if (entry[tf->index] > 0)
            il_report(&v->out, tf->offset,
                      "try block of clause %zu is entered with %d items on the stack", k,
                      entry[tf->index]);
        v->blocks[v->block_count++] = t;
        v->blocks[v->block_count++] = h;
        if (kind == CLRIE_IL_EH_FILTER) {
            if (ff->offset >= h.start)
                il_report(&v->out, ff->offset, "filter of clause %zu does not precede its handler",
                          k);
            else
                v->blocks[v->block_count++] =
                    (struct block){ff->offset, h.start, BLOCK_FILTER, kind, k};
        }
    }
    return 0;
}

/* Blocks of different clauses must be disjoint or nested, and a clause nested in another
 * must come first in the table. Same-clause pairs were checked above. */
static void check_nesting(struct verifier *v)
{
    for (size_t i = 0; i < v->block_count; i++) {
        for (size_t j = i + 1; j < v->block_count; j++) {
            const struct block *a = &v->blocks[i], *b = &v->blocks[j];
            if (a->clause == b->clause)
                continue;
            bool overlap = a->start < b->end && b->start < a->end;
            if (!overlap)
                continue;
            bool a_in_b = a->start >= b->start && a->end <= b->end;
            bool b_in_a = b->start >= a->start && b->end <= a->end;
            if (!a_in_b && !b_in_a) {
                il_report(&v->out, a->start > b->start ? a->start : b->start,
                          "%s block of clause %zu and %s block of clause %zu overlap without "
                          "nesting",
                          block_names[a->kind], a->clause, block_names[b->kind], b->clause);
                continue;
            }
            bool same = a_in_b && b_in_a;
            if (same) /* clauses sharing a try block (several catches) are fine */
                continue;
            /* a has the smaller clause index; if a strictly contains b, b (inner) is late. */
            if (b_in_a && a->clause < b->clause)
                il_report(&v->out, b->start,
                          "clause %zu is nested in the %s block of clause %zu but comes after it "
                          "(inner clauses must come first)",
                          b->clause, block_names[a->kind], a->clause);
        }
    }
}

/* A transfer from offset s to offset t: entering a handler or filter, or a try other than at
 * its start, is illegal; leaving a block by a branch is illegal (leave is the way out), and
 * leave cannot exit a finally, fault or filter. */
static void check_transfer(struct verifier *v, const struct clrie_il_instr *n, uint32_t t,
                           bool by_leave)
{
    uint32_t s = n->offset;
    const char *name = (&il_opcode_infos[n->opcode])->name;
    for (size_t i = 0; i < v->block_count; i++) {
        const struct block *b = &v->blocks[i];
        bool in_s = in(b, s), in_t = in(b, t);
        if (in_t && !in_s && !(b->kind == BLOCK_TRY && t == b->start))
            il_report(&v->out, s,
                      "%s at IL offset %u enters the %s block of clause %zu at %u (only a "
                      "try block's first instruction can be a target)",
                      name, s, block_names[b->kind], b->clause, t);
        if (in_s && !in_t) {
            if (!by_leave)
                il_report(&v->out, s,
                          "%s at IL offset %u leaves the %s block of clause %zu; use leave", name,
                          s, block_names[b->kind], b->clause);
            else if (b->kind == BLOCK_FILTER)
                il_report(&v->out, s, "leave at IL offset %u exits the filter of clause %zu", s,
                          b->clause);
            else if (b->kind == BLOCK_HANDLER &&
                     (b->clause_kind == CLRIE_IL_EH_FINALLY || b->clause_kind == CLRIE_IL_EH_FAULT))
                il_report(&v->out, s,
                          "leave at IL offset %u exits the finally/fault handler of clause "
                          "%zu",
                          s, b->clause);
        }
    }
}

static void check_fall_through(struct verifier *v, const struct clrie_il_instr *n)
{
    if (!n->next)
        return;
    uint32_t s = n->offset, t = n->next->offset;
    for (size_t i = 0; i < v->block_count; i++) {
        const struct block *b = &v->blocks[i];
        bool in_s = in(b, s), in_t = in(b, t);
        if (in_t && !in_s && b->kind != BLOCK_TRY)
            il_report(&v->out, t, "execution falls into the %s block of clause %zu",
                      block_names[b->kind], b->clause);
        if (in_s && !in_t)
            il_report(&v->out, s, "execution falls out of the %s block of clause %zu",
                      block_names[b->kind], b->clause);
    }
}

/* The innermost handler or filter block holding s, or NULL. */
static const struct block *innermost_handler(const struct verifier *v, uint32_t s)
{
    const struct block *best = NULL;
    for (size_t i = 0; i < v->block_count; i++) {
        const struct block *b = &v->blocks[i];
        if (b->kind != BLOCK_TRY && in(b, s) &&
            (!best || b->end - b->start < best->end - best->start))
            best = b;
    }
    return best;
}

static const struct block *any_block(const struct verifier *v, uint32_t s)
{
    for (size_t i = 0; i < v->block_count; i++)
        if (in(&v->blocks[i], s))
            return &v->blocks[i];
    return NULL;
}

static void check_instruction(struct verifier *v, const struct clrie_il_instr *n)
{
    const struct clrie_il_opcode_info *info = (&il_opcode_infos[n->opcode]);
    const struct block *b;
    switch (info->flow) {
    case CLRIE_IL_FLOW_BRANCH:
        check_transfer(v, n, n->u.branch->target->offset, false);
        break;
    case CLRIE_IL_FLOW_COND_BRANCH:
        check_transfer(v, n, n->u.branch->target->offset, false);
        check_fall_through(v, n);
        break;
    case CLRIE_IL_FLOW_SWITCH:
        for (uint32_t i = 0; i < n->u.sw->count; i++)
            check_transfer(v, n, n->u.sw->targets[i].target->offset, false);
        check_fall_through(v, n);
        break;
    case CLRIE_IL_FLOW_LEAVE:
        check_transfer(v, n, n->u.branch->target->offset, true);
        break;
    case CLRIE_IL_FLOW_RETURN:
    case CLRIE_IL_FLOW_JMP:
        if ((b = any_block(v, n->offset)) != NULL)
            il_report(&v->out, n->offset,
                      "%s at IL offset %u is inside the %s block of clause %zu "
                      "(leave the block first)",
                      info->name, n->offset, block_names[b->kind], b->clause);
        break;
    case CLRIE_IL_FLOW_END_HANDLER:
        b = innermost_handler(v, n->offset);
        if (n->opcode == CLRIE_IL_OP_ENDFINALLY &&
            (!b || b->kind != BLOCK_HANDLER ||
             (b->clause_kind != CLRIE_IL_EH_FINALLY && b->clause_kind != CLRIE_IL_EH_FAULT)))
            il_report(&v->out, n->offset,
                      "endfinally at IL offset %u is not in a finally or fault "
                      "handler",
                      n->offset);
        if (n->opcode == CLRIE_IL_OP_ENDFILTER && (!b || b->kind != BLOCK_FILTER))
            il_report(&v->out, n->offset, "endfilter at IL offset %u is not in a filter",
                      n->offset);
        break;
    case CLRIE_IL_FLOW_THROW:
        b = innermost_handler(v, n->offset);
        if (n->opcode == CLRIE_IL_OP_RETHROW &&
            (!b || b->kind != BLOCK_HANDLER ||
             (b->clause_kind != CLRIE_IL_EH_CATCH && b->clause_kind != CLRIE_IL_EH_FILTER)))
            il_report(&v->out, n->offset, "rethrow at IL offset %u is not in a catch handler",
                      n->offset);
        break;
    default:
        check_fall_through(v, n);
        break;
    }
}

/* Every entry point: c NULL is the structural check alone; max_stack may be NULL. */
static int verify(struct clrie_il_graph *g, const struct clrie_il_verify_context *c,
                  clrie_il_stack_fn resolve, void *ctx, clrie_il_report_fn report, void *report_ctx,
                  uint32_t *max_stack)
{
    if (!g)
        return -EINVAL;
    struct verifier v = {.g = g, .out = {report, report_ctx, 0}};
    struct clrie_il_diag d;
    int r = il_layout_current(g, &d);
    if (r == -EINVAL) {
        il_report(&v.out, d.offset, "%s", d.message);
        return -EILSEQ;
    }
    if (r < 0)
        return r;
    if (g->count == 0) {
        il_report(&v.out, 0, "the method has no instructions");
        return -EILSEQ;
    }
    /* What the checks take, the memo's answers included, is the graph's check scratch. */
    il_check_begin(g);
    struct il_memo memo;
    int32_t *entry = il_check_take_array(g, g->count, sizeof(*entry));
    if (!entry || il_memo_init(&memo, g, resolve, ctx, c ? c->metadata : NULL) < 0)
        return -ENOMEM;
    struct il_checker *k = NULL;
    if (c) {
        if ((r = il_checker_new(g, c, &memo, &v.out, &k)) < 0)
            return r;
        il_check_operands(k);
    }
    uint32_t max = 0;
    r = il_stack_analyse(g, il_memo_resolve, &memo, forward, &v, entry, &max);
    if (r < 0) {
        /* A resolver that cannot tell a call's effect, because its token is wrong, is one
         * more problem when the operand checks said so. */
        return r != -ENOMEM && v.out.problems ? -EILSEQ : r;
    }
    bool depth_ok = r == 0;
    if (depth_ok && max_stack)
        *max_stack = max;
    if ((r = collect_blocks(&v, entry)) < 0)
        return r;
    check_nesting(&v);
    for (const struct clrie_il_instr *n = g->first; n; n = n->next)
        check_instruction(&v, n);
    if (k && depth_ok && (r = il_check_types(k, entry, max)) < 0)
        return r;
    return v.out.problems ? -EILSEQ : 0;
}

int clrie_il_graph_verify(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                          clrie_il_report_fn report, void *report_ctx)
{
    return verify(g, NULL, resolve, ctx, report, report_ctx, NULL);
}

int clrie_il_graph_verify_in(struct clrie_il_graph *g, const struct clrie_il_verify_context *c,
                             clrie_il_report_fn report, void *report_ctx)
{
    if (!c)
        return -EINVAL;
    return verify(g, c, c->resolve, c->resolve_ctx, report, report_ctx, NULL);
}

int clrie_il_graph_verify_in_max_stack(struct clrie_il_graph *g,
                                       const struct clrie_il_verify_context *c,
                                       clrie_il_report_fn report, void *report_ctx,
                                       uint32_t *max_stack)
{
    if (!c || !max_stack)
        return -EINVAL;
    return verify(g, c, c->resolve, c->resolve_ctx, report, report_ctx, max_stack);
}
