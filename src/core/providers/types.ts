import type { PermissionMode, ProviderId } from "../schemas.ts";

/**
 * The contract every provider file fulfils: data and pure functions only. The engine (operations)
 * does the I/O and asks the provider what the screen means, which keys to press, and how to read
 * the events and the transcript.
 */

/** One line of the worker's events log, as the hook script appended it. */
export type HookEvent = {
  /** 0-based line number in the events log: the race-free ordering of everything a worker reports. */
  readonly index: number;
  readonly name: string;
  readonly payload: Readonly<Record<string, unknown>>;
};

/** What a hook event means for the turn protocol (provider-neutral). */
export type TurnSignal =
  | { kind: "session-start"; sessionId: string | null; transcriptPath: string | null }
  | { kind: "submitted"; promptId: string | null; prompt: string | null; human: boolean }
  | { kind: "stop"; promptId: string | null; message: string | null; backgroundTasks: string[] }
  | { kind: "failure"; promptId: string | null; error: string; message: string | null }
  | { kind: "input"; text: string; detail: string }
  | { kind: "subagent-start"; id: string }
  | { kind: "subagent-stop"; id: string }
  | { kind: "progress" }
  | { kind: "session-end"; reason: string }
  | { kind: "ignore" };

export type LaunchInput = {
  readonly bin: string;
  readonly sessionId: string;
  /** The shell command a hook runs; it reads the payload on stdin. */
  readonly hookCommand: string;
  readonly model?: string | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  readonly allowedTools?: readonly string[] | undefined;
  readonly unattended?: boolean | undefined;
  readonly resumeSessionId?: string | undefined;
  readonly isRoot: boolean;
};

export type LaunchPlan = {
  readonly argv: readonly string[];
  /** Fixed environment the provider needs (lowest precedence after the allowlist). */
  readonly env: Readonly<Record<string, string>>;
};

/** How the provider reads a screen. `keys` are tmux key names, sent one call at a time. */
export type ScreenState =
  | { kind: "dialog"; dialog: string; keys: readonly string[]; fatal?: string }
  | { kind: "sign-in"; text: string }
  | { kind: "input"; text: string }
  | { kind: "error"; text: string }
  | { kind: "busy" }
  | { kind: "ready" }
  | { kind: "exited"; text: string }
  | { kind: "unknown" };

export type Provider = {
  readonly id: ProviderId;
  readonly displayName: string;
  /** Environment variable that overrides the binary (tests, CLIs not on PATH). */
  readonly binEnv: string;
  readonly defaultBin: string;
  /** Variables this provider needs from umbel's environment, named one by one. */
  readonly envNames: readonly string[];
  /** Variables that must never reach a worker implicitly (they may still be passed with --env). */
  readonly explicitOnlyEnv: readonly string[];
  /** Hook events to register; the engine builds one command per event. */
  readonly hookEvents: readonly string[];
  planLaunch(input: LaunchInput): LaunchPlan;
  classifyScreen(screen: string): ScreenState;
  /** The screen without what moves while nothing happens (spinner glyphs, elapsed-time counters). */
  stillScreen(screen: string): string;
  /** The text to paste for a prompt (normalised; neutralises command prefixes). */
  preparePrompt(prompt: string): string;
  /** The hook event that proves a prompt was taken. */
  readonly submitEvent: string;
  interpretEvent(event: HookEvent): TurnSignal;
  /** The final assistant text of the turn started by promptId (or the last human turn). */
  parseAnswer(transcript: string, promptId: string | null): TranscriptAnswer;
};

export type TranscriptAnswer = {
  readonly text: string | null;
  /** The provider wrote its end-of-turn marker for this turn (safe to stop re-reading). */
  readonly complete: boolean;
  readonly sessionId: string | null;
  readonly assistantMessages: number;
};
