/* What the files of the types library share (types.h is the contract with the rest of the
 * manager): the byte view of any signature builder, the IType objects of types.c, the creator's
 * metadata, and the enumerators and parameter/local wrappers of type_enums.c. */
#ifndef CLRIE_PM_TYPES_PRIVATE_H
#define CLRIE_PM_TYPES_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "com.h"
#include "datacontainer.h"
#include "enum.h"
#include "types.h"

/* Hostile blobs nest deeply: types deeper than this are refused (libilgraph bounds its own walk
 * the same way, so a blob it measures never needs more). */
#define TYPES_MAX_DEPTH 64

/* ---- sig_builder.c ---------------------------------------------------------------------- */

/* The bytes held by any ISignatureBuilder (ours or a plugin's), borrowed until it next changes.
 * An empty builder gives *bytes NULL and *len 0. */
HRESULT clrie_pm__types_builder_view(ISignatureBuilder *builder, const uint8_t **bytes,
                                     size_t *len);
/* A new builder holding a copy of bytes[0..len). */
HRESULT clrie_pm__types_builder_new_with(const uint8_t *bytes, size_t len, ISignatureBuilder **out);

/* ---- types.c ------------------------------------------------------------------------------ */

/* One type from the blob at p[0..len): *used is its length (prefixes included). A leading
 * ELEMENT_TYPE_SENTINEL is taken when allow_sentinel (a vararg parameter). E_INVALIDARG for a
 * malformed, truncated or too deeply nested blob. creator is AddRef'd by the type. */
HRESULT clrie_pm__types_type_parse(ITypeCreator *creator, const uint8_t *p, size_t len,
                                   bool allow_sentinel, IType **out, size_t *used);
/* The bytes of a type this library made, or NULL for a foreign IType. Borrowed for the type's
 * life (types never change). */
const uint8_t *clrie_pm__types_type_bytes(IType *type, size_t *len);
/* The name of a TypeDef (with enclosing types, "Outer+Inner") or TypeRef, from metadata. */
HRESULT clrie_pm__types_token_name(IMetaDataImport *import, mdToken token, BSTR *out);

/* ---- type_creator.c ----------------------------------------------------------------------- */

/* A module's type factory: what the types it makes read (their metadata and module), shared so
 * that types.c, below type_creator.c, reaches them without calling up into it. */
struct types_creator {
    ITypeCreator iface; /* first */
    ISignatureParser parser;
    struct clrie_pm_data_container data;
    struct clrie_plugin_com com;
    IModuleInfo *module;     /* strong, may be NULL */
    IMetaDataImport *import; /* strong, may be NULL */
};

_Static_assert(offsetof(struct types_creator, iface) == 0, "iface first");

/* The creator's metadata import (NULL when it has none) and module (NULL likewise), borrowed
 * for the creator's life. creator must be one clrie_pm_types_creator_new made. */
static inline IMetaDataImport *types_creator_import(ITypeCreator *creator)
{
    return CLRIE_CONTAINER_OF(creator, struct types_creator, iface)->import;
}

static inline IModuleInfo *types_creator_module(ITypeCreator *creator)
{
    return CLRIE_CONTAINER_OF(creator, struct types_creator, iface)->module;
}
/* ParseTypeSequence's work: count types from p[0..len), each may start with a sentinel when
 * allow_sentinel (parameters). types is a malloc'd array of count references (NULL for 0);
 * *used their total length. */
HRESULT clrie_pm__types_parse_sequence(ITypeCreator *creator, const uint8_t *p, size_t len,
                                       uint32_t count, bool allow_sentinel, IType ***types,
                                       size_t *used);
/* The types of a whole LOCAL_SIG blob (len 0: none), which must end where its last type does. */
HRESULT clrie_pm__types_parse_locals(ITypeCreator *creator, const uint8_t *sig, size_t len,
                                     IType ***types, uint32_t *count);
void clrie_pm__types_release_all(IType **types,
                                 size_t count); /* releases each and frees the array */

/* ---- type_enums.c ------------------------------------------------------------------------- */

enum types_enum_kind {
    TYPES_ENUM_PARAMETERS, /* IEnumMethodParameters over IMethodParameter */
    TYPES_ENUM_LOCALS,     /* IEnumMethodLocals over IMethodLocal */
};
/* An enumerator over the parameters or locals of those types: each type wrapped in an
 * IMethodParameter (kind TYPES_ENUM_PARAMETERS) or IMethodLocal (TYPES_ENUM_LOCALS). */
HRESULT clrie_pm__types_enum_wrapping(enum types_enum_kind kind, IType *const *types, size_t count,
                                      void **out);

#endif
