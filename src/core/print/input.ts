import { z } from "zod";
import { choiceError } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";
import { GuardFields, orphanGuardField } from "../guard/fields.ts";
import { getProvider } from "../providers/registry.ts";
import { Duration, MaxTokens, PermissionMode, type WithProvider } from "../schemas.ts";
import { SpawnInput } from "../spawn/input.ts";
import { isBlankPrompt } from "../worker/prompt.ts";

/** SpawnInput's field schemas: -p's flags that start a worker validate as spawn's do. */
const spawn = SpawnInput.shape;

/**
 * `umbel -p`: the flags of `claude -p` it mirrors (same spelling, same meaning), plus umbel's own.
 * The face parses argv into this object; `checkPrintInput` holds the rules between flags. A flag
 * that is a spawn option is SpawnInput's field (its schema, described in -p's words), passed on
 * under its own name to the worker -p makes (`spawnOfPrint`).
 */
export const PrintInput = z
  .object({
    prompt: z.string().describe("The prompt: argv first, then stdin (joined by a newline)"),
    outputFormat: z
      .enum(["text", "json", "stream-json"], { error: choiceError })
      .default("text")
      .describe("text (the answer), json (claude's result object) or stream-json (one message per line)"),
    inputFormat: z
      .enum(["text", "stream-json"], { error: choiceError })
      .default("text")
      .describe("text, or stream-json: one user message per stdin line, a turn each"),
    verbose: z.boolean().default(false).describe("Required by stream-json; with json, print every message"),
    provider: spawn.provider.describe(
      "Which agent CLI runs the turn (default: UMBEL_PROVIDER, else config.toml's provider, else the dialect's own CLI)",
    ),
    model: spawn.model.describe("Model to run"),
    allowedTools: spawn.allowedTools.describe("Tools allowed without asking"),
    disallowedTools: spawn.disallowedTools.describe("Tools the worker may not use"),
    // PermissionMode's own description (spawn's names each CLI's default).
    permissionMode: PermissionMode.optional(),
    systemPrompt: spawn.systemPrompt.describe("Replace the system prompt"),
    appendSystemPrompt: spawn.appendSystemPrompt.describe("Add to the end of the system prompt"),
    addDir: spawn.addDir.describe("More directories the worker may use"),
    settings: spawn.settings.describe("Settings (JSON text; a file path is read by the face)"),
    mcpConfig: spawn.mcpConfig.describe("MCP server configs: JSON text or file paths"),
    maxTurns: z.number().int().positive().optional().describe("Stop after this many model turns"),
    maxBudgetUsd: z
      .number()
      .positive()
      .optional()
      .describe(
        "Stop once the run has cost this many USD, as the provider records it (claude's statusline; umbel reads no cost from codex, gemini or opencode)",
      ),
    maxTokens: MaxTokens.optional(),
    onLimit: spawn.onLimit,
    account: spawn.account.describe(
      "Run on this account of config.toml ([accounts.NAME]); none: the default sign-in",
    ),
    continue: z.boolean().default(false).describe("Continue the most recent conversation in cwd"),
    resume: spawn.resumeSession.describe(
      "Continue a conversation: a umbel worker name or the provider's session id",
    ),
    cwd: spawn.cwd.describe("Working directory (default: the current directory)"),
    env: spawn.env,
    timeout: Duration.optional().describe("Give up after this long (default 30m, at most 168h)"),
    // A new worker's start is bounded apart from the turn, as spawn's is (a slow start on loaded
    // cores is not a slow turn; a CLI hung while starting is not left to eat the whole --timeout).
    startTimeout: spawn.startTimeout,
    idleTimeout: Duration.optional().describe(
      "Give up once the worker has been still this long (at most 168h)",
    ),
    name: spawn.name.optional().describe("Run in the named worker, creating it if needed, and keep it"),
    // The guardrails (docs/guardrails.md): claude's --json-schema, and umbel's accept checks.
    ...GuardFields,
  })
  .strict();
/** What -p runs: the flags with the provider resolved (faces/print/parse-input.ts). */
export type PrintInput = WithProvider<z.infer<typeof PrintInput>>;

/** The launch-time flags: a worker that is already running cannot take them. */
export const LAUNCH_FLAGS = [
  "model",
  "permissionMode",
  "allowedTools",
  "disallowedTools",
  "systemPrompt",
  "appendSystemPrompt",
  "addDir",
  "settings",
  "mcpConfig",
  "onLimit",
  "account",
] as const satisfies readonly (keyof PrintInput & keyof SpawnInput)[];

/** What -p passes on, by name, to a worker it makes: the launch flags, its cwd, env and start bound. */
const SPAWN_FIELDS = [
  ...LAUNCH_FLAGS,
  "cwd",
  "env",
  "startTimeout",
] as const satisfies readonly (keyof PrintInput & keyof SpawnInput)[];

/**
 * The spawn of the worker -p makes for a turn: non-interactive (the vendor's -p never asks a person:
 * what would need one is refused and the model goes on), resuming or continuing as `how` says, with
 * umbel's StructuredOutput tool for --json-schema, and the spawn options given.
 */
export function spawnOfPrint(
  input: PrintInput,
  name: string,
  how: { resumeSession?: string; continueSession?: boolean },
): SpawnInput {
  const spawn: SpawnInput = {
    name,
    provider: input.provider,
    nonInteractive: true,
    ...how,
    ...(input.jsonSchema === undefined ? {} : { structured: true }),
  };
  for (const key of SPAWN_FIELDS) {
    if (input[key] !== undefined) Object.assign(spawn, { [key]: input[key] });
  }
  return spawn;
}

/** Rules between flags, with claude -p's own messages where it has the same rule. */
export function checkPrintInput(input: PrintInput): void {
  if (input.outputFormat === "stream-json" && !input.verbose)
    throw new UsageError("When using --print, --output-format=stream-json requires --verbose");
  if (input.inputFormat === "stream-json" && input.outputFormat !== "stream-json")
    throw new UsageError("--input-format=stream-json requires output-format=stream-json.");
  if (input.continue && input.resume !== undefined)
    throw new UsageError("--continue and --resume name different conversations; give one");
  if (input.inputFormat === "text" && isBlankPrompt(input.prompt))
    throw new UsageError("no prompt: give it as an argument or on stdin");
  const orphan = orphanGuardField(input);
  if (orphan) throw new UsageError(orphan.message);
  const provider = getProvider(input.provider);
  if (input.maxBudgetUsd !== undefined && !provider.costRecord)
    throw new UsageError(
      `--max-budget-usd needs a cost the provider records, and ${provider.displayName} records none (umbel never guesses one from a price table); use --max-tokens`,
      { provider: provider.id },
    );
}

/** `--input-format stream-json`: each line `{"type":"user","message":{"role":"user","content":…}}`. */
export function parseStreamInput(text: string): string[] {
  const prompts: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`stdin line ${i + 1} is not JSON (--input-format stream-json)`, { line: i + 1 });
    }
    const v = value as { type?: unknown; message?: { content?: unknown } };
    if (v?.type !== "user")
      throw new UsageError(`stdin line ${i + 1}: only {"type":"user",…} messages are supported`, {
        line: i + 1,
      });
    const prompt = contentText(v.message?.content);
    if (prompt === null)
      throw new UsageError(
        `stdin line ${i + 1}: the message content must be text (images are not supported)`,
        {
          line: i + 1,
        },
      );
    if (isBlankPrompt(prompt))
      throw new UsageError(`stdin line ${i + 1}: the message is empty`, { line: i + 1 });
    prompts.push(prompt);
  });
  if (prompts.length === 0) throw new UsageError("no user message on stdin (--input-format stream-json)");
  return prompts;
}

function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const block of content) {
    const b = block as { type?: unknown; text?: unknown } | null;
    if (b?.type !== "text" || typeof b.text !== "string") return null;
    texts.push(b.text);
  }
  return texts.join("\n");
}
