/* Method bodies of an assembly: found through the MethodDef RVA, measured by libilgraph
 * (clrie_il_body_measure: header, code and data sections), decoded by the IL library. */
#include <errno.h>

#include "internal.h"

enum {
    TINY_FORMAT = 0x2,
    IMPL_CODE_TYPE_MASK = 0x3,
    IMPL_NATIVE = 0x1,
};

int asm_body_parse(const uint8_t *bytes, size_t avail, struct asm_body *out, struct asm_diag *diag)
{
    if (!bytes || !out)
        return -EINVAL;
    struct clrie_il_body_layout layout;
    struct clrie_il_diag inner;
    int r = clrie_il_body_measure(bytes, avail, &layout, &inner);
    if (r == -EILSEQ)
        return asm_fail(diag, inner.offset, "%s", inner.message);
    if (r != 0)
        return r;
    const struct clrie_il_header *h = &layout.header;
    *out = (struct asm_body){
        .start = bytes,
        .len = layout.len,
        .fat = h->fat,
        .flags = h->fat ? h->flags : TINY_FORMAT,
        .init_locals = h->fat && (h->flags & CLRIE_IL_HEADER_INIT_LOCALS),
        .max_stack = h->max_stack,
        .code_size = h->code_size,
        .code = bytes + layout.code_offset,
        .local_sig_token = h->local_sig_token,
        .sections = layout.section_count ? bytes + layout.sections_offset : NULL,
        .sections_len = layout.section_count ? layout.len - layout.sections_offset : 0,
        .section_count = layout.section_count,
    };
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
