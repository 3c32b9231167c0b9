/* libFuzzer target: the image checks of a module before it is loaded, ELF
 * (clrie_config_elf_check_memory) and PE (clrie_config_pe_check_memory), on the same bytes.
 * Neither may read outside the data, whatever the headers claim. Seeds:
 * libconfig/tests/elf-corpus, malformed files every one of which must be refused. */
#include <stddef.h>
#include <stdint.h>

#include "clrie/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[CLRIE_CONFIG_REASON_SIZE];
    clrie_config_elf_check_memory(data, size, why, sizeof(why));
    clrie_config_pe_check_memory(data, size, why, sizeof(why));
    return 0;
}
