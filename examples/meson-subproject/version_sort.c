/* version-sort VERSION...: prints the engine versions given, newest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/version.h>

static int newest_first(const void *a, const void *b)
{
    return clrie_version_compare_total(b, a);
}

int main(int argc, char **argv)
{
    struct clrie_version *versions = calloc((size_t)argc, sizeof(*versions));
    if (!versions)
        return 1;
    int count = 0, status = 0;
    for (int i = 1; i < argc; i++) {
        struct clrie_version_diag diag;
        if (clrie_version_parse(argv[i], strlen(argv[i]), &versions[count], &diag) == 0) {
            count++;
        } else {
            fprintf(stderr, "version-sort: '%s' at byte %zu: %s\n", argv[i], diag.offset,
                    diag.message);
            status = 1;
        }
    }
    qsort(versions, (size_t)count, sizeof(*versions), newest_first);
    for (int i = 0; i < count; i++)
        printf("%.*s\n", (int)versions[i].text_len, versions[i].text);
    free(versions);
    return status;
}
