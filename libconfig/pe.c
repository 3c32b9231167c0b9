/* The PE check of a module before LoadLibrary: a complete DLL of this machine. A DLL of the
 * other bitness or cut short during an upgrade fails to load with a code that names neither
 * (ERROR_BAD_EXE_FORMAT, or a fault on first touch of a missing page); this check says which.
 * The headers are read as bytes, so it builds and is fuzzed on every system. */
#include "config_private.h"
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#define NATIVE_MACHINE 0x8664u
#define NATIVE_MAGIC 0x20bu /* PE32+ */
#define NATIVE_MACHINE_NAME "x64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define NATIVE_MACHINE 0xaa64u
#define NATIVE_MAGIC 0x20bu
#define NATIVE_MACHINE_NAME "ARM64"
#elif defined(__i386__) || defined(_M_IX86)
#define NATIVE_MACHINE 0x14cu
#define NATIVE_MAGIC 0x10bu /* PE32 */
#define NATIVE_MACHINE_NAME "x86"
#else
#error "clrie knows the machines x86_64, aarch64 and x86 only"
#endif

/* The parts of the PE headers read here (offsets into the MS-DOS stub, the COFF file header
 * after the "PE\0\0" signature, the optional header and a section header). */
enum {
    DOS_SIZE = 64,
    DOS_LFANEW = 0x3c,
    COFF_SIZE = 24, /* with the signature */
    COFF_MACHINE = 4,
    COFF_SECTIONS = 6,
    COFF_OPTIONAL_SIZE = 20,
    COFF_CHARACTERISTICS = 22,
    OPT_READ = 64, /* enough of the optional header for the fields below */
    OPT_MAGIC = 0,
    OPT_SIZE_OF_HEADERS = 60,
    SECTION_SIZE = 40,
    SECTION_RAW_SIZE = 16,
    SECTION_RAW_POINTER = 20,
    FILE_EXECUTABLE_IMAGE = 0x0002,
    FILE_DLL = 0x2000,
    MAX_SECTIONS = 96, /* the loader's limit */
};

static const char *machine_name(unsigned machine)
{
    switch (machine) {
    case 0x8664:
        return "x64";
    case 0x14c:
        return "x86";
    case 0xaa64:
        return "ARM64";
    case 0x1c4:
        return "ARM";
    default:
        return "unknown";
    }
}

static int refuse(char *why, size_t why_len, const char *what, uint64_t size)
{
    clrie_config__why(why, why_len,
                      "not a complete DLL for this machine: %s (the file has %llu bytes)", what,
                      (unsigned long long)size);
    return -ENOEXEC;
}

static int read_error(int r, const struct image *img, char *why, size_t why_len)
{
    if (r == -ENOEXEC)
        return refuse(why, why_len, "cut short: its headers lie past the end", img->size);
    char buf[128];
    clrie_config__why(why, why_len, "cannot read the file: %s",
                      clrie_os_strerror(-r, buf, sizeof(buf)));
    return r;
}

static int check_pe(const struct image *img, char *why, size_t why_len)
{
    char what[200];
    unsigned char dos[DOS_SIZE], coff[COFF_SIZE], opt[OPT_READ];
    int r = clrie_config__image_read(img, 0, dos, sizeof(dos));
    if (r == -ENOEXEC || (r == 0 && memcmp(dos, "MZ", 2) != 0))
        return refuse(why, why_len, "no MZ header", img->size);
    if (r != 0)
        return read_error(r, img, why, why_len);
    uint64_t at = clrie_config__le32(dos + DOS_LFANEW);
    if ((r = clrie_config__image_read(img, at, coff, sizeof(coff))) != 0)
        return read_error(r, img, why, why_len);
    if (memcmp(coff, "PE\0\0", 4) != 0)
        return refuse(why, why_len, "no PE signature", img->size);
    unsigned machine = clrie_config__le16(coff + COFF_MACHINE);
    if (machine != NATIVE_MACHINE) {
        snprintf(what, sizeof(what), "built for machine 0x%x (%s), not " NATIVE_MACHINE_NAME,
                 machine, machine_name(machine));
        return refuse(why, why_len, what, img->size);
    }
    unsigned characteristics = clrie_config__le16(coff + COFF_CHARACTERISTICS);
    if ((characteristics & (FILE_DLL | FILE_EXECUTABLE_IMAGE)) !=
        (FILE_DLL | FILE_EXECUTABLE_IMAGE))
        return refuse(why, why_len, "an image that is not a DLL", img->size);
    unsigned optional_size = clrie_config__le16(coff + COFF_OPTIONAL_SIZE);
    if (optional_size < OPT_READ)
        return refuse(why, why_len, "an optional header too small for a DLL", img->size);
    if ((r = clrie_config__image_read(img, at + COFF_SIZE, opt, sizeof(opt))) != 0)
        return read_error(r, img, why, why_len);
    unsigned magic = clrie_config__le16(opt + OPT_MAGIC);
    if (magic != NATIVE_MAGIC) {
        snprintf(what, sizeof(what), "optional header magic 0x%x, not 0x%x", magic,
                 (unsigned)NATIVE_MAGIC);
        return refuse(why, why_len, what, img->size);
    }
    if (clrie_config__le32(opt + OPT_SIZE_OF_HEADERS) > img->size)
        return refuse(why, why_len, "cut short: its headers lie past the end", img->size);
    unsigned sections = clrie_config__le16(coff + COFF_SECTIONS);
    if (sections == 0 || sections > MAX_SECTIONS)
        return refuse(why, why_len, "no sections, or more than the loader takes", img->size);
    uint64_t table = at + COFF_SIZE + optional_size;
    if (!clrie_config__table_fits(table, sections, SECTION_SIZE, img->size))
        return refuse(why, why_len, "cut short: the section table lies past the end", img->size);
    for (unsigned i = 0; i < sections; i++) {
        unsigned char sh[SECTION_SIZE];
        if ((r = clrie_config__image_read(img, table + (uint64_t)i * SECTION_SIZE, sh,
                                          sizeof(sh))) != 0)
            return read_error(r, img, why, why_len);
        uint64_t raw = clrie_config__le32(sh + SECTION_RAW_POINTER);
        uint64_t raw_size = clrie_config__le32(sh + SECTION_RAW_SIZE);
        if (raw_size != 0 && !clrie_config__table_fits(raw, 1, raw_size, img->size)) {
            snprintf(what, sizeof(what), "cut short: section %u needs bytes up to %llu", i,
                     (unsigned long long)(raw + raw_size));
            return refuse(why, why_len, what, img->size);
        }
    }
    return 0;
}

const struct image_format clrie_config__pe_format = {"DLL", check_pe};

int clrie_config_pe_check_memory(const void *data, size_t size, char *why, size_t why_len)
{
    if (!data && size > 0)
        return -EINVAL;
    static const unsigned char empty[1];
    struct image img = {.data = data ? data : empty, .size = size};
    return check_pe(&img, why, why_len);
}
