/* Replays a libFuzzer seed corpus through a target's LLVMFuzzerTestOneInput, so every build
 * runs the corpus as an ordinary test. Arguments are files or folders of files. A replay that
 * finds no input fails: a test that runs nothing must not pass. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/fs.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replay_file(const char *path)
{
    size_t len;
    char *data = test_read_file(path, &len);
    if (!data) {
        fprintf(stderr, "fuzz replay: cannot read %s\n", path);
        exit(1);
    }
    /* Hand the target an exact-size copy so ASan sees reads past the end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact)
        abort();
    memcpy(exact, data, len);
    free(data);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t replay(const char *path)
{
    enum clrie_os_kind kind;
    if (clrie_os_path_kind(path, &kind) != 0) {
        fprintf(stderr, "fuzz replay: no such input %s\n", path);
        exit(1);
    }
    if (kind != CLRIE_OS_DIRECTORY)
        return replay_file(path);

    /* Every entry but hidden ones, in name order, so that a failure names the same input on
     * every system. */
    struct clrie_os_dir *dir = NULL;
    char **names = NULL;
    size_t n = 0, capacity = 0;
    const char *name;
    int r = clrie_os_dir_open(path, &dir);
    while (r == 0 && (r = clrie_os_dir_next(dir, &name)) == 1) {
        r = 0;
        if (name[0] == '.')
            continue;
        if (n == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            names = realloc(names, capacity * sizeof(*names));
        }
        if (!names || !(names[n++] = strdup(name)))
            abort();
    }
    clrie_os_dir_close(dir);
    if (r < 0) {
        fprintf(stderr, "fuzz replay: cannot list %s\n", path);
        exit(1);
    }
    qsort(names, n, sizeof(*names), by_name);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        char *child = test_path(path, names[i]);
        count += replay(child);
        free(child);
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    for (int i = 1; i < argc; i++)
        count += replay(argv[i]);
    printf("replayed %zu inputs\n", count);
    return count > 0 ? 0 : 1;
}
