/* Signature blobs (ECMA-335 II.23.2): compressed integers and tokens, the extent of a type,
 * method signatures (for stack effects and return types) and local-variable signatures. The one
 * walker of signature grammar in clrie: the assembly reader and libprofmgr use it too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

#define MAX_DEPTH 64 /* nesting bound, so hostile blobs cannot exhaust the C stack */

bool clrie_il_sig_element_is_simple(uint8_t et)
{
    return (et >= CLRIE_IL_ELEMENT_TYPE_VOID && et <= CLRIE_IL_ELEMENT_TYPE_STRING) ||
           et == CLRIE_IL_ELEMENT_TYPE_TYPEDBYREF || et == CLRIE_IL_ELEMENT_TYPE_I ||
           et == CLRIE_IL_ELEMENT_TYPE_U || et == CLRIE_IL_ELEMENT_TYPE_OBJECT;
}

int clrie_il_sig_read_uint(const uint8_t *p, size_t len, uint32_t *value, size_t *used)
{
    if (!p || !value || !used)
        return -EINVAL;
    if (len == 0)
        return -EILSEQ;
    uint32_t v;
    size_t n;
    if ((p[0] & 0x80) == 0) {
        v = p[0];
        n = 1;
    } else if ((p[0] & 0xC0) == 0x80) {
        if (len < 2)
            return -EILSEQ;
        v = (uint32_t)(p[0] & 0x3F) << 8 | p[1];
        n = 2;
    } else if ((p[0] & 0xE0) == 0xC0) {
        if (len < 4)
            return -EILSEQ;
        v = (uint32_t)(p[0] & 0x1F) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        n = 4;
    } else {
        return -EILSEQ;
    }
    *value = v;
    *used = n;
    return 0;
}

/* Writes value in exactly n bytes (1, 2 or 4) of the compressed form; value fits them. */
static int write_width(uint32_t value, int n, uint8_t out[4])
{
    static const uint8_t tags[5] = {[1] = 0x00, [2] = 0x80, [4] = 0xC0};
    for (int i = 0; i < n; i++)
        out[i] = (uint8_t)(value >> 8 * (n - 1 - i));
    out[0] |= tags[n];
    return n;
}

int clrie_il_sig_write_uint(uint32_t value, uint8_t out[4])
{
    if (value > 0x1FFFFFFF)
        return -ERANGE;
    return write_width(value, value <= 0x7F ? 1 : value <= 0x3FFF ? 2 : 4, out);
}

int clrie_il_sig_read_int(const uint8_t *p, size_t len, int32_t *value, size_t *used)
{
    uint32_t raw;
    size_t n;
    int r = clrie_il_sig_read_uint(p, len, &raw, &n);
    if (r < 0)
        return r;
    if (!value)
        return -EINVAL;
    /* Undo the rotation within the width the encoding used: 6, 13 or 28 value bits. */
    unsigned bits = n == 1 ? 6 : n == 2 ? 13 : 28;
    uint32_t magnitude = raw >> 1;
    *value = (raw & 1) ? (int32_t)(magnitude | ~((1u << bits) - 1)) : (int32_t)magnitude;
    *used = n;
    return 0;
}

/* The signed form: the value rotated left by one within 7, 14 or 29 bits (the sign in bit 0),
 * then written like an unsigned value of that width. */
int clrie_il_sig_write_int(int32_t value, uint8_t out[4])
{
    uint32_t v = (uint32_t)value, sign = value < 0;
    if (value >= -(1 << 6) && value < (1 << 6))
        return write_width((v & 0x3F) << 1 | sign, 1, out);
    if (value >= -(1 << 13) && value < (1 << 13))
        return write_width((v & 0x1FFF) << 1 | sign, 2, out);
    if (value >= -(1 << 28) && value < (1 << 28))
        return write_width((v & 0x0FFFFFFF) << 1 | sign, 4, out);
    return -ERANGE;
}

static const uint8_t coded_tables[3] = {0x02, 0x01, 0x1B}; /* TypeDef, TypeRef, TypeSpec */

int clrie_il_sig_read_token(const uint8_t *p, size_t len, uint32_t *token, size_t *used)
{
    uint32_t v;
    size_t n;
    int r = clrie_il_sig_read_uint(p, len, &v, &n);
    if (r < 0)
        return r;
    if ((v & 3) == 3)
        return -EILSEQ;
    *token = (uint32_t)coded_tables[v & 3] << 24 | v >> 2;
    *used = n;
    return 0;
}

int clrie_il_sig_write_token(uint32_t token, uint8_t out[4])
{
    uint32_t table = token >> 24, rid = token & 0xFFFFFF;
    for (uint32_t tag = 0; tag < 3; tag++) {
        if (coded_tables[tag] == table) {
            if (rid > 0x1FFFFFFF >> 2)
                return -ERANGE;
            return clrie_il_sig_write_uint(rid << 2 | tag, out);
        }
    }
    return -EINVAL;
}

/* A cursor over a blob; every read checks the end. The first failure is described in diag. */
struct cursor {
    const uint8_t *p;
    size_t len, pos;
    struct clrie_il_diag *diag;
};

static int fail(struct cursor *c, const char *what)
{
    return il_diag(c->diag, -EILSEQ, (uint32_t)c->pos, "signature: %s", what);
}

static int next_uint(struct cursor *c, uint32_t *v, const char *what)
{
    size_t used;
    if (c->pos >= c->len || clrie_il_sig_read_uint(c->p + c->pos, c->len - c->pos, v, &used) < 0)
        return il_diag(c->diag, -EILSEQ, (uint32_t)c->pos,
                       "signature: %s is not a well-formed compressed integer", what);
    c->pos += used;
    return 0;
}

static int next_byte(struct cursor *c, uint8_t *b, const char *what)
{
    if (c->pos >= c->len)
        return il_diag(c->diag, -EILSEQ, (uint32_t)c->pos, "signature: ends before its %s", what);
    *b = c->p[c->pos++];
    return 0;
}

static int skip_method(struct cursor *c, int depth, struct clrie_il_method_sig *out);

static int skip_type(struct cursor *c, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(c, "types nest more than 64 deep");
    uint8_t et = 0;
    uint32_t v, n;
    int r = next_byte(c, &et, "type");
    if (r < 0)
        return r;
    if (clrie_il_sig_element_is_simple(et))
        return 0;
    switch (et) {
    case CLRIE_IL_ELEMENT_TYPE_CMOD_REQD:
    case CLRIE_IL_ELEMENT_TYPE_CMOD_OPT:
        if ((r = next_uint(c, &v, "custom modifier type")) < 0)
            return r;
        return skip_type(c, depth + 1);
    case CLRIE_IL_ELEMENT_TYPE_PTR:
    case CLRIE_IL_ELEMENT_TYPE_BYREF:
    case CLRIE_IL_ELEMENT_TYPE_SZARRAY:
    case CLRIE_IL_ELEMENT_TYPE_PINNED:
        return skip_type(c, depth + 1);
    case CLRIE_IL_ELEMENT_TYPE_VALUETYPE:
    case CLRIE_IL_ELEMENT_TYPE_CLASS:
        return next_uint(c, &v, "type token");
    case CLRIE_IL_ELEMENT_TYPE_VAR:
    case CLRIE_IL_ELEMENT_TYPE_MVAR:
        return next_uint(c, &v, "generic parameter number");
    case CLRIE_IL_ELEMENT_TYPE_GENERICINST:
        if ((r = next_byte(c, &et, "generic type")) < 0)
            return r;
        if (et != CLRIE_IL_ELEMENT_TYPE_CLASS && et != CLRIE_IL_ELEMENT_TYPE_VALUETYPE) {
            c->pos--;
            return fail(c, "a generic instance is not of a CLASS or VALUETYPE");
        }
        if ((r = next_uint(c, &v, "generic type token")) < 0 ||
            (r = next_uint(c, &n, "generic argument count")) < 0)
            return r;
        for (uint32_t i = 0; i < n; i++)
            if ((r = skip_type(c, depth + 1)) < 0)
                return r;
        return 0;
    case CLRIE_IL_ELEMENT_TYPE_ARRAY:
        if ((r = skip_type(c, depth + 1)) < 0)
            return r;
        if ((r = next_uint(c, &v, "array rank")) < 0 ||
            (r = next_uint(c, &n, "array size count")) < 0)
            return r;
        for (uint32_t i = 0; i < n; i++)
            if ((r = next_uint(c, &v, "array size")) < 0)
                return r;
        if ((r = next_uint(c, &n, "array bound count")) < 0)
            return r;
        for (uint32_t i = 0; i < n; i++)
            if ((r = next_uint(c, &v, "array lower bound")) < 0)
                return r;
        return 0;
    case CLRIE_IL_ELEMENT_TYPE_FNPTR: {
        struct clrie_il_method_sig m;
        return skip_method(c, depth + 1, &m);
    }
    case CLRIE_IL_ELEMENT_TYPE_INTERNAL: /* a runtime-internal type handle: a pointer follows */
        if (c->len - c->pos < sizeof(void *))
            return fail(c, "ends inside an INTERNAL type's pointer");
        c->pos += sizeof(void *);
        return 0;
    default:
        c->pos--;
        return il_diag(c->diag, -EILSEQ, (uint32_t)c->pos,
                       "signature: 0x%02X is not an element type that starts a type", et);
    }
}

int clrie_il_sig_skip_custom_mods(const uint8_t *p, size_t len, size_t *used)
{
    if ((!p && len > 0) || !used)
        return -EINVAL;
    size_t at = 0;
    while (at < len &&
           (p[at] == CLRIE_IL_ELEMENT_TYPE_CMOD_REQD || p[at] == CLRIE_IL_ELEMENT_TYPE_CMOD_OPT)) {
        uint32_t token;
        size_t n;
        if (clrie_il_sig_read_token(p + at + 1, len - at - 1, &token, &n) < 0)
            return -EILSEQ;
        at += 1 + n;
    }
    *used = at;
    return 0;
}

/* Skips custom modifiers; returns the byte after them (without consuming it). */
static int peek_after_mods(struct cursor *c, uint8_t *b)
{
    size_t used;
    if (clrie_il_sig_skip_custom_mods(c->p + c->pos, c->len - c->pos, &used) < 0)
        return fail(c, "a custom modifier before the return type is malformed");
    c->pos += used;
    if (c->pos >= c->len)
        return fail(c, "ends before its return type");
    *b = c->p[c->pos];
    return 0;
}

static int skip_method(struct cursor *c, int depth, struct clrie_il_method_sig *out)
{
    uint8_t cc = 0;
    int r = next_byte(c, &cc, "calling convention");
    if (r < 0)
        return r;
    uint32_t kind = cc & CLRIE_IL_CALLCONV_KIND_MASK;
    if (kind == CLRIE_IL_CALLCONV_FIELD || kind == CLRIE_IL_CALLCONV_LOCAL_SIG ||
        kind == CLRIE_IL_CALLCONV_PROPERTY || kind >= CLRIE_IL_CALLCONV_GENERICINST) {
        c->pos--;
        return il_diag(c->diag, -EILSEQ, (uint32_t)c->pos,
                       "signature: calling convention 0x%02X is not a method's", cc);
    }
    memset(out, 0, sizeof(*out));
    out->calling_convention = cc;
    out->has_this = cc & CLRIE_IL_CALLCONV_HASTHIS;
    out->explicit_this = cc & CLRIE_IL_CALLCONV_EXPLICITTHIS;
    if ((cc & CLRIE_IL_CALLCONV_GENERIC) &&
        (r = next_uint(c, &out->generic_count, "generic parameter count")) < 0)
        return r;
    if ((r = next_uint(c, &out->param_count, "parameter count")) < 0)
        return r;
    out->ret_offset = c->pos;
    struct cursor probe = *c;
    uint8_t first = 0;
    if ((r = peek_after_mods(&probe, &first)) < 0)
        return r;
    out->returns_void = first == CLRIE_IL_ELEMENT_TYPE_VOID;
    out->returns_byref = first == CLRIE_IL_ELEMENT_TYPE_BYREF;
    if ((r = skip_type(c, depth + 1)) < 0)
        return r;
    out->ret_len = c->pos - out->ret_offset;
    for (uint32_t i = 0; i < out->param_count; i++) {
        if (c->pos < c->len && c->p[c->pos] == CLRIE_IL_ELEMENT_TYPE_SENTINEL)
            c->pos++;
        if ((r = skip_type(c, depth + 1)) < 0)
            return r;
    }
    return 0;
}

int clrie_il_sig_type_len(const uint8_t *p, size_t len, size_t *type_len)
{
    if (!p || !type_len)
        return -EINVAL;
    struct cursor c = {p, len, 0, NULL};
    int r = skip_type(&c, 0);
    if (r < 0)
        return r;
    *type_len = c.pos;
    return 0;
}

int clrie_il_sig_parse_method(const uint8_t *sig, size_t len, struct clrie_il_method_sig *out,
                              struct clrie_il_diag *diag)
{
    if ((!sig && len > 0) || !out)
        return -EINVAL;
    struct cursor c = {sig, len, 0, diag};
    struct clrie_il_method_sig m;
    int r = skip_method(&c, 0, &m);
    if (r < 0)
        return r;
    *out = m;
    return 0;
}

int clrie_il_sig_stack_effect(const struct clrie_il_method_sig *sig, uint16_t opcode,
                              struct clrie_il_stack_effect *out)
{
    if (!sig || !out)
        return -EINVAL;
    uint32_t this_arg = sig->has_this && !sig->explicit_this;
    uint32_t ret = !sig->returns_void;
    switch (opcode) {
    case CLRIE_IL_OP_CALL:
    case CLRIE_IL_OP_CALLVIRT:
        *out = (struct clrie_il_stack_effect){sig->param_count + this_arg, ret};
        return 0;
    case CLRIE_IL_OP_CALLI:
        *out = (struct clrie_il_stack_effect){sig->param_count + this_arg + 1, ret};
        return 0;
    case CLRIE_IL_OP_NEWOBJ:
        *out = (struct clrie_il_stack_effect){sig->param_count, 1};
        return 0;
    case CLRIE_IL_OP_RET:
        *out = (struct clrie_il_stack_effect){ret, 0};
        return 0;
    default:
        return -EINVAL;
    }
}

int clrie_il_sig_local_header(const uint8_t *sig, size_t len, uint32_t *count, size_t *types_at)
{
    size_t unused;
    if (!count)
        return -EINVAL;
    if (!types_at)
        types_at = &unused;
    if (len == 0) {
        *count = 0;
        *types_at = 0;
        return 0;
    }
    if (!sig || sig[0] != CLRIE_IL_CALLCONV_LOCAL_SIG)
        return -EILSEQ;
    size_t used;
    if (len < 2 || clrie_il_sig_read_uint(sig + 1, len - 1, count, &used) < 0)
        return -EILSEQ;
    *types_at = 1 + used;
    return 0;
}

int clrie_il_sig_local_append(const uint8_t *sig, size_t len, const uint8_t *type, size_t type_len,
                              uint8_t **out, size_t *out_len, uint32_t *index)
{
    if (!type || !out || !out_len || !index)
        return -EINVAL;
    size_t check;
    if (clrie_il_sig_type_len(type, type_len, &check) < 0 || check != type_len)
        return -EILSEQ;
    uint32_t count;
    size_t at;
    int r = clrie_il_sig_local_header(sig, len, &count, &at);
    if (r < 0)
        return r;
    if (count >= 65534)
        return -ERANGE;
    uint8_t enc[4];
    int n = clrie_il_sig_write_uint(count + 1, enc);
    size_t rest = len - at;
    size_t total = 1 + (size_t)n + rest + type_len;
    uint8_t *buf = malloc(total);
    if (!buf)
        return -ENOMEM;
    buf[0] = CLRIE_IL_CALLCONV_LOCAL_SIG;
    memcpy(buf + 1, enc, (size_t)n);
    if (rest)
        memcpy(buf + 1 + n, sig + at, rest);
    memcpy(buf + 1 + n + rest, type, type_len);
    *out = buf;
    *out_len = total;
    *index = count;
    return 0;
}
