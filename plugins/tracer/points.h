/* The tracer plugin's instrumentation points: what the XML files of its folder say to trace,
 * read by points.c (docs/tracers.md has the format). Private to plugins/tracer. */
#ifndef CLRIE_TRACER_POINTS_H
#define CLRIE_TRACER_POINTS_H

#include <stdbool.h>
#include <stddef.h>

/* One method to trace and who traces it. Every string is owned by the point. */
struct clrie_tracer_point {
    char *factory;    /* the full name of a class implementing Clrie.Tracing.ITracerFactory */
    char *library;    /* absolute path of the assembly that defines it; NULL: looked up by name */
    char *assembly;   /* the traced method's assembly name (compared ignoring ASCII case) */
    char *type;       /* `Namespace.Type`, nested types as `Outer+Inner` */
    char *method;     /* the method's name */
    char *parameters; /* the parameter types, comma-separated without blanks; NULL: any */
    char *file;       /* where the point was declared */
    unsigned line, column;
};

/* The points of every file read so far, in file order. Zero-initialise. */
struct clrie_tracer_points {
    struct clrie_tracer_point *items;
    size_t count, capacity;
};

/* A problem in a file: the place (line and column 0 when unknown) and a one-line message. */
typedef void (*clrie_tracer_report_fn)(void *data, const char *file, unsigned line, unsigned column,
                                       const char *message);

/* The largest points file read: a bigger one is refused. */
#define CLRIE_TRACER_MAX_FILE_SIZE (1024 * 1024)

/* Adds the points of one file. A file with any problem adds nothing: each problem is reported
 * with its place and -EILSEQ returned (-errno when the file cannot be read, -EFBIG when it is
 * too big, also reported). -ENOMEM when memory ran out (the points are then as before). */
int clrie_tracer_points_load_file(struct clrie_tracer_points *points, const char *path,
                                  clrie_tracer_report_fn report, void *data);

/* The same from memory: `path` names the file in reports and is the base of relative
 * `library` paths. */
int clrie_tracer_points_load_memory(struct clrie_tracer_points *points, const char *path,
                                    const char *text, size_t len, clrie_tracer_report_fn report,
                                    void *data);

/* Adds the points of every `*.xml` file directly in `folder`, in byte order of their names;
 * a bad file is reported and skipped, the others still count. 0, -errno when the folder cannot
 * be read (reported), or -ENOMEM. *files (may be NULL) gets the number of files read whole. */
int clrie_tracer_points_load_folder(struct clrie_tracer_points *points, const char *folder,
                                    clrie_tracer_report_fn report, void *data, size_t *files);

/* Frees every point; the struct is empty afterwards. NULL is fine. */
void clrie_tracer_points_finish(struct clrie_tracer_points *points);

/* Whether the point names this method: assembly (ASCII case ignored), type and name exactly,
 * and, when the point lists parameter types, `parameters` (NULL: the caller could not tell
 * them, which matches only points that list none) compared with blanks ignored. */
bool clrie_tracer_point_matches(const struct clrie_tracer_point *point, const char *assembly,
                                const char *type, const char *method, const char *parameters);

#endif
