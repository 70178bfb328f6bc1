import type { Verb } from "../verbs/verb.ts";

/**
 * The verb of the table (faces/verbs/table.ts) named, loaded alone: only its own module and what
 * that imports, not every verb's schemas and operations (`ls` built 1,654 zod schema nodes from the
 * whole table, 1,272 from its own module). A unit test holds this list equal to the table.
 */
export async function loadVerb(name: string): Promise<Verb | undefined> {
  switch (name) {
    case "spawn":
      return (await import("../verbs/lifecycle.ts")).spawnVerb;
    case "send":
      return (await import("../verbs/lifecycle.ts")).sendVerb;
    case "wait":
      return (await import("../verbs/lifecycle.ts")).waitVerb;
    case "answer":
      return (await import("../verbs/answer.ts")).answerVerb;
    case "read":
      return (await import("../verbs/read.ts")).readVerb;
    case "kill":
      return (await import("../verbs/lifecycle.ts")).killVerb;
    case "prune":
      return (await import("../verbs/lifecycle.ts")).pruneVerb;
    case "status":
      return (await import("../verbs/inspect.ts")).statusVerb;
    case "ls":
      return (await import("../verbs/inspect.ts")).lsVerb;
    case "capture":
      return (await import("../verbs/inspect.ts")).captureVerb;
    case "logs":
      return (await import("../verbs/inspect.ts")).logsVerb;
    case "keys":
      return (await import("../verbs/inspect.ts")).keysVerb;
    case "attach":
      return (await import("../verbs/inspect.ts")).attachVerb;
    case "doctor":
      return (await import("../verbs/doctor.ts")).doctorVerb;
    case "pool":
      return (await import("../verbs/pool.ts")).poolVerb;
    case "accounts":
      return (await import("../verbs/accounts.ts")).accountsVerb;
    case "hosts":
      return (await import("../verbs/hosts.ts")).hostsVerb;
    default:
      return undefined;
  }
}
