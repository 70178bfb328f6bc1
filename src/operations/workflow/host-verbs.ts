import { RemoteError } from "../../core/errors.ts";
import { SendOutput } from "../../core/fleet/queue.ts";
import { GuardedSendInput } from "../../core/guard/fields.ts";
import { REMOTE_VERB_MS } from "../../core/hosts/command.ts";
import type { Deps } from "../../core/ports.ts";
import { isRunningState, KillInput, ReadInput, StatusInput } from "../../core/schemas.ts";
import { SpawnInput } from "../../core/spawn/input.ts";
import { KillResult, ReadResult, SpawnResult } from "../../core/worker/outputs.ts";
import { StatusResult } from "../../core/worker/status.ts";
import type { SessionSeen } from "../../core/workflow/resume.ts";
import { resolveSchema } from "../guard/plan.ts";
import { loadHost, relayTyped } from "../hosts/relay.ts";
import { waitOnHost } from "../hosts/wait.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../spawn/prepare.ts";
import type { WorkerVerbs } from "./worker-verbs.ts";

/**
 * A workflow worker on a host (docs/hosts.md#workflows): each verb is the one the CLI relays for
 * `box:NAME`, with the same wire input, and the wait is operations/hosts/wait.ts's (retried across
 * a dropped link to its own deadline). Nothing of the worker is kept here but its name in the run.
 */
export function hostVerbs(host: string): WorkerVerbs {
  return {
    // The host resolves a provider left out, as `spawn --host` does: its config, not this one's.
    spawn: (deps, input) =>
      relayTyped(deps, {
        host,
        verb: "spawn",
        shape: SpawnInput.shape,
        output: SpawnResult,
        input,
        verbMs: input.startTimeout ?? DEFAULT_START_TIMEOUT_MS,
      }),
    send: async (deps, input) => {
      // A schema file is the workflow's (read here, relative to its folder); the host gets the
      // object itself, so it needs no copy. accept commands run there, in the worker's cwd.
      const jsonSchema =
        input.jsonSchema === undefined ? {} : { jsonSchema: await resolveSchema(deps, input.jsonSchema) };
      const sent = await relayTyped(deps, {
        host,
        verb: "send",
        shape: GuardedSendInput.shape,
        output: SendOutput,
        input: { ...input, ...jsonSchema },
        verbMs: REMOTE_VERB_MS,
      });
      if (sent.baseline === null)
        throw new RemoteError(`host ${host}: send queued the prompt instead of sending it`, {
          code: "remote-failure",
          exitCode: 1,
        });
      return { baseline: sent.baseline };
    },
    wait: async (deps, input) =>
      waitOnHost(deps, {
        plan: await loadHost(deps, host),
        name: input.name,
        after: input.after,
        timeout: input.timeout,
        idleTimeout: input.idleTimeout,
        maxTokens: input.maxTokens,
      }),
    read: (deps, input) =>
      relayTyped(deps, {
        host,
        verb: "read",
        shape: ReadInput.shape,
        output: ReadResult,
        input,
        verbMs: REMOTE_VERB_MS,
      }),
    kill: (deps, input) =>
      relayTyped(deps, {
        host,
        verb: "kill",
        shape: KillInput.shape,
        output: KillResult,
        input,
        verbMs: REMOTE_VERB_MS,
      }),
    see: (deps, name, recorded) => seeOnHost(deps, host, name, recorded),
  };
}

/**
 * A host's session as a resume finds it: its status relayed. Only whether it runs is used: a gone
 * session's conversation is not resumed in a new one (its record is the host's), it starts fresh.
 * A host that does not answer counts as the session gone.
 */
async function seeOnHost(deps: Deps, host: string, name: string, recorded: string): Promise<SessionSeen> {
  const status = await relayTyped(deps, {
    host,
    verb: "status",
    shape: StatusInput.shape,
    output: StatusResult,
    input: { name },
    verbMs: REMOTE_VERB_MS,
  }).catch(() => null);
  return {
    name: recorded,
    alive: status !== null && isRunningState(status.state),
    providerSession: null,
    tookPrompt: false,
    unresumable: `its conversation is on host ${host}, which a new session does not resume yet`,
  };
}
