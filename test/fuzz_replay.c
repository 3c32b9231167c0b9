/* Replays a libFuzzer seed corpus through a target's LLVMFuzzerTestOneInput, so every build
 * runs the corpus as an ordinary test. Arguments are files or folders of files. A replay that
 * finds no input fails: a test that runs nothing must not pass. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static size_t replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz replay: no such input %s\n", path);
        exit(1);
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);

    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "fuzz replay: cannot list %s\n", path);
        exit(1);
    }
    size_t count = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char *child = test_path(path, names[i]->d_name);
            count += replay(child);
            free(child);
        }
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
