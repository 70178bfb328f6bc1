import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { COMMANDS, routeArgv } from "../../../src/faces/route.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";

/**
 * Which face an argv selects. `argv.includes("-p")` made `umbel kill w1 --print` (and `send w1 -- -p`,
 * `spawn x --model -p`) a billed anonymous turn whose prompt was the argv words, and the verb never
 * ran. A first word that is a command selects it; otherwise -p/--print before any `--` selects print
 * (claude -p takes flags and its prompt before -p: `umbel --model sonnet -p hi`).
 */
describe("routeArgv", () => {
  test.each([
    [["-p", "hi"], "print"],
    [["--print"], "print"],
    [["--model", "sonnet", "-p", "hi"], "print"],
    [["--output-format", "json", "--print", "hi"], "print"],
    [["hello", "-p"], "print"],
    [["-p", "kill", "w1"], "print"],
    [["--help"], "help"],
    [["-h"], "help"],
    [["help"], "help"],
    [["--help", "-p"], "help"],
    [["--version"], "version"],
    [["-v"], "version"],
    [["version"], "version"],
    [["run", "wf.yaml", "-p"], "run"],
    [["mcp", "--print"], "mcp"],
    [["__structured-output", "/state", "w1"], "structured"],
    // codex exec's dialect is a command of its own; gemini's -p is also spelled --prompt.
    [["exec", "hi"], "exec"],
    [["exec", "--json", "-p", "x"], "exec"],
    [["--prompt", "hi", "--dialect", "gemini"], "print"],
    [["--dialect", "gemini", "--prompt=hi"], "print"],
  ] as const)("%j → %s", (argv, face) => {
    expect(routeArgv(argv).face).toBe(face);
  });

  test.each([
    [["kill", "w1", "--print"], "kill", ["w1", "--print"]],
    [["send", "w1", "-p"], "send", ["w1", "-p"]],
    [["send", "w1", "--", "-p"], "send", ["w1", "--", "-p"]],
    [["spawn", "x", "--model", "-p"], "spawn", ["x", "--model", "-p"]],
    [["status"], "status", []],
    [["send", "w1", "--prompt", "x"], "send", ["w1", "--prompt", "x"]],
  ])("%j runs the verb %s", (argv, verb, rest) => {
    expect(routeArgv(argv)).toEqual({ face: "verb", verb, rest });
  });

  test.each([
    [[], "no command given (see umbel --help)"],
    [["bogus"], "unknown command: bogus (see umbel --help)"],
    [["bogus", "--", "-p"], "unknown command: bogus (see umbel --help)"],
    [["--json"], "unknown option --json: give a command first, or -p (see umbel --help)"],
    [["--model", "x", "--", "-p"], "unknown option --model: give a command first, or -p (see umbel --help)"],
    [[""], 'unknown command: "" (see umbel --help)'],
    [["spwan", "w1"], "unknown command: spwan; did you mean spawn? (see umbel --help)"],
    [["help", "kil"], "unknown command: kil; did you mean kill? (see umbel --help)"],
  ])("%j is a usage error", (argv, message) => {
    expect(() => routeArgv(argv)).toThrow(UsageError);
    expect(() => routeArgv(argv)).toThrow(message);
  });

  test.each([
    [["help", "spawn"], "spawn"],
    [["help", "exec", "x"], "exec"],
    [["help", "-p"], "-p"],
  ])("%j shows what `umbel %s --help` shows", (argv, command) => {
    expect(routeArgv(argv)).toEqual({ face: "help", command });
  });

  test.each([[["help", "help"]], [["help", "--json"]]])("%j is the overview", (argv) => {
    expect(routeArgv(argv)).toEqual({ face: "help" });
  });

  test("the hidden StructuredOutput server (a --structured worker's CLI starts it) takes its argv as is", () => {
    expect(routeArgv(["__structured-output", "/state", "w1", "-p"])).toEqual({
      face: "structured",
      rest: ["/state", "w1", "-p"],
    });
    expect(COMMANDS).not.toContain("__structured-output");
  });

  test("the hidden queue drain (a worker's end-of-turn hook runs it) takes its argv as is", () => {
    expect(routeArgv(["__drain", "w1"])).toEqual({ face: "drain", rest: ["w1"] });
    expect(COMMANDS).not.toContain("__drain");
  });

  test("the command list is the verb table's plus the faces that are not verbs", () => {
    const verbs = VERBS.filter((v) => v.cli).map((v) => v.name);
    expect([...COMMANDS].sort()).toEqual(
      [...verbs, "completion", "exec", "run", "mcp", "acp", "help", "version"].sort(),
    );
  });

  test("umbel exec takes its argv as is (its -p is codex's --profile, never the print switch)", () => {
    expect(routeArgv(["exec", "resume", "--last", "-p", "x"])).toEqual({
      face: "exec",
      rest: ["resume", "--last", "-p", "x"],
    });
  });
});
