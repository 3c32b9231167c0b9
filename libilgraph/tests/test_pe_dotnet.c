/* The PE reader (pe.c) on real inputs: every managed DLL of the installed .NET shared framework,
 * read as the runtime has it flat (the file's bytes) and mapped (sections copied to their RVAs, as
 * the loader lays them out). Both layouts must give the same CLI header, and its metadata RVA must
 * resolve to the metadata signature "BSJB" in both.
 *
 * The framework is found from CLRIE_DOTNET or `dotnet` on PATH; without one the test exits 77
 * (skipped). With CLRIE_TEST_RUNTIME=<major> it reads that version's runtime pack from the NuGet
 * package folder instead (test_dotnet_each_dll). Prints "N images, M sections" on success. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/ilgraph.h"

#include "support.h"

#define SKIPPED 77

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Lays the file out as the loader maps it. NULL if the file is too small for what it declares. */
static uint8_t *map_like_loader(const struct clrie_il_pe_image *flat, const uint8_t *file,
                                size_t size)
{
    if (flat->size_of_headers > size || flat->size_of_image < flat->size_of_headers)
        return NULL;
    uint8_t *image = calloc(1, flat->size_of_image);
    if (!image)
        return NULL;
    memcpy(image, file, flat->size_of_headers);
    for (size_t i = 0; i < flat->section_count; i++) {
        const struct clrie_il_pe_section *s = &flat->sections[i];
        uint32_t n =
            s->raw_size < s->virtual_size || s->virtual_size == 0 ? s->raw_size : s->virtual_size;
        if ((uint64_t)s->raw_offset + n > size ||
            (uint64_t)s->virtual_address + n > flat->size_of_image) {
            free(image);
            return NULL;
        }
        memcpy(image + s->virtual_address, file + s->raw_offset, n);
    }
    return image;
}

static int check(const char *path, size_t *sections)
{
    size_t size = 0;
    uint8_t *file = (uint8_t *)test_read_file(path, &size);
    if (!file) {
        fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
        return 1;
    }
    int failures = 0;
    struct clrie_il_diag where = {0};
    struct clrie_il_pe_image flat, mapped;
    memset(&mapped, 0, sizeof(mapped));
    uint8_t *image = NULL;
    if (clrie_il_pe_image_init(&flat, file, size, true, &where) != 0 || !flat.has_cli_header) {
        fprintf(stderr, "%s: flat: %s\n", path, where.message[0] ? where.message : "no CLI header");
        free(file);
        return 1;
    }
    *sections += flat.section_count;
    if (read32(flat.cli_header) != CLRIE_IL_PE_CLI_HEADER_SIZE) {
        fprintf(stderr, "%s: CLI header cb is %u\n", path, read32(flat.cli_header));
        failures++;
    }
    image = map_like_loader(&flat, file, size);
    if (!image) {
        fprintf(stderr, "%s: cannot lay out as mapped\n", path);
        failures++;
        goto done;
    }
    if (clrie_il_pe_image_init(&mapped, image, flat.size_of_image, false, &where) != 0 ||
        !mapped.has_cli_header) {
        fprintf(stderr, "%s: mapped: %s\n", path,
                where.message[0] ? where.message : "no CLI header");
        failures++;
        goto done;
    }
    if (memcmp(flat.cli_header, mapped.cli_header, CLRIE_IL_PE_CLI_HEADER_SIZE) != 0 ||
        flat.entry_point_token != mapped.entry_point_token || flat.pe32_plus != mapped.pe32_plus) {
        fprintf(stderr, "%s: the two layouts disagree\n", path);
        failures++;
    }
    uint32_t metadata_rva = flat.metadata_rva;
    const uint8_t *a = clrie_il_pe_image_resolve(&flat, metadata_rva, 4);
    const uint8_t *b = clrie_il_pe_image_resolve(&mapped, metadata_rva, 4);
    if (!a || !b || read32(a) != 0x424A5342 || read32(b) != 0x424A5342) {
        fprintf(stderr, "%s: metadata RVA 0x%x does not resolve to BSJB\n", path, metadata_rva);
        failures++;
    }
done:
    clrie_il_pe_image_finish(&flat);
    clrie_il_pe_image_finish(&mapped);
    free(image);
    free(file);
    return failures;
}

struct totals {
    size_t sections;
    int failures;
};

static void visit(const char *path, void *ctx)
{
    struct totals *t = ctx;
    t->failures += check(path, &t->sections);
}

int main(void)
{
    struct totals t = {0};
    long images = test_dotnet_each_dll(visit, &t);
    if (images < 0) {
        printf("no .NET assemblies to read: skipped\n");
        return test_dotnet_missing_status();
    }
    if (images == 0) {
        printf("no managed DLLs in the shared framework: skipped\n");
        return SKIPPED;
    }
    printf("%ld images, %zu sections, %d failures\n", images, t.sections, t.failures);
    return t.failures ? 1 : 0;
}
