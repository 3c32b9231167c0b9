/* A module's file as the image checks read it (elf.c, pe.c, module.c): open on a file, or
 * held in memory. */
#ifndef CLRIE_CONFIG_IMAGE_H
#define CLRIE_CONFIG_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct clrie_os_file;

struct image {
    struct clrie_os_file *file; /* NULL: the bytes are in data */
    const unsigned char *data;
    uint64_t size;
};

/* Reads exactly len bytes at offset. Returns 0, -ENOEXEC when the file ends first, or the
 * negative errno of the read. */
int clrie_config__image_read(const struct image *img, uint64_t offset, void *buf, size_t len);

/* Whether offset + count * entry_size fits in size, without overflow. */
int clrie_config__table_fits(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t size);

/* Little-endian fields of a header read into memory. */
static inline uint16_t clrie_config__le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t clrie_config__le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t clrie_config__le64(const unsigned char *p)
{
    return clrie_config__le32(p) | (uint64_t)clrie_config__le32(p + 4) << 32;
}

/* One format of loadable module: ELF shared objects (elf.c), PE DLLs (pe.c). check returns 0,
 * -ENOEXEC with a reason in why, or the negative errno of a failed read. */
struct image_format {
    const char *name; /* "ELF shared object", "DLL" */
    int (*check)(const struct image *img, char *why, size_t why_len);
};

extern const struct image_format clrie_config__elf_format;
extern const struct image_format clrie_config__pe_format;

#endif
