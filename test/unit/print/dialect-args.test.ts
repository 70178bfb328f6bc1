import { describe, expect, test } from "bun:test";
import { takeDialect } from "../../../src/core/dialects/dialect.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { parseExecArgs } from "../../../src/faces/print/args-codex.ts";
import { parseGeminiArgs } from "../../../src/faces/print/args-gemini.ts";

/**
 * Issue 18: `umbel -p` speaks three dialects. Each parses its own CLI's flags (gemini -p 0.61.0,
 * codex exec 0.171.0) into the one PrintInput; a flag the CLI does not have is a usage error naming it.
 */
describe("takeDialect", () => {
  test.each([
    [["-p", "hi"], undefined, "claude", ["-p", "hi"]],
    [["-p", "--dialect", "gemini", "hi"], undefined, "gemini", ["-p", "hi"]],
    [["--dialect=codex", "-p"], "gemini", "codex", ["-p"]],
    [["-p", "hi"], "gemini", "gemini", ["-p", "hi"]],
    [["-p", "hi"], "", "claude", ["-p", "hi"]],
    [["-p", "--", "--dialect", "gemini"], undefined, "claude", ["-p", "--", "--dialect", "gemini"]],
    [["--dialect", "claude", "--dialect", "gemini", "-p"], undefined, "gemini", ["-p"]],
  ] as const)("%j with UMBEL_DIALECT=%j → %s", (argv, env, dialect, rest) => {
    expect(takeDialect(argv, env)).toEqual({ dialect, argv: [...rest] });
  });

  test.each([
    [["--dialect", "opencode"], undefined, "--dialect opencode: must be one of claude, gemini, codex"],
    [["--dialect"], undefined, "option '--dialect' argument missing"],
    [["-p"], "Gemini", "UMBEL_DIALECT Gemini: must be one of claude, gemini, codex; did you mean gemini?"],
    [
      ["--dialect", "gemni"],
      undefined,
      "--dialect gemni: must be one of claude, gemini, codex; did you mean gemini?",
    ],
  ] as const)("%j with UMBEL_DIALECT=%j is a usage error", (argv, env, message) => {
    expect(() => takeDialect(argv, env)).toThrow(UsageError);
    expect(() => takeDialect(argv, env)).toThrow(message);
  });
});

describe("gemini -p's flags", () => {
  test("-p takes the prompt as its value; gemini's spellings map onto PrintInput", () => {
    const args = parseGeminiArgs([
      "-p",
      "hello there",
      "-m",
      "gemini-2.5-flash",
      "-o",
      "stream-json",
      "--approval-mode",
      "auto_edit",
      "--include-directories",
      "a,b",
      "--include-directories",
      "c",
      "--allowed-tools",
      "run_shell_command , read_file",
      "--skip-trust",
      "--provider",
      "claude",
      "--env",
      "A=1",
    ]);
    expect(args.prompt).toBe("hello there");
    expect(args.raw).toEqual({
      model: "gemini-2.5-flash",
      outputFormat: "stream-json",
      verbose: true,
      permissionMode: "acceptEdits",
      addDir: ["a", "b", "c"],
      allowedTools: ["run_shell_command", "read_file"],
      provider: "claude",
      env: { A: "1" },
    });
  });

  test.each([
    [["-y", "x"], { permissionMode: "bypassPermissions" }],
    [["--approval-mode=plan", "x"], { permissionMode: "plan" }],
    [["--approval-mode", "yolo", "x"], { permissionMode: "bypassPermissions" }],
    [["-r", "x"], { resume: "x" }],
    [["-r", "-m", "m", "x"], { continue: true, model: "m" }],
    [["--resume", "latest", "x"], { continue: true }],
    [
      ["--resume", "3f1c0d2e-1111-4222-8333-444455556666", "x"],
      { resume: "3f1c0d2e-1111-4222-8333-444455556666" },
    ],
    [["-o", "json", "x"], { outputFormat: "json", verbose: false }],
    // umbel's own limits (issue 13), spelled alike in every dialect.
    [["--max-tokens", "5000", "--on-limit", "continue", "x"], { maxTokens: 5000, onLimit: "continue" }],
    // umbel's --account (config.toml's [accounts.NAME]; issue 24), the last one given wins.
    [["--account", "work", "x"], { account: "work" }],
    [["--account=a", "--account", "b", "x"], { account: "b" }],
  ] as const)("%j → %j", (argv, raw) => {
    expect(parseGeminiArgs(argv).raw).toEqual(raw);
  });

  test("the prompt: -p's value, else the positional words; -p alone leaves it to stdin", () => {
    expect(parseGeminiArgs(["two", "words"]).prompt).toBe("two words");
    expect(parseGeminiArgs(["-p"]).prompt).toBe("");
    expect(parseGeminiArgs(["-p", "-m", "x"]).prompt).toBe("");
    expect(parseGeminiArgs(["--prompt=inline"]).prompt).toBe("inline");
    expect(parseGeminiArgs(["-p", "first", "-p"]).prompt).toBe("first");
    expect(parseGeminiArgs(["-h"]).help).toBe(true);
  });

  test.each([
    [["-p", "x", "more"], "Cannot use both a positional prompt and the --prompt (-p) flag together"],
    [["-y", "--approval-mode", "yolo"], "Cannot use both --yolo (-y) and --approval-mode together"],
    [["--approval-mode", "manual"], "--approval-mode manual: must be one of default, auto_edit, yolo, plan"],
    [["-r", "5"], "--resume 5: gemini's session index is not supported"],
    [["--sandbox"], "umbel -p --dialect gemini does not support --sandbox"],
    [["--session-id", "x"], "umbel -p --dialect gemini does not support --session-id"],
    [["--output-format"], "option '--output-format' argument missing"],
    [["--yolo=1"], "option '--yolo' takes no value"],
    [["--bogus"], "unknown option '--bogus' (see umbel -p --dialect gemini --help)"],
    // claude -p's flags are not gemini's.
    [["--allowedTools", "Bash"], "unknown option '--allowedTools'"],
    [["--max-turns", "1"], "unknown option '--max-turns'"],
  ] as const)("%j is a usage error", (argv, message) => {
    expect(() => parseGeminiArgs(argv)).toThrow(UsageError);
    expect(() => parseGeminiArgs(argv)).toThrow(message);
  });
});

describe("codex exec's flags", () => {
  test("codex's spellings map onto PrintInput; -o and --output-schema are the face's", () => {
    const args = parseExecArgs([
      "--json",
      "-m",
      "gpt-5",
      "-C",
      "sub",
      "--add-dir",
      "/a",
      "--add-dir",
      "/b",
      "-o",
      "last.txt",
      "--output-schema",
      "schema.json",
      "--skip-git-repo-check",
      "--color",
      "never",
      "--timeout",
      "90s",
      "do it",
    ]);
    expect(args).toEqual({
      raw: { timeout: "90s", model: "gpt-5", cwd: "sub", addDir: ["/a", "/b"], outputFormat: "json" },
      prompt: "do it",
      json: true,
      outputLastMessage: "last.txt",
      outputSchema: "schema.json",
      help: false,
    });
  });

  test.each([
    [[], {}],
    [["-s", "read-only"], { permissionMode: "plan" }],
    [["--sandbox=workspace-write"], { permissionMode: "default" }],
    [["--full-auto"], { permissionMode: "default" }],
    // codex exec never asks: its danger-full-access is no sandbox and no approvals (measured 0.171.0).
    [["-s", "danger-full-access"], { permissionMode: "bypassPermissions" }],
    [["--approve-for-me"], { permissionMode: "auto" }],
    [
      ["--dangerously-bypass-approvals-and-sandbox", "-s", "read-only"],
      { permissionMode: "bypassPermissions" },
    ],
    [["--max-tokens=12", "--on-limit=stop"], { maxTokens: 12, onLimit: "stop" }],
    [["--account", "work"], { account: "work" }],
    [["--account=work", "-s", "read-only"], { account: "work", permissionMode: "plan" }],
  ] as const)("%j → %j", (argv, permission) => {
    expect(parseExecArgs([...argv, "x"]).raw).toEqual({ outputFormat: "text", ...permission });
  });

  test.each([
    [["hi"], "hi", {}],
    [[], null, {}],
    [["-"], "-", {}],
    [["resume", "w1"], null, { resume: "w1" }],
    [["resume", "w1", "go on"], "go on", { resume: "w1" }],
    [["resume", "--last"], null, { continue: true }],
    [["--json", "resume", "--last", "go on"], "go on", { continue: true }],
  ] as const)("positionals %j: prompt %j, %j", (argv, prompt, resume) => {
    const args = parseExecArgs(argv);
    expect(args.prompt).toBe(prompt);
    expect(args.raw).toMatchObject(resume);
  });

  test.each([
    [["a", "b"], "unexpected argument b found"],
    [["resume"], "umbel exec resume needs a SESSION_ID"],
    [["resume", "--last", "a", "b"], "unexpected argument b found"],
    [["--last", "x"], "--last is codex exec resume's"],
    [["fork", "x"], "umbel exec does not support codex exec fork"],
    [["-s", "open"], "--sandbox open: must be one of read-only, workspace-write, danger-full-access"],
    [["--color", "pink"], "--color pink: must be one of always, never, auto"],
    [["-c", "model=x"], "umbel exec does not support -c"],
    [["-p", "profile"], "umbel exec does not support -p"],
    [["--ephemeral"], "umbel exec does not support --ephemeral"],
    [["--cwd", "x"], "unknown option '--cwd' (see umbel exec --help)"],
    [["--output-format", "json"], "unknown option '--output-format'"],
  ] as const)("%j is a usage error", (argv, message) => {
    expect(() => parseExecArgs(argv)).toThrow(UsageError);
    expect(() => parseExecArgs(argv)).toThrow(message);
  });
});
