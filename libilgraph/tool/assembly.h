/* assembly.h: a reader of .NET assemblies for the clrie-il tool (private, not installed).
 *
 * An assembly is a PE32 or PE32+ file with a CLI header and ECMA-335 metadata (Partition II
 * §22-25). This reader validates the PE headers, the section table, the CLI header, the
 * metadata root and its streams, and the layout of every metadata table, then answers
 * questions about the rows the IL tool needs: modules, types, methods, member references,
 * method specs, stand-alone signatures, type specs, and where each method body starts and
 * ends. ReadyToRun images are ordinary assemblies to it: their IL bodies are still found
 * through the MethodDef RVA.
 *
 * It is a parser of hostile files: every read is bounds-checked, nothing prints or aborts.
 * Fallible functions return 0 or a negative errno: -EILSEQ for malformed input (with a
 * diagnostic: byte offset into the file and what was wrong), -EINVAL for bad arguments,
 * -ENOENT for a row or body that does not exist, -ENOMEM, and for files the errno of the
 * failing system call. Outputs are written only on success; a diagnostic (which may be NULL)
 * is filled only with -EILSEQ, and by asm_assembly_new_from_file() with -EFBIG.
 *
 * Ownership: an asm_assembly made by asm_assembly_new() borrows the caller's bytes, which
 * must outlive it; one made by asm_assembly_new_from_file() owns its copy. Every pointer
 * the reader hands out (names, blobs, bodies) points into those bytes and stays valid until
 * asm_assembly_free(). Strings from the #Strings heap are NUL-terminated UTF-8 as stored.
 *
 * Threads: an opened asm_assembly is never modified, so any number of threads may read it.
 */
#ifndef CLRIE_IL_TOOL_ASSEMBLY_H
#define CLRIE_IL_TOOL_ASSEMBLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/ilgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Link names: the reader is part of libilgraph, whose archives export only clrie_il_ names;
 * its functions link as clrie_il__asm_* (double underscore: not API) while the sources keep
 * the short names. */
#define asm_assembly_bytes clrie_il__asm_assembly_bytes
#define asm_assembly_free clrie_il__asm_assembly_free
#define asm_assembly_info clrie_il__asm_assembly_info
#define asm_assembly_new clrie_il__asm_assembly_new
#define asm_assembly_name clrie_il__asm_assembly_name
#define asm_assembly_new_from_file clrie_il__asm_assembly_new_from_file
#define asm_blob clrie_il__asm_blob
#define asm_body_parse clrie_il__asm_body_parse
#define asm_field_get clrie_il__asm_field_get
#define asm_guid clrie_il__asm_guid
#define asm_memberref_get clrie_il__asm_memberref_get
#define asm_method_body clrie_il__asm_method_body
#define asm_methoddef_get clrie_il__asm_methoddef_get
#define asm_methodspec_get clrie_il__asm_methodspec_get
#define asm_module_get clrie_il__asm_module_get
#define asm_rva_to_offset clrie_il__asm_rva_to_offset
#define asm_standalonesig_get clrie_il__asm_standalonesig_get
#define asm_string clrie_il__asm_string
#define asm_table_rows clrie_il__asm_table_rows
#define asm_token_method_sig clrie_il__asm_token_method_sig
#define asm_token_name clrie_il__asm_token_name
#define asm_typedef_get clrie_il__asm_typedef_get
#define asm_typeref_get clrie_il__asm_typeref_get
#define asm_typespec_get clrie_il__asm_typespec_get
#define asm_user_string clrie_il__asm_user_string

/* Metadata tables by number (ECMA-335 II.22). A token is (table << 24) | row, rows from 1. */
enum asm_table {
    ASM_TABLE_MODULE = 0x00,
    ASM_TABLE_TYPE_REF = 0x01,
    ASM_TABLE_TYPE_DEF = 0x02,
    ASM_TABLE_FIELD_PTR = 0x03,
    ASM_TABLE_FIELD = 0x04,
    ASM_TABLE_METHOD_PTR = 0x05,
    ASM_TABLE_METHOD_DEF = 0x06,
    ASM_TABLE_PARAM_PTR = 0x07,
    ASM_TABLE_PARAM = 0x08,
    ASM_TABLE_INTERFACE_IMPL = 0x09,
    ASM_TABLE_MEMBER_REF = 0x0A,
    ASM_TABLE_CONSTANT = 0x0B,
    ASM_TABLE_CUSTOM_ATTRIBUTE = 0x0C,
    ASM_TABLE_FIELD_MARSHAL = 0x0D,
    ASM_TABLE_DECL_SECURITY = 0x0E,
    ASM_TABLE_CLASS_LAYOUT = 0x0F,
    ASM_TABLE_FIELD_LAYOUT = 0x10,
    ASM_TABLE_STAND_ALONE_SIG = 0x11,
    ASM_TABLE_EVENT_MAP = 0x12,
    ASM_TABLE_EVENT_PTR = 0x13,
    ASM_TABLE_EVENT = 0x14,
    ASM_TABLE_PROPERTY_MAP = 0x15,
    ASM_TABLE_PROPERTY_PTR = 0x16,
    ASM_TABLE_PROPERTY = 0x17,
    ASM_TABLE_METHOD_SEMANTICS = 0x18,
    ASM_TABLE_METHOD_IMPL = 0x19,
    ASM_TABLE_MODULE_REF = 0x1A,
    ASM_TABLE_TYPE_SPEC = 0x1B,
    ASM_TABLE_IMPL_MAP = 0x1C,
    ASM_TABLE_FIELD_RVA = 0x1D,
    ASM_TABLE_ENC_LOG = 0x1E,
    ASM_TABLE_ENC_MAP = 0x1F,
    ASM_TABLE_ASSEMBLY = 0x20,
    ASM_TABLE_ASSEMBLY_PROCESSOR = 0x21,
    ASM_TABLE_ASSEMBLY_OS = 0x22,
    ASM_TABLE_ASSEMBLY_REF = 0x23,
    ASM_TABLE_ASSEMBLY_REF_PROCESSOR = 0x24,
    ASM_TABLE_ASSEMBLY_REF_OS = 0x25,
    ASM_TABLE_FILE = 0x26,
    ASM_TABLE_EXPORTED_TYPE = 0x27,
    ASM_TABLE_MANIFEST_RESOURCE = 0x28,
    ASM_TABLE_NESTED_CLASS = 0x29,
    ASM_TABLE_GENERIC_PARAM = 0x2A,
    ASM_TABLE_METHOD_SPEC = 0x2B,
    ASM_TABLE_GENERIC_PARAM_CONSTRAINT = 0x2C,
    ASM_TABLE_COUNT
};

/* Tokens that are not table rows. */
#define ASM_TOKEN_USER_STRING 0x70u

#define ASM_TOKEN(table, row) (((uint32_t)(table) << 24) | (uint32_t)(row))
#define ASM_TOKEN_TABLE(token) ((uint32_t)(token) >> 24)
#define ASM_TOKEN_ROW(token) ((uint32_t)(token)&0xFFFFFFu)

/* Largest file asm_assembly_new_from_file() accepts. */
#define ASM_MAX_FILE_SIZE ((size_t)512 * 1024 * 1024)

/* Why input was rejected: the byte offset in the file (or in the bytes given to a function
 * that parses a bare buffer) where the problem was found, and what was expected there. */
struct asm_diag {
    size_t offset;
    char message[160];
};

/* Bytes inside the assembly (a #Blob entry, a signature, a #US string). */
struct asm_blob {
    const uint8_t *data;
    size_t len;
};

struct asm_assembly;

/* Facts from the headers, valid as long as the assembly. */
struct asm_info {
    bool pe32_plus;    /* PE32+ (64-bit optional header) rather than PE32 */
    bool ready_to_run; /* the CLI header has a managed native (ReadyToRun) header */
    uint16_t machine;  /* COFF machine, as stored (ReadyToRun images xor an OS value) */
    uint16_t section_count;
    uint32_t cli_flags;   /* CLI header Flags (COMIMAGE_FLAGS_*) */
    uint32_t entry_point; /* token or RVA, as stored */
    uint16_t runtime_major, runtime_minor;
    const char *metadata_version; /* the metadata root's version string, e.g. "v4.0.30319" */
    bool uncompressed_tables;     /* the #- stream rather than #~ */
    uint32_t metadata_offset;     /* file offset of the metadata root */
    uint32_t metadata_size;
};

/* Opens the assembly in data[0..len), which must stay valid and unchanged until
 * asm_assembly_free(). Validates everything listed at the top of this file. */
int asm_assembly_new(const void *data, size_t len, struct asm_assembly **out,
                     struct asm_diag *diag);

/* Reads the file at path (refusing one over ASM_MAX_FILE_SIZE with -EFBIG) and opens it;
 * the assembly owns the bytes. */
int asm_assembly_new_from_file(const char *path, struct asm_assembly **out, struct asm_diag *diag);

/* Frees the assembly (and its bytes if it owns them). Accepts NULL. */
void asm_assembly_free(struct asm_assembly *assembly);

const struct asm_info *asm_assembly_info(const struct asm_assembly *assembly);

/* The whole file as given. */
struct asm_blob asm_assembly_bytes(const struct asm_assembly *assembly);

/* Row count of a table; 0 for an absent table or a number out of range. */
uint32_t asm_table_rows(const struct asm_assembly *assembly, enum asm_table table);

/* Maps an RVA to the file: the file offset and how many bytes of its section's raw data
 * follow it (never past the end of the file). -EILSEQ if no section holds rva. */
int asm_rva_to_offset(const struct asm_assembly *assembly, uint32_t rva, size_t *offset,
                      size_t *available, struct asm_diag *diag);

/* Heaps (ECMA-335 II.24.2.3-6). Index 0 of #Strings is "" and of #Blob is empty; index 0
 * of #GUID is "no GUID" and gives *out = NULL. A #US entry is returned without its
 * trailing flag byte: UTF-16LE code units. Out-of-heap indexes and unterminated strings
 * are -EILSEQ. */
int asm_string(const struct asm_assembly *assembly, uint32_t index, const char **out,
               struct asm_diag *diag);
int asm_blob(const struct asm_assembly *assembly, uint32_t index, struct asm_blob *out,
             struct asm_diag *diag);
int asm_user_string(const struct asm_assembly *assembly, uint32_t index, struct asm_blob *out,
                    struct asm_diag *diag);
int asm_guid(const struct asm_assembly *assembly, uint32_t index, const uint8_t **out,
             struct asm_diag *diag);

/* Rows. Each getter takes a row number from 1; a row out of range is -ENOENT. Coded indexes
 * come back as full tokens (0 for a null index). */
struct asm_module {
    const char *name;
    const uint8_t *mvid; /* 16 bytes, or NULL when the module has none */
};
int asm_module_get(const struct asm_assembly *assembly, struct asm_module *out,
                   struct asm_diag *diag);

/* The name of the assembly (its Assembly row): -ENOENT for a module without one (a netmodule). */
int asm_assembly_name(const struct asm_assembly *assembly, const char **out,
                      struct asm_diag *diag);

struct asm_typedef {
    uint32_t flags;
    const char *name;
    const char *namespace_;
    uint32_t extends;      /* TypeDef, TypeRef or TypeSpec token, or 0 */
    uint32_t enclosing;    /* TypeDef row of the enclosing type (NestedClass), or 0 */
    uint32_t field_list;   /* as stored: first Field (or FieldPtr) row */
    uint32_t method_list;  /* as stored: first MethodDef (or MethodPtr) row */
    uint32_t method_count; /* rows of the method list that belong to this type */
};
int asm_typedef_get(const struct asm_assembly *assembly, uint32_t row, struct asm_typedef *out,
                    struct asm_diag *diag);

struct asm_methoddef {
    uint32_t rva;
    uint16_t impl_flags;
    uint16_t flags;
    const char *name;
    struct asm_blob signature;
    uint32_t param_list;
    uint32_t owner; /* TypeDef row that owns the method, 0 if none does */
};
int asm_methoddef_get(const struct asm_assembly *assembly, uint32_t row, struct asm_methoddef *out,
                      struct asm_diag *diag);

struct asm_field {
    uint16_t flags;
    const char *name;
    struct asm_blob signature;
    uint32_t owner; /* TypeDef row, 0 if none */
};
int asm_field_get(const struct asm_assembly *assembly, uint32_t row, struct asm_field *out,
                  struct asm_diag *diag);

struct asm_typeref {
    uint32_t resolution_scope; /* Module, ModuleRef, AssemblyRef or TypeRef token, or 0 */
    const char *name;
    const char *namespace_;
};
int asm_typeref_get(const struct asm_assembly *assembly, uint32_t row, struct asm_typeref *out,
                    struct asm_diag *diag);

struct asm_memberref {
    uint32_t parent; /* TypeDef, TypeRef, ModuleRef, MethodDef or TypeSpec token */
    const char *name;
    struct asm_blob signature;
};
int asm_memberref_get(const struct asm_assembly *assembly, uint32_t row, struct asm_memberref *out,
                      struct asm_diag *diag);

struct asm_methodspec {
    uint32_t method; /* MethodDef or MemberRef token */
    struct asm_blob instantiation;
};
int asm_methodspec_get(const struct asm_assembly *assembly, uint32_t row,
                       struct asm_methodspec *out, struct asm_diag *diag);

int asm_standalonesig_get(const struct asm_assembly *assembly, uint32_t row,
                          struct asm_blob *signature, struct asm_diag *diag);
int asm_typespec_get(const struct asm_assembly *assembly, uint32_t row, struct asm_blob *signature,
                     struct asm_diag *diag);

/* A method body (ECMA-335 II.25.4): start/len cover the whole of it exactly, from the
 * header through the code, the padding and every extra data section (EH tables). */
struct asm_body {
    const uint8_t *start;
    size_t len;
    size_t file_offset; /* of start; 0 for asm_body_parse() */
    bool fat;
    uint16_t flags; /* header flags (low 12 bits of a fat header; 0x2 for tiny) */
    bool init_locals;
    uint16_t max_stack; /* 8 for a tiny header */
    uint32_t code_size;
    const uint8_t *code;
    uint32_t local_sig_token; /* 0 if none */
    const uint8_t *sections;  /* first extra data section, NULL if none */
    size_t sections_len;      /* from sections to the end of the body */
    uint32_t section_count;
};

/* Parses the body at the start of bytes[0..avail). -EILSEQ (offset relative to bytes) if
 * the header is not tiny or fat, or the code or a section runs past avail. */
int asm_body_parse(const uint8_t *bytes, size_t avail, struct asm_body *out, struct asm_diag *diag);

/* The body of MethodDef row: -ENOENT if it has none: RVA 0 (abstract, runtime, extern) or
 * code type native (ImplFlags & 3 == 1: the RVA points at machine code, not IL). */
int asm_method_body(const struct asm_assembly *assembly, uint32_t method_row, struct asm_body *out,
                    struct asm_diag *diag);

/* The method signature a call-site token refers to: MethodDef, MemberRef (that is not a
 * field), MethodSpec (its generic method's signature) or StandAloneSig (calli), parsed by
 * libilgraph (clrie_il_sig_parse_method). */
int asm_token_method_sig(const struct asm_assembly *assembly, uint32_t token,
                         struct clrie_il_method_sig *out, struct asm_diag *diag);

/* A display name for a token, written NUL-terminated to buf[0..size):
 *   TypeDef          Namespace.Outer/Inner
 *   TypeRef          Namespace.Name (nested: Outer/Inner)
 *   TypeSpec         the generic type it instantiates, else "[typespec]"
 *   MethodDef, Field Namespace.Type::Name
 *   MemberRef        Parent::Name, the parent named as above
 *   MethodSpec       the name of its method
 * -ERANGE if the name was cut to fit (buf still holds a NUL-terminated prefix), -ENOENT for
 * a token whose row does not exist, -EINVAL for a token of another kind. Whatever it
 * returns, buf holds a NUL-terminated string (a partial name on failure). */
int asm_token_name(const struct asm_assembly *assembly, uint32_t token, char *buf, size_t size,
                   struct asm_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
