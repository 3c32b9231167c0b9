/* Display names for tokens: "Namespace.Outer/Inner::Member". Best effort for what has no
 * simple name (type specs, module refs); exact for type and method definitions, which the
 * differential listing compares against System.Reflection.Metadata. */
#include <errno.h>
#include <string.h>

#include "internal.h"

enum {
    MAX_NESTING = 64, /* deeper (or cyclic) nesting is cut short, not followed */
};

struct name {
    char *buf;
    size_t size;
    size_t len;
    bool truncated;
};

static void put(struct name *n, const char *s)
{
    size_t add = strlen(s);
    size_t room = n->size - 1 - n->len;
    if (add > room) {
        add = room;
        n->truncated = true;
    }
    memcpy(n->buf + n->len, s, add);
    n->len += add;
    n->buf[n->len] = '\0';
}

/* A TypeDef or TypeRef: its name, namespace and the row of the type of the same table it is
 * nested in (0 if none: a TypeRef's scope that is not a TypeRef row is no enclosing type). */
static int type_parts(const struct asm_assembly *a, enum asm_table table, uint32_t row,
                      const char **name, const char **namespace_, uint32_t *outer,
                      struct asm_diag *diag)
{
    int r;
    if (table == ASM_TABLE_TYPE_DEF) {
        struct asm_typedef t;
        if ((r = asm_typedef_get(a, row, &t, diag)) != 0)
            return r;
        *name = t.name;
        *namespace_ = t.namespace_;
        *outer = t.enclosing;
        return 0;
    }
    struct asm_typeref t;
    if ((r = asm_typeref_get(a, row, &t, diag)) != 0)
        return r;
    uint32_t scope_row = ASM_TOKEN_ROW(t.resolution_scope);
    *name = t.name;
    *namespace_ = t.namespace_;
    *outer = ASM_TOKEN_TABLE(t.resolution_scope) == ASM_TABLE_TYPE_REF && scope_row >= 1 &&
                     scope_row <= a->tables[ASM_TABLE_TYPE_REF].rows
                 ? scope_row
                 : 0;
    return 0;
}

/* Namespace.Outer/Inner: the namespace is the outermost type's. */
static int put_type(const struct asm_assembly *a, enum asm_table table, uint32_t row,
                    unsigned depth, struct name *n, struct asm_diag *diag)
{
    const char *name, *namespace_;
    uint32_t outer;
    int r = type_parts(a, table, row, &name, &namespace_, &outer, diag);
    if (r != 0)
        return r;
    if (outer && depth < MAX_NESTING) {
        if ((r = put_type(a, table, outer, depth + 1, n, diag)) != 0)
            return r;
        put(n, "/");
    } else if (namespace_[0]) {
        put(n, namespace_);
        put(n, ".");
    }
    put(n, name);
    return 0;
}

static int put_typespec(const struct asm_assembly *a, uint32_t row, struct name *n,
                        struct asm_diag *diag)
{
    struct asm_blob sig;
    int r = asm_typespec_get(a, row, &sig, diag);
    if (r != 0)
        return r;
    /* GENERICINST (CLASS | VALUETYPE) TypeDefOrRefEncoded ...: name the generic type. */
    uint32_t generic;
    size_t used;
    if (sig.len >= 3 && sig.data[0] == CLRIE_IL_ELEMENT_TYPE_GENERICINST &&
        (sig.data[1] == CLRIE_IL_ELEMENT_TYPE_CLASS ||
         sig.data[1] == CLRIE_IL_ELEMENT_TYPE_VALUETYPE) &&
        clrie_il_sig_read_token(sig.data + 2, sig.len - 2, &generic, &used) == 0) {
        uint32_t table = ASM_TOKEN_TABLE(generic), target = ASM_TOKEN_ROW(generic);
        if ((table == ASM_TABLE_TYPE_DEF || table == ASM_TABLE_TYPE_REF) && target >= 1 &&
            target <= asm_table_rows(a, table))
            return put_type(a, table, target, 0, n, diag);
    }
    put(n, "[typespec]");
    return 0;
}

static int put_member(const struct asm_assembly *a, uint32_t owner, const char *member,
                      struct name *n, struct asm_diag *diag)
{
    if (owner) {
        int r = put_type(a, ASM_TABLE_TYPE_DEF, owner, 0, n, diag);
        if (r != 0)
            return r;
        put(n, "::");
    }
    put(n, member);
    return 0;
}

/* Recursion is bounded by the coded indexes: a MethodSpec names a MethodDef or MemberRef,
 * a MemberRef's parent is never a MemberRef or MethodSpec. */
static int put_token(const struct asm_assembly *a, uint32_t token, struct name *n,
                     struct asm_diag *diag)
{
    uint32_t table = ASM_TOKEN_TABLE(token), row = ASM_TOKEN_ROW(token);
    if (table < ASM_TABLE_COUNT && (row == 0 || row > a->tables[table].rows))
        return -ENOENT;
    switch (table) {
    case ASM_TABLE_TYPE_DEF:
    case ASM_TABLE_TYPE_REF:
        return put_type(a, table, row, 0, n, diag);
    case ASM_TABLE_TYPE_SPEC:
        return put_typespec(a, row, n, diag);
    case ASM_TABLE_METHOD_DEF: {
        struct asm_methoddef m;
        int r = asm_methoddef_get(a, row, &m, diag);
        return r ? r : put_member(a, m.owner, m.name, n, diag);
    }
    case ASM_TABLE_FIELD: {
        struct asm_field f;
        int r = asm_field_get(a, row, &f, diag);
        return r ? r : put_member(a, f.owner, f.name, n, diag);
    }
    case ASM_TABLE_MODULE_REF: {
        const char *name;
        int r = asm_string(a, asm_cell(a, ASM_TABLE_MODULE_REF, row, 0), &name, diag);
        if (r != 0)
            return r;
        put(n, "[module:");
        put(n, name);
        put(n, "]");
        return 0;
    }
    case ASM_TABLE_MEMBER_REF: {
        struct asm_memberref m;
        int r = asm_memberref_get(a, row, &m, diag);
        if (r != 0)
            return r;
        if (ASM_TOKEN_TABLE(m.parent) == ASM_TABLE_METHOD_DEF) {
            /* a vararg call site: the parent is the method itself */
            struct asm_methoddef def;
            if ((r = asm_methoddef_get(a, ASM_TOKEN_ROW(m.parent), &def, diag)) != 0)
                return r == -ENOENT ? asm_fail(diag, asm_row_offset(a, table, row),
                                               "MemberRef %u has no parent", row)
                                    : r;
            return put_member(a, def.owner, m.name, n, diag);
        }
        if (m.parent) {
            r = put_token(a, m.parent, n, diag);
            if (r == -ENOENT)
                return asm_fail(diag, asm_row_offset(a, table, row),
                                "MemberRef %u parent 0x%08X does not exist", row, m.parent);
            if (r != 0)
                return r;
            put(n, "::");
        }
        put(n, m.name);
        return 0;
    }
    case ASM_TABLE_METHOD_SPEC: {
        struct asm_methodspec m;
        int r = asm_methodspec_get(a, row, &m, diag);
        if (r != 0)
            return r;
        if (m.method == 0)
            return asm_fail(diag, asm_row_offset(a, table, row), "MethodSpec %u names no method",
                            row);
        r = put_token(a, m.method, n, diag);
        return r == -ENOENT ? asm_fail(diag, asm_row_offset(a, table, row),
                                       "MethodSpec %u method 0x%08X does not exist", row, m.method)
                            : r;
    }
    default:
        return -EINVAL;
    }
}

int asm_token_name(const struct asm_assembly *a, uint32_t token, char *buf, size_t size,
                   struct asm_diag *diag)
{
    if (!a || !buf || size == 0)
        return -EINVAL;
    struct name n = {.buf = buf, .size = size};
    buf[0] = '\0';
    int r = put_token(a, token, &n, diag);
    if (r != 0)
        return r;
    return n.truncated ? -ERANGE : 0;
}
