/* Fakes for the types tests (test_types.c, fuzz_types.c): a small IMetaDataImport that knows the
 * names and flags of a few TypeDefs and TypeRefs, an IMetaDataEmit whose GetTokenFromSig records
 * the blobs it is given, an IModuleInfo that only counts references, an outer IUnknown, and
 * plugin-side ITypes. Every fake counts its references so a test can prove that all were given
 * back. Not thread-safe beyond the atomic counts. */
#ifndef CLRIE_PM_TESTS_TYPES_FAKES_H
#define CLRIE_PM_TESTS_TYPES_FAKES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

/* TypeDefs: Ns.Outer, its nested Inner, the struct Ns.Point (extends System.ValueType), the enum
 * Ns.Color (extends System.Enum), the class Ns.Klass (extends System.Object), and Loop, whose
 * enclosing class is itself (hostile metadata). TypeRefs: System.ValueType, System.Object,
 * System.Enum. */
#define TD_OUTER 0x02000002u
#define TD_INNER 0x02000003u
#define TD_POINT 0x02000004u
#define TD_COLOR 0x02000005u
#define TD_KLASS 0x02000006u
#define TD_LOOP 0x02000007u
#define TR_VALUETYPE 0x01000001u
#define TR_OBJECT 0x01000012u /* coded 0x49 in a signature */
#define TR_ENUM 0x01000003u

struct fake_import {
    IMetaDataImport iface;
    atomic_int refs;
};
struct fake_emit {
    IMetaDataEmit iface;
    atomic_int refs;
    int calls; /* GetTokenFromSig calls */
    uint8_t last[256];
    size_t last_len;
    HRESULT fail; /* returned by GetTokenFromSig when set */
};
struct fake_module {
    IModuleInfo iface;
    atomic_int refs;
};
struct fake_outer {
    IUnknown iface;
    atomic_int refs;
};
/* A plugin's own IType: AddToSignature appends bytes[0..len), or fails with fail. */
struct foreign_type {
    IType iface;
    atomic_int refs;
    const uint8_t *bytes;
    size_t len;
    HRESULT fail;
};

/* Each starts with one reference (the test's). */
void fake_import_init(struct fake_import *f);
void fake_emit_init(struct fake_emit *f);
void fake_module_init(struct fake_module *f);
void fake_outer_init(struct fake_outer *f);
void foreign_type_init(struct foreign_type *f, const uint8_t *bytes, size_t len);

#endif
