/* clrie-tracer-check: checks a points folder against a built app's assemblies without running
 * it (docs/tracers.md#checking-points-before-a-run).
 *
 *   clrie-tracer-check [--allow-missing] POINTS_FOLDER ASSEMBLY_OR_FOLDER...
 *
 * The points are read by the plugin's own reader (points.c: the same problems, with
 * file:line:col), the assemblies by the hostile-file-safe reader of clrie-il, and every point
 * is matched by the plugin's own matching (match.c) through an IMetaDataImport over that reader
 * (assembly_import.c), so the tool and the runtime cannot disagree. One line per point, in file
 * order:
 *
 *   FILE:LINE: Type::Method(P) -> 2 methods: Type::Method(A), Type::Method(B)
 *   FILE:LINE: Type::Method(P) matches no method of ASSEMBLY: <nearest candidates>
 *   FILE:LINE: Type::Method(P): assembly ASSEMBLY not given
 *   FILE:LINE: Type::Method(P) is never traced: Clrie.Tracing is the tracer library
 *
 * then a summary. Exit status 0 when every point matched a method and every file and assembly
 * was read, 1 otherwise (a point of an assembly not given counts as unmatched unless
 * --allow-missing), 2 for a usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/os/error.h>
#include <clrie/os/fs.h>
#include <clrie/os/process.h>

#include "assembly.h"
#include "assembly_import.h"
#include "match.h"
#include "points.h"

#define EXIT_USAGE 2
/* How many matched methods a point's line lists. */
#define LISTED 10

static const char usage[] =
    "usage: clrie-tracer-check [--allow-missing] POINTS_FOLDER ASSEMBLY_OR_FOLDER...\n"
    "  Matches every point of the *.xml files of POINTS_FOLDER against the given assemblies\n"
    "  (a folder: each *.dll and *.exe in it) as the tracer plugin would, and prints what each\n"
    "  matches, or the nearest candidates. Exit status 0 when every point matched, 1 when one\n"
    "  did not or a file could not be read; --allow-missing: points of an assembly not given\n"
    "  are listed but do not count.\n";

/* One opened assembly. */
struct opened {
    char *path;
    const char *name; /* its Assembly row's name, in the assembly */
    struct asm_assembly *assembly;
    IMetaDataImport *import;
};

struct check {
    struct opened *items;
    size_t count, capacity;
    unsigned problems; /* points files and assemblies that could not be read */
};

static void report_problem(void *data, const char *file, unsigned line, unsigned column,
                           const char *message)
{
    struct check *c = data;
    c->problems++;
    if (line)
        printf("%s:%u:%u: %s\n", file, line, column, message);
    else
        printf("%s: %s\n", file, message);
}

static bool has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n > m && strcasecmp(name + n - m, suffix) == 0;
}

/* Opens one assembly; `listed`: found in a folder, where a file that is not a .NET assembly (a
 * native library) is skipped with a note rather than counted as a problem. */
static int open_assembly(struct check *c, const char *path, bool listed)
{
    struct asm_assembly *assembly = NULL;
    struct asm_diag diag = {0};
    const char *name = NULL;
    int r = asm_assembly_new_from_file(path, &assembly, &diag);
    bool no_manifest = r == 0 && (r = asm_assembly_name(assembly, &name, &diag)) == -ENOENT;
    if (r != 0) {
        char why[128];
        bool not_assembly = r == -EILSEQ || no_manifest;
        if (r == -EILSEQ)
            printf("%s: %s: %s (at byte %zu)\n", path, listed ? "skipped" : "not an assembly",
                   diag.message, diag.offset);
        else if (no_manifest)
            printf("%s: %s: a module without an assembly manifest\n", path,
                   listed ? "skipped" : "not an assembly");
        else
            printf("%s: cannot read it: %s\n", path, clrie_os_strerror(-r, why, sizeof why));
        if (!listed || !not_assembly)
            c->problems++;
        asm_assembly_free(assembly);
        return r == -ENOMEM ? r : 0;
    }
    if (c->count == c->capacity) {
        size_t capacity = c->capacity ? c->capacity * 2 : 16;
        struct opened *grown = realloc(c->items, capacity * sizeof *grown);
        if (!grown) {
            asm_assembly_free(assembly);
            return -ENOMEM;
        }
        c->items = grown;
        c->capacity = capacity;
    }
    struct opened *o = &c->items[c->count];
    *o = (struct opened){.path = strdup(path), .name = name, .assembly = assembly};
    if (!o->path || clrie_tracer_check_import_new(assembly, &o->import) != 0) {
        free(o->path);
        asm_assembly_free(assembly);
        return -ENOMEM;
    }
    c->count++;
    return 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every *.dll and *.exe of a folder (in byte order of their names). */
static int open_argument(struct check *c, const char *path)
{
    struct clrie_os_dir *dir = NULL;
    if (clrie_os_dir_open(path, &dir) != 0)
        return open_assembly(c, path, false);
    char **names = NULL;
    size_t count = 0, capacity = 0;
    const char *name;
    int more, r = 0;
    while ((more = clrie_os_dir_next(dir, &name)) > 0) {
        if (!has_suffix(name, ".dll") && !has_suffix(name, ".exe"))
            continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 32;
            char **grown = realloc(names, capacity * sizeof *grown);
            if (!grown) {
                r = -ENOMEM;
                break;
            }
            names = grown;
        }
        size_t len = strlen(path) + 1 + strlen(name) + 1;
        if (!(names[count] = malloc(len))) {
            r = -ENOMEM;
            break;
        }
        snprintf(names[count++], len, "%s%c%s", path, CLRIE_OS_SEPARATOR, name);
    }
    clrie_os_dir_close(dir);
    if (r == 0)
        qsort(names, count, sizeof *names, by_string);
    for (size_t i = 0; i < count; i++) {
        if (r == 0)
            r = open_assembly(c, names[i], true);
        free(names[i]);
    }
    free(names);
    return r;
}

/* The methods a point matched, for its line. */
struct found {
    char **lines; /* per point: "A, B, ..." of the first LISTED matches, or NULL */
    size_t *counts;
    int error;
};

/* Appends "type::method(parameters)", or "..." after the first LISTED, to the point's line. */
static void found_method(void *data, size_t point, mdMethodDef token, const char *type,
                         const char *method, const char *parameters)
{
    (void)token;
    struct found *f = data;
    size_t nth = f->counts[point]; /* this method included */
    if (f->error || nth > LISTED + 1)
        return;
    const char *old = f->lines[point] ? f->lines[point] : "";
    if (!parameters)
        parameters = "?";
    size_t len = strlen(old) + 2 + strlen(type) + 2 + strlen(method) + strlen(parameters) + 3;
    char *line = malloc(len);
    if (!line) {
        f->error = -ENOMEM;
        return;
    }
    if (nth == LISTED + 1)
        snprintf(line, len, "%s, ...", old);
    else
        snprintf(line, len, "%s%s%s::%s(%s)", old, old[0] ? ", " : "", type, method, parameters);
    free(f->lines[point]);
    f->lines[point] = line;
}

static int run(int argc, char **argv)
{
    bool allow_missing = false;
    int first = 1;
    if (first < argc && strcmp(argv[first], "--allow-missing") == 0) {
        allow_missing = true;
        first++;
    }
    if (first < argc && (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc - first < 2 || argv[first][0] == '-') {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    struct check c = {0};
    struct clrie_tracer_points points = {0};
    struct found f = {0};
    int status = 1, r = 0;
    size_t files = 0, matched = 0, unmatched = 0, missing = 0;
    if (clrie_tracer_points_load_folder(&points, argv[first], report_problem, &c, &files) ==
        -ENOMEM)
        goto out_of_memory;
    for (int i = first + 1; i < argc && r == 0; i++)
        r = open_argument(&c, argv[i]);
    if (r != 0)
        goto out_of_memory;

    f.lines = calloc(points.count + 1, sizeof *f.lines);
    f.counts = calloc(points.count + 1, sizeof *f.counts);
    if (!f.lines || !f.counts)
        goto out_of_memory;
    for (size_t i = 0; i < c.count; i++) {
        r = clrie_tracer_match_module(c.items[i].import, c.items[i].name, &points, f.counts,
                                      found_method, &f);
        if (r == -ENOMEM || f.error)
            goto out_of_memory;
        if (r != 0) {
            printf("%s: its metadata cannot be read\n", c.items[i].path);
            c.problems++;
        }
    }
    for (size_t i = 0; i < points.count; i++) {
        const struct clrie_tracer_point *p = &points.items[i];
        char named[1024], why[2048];
        clrie_tracer_point_text(p, named, sizeof named);
        if (f.counts[i] > 0) {
            printf("%s:%u: %s -> %zu method%s: %s\n", p->file, p->line, named, f.counts[i],
                   f.counts[i] == 1 ? "" : "s", f.lines[i]);
            matched++;
            continue;
        }
        if (strcasecmp(p->assembly, CLRIE_TRACER_LIBRARY) == 0) {
            printf("%s:%u: %s is never traced: " CLRIE_TRACER_LIBRARY " is the tracer library\n",
                   p->file, p->line, named);
            unmatched++;
            continue;
        }
        const struct opened *o = NULL;
        for (size_t j = 0; j < c.count && !o; j++)
            if (strcasecmp(c.items[j].name, p->assembly) == 0)
                o = &c.items[j];
        if (!o) {
            printf("%s:%u: %s: assembly %s not given\n", p->file, p->line, named, p->assembly);
            missing++;
            continue;
        }
        r = clrie_tracer_explain_unmatched(o->import, o->name, p, why, sizeof why);
        if (r == -ENOMEM)
            goto out_of_memory;
        if (r != 0)
            snprintf(why, sizeof why, "its metadata could not be read");
        printf("%s:%u: %s matches no method of %s: %s\n", p->file, p->line, named, o->name, why);
        unmatched++;
    }
    printf("%zu points: %zu matched, %zu matched nothing, %zu of assemblies not given%s; %u "
           "problems reading files\n",
           points.count, matched, unmatched, missing, allow_missing ? " (allowed)" : "",
           c.problems);
    status = unmatched == 0 && (allow_missing || missing == 0) && c.problems == 0 ? 0 : 1;
    goto out;
out_of_memory:
    fprintf(stderr, "clrie-tracer-check: out of memory\n");
    status = 1;
out:
    if (f.lines)
        for (size_t i = 0; i < points.count; i++)
            free(f.lines[i]);
    free(f.lines);
    free(f.counts);
    for (size_t i = 0; i < c.count; i++) {
        c.items[i].import->lpVtbl->Release(c.items[i].import);
        asm_assembly_free(c.items[i].assembly);
        free(c.items[i].path);
    }
    free(c.items);
    clrie_tracer_points_finish(&points);
    if (fflush(stdout) != 0)
        status = 1;
    return status;
}

int main(int argc, char **argv)
{
    return clrie_os_process_main(argc, argv, run);
}
