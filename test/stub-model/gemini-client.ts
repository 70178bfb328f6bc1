// Test-side helpers for the Gemini dialect: request bodies shaped like gemini-cli 0.61.0's, and an
// SSE reader for streamGenerateContent answers.

/** The preamble gemini-cli puts before the first prompt, as its own text part (shortened). */
export const SESSION_CONTEXT =
  "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n…\n</session_context>";

export interface GeminiChunk {
  candidates?: { content?: { role?: string; parts?: Record<string, unknown>[] }; finishReason?: string }[];
  usageMetadata?: Record<string, number>;
  modelVersion?: string;
}

/** A first-turn body: the session context and the prompt as two parts of one user content. */
export function geminiFirstTurn(
  prompt: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    contents: [{ role: "user", parts: [{ text: SESSION_CONTEXT }, { text: prompt }] }],
    systemInstruction: { role: "user", parts: [{ text: "You are Gemini CLI, an interactive CLI agent." }] },
    tools: [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "write_file" }] }],
    generationConfig: { temperature: 1, topP: 0.95 },
    ...extra,
  };
}

/** A later request that carries the result of a function call. */
export function geminiToolResult(
  prompt: string,
  call: { id: string; name: string; args: Record<string, unknown> },
  output: string,
): Record<string, unknown> {
  return {
    contents: [
      { role: "user", parts: [{ text: SESSION_CONTEXT }, { text: prompt }] },
      { role: "model", parts: [{ functionCall: call }] },
      {
        role: "user",
        parts: [{ functionResponse: { id: call.id, name: call.name, response: { output } } }],
      },
    ],
  };
}

export function postGemini(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "stub-key" },
    body: JSON.stringify(body),
  });
}

/** The `data:` chunks of an SSE body (gemini-cli's SDK splits on a blank line, \r\n or \n). */
export async function readGeminiSse(response: Response): Promise<{ chunks: GeminiChunk[]; raw: string }> {
  const raw = await response.text();
  const chunks = raw
    .split(/\r?\n\r?\n/)
    .filter((frame) => frame.trim() !== "")
    .map((frame) => JSON.parse(frame.replace(/^data: /, "")) as GeminiChunk);
  return { chunks, raw };
}

/** The text parts of all chunks joined (thoughts left out), as gemini-cli assembles the answer. */
export function streamedGeminiText(chunks: readonly GeminiChunk[]): string {
  return chunks
    .flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
    .filter((part) => typeof part.text === "string" && part.thought !== true)
    .map((part) => String(part.text))
    .join("");
}
