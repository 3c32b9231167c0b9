/* PE/COFF header reading for module images (PE/COFF spec; ECMA-335 II.25). */
#include "peimage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What may be read before SizeOfHeaders is known: the first page, which every loaded image
 * (mapped or flat) has. */
#define FIRST_PAGE 4096u

#define PE_SIGNATURE 0x00004550u /* "PE\0\0" */
#define OPT_MAGIC_PE32 0x10Bu
#define OPT_MAGIC_PE32_PLUS 0x20Bu
#define DIRECTORY_COM_DESCRIPTOR 14u
#define SECTION_HEADER_SIZE 40u

static uint16_t read16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

const uint8_t *clrie_pm_pe_image_resolve(const struct clrie_pm_pe_image *image, uint32_t rva,
                                         uint32_t size)
{
    uint64_t end = (uint64_t)rva + size;
    if (!image->flat)
        return end <= image->size_of_image && end <= image->readable ? image->base + rva : NULL;
    /* Flat: the headers sit at their RVAs, section data at its file offset. */
    if (end <= image->size_of_headers)
        return image->base + rva;
    for (size_t i = 0; i < image->section_count; i++) {
        const struct clrie_pm_pe_section *s = &image->sections[i];
        if (rva >= s->virtual_address && end <= (uint64_t)s->virtual_address + s->raw_size) {
            uint64_t offset = (uint64_t)s->raw_pointer + (rva - s->virtual_address);
            return offset + size <= image->readable ? image->base + offset : NULL;
        }
    }
    return NULL;
}

int clrie_pm_pe_image_read(struct clrie_pm_pe_image *image, const uint8_t *base, size_t size,
                           bool flat, const char **where)
{
    memset(image, 0, sizeof(*image));
    image->base = base;
    image->flat = flat;
    image->readable = size ? (uint64_t)size : UINT64_MAX;
    *where = NULL;
    /* What may be read before SizeOfHeaders is known. */
    uint64_t limit = image->readable < FIRST_PAGE ? image->readable : FIRST_PAGE;

    if (!base) {
        *where = "no image base";
        return -EINVAL;
    }
    if (limit < 0x40) {
        *where = "smaller than a DOS header";
        return -EINVAL;
    }
    if (read16(base) != 0x5A4D) {
        *where = "DOS header: no MZ signature";
        return -EINVAL;
    }
    uint64_t nt = read32(base + 0x3C);
    if (nt < 0x40 || nt + 24 > limit) {
        *where = "DOS header: e_lfanew outside the first page";
        return -EINVAL;
    }
    if (read32(base + nt) != PE_SIGNATURE) {
        *where = "NT headers: no PE signature";
        return -EINVAL;
    }
    uint32_t section_count = read16(base + nt + 6);
    uint32_t optional_size = read16(base + nt + 20);
    uint64_t opt = nt + 24;
    if (opt + 2 > limit) {
        *where = "optional header outside the first page";
        return -EINVAL;
    }
    uint16_t magic = read16(base + opt);
    if (magic != OPT_MAGIC_PE32 && magic != OPT_MAGIC_PE32_PLUS) {
        *where = "optional header: unknown magic";
        return -EINVAL;
    }
    image->pe32_plus = magic == OPT_MAGIC_PE32_PLUS;
    uint32_t dir_count_at = image->pe32_plus ? 108 : 92;
    uint32_t dirs_at = image->pe32_plus ? 112 : 96;
    if (optional_size < dirs_at || opt + dirs_at > limit) {
        *where = "optional header too short";
        return -EINVAL;
    }
    image->size_of_image = read32(base + opt + 56);
    image->size_of_headers = read32(base + opt + 60);
    uint64_t sections_at = opt + optional_size;
    uint64_t sections_end = sections_at + (uint64_t)section_count * SECTION_HEADER_SIZE;
    if (image->size_of_headers > image->readable) {
        *where = "SizeOfHeaders past the end of the image";
        return -EINVAL;
    }
    if (sections_end > image->size_of_headers || opt + optional_size > image->size_of_headers ||
        (!flat && image->size_of_headers > image->size_of_image)) {
        *where = "section table past SizeOfHeaders";
        return -EINVAL;
    }

    if (section_count) {
        image->sections = calloc(section_count, sizeof(*image->sections));
        if (!image->sections)
            return -ENOMEM;
    }
    image->section_count = section_count;
    for (uint32_t i = 0; i < section_count; i++) {
        const uint8_t *h = base + sections_at + (uint64_t)i * SECTION_HEADER_SIZE;
        image->sections[i] = (struct clrie_pm_pe_section){
            .virtual_size = read32(h + 8),
            .virtual_address = read32(h + 12),
            .raw_size = read32(h + 16),
            .raw_pointer = read32(h + 20),
        };
    }

    uint32_t dir_count = read32(base + opt + dir_count_at);
    uint64_t com_dir = dirs_at + (uint64_t)DIRECTORY_COM_DESCRIPTOR * 8;
    if (dir_count <= DIRECTORY_COM_DESCRIPTOR || com_dir + 8 > optional_size)
        return 0;
    uint32_t cor_rva = read32(base + opt + com_dir);
    uint32_t cor_size = read32(base + opt + com_dir + 4);
    if (cor_rva == 0 || cor_size == 0)
        return 0;
    if (cor_size < CLRIE_PM_COR20_HEADER_SIZE) {
        *where = "CLI header directory smaller than IMAGE_COR20_HEADER";
        goto fail;
    }
    const uint8_t *cor = clrie_pm_pe_image_resolve(image, cor_rva, CLRIE_PM_COR20_HEADER_SIZE);
    if (!cor) {
        *where = "CLI header RVA outside the image";
        goto fail;
    }
    memcpy(image->cor_header, cor, CLRIE_PM_COR20_HEADER_SIZE);
    image->have_cor_header = true;
    image->cor_flags = read32(image->cor_header + 16);
    /* With COMIMAGE_FLAGS_NATIVE_ENTRYPOINT the field is an RVA, not a token. */
    if (!(image->cor_flags & CLRIE_PM_COMIMAGE_FLAGS_NATIVE_ENTRYPOINT))
        image->entry_point_token = read32(image->cor_header + 20);
    return 0;

fail:
    clrie_pm_pe_image_finish(image);
    return -EINVAL;
}

void clrie_pm_pe_image_finish(struct clrie_pm_pe_image *image)
{
    if (!image)
        return;
    free(image->sections);
    image->sections = NULL;
    image->section_count = 0;
}
