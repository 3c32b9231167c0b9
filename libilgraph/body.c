/* Method bodies (ECMA-335 II.25.4): the tiny or fat header, the code, the chain of extra data
 * sections that may follow it at the next 4-byte boundaries, and the raw form of exception
 * clauses. Where a body starts and ends, for the decoder, the assembly reader and the
 * manager alike; decode.c turns the bytes into a graph. */
#include <errno.h>

#include "graph_private.h"

enum {
    FORMAT_MASK = 0x3,
    TINY_FORMAT = 0x2,
    FAT_FORMAT = 0x3,
    FAT_HEADER_SIZE = 12,
    FAT_HEADER_DWORDS = 3,
    SECTION_HEADER_SIZE = 4,
};

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* Walks the data sections from pos; the end of the last one goes to *end. */
static int walk_sections(const uint8_t *body, size_t len, size_t pos, size_t *end, uint32_t *count,
                         struct clrie_il_diag *diag)
{
    for (;;) {
        if (pos > len || len - pos < SECTION_HEADER_SIZE)
            return il_diag(diag, -EILSEQ, (uint32_t)(pos < len ? pos : len),
                           "the header promises data section %u at body offset %zu, past the "
                           "end of the body (%zu bytes)",
                           *count + 1, pos, len);
        uint8_t kind = body[pos];
        uint32_t size = body[pos + 1];
        if (kind & CLRIE_IL_SECTION_FAT_FORMAT)
            size |= ((uint32_t)body[pos + 2] << 8) | ((uint32_t)body[pos + 3] << 16);
        if (size < SECTION_HEADER_SIZE)
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "data section %u has size %u, smaller than its own 4-byte header",
                           *count + 1, size);
        if (size > len - pos)
            return il_diag(diag, -EILSEQ, (uint32_t)pos,
                           "data section %u (%u bytes at body offset %zu) runs past the end "
                           "of the body (%zu bytes)",
                           *count + 1, size, pos, len);
        (*count)++;
        pos += size;
        if (!(kind & CLRIE_IL_SECTION_MORE_SECTS)) {
            *end = pos;
            return 0;
        }
        pos = align4(pos);
    }
}

int clrie_il_body_measure(const uint8_t *body, size_t len, struct clrie_il_body_layout *out,
                          struct clrie_il_diag *diag)
{
    if ((!body && len) || !out)
        return -EINVAL;
    if (len == 0)
        return il_diag(diag, -EILSEQ, 0, "empty body: expected a tiny or fat method header");
    struct clrie_il_body_layout b = {.header = {.max_stack = 8}};
    uint8_t first = body[0];
    if ((first & FORMAT_MASK) == TINY_FORMAT) {
        b.header.code_size = first >> 2;
        b.code_offset = 1;
        if (b.header.code_size > len - 1)
            return il_diag(diag, -EILSEQ, 0,
                           "tiny method body of %u code bytes runs past the end of the body (%zu "
                           "bytes)",
                           b.header.code_size, len);
        b.len = 1 + (size_t)b.header.code_size;
        *out = b;
        return 0;
    }
    if ((first & FORMAT_MASK) != FAT_FORMAT)
        return il_diag(diag, -EILSEQ, 0,
                       "byte 0x%02X is not a method header: neither tiny (...10) nor fat (...11)",
                       first);
    if (len < FAT_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, (uint32_t)len,
                       "fat method header needs 12 bytes, the body has %zu", len);
    uint16_t word = il_le16(body);
    if (word >> 12 != FAT_HEADER_DWORDS)
        return il_diag(diag, -EILSEQ, 1, "fat method header size is %u dwords, not 3", word >> 12);
    b.header.fat = true;
    b.header.flags = word & 0x0FFF;
    b.header.max_stack = il_le16(body + 2);
    b.header.code_size = il_le32(body + 4);
    b.header.local_sig_token = il_le32(body + 8);
    b.code_offset = FAT_HEADER_SIZE;
    if (b.header.code_size > len - FAT_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, 4,
                       "fat method body of %u code bytes runs past the end of the body (%zu "
                       "bytes)",
                       b.header.code_size, len);
    size_t end = FAT_HEADER_SIZE + (size_t)b.header.code_size;
    if (b.header.flags & CLRIE_IL_HEADER_MORE_SECTS) {
        b.sections_offset = align4(end);
        int r = walk_sections(body, len, b.sections_offset, &end, &b.section_count, diag);
        if (r != 0)
            return r;
    }
    b.len = end;
    *out = b;
    return 0;
}

void clrie_il_eh_clause_read(const uint8_t *p, bool fat, struct clrie_il_eh_clause_raw *out)
{
    if (fat) {
        *out = (struct clrie_il_eh_clause_raw){il_le32(p),      il_le32(p + 4),  il_le32(p + 8),
                                               il_le32(p + 12), il_le32(p + 16), il_le32(p + 20)};
    } else {
        *out = (struct clrie_il_eh_clause_raw){il_le16(p),     il_le16(p + 2), p[4],
                                               il_le16(p + 5), p[7],           il_le32(p + 8)};
    }
}
