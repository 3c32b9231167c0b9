/* The table stream (#~, or #- for unoptimised metadata; ECMA-335 II.24.2.6): row counts,
 * heap and coded index sizes, the layout of every table of II.22, and what the rows say
 * about each other (which type owns which method and field, which type encloses which). */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

enum {
    HEAP_STRINGS_WIDE = 0x01,
    HEAP_GUID_WIDE = 0x02,
    HEAP_BLOB_WIDE = 0x04,
    HEAP_EXTRA_DATA = 0x40, /* #- streams: four more bytes after the row counts */
    MAX_ROWS = 0x00FFFFFF,  /* a token has 24 bits for the row */
};

enum coded_kind {
    TYPE_DEF_OR_REF,
    HAS_CONSTANT,
    HAS_CUSTOM_ATTRIBUTE,
    HAS_FIELD_MARSHAL,
    HAS_DECL_SECURITY,
    MEMBER_REF_PARENT,
    HAS_SEMANTICS,
    METHOD_DEF_OR_REF,
    MEMBER_FORWARDED,
    IMPLEMENTATION,
    CUSTOM_ATTRIBUTE_TYPE,
    RESOLUTION_SCOPE,
    TYPE_OR_METHOD_DEF,
    CODED_KIND_COUNT
};

#define NONE 0xFF /* a tag value that names no table */

struct coded_index {
    uint8_t tag_bits;
    uint8_t count;
    uint8_t tables[22];
};

/* II.24.2.6: the tables each coded index can refer to, in tag order. */
static const struct coded_index coded_indexes[CODED_KIND_COUNT] = {
    [TYPE_DEF_OR_REF] = {2, 3, {ASM_TABLE_TYPE_DEF, ASM_TABLE_TYPE_REF, ASM_TABLE_TYPE_SPEC}},
    [HAS_CONSTANT] = {2, 3, {ASM_TABLE_FIELD, ASM_TABLE_PARAM, ASM_TABLE_PROPERTY}},
    [HAS_CUSTOM_ATTRIBUTE] =
        {5,
         22,
         {ASM_TABLE_METHOD_DEF,        ASM_TABLE_FIELD,         ASM_TABLE_TYPE_REF,
          ASM_TABLE_TYPE_DEF,          ASM_TABLE_PARAM,         ASM_TABLE_INTERFACE_IMPL,
          ASM_TABLE_MEMBER_REF,        ASM_TABLE_MODULE,        ASM_TABLE_DECL_SECURITY,
          ASM_TABLE_PROPERTY,          ASM_TABLE_EVENT,         ASM_TABLE_STAND_ALONE_SIG,
          ASM_TABLE_MODULE_REF,        ASM_TABLE_TYPE_SPEC,     ASM_TABLE_ASSEMBLY,
          ASM_TABLE_ASSEMBLY_REF,      ASM_TABLE_FILE,          ASM_TABLE_EXPORTED_TYPE,
          ASM_TABLE_MANIFEST_RESOURCE, ASM_TABLE_GENERIC_PARAM, ASM_TABLE_GENERIC_PARAM_CONSTRAINT,
          ASM_TABLE_METHOD_SPEC}},
    [HAS_FIELD_MARSHAL] = {1, 2, {ASM_TABLE_FIELD, ASM_TABLE_PARAM}},
    [HAS_DECL_SECURITY] = {2, 3, {ASM_TABLE_TYPE_DEF, ASM_TABLE_METHOD_DEF, ASM_TABLE_ASSEMBLY}},
    [MEMBER_REF_PARENT] = {3,
                           5,
                           {ASM_TABLE_TYPE_DEF, ASM_TABLE_TYPE_REF, ASM_TABLE_MODULE_REF,
                            ASM_TABLE_METHOD_DEF, ASM_TABLE_TYPE_SPEC}},
    [HAS_SEMANTICS] = {1, 2, {ASM_TABLE_EVENT, ASM_TABLE_PROPERTY}},
    [METHOD_DEF_OR_REF] = {1, 2, {ASM_TABLE_METHOD_DEF, ASM_TABLE_MEMBER_REF}},
    [MEMBER_FORWARDED] = {1, 2, {ASM_TABLE_FIELD, ASM_TABLE_METHOD_DEF}},
    [IMPLEMENTATION] = {2, 3, {ASM_TABLE_FILE, ASM_TABLE_ASSEMBLY_REF, ASM_TABLE_EXPORTED_TYPE}},
    [CUSTOM_ATTRIBUTE_TYPE] = {3,
                               5,
                               {NONE, NONE, ASM_TABLE_METHOD_DEF, ASM_TABLE_MEMBER_REF, NONE}},
    [RESOLUTION_SCOPE] = {2,
                          4,
                          {ASM_TABLE_MODULE, ASM_TABLE_MODULE_REF, ASM_TABLE_ASSEMBLY_REF,
                           ASM_TABLE_TYPE_REF}},
    [TYPE_OR_METHOD_DEF] = {1, 2, {ASM_TABLE_TYPE_DEF, ASM_TABLE_METHOD_DEF}},
};

/* Column kinds: small values for fixed kinds, then a simple index into table t
 * (COL_INDEX + t) or a coded index of kind k (COL_CODED + k). 0 ends a row. */
enum {
    COL_END = 0,
    U16,
    U32,
    STR,
    GUID,
    BLOB,
    COL_INDEX = 0x40,
    COL_CODED = 0x80,
};
#define IDX(t) (COL_INDEX + (t))
#define CODED(k) (COL_CODED + (k))

/* II.22: the columns of every table, in order. Constant's Type is a byte plus a padding
 * byte, read here as one U16. */
static const uint8_t schema[ASM_TABLE_COUNT][MAX_COLUMNS + 1] = {
    [ASM_TABLE_MODULE] = {U16, STR, GUID, GUID, GUID},
    [ASM_TABLE_TYPE_REF] = {CODED(RESOLUTION_SCOPE), STR, STR},
    [ASM_TABLE_TYPE_DEF] = {U32, STR, STR, CODED(TYPE_DEF_OR_REF), IDX(ASM_TABLE_FIELD),
                            IDX(ASM_TABLE_METHOD_DEF)},
    [ASM_TABLE_FIELD_PTR] = {IDX(ASM_TABLE_FIELD)},
    [ASM_TABLE_FIELD] = {U16, STR, BLOB},
    [ASM_TABLE_METHOD_PTR] = {IDX(ASM_TABLE_METHOD_DEF)},
    [ASM_TABLE_METHOD_DEF] = {U32, U16, U16, STR, BLOB, IDX(ASM_TABLE_PARAM)},
    [ASM_TABLE_PARAM_PTR] = {IDX(ASM_TABLE_PARAM)},
    [ASM_TABLE_PARAM] = {U16, U16, STR},
    [ASM_TABLE_INTERFACE_IMPL] = {IDX(ASM_TABLE_TYPE_DEF), CODED(TYPE_DEF_OR_REF)},
    [ASM_TABLE_MEMBER_REF] = {CODED(MEMBER_REF_PARENT), STR, BLOB},
    [ASM_TABLE_CONSTANT] = {U16, CODED(HAS_CONSTANT), BLOB},
    [ASM_TABLE_CUSTOM_ATTRIBUTE] = {CODED(HAS_CUSTOM_ATTRIBUTE), CODED(CUSTOM_ATTRIBUTE_TYPE),
                                    BLOB},
    [ASM_TABLE_FIELD_MARSHAL] = {CODED(HAS_FIELD_MARSHAL), BLOB},
    [ASM_TABLE_DECL_SECURITY] = {U16, CODED(HAS_DECL_SECURITY), BLOB},
    [ASM_TABLE_CLASS_LAYOUT] = {U16, U32, IDX(ASM_TABLE_TYPE_DEF)},
    [ASM_TABLE_FIELD_LAYOUT] = {U32, IDX(ASM_TABLE_FIELD)},
    [ASM_TABLE_STAND_ALONE_SIG] = {BLOB},
    [ASM_TABLE_EVENT_MAP] = {IDX(ASM_TABLE_TYPE_DEF), IDX(ASM_TABLE_EVENT)},
    [ASM_TABLE_EVENT_PTR] = {IDX(ASM_TABLE_EVENT)},
    [ASM_TABLE_EVENT] = {U16, STR, CODED(TYPE_DEF_OR_REF)},
    [ASM_TABLE_PROPERTY_MAP] = {IDX(ASM_TABLE_TYPE_DEF), IDX(ASM_TABLE_PROPERTY)},
    [ASM_TABLE_PROPERTY_PTR] = {IDX(ASM_TABLE_PROPERTY)},
    [ASM_TABLE_PROPERTY] = {U16, STR, BLOB},
    [ASM_TABLE_METHOD_SEMANTICS] = {U16, IDX(ASM_TABLE_METHOD_DEF), CODED(HAS_SEMANTICS)},
    [ASM_TABLE_METHOD_IMPL] = {IDX(ASM_TABLE_TYPE_DEF), CODED(METHOD_DEF_OR_REF),
                               CODED(METHOD_DEF_OR_REF)},
    [ASM_TABLE_MODULE_REF] = {STR},
    [ASM_TABLE_TYPE_SPEC] = {BLOB},
    [ASM_TABLE_IMPL_MAP] = {U16, CODED(MEMBER_FORWARDED), STR, IDX(ASM_TABLE_MODULE_REF)},
    [ASM_TABLE_FIELD_RVA] = {U32, IDX(ASM_TABLE_FIELD)},
    [ASM_TABLE_ENC_LOG] = {U32, U32},
    [ASM_TABLE_ENC_MAP] = {U32},
    [ASM_TABLE_ASSEMBLY] = {U32, U16, U16, U16, U16, U32, BLOB, STR, STR},
    [ASM_TABLE_ASSEMBLY_PROCESSOR] = {U32},
    [ASM_TABLE_ASSEMBLY_OS] = {U32, U32, U32},
    [ASM_TABLE_ASSEMBLY_REF] = {U16, U16, U16, U16, U32, BLOB, STR, STR, BLOB},
    [ASM_TABLE_ASSEMBLY_REF_PROCESSOR] = {U32, IDX(ASM_TABLE_ASSEMBLY_REF)},
    [ASM_TABLE_ASSEMBLY_REF_OS] = {U32, U32, U32, IDX(ASM_TABLE_ASSEMBLY_REF)},
    [ASM_TABLE_FILE] = {U32, STR, BLOB},
    [ASM_TABLE_EXPORTED_TYPE] = {U32, U32, STR, STR, CODED(IMPLEMENTATION)},
    [ASM_TABLE_MANIFEST_RESOURCE] = {U32, U32, STR, CODED(IMPLEMENTATION)},
    [ASM_TABLE_NESTED_CLASS] = {IDX(ASM_TABLE_TYPE_DEF), IDX(ASM_TABLE_TYPE_DEF)},
    [ASM_TABLE_GENERIC_PARAM] = {U16, U16, CODED(TYPE_OR_METHOD_DEF), STR},
    [ASM_TABLE_METHOD_SPEC] = {CODED(METHOD_DEF_OR_REF), BLOB},
    [ASM_TABLE_GENERIC_PARAM_CONSTRAINT] = {IDX(ASM_TABLE_GENERIC_PARAM), CODED(TYPE_DEF_OR_REF)},
};

static uint8_t column_size(const struct asm_assembly *a, uint8_t kind)
{
    if (kind >= COL_CODED) {
        const struct coded_index *c = &coded_indexes[kind - COL_CODED];
        uint32_t max = 0;
        for (uint8_t i = 0; i < c->count; i++)
            if (c->tables[i] != NONE && a->tables[c->tables[i]].rows > max)
                max = a->tables[c->tables[i]].rows;
        return max < (1u << (16 - c->tag_bits)) ? 2 : 4;
    }
    if (kind >= COL_INDEX)
        return a->tables[kind - COL_INDEX].rows <= 0xFFFF ? 2 : 4;
    switch (kind) {
    case U16:
        return 2;
    case U32:
        return 4;
    case STR:
        return a->heap_sizes & HEAP_STRINGS_WIDE ? 4 : 2;
    case GUID:
        return a->heap_sizes & HEAP_GUID_WIDE ? 4 : 2;
    default: /* BLOB */
        return a->heap_sizes & HEAP_BLOB_WIDE ? 4 : 2;
    }
}

int asm_tables_parse(struct asm_assembly *a, const uint8_t *stream, uint32_t size, uint32_t at,
                     struct asm_diag *diag)
{
    if (size < 24)
        return asm_fail(diag, at, "table stream (%u bytes) shorter than its 24-byte header", size);
    a->heap_sizes = stream[6];
    uint64_t valid = (uint64_t)rd32(stream + 8) | ((uint64_t)rd32(stream + 12) << 32);
    if (valid >> ASM_TABLE_COUNT)
        return asm_fail(diag, at + 8,
                        "table stream has tables this reader does not know (valid mask "
                        "0x%016llX)",
                        (unsigned long long)valid);
    size_t pos = 24;
    for (unsigned t = 0; t < ASM_TABLE_COUNT; t++) {
        if (!(valid & ((uint64_t)1 << t)))
            continue;
        if (pos + 4 > size)
            return asm_fail(diag, at + pos, "row counts run past the table stream");
        uint32_t rows = rd32(stream + pos);
        if (rows > MAX_ROWS)
            return asm_fail(diag, at + pos,
                            "table 0x%02X claims %u rows, more than a token can address", t, rows);
        a->tables[t].rows = rows;
        pos += 4;
    }
    if (a->heap_sizes & HEAP_EXTRA_DATA)
        pos += 4;

    for (unsigned t = 0; t < ASM_TABLE_COUNT; t++) {
        struct table *table = &a->tables[t];
        uint32_t offset = 0;
        unsigned c = 0;
        for (; c < MAX_COLUMNS && schema[t][c] != COL_END; c++) {
            uint8_t s = column_size(a, schema[t][c]);
            table->column_offset[c] = (uint8_t)offset;
            table->column_size[c] = s;
            offset += s;
        }
        table->column_count = (uint8_t)c;
        table->row_size = offset;
        uint64_t bytes = (uint64_t)table->rows * table->row_size;
        if (pos > size || bytes > size - pos)
            return asm_fail(diag, at + (pos < size ? pos : size),
                            "table 0x%02X (%u rows of %u bytes) runs past the table stream "
                            "(%u bytes)",
                            t, table->rows, table->row_size, size);
        table->base = stream + pos;
        pos += (size_t)bytes;
    }
    return 0;
}

uint32_t asm_cell(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col)
{
    const struct table *table = &a->tables[t];
    const uint8_t *p =
        table->base + (size_t)(row - 1) * table->row_size + table->column_offset[col];
    return table->column_size[col] == 2 ? rd16(p) : rd32(p);
}

size_t asm_row_offset(const struct asm_assembly *a, enum asm_table t, uint32_t row)
{
    const struct table *table = &a->tables[t];
    if (row == 0 || row > table->rows)
        return file_offset_of(a, table->base);
    return file_offset_of(a, table->base + (size_t)(row - 1) * table->row_size);
}

int asm_coded_token(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col,
                    uint32_t *token, struct asm_diag *diag)
{
    const struct coded_index *c = &coded_indexes[schema[t][col] - COL_CODED];
    uint32_t value = asm_cell(a, t, row, col);
    uint32_t tag = value & ((1u << c->tag_bits) - 1);
    uint32_t index = value >> c->tag_bits;
    if (index == 0) {
        *token = 0;
        return 0;
    }
    if (tag >= c->count || c->tables[tag] == NONE)
        return asm_fail(diag, asm_row_offset(a, t, row),
                        "coded index 0x%X in table 0x%02X row %u has tag %u, which names no "
                        "table",
                        value, t, row, tag);
    *token = ASM_TOKEN(c->tables[tag], index);
    return 0;
}

/* Fills owner[member] = type for the member lists of every TypeDef (II.22.37): the list
 * column gives the first member, the next type's list ends it; a Ptr table, if present,
 * stands between the list and the members. */
static int link_members(struct asm_assembly *a, unsigned list_column, enum asm_table members,
                        enum asm_table pointers, uint32_t **owner_out, struct asm_diag *diag)
{
    uint32_t member_rows = a->tables[members].rows;
    uint32_t *owner = calloc((size_t)member_rows + 1, sizeof(*owner));
    if (!owner)
        return -ENOMEM;
    *owner_out = owner;
    bool indirect = a->tables[pointers].rows > 0;
    uint32_t list_rows = indirect ? a->tables[pointers].rows : member_rows;
    uint32_t types = a->tables[ASM_TABLE_TYPE_DEF].rows;
    for (uint32_t type = 1; type <= types; type++) {
        uint32_t first = asm_cell(a, ASM_TABLE_TYPE_DEF, type, list_column);
        uint32_t end =
            type < types ? asm_cell(a, ASM_TABLE_TYPE_DEF, type + 1, list_column) : list_rows + 1;
        if (first == 0 || first > list_rows + 1 || end < first || end > list_rows + 1)
            return asm_fail(diag, asm_row_offset(a, ASM_TABLE_TYPE_DEF, type),
                            "TypeDef %u lists %s rows %u..%u, outside 1..%u or out of order", type,
                            members == ASM_TABLE_METHOD_DEF ? "method" : "field", first, end,
                            list_rows + 1);
        for (uint32_t i = first; i < end; i++) {
            uint32_t member = indirect ? asm_cell(a, pointers, i, 0) : i;
            if (member == 0 || member > member_rows)
                return asm_fail(diag, asm_row_offset(a, pointers, i),
                                "pointer table 0x%02X row %u names row %u of %u", pointers, i,
                                member, member_rows);
            owner[member] = type;
        }
    }
    return 0;
}

int asm_tables_link(struct asm_assembly *a, struct asm_diag *diag)
{
    int r = link_members(a, 5, ASM_TABLE_METHOD_DEF, ASM_TABLE_METHOD_PTR, &a->method_owner, diag);
    if (r == 0)
        r = link_members(a, 4, ASM_TABLE_FIELD, ASM_TABLE_FIELD_PTR, &a->field_owner, diag);
    if (r != 0)
        return r;

    uint32_t types = a->tables[ASM_TABLE_TYPE_DEF].rows;
    a->enclosing = calloc((size_t)types + 1, sizeof(*a->enclosing));
    if (!a->enclosing)
        return -ENOMEM;
    for (uint32_t row = 1; row <= a->tables[ASM_TABLE_NESTED_CLASS].rows; row++) {
        uint32_t nested = asm_cell(a, ASM_TABLE_NESTED_CLASS, row, 0);
        uint32_t enclosing = asm_cell(a, ASM_TABLE_NESTED_CLASS, row, 1);
        if (nested == 0 || nested > types || enclosing == 0 || enclosing > types ||
            nested == enclosing)
            return asm_fail(diag, asm_row_offset(a, ASM_TABLE_NESTED_CLASS, row),
                            "NestedClass row %u pairs TypeDefs %u and %u (of %u)", row, nested,
                            enclosing, types);
        a->enclosing[nested] = enclosing;
    }
    return 0;
}
