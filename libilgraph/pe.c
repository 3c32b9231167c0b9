/* PE images (PE/COFF; ECMA-335 II.25): the DOS stub, PE and COFF headers, the optional header
 * in its PE32 and PE32+ forms, the section table, RVA mapping in both layouts and the CLI
 * header. One reader for the assembly reader's files and for the runtime's loaded images. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_private.h"

enum {
    FIRST_PAGE = 4096, /* readable before SizeOfHeaders is known: every loaded image has it */
    DOS_HEADER_SIZE = 0x40,
    DOS_LFANEW = 0x3C,
    COFF_HEADER_SIZE = 20,
    SECTION_HEADER_SIZE = 40,
    PE32_MAGIC = 0x10B,
    PE32_PLUS_MAGIC = 0x20B,
    CLI_DIRECTORY = 14,
};

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

int clrie_il_pe_image_rva_to_offset(const struct clrie_il_pe_image *image, uint32_t rva,
                                    size_t *offset, size_t *available, struct clrie_il_diag *diag)
{
    if (!image || !offset || !available)
        return -EINVAL;
    if (!image->flat) { /* mapped: the image is laid out at its RVAs */
        uint64_t end = min64(image->size_of_image, image->readable);
        if (rva >= end)
            return il_diag(diag, -EILSEQ, 0, "RVA 0x%X is past the end of the image (0x%llX bytes)",
                           rva, (unsigned long long)end);
        *offset = rva;
        *available = (size_t)(end - rva);
        return 0;
    }
    for (uint16_t i = 0; i < image->section_count; i++) {
        const struct clrie_il_pe_section *s = &image->sections[i];
        uint32_t extent = s->virtual_size ? s->virtual_size : s->raw_size;
        if (rva < s->virtual_address || rva - s->virtual_address >= extent)
            continue;
        uint32_t delta = rva - s->virtual_address;
        if (delta >= s->raw_size)
            return il_diag(diag, -EILSEQ, 0,
                           "RVA 0x%X is in the zero-filled tail of section %u, not in the file",
                           rva, i + 1);
        uint64_t at = (uint64_t)s->raw_offset + delta;
        if (at >= image->readable)
            return il_diag(diag, -EILSEQ, 0,
                           "RVA 0x%X maps to file offset 0x%llX, past the end of the file "
                           "(%llu bytes)",
                           rva, (unsigned long long)at, (unsigned long long)image->readable);
        uint64_t in_section = min64((uint64_t)s->raw_size - delta, extent - delta);
        *offset = (size_t)at;
        *available = (size_t)min64(in_section, image->readable - at);
        return 0;
    }
    /* The headers sit at their RVAs in both layouts. */
    if (rva < image->size_of_headers) {
        *offset = rva;
        *available = image->size_of_headers - rva;
        return 0;
    }
    return il_diag(diag, -EILSEQ, 0, "RVA 0x%X is not inside any section%s", rva,
                   image->section_count ? "" : " (the image has no sections)");
}

const uint8_t *clrie_il_pe_image_resolve(const struct clrie_il_pe_image *image, uint32_t rva,
                                         uint32_t size)
{
    size_t offset, available;
    if (clrie_il_pe_image_rva_to_offset(image, rva, &offset, &available, NULL) != 0 ||
        size > available)
        return NULL;
    return image->base + offset;
}

static int read_sections(struct clrie_il_pe_image *image, uint64_t table, uint16_t count,
                         struct clrie_il_diag *diag)
{
    if (count == 0)
        return 0;
    image->sections = calloc(count, sizeof(*image->sections));
    if (!image->sections)
        return -ENOMEM;
    image->section_count = count;
    for (uint16_t i = 0; i < count; i++) {
        uint64_t at = table + (uint64_t)i * SECTION_HEADER_SIZE;
        const uint8_t *h = image->base + at;
        struct clrie_il_pe_section *s = &image->sections[i];
        s->virtual_size = il_le32(h + 8);
        s->virtual_address = il_le32(h + 12);
        s->raw_size = il_le32(h + 16);
        s->raw_offset = il_le32(h + 20);
        uint32_t extent = s->virtual_size ? s->virtual_size : s->raw_size;
        if ((uint64_t)s->virtual_address + extent > UINT32_MAX)
            return il_diag(diag, -EILSEQ, (uint32_t)at,
                           "section %u ends past the 4 GiB address space", i + 1);
    }
    return 0;
}

static int read_cli_header(struct clrie_il_pe_image *image, uint32_t directory,
                           struct clrie_il_diag *diag)
{
    uint32_t rva = il_le32(image->base + directory), size = il_le32(image->base + directory + 4);
    if (rva == 0 || size == 0)
        return 0; /* not a .NET image */
    if (size < CLRIE_IL_PE_CLI_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, directory + 4, "CLI header size %u is below 72", size);
    size_t at, available;
    struct clrie_il_diag inner;
    if (clrie_il_pe_image_rva_to_offset(image, rva, &at, &available, &inner) != 0)
        return il_diag(diag, -EILSEQ, directory, "CLI header: %s", inner.message);
    if (available < CLRIE_IL_PE_CLI_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, directory,
                       "CLI header at RVA 0x%X needs 72 bytes but its section holds only %zu", rva,
                       available);
    const uint8_t *h = image->base + at;
    if (il_le32(h) < CLRIE_IL_PE_CLI_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, (uint32_t)at, "CLI header cb %u is below 72", il_le32(h));
    memcpy(image->cli_header, h, CLRIE_IL_PE_CLI_HEADER_SIZE);
    image->has_cli_header = true;
    image->cli_header_offset = (uint32_t)at;
    image->runtime_major = il_le16(h + 4);
    image->runtime_minor = il_le16(h + 6);
    image->metadata_rva = il_le32(h + 8);
    image->metadata_size = il_le32(h + 12);
    image->cli_flags = il_le32(h + 16);
    image->entry_point = il_le32(h + 20);
    /* With COMIMAGE_FLAGS_NATIVE_ENTRYPOINT the field is an RVA, not a token. */
    if (!(image->cli_flags & CLRIE_IL_COMIMAGE_FLAGS_NATIVE_ENTRYPOINT))
        image->entry_point_token = image->entry_point;
    image->ready_to_run = il_le32(h + 64) != 0;
    return 0;
}

static int read_headers(struct clrie_il_pe_image *image, struct clrie_il_diag *diag)
{
    const uint8_t *d = image->base;
    uint64_t limit = min64(image->readable, FIRST_PAGE);
    if (limit < DOS_HEADER_SIZE)
        return il_diag(diag, -EILSEQ, (uint32_t)limit,
                       "image of %llu bytes is shorter than a DOS header (64)",
                       (unsigned long long)limit);
    if (d[0] != 'M' || d[1] != 'Z')
        return il_diag(diag, -EILSEQ, 0, "no DOS signature 'MZ'");
    uint32_t pe = il_le32(d + DOS_LFANEW);
    if (pe < DOS_HEADER_SIZE || (uint64_t)pe + 4 + COFF_HEADER_SIZE + 2 > limit)
        return il_diag(diag, -EILSEQ, DOS_LFANEW,
                       "PE header offset 0x%X leaves no room for the PE, COFF and optional "
                       "headers after the DOS header in the first 0x%llX bytes",
                       pe, (unsigned long long)limit);
    if (d[pe] != 'P' || d[pe + 1] != 'E' || d[pe + 2] != 0 || d[pe + 3] != 0)
        return il_diag(diag, -EILSEQ, pe, "no PE signature 'PE\\0\\0'");

    const uint8_t *coff = d + pe + 4;
    image->machine = il_le16(coff);
    uint16_t section_count = il_le16(coff + 2);
    uint16_t optional_size = il_le16(coff + 16);
    uint32_t optional = pe + 4 + COFF_HEADER_SIZE;
    uint16_t magic = il_le16(d + optional);
    uint32_t count_at, directories_at;
    if (magic == PE32_MAGIC) {
        count_at = 92;
        directories_at = 96;
    } else if (magic == PE32_PLUS_MAGIC) {
        image->pe32_plus = true;
        count_at = 108;
        directories_at = 112;
    } else {
        return il_diag(diag, -EILSEQ, optional,
                       "optional header magic 0x%X is neither PE32 (0x10B) nor PE32+ (0x20B)",
                       magic);
    }
    if (optional_size < directories_at || (uint64_t)optional + directories_at > limit)
        return il_diag(diag, -EILSEQ, optional,
                       "optional header (%u bytes) too short for its %s fields", optional_size,
                       image->pe32_plus ? "PE32+" : "PE32");
    image->size_of_image = il_le32(d + optional + 56);
    image->size_of_headers = il_le32(d + optional + 60);
    if (image->size_of_headers > image->readable)
        return il_diag(diag, -EILSEQ, optional + 60,
                       "SizeOfHeaders 0x%X is past the end of the image (%llu bytes)",
                       image->size_of_headers, (unsigned long long)image->readable);
    if (!image->flat && image->size_of_headers > image->size_of_image)
        return il_diag(diag, -EILSEQ, optional + 60, "SizeOfHeaders 0x%X is past SizeOfImage 0x%X",
                       image->size_of_headers, image->size_of_image);
    uint64_t sections_at = (uint64_t)optional + optional_size;
    if (sections_at + (uint64_t)section_count * SECTION_HEADER_SIZE > image->size_of_headers)
        return il_diag(diag, -EILSEQ, pe + 6,
                       "the section table (%u sections of 40 bytes) runs past SizeOfHeaders "
                       "(0x%X)",
                       section_count, image->size_of_headers);
    /* From here on every header read is below SizeOfHeaders, which is readable. */
    uint32_t directory_count = il_le32(d + optional + count_at);
    if ((uint64_t)directories_at + (uint64_t)directory_count * 8 > optional_size)
        return il_diag(diag, -EILSEQ, optional + count_at,
                       "%u data directories do not fit in the optional header (%u bytes)",
                       directory_count, optional_size);
    int r = read_sections(image, sections_at, section_count, diag);
    if (r != 0 || directory_count <= CLI_DIRECTORY)
        return r;
    return read_cli_header(image, optional + directories_at + CLI_DIRECTORY * 8, diag);
}

int clrie_il_pe_image_init(struct clrie_il_pe_image *image, const uint8_t *base, size_t size,
                           bool flat, struct clrie_il_diag *diag)
{
    if (!image || !base)
        return -EINVAL;
    struct clrie_il_pe_image im = {
        .base = base,
        .readable = size ? (uint64_t)size : UINT64_MAX,
        .flat = flat,
    };
    int r = read_headers(&im, diag);
    if (r != 0) {
        clrie_il_pe_image_finish(&im);
        return r;
    }
    *image = im;
    return 0;
}

void clrie_il_pe_image_finish(struct clrie_il_pe_image *image)
{
    if (!image)
        return;
    free(image->sections);
    image->sections = NULL;
    image->section_count = 0;
}
