/* libFuzzer target for the PE header reader (peimage.h). Input: an image of known size, read both
 * as a flat file and as a mapped image. Checks that reading never fails without saying why and
 * that every address resolve gives lies inside the input (ASan checks the reads themselves). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "peimage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void check_resolve(const struct clrie_pm_pe_image *image, const uint8_t *data, size_t size,
                          uint32_t rva, uint32_t length)
{
    const uint8_t *p = clrie_pm_pe_image_resolve(image, rva, length);
    if (p && (p < data || (size_t)(p - data) + length > size))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    for (int flat = 0; flat <= 1; flat++) {
        struct clrie_pm_pe_image image;
        const char *where = NULL;
        int rc = clrie_pm_pe_image_read(&image, data, size, flat, &where);
        if (rc == -EINVAL) {
            if (!where)
                abort();
            continue;
        }
        if (rc != 0)
            abort(); /* -ENOMEM is not expected from small inputs */
        if (image.have_cor_header) {
            if (read32(image.cor_header + 16) != image.cor_flags)
                abort();
            check_resolve(&image, data, size, read32(image.cor_header + 8), 4); /* metadata */
        }
        for (size_t i = 0; i < image.section_count; i++) {
            const struct clrie_pm_pe_section *s = &image.sections[i];
            check_resolve(&image, data, size, s->virtual_address, 1);
            check_resolve(&image, data, size, s->virtual_address + s->raw_size - 1, 1);
            check_resolve(&image, data, size, s->virtual_address, s->raw_size);
        }
        check_resolve(&image, data, size, 0, 64);
        check_resolve(&image, data, size, image.size_of_image - 1, 1);
        check_resolve(&image, data, size, UINT32_MAX, 1);
        clrie_pm_pe_image_finish(&image);
    }
    return 0;
}
