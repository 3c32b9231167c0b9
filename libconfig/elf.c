/* The ELF check of a module before dlopen: a complete shared object of this machine. A file
 * cut short during an upgrade would otherwise make dlopen's mappings fault with SIGBUS. The
 * headers are read as bytes (little-endian, 64-bit), so the check builds and is fuzzed on
 * every system. */
#include "config_private.h"
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#define NATIVE_MACHINE 62 /* EM_X86_64 */
#define NATIVE_MACHINE_NAME "x86-64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define NATIVE_MACHINE 183 /* EM_AARCH64 */
#define NATIVE_MACHINE_NAME "AArch64"
#elif defined(__i386__) || defined(_M_IX86)
#define NATIVE_MACHINE 3 /* EM_386: only ever refused there, as not 64-bit */
#define NATIVE_MACHINE_NAME "x86"
#else
#error "clrie knows the machines x86_64, aarch64 and x86 only"
#endif

/* The parts of the ELF-64 headers read here (offsets into Elf64_Ehdr and Elf64_Phdr). */
enum {
    EHDR_SIZE = 64,
    EI_CLASS = 4,
    EI_DATA = 5,
    EI_VERSION = 6,
    E_TYPE = 16,
    E_MACHINE = 18,
    E_VERSION = 20,
    E_PHOFF = 32,
    E_SHOFF = 40,
    E_PHENTSIZE = 54,
    E_PHNUM = 56,
    E_SHENTSIZE = 58,
    E_SHNUM = 60,
    PHDR_SIZE = 56,
    P_TYPE = 0,
    P_OFFSET = 8,
    P_FILESZ = 32,
    SHDR_SIZE = 64,
    ELFCLASS64 = 2,
    ELFDATA2LSB = 1,
    EV_CURRENT = 1,
    ET_DYN = 3,
    PT_LOAD = 1,
};

/* More program headers than any real shared object has; a header claiming more is refused
 * before a table that large is read. */
#define MAX_PROGRAM_HEADERS 4096

static int refuse(char *why, size_t why_len, const char *what, uint64_t size)
{
    clrie_config__why(why, why_len,
                      "not a complete ELF shared object for this machine: %s "
                      "(the file has %llu bytes)",
                      what, (unsigned long long)size);
    return -ENOEXEC;
}

static int check_header(const unsigned char *h, uint64_t size, char *why, size_t why_len)
{
    char what[200];
    if (memcmp(h, "\177ELF", 4) != 0)
        return refuse(why, why_len, "no ELF magic number", size);
    if (h[EI_CLASS] != ELFCLASS64)
        return refuse(why, why_len, "not a 64-bit ELF file", size);
    if (h[EI_DATA] != ELFDATA2LSB)
        return refuse(why, why_len, "not little-endian", size);
    if (h[EI_VERSION] != EV_CURRENT || clrie_config__le32(h + E_VERSION) != EV_CURRENT)
        return refuse(why, why_len, "an unknown ELF version", size);
    unsigned machine = clrie_config__le16(h + E_MACHINE);
    if (machine != NATIVE_MACHINE) {
        snprintf(what, sizeof(what), "built for ELF machine %u, not " NATIVE_MACHINE_NAME, machine);
        return refuse(why, why_len, what, size);
    }
    unsigned type = clrie_config__le16(h + E_TYPE);
    if (type != ET_DYN) {
        snprintf(what, sizeof(what), "ELF type %u, not a shared object (ET_DYN)", type);
        return refuse(why, why_len, what, size);
    }
    uint64_t phoff = clrie_config__le64(h + E_PHOFF), shoff = clrie_config__le64(h + E_SHOFF);
    unsigned phnum = clrie_config__le16(h + E_PHNUM);
    if (phnum == 0 || clrie_config__le16(h + E_PHENTSIZE) != PHDR_SIZE)
        return refuse(why, why_len, "no program headers of the expected size", size);
    if (phnum > MAX_PROGRAM_HEADERS)
        return refuse(why, why_len, "implausibly many program headers", size);
    if (!clrie_config__table_fits(phoff, phnum, PHDR_SIZE, size))
        return refuse(why, why_len, "the program headers lie past the end of the file", size);
    if (shoff != 0) {
        /* With e_shnum 0 the count is in the first section header: that one must be there. */
        unsigned shnum = clrie_config__le16(h + E_SHNUM);
        uint64_t count = shnum ? shnum : 1;
        if (clrie_config__le16(h + E_SHENTSIZE) != SHDR_SIZE)
            return refuse(why, why_len, "section headers of an unexpected size", size);
        if (!clrie_config__table_fits(shoff, count, SHDR_SIZE, size))
            return refuse(why, why_len, "cut short: the section headers lie past the end", size);
    }
    return 0;
}

static int read_error(int r, const struct image *img, char *why, size_t why_len)
{
    if (r == -ENOEXEC) /* only a file that shrank while it was read */
        return refuse(why, why_len, "cut short while it was read", img->size);
    char buf[128];
    clrie_config__why(why, why_len, "cannot read the file: %s",
                      clrie_os_strerror(-r, buf, sizeof(buf)));
    return r;
}

static int check_elf(const struct image *img, char *why, size_t why_len)
{
    unsigned char h[EHDR_SIZE];
    int r = clrie_config__image_read(img, 0, h, sizeof(h));
    if (r == -ENOEXEC)
        return refuse(why, why_len, "shorter than an ELF header", img->size);
    if (r != 0)
        return read_error(r, img, why, why_len);
    if ((r = check_header(h, img->size, why, why_len)) != 0)
        return r;
    uint64_t phoff = clrie_config__le64(h + E_PHOFF);
    unsigned phnum = clrie_config__le16(h + E_PHNUM), loads = 0;
    for (unsigned i = 0; i < phnum; i++) {
        unsigned char ph[PHDR_SIZE];
        if ((r = clrie_config__image_read(img, phoff + (uint64_t)i * PHDR_SIZE, ph, sizeof(ph))))
            return read_error(r, img, why, why_len);
        if (clrie_config__le32(ph + P_TYPE) != PT_LOAD)
            continue;
        loads++;
        uint64_t offset = clrie_config__le64(ph + P_OFFSET);
        uint64_t filesz = clrie_config__le64(ph + P_FILESZ);
        if (!clrie_config__table_fits(offset, 1, filesz, img->size)) {
            char what[200];
            snprintf(what, sizeof(what), "cut short: loadable segment %u needs bytes up to %llu", i,
                     (unsigned long long)(offset + filesz));
            return refuse(why, why_len, what, img->size);
        }
    }
    if (loads == 0)
        return refuse(why, why_len, "no loadable segment", img->size);
    return 0;
}

const struct image_format clrie_config__elf_format = {"ELF shared object", check_elf};

int clrie_config_elf_check_memory(const void *data, size_t size, char *why, size_t why_len)
{
    if (!data && size > 0)
        return -EINVAL;
    static const unsigned char empty[1];
    struct image img = {.data = data ? data : empty, .size = size};
    return check_elf(&img, why, why_len);
}
