/* Opening and closing an assembly: the order of the checks (PE, metadata root, tables,
 * links between rows), and reading a whole file into memory (through libos, so that a path
 * is UTF-8 on every system). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/file.h"
#include "internal.h"

void asm_assembly_free(struct asm_assembly *a)
{
    if (!a)
        return;
    clrie_il_pe_image_finish(&a->pe);
    free(a->method_owner);
    free(a->field_owner);
    free(a->enclosing);
    free(a->owned);
    free(a);
}

int asm_assembly_new(const void *data, size_t len, struct asm_assembly **out, struct asm_diag *diag)
{
    if (!data || !out)
        return -EINVAL;
    struct asm_assembly *a = calloc(1, sizeof(*a));
    if (!a)
        return -ENOMEM;
    a->data = data;
    a->len = len;
    size_t metadata_offset, metadata_size;
    int r = asm_pe_parse(a, &metadata_offset, &metadata_size, diag);
    if (r == 0)
        r = asm_metadata_parse(a, metadata_offset, metadata_size, diag);
    if (r == 0)
        r = asm_tables_link(a, diag);
    if (r != 0) {
        asm_assembly_free(a);
        return r;
    }
    *out = a;
    return 0;
}

static int read_file(const char *path, uint8_t **data, size_t *len, struct asm_diag *diag)
{
    struct clrie_os_file *file = NULL;
    int r = clrie_os_file_open(path, 0, &file);
    if (r != 0)
        return r;
    uint8_t *buf = NULL;
    struct clrie_os_file_info info;
    r = clrie_os_file_info(file, &info);
    if (r != 0)
        goto out;
    if (info.kind != CLRIE_OS_FILE) {
        r = -EINVAL;
        goto out;
    }
    if (info.size > ASM_MAX_FILE_SIZE) {
        if (diag) {
            diag->offset = 0;
            strcpy(diag->message, "file is larger than 512 MiB");
        }
        r = -EFBIG;
        goto out;
    }
    size_t size = (size_t)info.size;
    buf = malloc(size ? size : 1);
    if (!buf) {
        r = -ENOMEM;
        goto out;
    }
    size_t done = 0;
    while (done < size) {
        size_t got = 0;
        r = clrie_os_file_read(file, buf + done, size - done, &got);
        if (r != 0)
            goto out;
        if (got == 0)
            break; /* the file shrank: parse what there is */
        done += got;
    }
    *data = buf;
    *len = done;
    buf = NULL;
out:
    free(buf);
    clrie_os_file_close(file);
    return r;
}

int asm_assembly_new_from_file(const char *path, struct asm_assembly **out, struct asm_diag *diag)
{
    if (!path || !out)
        return -EINVAL;
    uint8_t *data = NULL;
    size_t len = 0;
    int r = read_file(path, &data, &len, diag);
    if (r != 0)
        return r;
    struct asm_assembly *a;
    r = asm_assembly_new(data, len, &a, diag);
    if (r != 0) {
        free(data);
        return r;
    }
    a->owned = data;
    *out = a;
    return 0;
}

const struct asm_info *asm_assembly_info(const struct asm_assembly *a)
{
    return a ? &a->info : NULL;
}

struct asm_blob asm_assembly_bytes(const struct asm_assembly *a)
{
    struct asm_blob b = {NULL, 0};
    if (a) {
        b.data = a->data;
        b.len = a->len;
    }
    return b;
}

uint32_t asm_table_rows(const struct asm_assembly *a, enum asm_table table)
{
    if (!a || (unsigned)table >= ASM_TABLE_COUNT)
        return 0;
    return a->tables[table].rows;
}
