/* Signatures, as far as a stack-depth calculation needs them (ECMA-335 II.23.2): compressed
 * integers, and of a method signature its calling convention, parameter count and whether
 * it returns void. */
#include <errno.h>

#include "internal.h"

enum {
    ELEMENT_TYPE_VOID = 0x01,
    ELEMENT_TYPE_CMOD_REQD = 0x1F,
    ELEMENT_TYPE_CMOD_OPT = 0x20,
    CALLCONV_UNMANAGED = 0x09, /* function pointers with an unmanaged convention */
};

int asm_compressed_uint(const uint8_t *p, size_t len, uint32_t *value, size_t *used)
{
    if (!p || !value || !used)
        return -EINVAL;
    if (len < 1)
        return -EILSEQ;
    if ((p[0] & 0x80) == 0) {
        *value = p[0];
        *used = 1;
        return 0;
    }
    if ((p[0] & 0xC0) == 0x80) {
        if (len < 2)
            return -EILSEQ;
        *value = ((uint32_t)(p[0] & 0x3F) << 8) | p[1];
        *used = 2;
        return 0;
    }
    if ((p[0] & 0xE0) == 0xC0) {
        if (len < 4)
            return -EILSEQ;
        *value =
            ((uint32_t)(p[0] & 0x1F) << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
        *used = 4;
        return 0;
    }
    return -EILSEQ;
}

static int read_uint(const uint8_t *blob, size_t len, size_t *pos, uint32_t *value,
                     const char *what, struct asm_diag *diag)
{
    size_t used;
    if (asm_compressed_uint(blob + *pos, len - *pos, value, &used) != 0)
        return asm_fail(diag, *pos, "signature: %s is not a well-formed compressed integer", what);
    *pos += used;
    return 0;
}

int asm_method_sig_parse(const uint8_t *blob, size_t len, struct asm_method_sig *out,
                         struct asm_diag *diag)
{
    if (!out || (!blob && len > 0))
        return -EINVAL;
    if (len == 0)
        return asm_fail(diag, 0, "signature: empty, expected a calling convention byte");
    struct asm_method_sig s = {.conv = blob[0]};
    uint8_t kind = s.conv & ASM_SIG_KIND_MASK;
    if (kind > ASM_SIG_VARARG && kind != CALLCONV_UNMANAGED)
        return asm_fail(diag, 0, "signature: calling convention 0x%02X is not a method's", s.conv);
    s.has_this = (s.conv & ASM_SIG_HAS_THIS) != 0;
    s.explicit_this = (s.conv & ASM_SIG_EXPLICIT_THIS) != 0;
    s.generic = (s.conv & ASM_SIG_GENERIC) != 0;
    s.vararg = kind == ASM_SIG_VARARG;
    size_t pos = 1;
    int r;
    if (s.generic &&
        (r = read_uint(blob, len, &pos, &s.generic_params, "generic parameter count", diag)) != 0)
        return r;
    if ((r = read_uint(blob, len, &pos, &s.params, "parameter count", diag)) != 0)
        return r;
    for (;;) {
        if (pos >= len)
            return asm_fail(diag, pos, "signature: ends before its return type");
        uint8_t b = blob[pos];
        if (b != ELEMENT_TYPE_CMOD_REQD && b != ELEMENT_TYPE_CMOD_OPT)
            break;
        pos++;
        uint32_t type;
        if ((r = read_uint(blob, len, &pos, &type, "custom modifier type", diag)) != 0)
            return r;
    }
    s.returns_void = blob[pos] == ELEMENT_TYPE_VOID;
    *out = s;
    return 0;
}

int asm_token_method_sig(const struct asm_assembly *a, uint32_t token, struct asm_method_sig *out,
                         struct asm_diag *diag)
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
    struct asm_diag inner;
    if (asm_method_sig_parse(sig.data, sig.len, out, &inner) != 0)
        return asm_fail(diag, (sig.data ? file_offset_of(a, sig.data) : 0) + inner.offset,
                        "token 0x%08X: %s", token, inner.message);
    return 0;
}
