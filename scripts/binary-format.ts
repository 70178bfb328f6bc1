// What a binary is, read from its header, so a release can be checked on any machine without
// running a foreign executable (scripts/check-release.ts).

export type BinaryFormat = {
  readonly kind: "elf" | "macho" | "unknown";
  readonly arch: "x64" | "arm64" | null;
  /** Linux only: which C library's loader it asks for (PT_INTERP); null when static or not ELF. */
  readonly libc: "glibc" | "musl" | null;
};

const UNKNOWN: BinaryFormat = { kind: "unknown", arch: null, libc: null };

/** ELF e_machine values (elf.h): EM_X86_64, EM_AARCH64. */
const ELF_MACHINES: Record<number, BinaryFormat["arch"]> = { 62: "x64", 183: "arm64" };
/** Mach-O cputype values (mach/machine.h): CPU_TYPE_X86_64, CPU_TYPE_ARM64. */
const MACHO_CPUS: Record<number, BinaryFormat["arch"]> = { 16777223: "x64", 16777228: "arm64" };
const PT_INTERP = 3;

/** `bytes` is the file's start: 64 KiB holds every header a Bun executable puts first. */
export function readBinaryFormat(bytes: Uint8Array): BinaryFormat {
  if (bytes.length < 20) return UNKNOWN;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, false) === 0x7f454c46) return readElf(bytes, view);
  if (view.getUint32(0, true) === 0xfeedfacf)
    return { kind: "macho", arch: MACHO_CPUS[view.getUint32(4, true)] ?? null, libc: null };
  return UNKNOWN;
}

/** 64-bit little-endian ELF only: every target umbel ships is one. */
function readElf(bytes: Uint8Array, view: DataView): BinaryFormat {
  if (bytes[4] !== 2 || bytes[5] !== 1 || bytes.length < 64) return { kind: "elf", arch: null, libc: null };
  const arch = ELF_MACHINES[view.getUint16(18, true)] ?? null;
  const phoff = Number(view.getBigUint64(32, true));
  const phentsize = view.getUint16(54, true);
  const phnum = view.getUint16(56, true);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 40 > bytes.length) break;
    if (view.getUint32(at, true) !== PT_INTERP) continue;
    const offset = Number(view.getBigUint64(at + 8, true));
    const size = Number(view.getBigUint64(at + 32, true));
    const interp = new TextDecoder().decode(bytes.subarray(offset, offset + size)).replace(/\0.*$/s, "");
    return {
      kind: "elf",
      arch,
      libc: /ld-musl/.test(interp) ? "musl" : /ld-linux/.test(interp) ? "glibc" : null,
    };
  }
  return { kind: "elf", arch, libc: null };
}
