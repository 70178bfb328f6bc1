import type { Deps } from "../../core/ports.ts";
import { findSessionId, findTranscriptPath, lastSubmitIndex } from "../../core/wait/turn.ts";
import type { SessionSeen } from "../../core/workflow/resume.ts";
import { waitGuarded } from "../guard/guard.ts";
import { spawnWorker } from "../spawn/spawn.ts";
import { killWorker } from "../worker/kill.ts";
import { readAnswer } from "../worker/read.ts";
import { sendPrompt } from "../worker/send.ts";
import { checkLiveness, loadWorker, readEvents } from "../worker/worker.ts";
import type { WorkerVerbs } from "./worker-verbs.ts";

/** A workflow worker on this machine: the CLI's own operations, called in this process. */
export const localVerbs: WorkerVerbs = {
  spawn: (deps, input, defaultProvider) =>
    spawnWorker(deps, { ...input, provider: input.provider ?? defaultProvider }),
  send: (deps, input) => sendPrompt(deps, input),
  wait: (deps, input) => waitGuarded(deps, input),
  read: (deps, input) => readAnswer(deps, input),
  kill: (deps, input) => killWorker(deps, input),
  see: seeLocal,
};

async function seeLocal(deps: Deps, name: string): Promise<SessionSeen> {
  const worker = await loadWorker(deps, name).catch(() => null);
  if (!worker) return { name, alive: false, providerSession: null, tookPrompt: false };
  const [live, events] = await Promise.all([
    checkLiveness(deps, worker).catch(() => ({ alive: false })),
    readEvents(deps, worker.provider, name).catch(() => []),
  ]);
  const { provider } = worker;
  const seen = {
    name,
    alive: live.alive,
    providerSession: findSessionId(provider, events),
    tookPrompt: lastSubmitIndex(provider, events) !== null,
  };
  if (provider.conversationsPerWorker)
    return {
      ...seen,
      unresumable: `${provider.displayName} keeps its conversations in each worker's own home`,
    };
  // The CLI resumes from its own record: a new container (or a cleaned home) no longer has it.
  const transcript =
    seen.alive || seen.providerSession === null ? null : findTranscriptPath(provider, events);
  if (transcript !== null && (await deps.files.size(transcript).catch(() => null)) === null)
    return {
      ...seen,
      unresumable: `its CLI's record of the conversation is gone (${transcript}; was the CLI's home kept?)`,
    };
  return seen;
}
