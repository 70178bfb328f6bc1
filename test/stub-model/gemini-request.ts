// Reads a Gemini API request as gemini-cli 0.61.0 sends it: which endpoint and kind it is, and
// what the human typed (with the parts gemini-cli injects stripped).
import { isRecord } from "./anthropic-request.ts";
import type { MainTurn, RequestKind, ToolResultSeen } from "./types.ts";

/** `POST /v1beta/models/<model>:<method>` (also `/v1/…`); anything else is not a model call. */
export interface GeminiRoute {
  model: string;
  method: "streamGenerateContent" | "generateContent" | "countTokens" | "other";
}

interface GeminiContent {
  role: string;
  parts: Record<string, unknown>[];
}

export interface GeminiBody {
  contents: GeminiContent[];
  system: string;
  toolNames: string[];
  /** `generationConfig.responseJsonSchema` (or `responseSchema`) of a structured-output request. */
  schema: Record<string, unknown> | undefined;
}

export type GeminiClassified =
  | { kind: Extract<RequestKind, "classifier" | "title" | "other">; prompt: string }
  | { kind: "main"; turn: MainTurn };

/** The router asks for `{complexity_reasoning, complexity_score}` once per prompt when the model is Auto. */
const ROUTER_FIELD = "complexity_score";
/** The next session summarises the previous one at startup ("Summarize the user's primary intent …"). */
const SUMMARY_MARK = "Summarize the user's primary intent";
/** Parts gemini-cli adds to a user turn: the first turn's environment, a BeforeAgent hook's context. */
const INJECTED = /^\s*<(session_context|hook_context)>/;

export function parseRoute(path: string): GeminiRoute | null {
  const match = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  if (!match) return null;
  const method = match[2] ?? "";
  const known = ["streamGenerateContent", "generateContent", "countTokens"] as const;
  return {
    model: decodeURIComponent(match[1] ?? ""),
    method: (known as readonly string[]).includes(method) ? (method as GeminiRoute["method"]) : "other",
  };
}

export function readGeminiBody(body: unknown): GeminiBody {
  const raw = isRecord(body) ? body : {};
  const config = isRecord(raw.generationConfig) ? raw.generationConfig : {};
  const schema = isRecord(config.responseJsonSchema)
    ? config.responseJsonSchema
    : isRecord(config.responseSchema)
      ? config.responseSchema
      : undefined;
  const tools = Array.isArray(raw.tools) ? raw.tools.filter(isRecord) : [];
  return {
    contents: Array.isArray(raw.contents) ? raw.contents.filter(isRecord).map(toContent) : [],
    system: isRecord(raw.systemInstruction) ? textOfParts(toContent(raw.systemInstruction).parts) : "",
    toolNames: tools.flatMap((tool) =>
      Array.isArray(tool.functionDeclarations)
        ? tool.functionDeclarations.filter(isRecord).map((declaration) => String(declaration.name ?? ""))
        : [],
    ),
    schema,
  };
}

/**
 * Streaming requests are the agent loop (main). Non-streaming ones are side requests: the Auto
 * router (kind `classifier`), the startup summary of the previous session (kind `title`), and any
 * other structured-output call (kind `other`).
 */
export function classifyGemini(route: GeminiRoute, body: GeminiBody): GeminiClassified {
  const turn = readGeminiTurn(body.contents);
  if (route.method === "streamGenerateContent") return { kind: "main", turn };
  const properties = isRecord(body.schema?.properties) ? body.schema.properties : {};
  if (ROUTER_FIELD in properties) return { kind: "classifier", prompt: turn.prompt };
  const everything = body.contents.map((content) => textOfParts(content.parts)).join("\n");
  if (everything.includes(SUMMARY_MARK)) return { kind: "title", prompt: turn.prompt };
  return { kind: "other", prompt: turn.prompt };
}

/** The last `user` content: its typed text, injected parts, and the function responses it carries. */
function readGeminiTurn(contents: readonly GeminiContent[]): MainTurn {
  const last = contents.findLast((content) => content.role === "user");
  const texts = (last?.parts ?? [])
    .filter((part) => typeof part.text === "string" && part.thought !== true)
    .map((part) => String(part.text));
  const human = texts.filter((text) => !INJECTED.test(text)).join("");
  const injected = texts.filter((text) => INJECTED.test(text)).join("");
  const toolResults = functionResponsesOf(last?.parts ?? []);
  const trigger =
    human !== "" ? "prompt" : toolResults.length > 0 ? "tool_result" : injected !== "" ? "notice" : "prompt";
  return { trigger, prompt: human, injected, toolResults, messageCount: contents.length };
}

/** `{functionResponse: {id, name, response: {output} | {error}}}` parts as tool results. */
function functionResponsesOf(parts: readonly Record<string, unknown>[]): ToolResultSeen[] {
  return parts.flatMap((part) => {
    const response = part.functionResponse;
    if (!isRecord(response)) return [];
    const payload = isRecord(response.response) ? response.response : {};
    const isError = payload.error !== undefined;
    const value = isError ? payload.error : payload.output;
    return [
      {
        toolUseId: String(response.id ?? ""),
        isError,
        text: typeof value === "string" ? value : JSON.stringify(value ?? ""),
      },
    ];
  });
}

/** The concatenated `text` of parts (thoughts left out). */
function textOfParts(parts: readonly Record<string, unknown>[]): string {
  return parts
    .filter((part) => typeof part.text === "string" && part.thought !== true)
    .map((part) => String(part.text))
    .join("");
}

function toContent(raw: Record<string, unknown>): GeminiContent {
  const parts = Array.isArray(raw.parts) ? raw.parts.filter(isRecord) : [];
  return { role: String(raw.role ?? "user"), parts };
}
