import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dumpYaml, loadYaml } from "@kubernetes/client-node";
import { Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim } from "kubernetes-models/v1";
import { parse, parseAllDocuments } from "yaml";

/**
 * Kubernetes manifests checked against the API's own schemas, by two libraries generated from the
 * Kubernetes OpenAPI document (no check of ours on any field):
 * - kubernetes-models: each kind's JSON schema (types, required fields, enums, formats), through
 *   its validate();
 * - @kubernetes/client-node (the project's official client): its serializer knows every field of
 *   every type, so a field the API does not have is lost in a round trip through it. That is the
 *   API server's strict field validation (`kubectl apply --validate=strict`), which the JSON schemas
 *   cannot say: the OpenAPI document does not close its objects.
 */

/** The kinds deploy/ uses; another one needs its kubernetes-models class here. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "batch/v1 Job": Job,
  "v1 PersistentVolumeClaim": PersistentVolumeClaim,
};

export type Manifest = {
  readonly file: string;
  readonly index: number;
  readonly doc: Record<string, unknown>;
};

/** Every document of every .yaml under `dir` (not its subfolders: kubectl apply -f DIR reads the same). */
export function readManifests(dir: string): Manifest[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .flatMap((name) =>
      parseAllDocuments(readFileSync(join(dir, name), "utf8")).map((d, index) => {
        if (d.errors.length > 0) throw new Error(`${name}: ${d.errors.map((e) => e.message).join("; ")}`);
        return { file: name, index, doc: d.toJS() as Record<string, unknown> };
      }),
    );
}

/** What the API would refuse in `doc`, one line each; empty when it is valid. */
export function apiProblems(doc: Record<string, unknown>): string[] {
  const kind = `${String(doc.apiVersion)} ${String(doc.kind)}`;
  const Model = MODELS[kind];
  if (Model === undefined) return [`no schema for ${kind} (add its kubernetes-models class)`];
  const problems: string[] = [];
  try {
    new Model(structuredClone(doc) as never).validate();
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (errors === undefined) throw error;
    problems.push(...errors.map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`));
  }
  const back: unknown = parse(dumpYaml(loadYaml(JSON.stringify(doc))));
  problems.push(...lostFields(doc, back, "").map((path) => `${path}: no such field in the API`));
  return problems;
}

/** The paths of `before` whose keys `after` lacks (values are not compared: the schemas do that). */
function lostFields(before: unknown, after: unknown, path: string): string[] {
  if (Array.isArray(before))
    return before.flatMap((item, i) =>
      lostFields(item, Array.isArray(after) ? after[i] : undefined, `${path}/${i}`),
    );
  if (before === null || typeof before !== "object") return [];
  const kept = after !== null && typeof after === "object" ? (after as Record<string, unknown>) : {};
  return Object.entries(before).flatMap(([key, value]) =>
    key in kept ? lostFields(value, kept[key], `${path}/${key}`) : [`${path}/${key}`],
  );
}

/** The pod spec of the Job in `dir/file`, typed as far as the caller needs. */
export function jobPodSpec<T>(dir: string, file: string): T {
  const job = readManifests(dir).find((m) => m.file === file && m.doc.kind === "Job");
  if (job === undefined) throw new Error(`${file} holds no Job`);
  return (job.doc as { spec: { template: { spec: T } } }).spec.template.spec;
}
