/* The PE headers of a module image the runtime has loaded: enough to find the CLI (COR20)
 * header and to turn RVAs into addresses, for IModuleInfo.
 *
 * The image is the runtime's, mapped (sections at their RVAs, the usual case) or flat (the file
 * as it is on disk, COR_PRF_MODULE_FLAT_LAYOUT). The runtime does not tell us its size, so every
 * read is bounded by what the headers already read declare: the headers by SizeOfHeaders (at
 * most one page before it is known), an RVA by SizeOfImage (mapped) or by its section's raw data
 * (flat); when the size is known (a file, a fuzzer's input) it bounds everything as well.
 * A malformed image yields an error, never a read outside those bounds. */
#ifndef CLRIE_PM_PEIMAGE_H
#define CLRIE_PM_PEIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* IMAGE_COR20_HEADER, as ECMA-335 II.25.3.3 lays it out. */
#define CLRIE_PM_COR20_HEADER_SIZE 72
#define CLRIE_PM_COMIMAGE_FLAGS_ILONLY 0x1u
#define CLRIE_PM_COMIMAGE_FLAGS_NATIVE_ENTRYPOINT 0x10u

struct clrie_pm_pe_section {
    uint32_t virtual_address;
    uint32_t virtual_size;
    uint32_t raw_pointer;
    uint32_t raw_size;
};

struct clrie_pm_pe_image {
    const uint8_t *base;
    uint64_t readable; /* bytes at base known to be readable; UINT64_MAX when unknown */
    bool flat;
    bool pe32_plus; /* optional header magic 0x20B */
    uint32_t size_of_image;
    uint32_t size_of_headers;
    size_t section_count;
    struct clrie_pm_pe_section *sections; /* malloc'd */
    bool have_cor_header;
    uint8_t cor_header[CLRIE_PM_COR20_HEADER_SIZE]; /* a copy */
    uint32_t cor_flags;
    uint32_t entry_point_token;
};

/* Reads the headers of the image at base, of `size` bytes, or 0 when unknown (the runtime's
 * images: then the headers are trusted to describe it). Returns 0, -EINVAL for a malformed image
 * (*where set to a static description of what was wrong), -ENOMEM. A PE without a CLI header is
 * fine (have_cor_header false). */
int clrie_pm_pe_image_read(struct clrie_pm_pe_image *image, const uint8_t *base, size_t size,
                           bool flat, const char **where);

/* The address of rva inside the image, or NULL if it lies outside every declared part of it. */
const uint8_t *clrie_pm_pe_image_resolve(const struct clrie_pm_pe_image *image, uint32_t rva,
                                         uint32_t size);

void clrie_pm_pe_image_finish(struct clrie_pm_pe_image *image);

#endif
