import { StateRootError } from "../errors.ts";

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
  /** chmod to `mode` (0700): group and other bits, setgid and sticky taken away. */
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
      const bits = seen.mode & 0o7777;
      // The check only takes bits away: a root its owner cannot read or write is refused, not fixed.
      if ((bits & 0o700) !== 0o700)
        return refuse(
          root,
          "owner-mode",
          `the state root ${root} is mode ${bits.toString(8).padStart(4, "0")}, so umbel cannot read and write it`,
          `chmod 700 ${root}, or set UMBEL_HOME to another folder`,
        );
      return bits === 0o700 ? { action: "use" } : { action: "tighten", mode: 0o700 };
    }
  }
}

function refuse(root: string, problem: string, what: string, todo: string): StateRootVerdict {
  return {
    action: "refuse",
    error: new StateRootError(`${what}: ${todo}`, { path: root, problem, hint: todo }),
  };
}
