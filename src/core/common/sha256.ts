/**
 * SHA-256 of a string's UTF-8 bytes, as hex: Bun's native hasher (~0.13 ms for a short id, and no
 * module to load; node:crypto's init cost 3.4 ms of every verb's start). It is a pure function of
 * its input, the one Bun API that core may call (test/unit/structure.test.ts).
 */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
