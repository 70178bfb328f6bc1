import { describe, expect, test } from "bun:test";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { pathOfUri, planPrompt } from "../../../src/core/acp/prompt.ts";

const options = { attachDir: "/s/acp/w/files", images: false, stamp: "1" };

describe("an ACP prompt as the text a TUI takes", () => {
  test("text blocks are the prompt, joined by a blank line", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "Fix the bug." },
      { type: "text", text: "Then run the tests." },
    ];
    expect(planPrompt(blocks, options)).toEqual({
      ok: true,
      text: "Fix the bug.\n\nThen run the tests.",
      files: [],
    });
  });

  test("a resource link names its file's path", () => {
    const plan = planPrompt(
      [
        { type: "text", text: "Review this" },
        { type: "resource_link", uri: "file:///repo/src/a%20b.ts", name: "a b.ts" },
      ],
      options,
    );
    expect(plan).toMatchObject({ ok: true, text: "Review this\n\n(Attached file: /repo/src/a b.ts)" });
  });

  test("an embedded resource is written to the attachments folder and named", () => {
    const plan = planPrompt(
      [{ type: "resource", resource: { uri: "file:///repo/notes.md", text: "# Notes" } }],
      options,
    );
    expect(plan).toEqual({
      ok: true,
      text: "(Attached file: /s/acp/w/files/1-1-notes.md, the contents of file:///repo/notes.md)",
      files: [{ path: "/s/acp/w/files/1-1-notes.md", text: "# Notes" }],
    });
  });

  test("a blob resource keeps its bytes (base64)", () => {
    const plan = planPrompt(
      [
        {
          type: "resource",
          resource: { uri: "untitled:data.bin", blob: "AAEC", mimeType: "application/octet-stream" },
        },
      ],
      options,
    );
    expect(plan).toMatchObject({
      ok: true,
      files: [{ path: "/s/acp/w/files/1-1-untitled_data.bin", base64: "AAEC" }],
    });
  });

  test("an image only where the provider reads images", () => {
    const image: ContentBlock = { type: "image", data: "iVBORw0K", mimeType: "image/png" };
    expect(planPrompt([image], options)).toEqual({
      ok: false,
      reason: "this provider takes no images in a prompt",
    });
    expect(
      planPrompt([{ type: "text", text: "What is this?" }, image], { ...options, images: true }),
    ).toEqual({
      ok: true,
      text: "What is this?\n\n(Attached image: /s/acp/w/files/1-1-image.png)",
      files: [{ path: "/s/acp/w/files/1-1-image.png", base64: "iVBORw0K" }],
    });
  });

  test("audio is refused, and so is a prompt with nothing in it", () => {
    expect(planPrompt([{ type: "audio", data: "x", mimeType: "audio/wav" }], options)).toEqual({
      ok: false,
      reason: "a prompt's audio content is not supported",
    });
    expect(planPrompt([{ type: "text", text: "  " }], options)).toEqual({
      ok: false,
      reason: "the prompt is empty",
    });
    expect(planPrompt([], options)).toEqual({ ok: false, reason: "the prompt is empty" });
  });
});

describe("a uri as a path", () => {
  test.each([
    ["file:///a/b.txt", "/a/b.txt"],
    ["file://localhost/a/b.txt", "/a/b.txt"],
    ["file:///a/%E2%9C%93.txt", "/a/✓.txt"],
    ["file:///a/%ZZ.txt", "/a/%ZZ.txt"],
    ["https://example.com/x", "https://example.com/x"],
  ])("%s", (uri, path) => {
    expect(pathOfUri(uri)).toBe(path);
  });
});
