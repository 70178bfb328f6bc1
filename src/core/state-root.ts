import { StateRootError } from "./errors.ts";

/**
 * The state root holds every worker's events log, which quotes whatever the model said (secrets
 * included): it must be a directory of the caller's own, 0700. Pure: the adapter observes the
 * root (`adapters/state-root.ts` checkStateRoot, once per process) and does what this decides;
 * `doctor` reports the same verdict without acting on it (inspectStateRoot).
 */

export type StateRootObservation =
  | { readonly kind: "missing" }
  | { readonly kind: "dangling-link"; readonly target: string }
  | { readonly kind: "not-a-directory" }
  /** After following a link: the directory's owner and permission bits. */
  | { readonly kind: "directory"; readonly uid: number; readonly mode: number };

export type StateRootVerdict =
  | { readonly action: "create" }
  | { readonly action: "use" }
  /** chmod to `mode`: group and other bits taken away, the owner's kept. */
  | { readonly action: "tighten"; readonly mode: number }
  | { readonly action: "refuse"; readonly error: StateRootError };

/** `uid` null: the platform has no uids, so ownership cannot be checked. */
export function assessStateRoot(
  root: string,
  seen: StateRootObservation,
  uid: number | null,
): StateRootVerdict {
  switch (seen.kind) {
    case "missing":
      return { action: "create" };
    case "dangling-link":
      return refuse(
        root,
        "dangling-link",
        `the state root ${root} is a symbolic link to ${seen.target}, which does not exist`,
        "create that folder, remove the link, or set UMBEL_HOME to another folder",
      );
    case "not-a-directory":
      return refuse(
        root,
        "not-a-directory",
        `the state root ${root} is not a directory`,
        "remove it, or set UMBEL_HOME to a folder",
      );
    case "directory": {
      // Root is not special: root's umbel writing into another user's folder would leave them files
      // they cannot remove, and their folder's secrets would be readable by whoever owns it.
      if (uid !== null && seen.uid !== uid)
        return refuse(
          root,
          "foreign-owner",
          `the state root ${root} belongs to uid ${seen.uid}, not to you (uid ${uid})`,
          "umbel keeps its workers' secrets there, so set UMBEL_HOME to a folder of your own",
        );
      // Tightening only takes away: a root its owner made read-only stays so (writes then say so).
      const bits = seen.mode & 0o7777;
      return bits & 0o7077 ? { action: "tighten", mode: bits & 0o700 } : { action: "use" };
    }
  }
}

function refuse(root: string, problem: string, what: string, todo: string): StateRootVerdict {
  return {
    action: "refuse",
    error: new StateRootError(`${what}: ${todo}`, { path: root, problem, hint: todo }),
  };
}
