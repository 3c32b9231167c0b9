/* The PE container (ECMA-335 II.25): DOS stub, PE and COFF headers, the optional header in
 * its PE32 and PE32+ forms, the section table, RVA mapping and the CLI header. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

enum {
    DOS_HEADER_SIZE = 0x40,
    DOS_LFANEW = 0x3C,
    COFF_HEADER_SIZE = 20,
    SECTION_HEADER_SIZE = 40,
    PE32_MAGIC = 0x10B,
    PE32_PLUS_MAGIC = 0x20B,
    CLI_DIRECTORY = 14,
    CLI_HEADER_SIZE = 72,
};

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
    for (uint16_t i = 0; i < a->info.section_count; i++) {
        const struct section *s = &a->sections[i];
        uint32_t extent = s->virtual_size ? s->virtual_size : s->raw_size;
        if (rva < s->virtual_address || rva - s->virtual_address >= extent)
            continue;
        uint32_t delta = rva - s->virtual_address;
        if (delta >= s->raw_size)
            return asm_fail(diag, s->raw_offset,
                            "RVA 0x%X is in the zero-filled tail of section %u, not in the file",
                            rva, i + 1);
        uint64_t at = (uint64_t)s->raw_offset + delta;
        if (at >= a->len)
            return asm_fail(diag, a->len,
                            "RVA 0x%X maps to file offset 0x%llX, past the end of the file "
                            "(%zu bytes)",
                            rva, (unsigned long long)at, a->len);
        uint64_t in_section = (uint64_t)s->raw_size - delta;
        if (extent - delta < in_section)
            in_section = extent - delta;
        uint64_t in_file = a->len - at;
        *offset = (size_t)at;
        *available = (size_t)(in_section < in_file ? in_section : in_file);
        return 0;
    }
    return asm_fail(diag, 0, "RVA 0x%X is not inside any section", rva);
}

static int parse_sections(struct asm_assembly *a, size_t table, uint16_t count,
                          struct asm_diag *diag)
{
    if (count == 0)
        return asm_fail(diag, table, "the PE file has no sections");
    if ((uint64_t)table + (uint64_t)count * SECTION_HEADER_SIZE > a->len)
        return asm_fail(diag, table,
                        "the section table (%u sections of 40 bytes) runs past the end of the "
                        "file",
                        count);
    a->sections = calloc(count, sizeof(*a->sections));
    if (!a->sections)
        return -ENOMEM;
    for (uint16_t i = 0; i < count; i++) {
        const uint8_t *h = a->data + table + (size_t)i * SECTION_HEADER_SIZE;
        struct section *s = &a->sections[i];
        s->virtual_size = rd32(h + 8);
        s->virtual_address = rd32(h + 12);
        s->raw_size = rd32(h + 16);
        s->raw_offset = rd32(h + 20);
        uint32_t extent = s->virtual_size ? s->virtual_size : s->raw_size;
        if ((uint64_t)s->virtual_address + extent > UINT32_MAX)
            return asm_fail(diag, (size_t)(h - a->data),
                            "section %u ends past the 4 GiB address space", i + 1);
    }
    a->info.section_count = count;
    return 0;
}

static int map_directory(const struct asm_assembly *a, uint32_t rva, uint32_t size,
                         const char *what, size_t at, size_t *offset, struct asm_diag *diag)
{
    size_t available;
    struct asm_diag inner;
    if (asm_rva_to_offset(a, rva, offset, &available, &inner) != 0)
        return asm_fail(diag, at, "%s: %s", what, inner.message);
    if (size > available)
        return asm_fail(diag, at, "%s at RVA 0x%X claims %u bytes but its section holds only %zu",
                        what, rva, size, available);
    return 0;
}

int asm_pe_parse(struct asm_assembly *a, size_t *metadata_offset, size_t *metadata_size,
                 struct asm_diag *diag)
{
    const uint8_t *d = a->data;
    if (a->len < DOS_HEADER_SIZE)
        return asm_fail(diag, a->len, "file of %zu bytes is shorter than a DOS header (64)",
                        a->len);
    if (d[0] != 'M' || d[1] != 'Z')
        return asm_fail(diag, 0, "no DOS signature 'MZ'");
    uint32_t pe = rd32(d + DOS_LFANEW);
    if ((uint64_t)pe + 4 + COFF_HEADER_SIZE > a->len)
        return asm_fail(diag, DOS_LFANEW,
                        "PE header offset 0x%X leaves no room for the PE and COFF headers in a "
                        "file of %zu bytes",
                        pe, a->len);
    if (d[pe] != 'P' || d[pe + 1] != 'E' || d[pe + 2] != 0 || d[pe + 3] != 0)
        return asm_fail(diag, pe, "no PE signature 'PE\\0\\0'");

    const uint8_t *coff = d + pe + 4;
    a->info.machine = rd16(coff);
    uint16_t section_count = rd16(coff + 2);
    uint16_t optional_size = rd16(coff + 16);
    size_t optional = (size_t)pe + 4 + COFF_HEADER_SIZE;
    if ((uint64_t)optional + optional_size > a->len)
        return asm_fail(diag, optional, "optional header (%u bytes) runs past the end of the file",
                        optional_size);
    if (optional_size < 2)
        return asm_fail(diag, optional, "optional header too short (%u bytes)", optional_size);

    uint16_t magic = rd16(d + optional);
    size_t count_at, directories_at;
    if (magic == PE32_MAGIC) {
        count_at = 92;
        directories_at = 96;
    } else if (magic == PE32_PLUS_MAGIC) {
        a->info.pe32_plus = true;
        count_at = 108;
        directories_at = 112;
    } else {
        return asm_fail(diag, optional,
                        "optional header magic 0x%X is neither PE32 (0x10B) nor PE32+ (0x20B)",
                        magic);
    }
    size_t cli_entry = directories_at + CLI_DIRECTORY * 8;
    if (optional_size < cli_entry + 8)
        return asm_fail(diag, optional,
                        "optional header (%u bytes) too short for data directory 14 (the CLI "
                        "header)",
                        optional_size);
    uint32_t directory_count = rd32(d + optional + count_at);
    if (directory_count <= CLI_DIRECTORY)
        return asm_fail(diag, optional + count_at,
                        "only %u data directories: no CLI header (directory 14)", directory_count);
    if ((uint64_t)directories_at + (uint64_t)directory_count * 8 > optional_size)
        return asm_fail(diag, optional + count_at,
                        "%u data directories do not fit in the optional header (%u bytes)",
                        directory_count, optional_size);

    int r = parse_sections(a, optional + optional_size, section_count, diag);
    if (r != 0)
        return r;

    size_t cli_dir = optional + cli_entry;
    uint32_t cli_rva = rd32(d + cli_dir), cli_size = rd32(d + cli_dir + 4);
    if (cli_rva == 0)
        return asm_fail(diag, cli_dir, "no CLI header: this is not a .NET assembly");
    if (cli_size < CLI_HEADER_SIZE)
        return asm_fail(diag, cli_dir + 4, "CLI header size %u is below 72", cli_size);
    size_t cli;
    r = map_directory(a, cli_rva, CLI_HEADER_SIZE, "CLI header", cli_dir, &cli, diag);
    if (r != 0)
        return r;
    const uint8_t *h = d + cli;
    if (rd32(h) < CLI_HEADER_SIZE)
        return asm_fail(diag, cli, "CLI header cb %u is below 72", rd32(h));
    a->info.runtime_major = rd16(h + 4);
    a->info.runtime_minor = rd16(h + 6);
    uint32_t md_rva = rd32(h + 8), md_size = rd32(h + 12);
    a->info.cli_flags = rd32(h + 16);
    a->info.entry_point = rd32(h + 20);
    a->info.ready_to_run = rd32(h + 64) != 0;
    if (md_rva == 0 || md_size == 0)
        return asm_fail(diag, cli + 8, "the CLI header has no metadata directory");
    r = map_directory(a, md_rva, md_size, "metadata", cli + 8, metadata_offset, diag);
    if (r != 0)
        return r;
    *metadata_size = md_size;
    a->info.metadata_offset = (uint32_t)*metadata_offset;
    a->info.metadata_size = md_size;
    return 0;
}
