/* Writes the fuzz target's seed corpus into the folder given: the hand-made assemblies of
 * builder.h in each of their forms, and two of their method bodies alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "make-seeds: cannot write %s\n", path);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make-seeds FOLDER\n");
        return 2;
    }
    static const struct {
        const char *name;
        struct build_options options;
    } forms[] = {
        {"assembly-pe32.dll", {0}},
        {"assembly-pe32plus.dll", {.pe32_plus = true}},
        {"assembly-wide-heaps.dll", {.wide_heaps = true}},
        {"assembly-method-ptr.dll", {.method_ptr = true}},
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        struct built b;
        if (clrie_il__test_assembly_build(&forms[i].options, &b) != 0)
            return 1;
        write_file(argv[1], forms[i].name, b.data, b.len);
        if (i == 0) {
            write_file(argv[1], "body-fat-eh.bin", b.data + b.body_at[2], b.body_len[2]);
            write_file(argv[1], "body-two-sections.bin", b.data + b.body_at[3], b.body_len[3]);
        }
        free(b.data);
    }
    return 0;
}
