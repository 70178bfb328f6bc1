import { z } from "zod";
import { FleetSpawnOptions } from "../fleet/options.ts";
import { OnLimit } from "../limits/limits.ts";
import {
  Duration,
  EnvSpec,
  isJsonObjectText,
  PermissionMode,
  ProviderId,
  type WithProvider,
  WorkerName,
} from "../schemas.ts";

/**
 * spawn's input (one zod schema per concept, as core/schemas.ts's): a module of its own, so the
 * verbs that spawn nothing (ls, status, read) do not build its ~100 nodes at every start.
 */

/** The text of a JSON object (settings travel as text so every face can pass them through). */
const JsonObjectText = z.string().refine(isJsonObjectText, "must be the text of a JSON object");

/** spawn --account: an account of config.toml (core/accounts/schema.ts), or `auto` (operations/accounts/place.ts). */
const AccountChoice = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "an account name is 1-63 of a-z 0-9 - (or auto)")
  .describe(
    "Run the worker on this account of config.toml ([accounts.NAME]: its sign-in home and token variables; umbel accounts lists them). None: the provider's default sign-in. auto: the provider's account with the most headroom by the windows its workers last showed, then the fewest live workers (never an API-key one; none with headroom: exit 120 with the earliest reset)",
  );

export const SpawnInput = z
  .object({
    name: WorkerName,
    provider: ProviderId.optional().describe(
      "Which agent CLI runs the worker (default: UMBEL_PROVIDER, else config.toml's provider, else claude)",
    ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory of the worker (default: the current directory)"),
    model: z.string().min(1).optional().describe("Model to run (passed to the CLI's --model)"),
    permissionMode: PermissionMode.optional().describe(
      "Permission mode passed to the CLI (claude: --permission-mode). None: the CLI's own default, as in its TUI (claude 2.1.332: auto, a classifier approves tool calls; codex: a workspace-write sandbox, asking for more; gemini: asks before edits and shell commands that change files; opencode: asks outside the project)",
    ),
    allowedTools: z
      .array(z.string().min(1))
      .optional()
      .describe("Tools the worker may use without asking (claude: --allowedTools), e.g. Bash(git:*)"),
    unattended: z
      .boolean()
      .optional()
      .describe("Never stop for permission prompts (claude: bypassPermissions). Use only in a sandbox"),
    nonInteractive: z
      .boolean()
      .optional()
      .describe(
        "Never ask a person, as the CLI's own non-interactive mode (claude -p, codex exec, gemini -p; umbel -p's workers): a tool call that would need one is refused and the model goes on",
      ),
    env: EnvSpec.optional(),
    startTimeout: Duration.optional().describe(
      "How long spawn waits for the TUI to become ready (default 60s, at most 168h)",
    ),
    disallowedTools: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Tools the worker may not use, in the CLI's tool names (claude --disallowedTools, gemini tools.exclude, opencode deny rules; not codex)",
      ),
    systemPrompt: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Replace the CLI's system prompt (claude --system-prompt, codex model_instructions_file, gemini GEMINI_SYSTEM_MD, opencode agent prompt)",
      ),
    appendSystemPrompt: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Add this to the end of the system prompt (claude --append-system-prompt, codex developer_instructions, gemini GEMINI.md, opencode instructions)",
      ),
    addDir: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "More directories the worker may use (claude/codex --add-dir, gemini --include-directories; trust questions answered yes; not opencode)",
      ),
    settings: JsonObjectText.optional().describe(
      "claude settings as JSON object text, merged into umbel's own (claude only; your hooks run beside umbel's)",
    ),
    mcpConfig: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "MCP server configs in claude's --mcp-config format, JSON text or file paths (translated for codex, gemini and opencode)",
      ),
    resumeSession: z
      .string()
      .min(1)
      .optional()
      .describe("Start by resuming this session of the CLI (claude: --resume <session id>)"),
    continueSession: z
      .boolean()
      .optional()
      .describe(
        "Start by continuing the CLI's most recent conversation in cwd (claude --continue, codex resume --last, opencode --continue; not gemini)",
      ),
    structured: z
      .boolean()
      .optional()
      .describe(
        "Give the worker umbel's StructuredOutput tool (an MCP server run with it), so its turns can take --json-schema",
      ),
    ...FleetSpawnOptions.shape,
    onLimit: OnLimit.optional(),
    account: AccountChoice.optional(),
  })
  .strict();
/** What spawn runs: the schema's input with its provider resolved by the face. */
export type SpawnInput = WithProvider<z.infer<typeof SpawnInput>>;
