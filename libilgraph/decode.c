/* Decoding: method headers (tiny, fat), instruction streams and exception sections into a
 * graph. Every read is bounds-checked against the bytes given; every failure names the byte
 * offset and what was expected there. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

/* Counts the instructions of code[0..len) up to the first malformed one, so the arrays of
 * the real pass can come from the arena at their final size. */
static size_t count_instructions(const uint8_t *code, size_t len)
{
    size_t count = 0, pos = 0;
    while (pos < len) {
        uint16_t op = code[pos++];
        if (op == 0xFE) {
            if (pos == len)
                break;
            op = (uint16_t)(0x100 | code[pos++]);
        }
        uint8_t d = il_opcode_decode[op];
        if (!d)
            break;
        size_t operand = (d & IL_DECODE_LEN) - 1u;
        if (len - pos < operand)
            break;
        if (d & IL_DECODE_SWITCH) {
            uint32_t n = il_le32(code + pos);
            if (n > (len - pos - 4) / 4)
                break;
            operand += 4 * (size_t)n;
        }
        pos += operand;
        count++;
    }
    return count;
}

/* The references of the branches and switches decoded so far, chained through their
 * `next` in decoded order, each with the IL offset it names in `decoded` (and a branch's
 * with its node in `from`): they are bound to nodes once every instruction start is
 * known. */
struct pending {
    struct il_ref *head, *last;
    size_t branches, long_branches;
};

static void pending_add(struct pending *p, struct il_ref *ref, uint32_t target)
{
    ref->decoded = target;
    ref->next = NULL;
    if (p->last)
        p->last->next = ref;
    else
        p->head = ref;
    p->last = ref;
}

/* The decoded nodes: one block, in decode order, with room for cap of them. */
struct node_block {
    struct clrie_il_instr *nodes;
    size_t cap;
};

/* Node slots for decoding code[0..len): a guess, since counting first would cost a walk of
 * the code. Real IL averages about 2.5 bytes per instruction (in CoreLib 3 % of methods beat
 * the guess; those move their nodes once, in grow_block), and a tight guess keeps a small
 * method's first chunk small. Code of long instructions leaves slots unused, which are
 * never touched. */
static size_t node_slots(size_t len)
{
    return len < 64 ? len / 2 + 2 : len / 2 + 32;
}

/* More room when the guess was short: the rest of the code is counted exactly, the count
 * decoded nodes move to the new block and are linked again. Rare, so out of line. Returns
 * the new block, or one with no nodes on ENOMEM. */
static __attribute__((noinline)) struct node_block grow_block(struct clrie_il_graph *g,
                                                              struct node_block old, size_t count,
                                                              const uint8_t *code, size_t len,
                                                              size_t pos, bool fragment)
{
    /* + 1: an instruction the count stops at (malformed) still gets a node to fail in. */
    struct node_block b = {.cap = count + count_instructions(code + pos, len - pos) + 1};
    b.nodes = il_arena_take_array(&g->arena, b.cap, sizeof(*b.nodes));
    if (!b.nodes)
        return b;
    memcpy(b.nodes, old.nodes, count * sizeof(*b.nodes));
    if (!fragment) {
        for (size_t k = 0; k < count; k++) {
            b.nodes[k].next = &b.nodes[k + 1];
            b.nodes[k].prev = k ? &b.nodes[k - 1] : g->last;
        }
    }
    return b;
}

/* The diagnostic for a reference aimed inside an instruction. Rare, so its owner is
 * found by a walk of the nodes rather than recorded for every reference. */
static __attribute__((noinline)) int bad_target(const struct clrie_il_instr *nodes, size_t count,
                                                const struct il_ref *ref, size_t base,
                                                struct clrie_il_diag *diag)
{
    for (size_t k = 0; k < count; k++) {
        const struct clrie_il_instr *n = &nodes[k];
        if (n->opcode == CLRIE_IL_OP_SWITCH) {
            const struct il_switch *sw = n->u.sw;
            if (ref >= sw->targets && ref < sw->targets + sw->count)
                return il_diag(diag, -EILSEQ, (uint32_t)(base + n->offset),
                               "switch at IL offset %u: target %td is IL offset %u, inside "
                               "an instruction",
                               n->offset, ref - sw->targets, ref->decoded);
        } else if (il_is_branch(n->opcode) && n->u.branch == ref) {
            return il_diag(diag, -EILSEQ, (uint32_t)(base + n->offset),
                           "%s at IL offset %u targets IL offset %u, inside an instruction",
                           il_opcode_infos[n->opcode].name, n->offset, ref->decoded);
        }
    }
    return il_diag(diag, -EILSEQ, (uint32_t)base,
                   "a target at IL offset %u is inside an instruction", ref->decoded);
}

/* Binds the pending references to the nodes they name, found through table (for each offset,
 * the index + 1 of the node starting there, 0 where none does). branches (NULL: not wanted)
 * receives every branch, in order. */
static int resolve_targets(struct clrie_il_instr *nodes, size_t count, const uint32_t *table,
                           const struct pending *pending, struct il_branch_at *branches,
                           size_t base, struct clrie_il_diag *diag)
{
    struct il_ref *next;
    for (struct il_ref *ref = pending->head; ref; ref = next) {
        next = ref->next;
        uint32_t at = table[ref->decoded]; /* targets were range-checked while reading */
        if (!at)
            return bad_target(nodes, count, ref, base, diag);
        if (branches && ref->from)
            *branches++ = (struct il_branch_at){(uint32_t)(ref->from - 1), at - 1};
        /* The reference is new: link it first in its target's list (il_ref_set). */
        struct clrie_il_instr *to = &nodes[at - 1];
        ref->target = to;
        ref->prev = NULL;
        ref->next = to->refs;
        if (to->refs)
            to->refs->prev = ref;
        to->refs = ref;
    }
    return 0;
}

/* Reads the target table of a switch of count targets at code[p..len) (p: after the count),
 * gives n its table and adds the table's references to pending. Checks that the table fits
 * and every target lies in the code. */
static int read_switch(struct clrie_il_graph *g, struct clrie_il_instr *n, uint32_t count,
                       const uint8_t *code, size_t len, size_t start, size_t p, size_t base,
                       struct pending *pending, struct clrie_il_diag *diag)
{
    if (count > (len - p) / 4)
        return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                       "switch at IL offset %zu has %u targets but only %zu bytes remain", start,
                       count, len - p);
    n->u.sw = il_switch_alloc(g, count);
    if (!n->u.sw)
        return -ENOMEM;
    size_t end = p + 4 * (size_t)count;
    for (uint32_t i = 0; i < count; i++) {
        int64_t target = (int64_t)end + (int32_t)il_le32(code + p + 4 * (size_t)i);
        if (target < 0 || (uint64_t)target >= len)
            return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                           "switch at IL offset %zu: target %u is IL offset %lld, outside "
                           "the code (0..%zu)",
                           start, i, (long long)target, len - 1);
        pending_add(pending, &n->u.sw->targets[i], (uint32_t)target);
    }
    return 0;
}

/* What decoding carries from one instruction to the next. */
struct decoder {
    struct clrie_il_graph *g;
    const uint8_t *code; /* a copy, IL_READ_SLACK zero bytes after it */
    size_t len, base;
    size_t pos, count; /* the next instruction's offset and node */
    struct node_block b;
    struct clrie_il_instr *next; /* the next instruction's node: &b.nodes[count] */
    struct pending *pending;     /* apart, so that taking its address leaves the rest in
                                  * registers */
    uint32_t *starts; /* for each offset, the index + 1 of the node starting there, or 0 */
    struct clrie_il_diag *diag;
};

/* Decodes the instruction at d->pos into node d->count, which the block has. Operands are
 * read as the 8 bytes at them, which the copy's zero bytes after the code allow anywhere in
 * it. `checked`: whether the instruction may run past the end of the code; one that starts
 * 10 bytes or more before it cannot (2 opcode bytes, 8 operand bytes at most). */
static inline __attribute__((always_inline)) int decode_one(struct decoder *d, bool fragment,
                                                            bool checked)
{
    const uint8_t *code = d->code;
    size_t len = d->len, start = d->pos, pos = start;
    uint16_t op = code[pos++];
    if (__builtin_expect(op == 0xFE, 0)) {
        if (checked && pos == len)
            return il_diag(d->diag, -EILSEQ, (uint32_t)(d->base + start),
                           "two-byte opcode at IL offset %zu is cut off after 0xFE", start);
        op = (uint16_t)(0x100 | code[pos++]);
    }
    uint8_t dc = il_opcode_decode[op];
    if (__builtin_expect(!dc, 0)) {
        if (op >= 0x100)
            return il_diag(d->diag, -EILSEQ, (uint32_t)(d->base + start),
                           "unknown opcode 0xFE 0x%02X at IL offset %zu", op & 0xFF, start);
        return il_diag(d->diag, -EILSEQ, (uint32_t)(d->base + start),
                       "unknown opcode 0x%02X at IL offset %zu", op, start);
    }
    /* The operand: the 8 bytes at it, cut to its length by the decode byte. */
    size_t operand = (dc & IL_DECODE_LEN) - 1u;
    if (checked && __builtin_expect(len - pos < operand, 0))
        return il_diag(d->diag, -EILSEQ, (uint32_t)(d->base + start),
                       "%s at IL offset %zu needs a %zu-byte operand but only %zu bytes remain",
                       il_opcode_infos[op].name, start, operand, len - pos);
    uint64_t raw;
    memcpy(&raw, code + pos, 8);
    int64_t value = il_operand_value(dc, raw);
    /* A whole graph's nodes are linked as they are read, each to the next slot of the block
     * (the last one's next is cleared at the end); a fragment's stay detached. Field by
     * field: a compound literal would zero the node first, then store the fields. */
    struct clrie_il_instr *n = d->next;
    d->starts[start] = (uint32_t)d->count + 1;
    n->next = fragment ? NULL : n + 1;
    n->prev = fragment ? NULL : n - 1; /* the first node's is set at the end */
    n->graph = d->g;
    n->refs = NULL;
    n->offset = (uint32_t)start;
    n->orig_offset = fragment ? CLRIE_IL_NO_OFFSET : (uint32_t)start;
    n->index = (uint32_t)d->count;
    n->orig_index = (uint32_t)d->count;
    n->opcode = op;
    n->orig_opcode = op;
    n->state = fragment ? IL_NEW : IL_ORIGINAL;
    n->attached = !fragment;
    n->removed = IL_IN_LIST;
    n->keep_long = false;
    n->u.i = value; /* the operand, but for branches and switches */
    pos += operand;
    if (__builtin_expect(dc & IL_DECODE_TARGETS, 0)) {
        if (!(dc & IL_DECODE_SWITCH)) {
            int64_t target = (int64_t)pos + value;
            if (target < 0 || (uint64_t)target >= len)
                return il_diag(d->diag, -EILSEQ, (uint32_t)(d->base + start),
                               "%s at IL offset %zu targets IL offset %lld, outside the code "
                               "(0..%zu)",
                               il_opcode_infos[op].name, start, (long long)target, len - 1);
            struct il_ref *ref = il_arena_take(&d->g->arena, sizeof(*ref));
            if (!ref)
                return -ENOMEM;
            *ref = (struct il_ref){.from = d->count + 1, .kind = IL_REF_BRANCH};
            n->u.branch = ref;
            pending_add(d->pending, ref, (uint32_t)target);
            d->pending->branches++;
            d->pending->long_branches += operand == 4;
        } else {
            uint32_t count = (uint32_t)value;
            int r =
                read_switch(d->g, n, count, code, len, start, pos, d->base, d->pending, d->diag);
            if (r < 0)
                return r;
            pos += 4 * (size_t)count;
        }
    }
    d->next = n + 1;
    d->pos = pos;
    d->count++;
    return 0;
}

/* What decode_nodes gives: the nodes, one block in decoded order, the copy of the code they
 * were read from, the table of their starts (decoder.starts), the number of long branches
 * among them and, when there are some in a whole method, every branch. */
struct decoded {
    struct clrie_il_instr *nodes;
    size_t count;
    const uint8_t *code;
    const uint32_t *starts;
    size_t long_branches;
    struct il_branch_at *branches;
    size_t branch_count;
};

/* Decodes code[0..len) into out. Inlined into its callers so each gets a copy with
 * `fragment` constant. A whole method's nodes are linked into g's list as they are read, and
 * leave it laid out as PRESERVE would lay it out: the decoded offsets, forms and order. A
 * fragment's nodes are new and detached. */
static inline __attribute__((always_inline)) int
decode_nodes(struct clrie_il_graph *g, const uint8_t *code, size_t len, size_t slots, size_t base,
             bool fragment, struct decoded *out, struct clrie_il_diag *diag)
{
    if (len > UINT32_MAX - 16)
        return il_diag(diag, -EILSEQ, (uint32_t)base, "code of %zu bytes is too long", len);
    /* The code is read from a copy with zero bytes after it, so no operand read passes its
     * end; the copy stays with the graph for encoding an unedited graph. The nodes come as
     * one block, each written once: one allocation, and list order is memory order for the
     * walks of layout and encode. */
    uint8_t *copy = il_arena_take(&g->arena, len + IL_READ_SLACK);
    uint32_t *starts = il_arena_array(&g->arena, len + 1, sizeof(*starts));
    if (!copy || !starts)
        return -ENOMEM;
    if (len)
        memcpy(copy, code, len);
    memset(copy + len, 0, IL_READ_SLACK);
    struct pending pending = {0};
    struct decoder d = {
        .g = g,
        .code = copy,
        .len = len,
        .base = base,
        .b = {.cap = slots},
        .pending = &pending,
        .starts = starts,
        .diag = diag,
    };
    d.b.nodes = il_arena_take_array(&g->arena, d.b.cap, sizeof(*d.b.nodes));
    if (!d.b.nodes)
        return -ENOMEM;
    d.next = d.b.nodes;
    /* Only instructions that start less than 10 bytes before the end are checked for running
     * past it. */
    size_t in_place = len < 10 ? 0 : len - 9; /* instructions before it need no end checks */
    int r;
    while (d.pos < len) {
        /* A run that needs no check of the block's room: every instruction takes a byte or
         * more, so it cannot decode more instructions than it has bytes. */
        size_t room = d.b.cap - d.count;
        size_t end = d.pos >= in_place ? d.pos : in_place - d.pos < room ? in_place : d.pos + room;
        while (d.pos < end) {
            r = decode_one(&d, fragment, false);
            if (r < 0)
                return r;
        }
        if (d.pos >= len)
            break;
        if (d.count == d.b.cap) {
            d.b = grow_block(g, d.b, d.count, copy, len, d.pos, fragment);
            if (!d.b.nodes)
                return -ENOMEM;
            d.next = &d.b.nodes[d.count];
        }
        if (d.pos >= in_place) {
            r = decode_one(&d, fragment, true);
            if (r < 0)
                return r;
        }
    }
    struct il_branch_at *branches = NULL;
    if (pending.head) {
        if (!fragment && pending.long_branches) {
            branches = il_arena_take_array(&g->arena, pending.branches, sizeof(*branches));
            if (!branches)
                return -ENOMEM;
        }
        r = resolve_targets(d.b.nodes, d.count, starts, &pending, branches, base, diag);
        if (r < 0)
            return r;
    }
    size_t count = d.count;
    if (!fragment && count) {
        d.b.nodes[0].prev = g->last;
        d.b.nodes[count - 1].next = NULL;
        if (g->last)
            g->last->next = &d.b.nodes[0];
        else
            g->first = &d.b.nodes[0];
        g->last = &d.b.nodes[count - 1];
        g->count += count;
        g->stale = true;
    }
    *out = (struct decoded){.nodes = d.b.nodes,
                            .count = count,
                            .code = copy,
                            .starts = starts,
                            .long_branches = pending.long_branches,
                            .branches = branches,
                            .branch_count = branches ? pending.branches : 0};
    return 0;
}

/* ---- Exception sections ---- */

/* Binds one block [start, start + length) to its first and last nodes. */
static int bind_block(struct clrie_il_graph *g, uint32_t start, uint32_t length,
                      struct il_ref *first, struct il_ref *last, const char *what,
                      size_t clause_pos, struct clrie_il_diag *diag)
{
    uint64_t end = (uint64_t)start + length;
    if (length == 0)
        return il_diag(diag, -EILSEQ, (uint32_t)clause_pos, "%s block at IL offset %u is empty",
                       what, start);
    if (end > g->code_size)
        return il_diag(diag, -EILSEQ, (uint32_t)clause_pos,
                       "%s block IL %u..%llu ends past the code (%u bytes)", what, start,
                       (unsigned long long)end, g->code_size);
    struct clrie_il_instr *f = il_original_at(g, start);
    if (!f)
        return il_diag(diag, -EILSEQ, (uint32_t)clause_pos,
                       "%s block starts at IL offset %u, inside an instruction", what, start);
    struct clrie_il_instr *l;
    if (end == g->code_size) {
        l = &g->orig[g->orig_count - 1];
    } else {
        struct clrie_il_instr *after = il_original_at(g, (uint32_t)end);
        if (!after)
            return il_diag(diag, -EILSEQ, (uint32_t)clause_pos,
                           "%s block ends at IL offset %llu, inside an instruction", what,
                           (unsigned long long)end);
        l = after - 1; /* after is not the first: end > start */
    }
    il_ref_set(first, f);
    il_ref_set(last, l);
    return 0;
}

static int read_clause(struct clrie_il_graph *g, const uint8_t *p, bool fat, size_t pos,
                       uint32_t section, struct clrie_il_diag *diag)
{
    struct clrie_il_eh_clause_raw raw;
    clrie_il_eh_clause_read(p, fat, &raw);
    uint32_t flags = raw.flags, extra = raw.extra;
    uint32_t kind = flags & CLRIE_IL_EH_KIND_MASK;
    if (kind != CLRIE_IL_EH_CATCH && kind != CLRIE_IL_EH_FILTER && kind != CLRIE_IL_EH_FINALLY &&
        kind != CLRIE_IL_EH_FAULT)
        return il_diag(diag, -EILSEQ, (uint32_t)pos,
                       "exception clause flags 0x%X name more than one kind of handler", flags);
    struct clrie_il_clause *c = il_arena_alloc(&g->arena, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->flags = flags;
    c->section = section;
    c->try_first.kind = c->handler_first.kind = c->filter_first.kind = IL_REF_FIRST;
    c->try_last.kind = c->handler_last.kind = IL_REF_LAST;
    int r = bind_block(g, raw.try_offset, raw.try_length, &c->try_first, &c->try_last, "try", pos,
                       diag);
    if (r == 0)
        r = bind_block(g, raw.handler_offset, raw.handler_length, &c->handler_first,
                       &c->handler_last, "handler", pos, diag);
    if (r == 0 && kind == CLRIE_IL_EH_FILTER) {
        struct clrie_il_instr *f = il_original_at(g, extra);
        if (!f)
            r = il_diag(diag, -EILSEQ, (uint32_t)pos,
                        "filter starts at IL offset %u, which is not an instruction start", extra);
        else
            il_ref_set(&c->filter_first, f);
    } else {
        c->class_token = extra; /* the catch type; kept as found for finally and fault */
    }
    if (r == 0)
        r = il_graph_push_clause(g, c);
    if (r < 0) {
        il_ref_set(&c->try_first, NULL);
        il_ref_set(&c->try_last, NULL);
        il_ref_set(&c->handler_first, NULL);
        il_ref_set(&c->handler_last, NULL);
        il_ref_set(&c->filter_first, NULL);
    }
    return r;
}

/* Reads the clauses of the data sections body_measure found: each must be an EH table. */
static int read_sections(struct clrie_il_graph *g, const uint8_t *body,
                         const struct clrie_il_body_layout *layout, struct clrie_il_diag *diag)
{
    size_t cap = 0, pos = layout->sections_offset;
    for (uint32_t s = 0; s < layout->section_count; s++) {
        uint8_t kind = body[pos];
        if (!(kind & CLRIE_IL_SECTION_EH_TABLE) || (kind & CLRIE_IL_SECTION_OPT_IL_TABLE))
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "section kind 0x%02X is not an exception table", kind);
        bool fat = kind & CLRIE_IL_SECTION_FAT_FORMAT;
        size_t data =
            fat ? (size_t)body[pos + 1] | (size_t)body[pos + 2] << 8 | (size_t)body[pos + 3] << 16
                : body[pos + 1];
        size_t clause_size = fat ? 24 : 12;
        size_t n = (data - 4) / clause_size;
        if (g->section_count == cap) {
            cap = cap ? cap * 2 : 4;
            struct il_section *sections = il_arena_array(&g->arena, cap, sizeof(*sections));
            if (!sections)
                return -ENOMEM;
            if (g->section_count)
                memcpy(sections, g->sections, g->section_count * sizeof(*sections));
            g->sections = sections;
        }
        g->sections[g->section_count].fat = fat;
        g->sections[g->section_count].clause_count = (uint32_t)n;
        for (size_t i = 0; i < n; i++) {
            size_t at = pos + 4 + i * clause_size;
            int r = read_clause(g, body + at, fat, at, (uint32_t)g->section_count, diag);
            if (r < 0)
                return r;
        }
        g->section_count++;
        pos = (pos + data + 3) & ~(size_t)3;
    }
    return 0;
}

/* ---- Entry points ---- */

/* A graph whose first arena chunk fits what decoding code[0..len) takes, so a small method
 * costs one allocation (a small one: malloc serves those fastest). */
/* n rounded up as the arena rounds each piece. */
static size_t round_up(size_t n)
{
    const size_t align = alignof(max_align_t);
    return (n + align - 1) & ~(align - 1);
}

static struct clrie_il_graph *graph_for_code(size_t len, size_t slots)
{
    /* The graph, the copy of the code, the table of instruction starts, the node block and
     * the references of about one branch in eight instructions, each rounded up; a layout
     * after edits takes a chunk of its own. */
    size_t need = round_up(sizeof(struct clrie_il_graph)) + round_up(len + IL_READ_SLACK) +
                  round_up((len + 1) * sizeof(uint32_t)) +
                  round_up(slots * sizeof(struct clrie_il_instr)) +
                  (slots / 8 + 1) * round_up(sizeof(struct il_ref));
    return il_graph_alloc(need);
}

/* Decodes a whole method's code into the empty graph g. Afterwards the graph is laid out
 * as PRESERVE lays it out (decoded offsets and forms, the nodes in decoded order), so an
 * unedited graph encodes without a layout pass. */
static int finish_code(struct clrie_il_graph *g, const uint8_t *code, size_t len, size_t slots,
                       size_t base, struct clrie_il_diag *diag)
{
    g->code_size = (uint32_t)len;
    struct decoded out = {0};
    int r = decode_nodes(g, code, len, slots, base, false, &out, diag);
    if (r < 0)
        return r;
    g->orig = out.nodes;
    g->orig_count = out.count;
    g->orig_code = out.code;
    g->orig_starts = out.starts;
    g->orig_code_size = (uint32_t)len;
    g->orig_branches = out.branches;
    g->orig_branch_count = (uint32_t)out.branch_count;
    g->orig_shortest = out.long_branches ? -1 : 1;
    g->cur_valid = false; /* il_layout_current makes the node order when it is needed */
    g->layout_flags = CLRIE_IL_ENCODE_PRESERVE;
    g->stale = false;
    return 0;
}

/* Decodes the body laid out as layout into the empty graph g, with room for slots nodes at
 * first. */
static int decode_body(struct clrie_il_graph *g, const uint8_t *body,
                       const struct clrie_il_body_layout *layout, size_t slots,
                       struct clrie_il_diag *diag)
{
    const struct clrie_il_header *h = &layout->header;
    if (h->fat) {
        g->fat = g->orig_fat = true;
        g->flags = h->flags;
        g->max_stack = h->max_stack;
        g->local_sig_token = h->local_sig_token;
    }
    int r =
        finish_code(g, body + layout->code_offset, h->code_size, slots, layout->code_offset, diag);
    if (r == 0)
        r = read_sections(g, body, layout, diag);
    return r;
}

int clrie_il_graph_decode(const uint8_t *body, size_t len, struct clrie_il_graph **out,
                          struct clrie_il_diag *diag)
{
    if ((!body && len) || !out)
        return -EINVAL;
    struct clrie_il_body_layout layout;
    int r = clrie_il_body_measure(body, len, &layout, diag);
    if (r < 0)
        return r;
    size_t slots = node_slots(layout.header.code_size);
    struct clrie_il_graph *g = graph_for_code(layout.header.code_size, slots);
    if (!g)
        return -ENOMEM;
    r = decode_body(g, body, &layout, slots, diag);
    if (r < 0) {
        clrie_il_graph_free(g);
        return r;
    }
    *out = g;
    return 0;
}

int clrie_il_graph_decode_into(struct clrie_il_graph *g, const uint8_t *body, size_t len,
                               struct clrie_il_diag *diag)
{
    if (!g || (!body && len))
        return -EINVAL;
    clrie_il_graph_reset(g);
    struct clrie_il_body_layout layout;
    int r = clrie_il_body_measure(body, len, &layout, diag);
    if (r == 0)
        r = decode_body(g, body, &layout, node_slots(layout.header.code_size), diag);
    if (r < 0)
        clrie_il_graph_reset(g);
    return r;
}

int clrie_il_graph_decode_code(const uint8_t *code, size_t len, struct clrie_il_graph **out,
                               struct clrie_il_diag *diag)
{
    if ((!code && len) || !out)
        return -EINVAL;
    size_t slots = node_slots(len);
    struct clrie_il_graph *g = graph_for_code(len, slots);
    if (!g)
        return -ENOMEM;
    int r = finish_code(g, code, len, slots, 0, diag);
    if (r < 0) {
        clrie_il_graph_free(g);
        return r;
    }
    *out = g;
    return 0;
}

int clrie_il_graph_decode_fragment(struct clrie_il_graph *g, const uint8_t *code, size_t len,
                                   struct clrie_il_instr ***nodes, size_t *count,
                                   struct clrie_il_diag *diag)
{
    if (!g || (!code && len) || !nodes || !count)
        return -EINVAL;
    struct decoded out = {0};
    int r = decode_nodes(g, code, len, node_slots(len), 0, true, &out, diag);
    if (r < 0)
        return r;
    struct clrie_il_instr *block = out.nodes;
    size_t n = out.count;
    struct clrie_il_instr **ptrs = malloc((n ? n : 1) * sizeof(*ptrs));
    if (!ptrs)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++)
        ptrs[k] = &block[k];
    *nodes = ptrs;
    *count = n;
    return 0;
}
