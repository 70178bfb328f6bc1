import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { checkPrintInput, PrintInput, parseStreamInput } from "../../../src/core/print/input.ts";
import { isSessionId } from "../../../src/core/providers/registry.ts";
import { parsePrintArgs } from "../../../src/faces/print/args.ts";

describe("parsePrintArgs (claude's commander spelling)", () => {
  test.each([
    [["-p", "hi"], { raw: {}, argvPrompt: "hi" }],
    [["--print", "a", "b"], { raw: {}, argvPrompt: "a b" }],
    [["-p", "hi", "--output-format", "json"], { raw: { outputFormat: "json" } }],
    [
      ["-p", "hi", "--output-format=stream-json", "--verbose"],
      { raw: { outputFormat: "stream-json", verbose: true } },
    ],
    // variadic: every argument up to the next option, each split on commas and spaces
    [
      ["-p", "--allowedTools", "Bash(git:*) Edit", "Write", "--model", "m", "hi"],
      { raw: { allowedTools: ["Bash(git:*)", "Edit", "Write"], model: "m" }, argvPrompt: "hi" },
    ],
    [["-p", "hi", "--allowed-tools", "Bash"], { raw: { allowedTools: ["Bash"] } }],
    [["-p", "hi", "--disallowedTools", "Bash,Edit"], { raw: { disallowedTools: ["Bash", "Edit"] } }],
    [["-p", "hi", "--add-dir", "/a b", "/c"], { raw: { addDir: ["/a b", "/c"] } }],
    [["-p", "hi", "--mcp-config", '{"mcpServers":{}}'], { raw: { mcpConfig: ['{"mcpServers":{}}'] } }],
    [["-p", "hi", "--max-turns", "3"], { raw: { maxTurns: 3 } }],
    [["-p", "hi", "-c"], { raw: { continue: true } }],
    [["-p", "hi", "-r", "w1"], { raw: { resume: "w1" } }],
    [["-p", "hi", "--dangerously-skip-permissions"], { raw: { permissionMode: "bypassPermissions" } }],
    [["-p", "hi", "--env", "A=1", "--env", "B"], { raw: { env: { A: "1", B: { fromEnv: "B" } } } }],
    [["-p", "--", "--not-a-flag"], { raw: {}, argvPrompt: "--not-a-flag" }],
    [["-p", "hi", "--system-prompt", "-be terse-"], { raw: { systemPrompt: "-be terse-" } }],
    // the guardrails: claude's --json-schema, umbel's accept checks
    [["-p", "hi", "--json-schema", '{"type":"object"}'], { raw: { jsonSchema: '{"type":"object"}' } }],
    [
      [
        "-p",
        "hi",
        "--accept",
        "npm test",
        "--accept=make lint",
        "--max-attempts",
        "2",
        "--accept-timeout",
        "90s",
      ],
      { raw: { accept: ["npm test", "make lint"], maxAttempts: 2, acceptTimeout: "90s" } },
    ],
  ])("%j", (argv, expected) => {
    expect(parsePrintArgs(argv)).toMatchObject(expected);
  });

  test("--settings is kept as given (JSON or a path); --help", () => {
    expect(parsePrintArgs(["-p", "x", "--settings", "s.json"]).settings).toBe("s.json");
    expect(parsePrintArgs(["-p", "--help"]).help).toBe(true);
  });

  test.each([
    [["-p", "--bogus"], "unknown option '--bogus'"],
    [["-p", "--effort", "high"], "does not support claude's --effort"],
    [["-p", "--model"], "option '--model' argument missing"],
    [["-p", "--add-dir", "--verbose"], "option '--add-dir' argument missing"],
    [["-p", "--verbose=yes"], "takes no value"],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parsePrintArgs(argv)).toThrow(UsageError);
    expect(() => parsePrintArgs(argv)).toThrow(message);
  });
});

describe("PrintInput rules", () => {
  const input = (raw: Record<string, unknown>) => ({
    ...PrintInput.parse({ prompt: "hi", ...raw }),
    provider: "claude" as const,
  });
  test.each([
    [{ outputFormat: "stream-json" }, "--output-format=stream-json requires --verbose"],
    [
      { inputFormat: "stream-json", outputFormat: "json" },
      "--input-format=stream-json requires output-format=stream-json.",
    ],
    [{ continue: true, resume: "w" }, "--continue and --resume"],
    [{ prompt: "  " }, "no prompt"],
    // before any worker is made
    [{ maxAttempts: 2 }, "--max-attempts needs --accept or --json-schema"],
    [{ acceptTimeout: "1m", jsonSchema: "{}" }, "--accept-timeout needs --accept"],
  ])("%j", (raw, message) => {
    expect(() => checkPrintInput(input(raw))).toThrow(message);
  });

  test("defaults and a valid combination", () => {
    const ok = input({ outputFormat: "stream-json", verbose: true, inputFormat: "stream-json", prompt: "" });
    expect(() => checkPrintInput(ok)).not.toThrow();
    expect(input({})).toMatchObject({
      outputFormat: "text",
      inputFormat: "text",
      provider: "claude",
      continue: false,
    });
  });

  test("settings must be a JSON object's text", () => {
    expect(PrintInput.safeParse({ prompt: "x", settings: "[1]" }).success).toBe(false);
    expect(PrintInput.safeParse({ prompt: "x", settings: '{"a":1}' }).success).toBe(true);
  });

  test.each([
    ["0c4f5a52-6a0e-4a4e-9a44-3b1c2d3e4f50", true],
    ["warm", false],
    ["0c4f5a52", false],
    ["ses_dce1d021dffeb6KeGGbVrMQxg0", true],
    ["ses_short", false],
  ])("isSessionId(%s) = %s", (value, expected) => {
    expect(isSessionId(value)).toBe(expected);
  });
});

describe("parseStreamInput", () => {
  test("one user message per line; string or text-block content; blank lines skipped", () => {
    const text = [
      '{"type":"user","message":{"role":"user","content":"first"}}',
      "",
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}',
    ].join("\n");
    expect(parseStreamInput(text)).toEqual(["first", "a\nb"]);
  });

  test.each([
    ["not json", "line 1 is not JSON"],
    ['{"type":"control_request"}', 'only {"type":"user",…}'],
    ['{"type":"user","message":{"content":[{"type":"image"}]}}', "must be text"],
    ["", "no user message"],
  ])("%j", (text, message) => {
    expect(() => parseStreamInput(text)).toThrow(message);
  });
});
