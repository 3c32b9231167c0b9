/* The verifier's questions about a module, answered from the runtime's metadata (see
 * verify_metadata.h). Nothing here prints: a question that cannot be answered is an unknown
 * (the verifier then checks less), never a fault of the method. */
#include <errno.h>
#include <string.h>

#include "verify_metadata.h"

#define TABLE_OF(token) ((token) >> 24)
#define ROW_OF(token) ((token)&0xFFFFFFu)
#define USER_STRING 0x70u
#define MAX_TABLE 0x2Cu /* GenericParamConstraint, the last table of ECMA-335 II.22 */

static bool token_exists(void *ctx, uint32_t token)
{
    struct verify_metadata *vm = ctx;
    uint32_t table = TABLE_OF(token), row = ROW_OF(token);
    if (vm->tables && table == USER_STRING) {
        /* An offset inside a string is no string: the runtime would read a length from the
         * middle of one. When the heap cannot be walked the answer is yes (unknown). */
        int starts = clrie_pm_user_strings_starts(vm->user_strings, vm->tables, row);
        if (starts >= 0)
            return starts == 1;
        if (starts != -ENOENT)
            return true;
    } else if (vm->tables && table <= MAX_TABLE) {
        ULONG rows = 0;
        if (SUCCEEDED(
                vm->tables->lpVtbl->GetTableInfo(vm->tables, table, NULL, &rows, NULL, NULL, NULL)))
            return row >= 1 && row <= rows;
    }
    return vm->import->lpVtbl->IsValidToken(vm->import, token) != FALSE;
}

static int signature(void *ctx, uint32_t token, const uint8_t **sig, size_t *len)
{
    struct verify_metadata *vm = ctx;
    IMetaDataImport2 *md = vm->import;
    PCCOR_SIGNATURE blob = NULL;
    ULONG blob_len = 0;
    HRESULT hr;
    switch (token & 0xFF000000u) {
    case mdtMethodDef:
        hr = md->lpVtbl->GetMethodProps(md, token, NULL, NULL, 0, NULL, NULL, &blob, &blob_len,
                                        NULL, NULL);
        break;
    case mdtMemberRef:
        hr = md->lpVtbl->GetMemberRefProps(md, token, NULL, NULL, 0, NULL, &blob, &blob_len);
        break;
    case mdtFieldDef:
        hr = md->lpVtbl->GetFieldProps(md, token, NULL, NULL, 0, NULL, NULL, &blob, &blob_len, NULL,
                                       NULL, NULL);
        break;
    case mdtMethodSpec: {
        mdToken parent = 0;
        hr = md->lpVtbl->GetMethodSpecProps(md, token, &parent, NULL, NULL);
        if (FAILED(hr) || (parent & 0xFF000000u) == mdtMethodSpec)
            return -ENOENT;
        return signature(ctx, parent, sig, len);
    }
    case mdtSignature:
        hr = md->lpVtbl->GetSigFromToken(md, token, &blob, &blob_len);
        break;
    default:
        return -EINVAL;
    }
    if (FAILED(hr) || !blob)
        return -ENOENT;
    *sig = blob;
    *len = blob_len;
    return 0;
}

#define FD_STATIC 0x10u

static int field_flags(IMetaDataImport2 *md, mdFieldDef fd, DWORD *flags)
{
    HRESULT hr =
        md->lpVtbl->GetFieldProps(md, fd, NULL, NULL, 0, NULL, flags, NULL, NULL, NULL, NULL, NULL);
    return SUCCEEDED(hr) ? 0 : -ENOENT;
}

/* Whether the field a FieldDef, or a MemberRef whose parent is a TypeDef of this module,
 * names is static; a MemberRef into another module is not looked up. */
static int read_field_is_static(void *ctx, uint32_t token)
{
    struct verify_metadata *vm = ctx;
    IMetaDataImport2 *md = vm->import;
    DWORD flags = 0;
    mdFieldDef fd = token;
    if ((token & 0xFF000000u) == mdtMemberRef) {
        mdToken parent = 0;
        WCHAR name[512];
        ULONG name_len = 0, sig_len = 0;
        PCCOR_SIGNATURE sig = NULL;
        HRESULT hr =
            md->lpVtbl->GetMemberRefProps(md, token, &parent, name, 512, &name_len, &sig, &sig_len);
        if (FAILED(hr) || name_len == 0 || name_len > 512 || (parent & 0xFF000000u) != mdtTypeDef)
            return -ENOENT;
        if (FAILED(md->lpVtbl->FindField(md, parent, name, sig, sig_len, &fd)))
            return -ENOENT;
    } else if ((token & 0xFF000000u) != mdtFieldDef) {
        return -EINVAL;
    }
    if (field_flags(md, fd, &flags) < 0)
        return -ENOENT;
    return (flags & FD_STATIC) != 0;
}

/* The name of a TypeDef or TypeRef ("System.Int32") in ASCII; a TypeRef's only when its
 * resolution scope is an assembly (not a type it is nested in). 0 or a negative errno. */
static int type_name(IMetaDataImport2 *md, mdToken type, char *out, size_t cap, mdToken *extends)
{
    WCHAR name[256];
    ULONG len = 0;
    HRESULT hr;
    *extends = 0;
    if ((type & 0xFF000000u) == mdtTypeDef) {
        DWORD flags = 0;
        hr = md->lpVtbl->GetTypeDefProps(md, type, name, 256, &len, &flags, extends);
    } else if ((type & 0xFF000000u) == mdtTypeRef) {
        mdToken scope = 0;
        hr = md->lpVtbl->GetTypeRefProps(md, type, &scope, name, 256, &len);
        if (SUCCEEDED(hr) && (scope & 0xFF000000u) != mdtAssemblyRef)
            return -ENOENT;
    } else {
        return -EINVAL;
    }
    if (FAILED(hr) || len == 0 || len > 256 || len > cap)
        return -ENOENT;
    for (ULONG i = 0; i < len; i++)
        out[i] = name[i] && name[i] < 0x80 ? (char)name[i] : (name[i] ? '?' : 0);
    out[len - 1] = 0;
    return 0;
}

/* The value types of the core library whose category is fixed, by name. */
static const struct {
    const char *name;
    int element_type;
} known_value_types[] = {
    {"System.Boolean", CLRIE_IL_ELEMENT_TYPE_BOOLEAN},
    {"System.Char", CLRIE_IL_ELEMENT_TYPE_CHAR},
    {"System.SByte", CLRIE_IL_ELEMENT_TYPE_I1},
    {"System.Byte", CLRIE_IL_ELEMENT_TYPE_U1},
    {"System.Int16", CLRIE_IL_ELEMENT_TYPE_I2},
    {"System.UInt16", CLRIE_IL_ELEMENT_TYPE_U2},
    {"System.Int32", CLRIE_IL_ELEMENT_TYPE_I4},
    {"System.UInt32", CLRIE_IL_ELEMENT_TYPE_U4},
    {"System.Int64", CLRIE_IL_ELEMENT_TYPE_I8},
    {"System.UInt64", CLRIE_IL_ELEMENT_TYPE_U8},
    {"System.Single", CLRIE_IL_ELEMENT_TYPE_R4},
    {"System.Double", CLRIE_IL_ELEMENT_TYPE_R8},
    {"System.IntPtr", CLRIE_IL_ELEMENT_TYPE_I},
    {"System.UIntPtr", CLRIE_IL_ELEMENT_TYPE_U},
    {"System.Decimal", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.Guid", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.DateTime", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.TimeSpan", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.RuntimeMethodHandle", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.RuntimeTypeHandle", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.RuntimeFieldHandle", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
    {"System.Nullable`1", CLRIE_IL_ELEMENT_TYPE_VALUETYPE},
};

/* What a valuetype is on the stack: a known System type by name; a TypeDef of this module
 * that extends System.Enum the type of its field value__, one that extends System.ValueType
 * a struct. Everything else (a TypeRef to another assembly's type) is unknown. */
static int read_value_type(void *ctx, uint32_t token)
{
    struct verify_metadata *vm = ctx;
    IMetaDataImport2 *md = vm->import;
    char name[256], base[256];
    mdToken extends = 0, unused = 0;
    if (type_name(md, token, name, sizeof(name), &extends) < 0)
        return -ENOENT;
    for (size_t i = 0; i < sizeof(known_value_types) / sizeof(known_value_types[0]); i++)
        if (strcmp(name, known_value_types[i].name) == 0)
            return known_value_types[i].element_type;
    if ((token & 0xFF000000u) != mdtTypeDef || type_name(md, extends, base, sizeof(base), &unused))
        return -ENOENT;
    if (strcmp(base, "System.ValueType") == 0)
        return CLRIE_IL_ELEMENT_TYPE_VALUETYPE;
    if (strcmp(base, "System.Enum") != 0)
        return -ENOENT;
    static const WCHAR value_field[] = u"value__";
    mdFieldDef fd = 0;
    DWORD flags = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    if (FAILED(md->lpVtbl->FindField(md, token, value_field, NULL, 0, &fd)) ||
        FAILED(md->lpVtbl->GetFieldProps(md, fd, NULL, NULL, 0, NULL, &flags, &sig, &sig_len, NULL,
                                         NULL, NULL)) ||
        (flags & FD_STATIC) || !sig || sig_len != 2 || sig[0] != 0x06)
        return -ENOENT;
    if ((sig[1] >= CLRIE_IL_ELEMENT_TYPE_BOOLEAN && sig[1] <= CLRIE_IL_ELEMENT_TYPE_U8) ||
        sig[1] == CLRIE_IL_ELEMENT_TYPE_I || sig[1] == CLRIE_IL_ELEMENT_TYPE_U)
        return sig[1];
    return -ENOENT;
}

/* The answer to question about token: the one the module keeps, else read() and kept. */
static int kept_or_read(struct verify_metadata *vm, enum clrie_pm_token_question question,
                        uint32_t token, int (*read)(void *ctx, uint32_t token))
{
    int answer;
    if (clrie_pm_token_answers_get(vm->answers, question, token, &answer))
        return answer;
    answer = read(vm, token);
    if (answer != -EINVAL && answer != -ENOMEM) /* not a question about this token's kind */
        clrie_pm_token_answers_put(vm->answers, question, token, answer);
    return answer;
}

static int value_type(void *ctx, uint32_t token)
{
    return kept_or_read(ctx, CLRIE_PM_ASK_VALUE_TYPE, token, read_value_type);
}

static int field_is_static(void *ctx, uint32_t token)
{
    return kept_or_read(ctx, CLRIE_PM_ASK_FIELD_STATIC, token, read_field_is_static);
}

/* The TypeSpec blob of a MemberRef's parent when that parent is a TypeSpec; NULL otherwise. */
static void member_ref_type_spec(IMetaDataImport2 *md, mdToken token, const uint8_t **blob,
                                 size_t *len)
{
    mdToken parent = 0;
    PCCOR_SIGNATURE spec = NULL;
    ULONG spec_len = 0;
    if ((token & 0xFF000000u) != mdtMemberRef ||
        FAILED(md->lpVtbl->GetMemberRefProps(md, token, &parent, NULL, 0, NULL, NULL, NULL)) ||
        (parent & 0xFF000000u) != mdtTypeSpec ||
        FAILED(md->lpVtbl->GetTypeSpecFromToken(md, parent, &spec, &spec_len)) || !spec)
        return;
    *blob = spec;
    *len = spec_len;
}

/* What a MemberRef's TypeSpec parent and a MethodSpec's instantiation make of the callee's
 * generic parameters. */
static int generic_args(void *ctx, uint32_t token, const uint8_t **type_spec, size_t *type_spec_len,
                        const uint8_t **method_inst, size_t *method_inst_len)
{
    struct verify_metadata *vm = ctx;
    IMetaDataImport2 *md = vm->import;
    *type_spec = *method_inst = NULL;
    *type_spec_len = *method_inst_len = 0;
    switch (token & 0xFF000000u) {
    case mdtMemberRef:
        member_ref_type_spec(md, token, type_spec, type_spec_len);
        return 0;
    case mdtMethodSpec: {
        mdToken method = 0;
        PCCOR_SIGNATURE inst = NULL;
        ULONG inst_len = 0;
        if (FAILED(md->lpVtbl->GetMethodSpecProps(md, token, &method, &inst, &inst_len)))
            return -ENOENT;
        if (inst) {
            *method_inst = inst;
            *method_inst_len = inst_len;
        }
        member_ref_type_spec(md, method, type_spec, type_spec_len);
        return 0;
    }
    default:
        return -EINVAL;
    }
}

void clrie_pm_verify_metadata_init(struct verify_metadata *vm, IMetaDataImport2 *import,
                                   struct clrie_pm_user_strings *user_strings,
                                   struct clrie_pm_token_answers *answers)
{
    vm->import = import;
    vm->answers = answers;
    vm->own_user_strings = !user_strings;
    if (!user_strings) {
        clrie_pm_user_strings_init(&vm->user_strings_of_vm);
        user_strings = &vm->user_strings_of_vm;
    }
    vm->user_strings = user_strings;
    vm->tables = NULL;
    if (FAILED(import->lpVtbl->QueryInterface(import, &IID_IMetaDataTables, (void **)&vm->tables)))
        vm->tables = NULL;
    vm->callbacks = (struct clrie_il_metadata){
        .ctx = vm,
        .token_exists = token_exists,
        .signature = signature,
        .field_is_static = field_is_static,
        .value_type = value_type,
        .generic_args = generic_args,
    };
}

void clrie_pm_verify_metadata_finish(struct verify_metadata *vm)
{
    if (!vm)
        return;
    if (vm->tables)
        vm->tables->lpVtbl->Release(vm->tables);
    vm->tables = NULL;
    if (vm->own_user_strings)
        clrie_pm_user_strings_finish(&vm->user_strings_of_vm);
    vm->own_user_strings = false;
}
