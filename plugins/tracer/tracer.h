/* The tracer plugin's parts that know COM: what the plugin object (tracer.c) shares with the
 * parameter text (signature.c) and the IL wrapper (wrap.c). Private to plugins/tracer. */
#ifndef CLRIE_TRACER_H
#define CLRIE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clrie/abi/instrumentation.h>
#include <clrie/abi/metadata.h>

/* The parameter types of the method signature sig[0..len) as points name them, comma-separated
 * (`System.Int32,System.String[],!!0`), in out. 0, -EILSEQ for a signature that cannot be
 * read, -ENOSPC when out is too small. */
int clrie_tracer_parameters_text(IMetaDataImport *import, const uint8_t *sig, size_t len, char *out,
                                 size_t size);

/* Whether the method signature sig[0..len) returns a Task, Task<T>, ValueTask or ValueTask<T>
 * (of System.Threading.Tasks, by name): its tracer may be an IAsyncTracer. */
bool clrie_tracer_returns_task(IMetaDataImport *import, const uint8_t *sig, size_t len);

/* Whether a type is by-ref-like (Span<T> and the like), which the wrapper could not box. */
enum clrie_tracer_byref_like {
    CLRIE_TRACER_NOT_BYREF_LIKE,
    CLRIE_TRACER_BYREF_LIKE,
    CLRIE_TRACER_BYREF_LIKE_UNKNOWN, /* a type of another assembly that cannot be looked at */
};

/* The answer for a TypeRef of the signature's module (the caller follows it to its definition). */
typedef enum clrie_tracer_byref_like (*clrie_tracer_typeref_fn)(void *data, mdTypeRef type);

/* Whether the return type or a parameter type of the method signature sig[0..len) is a
 * by-ref-like value type: a TypeDef of the module by its IsByRefLikeAttribute, a TypeRef through
 * `typeref` (NULL: every TypeRef of a value type is unknown). *answer is BYREF_LIKE when one is,
 * else UNKNOWN when a TypeRef gave no answer (its name then in unknown[0..unknown_size), cut to
 * fit), else NOT_BYREF_LIKE. 0 or -EILSEQ. */
int clrie_tracer_signature_byref_like(IMetaDataImport *import, const uint8_t *sig, size_t len,
                                      clrie_tracer_typeref_fn typeref, void *data,
                                      enum clrie_tracer_byref_like *answer, char *unknown,
                                      size_t unknown_size);

/* What the wrapper calls, defined in the traced method's module at module load. */
struct clrie_tracer_refs {
    mdMemberRef needs;       /* int32 Clrie.Tracing.Shim::Needs(int32, string) */
    mdMemberRef guard;       /* bool& Shim::Guard() */
    mdMemberRef begin;       /* object Shim::Begin(bool&, int32, object, object[]) */
    mdMemberRef end;         /* void Shim::End(bool&, int32, object, object, object) */
    mdMemberRef finish_task; /* object Shim::FinishTask(int32, object, object) */
    mdMemberRef failed;      /* void Shim::Failed(object, int32, int32) */
    mdTypeRef async_tracer;  /* Clrie.Tracing.IAsyncTracer */
};

/* What Shim.Needs returns: the TracerNeeds bits the factory asked for (Api.cs). */
#define CLRIE_TRACER_NEEDS_INSTANCE 1
#define CLRIE_TRACER_NEEDS_ARGUMENTS 2
#define CLRIE_TRACER_NEEDS_RESULT 4

/* One traced method of a module. */
struct clrie_tracer_method {
    mdMethodDef token;
    int32_t id;       /* the point's number: the same for the same point text, process-wide */
    mdString point;   /* the user string Shim.Needs gets: the point's lines */
    bool no_instance; /* a constructor: the tracer gets null for `this` */
    bool returns_task; /* Task, Task<T>, ValueTask, ValueTask<T>: Shim.FinishTask for an
                        * IAsyncTracer */
    mdToken value_this; /* a method of a value type: its type (TypeDef, or a TypeSpec of the
                         * type over its own parameters), to load and box `this`; else
                         * mdTokenNil */
};

/* Wraps the method (at its ReJIT) in the try/catch shape of docs/tracers.md. S_OK when
 * wrapped; S_FALSE, with *why set, when the method is left as it is (a `jmp`, a tail call, a
 * byref return, a vararg signature); a failure HRESULT otherwise (the engine then leaves the
 * method unchanged). */
HRESULT clrie_tracer_wrap(IMethodInfo *method, const struct clrie_tracer_method *traced,
                          const struct clrie_tracer_refs *refs, const char **why);

#endif
