/* libFuzzer target for what clrie-tracer-check does with an assembly: the IMetaDataImport over
 * clrie-il's reader (check/assembly_import.c), the matching and the nearest candidates
 * (match.c) of a few fixed points, naming the input's types and methods or not. Input: an
 * assembly. Checks: every call returns what it promises, a candidates text is one terminated
 * line, and a point is explained only when it matched nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"
#include "assembly_import.h"
#include "match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names of the reader's test assemblies (libilgraph/tool/tests/builder.h) and of tiny.dll,
 * with right and wrong parameters, names and types. */
static const char POINTS[] =
    "<Tracing><Tracer factory=\"F\">"
    "<Method assembly=\"A\" type=\"Ns.C\" name=\"Fat\"/>"
    "<Method assembly=\"A\" type=\"Ns.C\" name=\"Fat\" parameters=\"System.Int64\"/>"
    "<Method assembly=\"A\" type=\"Ns.C\" name=\"Chain\" parameters=\"!!0\"/>"
    "<Method assembly=\"A\" type=\"Ns.C+Inner\" name=\"M\" parameters=\"\"/>"
    "<Method assembly=\"A\" type=\"Ns.C\" name=\"Abstract\"/>"
    "<Method assembly=\"A\" type=\"Ns.C\" name=\"Fot\"/>"
    "<Method assembly=\"A\" type=\"Ns.D\" name=\"Fat\"/>"
    "<Method assembly=\"A\" type=\"Tiny.Program\" name=\"Main\"/>"
    "<Method assembly=\"A\" type=\"Tiny.Program\" name=\"Mian\" parameters=\"System.String[]\"/>"
    "</Tracer></Tracing>";

static void check_point(void *data, size_t point, mdMethodDef token, const char *type,
                        const char *method, const char *parameters)
{
    (void)token;
    const struct clrie_tracer_points *points = data;
    if (point >= points->count || !type || !method || !parameters)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct clrie_tracer_points points;
    if (points.count == 0 && clrie_tracer_points_load_memory(&points, "/fuzz/points.xml", POINTS,
                                                             sizeof POINTS - 1, NULL, NULL) != 0)
        abort();
    struct asm_assembly *assembly = NULL;
    IMetaDataImport *import = NULL;
    if (asm_assembly_new(data, size, &assembly, NULL) != 0)
        return 0;
    if (clrie_tracer_check_import_new(assembly, &import) != 0)
        goto out;
    size_t counts[16] = {0};
    int r = clrie_tracer_match_module(import, "a", &points, counts, check_point, &points);
    if (r != 0 && r != -ENOMEM && r != -EILSEQ)
        abort();
    for (size_t i = 0; r == 0 && i < points.count; i++) {
        if (counts[i] > 0)
            continue;
        char why[512];
        memset(why, 'x', sizeof why);
        int e = clrie_tracer_explain_unmatched(import, "a", &points.items[i], why, sizeof why);
        if (e != 0 && e != -ENOMEM && e != -EILSEQ)
            abort();
        if (!memchr(why, '\0', sizeof why) || strchr(why, '\n'))
            abort();
    }
out:
    if (import)
        import->lpVtbl->Release(import);
    asm_assembly_free(assembly);
    return 0;
}
