#pragma once
// What the agent needs to know of a workload binary before it runs it: which ISA it is built for, and whether it
// is linked statically. Only the ELF header and the program header table are read, with every offset and size
// checked against the file, so any file (a script, a truncated download, garbage) gives an error and never a
// crash or a large allocation.
//
// Thread affinity: none; a pure function of the file.

#include "agents/crossisa/error.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tidepool::agent::crossisa {

enum class ElfClass : std::uint8_t { Invalid = 0, Elf32, Elf64 };
enum class ByteOrder : std::uint8_t { Invalid = 0, Little, Big };

struct ElfInfo {
    ElfClass elfClass = ElfClass::Invalid;
    ByteOrder byteOrder = ByteOrder::Invalid;
    std::uint16_t machine = 0; // e_machine
    std::string isa; // "x86_64", "aarch64" or "riscv64"; empty for any other machine, class or byte order
    bool dynamic = false; // a PT_INTERP entry: the binary needs a program loader (and its ISA's shared libraries)
};

// The ISA name of an ELF machine: EM_X86_64 (62), EM_AARCH64 (183) and EM_RISCV (243), each as a 64-bit
// little-endian ELF; an empty view for anything else.
std::string_view isaOfMachine(std::uint16_t machine, ElfClass elfClass, ByteOrder byteOrder);

// Reads `path`'s ELF header. Errors (`Unreadable`, `NotElf`, `MalformedElf`) name the path and what is wrong.
// A well-formed ELF file of an unknown machine is not an error: its `isa` is empty.
Expected<ElfInfo> readElfInfo(const std::filesystem::path& path);

} // namespace tidepool::agent::crossisa
