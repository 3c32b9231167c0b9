/* The PE container of an assembly file: libilgraph's PE reader (clrie_il_pe_image_*) over the
 * file's bytes in their flat layout, plus what an assembly needs beyond a PE image: sections,
 * a CLI header and its metadata directory inside the file. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

int asm_fail(struct asm_diag *diag, size_t offset, const char *format, ...)
{
    if (diag) {
        va_list args;
        va_start(args, format);
        vsnprintf(diag->message, sizeof(diag->message), format, args);
        va_end(args);
        diag->offset = offset;
    }
    return -EILSEQ;
}

int asm_rva_to_offset(const struct asm_assembly *a, uint32_t rva, size_t *offset, size_t *available,
                      struct asm_diag *diag)
{
    if (!a || !offset || !available)
        return -EINVAL;
    struct clrie_il_diag inner;
    int r = clrie_il_pe_image_rva_to_offset(&a->pe, rva, offset, available, &inner);
    if (r == -EILSEQ)
        return asm_fail(diag, inner.offset, "%s", inner.message);
    return r;
}

int asm_pe_parse(struct asm_assembly *a, size_t *metadata_offset, size_t *metadata_size,
                 struct asm_diag *diag)
{
    struct clrie_il_diag inner;
    int r = clrie_il_pe_image_init(&a->pe, a->data, a->len, true, &inner);
    if (r == -EILSEQ)
        return asm_fail(diag, inner.offset, "%s", inner.message);
    if (r != 0)
        return r;
    const struct clrie_il_pe_image *pe = &a->pe;
    if (pe->section_count == 0)
        return asm_fail(diag, 0, "the PE file has no sections");
    if (!pe->has_cli_header)
        return asm_fail(diag, 0, "no CLI header (data directory 14): this is not a .NET assembly");
    a->info.pe32_plus = pe->pe32_plus;
    a->info.ready_to_run = pe->ready_to_run;
    a->info.machine = pe->machine;
    a->info.section_count = pe->section_count;
    a->info.cli_flags = pe->cli_flags;
    a->info.entry_point = pe->entry_point;
    a->info.runtime_major = pe->runtime_major;
    a->info.runtime_minor = pe->runtime_minor;

    size_t directory = pe->cli_header_offset + 8, available;
    if (pe->metadata_rva == 0 || pe->metadata_size == 0)
        return asm_fail(diag, directory, "the CLI header has no metadata directory");
    if (clrie_il_pe_image_rva_to_offset(pe, pe->metadata_rva, metadata_offset, &available,
                                        &inner) != 0)
        return asm_fail(diag, directory, "metadata: %s", inner.message);
    if (pe->metadata_size > available)
        return asm_fail(diag, directory,
                        "metadata at RVA 0x%X claims %u bytes but its section holds only %zu",
                        pe->metadata_rva, pe->metadata_size, available);
    *metadata_size = pe->metadata_size;
    a->info.metadata_offset = (uint32_t)*metadata_offset;
    a->info.metadata_size = pe->metadata_size;
    return 0;
}
