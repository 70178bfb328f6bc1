import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

/** The Kubernetes example (deploy/kubernetes/jobs.yaml) runs the image as it is built and tested. */

const REPO = join(import.meta.dir, "..", "..", "..");
type Container = {
  image: string;
  args: string[];
  command?: string[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  volumeMounts: { name: string; mountPath: string }[];
};
type Job = {
  kind: string;
  spec: {
    template: {
      spec: {
        restartPolicy: string;
        securityContext: { runAsUser: number; runAsNonRoot: boolean };
        containers: Container[];
        volumes: { name: string }[];
      };
    };
  };
};
const jobs = parseAllDocuments(readFileSync(join(REPO, "deploy", "kubernetes", "jobs.yaml"), "utf8")).map(
  (d) => d.toJS() as Job,
);

describe("deploy/kubernetes/jobs.yaml", () => {
  test("two Jobs: one per workflow, and an indexed fan-out", () => {
    expect(jobs.map((j) => j.kind)).toEqual(["Job", "Job"]);
  });

  test.each(jobs.map((j, i) => [i, j] as const))(
    "job %i: umbel as the image's user, state on its volume, the token from a Secret",
    (_i, job) => {
      const pod = job.spec.template.spec;
      expect(pod.restartPolicy).toBe("Never");
      expect(pod.securityContext).toMatchObject({ runAsUser: 10001, runAsNonRoot: true });
      const [c] = pod.containers;
      expect(c?.volumeMounts).toContainEqual({ name: "state", mountPath: "/var/lib/umbel" });
      const token = c?.env.find((e) => e.name === "CLAUDE_CODE_OAUTH_TOKEN");
      expect(token?.value).toBeUndefined();
      expect(token?.valueFrom?.secretKeyRef?.name).toBe("umbel-auth");
      expect([...(c?.command ?? []), ...(c?.args ?? [])].join(" ")).toMatch(/\brun\b.*\.yaml.*--json/);
    },
  );
});
