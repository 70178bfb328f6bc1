import { codexUsage, createCodexItems } from "../../core/dialects/codex.ts";
import { commandResult, toolKind } from "../../core/dialects/tool-kind.ts";
import { createTurnTally, type TallyStep } from "../../core/dialects/turn-tally.ts";
import { budgetError, endingExitCode } from "../../core/print/result.ts";
import type { Renderer } from "./flow.ts";

type Io = { out: (t: string) => void; err: (t: string) => void };

export type CodexRenderer = Renderer & {
  /** What `-o FILE` gets: the final agent message ("" when the turn failed, as codex writes it). */
  lastMessage(): string;
};

/**
 * codex exec's dialect (0.171.0, measured: docs/providers.md "codex exec"):
 * - plain: the final message and a newline on stdout, progress on stderr (the run's header, each
 *   command with its output, each file change, each message, `tokens used`); an error on stderr;
 * - --json: one event a line: thread.started, turn.started, item.started/item.completed, then
 *   turn.completed with usage, or error and turn.failed (their `umbel` key is umbel's record).
 * An API error exits 1, as codex does; umbel's own outcomes keep umbel's codes.
 */
export function codexRenderer(
  options: { json: boolean; provider: string; structured: boolean },
  io: Io,
): CodexRenderer {
  const tally = createTurnTally();
  let cwd: string | null = null;
  const items = createCodexItems({
    provider: options.provider,
    structured: options.structured,
    cwd: () => cwd,
  });
  const line = (value: unknown) => io.out(`${JSON.stringify(value)}\n`);
  let last = "";
  return {
    init(info) {
      cwd = info.cwd;
      if (options.json) {
        line({ type: "thread.started", thread_id: info.sessionId });
        line({ type: "turn.started" });
        return;
      }
      io.err(
        [
          `umbel exec (codex exec's dialect), provider ${options.provider}`,
          "--------",
          `workdir: ${info.cwd}`,
          `model: ${info.model ?? "(the CLI's default)"}`,
          `permission mode: ${info.permissionMode}`,
          `session id: ${info.sessionId ?? "(not yet known)"}`,
          "--------",
          "user",
          `${info.prompt}\n`,
        ].join("\n"),
      );
    },
    message(message) {
      for (const step of tally.push(message)) {
        if (options.json) for (const event of items.push(step)) line(event);
        else io.err(progressOf(step, options.structured));
      }
    },
    feedback(text) {
      if (!options.json) io.err(`user\n${text}\n`);
    },
    // codex exec exits 1 for a failed turn, as claude -p does for an API error.
    exitCode: endingExitCode,
    result(r) {
      const e = r.ending;
      if (e.kind === "success") {
        last = e.text;
        if (options.json) {
          if (options.structured) line(items.finalMessage(e.text));
          line({ type: "turn.completed", usage: codexUsage(r.summary), umbel: r.umbel });
        } else {
          const usage = codexUsage(r.summary);
          const total = Number(usage.input_tokens) + Number(usage.output_tokens);
          io.err(`tokens used\n${String(total).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}\n`);
          io.out(e.text.endsWith("\n") ? e.text : `${e.text}\n`);
        }
        return;
      }
      last = "";
      const message =
        e.kind === "api-error"
          ? e.text
          : e.kind === "max-turns"
            ? `Reached max turns (${e.maxTurns})`
            : e.kind === "budget"
              ? budgetError(e)
              : e.message;
      if (options.json) {
        line({ type: "error", message });
        line({ type: "turn.failed", error: { message }, umbel: r.umbel });
      } else io.err(e.kind === "failure" ? `umbel: ${message}\n` : `ERROR: ${message}\n`);
    },
    end: () => {},
    lastMessage: () => last,
  };
}

/** The plain mode's stderr for one step, in codex exec's layout (a heading word, then the detail). */
function progressOf(step: TallyStep, structured: boolean): string {
  switch (step.kind) {
    case "text":
      return structured ? "" : `codex\n${step.text}\n`;
    case "thinking":
      return `thinking\n${step.text}\n`;
    case "call":
      return "";
    case "result": {
      const r = step.call.result;
      const kind = toolKind(step.call.name, step.call.input);
      if (!r || kind.kind === "structured") return "";
      if (kind.kind === "command") {
        const { output, exitCode } = commandResult(r.text, r.isError);
        const how = exitCode === 0 && !r.isError ? "succeeded" : `exited ${exitCode}`;
        return `exec\n${kind.command}\n ${how}:\n${output}${output.endsWith("\n") || output === "" ? "" : "\n"}`;
      }
      if (kind.kind === "file")
        return `apply patch\npatch: ${r.isError ? "failed" : "completed"}\n${kind.changes.map((c) => c.path).join("\n")}\n`;
      return `tool ${step.call.name}\n${r.isError ? "failed" : "completed"}\n`;
    }
  }
}
