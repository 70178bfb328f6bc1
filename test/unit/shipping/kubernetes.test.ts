import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { apiProblems, readManifests } from "../../helpers/kubernetes.ts";

/** Every manifest under deploy/ is one the Kubernetes API takes, as strict as `--validate=strict`. */

const DIR = join(import.meta.dir, "..", "..", "..", "deploy", "kubernetes");
const manifests = readManifests(DIR);
const shards = manifests.find((m) => m.doc.kind === "Job" && m.file === "shards.yaml");
if (shards === undefined) throw new Error("deploy/kubernetes/shards.yaml holds no Job");

/** The Indexed Job with one change made by `edit`. */
function shardsWith(edit: (job: ShardsJob) => void): Record<string, unknown> {
  const job = structuredClone(shards?.doc) as ShardsJob;
  edit(job);
  return job as unknown as Record<string, unknown>;
}
type ShardsJob = {
  spec: Record<string, unknown> & {
    template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
  };
};
const container = (job: ShardsJob) => job.spec.template.spec.containers[0] as Record<string, unknown>;

describe("deploy/kubernetes against the API's schemas", () => {
  test("the manifests: the claims, the Job, the Indexed Job and the collecting Job", () => {
    expect(
      manifests.map((m) => `${m.file} ${m.doc.kind} ${(m.doc.metadata as { name: string }).name}`),
    ).toEqual([
      "collect.yaml Job umbel-collect",
      "job.yaml Job umbel-tasks",
      "shards.yaml Job umbel-shards",
      "volumes.yaml PersistentVolumeClaim umbel-state",
      "volumes.yaml PersistentVolumeClaim umbel-results",
    ]);
  });

  test.each(manifests.map((m) => [`${m.file}#${m.index}`, m.doc] as const))("%s is valid", (_name, doc) => {
    expect(apiProblems(doc)).toEqual([]);
  });

  // The validation must be able to fail: each case is a mistake the API refuses.
  test.each([
    [
      "a misspelt field",
      (job: ShardsJob) => {
        container(job).volumeMount = container(job).volumeMounts;
        delete container(job).volumeMounts;
      },
      ["/spec/template/spec/containers/0/volumeMount: no such field in the API"],
    ],
    [
      "a field of another object",
      (job: ShardsJob) => {
        job.spec.restartPolicy = "Never";
      },
      ["/spec/restartPolicy: no such field in the API"],
    ],
    [
      "a number as a string",
      (job: ShardsJob) => {
        job.spec.completions = "3";
      },
      ["/spec/completions must be integer"],
    ],
    [
      "a list as one item",
      (job: ShardsJob) => {
        container(job).args = "run /flows/shard.yaml";
      },
      ["/spec/template/spec/containers/0/args must be array"],
    ],
    [
      "a value outside its enum",
      (job: ShardsJob) => {
        job.spec.completionMode = "indexed";
      },
      ["/spec/completionMode must be equal to one of the allowed values"],
    ],
    [
      "a required field left out",
      (job: ShardsJob) => {
        delete container(job).name;
      },
      ["/spec/template/spec/containers/0 must have required property name"],
    ],
    [
      "the pod template left out",
      (job: ShardsJob) => {
        delete (job.spec as Record<string, unknown>).template;
      },
      ["/spec must have required property template"],
    ],
  ] as const)("refused: %s", (_name, edit, problems) => {
    expect(apiProblems(shardsWith(edit))).toEqual([...problems]);
  });

  test("refused: a kind with no schema here", () => {
    expect(apiProblems({ apiVersion: "batch/v1", kind: "Jobs", metadata: { name: "x" } })).toEqual([
      "no schema for batch/v1 Jobs (add its kubernetes-models class)",
    ]);
  });
});
