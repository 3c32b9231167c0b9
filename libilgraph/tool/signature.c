/* The method signature a call-site token names: found through the tables, parsed by
 * libilgraph's signature walker (clrie_il_sig_parse_method). */
#include <errno.h>

#include "internal.h"

int asm_token_method_sig(const struct asm_assembly *a, uint32_t token,
                         struct clrie_il_method_sig *out, struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    uint32_t table = ASM_TOKEN_TABLE(token), row = ASM_TOKEN_ROW(token);
    struct asm_blob sig;
    int r;
    switch (table) {
    case ASM_TABLE_METHOD_DEF: {
        struct asm_methoddef m;
        r = asm_methoddef_get(a, row, &m, diag);
        sig = m.signature;
        break;
    }
    case ASM_TABLE_MEMBER_REF: {
        struct asm_memberref m;
        r = asm_memberref_get(a, row, &m, diag);
        sig = m.signature;
        break;
    }
    case ASM_TABLE_METHOD_SPEC: {
        struct asm_methodspec m;
        r = asm_methodspec_get(a, row, &m, diag);
        if (r != 0)
            return r;
        if (m.method == 0)
            return asm_fail(diag, asm_row_offset(a, ASM_TABLE_METHOD_SPEC, row),
                            "MethodSpec %u names no method", row);
        return asm_token_method_sig(a, m.method, out, diag);
    }
    case ASM_TABLE_STAND_ALONE_SIG:
        r = asm_standalonesig_get(a, row, &sig, diag);
        break;
    default:
        return -EINVAL;
    }
    if (r != 0)
        return r;
    struct clrie_il_diag inner;
    r = clrie_il_sig_parse_method(sig.data, sig.len, out, &inner);
    if (r == -EILSEQ)
        return asm_fail(diag, (sig.data ? file_offset_of(a, sig.data) : 0) + inner.offset,
                        "token 0x%08X: %s", token, inner.message);
    return r;
}
