import type { z } from "zod";
import { suggestKey } from "../common/suggest.ts";
import { quote } from "./excerpt.ts";
import type { WorkflowIssue } from "./positions.ts";
import { Workflow, WorkflowStep, WorkflowWorker } from "./schema.ts";
import type { IssuePath } from "./yaml-read.ts";

/**
 * zod's issues, reworded for a person editing YAML: unknown keys point at the key and suggest the
 * intended spelling, a missing key says so, a bad map key names the key.
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], value: unknown): WorkflowIssue[] {
  return issues.flatMap((issue): WorkflowIssue[] => {
    const path = issue.path as IssuePath;
    const last = path.at(-1);
    switch (issue.code) {
      case "unrecognized_keys":
        return issue.keys.map((key) => ({ path: [...path, key], key: true, message: unknownKey(key, path) }));
      case "invalid_key":
        return [
          {
            path,
            key: true,
            message: `bad name ${quote(String(last))}: ${issue.issues[0]?.message ?? issue.message}`,
          },
        ];
      case "invalid_union":
        return [
          { path, message: path.includes("env") ? "expected a string or {fromEnv: NAME}" : issue.message },
        ];
      case "invalid_type":
        if (last !== undefined && !hasPath(value, path))
          return [{ path, message: `missing key ${JSON.stringify(last)}` }];
        return [{ path, message: issue.message.replace(/^Invalid input: /, "") }];
      default:
        return [{ path, message: issue.message }];
    }
  });
}

const KEYS = {
  top: Object.keys(Workflow.shape),
  worker: Object.keys(WorkflowWorker.shape),
  step: Object.keys(WorkflowStep.shape),
  fromEnv: ["fromEnv"],
};

function knownKeys(path: IssuePath): string[] {
  if (path.length === 0) return KEYS.top;
  if (path[0] === "workers" && path.length === 2) return KEYS.worker;
  if (path[0] === "steps" && path.length === 2) return KEYS.step;
  if (path[0] === "workers" && path[2] === "env") return KEYS.fromEnv;
  return [];
}

function unknownKey(key: string, path: IssuePath): string {
  const known = knownKeys(path);
  const hint = suggestKey(key, known);
  const list = known.length > 0 ? ` (known keys: ${known.join(", ")})` : "";
  return `unknown key ${quote(key)}${hint ? ` — did you mean ${JSON.stringify(hint)}?` : list}`;
}

function hasPath(value: unknown, path: IssuePath): boolean {
  let node = value;
  for (const segment of path) {
    if (node === null || typeof node !== "object" || !(String(segment) in node)) return false;
    node = (node as Record<string, unknown>)[String(segment)];
  }
  return true;
}
