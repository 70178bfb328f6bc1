import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { type BinaryFormat, readBinaryFormat } from "../../../scripts/binary-format.ts";
import { parseChecksums, renderChecksums } from "../../../scripts/checksums.ts";
import { parseReleaseArgs, RELEASE_USAGE } from "../../../scripts/release.ts";
import { hostTarget, RELEASE_TARGETS, targetByName } from "../../../scripts/release-targets.ts";
import { readTar, tarOneFile } from "../../../scripts/tar.ts";

/** The smallest ELF64 little-endian header with one PT_INTERP program header naming `interp`. */
function elf(machine: number, interp: string | null): Uint8Array {
  const bytes = new Uint8Array(256);
  const view = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0); // \x7fELF, 64-bit, little-endian, version 1
  view.setUint16(16, 2, true); // ET_EXEC
  view.setUint16(18, machine, true);
  view.setBigUint64(32, 64n, true); // e_phoff
  view.setUint16(54, 56, true); // e_phentsize
  view.setUint16(56, interp === null ? 0 : 1, true); // e_phnum
  if (interp !== null) {
    view.setUint32(64, 3, true); // PT_INTERP
    view.setBigUint64(64 + 8, 128n, true); // p_offset
    view.setBigUint64(64 + 32, BigInt(interp.length + 1), true); // p_filesz (with the NUL)
    bytes.set(new TextEncoder().encode(interp), 128);
  }
  return bytes;
}

function macho(cputype: number): Uint8Array {
  const bytes = new Uint8Array(64);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, cputype, true);
  view.setUint32(12, 2, true); // MH_EXECUTE
  return bytes;
}

describe("release targets", () => {
  test("the four the issue names, plus musl builds for Alpine-like Linux", () => {
    expect(RELEASE_TARGETS.map((t) => t.name)).toEqual([
      "linux-x64",
      "linux-arm64",
      "darwin-x64",
      "darwin-arm64",
      "linux-x64-musl",
      "linux-arm64-musl",
    ]);
    expect(targetByName("darwin-arm64")?.bunTarget).toBe("bun-darwin-arm64");
    expect(targetByName("linux-arm64-musl")?.bunTarget).toBe("bun-linux-arm64-musl");
  });

  test.each([
    ["linux", "x64", false, "linux-x64"],
    ["linux", "arm64", true, "linux-arm64-musl"],
    ["darwin", "arm64", false, "darwin-arm64"],
    ["win32", "x64", false, null],
  ] as const)("host %s/%s (musl %p) builds %s", (platform, arch, musl, name) => {
    expect(hostTarget(platform, arch, musl)?.name ?? null).toBe(name);
  });
});

describe("binary formats, read without running anything", () => {
  test.each<[string, Uint8Array, BinaryFormat]>([
    [
      "ELF x86-64 glibc",
      elf(0x3e, "/lib64/ld-linux-x86-64.so.2"),
      { kind: "elf", arch: "x64", libc: "glibc" },
    ],
    [
      "ELF aarch64 glibc",
      elf(0xb7, "/lib/ld-linux-aarch64.so.1"),
      { kind: "elf", arch: "arm64", libc: "glibc" },
    ],
    ["ELF x86-64 musl", elf(0x3e, "/lib/ld-musl-x86_64.so.1"), { kind: "elf", arch: "x64", libc: "musl" }],
    ["ELF static", elf(0xb7, null), { kind: "elf", arch: "arm64", libc: null }],
    ["Mach-O arm64", macho(0x0100000c), { kind: "macho", arch: "arm64", libc: null }],
    ["Mach-O x86_64", macho(0x01000007), { kind: "macho", arch: "x64", libc: null }],
    [
      "a shell script",
      new TextEncoder().encode("#!/bin/sh\necho hi\n"),
      { kind: "unknown", arch: null, libc: null },
    ],
    ["nothing", new Uint8Array(0), { kind: "unknown", arch: null, libc: null }],
  ])("%s", (_name, bytes, format) => {
    expect(readBinaryFormat(bytes)).toEqual(format);
  });

  test("every target says which format it must have", () => {
    expect(RELEASE_TARGETS.map((t) => [t.name, t.format])).toEqual([
      ["linux-x64", { kind: "elf", arch: "x64", libc: "glibc" }],
      ["linux-arm64", { kind: "elf", arch: "arm64", libc: "glibc" }],
      ["darwin-x64", { kind: "macho", arch: "x64", libc: null }],
      ["darwin-arm64", { kind: "macho", arch: "arm64", libc: null }],
      ["linux-x64-musl", { kind: "elf", arch: "x64", libc: "musl" }],
      ["linux-arm64-musl", { kind: "elf", arch: "arm64", libc: "musl" }],
    ]);
  });
});

describe("SHA256SUMS", () => {
  test("sha256sum's own format, sorted by name, and read back", () => {
    const text = renderChecksums({ "umbel-linux-x64": "b".repeat(64), "umbel-darwin-arm64": "a".repeat(64) });
    expect(text).toBe(`${"a".repeat(64)}  umbel-darwin-arm64\n${"b".repeat(64)}  umbel-linux-x64\n`);
    expect(parseChecksums(text)).toEqual({
      "umbel-darwin-arm64": "a".repeat(64),
      "umbel-linux-x64": "b".repeat(64),
    });
  });

  test("a malformed line is an error naming it", () => {
    expect(() => parseChecksums("nothex  umbel\n")).toThrow("SHA256SUMS line 1");
  });
});

describe("tar", () => {
  test("one executable file, readable by tar(1) and by readTar", async () => {
    const content = new TextEncoder().encode("#!/bin/sh\necho hello\n");
    const tar = tarOneFile("umbel", content, { mode: 0o755, mtime: 1_700_000_000 });
    expect(tar.length % 512).toBe(0);
    expect(readTar(tar)).toEqual([{ name: "umbel", mode: 0o755, content }]);
    const listed = Bun.spawnSync(["tar", "-tvf", "-"], { stdin: tar });
    expect(listed.stdout.toString()).toMatch(/^-rwxr-xr-x .* umbel\n$/);
    expect(readTar(gunzipSync(Bun.gzipSync(tar)))).toHaveLength(1);
  });
});

describe("npm run release's arguments", () => {
  test("--targets picks some, in the order given; without it, every target", () => {
    expect(parseReleaseArgs(["--targets", "linux-x64,darwin-arm64"])).toMatchObject({
      targets: [{ name: "linux-x64" }, { name: "darwin-arm64" }],
      archives: true,
    });
    const all = parseReleaseArgs([]);
    expect(all !== "help" && all.targets).toEqual(RELEASE_TARGETS);
    expect(parseReleaseArgs(["--targets", "linux-x64", "--no-archives"])).toMatchObject({ archives: false });
  });

  test("an unknown target is refused with the list, before anything is built", () => {
    expect(() => parseReleaseArgs(["--targets", "linux-x64,windows-x64"])).toThrow(
      `unknown target windows-x64 (${RELEASE_TARGETS.map((t) => t.name).join(", ")})`,
    );
  });

  test("--help says how to build one target", () => {
    expect(parseReleaseArgs(["--help"])).toBe("help");
    expect(RELEASE_USAGE).toContain("npm run release -- --targets linux-x64");
    for (const t of RELEASE_TARGETS) expect(RELEASE_USAGE).toContain(t.name);
  });
});
