/* Typed reads of the rows the IL tool needs: each resolves its heap indexes and coded
 * indexes, so a caller gets names, blobs and tokens or a diagnostic, never raw cells. */
#include <errno.h>

#include "internal.h"

static int check_row(const struct asm_assembly *a, enum asm_table t, uint32_t row)
{
    if (!a)
        return -EINVAL;
    return row >= 1 && row <= a->tables[t].rows ? 0 : -ENOENT;
}

static int string_cell(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col,
                       const char **out, struct asm_diag *diag)
{
    return asm_string(a, asm_cell(a, t, row, col), out, diag);
}

static int blob_cell(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col,
                     struct asm_blob *out, struct asm_diag *diag)
{
    return asm_blob(a, asm_cell(a, t, row, col), out, diag);
}

int asm_module_get(const struct asm_assembly *a, struct asm_module *out, struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_MODULE, 1);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_module m;
    r = string_cell(a, ASM_TABLE_MODULE, 1, 1, &m.name, diag);
    if (r == 0)
        r = asm_guid(a, asm_cell(a, ASM_TABLE_MODULE, 1, 2), &m.mvid, diag);
    if (r == 0)
        *out = m;
    return r;
}

int asm_assembly_name(const struct asm_assembly *a, const char **out, struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_ASSEMBLY, 1);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    return string_cell(a, ASM_TABLE_ASSEMBLY, 1, 7, out, diag);
}

int asm_typedef_get(const struct asm_assembly *a, uint32_t row, struct asm_typedef *out,
                    struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_TYPE_DEF, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_typedef t;
    t.flags = asm_cell(a, ASM_TABLE_TYPE_DEF, row, 0);
    t.field_list = asm_cell(a, ASM_TABLE_TYPE_DEF, row, 4);
    t.method_list = asm_cell(a, ASM_TABLE_TYPE_DEF, row, 5);
    /* asm_tables_link() checked the lists are in order and in range. */
    uint32_t list_end = a->tables[ASM_TABLE_METHOD_PTR].rows
                            ? a->tables[ASM_TABLE_METHOD_PTR].rows + 1
                            : a->tables[ASM_TABLE_METHOD_DEF].rows + 1;
    if (row < a->tables[ASM_TABLE_TYPE_DEF].rows)
        list_end = asm_cell(a, ASM_TABLE_TYPE_DEF, row + 1, 5);
    t.method_count = list_end - t.method_list;
    t.enclosing = a->enclosing[row];
    r = string_cell(a, ASM_TABLE_TYPE_DEF, row, 1, &t.name, diag);
    if (r == 0)
        r = string_cell(a, ASM_TABLE_TYPE_DEF, row, 2, &t.namespace_, diag);
    if (r == 0)
        r = asm_coded_token(a, ASM_TABLE_TYPE_DEF, row, 3, &t.extends, diag);
    if (r == 0)
        *out = t;
    return r;
}

int asm_methoddef_get(const struct asm_assembly *a, uint32_t row, struct asm_methoddef *out,
                      struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_METHOD_DEF, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_methoddef m;
    m.rva = asm_cell(a, ASM_TABLE_METHOD_DEF, row, 0);
    m.impl_flags = (uint16_t)asm_cell(a, ASM_TABLE_METHOD_DEF, row, 1);
    m.flags = (uint16_t)asm_cell(a, ASM_TABLE_METHOD_DEF, row, 2);
    m.param_list = asm_cell(a, ASM_TABLE_METHOD_DEF, row, 5);
    m.owner = a->method_owner[row];
    r = string_cell(a, ASM_TABLE_METHOD_DEF, row, 3, &m.name, diag);
    if (r == 0)
        r = blob_cell(a, ASM_TABLE_METHOD_DEF, row, 4, &m.signature, diag);
    if (r == 0)
        *out = m;
    return r;
}

int asm_field_get(const struct asm_assembly *a, uint32_t row, struct asm_field *out,
                  struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_FIELD, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_field f;
    f.flags = (uint16_t)asm_cell(a, ASM_TABLE_FIELD, row, 0);
    f.owner = a->field_owner[row];
    r = string_cell(a, ASM_TABLE_FIELD, row, 1, &f.name, diag);
    if (r == 0)
        r = blob_cell(a, ASM_TABLE_FIELD, row, 2, &f.signature, diag);
    if (r == 0)
        *out = f;
    return r;
}

int asm_typeref_get(const struct asm_assembly *a, uint32_t row, struct asm_typeref *out,
                    struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_TYPE_REF, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_typeref t;
    r = asm_coded_token(a, ASM_TABLE_TYPE_REF, row, 0, &t.resolution_scope, diag);
    if (r == 0)
        r = string_cell(a, ASM_TABLE_TYPE_REF, row, 1, &t.name, diag);
    if (r == 0)
        r = string_cell(a, ASM_TABLE_TYPE_REF, row, 2, &t.namespace_, diag);
    if (r == 0)
        *out = t;
    return r;
}

int asm_memberref_get(const struct asm_assembly *a, uint32_t row, struct asm_memberref *out,
                      struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_MEMBER_REF, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_memberref m;
    r = asm_coded_token(a, ASM_TABLE_MEMBER_REF, row, 0, &m.parent, diag);
    if (r == 0)
        r = string_cell(a, ASM_TABLE_MEMBER_REF, row, 1, &m.name, diag);
    if (r == 0)
        r = blob_cell(a, ASM_TABLE_MEMBER_REF, row, 2, &m.signature, diag);
    if (r == 0)
        *out = m;
    return r;
}

int asm_methodspec_get(const struct asm_assembly *a, uint32_t row, struct asm_methodspec *out,
                       struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_METHOD_SPEC, row);
    if (r != 0 || !out)
        return r ? r : -EINVAL;
    struct asm_methodspec m;
    r = asm_coded_token(a, ASM_TABLE_METHOD_SPEC, row, 0, &m.method, diag);
    if (r == 0)
        r = blob_cell(a, ASM_TABLE_METHOD_SPEC, row, 1, &m.instantiation, diag);
    if (r == 0)
        *out = m;
    return r;
}

int asm_standalonesig_get(const struct asm_assembly *a, uint32_t row, struct asm_blob *signature,
                          struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_STAND_ALONE_SIG, row);
    if (r != 0 || !signature)
        return r ? r : -EINVAL;
    return blob_cell(a, ASM_TABLE_STAND_ALONE_SIG, row, 0, signature, diag);
}

int asm_typespec_get(const struct asm_assembly *a, uint32_t row, struct asm_blob *signature,
                     struct asm_diag *diag)
{
    int r = check_row(a, ASM_TABLE_TYPE_SPEC, row);
    if (r != 0 || !signature)
        return r ? r : -EINVAL;
    return blob_cell(a, ASM_TABLE_TYPE_SPEC, row, 0, signature, diag);
}
