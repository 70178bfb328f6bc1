import { UsageError } from "../../core/errors.ts";
import type { PermissionMode } from "../../core/schemas.ts";
import {
  type DialectArgs,
  type FlagSpec,
  lastValue,
  parseDialectArgv,
  UMBEL_FLAGS,
  umbelRaw,
} from "./dialect-args.ts";

/**
 * `umbel -p --dialect gemini`: the flags of `gemini -p` (0.61.0) that make sense through a TUI, with
 * gemini's spellings and meanings, plus umbel's own. gemini's `-p` takes the prompt as its value.
 */
const SPECS: Record<string, FlagSpec> = {
  "-p": { key: "prompt", kind: "optional" },
  "--prompt": { key: "prompt", kind: "optional" },
  "-m": { key: "model", kind: "value" },
  "--model": { key: "model", kind: "value" },
  "-o": { key: "outputFormat", kind: "value" },
  "--output-format": { key: "outputFormat", kind: "value" },
  "-y": { key: "yolo", kind: "flag" },
  "--yolo": { key: "yolo", kind: "flag" },
  "--approval-mode": { key: "approvalMode", kind: "value" },
  "--include-directories": { key: "includeDirectories", kind: "repeat" },
  "--allowed-tools": { key: "allowedTools", kind: "repeat" },
  "-r": { key: "resume", kind: "optional" },
  "--resume": { key: "resume", kind: "optional" },
  // umbel always trusts the worker's folder for its session (docs/providers.md, Gemini CLI).
  "--skip-trust": { key: "skipTrust", kind: "flag" },
  "-h": { key: "help", kind: "flag" },
  "--help": { key: "help", kind: "flag" },
  ...UMBEL_FLAGS,
  "--cwd": { key: "cwd", kind: "value" },
  "--json-schema": { key: "jsonSchema", kind: "value" },
};

/** gemini -p flags umbel does not mirror: named in the error instead of "unknown option". */
const NOT_MIRRORED = new Set([
  "-d",
  "--debug",
  "-i",
  "--prompt-interactive",
  "-w",
  "--worktree",
  "-s",
  "--sandbox",
  "--policy",
  "--admin-policy",
  "--acp",
  "--experimental-acp",
  "--allowed-mcp-server-names",
  "-e",
  "--extensions",
  "-l",
  "--list-extensions",
  "--session-file",
  "--session-id",
  "--list-sessions",
  "--delete-session",
  "--screen-reader",
  "--raw-output",
  "--accept-raw-output-risk",
  "-v",
  "--version",
]);

/** gemini's --approval-mode values as umbel's permission modes. */
const APPROVAL_MODES: Record<string, PermissionMode> = {
  default: "default",
  auto_edit: "acceptEdits",
  yolo: "bypassPermissions",
  plan: "plan",
};

export type GeminiArgs = {
  /** Raw input for PrintInput, minus the prompt (stdin is read later). */
  readonly raw: Record<string, unknown>;
  /** `-p`'s value, else the positional words joined by a space (gemini's `[query..]`). */
  readonly prompt: string;
  readonly help: boolean;
};

export function parseGeminiArgs(argv: readonly string[]): GeminiArgs {
  const args = parseDialectArgv(argv, SPECS, {
    notMirrored: NOT_MIRRORED,
    cli: "umbel -p --dialect gemini",
    help: "umbel -p --dialect gemini --help",
  });
  // `umbel -p --dialect gemini -p hi`: the print switch is a -p with no value of its own.
  const flagPrompt = args.values.prompt?.filter((v) => v !== "").at(-1) ?? "";
  if (flagPrompt !== "" && args.positionals.length > 0)
    throw new UsageError("Cannot use both a positional prompt and the --prompt (-p) flag together");
  const raw: Record<string, unknown> = { ...umbelRaw(args), ...geminiRaw(args) };
  for (const key of ["model", "cwd", "jsonSchema"]) {
    const value = lastValue(args, key);
    if (value !== undefined) raw[key] = value;
  }
  return {
    raw,
    prompt: flagPrompt !== "" ? flagPrompt : args.positionals.join(" "),
    help: args.flags.has("help"),
  };
}

function geminiRaw(args: DialectArgs): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const format = lastValue(args, "outputFormat");
  if (format !== undefined) {
    raw.outputFormat = format;
    // gemini's stream-json needs no --verbose; PrintInput's rule is claude -p's.
    raw.verbose = format === "stream-json";
  }
  const mode = lastValue(args, "approvalMode");
  if (args.flags.has("yolo") && mode !== undefined)
    throw new UsageError(
      "Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.",
    );
  if (args.flags.has("yolo")) raw.permissionMode = "bypassPermissions";
  if (mode !== undefined) {
    const known = APPROVAL_MODES[mode];
    if (!known)
      throw new UsageError(
        `--approval-mode ${mode}: must be one of ${Object.keys(APPROVAL_MODES).join(", ")}`,
        { flag: "--approval-mode" },
      );
    raw.permissionMode = known;
  }
  // yargs arrays of nargs 1, each value comma-separated (gemini's coerceCommaSeparated).
  const list = (key: string) =>
    args.values[key]
      ?.flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter(Boolean);
  if (args.values.includeDirectories) raw.addDir = list("includeDirectories");
  if (args.values.allowedTools) raw.allowedTools = list("allowedTools");
  const resume = lastValue(args, "resume");
  if (resume !== undefined) Object.assign(raw, resumeOf(resume.trim()));
  return raw;
}

/**
 * gemini's `--resume`: empty or `latest` is its most recent session here (umbel's --continue); an
 * index into its session list means nothing to umbel; anything else is a session id or a worker.
 */
function resumeOf(value: string): Record<string, unknown> {
  if (value === "" || value === "latest") return { continue: true };
  if (/^\d+$/.test(value))
    throw new UsageError(
      `--resume ${value}: gemini's session index is not supported; give a session id or a umbel worker name`,
      { flag: "--resume" },
    );
  return { resume: value };
}
