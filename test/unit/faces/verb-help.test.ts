import { describe, expect, test } from "bun:test";
import { renderVerbHelp } from "../../../src/faces/cli/verb-help.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import type { Verb } from "../../../src/faces/verbs/verb.ts";

/** `umbel <verb> --help`: as readable as `umbel --help`, in a pager and in a narrow terminal. */

const verb = (name: string): Verb => {
  const found = VERBS.find((v) => v.name === name);
  if (!found) throw new Error(`no verb ${name}`);
  return found;
};
const ESC = "\u001b";
const plain = { width: 80, colour: false };
const cliVerbs = VERBS.filter((v) => v.cli).map((v) => [v.name, v] as const);

describe("a verb's --help", () => {
  test("spawn: synopsis, the required NAME, flags in a narrow column, examples; no escapes", () => {
    const help = renderVerbHelp(verb("spawn"), plain);
    expect(help).toStartWith(
      "Usage: umbel spawn NAME [flags]\n\nStart a worker (an agent CLI in its own tmux session)",
    );
    expect(help).toMatch(
      /\nArguments:\n {2}NAME {2}Worker name: 1-63 characters[^\n]*\n {8}[^\n]*\(required\)\n/,
    );
    expect(help).toMatch(
      /\n {2}--provider PROVIDER +Which agent CLI runs the worker [\s\S]+?\. One of: claude,\s+codex/,
    );
    // No schema default: UMBEL_PROVIDER, config.toml or claude decide (core/worker/default-provider.ts).
    expect(help.replace(/\s+/g, " ")).toContain(
      "Which agent CLI runs the worker (default: UMBEL_PROVIDER, else config.toml's provider, else claude)",
    );
    expect(help).toMatch(/\n {2}--unattended +Never stop for permission prompts/);
    expect(help).toMatch(/\n {2}--env K=V\|K +Environment for the worker/);
    expect(help).toMatch(/\nExamples:\n {2}umbel spawn \S+/);
    expect(help).not.toContain(ESC);
  });

  test("spawn says that its trust lasts, where claude keeps it, and that -p's does not", () => {
    const help = renderVerbHelp(verb("spawn"), { width: 400, colour: false });
    expect(help).toContain("\n\nTrust: a CLI that asks whether to trust the folder");
    expect(help).toContain("claude records it in its .claude.json");
    expect(help).toContain("Each dialog umbel answers is printed on stderr");
    expect(help).toContain("umbel -p and the warm pool's spares trust for their own session only");
  });

  test.each(cliVerbs)("%s: every line fits 80 columns and the flag column is narrow", (_name, v) => {
    const help = renderVerbHelp(v, plain);
    for (const line of help.split("\n"))
      expect({ line, fits: line.length <= 80 }).toEqual({ line, fits: true });
    const flagLines = help.split("\n").filter((l) => /^ {2}--\S/.test(l));
    for (const line of flagLines) {
      const description = /^ {2}--\S+(?: \S+)? {2,}/.exec(line);
      // A flag longer than the column puts its description on the next line, never pads to 50.
      if (description) expect(description[0].length).toBeLessThanOrEqual(34);
    }
  });

  test.each(cliVerbs)("%s has one or two examples, each a umbel %s command line", (name, v) => {
    const examples = v.cli?.examples ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(1);
    expect(examples.length).toBeLessThanOrEqual(2);
    for (const example of examples) expect(example).toStartWith(`umbel ${name}`);
  });

  test("optional and repeated positionals read as such", () => {
    expect(renderVerbHelp(verb("status"), plain)).toStartWith("Usage: umbel status [NAME] [flags]\n");
    expect(renderVerbHelp(verb("keys"), plain)).toStartWith("Usage: umbel keys NAME KEYS... [flags]\n");
    expect(renderVerbHelp(verb("send"), plain)).toStartWith("Usage: umbel send NAME [PROMPT | -] [flags]\n");
    expect(renderVerbHelp(verb("logs"), plain)).toContain("\n  -f, --follow ");
  });

  test("descriptions wrap to the width given (a narrow terminal)", () => {
    const help = renderVerbHelp(verb("spawn"), { width: 50, colour: false });
    // Examples are command lines: they are never broken.
    const [text = ""] = help.split("\nExamples:");
    for (const line of text.split("\n"))
      expect({ line, fits: line.length <= 50 }).toEqual({ line, fits: true });
    expect(help).toContain("--permission-mode MODE");
  });

  test("colour only when asked (a terminal without NO_COLOR)", () => {
    expect(renderVerbHelp(verb("wait"), { width: 80, colour: true })).toContain(ESC);
  });
});
