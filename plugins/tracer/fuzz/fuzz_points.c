/* libFuzzer target for the tracer plugin's points files (points.c). Input: a points file.
 * Checks what every result must keep: a file is taken whole or not at all, a refused file is
 * reported at least once, every report names the file, and every point has what matching
 * needs. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "points.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_NAME "/fuzz/points.xml"

static void count_report(void *data, const char *file, unsigned line, unsigned column,
                         const char *message)
{
    (void)line;
    (void)column;
    if (strcmp(file, FILE_NAME) != 0 || !message || !*message)
        abort();
    (*(size_t *)data)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct clrie_tracer_points points = {0};
    size_t reports = 0;
    int r = clrie_tracer_points_load_memory(&points, FILE_NAME, (const char *)data, size,
                                            count_report, &reports);
    if (r == 0 && reports != 0)
        abort();
    if (r != 0 && r != -ENOMEM && (reports == 0 || points.count != 0))
        abort();
    for (size_t i = 0; i < points.count; i++) {
        const struct clrie_tracer_point *p = &points.items[i];
        if (!p->factory || !*p->factory || !p->assembly || !*p->assembly || !p->type || !*p->type ||
            !p->method || !*p->method || !p->file || p->line == 0)
            abort();
        if (p->library && p->library[0] != '/')
            abort(); /* relative paths are resolved against the file's folder */
        if (!clrie_tracer_point_matches(p, p->assembly, p->type, p->method,
                                        p->parameters ? p->parameters : "") &&
            !p->parameters)
            abort(); /* a point without parameter types names every overload */
    }
    clrie_tracer_points_finish(&points);
    return 0;
}
