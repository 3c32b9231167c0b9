/* Which methods of a module the points name, and why a point names none (match.c): shared by
 * the plugin (modules.c) and clrie-tracer-check, so that the two decide alike. Private to
 * plugins/tracer. */
#ifndef CLRIE_TRACER_MATCH_H
#define CLRIE_TRACER_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <clrie/abi/metadata.h>

#include "points.h"
#include "tracer.h"

/* The tracer library's assembly: never traced (its methods run inside every traced call), so
 * its points match nothing. */
#define CLRIE_TRACER_LIBRARY "Clrie.Tracing"

/* The room for a method's parameter text. */
#define CLRIE_TRACER_PARAMETERS_SIZE 2048

/* One method that point number `point` (an index into the points) names: its TypeDef's name
 * (`Namespace.Outer+Inner`), its name and its parameter text. The strings last for the call. */
typedef void (*clrie_tracer_match_fn)(void *data, size_t point, mdMethodDef token, const char *type,
                                      const char *method, const char *parameters);

/* Matches every method with IL and a readable signature of the module (assembly `assembly`,
 * never the tracer library's) against the points, as the plugin chooses what to trace:
 * counts[i] (one per point, which the caller zeroes) grows by the methods point i names, and fn
 * (may be NULL) is called for each. 0, -ENOMEM, or -EILSEQ when the metadata cannot be
 * enumerated. */
int clrie_tracer_match_module(IMetaDataImport *import, const char *assembly,
                              const struct clrie_tracer_points *points, size_t *counts,
                              clrie_tracer_match_fn fn, void *data);

/* Why `point` names no method of the module, with the nearest candidates, in out (one line,
 * cut to fit):
 *   Type::Method takes parameters="A,B" or parameters=""     (the name exists, other parameters)
 *   Type::Method has no IL (abstract, extern or runtime-implemented): never traced
 *   Type has no method M; nearest: N1, N2                    (nearest first)
 *   no type T in assembly A; nearest: T1, T2
 * The nearest names are those within a third of the name's length plus two edits, at most 5;
 * when none is, the 3 nearest.
 * Names the compiler generates (starting with '<') are never offered. 0, -ENOMEM, -EILSEQ. */
int clrie_tracer_explain_unmatched(IMetaDataImport *import, const char *assembly,
                                   const struct clrie_tracer_point *point, char *out, size_t size);

/* What the point names, as written: `Type::Method` or `Type::Method(parameters)`. */
void clrie_tracer_point_text(const struct clrie_tracer_point *p, char *out, size_t size);

/* The Levenshtein distance of a and b (each compared by its first 256 bytes). */
size_t clrie_tracer_edit_distance(const char *a, const char *b);

/* `message` made one log line in out: control characters (newlines, tabs, ...) become spaces, and
 * a message longer than out is cut at a UTF-8 character boundary and ends with "...". */
void clrie_tracer_one_line(const char *message, char *out, size_t size);

#endif
