import { describe, expect, test } from "bun:test";
import { OUTPUT_INLINE_BYTES } from "../../../src/core/common/log-bounds.ts";
import { sha256Hex } from "../../../src/core/common/sha256.ts";
import { boundOutput } from "../../../src/core/workflow/output-cut.ts";

/** A workflow's answer or structured output over OUTPUT_INLINE_BYTES: its head, and what was cut. */
describe("boundOutput", () => {
  test("an output within the bound is kept whole, nothing said", () => {
    expect(boundOutput("a", "hello")).toEqual({ text: "hello", cut: null });
    const exact = "x".repeat(OUTPUT_INLINE_BYTES);
    expect(boundOutput("a", exact)).toEqual({ text: exact, cut: null });
  });

  test("a bigger one: the head, a line with its size and sha256; no half character", () => {
    const text = `${"x".repeat(OUTPUT_INLINE_BYTES - 1)}é and more`;
    const bounded = boundOutput("answer", text);
    const bytes = new TextEncoder().encode(text).length;
    expect(bounded.cut).toEqual({ bytes, sha256: sha256Hex(text) });
    expect(bounded.text).toBe(
      `${"x".repeat(OUTPUT_INLINE_BYTES - 1)}\n[umbel: output answer is cut here: it has ${bytes} bytes (sha256 ${sha256Hex(text)}); the first ${OUTPUT_INLINE_BYTES} are above]`,
    );
  });
});
