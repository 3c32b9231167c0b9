/* Method bodies (ECMA-335 II.25.4): the tiny or fat header, the code, and the chain of
 * extra data sections (EH tables in their small and fat forms) that may follow it at the
 * next 4-byte boundaries. Only where a body starts and ends is decided here; the IL library
 * decodes the bytes. */
#include <errno.h>

#include "internal.h"

enum {
    FORMAT_MASK = 0x3,
    TINY_FORMAT = 0x2,
    FAT_FORMAT = 0x3,
    FAT_HEADER_SIZE = 12,
    FAT_HEADER_DWORDS = 3,
    FLAG_MORE_SECTS = 0x08,
    FLAG_INIT_LOCALS = 0x10,
    SECT_FAT_FORMAT = 0x40,
    SECT_MORE_SECTS = 0x80,
    SECT_HEADER_SIZE = 4,
    IMPL_CODE_TYPE_MASK = 0x3,
    IMPL_NATIVE = 0x1,
};

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* Walks the extra sections from pos; returns the end of the last one in *end. */
static int walk_sections(const uint8_t *bytes, size_t avail, size_t pos, size_t *end,
                         uint32_t *count, struct asm_diag *diag)
{
    for (;;) {
        if (pos > avail || avail - pos < SECT_HEADER_SIZE)
            return asm_fail(diag, pos < avail ? pos : avail,
                            "data section %u header at body offset %zu runs past the %zu "
                            "available bytes",
                            *count + 1, pos, avail);
        uint8_t kind = bytes[pos];
        uint32_t size = bytes[pos + 1];
        if (kind & SECT_FAT_FORMAT)
            size |= ((uint32_t)bytes[pos + 2] << 8) | ((uint32_t)bytes[pos + 3] << 16);
        if (size < SECT_HEADER_SIZE)
            return asm_fail(diag, pos + 1,
                            "data section %u has size %u, smaller than its own 4-byte header",
                            *count + 1, size);
        if (size > avail - pos)
            return asm_fail(diag, pos,
                            "data section %u (%u bytes at body offset %zu) runs past the %zu "
                            "available bytes",
                            *count + 1, size, pos, avail);
        (*count)++;
        pos += size;
        if (!(kind & SECT_MORE_SECTS)) {
            *end = pos;
            return 0;
        }
        pos = align4(pos);
    }
}

int asm_body_parse(const uint8_t *bytes, size_t avail, struct asm_body *out, struct asm_diag *diag)
{
    if (!bytes || !out)
        return -EINVAL;
    if (avail == 0)
        return asm_fail(diag, 0, "method body header runs past the end of its section");
    struct asm_body b = {.start = bytes};
    uint8_t first = bytes[0];
    if ((first & FORMAT_MASK) == TINY_FORMAT) {
        b.flags = TINY_FORMAT;
        b.max_stack = 8;
        b.code_size = first >> 2;
        b.code = bytes + 1;
        if (b.code_size > avail - 1)
            return asm_fail(diag, 0,
                            "tiny method body of %u code bytes runs past the %zu available bytes",
                            b.code_size, avail);
        b.len = 1 + (size_t)b.code_size;
        *out = b;
        return 0;
    }
    if ((first & FORMAT_MASK) != FAT_FORMAT)
        return asm_fail(diag, 0,
                        "method header byte 0x%02X is neither tiny (...10) nor fat (...11)", first);
    if (avail < FAT_HEADER_SIZE)
        return asm_fail(diag, 0, "fat method header (12 bytes) runs past the %zu available bytes",
                        avail);
    uint16_t word = rd16(bytes);
    if (word >> 12 != FAT_HEADER_DWORDS)
        return asm_fail(diag, 1, "fat method header size is %u dwords, not 3", word >> 12);
    b.fat = true;
    b.flags = word & 0x0FFF;
    b.init_locals = (b.flags & FLAG_INIT_LOCALS) != 0;
    b.max_stack = rd16(bytes + 2);
    b.code_size = rd32(bytes + 4);
    b.local_sig_token = rd32(bytes + 8);
    b.code = bytes + FAT_HEADER_SIZE;
    if (b.code_size > avail - FAT_HEADER_SIZE)
        return asm_fail(diag, 4,
                        "fat method body of %u code bytes runs past the %zu available bytes",
                        b.code_size, avail);
    size_t end = FAT_HEADER_SIZE + (size_t)b.code_size;
    if (b.flags & FLAG_MORE_SECTS) {
        size_t first_section = align4(end);
        int r = walk_sections(bytes, avail, first_section, &end, &b.section_count, diag);
        if (r != 0)
            return r;
        b.sections = bytes + first_section;
        b.sections_len = end - first_section;
    }
    b.len = end;
    *out = b;
    return 0;
}

int asm_method_body(const struct asm_assembly *a, uint32_t method_row, struct asm_body *out,
                    struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    if (method_row == 0 || method_row > a->tables[ASM_TABLE_METHOD_DEF].rows)
        return -ENOENT;
    uint32_t rva = asm_cell(a, ASM_TABLE_METHOD_DEF, method_row, 0);
    uint32_t impl_flags = asm_cell(a, ASM_TABLE_METHOD_DEF, method_row, 1);
    if (rva == 0 || (impl_flags & IMPL_CODE_TYPE_MASK) == IMPL_NATIVE)
        return -ENOENT;
    size_t offset, available;
    struct asm_diag inner;
    if (asm_rva_to_offset(a, rva, &offset, &available, &inner) != 0)
        return asm_fail(diag, asm_row_offset(a, ASM_TABLE_METHOD_DEF, method_row),
                        "MethodDef %u: body %s", method_row, inner.message);
    struct asm_body b;
    if (asm_body_parse(a->data + offset, available, &b, &inner) != 0)
        return asm_fail(diag, offset + inner.offset, "MethodDef %u body at RVA 0x%X: %s",
                        method_row, rva, inner.message);
    b.file_offset = offset;
    *out = b;
    return 0;
}
