/* Encoding: write the code, the header and the exception sections of a graph, at the offsets
 * and branch forms layout.c has chosen. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

#define FAT_FORMAT 0x3u
#define TINY_FORMAT 0x2u

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

/* Lays out for encoding with flags, unless the current layout is already that one: nothing
 * changed since a layout with the same PRESERVE choice (the only flag layout reads), such
 * as the one decoding leaves. */
static int layout_for_encode(struct clrie_il_graph *g, unsigned flags, struct clrie_il_diag *diag)
{
    if (!g->stale && !((flags ^ g->layout_flags) & CLRIE_IL_ENCODE_PRESERVE))
        return 0;
    return clrie_il_graph_layout(g, flags, diag);
}

/* Writes the code at out, which has IL_WRITE_SLACK writable bytes past the code: a copy of
 * the decoded code while the graph encodes to it (unless flags ask for REWRITE), else each
 * instruction as its opcode and its operand word, whole, at its offset; the bytes past the
 * operand are overwritten by the next instruction (or fall in the slack). */
static void write_code(const struct clrie_il_graph *g, unsigned flags, uint8_t *out)
{
    if (!(flags & CLRIE_IL_ENCODE_REWRITE) && il_code_as_decoded(g)) {
        memcpy(out, g->orig_code, g->code_size);
        return;
    }
    for (const struct clrie_il_instr *n = g->first; n; n = n->next) {
        uint16_t op = n->opcode;
        uint8_t d = il_opcode_decode[op];
        uint8_t *p = out + n->offset;
        memcpy(p, &il_opcode_bytes[op], 2); /* one byte, or 0xFE and the low byte */
        p += 1 + (op >> 8);
        if (__builtin_expect(!(d & IL_DECODE_TARGETS), 1)) {
            memcpy(p, &n->u.i, 8);
            continue;
        }
        int64_t at = p - out; /* the operand's offset; displacements count from its end */
        if (!(d & IL_DECODE_SWITCH)) {
            int64_t end = at + ((d & IL_DECODE_LEN) - 1);
            uint32_t disp = (uint32_t)((int64_t)n->u.branch->target->offset - end);
            memcpy(p, &disp, 4); /* a short branch's extra bytes are overwritten next */
        } else {
            int64_t end = at + 4 + 4 * (int64_t)n->u.sw->count;
            put32(p, n->u.sw->count);
            for (uint32_t t = 0; t < n->u.sw->count; t++)
                put32(p + 4 + 4 * (size_t)t,
                      (uint32_t)((int64_t)n->u.sw->targets[t].target->offset - end));
        }
    }
}

/* One clause's encoded fields. */
struct eh_row {
    uint32_t flags, try_off, try_len, h_off, h_len, extra;
};

static int clause_row(const struct clrie_il_graph *g, size_t k, struct eh_row *row,
                      struct clrie_il_diag *diag)
{
    const struct clrie_il_clause *c = g->clauses[k];
    const struct clrie_il_instr *tf = c->try_first.target, *tl = c->try_last.target;
    const struct clrie_il_instr *hf = c->handler_first.target, *hl = c->handler_last.target;
    bool filter = (c->flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER;
    if (!il_in_list(g, tf) || !il_in_list(g, tl) || !il_in_list(g, hf) || !il_in_list(g, hl) ||
        (filter && !il_in_list(g, c->filter_first.target)))
        return il_diag(diag, -EINVAL, 0,
                       "exception clause %zu refers to an instruction not in "
                       "the method",
                       k);
    if (tl->offset < tf->offset || hl->offset < hf->offset)
        return il_diag(diag, -EINVAL, tf->offset,
                       "exception clause %zu has a block that ends before it starts", k);
    row->flags = c->flags;
    row->try_off = tf->offset;
    row->try_len = tl->offset + il_instr_size(tl) - tf->offset;
    row->h_off = hf->offset;
    row->h_len = hl->offset + il_instr_size(hl) - hf->offset;
    row->extra = filter ? c->filter_first.target->offset : c->class_token;
    return 0;
}

static bool row_fits_small(const struct eh_row *r)
{
    return r->flags <= 0xFFFF && r->try_off <= 0xFFFF && r->try_len <= 0xFF && r->h_off <= 0xFFFF &&
           r->h_len <= 0xFF;
}

/* A run of clauses written as one section. */
struct group {
    size_t first, count;
    bool fat;
};

static size_t group_size(const struct group *gr)
{
    return 4 + gr->count * (gr->fat ? 24u : 12u);
}

int clrie_il_graph_encode_code(struct clrie_il_graph *g, unsigned flags, uint8_t **code,
                               size_t *len, struct clrie_il_diag *diag)
{
    if (!g || !code || !len)
        return -EINVAL;
    int r = layout_for_encode(g, flags, diag);
    if (r < 0)
        return r;
    uint8_t *buf = malloc(g->code_size + IL_WRITE_SLACK);
    if (!buf)
        return -ENOMEM;
    write_code(g, flags, buf);
    *code = buf;
    *len = g->code_size;
    return 0;
}

int clrie_il_graph_encode(struct clrie_il_graph *g, unsigned flags, uint8_t **body, size_t *len,
                          struct clrie_il_diag *diag)
{
    if (!g || !body || !len)
        return -EINVAL;
    int r = layout_for_encode(g, flags, diag);
    if (r < 0)
        return r;

    struct eh_row *rows = NULL;
    struct group *groups = NULL;
    size_t group_count = 0;
    uint8_t *buf = NULL;
    size_t nclauses = g->clause_count;
    if (nclauses) {
        rows = malloc(nclauses * sizeof(*rows));
        groups = malloc((g->section_count + 1) * sizeof(*groups));
        if (!rows || !groups) {
            r = -ENOMEM;
            goto out;
        }
        for (size_t k = 0; k < nclauses; k++) {
            r = clause_row(g, k, &rows[k], diag);
            if (r < 0)
                goto out;
        }
        bool keep = (flags & CLRIE_IL_ENCODE_PRESERVE) && !(flags & CLRIE_IL_ENCODE_FAT_EH) &&
                    !g->clauses_edited && g->section_count > 0;
        if (keep) {
            size_t at = 0;
            for (size_t s = 0; s < g->section_count; s++) {
                groups[s] = (struct group){at, g->sections[s].clause_count, g->sections[s].fat};
                at += g->sections[s].clause_count;
            }
            group_count = g->section_count;
            keep = at == nclauses;
        }
        if (!keep) {
            groups[0] = (struct group){0, nclauses, (flags & CLRIE_IL_ENCODE_FAT_EH) != 0};
            group_count = 1;
        }
        for (size_t s = 0; s < group_count; s++) {
            for (size_t k = groups[s].first; k < groups[s].first + groups[s].count; k++)
                if (!row_fits_small(&rows[k]))
                    groups[s].fat = true;
            if (!groups[s].fat && group_size(&groups[s]) > 0xFF)
                groups[s].fat = true;
            if (group_size(&groups[s]) > 0xFFFFFF) {
                r = il_diag(diag, -ERANGE, 0, "%zu exception clauses do not fit one section",
                            groups[s].count);
                goto out;
            }
        }
    }

    bool tiny = !g->fat && !(flags & CLRIE_IL_ENCODE_FAT_HEADER) && g->code_size < 64 &&
                nclauses == 0 && g->max_stack <= 8 && g->local_sig_token == 0;
    size_t header = tiny ? 1 : 12;
    size_t size = header + g->code_size;
    size_t eh_at = (size + 3) & ~(size_t)3;
    if (nclauses) {
        size = eh_at;
        for (size_t s = 0; s < group_count; s++)
            size = ((size + 3) & ~(size_t)3) + group_size(&groups[s]);
    }
    buf = malloc(size + IL_WRITE_SLACK); /* every byte is written below, padding included */
    if (!buf) {
        r = -ENOMEM;
        goto out;
    }
    if (tiny) {
        buf[0] = (uint8_t)(TINY_FORMAT | g->code_size << 2);
    } else {
        uint32_t f = (g->flags & 0x0FFFu & ~(FAT_FORMAT | CLRIE_IL_HEADER_MORE_SECTS)) |
                     FAT_FORMAT | (nclauses ? CLRIE_IL_HEADER_MORE_SECTS : 0);
        put16(buf, f | 3u << 12);
        put16(buf + 2, g->max_stack);
        put32(buf + 4, g->code_size);
        put32(buf + 8, g->local_sig_token);
    }
    write_code(g, flags, buf + header);
    if (nclauses)
        memset(buf + header + g->code_size, 0, eh_at - (header + g->code_size));
    size_t pos = eh_at;
    for (size_t s = 0; s < group_count; s++) {
        const struct group *gr = &groups[s];
        pos = (pos + 3) & ~(size_t)3;
        size_t data = group_size(gr);
        buf[pos] =
            (uint8_t)(CLRIE_IL_SECTION_EH_TABLE | (gr->fat ? CLRIE_IL_SECTION_FAT_FORMAT : 0) |
                      (s + 1 < group_count ? CLRIE_IL_SECTION_MORE_SECTS : 0));
        buf[pos + 1] = (uint8_t)data;
        buf[pos + 2] = gr->fat ? (uint8_t)(data >> 8) : 0; /* small: reserved */
        buf[pos + 3] = gr->fat ? (uint8_t)(data >> 16) : 0;
        uint8_t *p = buf + pos + 4;
        for (size_t k = gr->first; k < gr->first + gr->count; k++) {
            const struct eh_row *row = &rows[k];
            if (gr->fat) {
                put32(p, row->flags);
                put32(p + 4, row->try_off);
                put32(p + 8, row->try_len);
                put32(p + 12, row->h_off);
                put32(p + 16, row->h_len);
                put32(p + 20, row->extra);
                p += 24;
            } else {
                put16(p, row->flags);
                put16(p + 2, row->try_off);
                p[4] = (uint8_t)row->try_len;
                put16(p + 5, row->h_off);
                p[7] = (uint8_t)row->h_len;
                put32(p + 8, row->extra);
                p += 12;
            }
        }
        pos += data;
    }
    *body = buf;
    *len = size;
    buf = NULL;
    r = 0;
out:
    free(buf);
    free(rows);
    free(groups);
    return r;
}
