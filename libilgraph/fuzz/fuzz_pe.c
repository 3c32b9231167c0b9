/* libFuzzer target for the PE reader (clrie_il_pe_image_*, pe.c). Input: an image of known size,
 * read both as a flat file and as a mapped image. Checks that reading never fails without saying
 * why and that every address resolve gives lies inside the input (ASan checks the reads
 * themselves). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void check_resolve(const struct clrie_il_pe_image *image, const uint8_t *data, size_t size,
                          uint32_t rva, uint32_t length)
{
    const uint8_t *p = clrie_il_pe_image_resolve(image, rva, length);
    if (p && (p < data || (size_t)(p - data) + length > size))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    for (int flat = 0; flat <= 1; flat++) {
        struct clrie_il_pe_image image;
        struct clrie_il_diag where = {0};
        int rc = clrie_il_pe_image_init(&image, data, size, flat, &where);
        if (rc == -EILSEQ) {
            if (where.message[0] == '\0' || !memchr(where.message, '\0', sizeof(where.message)) ||
                where.offset > size)
                abort();
            continue;
        }
        if (rc != 0)
            abort(); /* -ENOMEM is not expected from small inputs */
        if (image.has_cli_header) {
            if (read32(image.cli_header + 16) != image.cli_flags)
                abort();
            check_resolve(&image, data, size, read32(image.cli_header + 8), 4); /* metadata */
        }
        for (size_t i = 0; i < image.section_count; i++) {
            const struct clrie_il_pe_section *s = &image.sections[i];
            check_resolve(&image, data, size, s->virtual_address, 1);
            check_resolve(&image, data, size, s->virtual_address + s->raw_size - 1, 1);
            check_resolve(&image, data, size, s->virtual_address, s->raw_size);
        }
        check_resolve(&image, data, size, 0, 64);
        check_resolve(&image, data, size, image.size_of_image - 1, 1);
        check_resolve(&image, data, size, UINT32_MAX, 1);
        clrie_il_pe_image_finish(&image);
    }
    return 0;
}
