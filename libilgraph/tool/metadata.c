/* The metadata root and its streams (ECMA-335 II.24.2.1-2), and reads from the #Strings,
 * #US, #Blob and #GUID heaps (II.24.2.3-5). */
#include <errno.h>
#include <string.h>

#include "internal.h"

enum {
    METADATA_SIGNATURE = 0x424A5342, /* "BSJB" */
    ROOT_FIXED_SIZE = 16,
    MAX_VERSION_LENGTH = 255,
    MAX_STREAM_NAME = 32,
};

static int set_heap(struct heap *heap, const char *name, const uint8_t *data, uint32_t size,
                    size_t at, struct asm_diag *diag)
{
    if (heap->data)
        return asm_fail(diag, at, "stream %s appears twice", name);
    heap->data = data;
    heap->size = size;
    heap->file_offset = (uint32_t)at;
    return 0;
}

int asm_metadata_parse(struct asm_assembly *a, size_t offset, size_t size, struct asm_diag *diag)
{
    const uint8_t *root = a->data + offset;
    if (size < ROOT_FIXED_SIZE)
        return asm_fail(diag, offset, "metadata (%zu bytes) shorter than its root header", size);
    if (rd32(root) != METADATA_SIGNATURE)
        return asm_fail(diag, offset, "metadata signature 0x%08X is not 0x424A5342 ('BSJB')",
                        rd32(root));
    uint32_t version_length = rd32(root + 12);
    if (version_length > MAX_VERSION_LENGTH || version_length % 4 != 0)
        return asm_fail(diag, offset + 12,
                        "metadata version length %u is not a multiple of 4 up to 255",
                        version_length);
    size_t pos = ROOT_FIXED_SIZE + version_length;
    if (pos + 4 > size)
        return asm_fail(diag, offset + 12, "metadata version string runs past the metadata");
    if (!memchr(root + ROOT_FIXED_SIZE, '\0', version_length))
        return asm_fail(diag, offset + ROOT_FIXED_SIZE, "metadata version string has no NUL");
    a->info.metadata_version = (const char *)root + ROOT_FIXED_SIZE;
    uint16_t stream_count = rd16(root + pos + 2);
    pos += 4;

    const uint8_t *tables = NULL;
    uint32_t tables_size = 0;
    size_t tables_at = 0;
    for (uint16_t i = 0; i < stream_count; i++) {
        size_t header_at = offset + pos;
        if (pos + 8 > size)
            return asm_fail(diag, offset + (pos < size ? pos : size),
                            "stream header %u runs past the metadata", i + 1);
        uint32_t stream_offset = rd32(root + pos), stream_size = rd32(root + pos + 4);
        const char *name = (const char *)root + pos + 8;
        size_t room = size - pos - 8;
        if (room > MAX_STREAM_NAME)
            room = MAX_STREAM_NAME;
        const char *nul = memchr(name, '\0', room);
        if (!nul)
            return asm_fail(diag, header_at + 8,
                            "stream name %u is not NUL-terminated within 32 bytes", i + 1);
        size_t name_len = (size_t)(nul - name);
        pos += 8 + ((name_len + 1 + 3) & ~(size_t)3);
        if ((uint64_t)stream_offset + stream_size > size)
            return asm_fail(diag, header_at,
                            "stream %s (offset %u, %u bytes) runs past the metadata (%zu bytes)",
                            name, stream_offset, stream_size, size);
        const uint8_t *data = root + stream_offset;
        size_t data_at = offset + stream_offset;
        int r = 0;
        if (strcmp(name, "#~") == 0 || strcmp(name, "#-") == 0) {
            if (tables)
                return asm_fail(diag, header_at, "more than one table stream (#~ or #-)");
            tables = data;
            tables_size = stream_size;
            tables_at = data_at;
            a->info.uncompressed_tables = name[1] == '-';
        } else if (strcmp(name, "#Strings") == 0) {
            r = set_heap(&a->strings, name, data, stream_size, data_at, diag);
        } else if (strcmp(name, "#US") == 0) {
            r = set_heap(&a->user_strings, name, data, stream_size, data_at, diag);
        } else if (strcmp(name, "#Blob") == 0) {
            r = set_heap(&a->blobs, name, data, stream_size, data_at, diag);
        } else if (strcmp(name, "#GUID") == 0) {
            r = set_heap(&a->guids, name, data, stream_size, data_at, diag);
        }
        if (r != 0)
            return r;
    }
    if (!tables)
        return asm_fail(diag, offset, "metadata has no table stream (#~ or #-)");
    return asm_tables_parse(a, tables, tables_size, (uint32_t)tables_at, diag);
}

int asm_string(const struct asm_assembly *a, uint32_t index, const char **out,
               struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    if (index == 0) {
        *out = "";
        return 0;
    }
    if (index >= a->strings.size)
        return asm_fail(diag, a->strings.file_offset, "string index %u outside #Strings (%u bytes)",
                        index, a->strings.size);
    const char *s = (const char *)a->strings.data + index;
    if (!memchr(s, '\0', a->strings.size - index))
        return asm_fail(diag, a->strings.file_offset + index,
                        "string at #Strings index %u runs past the heap without a NUL", index);
    *out = s;
    return 0;
}

/* A #Blob or #US entry: a compressed length, then that many bytes. */
static int heap_entry(const struct heap *heap, const char *heap_name, uint32_t index,
                      struct asm_blob *out, struct asm_diag *diag)
{
    if (index == 0) {
        out->data = heap->data;
        out->len = 0;
        return 0;
    }
    if (index >= heap->size)
        return asm_fail(diag, heap->file_offset, "%s index %u outside the heap (%u bytes)",
                        heap_name, index, heap->size);
    uint32_t len;
    size_t used;
    if (clrie_il_sig_read_uint(heap->data + index, heap->size - index, &len, &used) != 0)
        return asm_fail(diag, heap->file_offset + index,
                        "%s entry %u has a malformed compressed length", heap_name, index);
    if (len > heap->size - index - used)
        return asm_fail(diag, heap->file_offset + index,
                        "%s entry %u of %u bytes runs past the heap (%u bytes)", heap_name, index,
                        len, heap->size);
    out->data = heap->data + index + used;
    out->len = len;
    return 0;
}

int asm_blob(const struct asm_assembly *a, uint32_t index, struct asm_blob *out,
             struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    struct asm_blob b;
    int r = heap_entry(&a->blobs, "#Blob", index, &b, diag);
    if (r == 0)
        *out = b;
    return r;
}

int asm_user_string(const struct asm_assembly *a, uint32_t index, struct asm_blob *out,
                    struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    struct asm_blob b;
    int r = heap_entry(&a->user_strings, "#US", index, &b, diag);
    if (r != 0)
        return r;
    if (b.len % 2 == 1) /* the final byte flags whether any character needs special handling */
        b.len--;
    *out = b;
    return 0;
}

int asm_guid(const struct asm_assembly *a, uint32_t index, const uint8_t **out,
             struct asm_diag *diag)
{
    if (!a || !out)
        return -EINVAL;
    if (index == 0) {
        *out = NULL;
        return 0;
    }
    if ((uint64_t)index * 16 > a->guids.size)
        return asm_fail(diag, a->guids.file_offset, "GUID index %u outside #GUID (%u bytes)", index,
                        a->guids.size);
    *out = a->guids.data + (size_t)(index - 1) * 16;
    return 0;
}
