/* find-engine ROOT [ARCH_FOLDER]: which engine under ROOT the proxy would choose, and why
 * every other entry was not chosen. */
#include <stdio.h>
#include <string.h>

#include <clrie/version.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: find-engine ROOT [ARCH_FOLDER]\n");
        return 2;
    }
    struct clrie_version_select_options opts = {
        .root = argv[1],
        .major = 1,
        .arch_folder = argc > 2 ? argv[2] : "Instrumentation64",
        .engine_file = "libInstrumentationEngine.so",
    };
    struct clrie_version_selection selection;
    int r = clrie_version_select(&opts, &selection);
    if (r == 0)
        printf("chosen: %s\n", selection.path);
    else if (selection.root_error)
        printf("cannot read %s: %s\n", opts.root, strerror(selection.root_error));
    else
        printf("no eligible engine under %s\n", opts.root);
    for (size_t i = 0; i < selection.count; i++) {
        const struct clrie_version_candidate *c = &selection.candidates[i];
        if (c->verdict != CLRIE_VERSION_CHOSEN)
            printf("  %s: %s\n", c->name, clrie_version_verdict_string(c->verdict));
    }
    clrie_version_selection_finish(&selection);
    return r == 0 ? 0 : 1;
}
