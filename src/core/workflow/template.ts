import { clip } from "./excerpt.ts";

/**
 * Prompt templating is exactly `{{ env.NAME }}` and `{{ steps.ID.outputs.KEY }}`: no expressions,
 * filters, defaults or escapes. Every `{{` starts a reference, so anything else is an error rather
 * than text silently sent to the model.
 */

export type TemplateRef =
  | { kind: "env"; name: string; text: string }
  | { kind: "output"; step: string; key: string; text: string };

export type TemplatePart = string | TemplateRef;

type TemplateError = { text: string; message: string };

export type ParsedTemplate = { parts: TemplatePart[]; refs: TemplateRef[]; errors: TemplateError[] };

const ENV = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;
const OUTPUT = /^steps\.([A-Za-z_][A-Za-z0-9_-]*)\.outputs\.([A-Za-z_][A-Za-z0-9_-]*)$/;

export function parseTemplate(source: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const refs: TemplateRef[] = [];
  const errors: TemplateError[] = [];
  const text = (chunk: string) => {
    if (chunk.includes("{{"))
      errors.push({
        text: "{{",
        message: "unclosed {{ (templates are {{ env.NAME }} or {{ steps.ID.outputs.KEY }})",
      });
    if (chunk) parts.push(chunk);
  };
  let last = 0;
  // indexOf, not a lazy regex: a regex tries every {{ to the end of the text (quadratic).
  for (let open = source.indexOf("{{"); open >= 0; open = source.indexOf("{{", last)) {
    const close = source.indexOf("}}", open + 2);
    if (close < 0) break;
    text(source.slice(last, open));
    last = close + 2;
    const whole = source.slice(open, last);
    const inner = source.slice(open + 2, close).trim();
    const env = ENV.exec(inner);
    const output = OUTPUT.exec(inner);
    const ref: TemplateRef | null = env
      ? { kind: "env", name: env[1] ?? "", text: whole }
      : output
        ? { kind: "output", step: output[1] ?? "", key: output[2] ?? "", text: whole }
        : null;
    if (ref === null) {
      errors.push({
        text: whole,
        message: `unsupported template ${clip(whole)}: use {{ env.NAME }} or {{ steps.ID.outputs.KEY }}`,
      });
      parts.push(whole);
      continue;
    }
    parts.push(ref);
    refs.push(ref);
  }
  text(source.slice(last));
  return { parts, refs, errors };
}

export type TemplateValues = {
  env(name: string): string | undefined;
  output(step: string, key: string): string | undefined;
};

/**
 * The text with every reference replaced. An unresolvable reference stays as written when
 * `keepUnresolved` (the dry-run shows what it cannot know yet); otherwise it is returned in `missing`.
 */
export function renderTemplate(
  parts: readonly TemplatePart[],
  values: TemplateValues,
  keepUnresolved = false,
): { text: string; missing: TemplateRef[] } {
  const missing: TemplateRef[] = [];
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") {
      text += part;
      continue;
    }
    const value = part.kind === "env" ? values.env(part.name) : values.output(part.step, part.key);
    if (value === undefined) {
      missing.push(part);
      if (keepUnresolved) text += part.text;
    } else text += value;
  }
  return { text, missing };
}
