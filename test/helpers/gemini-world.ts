// A throwaway world for the real gemini CLI (or test/fixtures/fake-gemini.sh): HOME, a umbel-style GEMINI_CLI_HOME made from
// planGeminiHome (as the engine makes it), a work dir, an events log fed by hooks/hook.sh, and a
// private tmux server driven only through src/adapters/tmux.ts (with hooks/launch.sh in the pane).
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux } from "../../src/adapters/tmux.ts";
import { countEvents, parseEvents } from "../../src/core/events.ts";
import type { TmuxPort as Tmux } from "../../src/core/ports.ts";
import { interpretGeminiEvent } from "../../src/core/providers/gemini/events.ts";
import { planGeminiHome } from "../../src/core/providers/gemini/home.ts";
import { GEMINI_DELIVERY, gemini, prepareGeminiPrompt } from "../../src/core/providers/gemini/provider.ts";
import { classifyGeminiScreen, type GeminiScreenState } from "../../src/core/providers/gemini/screen.ts";
import { type GeminiAnswer, parseGeminiAnswer } from "../../src/core/providers/gemini/transcript.ts";
import { findTranscriptPath } from "../../src/core/turn.ts";
import { renderEnvScript } from "../../src/core/worker-env.ts";
import { eventually } from "./sandbox.ts";

const REPO = join(import.meta.dir, "..", "..");
export const STUB_KEY = "stub-gemini-key-0123456789";

export interface GeminiWorld {
  readonly dir: string;
  readonly work: string;
  /** $HOME: gemini must leave it empty (everything goes to GEMINI_CLI_HOME). */
  readonly home: string;
  readonly geminiHome: string;
  readonly eventsLog: string;
  readonly tmux: Tmux;
  /** The env a gemini child gets: nothing inherited but PATH. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts `gemini <args>` in session `name` through hooks/launch.sh (env via a tmux buffer). */
  start(name: string, args: string[], extraEnv?: Record<string, string>): Promise<void>;
  events(): ReturnType<typeof parseEvents>;
  eventCount(): number;
  transcript(): string;
  /** launch.sh's record of how the CLI ended, or null while it runs. */
  exit(): { exitCode?: number; signal?: string } | null;
  dispose(): Promise<void>;
}

/** `stubUrl` null: no model endpoint (the fake needs none). */
export async function createGeminiWorld(bin: string, stubUrl: string | null): Promise<GeminiWorld> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-gemini-"));
  const work = join(dir, "work");
  const home = join(dir, "home");
  const events = join(dir, "events");
  const geminiHome = join(dir, "gemini");
  const eventsLog = join(events, "hooks.jsonl");
  await Promise.all([mkdir(work), mkdir(home), mkdir(events), mkdir(join(dir, "tmp"))]);
  const plan = planGeminiHome({
    home: geminiHome,
    userDir: null,
    userSettings: null,
    userFiles: [],
    hookCommand: `sh '${join(REPO, "hooks", "hook.sh")}' '${eventsLog}'`,
    eventsLog,
    envNames: ["GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"],
  });
  for (const entry of plan.entries) {
    if (entry.kind === "dir") await mkdir(entry.path, { recursive: true, mode: entry.mode });
    else if (entry.kind === "file") {
      await writeFile(entry.path, entry.content);
      await chmod(entry.path, entry.mode);
    } else await symlink(entry.target, entry.path);
  }
  const socket = `umbel-gemini-${randomUUID().slice(0, 8)}`;
  const tmux = createTmux({ socket, hostEnv: process.env, timeoutMs: 15_000 });
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: join(dir, "tmp"),
    LANG: "C.UTF-8",
    GEMINI_CLI_HOME: geminiHome,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_API_KEY: STUB_KEY,
    ...(stubUrl === null ? {} : { GOOGLE_GEMINI_BASE_URL: stubUrl }),
    ...extra,
  });
  return {
    dir,
    work,
    home,
    geminiHome,
    eventsLog,
    tmux,
    env,
    async start(name, args, extraEnv = {}) {
      const bufferName = `umbel-env-${name}-${randomUUID().slice(0, 8)}`;
      await tmux.newSession({
        name,
        cwd: work,
        width: 160,
        height: 50,
        command: ["sh", join(REPO, "hooks", "launch.sh"), socket, bufferName, events, bin, ...args],
        bufferName,
        bufferContent: renderEnvScript(env(extraEnv)),
      });
    },
    events: () => parseEvents(gemini, readText(eventsLog)),
    eventCount: () => countEvents(readText(eventsLog)),
    transcript() {
      const path = findTranscriptPath(gemini, parseEvents(gemini, readText(eventsLog)));
      return path === null ? "" : readText(path);
    },
    exit() {
      const text = readText(join(events, "exit.json"));
      return text === "" ? null : (JSON.parse(text) as { exitCode?: number; signal?: string });
    },
    async dispose() {
      await tmux.killServer().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function readText(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** What umbel's send and wait will do with a gemini worker, for tests of the real CLI and the fake. */
export function driveGemini(world: GeminiWorld, name: string) {
  const screen = async () => (await world.tmux.capture(name)) ?? "";
  const state = async () => classifyGeminiScreen(await screen());
  return {
    screen,
    state,
    /** Unique-buffer paste, the provider's pause, Enter; Enter again (only on the composer) until BeforeAgent. */
    async send(prompt: string): Promise<{ baseline: number; turnKey: string; enters: number }> {
      const baseline = world.eventCount();
      await world.tmux.paste(name, prepareGeminiPrompt(prompt), `umbel-send-${randomUUID().slice(0, 8)}`);
      // The engine's own pause (an Enter too soon after a paste becomes a newline), not a wait.
      await Bun.sleep(GEMINI_DELIVERY.enterDelayMs);
      for (let enters = 1; enters <= GEMINI_DELIVERY.maxEnters; enters++) {
        await world.tmux.sendKeys(name, ["Enter"]);
        const submitted = await eventually(
          () =>
            world
              .events()
              .slice(baseline)
              .find((e) => interpretGeminiEvent(e).kind === "submitted") ?? null,
          GEMINI_DELIVERY.confirmWindowMs,
        ).catch(() => null);
        if (submitted) return { baseline, turnKey: String(submitted.payload.timestamp), enters };
        const now = await state();
        if (now.kind !== "ready")
          throw new Error(`prompt not taken, screen is ${now.kind}:\n${await screen()}`);
      }
      throw new Error(`prompt not taken after ${GEMINI_DELIVERY.maxEnters} Enters:\n${await screen()}`);
    },
    afterAgent: (baseline: number, timeoutMs = 30_000) =>
      eventually(
        () =>
          world
            .events()
            .slice(baseline)
            .some((e) => e.name === "AfterAgent"),
        timeoutMs,
        "AfterAgent",
      ),
    /** The transcript's reading of the turn once it is settled (read re-reads for up to 5 s too). */
    answer: (turnKey: string | null): Promise<GeminiAnswer> =>
      eventually(() => {
        const parsed = parseGeminiAnswer(world.transcript(), turnKey);
        return parsed.complete ? parsed : null;
      }, 5_000),
    /** Polls the screen until the provider classifies it as `kind`. */
    until: async <K extends GeminiScreenState["kind"]>(kind: K, timeoutMs = 20_000) =>
      eventually(
        async () => {
          const now = await state();
          return now.kind === kind ? (now as Extract<GeminiScreenState, { kind: K }>) : null;
        },
        timeoutMs,
        `a ${kind} screen`,
      ),
  };
}
