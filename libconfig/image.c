/* Reading a module's image for the format checks (elf.c, pe.c): bytes at offsets, from an
 * open file or from memory, and whether a table lies within the file. */
#include "image.h"

#include <errno.h>
#include <string.h>

#include "clrie/os/file.h"

int clrie_config__image_read(const struct image *img, uint64_t offset, void *buf, size_t len)
{
    if (offset > img->size || len > img->size - offset)
        return -ENOEXEC;
    if (!img->file) {
        memcpy(buf, img->data + offset, len);
        return 0;
    }
    size_t got = 0;
    int r = clrie_os_file_read_at(img->file, offset, buf, len, &got);
    if (r != 0)
        return r;
    return got == len ? 0 : -ENOEXEC; /* shrank since it was measured */
}

int clrie_config__table_fits(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t size)
{
    if (offset > size)
        return 0;
    return entry_size == 0 || count <= (size - offset) / entry_size;
}
