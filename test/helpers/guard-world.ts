import { recordStructuredCall } from "../../src/operations/guard/structured-call.ts";
import { BUSY, IDLE } from "../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "./fake-deps.ts";

/**
 * What the fake model does with one prompt: its answer, and StructuredOutput calls first; `limit`:
 * a subscription usage limit instead (claude 2.1.332: the transcript's usage_limit_reached line,
 * then StopFailure rate_limit).
 */
export type FakeTurn = {
  answer?: string;
  calls?: Record<string, unknown>[];
  never?: true;
  limit?: true;
  /** After its calls the turn goes on (the fifth invalid call's answer held) until an Escape. */
  held?: true;
};

/** The limit claude's transcript names (limits.md §1.4, trimmed), for the turn of `promptId`. */
export const LIMIT_TEXT = "You've hit your 5-hour limit · resets 12:04pm (UTC) · out of usage credits";
const LIMIT_RESET = 1796126678;

function limitLines(promptId: string, prompt: string): string {
  const human = {
    type: "user",
    promptId,
    origin: { kind: "human" },
    message: { role: "user", content: prompt },
  };
  const limit = {
    type: "assistant",
    message: { id: `e-${promptId}`, role: "assistant", content: [{ type: "text", text: LIMIT_TEXT }] },
    apiError: "usage_limit_reached",
    apiErrorParams: { rate_limit_info: { resetsAt: LIMIT_RESET, rateLimitType: "five_hour" } },
    error: "rate_limit",
    isApiErrorMessage: true,
    apiErrorStatus: 429,
  };
  return `${JSON.stringify(human)}\n${JSON.stringify(limit)}\n`;
}

const TRANSCRIPT = "/t/s.jsonl";

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

/**
 * A ready claude worker on in-memory ports whose fake TUI takes each prompt on Enter
 * (UserPromptSubmit), makes the turn's StructuredOutput calls through the real tool operation (as
 * umbel's MCP server does), and ends the turn with Stop after `answerMs`. `turn(prompt, n)` decides.
 */
export function guardWorld(
  turn: (prompt: string, n: number) => FakeTurn,
  /** `escapeMs`: how long an Escape takes to stop a busy turn (claude: a held tool call is cancelled). */
  options: { structured?: boolean; answerMs?: number; escapeMs?: number } = {},
): FakeWorld & { prompts: string[] } {
  const world = createFakeWorld();
  const name = "w1";
  addWorker(world, name, { screen: IDLE });
  const meta = world.sessions.get(name)?.meta;
  if (meta && options.structured) meta.structured = true;
  world.hook(name, ev("SessionStart", { transcript_path: TRANSCRIPT }));
  const prompts: string[] = [];
  world.tmux.onKeys = (target, keys) => {
    const pane = world.tmux.panes.get(target);
    if (target !== name || !pane) return;
    if (keys.includes("Escape") && pane.screen === BUSY) {
      if (options.escapeMs === undefined) pane.screen = IDLE;
      else
        world.clock.at(world.clock.now() + options.escapeMs, () => {
          pane.screen = IDLE;
        });
      return;
    }
    if (!keys.includes("Enter") || pane.screen !== IDLE) return;
    const prompt = world.tmux.pasted.at(-1)?.text ?? "";
    prompts.push(prompt);
    const n = prompts.length;
    const promptId = `p${n}`;
    pane.screen = BUSY;
    world.hook(name, ev("UserPromptSubmit", { prompt_id: promptId, prompt }));
    const plan = turn(prompt, n);
    if (plan.never) return;
    world.clock.at(world.clock.now() + (options.answerMs ?? 500), () => {
      void (async () => {
        if (plan.limit) {
          world.files.set(TRANSCRIPT, (world.files.get(TRANSCRIPT) ?? "") + limitLines(promptId, prompt));
          pane.screen = IDLE;
          world.hook(
            name,
            ev("StopFailure", {
              prompt_id: promptId,
              error: "rate_limit",
              last_assistant_message: LIMIT_TEXT,
            }),
          );
          return;
        }
        for (const call of plan.calls ?? []) await recordStructuredCall(world.deps, name, call);
        if (plan.held) return;
        pane.screen = IDLE;
        world.hook(
          name,
          ev("Stop", { prompt_id: promptId, last_assistant_message: plan.answer ?? `answer ${n}` }),
        );
      })();
    });
  };
  return Object.assign(world, { prompts });
}
