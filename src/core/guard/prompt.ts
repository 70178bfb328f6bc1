/**
 * The TUIs get the StructuredOutput tool from umbel's MCP server, whose input schema is declared once
 * at launch (any object), so the turn's schema travels with the prompt; the tool checks each call
 * against it. claude -p puts the schema in the tool's input_schema instead (docs/guardrails.md).
 */
export function withSchemaNote(prompt: string, schema: Readonly<Record<string, unknown>>): string {
  return `${prompt}\n\n[umbel] Give your final result by calling the StructuredOutput tool exactly once, its arguments an object that matches this JSON Schema:\n${JSON.stringify(schema)}`;
}
