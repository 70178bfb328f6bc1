import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../../src/core/common/sha256.ts";
import { seeded } from "../../helpers/seeded.ts";

/** core's SHA-256 (no node:crypto at start-up) is the standard digest: ids and codex trust keys stay put. */
describe("sha256Hex", () => {
  const node = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

  test.each(["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(64), "é✓🙂\u0000", "x".repeat(100_000)])(
    "%# is node:crypto's digest",
    (text) => {
      expect(sha256Hex(text)).toBe(node(text));
    },
  );

  test("the FIPS 180-4 vector for abc", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("500 seeded strings of every length up to 300 agree with node:crypto", () => {
    const random = seeded(16);
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: random.int(300) }, () =>
        String.fromCodePoint(random.int(0x2fff)),
      ).join("");
      expect(sha256Hex(text)).toBe(node(text));
    }
  });
});
