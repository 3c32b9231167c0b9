/* A module's StandAloneSig tokens by signature blob (types.h), so that committing a method's new
 * locals asks the runtime for a token only for a signature the module has never had.
 *
 * Why. IMetaDataEmit::GetTokenFromSig looks for a duplicate by comparing the blob with every row
 * of the module's StandAloneSig table, one after the other, before it adds a row, so each call
 * costs time in proportion to the rows the module already has. Asked for every instrumented
 * method, even for a signature the module already had, it made instrumenting a module
 * quadratic. Here a hash table answers for the rows the
 * module had when first asked (read once, through IMetaDataImport) and for every signature
 * committed since; only a signature new to the module still reaches the runtime (whose scan then
 * cannot be avoided: no public interface turns it off).
 *
 * Threads. `lock` protects the table. It is held while the module's rows are read on first use
 * (metadata reads, which never call back into the engine, so no lock order can form a cycle), and
 * never while calling GetTokenFromSig: two threads may both ask the runtime for the same new
 * signature, and its own duplicate check gives them the same token. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/thread.h"
#include "types.h"

struct sig_entry {
    uint64_t hash;
    mdSignature token;
    uint32_t len;
    uint8_t *bytes; /* malloc'd copy; NULL marks an empty slot */
};

struct clrie_pm_types_sig_tokens {
    IMetaDataImport *import;    /* borrowed: the module's, which outlives the map */
    IMetaDataEmit *emit;        /* borrowed, the same */
    struct clrie_os_mutex lock; /* protects everything below */
    bool rows_read;             /* the module's own rows are in the table */
    struct sig_entry *slots;
    size_t count;
    size_t capacity; /* 0 or a power of two; at most half full */
};

/* FNV-1a, 64 bits. */
static uint64_t blob_hash(const uint8_t *bytes, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++) {
        h ^= bytes[i];
        h *= 0x100000001b3u;
    }
    return h;
}

static struct sig_entry *find_slot(struct sig_entry *slots, size_t capacity, uint64_t hash,
                                   const uint8_t *bytes, size_t len)
{
    size_t mask = capacity - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        struct sig_entry *e = &slots[i];
        if (!e->bytes || (e->hash == hash && e->len == len && memcmp(e->bytes, bytes, len) == 0))
            return e;
    }
}

static int grow(struct clrie_pm_types_sig_tokens *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 64;
    struct sig_entry *slots = calloc(capacity, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < t->capacity; i++) {
        struct sig_entry *e = &t->slots[i];
        if (e->bytes)
            *find_slot(slots, capacity, e->hash, e->bytes, e->len) = *e;
    }
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

/* The token of the blob, or 0 when the table has none. Call with the lock. */
static mdSignature lookup_locked(struct clrie_pm_types_sig_tokens *t, uint64_t hash,
                                 const uint8_t *bytes, size_t len)
{
    if (!t->capacity)
        return 0;
    struct sig_entry *e = find_slot(t->slots, t->capacity, hash, bytes, len);
    return e->bytes ? e->token : 0;
}

/* Remembers blob -> token unless the blob is known (the first token stays: the runtime's own
 * rows come first, and a duplicate it made would name the same blob). Call with the lock. */
static int insert_locked(struct clrie_pm_types_sig_tokens *t, uint64_t hash, const uint8_t *bytes,
                         size_t len, mdSignature token)
{
    if ((t->count + 1) * 2 > t->capacity && grow(t) < 0)
        return -ENOMEM;
    struct sig_entry *e = find_slot(t->slots, t->capacity, hash, bytes, len);
    if (e->bytes)
        return 0;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, bytes, len);
    *e = (struct sig_entry){.hash = hash, .token = token, .len = (uint32_t)len, .bytes = copy};
    t->count++;
    return 0;
}

/* Puts the module's StandAloneSig rows in the table (once). A row that cannot be read is left
 * out: the runtime then answers for it. Call with the lock. */
static void read_rows_locked(struct clrie_pm_types_sig_tokens *t)
{
    t->rows_read = true;
    if (!t->import)
        return;
    HCORENUM cursor = NULL;
    mdSignature batch[256];
    ULONG got = 0;
    while (SUCCEEDED(t->import->lpVtbl->EnumSignatures(t->import, &cursor, batch, 256, &got)) &&
           got > 0) {
        for (ULONG i = 0; i < got; i++) {
            PCCOR_SIGNATURE blob = NULL;
            ULONG len = 0;
            if (SUCCEEDED(t->import->lpVtbl->GetSigFromToken(t->import, batch[i], &blob, &len)) &&
                blob && len && insert_locked(t, blob_hash(blob, len), blob, len, batch[i]) < 0)
                goto out;
        }
        got = 0;
    }
out:
    if (cursor)
        t->import->lpVtbl->CloseEnum(t->import, cursor);
}

HRESULT clrie_pm_types_sig_tokens_new(IMetaDataImport *import, IMetaDataEmit *emit,
                                      struct clrie_pm_types_sig_tokens **out)
{
    if (!emit || !out)
        return E_POINTER;
    struct clrie_pm_types_sig_tokens *t = calloc(1, sizeof(*t));
    if (!t)
        return E_OUTOFMEMORY;
    t->import = import;
    t->emit = emit;
    clrie_os_mutex_init(&t->lock);
    *out = t;
    return S_OK;
}

void clrie_pm_types_sig_tokens_free(struct clrie_pm_types_sig_tokens *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->capacity; i++)
        free(t->slots[i].bytes);
    free(t->slots);
    clrie_os_mutex_finish(&t->lock);
    free(t);
}

HRESULT clrie_pm_types_sig_tokens_get(struct clrie_pm_types_sig_tokens *t, const uint8_t *sig,
                                      size_t len, mdSignature *token)
{
    if (!t || !sig || !token)
        return E_POINTER;
    if (len == 0 || len > UINT32_MAX)
        return E_INVALIDARG;
    uint64_t hash = blob_hash(sig, len);
    clrie_os_mutex_lock(&t->lock);
    if (!t->rows_read)
        read_rows_locked(t);
    mdSignature known = lookup_locked(t, hash, sig, len);
    clrie_os_mutex_unlock(&t->lock);
    if (known) {
        *token = known;
        return S_OK;
    }

    mdSignature made = 0;
    HRESULT hr = t->emit->lpVtbl->GetTokenFromSig(t->emit, sig, (ULONG)len, &made);
    if (FAILED(hr))
        return hr;
    clrie_os_mutex_lock(&t->lock);
    insert_locked(t, hash, sig, len, made); /* out of memory: only the next ask costs more */
    clrie_os_mutex_unlock(&t->lock);
    *token = made;
    return S_OK;
}
