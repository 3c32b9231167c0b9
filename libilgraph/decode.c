/* Decoding: method headers (tiny, fat), instruction streams and exception sections into a
 * graph. Every read is bounds-checked against the bytes given; every failure names the byte
 * offset and what was expected there. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

#define SECT_EH_TABLE 0x01u
#define SECT_OPT_IL_TABLE 0x02u
#define SECT_FAT 0x40u
#define SECT_MORE 0x80u

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The node starting at offset among nodes sorted by offset, or NULL. */
static struct clrie_il_instr *find(struct clrie_il_instr *const *nodes, size_t count,
                                   uint64_t offset)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nodes[mid]->offset == offset)
            return nodes[mid];
        if (nodes[mid]->offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

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
            uint32_t n = le32(code + pos);
            if (n > (len - pos - 4) / 4)
                break;
            operand += 4 * (size_t)n;
        }
        pos += operand;
        count++;
    }
    return count;
}

/* Reads one instruction's operand at code[pos..len); checks that branch targets lie in the
 * code (whether they hit an instruction start is checked once all starts are known).
 * Inlined into the decode loop: called once per instruction. */
static inline __attribute__((always_inline)) int
read_operand(struct clrie_il_graph *g, struct clrie_il_instr *n, const uint8_t *code, size_t len,
             size_t start, size_t *pos, size_t base, struct clrie_il_diag *diag)
{
    const struct clrie_il_opcode_info *info = (&il_opcode_infos[n->opcode]);
    size_t p = *pos;
    if (len - p < info->operand_len)
        return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                       "%s at IL offset %zu needs a %u-byte operand but only %zu bytes remain",
                       info->name, start, info->operand_len, len - p);
    const uint8_t *o = code + p;
    int64_t target;
    switch (info->operand_kind) {
    case CLRIE_IL_OPERAND_NONE:
        break;
    case CLRIE_IL_OPERAND_INT8:
        n->u.i = (int8_t)o[0];
        break;
    case CLRIE_IL_OPERAND_UINT8:
        n->u.i = o[0];
        break;
    case CLRIE_IL_OPERAND_UINT16:
        n->u.i = le16(o);
        break;
    case CLRIE_IL_OPERAND_INT32:
        n->u.i = (int32_t)le32(o);
        break;
    case CLRIE_IL_OPERAND_TOKEN:
        n->u.i = le32(o);
        break;
    case CLRIE_IL_OPERAND_INT64:
        n->u.i = (int64_t)le64(o);
        break;
    case CLRIE_IL_OPERAND_FLOAT32: {
        uint32_t bits = le32(o);
        memcpy(&n->u.r4, &bits, 4);
        break;
    }
    case CLRIE_IL_OPERAND_FLOAT64: {
        uint64_t bits = le64(o);
        memcpy(&n->u.r8, &bits, 8);
        break;
    }
    case CLRIE_IL_OPERAND_BRANCH8:
    case CLRIE_IL_OPERAND_BRANCH32:
        target = (int64_t)(p + info->operand_len) +
                 (info->operand_len == 1 ? (int8_t)o[0] : (int32_t)le32(o));
        if (target < 0 || (uint64_t)target >= len)
            return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                           "%s at IL offset %zu targets IL offset %lld, outside the code "
                           "(0..%zu)",
                           info->name, start, (long long)target, len - 1);
        break;
    case CLRIE_IL_OPERAND_SWITCH: {
        uint32_t count = le32(o);
        if (count > (len - p - 4) / 4)
            return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                           "switch at IL offset %zu has %u targets but only %zu bytes remain",
                           start, count, len - p - 4);
        size_t end = p + 4 + 4 * (size_t)count;
        for (uint32_t i = 0; i < count; i++) {
            target = (int64_t)end + (int32_t)le32(o + 4 + 4 * (size_t)i);
            if (target < 0 || (uint64_t)target >= len)
                return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                               "switch at IL offset %zu: target %u is IL offset %lld, outside "
                               "the code (0..%zu)",
                               start, i, (long long)target, len - 1);
        }
        n->u.sw.targets = il_arena_array(&g->arena, count ? count : 1, sizeof(struct il_ref));
        if (!n->u.sw.targets)
            return -ENOMEM;
        n->u.sw.count = count;
        *pos = end;
        return 0;
    }
    }
    *pos = p + info->operand_len;
    return 0;
}

/* Second pass: turn the branch and switch displacements (read again from the bytes) into
 * node references. */
static int resolve_targets(struct clrie_il_graph *g, struct clrie_il_instr *const *nodes,
                           size_t count, const uint8_t *code, size_t len, size_t base,
                           struct clrie_il_diag *diag)
{
    /* offset -> node index + 1 (0: no instruction starts there). One direct lookup per
     * target keeps big methods linear; a search through node pointers would miss the cache
     * at every probe. Targets were range-checked while reading. Only built when needed. */
    uint32_t *start = il_arena_array(&g->arena, len, sizeof(*start));
    if (!start)
        return -ENOMEM;
    for (size_t k = 0; k < count; k++)
        start[nodes[k]->offset] = (uint32_t)k + 1;
    int r = 0;
    for (size_t k = 0; k < count; k++) {
        struct clrie_il_instr *n = nodes[k];
        if (!(il_opcode_decode[n->opcode] & IL_DECODE_TARGETS))
            continue;
        const struct clrie_il_opcode_info *info = (&il_opcode_infos[n->opcode]);
        size_t p = n->offset + info->opcode_len;
        if (il_is_branch(n->opcode)) {
            int64_t t = (int64_t)(p + info->operand_len) +
                        (info->operand_len == 1 ? (int8_t)code[p] : (int32_t)le32(code + p));
            if (!start[t]) {
                r = il_diag(diag, -EILSEQ, (uint32_t)(base + n->offset),
                            "%s at IL offset %u targets IL offset %lld, inside an instruction",
                            info->name, n->offset, (long long)t);
                goto out;
            }
            il_ref_set(&n->u.branch, nodes[start[t] - 1]);
        } else if (n->opcode == CLRIE_IL_OP_SWITCH) {
            size_t end = p + 4 + 4 * (size_t)n->u.sw.count;
            for (uint32_t i = 0; i < n->u.sw.count; i++) {
                int64_t t = (int64_t)end + (int32_t)le32(code + p + 4 + 4 * (size_t)i);
                if (!start[t]) {
                    r = il_diag(diag, -EILSEQ, (uint32_t)(base + n->offset),
                                "switch at IL offset %u: target %u is IL offset %lld, inside "
                                "an instruction",
                                n->offset, i, (long long)t);
                    goto out;
                }
                il_ref_set(&n->u.sw.targets[i], nodes[start[t] - 1]);
            }
        }
    }
out:
    return r;
}

/* il_decode_code with expected = count_instructions(code, len). Inlined into its two
 * callers so each gets a copy with `fragment` constant (the per-node stores depend on it). */
static inline __attribute__((always_inline)) int
decode_counted(struct clrie_il_graph *g, const uint8_t *code, size_t len, size_t expected,
               size_t base, bool fragment, struct clrie_il_instr ***nodes_out, size_t *count_out,
               struct clrie_il_diag *diag)
{
    if (len > UINT32_MAX - 16)
        return il_diag(diag, -EILSEQ, (uint32_t)base, "code of %zu bytes is too long", len);
    struct clrie_il_instr **nodes = il_arena_take_array(&g->arena, expected + 1, sizeof(*nodes));
    /* The nodes themselves come as one block, each written once below: one allocation, and
     * list order is memory order for the walks of layout and encode. The spare entry holds
     * an instruction whose operand turns out to be malformed. */
    struct clrie_il_instr *block = il_arena_take_array(&g->arena, expected + 1, sizeof(*block));
    if (!nodes || !block)
        return -ENOMEM;
    size_t count = 0, pos = 0;
    bool any_target = false;
    int r;
    while (pos < len) {
        size_t start = pos;
        uint16_t op = code[pos++];
        if (op == 0xFE) {
            if (pos == len)
                return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                               "two-byte opcode at IL offset %zu is cut off after 0xFE", start);
            op = (uint16_t)(0x100 | code[pos++]);
        }
        uint8_t d = il_opcode_decode[op];
        if (!d) {
            if (op >= 0x100)
                return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                               "unknown opcode 0xFE 0x%02X at IL offset %zu", op & 0xFF, start);
            return il_diag(diag, -EILSEQ, (uint32_t)(base + start),
                           "unknown opcode 0x%02X at IL offset %zu", op, start);
        }
        /* A whole graph's nodes are linked as they are read, each to the next slot of the
         * block (the last one's next is cleared below); a fragment's stay detached. Field by
         * field: a compound literal would zero the node first, then store the fields. */
        struct clrie_il_instr *n = &block[count];
        n->next = fragment ? NULL : n + 1;
        n->prev = fragment ? NULL : count ? n - 1 : g->last;
        n->graph = g;
        n->refs = NULL;
        n->offset = (uint32_t)start;
        n->orig_offset = fragment ? CLRIE_IL_NO_OFFSET : (uint32_t)start;
        n->index = (uint32_t)count;
        n->orig_index = (uint32_t)count;
        n->opcode = op;
        n->orig_opcode = op;
        n->state = fragment ? IL_NEW : IL_ORIGINAL;
        n->attached = !fragment;
        n->removed = false;
        n->keep_long = false;
        n->u.branch.target = NULL; /* covers every operand member */
        n->u.branch.prev = NULL;
        n->u.branch.next = NULL;
        n->u.branch.kind = IL_REF_BRANCH;
        r = read_operand(g, n, code, len, start, &pos, base, diag);
        if (r < 0)
            return r;
        assert(count < expected);
        any_target |= (d & IL_DECODE_TARGETS) != 0;
        nodes[count++] = n;
    }
    if (any_target) {
        r = resolve_targets(g, nodes, count, code, len, base, diag);
        if (r < 0)
            return r;
    }
    if (fragment) {
        /* The caller owns a fragment's node array. */
        struct clrie_il_instr **copy = malloc((count ? count : 1) * sizeof(*copy));
        if (!copy)
            return -ENOMEM;
        memcpy(copy, nodes, count * sizeof(*copy));
        nodes = copy;
    } else {
        if (count) {
            nodes[count - 1]->next = NULL;
            if (g->last)
                g->last->next = nodes[0];
            else
                g->first = nodes[0];
            g->last = nodes[count - 1];
            g->count += count;
            g->stale = true;
        }
    }
    *nodes_out = nodes;
    *count_out = count;
    return 0;
}

int il_decode_code(struct clrie_il_graph *g, const uint8_t *code, size_t len, size_t base,
                   bool fragment, struct clrie_il_instr ***nodes, size_t *count,
                   struct clrie_il_diag *diag)
{
    return decode_counted(g, code, len, count_instructions(code, len), base, fragment, nodes, count,
                          diag);
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
    struct clrie_il_instr *f = find(g->orig, g->orig_count, start);
    if (!f)
        return il_diag(diag, -EILSEQ, (uint32_t)clause_pos,
                       "%s block starts at IL offset %u, inside an instruction", what, start);
    struct clrie_il_instr *l;
    if (end == g->code_size) {
        l = g->orig[g->orig_count - 1];
    } else {
        struct clrie_il_instr *after = find(g->orig, g->orig_count, end);
        if (!after)
            return il_diag(diag, -EILSEQ, (uint32_t)clause_pos,
                           "%s block ends at IL offset %llu, inside an instruction", what,
                           (unsigned long long)end);
        l = g->orig[after->orig_index - 1]; /* after is not the first: end > start */
    }
    il_ref_set(first, f);
    il_ref_set(last, l);
    return 0;
}

static int read_clause(struct clrie_il_graph *g, const uint8_t *p, bool fat, size_t pos,
                       uint32_t section, struct clrie_il_diag *diag)
{
    uint32_t flags, try_off, try_len, h_off, h_len, extra;
    if (fat) {
        flags = le32(p);
        try_off = le32(p + 4);
        try_len = le32(p + 8);
        h_off = le32(p + 12);
        h_len = le32(p + 16);
        extra = le32(p + 20);
    } else {
        flags = le16(p);
        try_off = le16(p + 2);
        try_len = p[4];
        h_off = le16(p + 5);
        h_len = p[7];
        extra = le32(p + 8);
    }
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
    int r = bind_block(g, try_off, try_len, &c->try_first, &c->try_last, "try", pos, diag);
    if (r == 0)
        r = bind_block(g, h_off, h_len, &c->handler_first, &c->handler_last, "handler", pos, diag);
    if (r == 0 && kind == CLRIE_IL_EH_FILTER) {
        struct clrie_il_instr *f = find(g->orig, g->orig_count, extra);
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

static int read_sections(struct clrie_il_graph *g, const uint8_t *body, size_t len, size_t pos,
                         struct clrie_il_diag *diag)
{
    size_t cap = 0;
    for (;;) {
        pos = (pos + 3) & ~(size_t)3;
        if (pos > len || len - pos < 4)
            return il_diag(diag, -EILSEQ, (uint32_t)(pos > len ? len : pos),
                           "the header promises an exception section at offset %zu, but the "
                           "body ends at %zu",
                           pos, len);
        uint8_t kind = body[pos];
        if (!(kind & SECT_EH_TABLE) || (kind & SECT_OPT_IL_TABLE))
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "section kind 0x%02X is not an exception table", kind);
        bool fat = kind & SECT_FAT;
        size_t data =
            fat ? (size_t)body[pos + 1] | (size_t)body[pos + 2] << 8 | (size_t)body[pos + 3] << 16
                : body[pos + 1];
        size_t clause_size = fat ? 24 : 12;
        if (data < 4)
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "exception section of %zu bytes is smaller than its 4-byte header",
                           data);
        if (data > len - pos)
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "exception section of %zu bytes runs past the end of the body (%zu "
                           "bytes left)",
                           data, len - pos);
        size_t n = (data - 4) / clause_size;
        if (g->section_count == cap) {
            cap = cap ? cap * 2 : 4;
            struct il_section *s = il_arena_array(&g->arena, cap, sizeof(*s));
            if (!s)
                return -ENOMEM;
            if (g->section_count)
                memcpy(s, g->sections, g->section_count * sizeof(*s));
            g->sections = s;
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
        pos += data;
        if (!(kind & SECT_MORE))
            return 0;
    }
}

/* ---- Entry points ---- */

/* A graph whose first arena chunk fits what decoding and a first layout of code[0..len)
 * take (about expected instructions), so a small method costs one allocation. */
static struct clrie_il_graph *graph_for_code(const uint8_t *code, size_t len, size_t *expected)
{
    *expected = count_instructions(code, len);
    size_t slots = *expected + 1;
    size_t need = 256 + 16 * 8 + /* the graph, and rounding of each array */
                  slots * (sizeof(struct clrie_il_instr) + sizeof(struct clrie_il_instr *)) +
                  slots * (sizeof(struct clrie_il_instr *) + sizeof(struct il_short_branch) +
                           2 * sizeof(uint32_t)) +
                  4 * len;
    return il_graph_alloc(need);
}

static int finish_code(struct clrie_il_graph *g, const uint8_t *code, size_t len, size_t expected,
                       size_t base, struct clrie_il_diag *diag)
{
    g->code_size = (uint32_t)len;
    return decode_counted(g, code, len, expected, base, false, &g->orig, &g->orig_count, diag);
}

int clrie_il_graph_decode(const uint8_t *body, size_t len, struct clrie_il_graph **out,
                          struct clrie_il_diag *diag)
{
    if ((!body && len) || !out)
        return -EINVAL;
    if (len == 0)
        return il_diag(diag, -EILSEQ, 0, "empty body: expected a tiny or fat method header");
    struct clrie_il_header h = {.max_stack = 8};
    size_t header;
    uint8_t b0 = body[0];
    if ((b0 & 3) == 2) {
        header = 1;
        h.code_size = b0 >> 2;
    } else if ((b0 & 3) == 3) {
        if (len < 12)
            return il_diag(diag, -EILSEQ, (uint32_t)len,
                           "fat method header needs 12 bytes, the body has %zu", len);
        uint16_t w = le16(body);
        if (w >> 12 != 3)
            return il_diag(diag, -EILSEQ, 1, "fat header size is %u dwords, expected 3", w >> 12);
        header = 12;
        h.fat = true;
        h.flags = w & 0x0FFF;
        h.max_stack = le16(body + 2);
        h.code_size = le32(body + 4);
        h.local_sig_token = le32(body + 8);
    } else {
        return il_diag(diag, -EILSEQ, 0,
                       "byte 0x%02X is not a method header (low bits 2 = tiny, 3 = fat)", b0);
    }
    if (h.code_size > len - header)
        return il_diag(diag, -EILSEQ, (uint32_t)header,
                       "code of %u bytes runs past the end of the body (%zu bytes after the "
                       "header)",
                       h.code_size, len - header);
    size_t expected;
    struct clrie_il_graph *g = graph_for_code(body + header, h.code_size, &expected);
    if (!g)
        return -ENOMEM;
    if (h.fat) {
        g->fat = g->orig_fat = true;
        g->flags = h.flags;
        g->max_stack = h.max_stack;
        g->local_sig_token = h.local_sig_token;
    }
    int r = finish_code(g, body + header, h.code_size, expected, header, diag);
    if (r == 0 && g->fat && (g->flags & CLRIE_IL_HEADER_MORE_SECTS))
        r = read_sections(g, body, len, header + h.code_size, diag);
    if (r < 0) {
        clrie_il_graph_free(g);
        return r;
    }
    *out = g;
    return 0;
}

int clrie_il_graph_decode_code(const uint8_t *code, size_t len, struct clrie_il_graph **out,
                               struct clrie_il_diag *diag)
{
    if ((!code && len) || !out)
        return -EINVAL;
    size_t expected;
    struct clrie_il_graph *g = graph_for_code(code, len, &expected);
    if (!g)
        return -ENOMEM;
    int r = finish_code(g, code, len, expected, 0, diag);
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
    return il_decode_code(g, code, len, 0, true, nodes, count, diag);
}
