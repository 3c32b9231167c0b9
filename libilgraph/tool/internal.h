/* internal.h: the assembly reader's private state, shared by its .c files only. */
#ifndef CLRIE_IL_TOOL_ASSEMBLY_INTERNAL_H
#define CLRIE_IL_TOOL_ASSEMBLY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "assembly.h"
#include "clrie/ilgraph.h"

/* Link names of the reader's internal functions (see assembly.h). */
#define asm_cell clrie_il__asm_cell
#define asm_coded_token clrie_il__asm_coded_token
#define asm_fail clrie_il__asm_fail
#define asm_metadata_parse clrie_il__asm_metadata_parse
#define asm_pe_parse clrie_il__asm_pe_parse
#define asm_row_offset clrie_il__asm_row_offset
#define asm_tables_link clrie_il__asm_tables_link
#define asm_tables_parse clrie_il__asm_tables_parse

#define MAX_COLUMNS 9

struct heap {
    const uint8_t *data;
    uint32_t size;
    uint32_t file_offset;
};

struct table {
    uint32_t rows;
    uint32_t row_size;
    const uint8_t *base; /* first row */
    uint8_t column_count;
    uint8_t column_offset[MAX_COLUMNS];
    uint8_t column_size[MAX_COLUMNS];
};

struct asm_assembly {
    const uint8_t *data;
    size_t len;
    void *owned; /* the bytes, when the assembly read them from a file */
    struct asm_info info;

    struct clrie_il_pe_image pe; /* the headers, in the file's (flat) layout */

    struct heap strings, user_strings, blobs, guids;
    uint8_t heap_sizes;
    struct table tables[ASM_TABLE_COUNT];

    /* Derived from the tables at open, one entry per row (index 0 unused). */
    uint32_t *method_owner; /* MethodDef row -> TypeDef row */
    uint32_t *field_owner;  /* Field row -> TypeDef row */
    uint32_t *enclosing;    /* TypeDef row -> enclosing TypeDef row */
};

/* Little-endian reads; the caller has checked the bounds. */
static inline uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Fills diag (which may be NULL) and returns -EILSEQ. */
int asm_fail(struct asm_diag *diag, size_t offset, const char *format, ...)
    __attribute__((format(__printf__, 3, 4)));

/* Offset of p in the file (p points into it). */
static inline size_t file_offset_of(const struct asm_assembly *a, const uint8_t *p)
{
    return (size_t)(p - a->data);
}

/* pe.c: the PE headers through libilgraph's reader; fills info and finds the metadata root. */
int asm_pe_parse(struct asm_assembly *a, size_t *metadata_offset, size_t *metadata_size,
                 struct asm_diag *diag);

/* metadata.c: the metadata root and its streams. */
int asm_metadata_parse(struct asm_assembly *a, size_t offset, size_t size, struct asm_diag *diag);

/* tables.c: the #~ / #- stream: row counts, sizes, and where each table starts. */
int asm_tables_parse(struct asm_assembly *a, const uint8_t *stream, uint32_t size,
                     uint32_t stream_offset, struct asm_diag *diag);

/* tables.c: method/field owners and enclosing types, after the tables are parsed. */
int asm_tables_link(struct asm_assembly *a, struct asm_diag *diag);

/* tables.c: one cell of a row (rows and columns from the caller are in range). */
uint32_t asm_cell(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col);

/* tables.c: decodes a coded-index cell into a token (0 for a null index); -EILSEQ for a tag
 * that names no table. */
int asm_coded_token(const struct asm_assembly *a, enum asm_table t, uint32_t row, unsigned col,
                    uint32_t *token, struct asm_diag *diag);

/* tables.c: file offset of a row, for diagnostics. */
size_t asm_row_offset(const struct asm_assembly *a, enum asm_table t, uint32_t row);

#endif
