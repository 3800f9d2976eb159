#include "agents/crossisa/elf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace tidepool::agent::crossisa {

namespace {

constexpr std::size_t kIdentBytes = 16;
constexpr std::size_t kElf32HeaderBytes = 52;
constexpr std::size_t kElf64HeaderBytes = 64;
constexpr std::size_t kElf32PhdrBytes = 32;
constexpr std::size_t kElf64PhdrBytes = 56;
constexpr std::uint32_t kPtInterp = 3;
constexpr std::uint16_t kPnXnum = 0xffff; // e_phnum escape: the count is in section header 0's sh_info
// A larger program header table is not an executable anyone built; refusing it bounds what a file makes us read.
constexpr std::uint64_t kMaxProgramHeaderBytes = 1u << 20;

constexpr std::uint16_t kEmX86_64 = 62;
constexpr std::uint16_t kEmAarch64 = 183;
constexpr std::uint16_t kEmRiscv = 243;

// Closes the descriptor on every return path.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd)
        : m_fd(fd)
    {
    }
    ~FileDescriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// Field reads in the file's byte order; the caller has checked that `offset + size` lies within `bytes`.
class FieldReader {
public:
    FieldReader(const unsigned char* bytes, ByteOrder order)
        : m_bytes(bytes)
        , m_order(order)
    {
    }
    std::uint64_t read(std::size_t offset, std::size_t size) const
    {
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < size; ++i) {
            const std::size_t at = m_order == ByteOrder::Little ? offset + size - 1 - i : offset + i;
            value = (value << 8) | m_bytes[at];
        }
        return value;
    }
    std::uint16_t u16(std::size_t offset) const { return static_cast<std::uint16_t>(read(offset, 2)); }
    std::uint32_t u32(std::size_t offset) const { return static_cast<std::uint32_t>(read(offset, 4)); }
    std::uint64_t u64(std::size_t offset) const { return read(offset, 8); }

private:
    const unsigned char* m_bytes;
    ByteOrder m_order;
};

std::string quoted(const std::filesystem::path& path)
{
    return "\"" + path.string() + "\"";
}

// Reads exactly `size` bytes at `offset`, or says why not.
Expected<void> readAt(
    int fd, const std::filesystem::path& path, std::uint64_t offset, unsigned char* out, std::size_t size)
{
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return makeError(ErrorCode::Unreadable, "cannot read " + quoted(path) + ": " + std::strerror(errno));
        if (n == 0)
            return makeError(ErrorCode::MalformedElf,
                quoted(path) + " ended at byte " + std::to_string(offset + done) + " inside its ELF headers");
        done += static_cast<std::size_t>(n);
    }
    return {};
}

} // namespace

std::string_view isaOfMachine(std::uint16_t machine, ElfClass elfClass, ByteOrder byteOrder)
{
    if (elfClass != ElfClass::Elf64 || byteOrder != ByteOrder::Little)
        return {};
    switch (machine) {
    case kEmX86_64: return "x86_64";
    case kEmAarch64: return "aarch64";
    case kEmRiscv: return "riscv64";
    default: return {};
    }
}

Expected<ElfInfo> readElfInfo(const std::filesystem::path& path)
{
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return makeError(ErrorCode::Unreadable, "cannot open " + quoted(path) + ": " + std::strerror(errno));
    struct stat st { };
    if (::fstat(fd.get(), &st) != 0)
        return makeError(ErrorCode::Unreadable, "cannot stat " + quoted(path) + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::Unreadable, quoted(path) + " is not a regular file");
    const auto fileBytes = static_cast<std::uint64_t>(st.st_size);

    if (fileBytes < kIdentBytes)
        return makeError(ErrorCode::NotElf,
            quoted(path) + " is " + std::to_string(fileBytes) + " bytes long: too short to be an ELF file");
    std::array<unsigned char, kElf64HeaderBytes> header {};
    if (auto read = readAt(fd.get(), path, 0, header.data(), kIdentBytes); !read)
        return tl::unexpected(read.error());
    if (header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F')
        return makeError(ErrorCode::NotElf, quoted(path) + " is not an ELF file (no ELF magic number)");

    ElfInfo info;
    switch (header[4]) { // EI_CLASS
    case 1: info.elfClass = ElfClass::Elf32; break;
    case 2: info.elfClass = ElfClass::Elf64; break;
    default:
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": unknown ELF class " + std::to_string(header[4]) + " (1 or 2 expected)");
    }
    switch (header[5]) { // EI_DATA
    case 1: info.byteOrder = ByteOrder::Little; break;
    case 2: info.byteOrder = ByteOrder::Big; break;
    default:
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": unknown ELF byte order " + std::to_string(header[5]) + " (1 or 2 expected)");
    }
    if (header[6] != 1) // EI_VERSION
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": unknown ELF version " + std::to_string(header[6]) + " (1 expected)");

    const bool is64 = info.elfClass == ElfClass::Elf64;
    const std::size_t headerBytes = is64 ? kElf64HeaderBytes : kElf32HeaderBytes;
    if (fileBytes < headerBytes)
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + " is " + std::to_string(fileBytes) + " bytes long: its ELF header is truncated");
    if (auto read = readAt(fd.get(), path, kIdentBytes, header.data() + kIdentBytes, headerBytes - kIdentBytes); !read)
        return tl::unexpected(read.error());

    const FieldReader h(header.data(), info.byteOrder);
    info.machine = h.u16(18);
    info.isa = std::string(isaOfMachine(info.machine, info.elfClass, info.byteOrder));
    const std::uint64_t phoff = is64 ? h.u64(32) : h.u32(28);
    const std::uint64_t shoff = is64 ? h.u64(40) : h.u32(32);
    const std::uint16_t phentsize = h.u16(is64 ? 54 : 42);
    std::uint64_t phnum = h.u16(is64 ? 56 : 44);
    const std::uint16_t shentsize = h.u16(is64 ? 58 : 46);

    if (phnum == kPnXnum) {
        // More than 0xfffe program headers: the real count is section header 0's sh_info.
        const std::size_t shInfoOffset = is64 ? 44 : 28;
        if (shoff == 0 || shentsize < shInfoOffset + 4 || shoff > fileBytes || fileBytes - shoff < shentsize)
            return makeError(ErrorCode::MalformedElf,
                quoted(path) + ": e_phnum is PN_XNUM but section header 0 is missing or truncated");
        std::array<unsigned char, 4> shInfo {};
        if (auto read = readAt(fd.get(), path, shoff + shInfoOffset, shInfo.data(), shInfo.size()); !read)
            return tl::unexpected(read.error());
        phnum = FieldReader(shInfo.data(), info.byteOrder).u32(0);
    }
    if (phnum == 0)
        return info; // no program headers (a relocatable object): nothing asks for a loader

    const std::size_t phdrBytes = is64 ? kElf64PhdrBytes : kElf32PhdrBytes;
    if (phentsize < phdrBytes)
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": program header entries of " + std::to_string(phentsize) + " bytes; at least "
                + std::to_string(phdrBytes) + " expected");
    // phnum < 2^32 and phentsize < 2^16, so the product cannot overflow 64 bits.
    const std::uint64_t tableBytes = phnum * phentsize;
    if (tableBytes > kMaxProgramHeaderBytes)
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": a program header table of " + std::to_string(tableBytes) + " bytes is implausibly large");
    if (phoff > fileBytes || fileBytes - phoff < tableBytes)
        return makeError(ErrorCode::MalformedElf,
            quoted(path) + ": the program header table (" + std::to_string(tableBytes) + " bytes at offset "
                + std::to_string(phoff) + ") runs past the end of the file (" + std::to_string(fileBytes) + " bytes)");

    std::vector<unsigned char> table(static_cast<std::size_t>(tableBytes));
    if (auto read = readAt(fd.get(), path, phoff, table.data(), table.size()); !read)
        return tl::unexpected(read.error());
    const FieldReader t(table.data(), info.byteOrder);
    for (std::uint64_t i = 0; i < phnum; ++i) {
        if (t.u32(static_cast<std::size_t>(i * phentsize)) == kPtInterp) { // p_type is the first field in both classes
            info.dynamic = true;
            break;
        }
    }
    return info;
}

} // namespace tidepool::agent::crossisa
