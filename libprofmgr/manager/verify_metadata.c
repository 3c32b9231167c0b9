/* The verifier's questions about a module, answered from the runtime's metadata (see
 * verify_metadata.h). Nothing here prints: a question that cannot be answered is an unknown
 * (the verifier then checks less), never a fault of the method. */
#include <errno.h>

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
        ULONG size = 0;
        if (SUCCEEDED(vm->tables->lpVtbl->GetUserStringHeapSize(vm->tables, &size)))
            return row < size;
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

void clrie_pm_verify_metadata_init(struct verify_metadata *vm, IMetaDataImport2 *import)
{
    vm->import = import;
    vm->tables = NULL;
    if (FAILED(import->lpVtbl->QueryInterface(import, &IID_IMetaDataTables, (void **)&vm->tables)))
        vm->tables = NULL;
    vm->callbacks = (struct clrie_il_metadata){vm, token_exists, signature};
}

void clrie_pm_verify_metadata_finish(struct verify_metadata *vm)
{
    if (vm && vm->tables)
        vm->tables->lpVtbl->Release(vm->tables);
    if (vm)
        vm->tables = NULL;
}
