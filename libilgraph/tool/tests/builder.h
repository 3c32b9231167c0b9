/* Builds small, valid .NET assemblies byte by byte, for the reader's tests and as the seeds
 * of its fuzz target. Each build reports where its interesting fields are, so a test can
 * break exactly one of them.
 *
 * The assembly has one section (.text, RVA 0x2000) holding the CLI header, five method
 * bodies and the metadata, with these rows:
 *
 *   TypeDef   1 <Module>, 2 Ns.C, 3 Ns.C/Inner (nested)
 *   MethodDef 1 Ns.C::.ctor   tiny, 7 code bytes, instance void()
 *             2 Ns.C::Fat     fat, small EH section, locals, int32(int32, int32) with a
 *                             custom modifier on the return type
 *             3 Ns.C::Chain   fat, two EH sections (small, then fat), generic void<T>(T)
 *             4 Ns.C::Abstract  RVA 0
 *             5 Ns.C/Inner::M tiny, 1 code byte, static vararg void()
 *   Field     1 Ns.C::count
 *   TypeRef   1 System.Object, 2 System.Collections.Generic.List`1
 *   MemberRef 1 System.Object::.ctor, 2 List`1<int32>::Add (via TypeSpec 1), 3 field f
 *   TypeSpec 1, StandAloneSig 1 (locals) and 2 (calli: int32(int32)), MethodSpec 1 (Chain)
 */
#ifndef CLRIE_IL_TOOL_TESTS_BUILDER_H
#define CLRIE_IL_TOOL_TESTS_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct build_options {
    bool pe32_plus;           /* PE32+ optional header */
    bool wide_heaps;          /* 4-byte #Strings, #GUID and #Blob indexes */
    bool method_ptr;          /* "#-" stream with a MethodPtr table between TypeDef and MethodDef */
    uint32_t extra_type_refs; /* nameless TypeRefs after the two above, to widen coded indexes */
};

#define BUILT_METHODS 5

struct built {
    uint8_t *data; /* malloc'd; free() it */
    size_t len;

    size_t lfanew_at;   /* the DOS header's PE offset field */
    size_t optional_at; /* optional header */
    size_t directory_count_at;
    size_t cli_directory_at; /* data directory 14 */
    size_t sections_at;      /* section table */
    size_t cli_at;           /* CLI header */
    size_t metadata_at;      /* metadata root */
    size_t stream_headers_at;
    size_t tables_at; /* #~ stream */
    size_t strings_at, strings_size;
    size_t blobs_at, blobs_size;
    size_t row_counts_at; /* first row count of #~ */
    size_t typedef_rows_at, methoddef_rows_at, memberref_rows_at, nested_rows_at;
    uint32_t typedef_row_size, methoddef_row_size, memberref_row_size;

    uint32_t body_rva[BUILT_METHODS + 1]; /* by MethodDef row; 0 for none */
    size_t body_at[BUILT_METHODS + 1];    /* file offset */
    size_t body_len[BUILT_METHODS + 1];
    uint32_t code_size[BUILT_METHODS + 1];
    uint32_t text_rva, text_raw_at, text_raw_size;
    size_t text_len; /* the section's virtual size: bytes actually written */
};

/* Returns 0, or -ENOMEM. */
int clrie_il__test_assembly_build(const struct build_options *options, struct built *out);

#endif
