/* What the types tests share (test_types.c, test_sig_builder.c, test_locals.c): a fixture of
 * counting fakes and a type creator over them, set up and torn down around every test (teardown
 * proves every reference was given back), and assertions on builders and types. */
#ifndef CLRIE_PM_TESTS_TYPES_TESTING_H
#define CLRIE_PM_TESTS_TYPES_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"
#include "types_fakes.h"

struct types_fixture {
    struct fake_import import;
    struct fake_emit emit;
    struct fake_module module;
    ITypeCreator *creator; /* over module and import */
};
extern struct types_fixture fx;

int types_setup(void **state);
int types_teardown(void **state);

/* A pointer and a length for a byte list: BYTES(0x07, 0x01, 0x08). */
#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

void assert_builder_holds(ISignatureBuilder *b, const uint8_t *expected, size_t len);
/* The bytes t appends to a new builder are expected[0..len). */
void assert_emits(IType *t, const uint8_t *expected, size_t len);
/* A type from fx.creator's FromSignature, which must succeed. */
IType *from_sig(const uint8_t *bytes, size_t len, DWORD *used);
void assert_name(IType *t, const char *expected);
CorElementType element_of(IType *t);
bool has_interface(IType *t, const IID *iid);

#endif
